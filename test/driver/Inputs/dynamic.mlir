// Dynamic shapes are not supported: tessel-validate-input names the op.
func.func @dyn(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}

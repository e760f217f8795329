// A static signature with a dynamically shaped value inside.
func.func @inner(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %d = tensor.cast %a : tensor<8x4xf32> to tensor<?x4xf32>
  %s = tensor.cast %d : tensor<?x4xf32> to tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// Ops from dialects Tessel produces (vector, gpu, llvm) are not input.
func.func @v(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %a[%c0], %p : tensor<4xf32>, vector<4xf32>
  %r = vector.transfer_write %v, %a[%c0] : vector<4xf32>, tensor<4xf32>
  return %r : tensor<4xf32>
}

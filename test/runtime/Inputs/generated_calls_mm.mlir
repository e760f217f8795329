// An f16 product that sm_90a maps to the wgmma kernel (TMA descriptors
// made by the host code on every call).
func.func @mm(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf16>, tensor<64x128xf16>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

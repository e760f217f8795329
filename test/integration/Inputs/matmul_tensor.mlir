// Matmul on tensors for several static shapes (M x K x N): square, odd and
// non-square, and degenerate. C = A * B, each result a fresh tensor.
func.func @matmul_64x64x64(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @matmul_37x53x29(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>) -> tensor<37x29xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x29xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  %r = linalg.matmul ins(%a, %b : tensor<37x53xf32>, tensor<53x29xf32>)
                     outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}

func.func @matmul_1x7x3(%a: tensor<1x7xf32>, %b: tensor<7x3xf32>) -> tensor<1x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3xf32>) -> tensor<1x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x7xf32>, tensor<7x3xf32>)
                     outs(%c : tensor<1x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

func.func @matmul_128x200x96(%a: tensor<128x200xf32>, %b: tensor<200x96xf32>) -> tensor<128x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x200xf32>, tensor<200x96xf32>)
                     outs(%c : tensor<128x96xf32>) -> tensor<128x96xf32>
  return %r : tensor<128x96xf32>
}

// f64 as well, so the header and ABI cover another element type.
func.func @matmul_f64_5x6x7(%a: tensor<5x6xf64>, %b: tensor<6x7xf64>) -> tensor<5x7xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<5x7xf64>
  %c = linalg.fill ins(%zero : f64) outs(%e : tensor<5x7xf64>) -> tensor<5x7xf64>
  %r = linalg.matmul ins(%a, %b : tensor<5x6xf64>, tensor<6x7xf64>)
                     outs(%c : tensor<5x7xf64>) -> tensor<5x7xf64>
  return %r : tensor<5x7xf64>
}

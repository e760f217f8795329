// f32 matmuls through tessel-vectorize-matmul (packed, register-tiled FMA
// kernels): tile multiples, sizes that are not, tiny ones, and one that
// accumulates into a C argument. Names are matmul_<M>x<K>x<N>.
func.func @matmul_512x512x512(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>)
                     outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}

func.func @matmul_1000x1000x1000(%a: tensor<1000x1000xf32>, %b: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x1000xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1000x1000xf32>, tensor<1000x1000xf32>)
                     outs(%c : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %r : tensor<1000x1000xf32>
}

func.func @matmul_513x129x257(%a: tensor<513x129xf32>, %b: tensor<129x257xf32>) -> tensor<513x257xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<513x257xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<513x257xf32>) -> tensor<513x257xf32>
  %r = linalg.matmul ins(%a, %b : tensor<513x129xf32>, tensor<129x257xf32>)
                     outs(%c : tensor<513x257xf32>) -> tensor<513x257xf32>
  return %r : tensor<513x257xf32>
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

// C = C0 + A * B with C0 an input.
func.func @matmul_acc_37x53x29(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>, %c: tensor<37x29xf32>) -> tensor<37x29xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<37x53xf32>, tensor<53x29xf32>)
                     outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}

func.func @matmul_accumulate(%a: tensor<31x45xf32>, %b: tensor<45x33xf32>, %c: tensor<31x33xf32>) -> tensor<31x33xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<31x45xf32>, tensor<45x33xf32>) outs(%c : tensor<31x33xf32>) -> tensor<31x33xf32>
  return %r : tensor<31x33xf32>
}

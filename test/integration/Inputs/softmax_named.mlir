// reduction.mlir with the softmax written as the named op linalg.softmax
// (an aggregate op that decomposes into the generics of reduction.mlir).
#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @row_sum(%x: tensor<19x77xf32>) -> tensor<19xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<19xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<19xf32>) -> tensor<19xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<19x77xf32>) outs(%init : tensor<19xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<19xf32>
  return %s : tensor<19xf32>
}

// The sum of all elements, returned as a scalar by value.
func.func @total(%x: tensor<19x77xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<19x77xf32>) outs(%init : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %v = tensor.extract %s[] : tensor<f32>
  return %v : f32
}

func.func @softmax(%x: tensor<16x100xf32>) -> tensor<16x100xf32> {
  %e = tensor.empty() : tensor<16x100xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<16x100xf32>) outs(%e : tensor<16x100xf32>) -> tensor<16x100xf32>
  return %y : tensor<16x100xf32>
}

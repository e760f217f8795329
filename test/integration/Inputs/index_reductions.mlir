// Reductions whose bodies read a loop index (linalg.index), as an argmax
// does: a row sum of x[i, r] + r, and a row argmax (the maximum and the
// first column holding it). The CPU's row-reduction split would see the
// index relative to its 16-lane blocks; such ops take another route.
#in = affine_map<(i, r) -> (i, r)>
#row = affine_map<(i, r) -> (i)>

func.func @row_index_sum(%x: tensor<2x10000xi32>) -> tensor<2xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2xi32>
  %init = linalg.fill ins(%zero : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %r = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x10000xi32>) outs(%init : tensor<2xi32>) {
  ^bb0(%v: i32, %acc: i32):
    %k = linalg.index 1 : index
    %kk = arith.index_cast %k : index to i32
    %t = arith.addi %v, %kk : i32
    %s = arith.addi %t, %acc : i32
    linalg.yield %s : i32
  } -> tensor<2xi32>
  return %r : tensor<2xi32>
}

func.func @row_argmax(%x: tensor<8x4096xf32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8xf32>
  %ei = tensor.empty() : tensor<8xi32>
  %m0 = linalg.fill ins(%lowest : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %i0 = linalg.fill ins(%zero : i32) outs(%ei : tensor<8xi32>) -> tensor<8xi32>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x4096xf32>) outs(%m0, %i0 : tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%v: f32, %m: f32, %at: i32):
    %k = linalg.index 1 : index
    %kk = arith.index_cast %k : index to i32
    %greater = arith.cmpf ogt, %v, %m : f32
    %mm = arith.select %greater, %v, %m : f32
    %aa = arith.select %greater, %kk, %at : i32
    linalg.yield %mm, %aa : f32, i32
  } -> (tensor<8xf32>, tensor<8xi32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi32>
}

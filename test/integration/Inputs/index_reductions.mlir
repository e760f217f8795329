// Reductions whose bodies read a loop index (linalg.index), as an argmax
// does: a row sum of x[i, r] + r, and a row argmax (the maximum and the
// first column holding it). The CPU's row-reduction split would see the
// index relative to its 16-lane blocks; such ops take another route.
// A GPU splits an argmax over threads (matchSplittableReduction): of
// equal values, the partial result with the smaller index wins. Here an
// argmax of 8 rows runs a block per row, one of 4 rows two blocks per row
// and a combining kernel, and an argmin of 300 rows of i32 with i64
// indices, written with the comparison reversed, a block or a warp per
// row.
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

func.func @row_argmin_i64(%x: tensor<300x777xi32>) -> (tensor<300xi32>, tensor<300xi64>) {
  %highest = arith.constant 2147483647 : i32
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<300xi32>
  %ei = tensor.empty() : tensor<300xi64>
  %m0 = linalg.fill ins(%highest : i32) outs(%e : tensor<300xi32>) -> tensor<300xi32>
  %i0 = linalg.fill ins(%zero : i64) outs(%ei : tensor<300xi64>) -> tensor<300xi64>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<300x777xi32>) outs(%m0, %i0 : tensor<300xi32>, tensor<300xi64>) {
  ^bb0(%v: i32, %m: i32, %at: i64):
    %k = linalg.index 1 : index
    %kk = arith.index_cast %k : index to i64
    %smaller = arith.cmpi sgt, %m, %v : i32
    %mm = arith.select %smaller, %v, %m : i32
    %aa = arith.select %smaller, %kk, %at : i64
    linalg.yield %mm, %aa : i32, i64
  } -> (tensor<300xi32>, tensor<300xi64>)
  return %r#0, %r#1 : tensor<300xi32>, tensor<300xi64>
}

// Rows with no winner (all -inf: the outputs keep their initial values,
// index -1), with NaNs (never greater) and a maximum equal to the row's
// initial value (which keeps its index, 4444, though the first 5.0 is at
// 3333: the sequential loop's strict comparison never replaces it), with
// the maximum only in the last column, and with it three times far apart
// (in different blocks). The initial values are arguments, not fills.
func.func @argmax_special(%x: tensor<4x5000xf32>, %m0: tensor<4xf32>, %i0: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x5000xf32>) outs(%m0, %i0 : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%v: f32, %m: f32, %at: i32):
    %k = linalg.index 1 : index
    %kk = arith.index_cast %k : index to i32
    %greater = arith.cmpf olt, %m, %v : f32
    %mm = arith.select %greater, %v, %m : f32
    %aa = arith.select %greater, %kk, %at : i32
    linalg.yield %mm, %aa : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi32>
}

// PyTorch's, NumPy's and JAX's argmax, as Tessel's frontends write it: a
// NaN counts beyond every number and the first NaN wins. Rows: NaNs at 1,
// 256 and 4000 (the first in a thread other than the one holding the
// second); the maximum at 10 and 2600, no NaN; a NaN only in the last
// column; all NaN.
func.func @argmax_nan_first(%x: tensor<4x5000xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi64>
  %m0 = linalg.fill ins(%lowest : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %i0 = linalg.fill ins(%zero : i64) outs(%ei : tensor<4xi64>) -> tensor<4xi64>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x5000xf32>) outs(%m0, %i0 : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%v: f32, %m: f32, %at: i64):
    %k = linalg.index 1 : index
    %kk = arith.index_cast %k : index to i64
    %greater = arith.cmpf ogt, %v, %m : f32
    %v_nan = arith.cmpf uno, %v, %v : f32
    %m_number = arith.cmpf ord, %m, %m : f32
    %nan_first = arith.andi %v_nan, %m_number : i1
    %wins = arith.ori %greater, %nan_first : i1
    %mm = arith.select %wins, %v, %m : f32
    %aa = arith.select %wins, %kk, %at : i64
    linalg.yield %mm, %aa : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi64>
}

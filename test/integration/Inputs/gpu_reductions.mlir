// Reductions without parallel loops, as tessel-map-reductions-to-gpu maps
// them: a long f32 sum (two kernels: blocks into partials, one block over
// them), an i32 max (two kernels), a sum and a max in one op over a 2-D
// input whose outputs start from non-neutral values (one block), and an
// f64 sum (one GPU thread: gpu.shuffle is split over 32-bit values only).
#i1 = affine_map<(i) -> (i)>
#i2 = affine_map<(i, j) -> (i, j)>
#s1 = affine_map<(i) -> ()>
#s2 = affine_map<(i, j) -> ()>

func.func @sum_long(%x: tensor<100003xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<100003xf32>) outs(%init : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

func.func @max_i32(%x: tensor<70001xi32>) -> tensor<i32> {
  %lowest = arith.constant -2147483648 : i32
  %e = tensor.empty() : tensor<i32>
  %init = linalg.fill ins(%lowest : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %m = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<70001xi32>) outs(%init : tensor<i32>) {
  ^bb0(%v: i32, %acc: i32):
    %r = arith.maxsi %v, %acc : i32
    linalg.yield %r : i32
  } -> tensor<i32>
  return %m : tensor<i32>
}

// sum = 1.5 + sum of x*x, max = max(0.25, max of x).
func.func @sum_squares_and_max(%x: tensor<37x45xf32>) -> (tensor<f32>, tensor<f32>) {
  %start = arith.constant 1.5 : f32
  %floor = arith.constant 0.25 : f32
  %e = tensor.empty() : tensor<f32>
  %s0 = linalg.fill ins(%start : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %m0 = linalg.fill ins(%floor : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r:2 = linalg.generic {indexing_maps = [#i2, #s2, #s2], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<37x45xf32>) outs(%s0, %m0 : tensor<f32>, tensor<f32>) {
  ^bb0(%v: f32, %acc: f32, %top: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    %m = arith.maximumf %v, %top : f32
    linalg.yield %s, %m : f32, f32
  } -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}

func.func @sum_f64(%x: tensor<1000xf64>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %s = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<1000xf64>) outs(%init : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %r = arith.addf %v, %acc : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  return %s : tensor<f64>
}

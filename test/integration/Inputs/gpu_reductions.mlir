// Reductions without parallel loops, as tessel-map-reductions-to-gpu maps
// them: a long f32 sum (two kernels: blocks into partials, one block over
// them), an i32 max (two kernels), a sum and a max in one op over a 2-D
// input whose outputs start from non-neutral values (one block), and
// outputs narrower and wider than 32 bits: an f64 sum (one block), an f16
// sum and an i64 sum (two kernels each), a bf16 max, an i8 xor, a signed i8
// max of negative values and an i1 "all" (one block each). Narrow values
// cross lanes in an i32; 64-bit ones as two halves.
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

func.func @sum_f16(%x: tensor<20000xf16>) -> tensor<f16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<f16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<f16>) -> tensor<f16>
  %s = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<20000xf16>) outs(%init : tensor<f16>) {
  ^bb0(%v: f16, %acc: f16):
    %r = arith.addf %v, %acc : f16
    linalg.yield %r : f16
  } -> tensor<f16>
  return %s : tensor<f16>
}

func.func @max_bf16(%x: tensor<3000xbf16>) -> tensor<bf16> {
  %lowest = arith.constant 0xFF80 : bf16
  %e = tensor.empty() : tensor<bf16>
  %init = linalg.fill ins(%lowest : bf16) outs(%e : tensor<bf16>) -> tensor<bf16>
  %m = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<3000xbf16>) outs(%init : tensor<bf16>) {
  ^bb0(%v: bf16, %acc: bf16):
    %r = arith.maximumf %v, %acc : bf16
    linalg.yield %r : bf16
  } -> tensor<bf16>
  return %m : tensor<bf16>
}

func.func @sum_i64(%x: tensor<50000xi64>) -> tensor<i64> {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %init = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %s = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<50000xi64>) outs(%init : tensor<i64>) {
  ^bb0(%v: i64, %acc: i64):
    %r = arith.addi %v, %acc : i64
    linalg.yield %r : i64
  } -> tensor<i64>
  return %s : tensor<i64>
}

func.func @xor_i8(%x: tensor<777xi8>) -> tensor<i8> {
  %zero = arith.constant 0 : i8
  %e = tensor.empty() : tensor<i8>
  %init = linalg.fill ins(%zero : i8) outs(%e : tensor<i8>) -> tensor<i8>
  %s = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<777xi8>) outs(%init : tensor<i8>) {
  ^bb0(%v: i8, %acc: i8):
    %r = arith.xori %v, %acc : i8
    linalg.yield %r : i8
  } -> tensor<i8>
  return %s : tensor<i8>
}

func.func @max_negative_i8(%x: tensor<999xi8>) -> tensor<i8> {
  %lowest = arith.constant -128 : i8
  %e = tensor.empty() : tensor<i8>
  %init = linalg.fill ins(%lowest : i8) outs(%e : tensor<i8>) -> tensor<i8>
  %m = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<999xi8>) outs(%init : tensor<i8>) {
  ^bb0(%v: i8, %acc: i8):
    %r = arith.maxsi %v, %acc : i8
    linalg.yield %r : i8
  } -> tensor<i8>
  return %m : tensor<i8>
}

// 1 when every element is positive, else 0: an i1 "and" reduction (its
// 0-d result in device memory), then one thread widens it.
func.func @all_positive(%x: tensor<5000xf32>) -> tensor<i32> {
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<i1>
  %init = linalg.fill ins(%true : i1) outs(%e : tensor<i1>) -> tensor<i1>
  %all = linalg.generic {indexing_maps = [#i1, #s1], iterator_types = ["reduction"]}
      ins(%x : tensor<5000xf32>) outs(%init : tensor<i1>) {
  ^bb0(%v: f32, %acc: i1):
    %p = arith.cmpf ogt, %v, %zero : f32
    %r = arith.andi %p, %acc : i1
    linalg.yield %r : i1
  } -> tensor<i1>
  %e32 = tensor.empty() : tensor<i32>
  %wide = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%all : tensor<i1>) outs(%e32 : tensor<i32>) {
  ^bb0(%b: i1, %o: i32):
    %w = arith.extui %b : i1 to i32
    linalg.yield %w : i32
  } -> tensor<i32>
  return %wide : tensor<i32>
}

// Elementwise linalg.generic with transcendentals. In f32 they go through
// tessel-approximate-math (polynomials); in f64 through libm calls.
#id2 = affine_map<(i, j) -> (i, j)>

// y = tanh(x) + exp(-x*x/2)  (f32)
func.func @tanh_exp(%x: tensor<7x130xf32>) -> tensor<7x130xf32> {
  %e = tensor.empty() : tensor<7x130xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<7x130xf32>) outs(%e : tensor<7x130xf32>) {
  ^bb0(%v: f32, %o: f32):
    %half = arith.constant -0.5 : f32
    %t = math.tanh %v : f32
    %sq = arith.mulf %v, %v : f32
    %a = arith.mulf %sq, %half : f32
    %g = math.exp %a : f32
    %r = arith.addf %t, %g : f32
    linalg.yield %r : f32
  } -> tensor<7x130xf32>
  return %y : tensor<7x130xf32>
}

// Two results from one function: tanh(x) and exp(x), wide input range so
// that exp overflows / underflows saturate at the edges.
func.func @tanh_and_exp(%x: tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>) {
  %e0 = tensor.empty() : tensor<1000xf32>
  %e1 = tensor.empty() : tensor<1000xf32>
  %t, %x2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                            iterator_types = ["parallel"]}
      ins(%x : tensor<1000xf32>) outs(%e0, %e1 : tensor<1000xf32>, tensor<1000xf32>) {
  ^bb0(%v: f32, %o0: f32, %o1: f32):
    %a = math.tanh %v : f32
    %b = math.exp %v : f32
    linalg.yield %a, %b : f32, f32
  } -> (tensor<1000xf32>, tensor<1000xf32>)
  return %t, %x2 : tensor<1000xf32>, tensor<1000xf32>
}

// f64: libm.
func.func @tanh_exp_f64(%x: tensor<64xf64>) -> tensor<64xf64> {
  %e = tensor.empty() : tensor<64xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<64xf64>) outs(%e : tensor<64xf64>) {
  ^bb0(%v: f64, %o: f64):
    %t = math.tanh %v : f64
    %g = math.exp %v : f64
    %r = arith.mulf %t, %g : f64
    linalg.yield %r : f64
  } -> tensor<64xf64>
  return %y : tensor<64xf64>
}

// exp at the edges of f32: infinities, NaN, the overflow threshold
// (ln FLT_MAX ~ 88.7228), results that are denormal or underflow to zero
// (x below about -87.34 and -103.97), and a sweep between. 256 lanes: on
// AVX-512 targets this takes the vscalefps approximation.
func.func @exp_edges(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  return %y : tensor<256xf32>
}

// math.erf over its whole range and at its edges: a rational function of
// the clamped argument (tessel-approximate-math).
func.func @erf_sweep(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %e = tensor.empty() : tensor<4096xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4096xf32>) outs(%e : tensor<4096xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.erf %v : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>
  return %y : tensor<4096xf32>
}

// IEEE maximum / minimum (NaN from either side, -0 below +0) of every pair
// of 16 edge values, f32 and f64: on AVX-512DQ targets these take
// vrange plus the quiet-NaN fix-up (tessel-lower-float-minmax).
func.func @minmax_edges(%a: tensor<256xf32>, %b: tensor<256xf32>)
    -> (tensor<256xf32>, tensor<256xf32>) {
  %e = tensor.empty() : tensor<256xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                          affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
      ins(%a, %b : tensor<256xf32>, tensor<256xf32>) outs(%e, %e : tensor<256xf32>, tensor<256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32, %p: f32):
    %mx = arith.maximumf %x, %y : f32
    %mn = arith.minimumf %x, %y : f32
    linalg.yield %mx, %mn : f32, f32
  } -> (tensor<256xf32>, tensor<256xf32>)
  return %r#0, %r#1 : tensor<256xf32>, tensor<256xf32>
}

func.func @minmax_edges_f64(%a: tensor<256xf64>, %b: tensor<256xf64>)
    -> (tensor<256xf64>, tensor<256xf64>) {
  %e = tensor.empty() : tensor<256xf64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                          affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
      ins(%a, %b : tensor<256xf64>, tensor<256xf64>) outs(%e, %e : tensor<256xf64>, tensor<256xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64, %p: f64):
    %mx = arith.maximumf %x, %y : f64
    %mn = arith.minimumf %x, %y : f64
    linalg.yield %mx, %mn : f64, f64
  } -> (tensor<256xf64>, tensor<256xf64>)
  return %r#0, %r#1 : tensor<256xf64>, tensor<256xf64>
}

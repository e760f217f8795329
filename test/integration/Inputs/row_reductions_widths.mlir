// Row reductions whose outputs are not 32 bits wide, as tile kernels run
// them split over a warp or a block (tessel-map-tiles-to-gpu): an f16 row
// max and sum in one op, whose partial results cross lanes in an i32 and
// combine in f16, and an f64 row sum, shuffled as two 32-bit halves.
#in = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @row_max_sum_f16(%x: tensor<256x3001xf16>) -> (tensor<256xf16>, tensor<256xf16>) {
  %lowest = arith.constant 0xFC00 : f16
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256xf16>
  %m0 = linalg.fill ins(%lowest : f16) outs(%e : tensor<256xf16>) -> tensor<256xf16>
  %s0 = linalg.fill ins(%zero : f16) outs(%e : tensor<256xf16>) -> tensor<256xf16>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x3001xf16>) outs(%m0, %s0 : tensor<256xf16>, tensor<256xf16>) {
  ^bb0(%v: f16, %m: f16, %s: f16):
    %mm = arith.maximumf %v, %m : f16
    %ss = arith.addf %v, %s : f16
    linalg.yield %mm, %ss : f16, f16
  } -> (tensor<256xf16>, tensor<256xf16>)
  return %r#0, %r#1 : tensor<256xf16>, tensor<256xf16>
}

func.func @row_sum_f64(%x: tensor<512x500xf64>) -> tensor<512xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<512xf64>
  %s0 = linalg.fill ins(%zero : f64) outs(%e : tensor<512xf64>) -> tensor<512xf64>
  %r = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x500xf64>) outs(%s0 : tensor<512xf64>) {
  ^bb0(%v: f64, %s: f64):
    %ss = arith.addf %v, %s : f64
    linalg.yield %ss : f64
  } -> tensor<512xf64>
  return %r : tensor<512xf64>
}

// Few outputs over long reductions, which a GPU splits over several blocks
// per output (tessel-map-reductions-to-gpu) rather than giving each output
// one block (a tile) or one thread: 4 row sums of 200003 elements (two
// kernels: blocks fold chunks into partial results, a block per output
// combines them), an f16 row max and sum over 16 rows (one block per row),
// and sums over the middle dimension of a 2x5000x3 tensor (outputs indexed
// by the outer and inner loops, two kernels).
#in = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @row_sum_long(%x: tensor<4x200003xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x200003xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%v: f32, %s: f32):
    %ss = arith.addf %v, %s : f32
    linalg.yield %ss : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @few_rows_max_sum_f16(%x: tensor<16x3001xf16>) -> (tensor<16xf16>, tensor<16xf16>) {
  %lowest = arith.constant 0xFC00 : f16
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16xf16>
  %m0 = linalg.fill ins(%lowest : f16) outs(%e : tensor<16xf16>) -> tensor<16xf16>
  %s0 = linalg.fill ins(%zero : f16) outs(%e : tensor<16xf16>) -> tensor<16xf16>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x3001xf16>) outs(%m0, %s0 : tensor<16xf16>, tensor<16xf16>) {
  ^bb0(%v: f16, %m: f16, %s: f16):
    %mm = arith.maximumf %v, %m : f16
    %ss = arith.addf %v, %s : f16
    linalg.yield %mm, %ss : f16, f16
  } -> (tensor<16xf16>, tensor<16xf16>)
  return %r#0, %r#1 : tensor<16xf16>, tensor<16xf16>
}

func.func @middle_sum(%x: tensor<2x5000x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, r, b) -> (a, r, b)>, affine_map<(a, r, b) -> (a, b)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<2x5000x3xf32>) outs(%s0 : tensor<2x3xf32>) {
  ^bb0(%v: f32, %s: f32):
    %ss = arith.addf %v, %s : f32
    linalg.yield %ss : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

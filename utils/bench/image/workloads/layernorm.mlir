// Row-reduction benchmark workload: layer normalization of 16384 rows of
// 1024 f32 (a transformer's tokens x hidden size), as frontends emit it
// (torch.nn.LayerNorm's decomposition after elementwise fusion):
//   mean[i]  = sum_j x[i][j] / 1024
//   xc[i][j] = x[i][j] - mean[i]
//   var[i]   = sum_j xc[i][j]^2 / 1024           (biased, as torch)
//   y[i][j]  = xc[i][j] * rsqrt(var[i] + 1e-5) * gamma[j] + beta[j]
// Memory-bound: the bar is the bandwidth of a STREAM-like copy of the same
// bytes (x read once, y written once). image_plain_c.c has the plain C
// version, image_reference.c the double reference.
#id   = affine_map<(i, j) -> (i, j)>
#row  = affine_map<(i, j) -> (i)>
#col  = affine_map<(i, j) -> (j)>

func.func @layernorm(%x: tensor<16384x1024xf32>, %gamma: tensor<1024xf32>,
                     %beta: tensor<1024xf32>) -> tensor<16384x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<16384xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<16384xf32>) -> tensor<16384xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16384x1024xf32>) outs(%z : tensor<16384xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16384xf32>
  %ef = tensor.empty() : tensor<16384x1024xf32>
  %xc = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<16384x1024xf32>, tensor<16384xf32>) outs(%ef : tensor<16384x1024xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<16384x1024xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xc : tensor<16384x1024xf32>) outs(%z : tensor<16384xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %p = arith.mulf %v, %v : f32
    %r = arith.addf %p, %acc : f32
    linalg.yield %r : f32
  } -> tensor<16384xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xc, %sq, %gamma, %beta : tensor<16384x1024xf32>, tensor<16384xf32>, tensor<1024xf32>, tensor<1024xf32>)
      outs(%ef : tensor<16384x1024xf32>) {
  ^bb0(%v: f32, %q: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %t = arith.mulf %v, %inv : f32
    %u = arith.mulf %t, %g : f32
    %r = arith.addf %u, %b : f32
    linalg.yield %r : f32
  } -> tensor<16384x1024xf32>
  return %y : tensor<16384x1024xf32>
}

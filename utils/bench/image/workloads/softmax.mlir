// Row-reduction benchmark workload: softmax along the rows of a 4096x4096
// f32 matrix, written the way frontends emit it (the decomposition of
// torch.softmax / jax.nn.softmax after elementwise fusion):
//   m[i]    = max_j x[i][j]
//   e[i][j] = exp(x[i][j] - m[i])
//   s[i]    = sum_j e[i][j]
//   y[i][j] = e[i][j] / s[i]
// Memory-bound: the bar is the bandwidth of a STREAM-like copy of the same
// bytes (x read once, y written once). image_plain_c.c has the plain C
// version, image_reference.c the double reference.
#id   = affine_map<(i, j) -> (i, j)>
#row  = affine_map<(i, j) -> (i)>

func.func @softmax(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4096xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<4096xf32>) -> tensor<4096xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4096x4096xf32>) outs(%m0 : tensor<4096xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>
  %ef = tensor.empty() : tensor<4096x4096xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%ef : tensor<4096x4096xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<4096x4096xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<4096xf32>) -> tensor<4096xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<4096x4096xf32>) outs(%s0 : tensor<4096xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%ef : tensor<4096x4096xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %q = arith.divf %v, %sum : f32
    linalg.yield %q : f32
  } -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}

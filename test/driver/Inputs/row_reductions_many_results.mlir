// Row reductions with several results over long rows, where the partial
// results a thread holds decide whether the kernel spills: a warp or block
// folds as many rows at once as keep them within 32 registers (four chains
// per result, two registers for a 64-bit one). Two f64 results: two rows at
// once; three f64 results: one; three f32 results: two. At four rows at
// once, the f64 pair spilled 240 bytes and the f32 triple 20 (sm_80), and
// the f64 triple spilled at two; gpu_ptxas.test checks that none does.
#in = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

func.func @row_max_sum_f64(%x: tensor<512x3001xf64>) -> (tensor<512xf64>, tensor<512xf64>) {
  %lowest = arith.constant 0xFFF0000000000000 : f64
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<512xf64>
  %m0 = linalg.fill ins(%lowest : f64) outs(%e : tensor<512xf64>) -> tensor<512xf64>
  %s0 = linalg.fill ins(%zero : f64) outs(%e : tensor<512xf64>) -> tensor<512xf64>
  %r:2 = linalg.generic {indexing_maps = [#in, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x3001xf64>) outs(%m0, %s0 : tensor<512xf64>, tensor<512xf64>) {
  ^bb0(%v: f64, %m: f64, %s: f64):
    %mm = arith.maximumf %v, %m : f64
    %ss = arith.addf %v, %s : f64
    linalg.yield %mm, %ss : f64, f64
  } -> (tensor<512xf64>, tensor<512xf64>)
  return %r#0, %r#1 : tensor<512xf64>, tensor<512xf64>
}

func.func @row_max_sum_min_f64(%x: tensor<512x3001xf64>) -> (tensor<512xf64>, tensor<512xf64>, tensor<512xf64>) {
  %lowest = arith.constant 0xFFF0000000000000 : f64
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<512xf64>
  %m0 = linalg.fill ins(%lowest : f64) outs(%e : tensor<512xf64>) -> tensor<512xf64>
  %n0 = linalg.fill ins(%zero : f64) outs(%e : tensor<512xf64>) -> tensor<512xf64>
  %s0 = linalg.fill ins(%zero : f64) outs(%e : tensor<512xf64>) -> tensor<512xf64>
  %r:3 = linalg.generic {indexing_maps = [#in, #row, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x3001xf64>) outs(%m0, %s0, %n0 : tensor<512xf64>, tensor<512xf64>, tensor<512xf64>) {
  ^bb0(%v: f64, %m: f64, %s: f64, %n: f64):
    %mm = arith.maximumf %v, %m : f64
    %ss = arith.addf %v, %s : f64
    %nn = arith.minimumf %v, %n : f64
    linalg.yield %mm, %ss, %nn : f64, f64, f64
  } -> (tensor<512xf64>, tensor<512xf64>, tensor<512xf64>)
  return %r#0, %r#1, %r#2 : tensor<512xf64>, tensor<512xf64>, tensor<512xf64>
}

func.func @row_max_sum_min_f32(%x: tensor<512x3001xf32>) -> (tensor<512xf32>, tensor<512xf32>, tensor<512xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512xf32>
  %m0 = linalg.fill ins(%lowest : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %n0 = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
  %r:3 = linalg.generic {indexing_maps = [#in, #row, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x3001xf32>) outs(%m0, %s0, %n0 : tensor<512xf32>, tensor<512xf32>, tensor<512xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %n: f32):
    %mm = arith.maximumf %v, %m : f32
    %ss = arith.addf %v, %s : f32
    %nn = arith.minimumf %v, %n : f32
    linalg.yield %mm, %ss, %nn : f32, f32, f32
  } -> (tensor<512xf32>, tensor<512xf32>, tensor<512xf32>)
  return %r#0, %r#1, %r#2 : tensor<512xf32>, tensor<512xf32>, tensor<512xf32>
}

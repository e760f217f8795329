// An i1 intermediate: a mask (x > 0) and exp(2x), read by a 5-tap
// stencil that sums exp(2x) where the mask holds. Memrefs hold a byte per
// i1; vectorized or shared-memory code that takes i1 as bits reads the
// wrong elements (mask_stencil.test, gpu_fusion_emulated.test).
#id = affine_map<(i, j) -> (i, j)>
#st = affine_map<(i, j, t) -> (i, j + t)>
#o3 = affine_map<(i, j, t) -> (i, j)>
#tp = affine_map<(i, j, t) -> (t)>
func.func @mask(%in: tensor<64x260xf32>) -> tensor<64x256xf32> {
  %w = arith.constant dense<[1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %em = tensor.empty() : tensor<64x260xi1>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%in : tensor<64x260xf32>) outs(%em : tensor<64x260xi1>) {
  ^bb0(%x: f32, %o: i1):
    %c = arith.cmpf ogt, %x, %zero : f32
    linalg.yield %c : i1
  } -> tensor<64x260xi1>
  %et = tensor.empty() : tensor<64x260xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%in : tensor<64x260xf32>) outs(%et : tensor<64x260xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.mulf %x, %two : f32
    %d = math.exp %c : f32
    linalg.yield %d : f32
  } -> tensor<64x260xf32>
  %eo = tensor.empty() : tensor<64x256xf32>
  %io = linalg.fill ins(%zero : f32) outs(%eo : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#st, #st, #tp, #o3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%m, %t, %w : tensor<64x260xi1>, tensor<64x260xf32>, tensor<5xf32>) outs(%io : tensor<64x256xf32>) {
  ^bb0(%c: i1, %x: f32, %k: f32, %acc: f32):
    %s0 = arith.select %c, %x, %zero : f32
    %s = arith.mulf %s0, %k : f32
    %a = arith.addf %acc, %s : f32
    linalg.yield %a : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// Long row reductions (tessel-vectorize-generics splits them into vector
// partial results, one row at a time): the softmax and layernorm of the
// row-reduction benchmark (utils/bench/image/workloads) at small shapes,
// plus a row sum whose rows are not a multiple of the vector width (left
// sequential).
#id   = affine_map<(i, j) -> (i, j)>
#row  = affine_map<(i, j) -> (i)>
#col  = affine_map<(i, j) -> (j)>

func.func @softmax(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<64xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x1024xf32>) outs(%m0 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %ef = tensor.empty() : tensor<64x1024xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<64x1024xf32>, tensor<64xf32>) outs(%ef : tensor<64x1024xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<64x1024xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<64x1024xf32>) outs(%s0 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<64x1024xf32>, tensor<64xf32>) outs(%ef : tensor<64x1024xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %q = arith.divf %v, %sum : f32
    linalg.yield %q : f32
  } -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

func.func @layernorm(%x: tensor<32x768xf32>, %gamma: tensor<768xf32>,
                     %beta: tensor<768xf32>) -> tensor<32x768xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x768xf32>) outs(%z : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %ef = tensor.empty() : tensor<32x768xf32>
  %xc = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<32x768xf32>, tensor<32xf32>) outs(%ef : tensor<32x768xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %v, %mean : f32
    linalg.yield %d : f32
  } -> tensor<32x768xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xc : tensor<32x768xf32>) outs(%z : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %p = arith.mulf %v, %v : f32
    %r = arith.addf %p, %acc : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xc, %sq, %gamma, %beta : tensor<32x768xf32>, tensor<32xf32>, tensor<768xf32>, tensor<768xf32>)
      outs(%ef : tensor<32x768xf32>) {
  ^bb0(%v: f32, %q: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %t = arith.mulf %v, %inv : f32
    %u = arith.mulf %t, %g : f32
    %r = arith.addf %u, %b : f32
    linalg.yield %r : f32
  } -> tensor<32x768xf32>
  return %y : tensor<32x768xf32>
}

func.func @row_sum_odd(%x: tensor<8x1000xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x1000xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

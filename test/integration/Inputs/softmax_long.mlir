// A softmax over 6 rows of 3001 columns: on the NVIDIA pipeline its tiles
// are long row pieces whose max and sum the whole thread block reduces
// (per block: shuffles, then the warps through shared memory), and the
// column tiles do not divide the rows (gpu_fusion_emulated.test).
#id   = affine_map<(i, j) -> (i, j)>
#row  = affine_map<(i, j) -> (i)>
#col  = affine_map<(i, j) -> (j)>

func.func @softmax(%x: tensor<6x3001xf32>) -> tensor<6x3001xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<6xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<6xf32>) -> tensor<6xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x3001xf32>) outs(%m0 : tensor<6xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %ef = tensor.empty() : tensor<6x3001xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<6x3001xf32>, tensor<6xf32>) outs(%ef : tensor<6x3001xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<6x3001xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<6xf32>) -> tensor<6xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<6x3001xf32>) outs(%s0 : tensor<6xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<6x3001xf32>, tensor<6xf32>) outs(%ef : tensor<6x3001xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %q = arith.divf %v, %sum : f32
    linalg.yield %q : f32
  } -> tensor<6x3001xf32>
  return %y : tensor<6x3001xf32>
}


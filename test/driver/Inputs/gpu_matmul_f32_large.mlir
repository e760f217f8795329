// Benchmark-sized f32 matmuls: the SIMT kernels the model sizes for them
// (8x8 and 4x8 accumulators per thread) must assemble without spills.
func.func @f32_4096(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
func.func @f32_1024(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
// A BERT-base projection: B given as (n, k), as torch's nn.Linear weight.
#a = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @f32_linear_128x3072x768(%x: tensor<128x768xf32>, %wt: tensor<3072x768xf32>) -> tensor<128x3072xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x3072xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %r = linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wt : tensor<128x768xf32>, tensor<3072x768xf32>) outs(%c0 : tensor<128x3072xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}
// A linear layer at batch 8 with bias and ReLU (B as (n, k)): few C tiles
// and a long k, split among blocks (split-k) and added up by a second
// kernel (the bias and ReLU, written in place, stay a kernel of their
// own).
#bias = affine_map<(m, n) -> (n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @f32_linear_8x4096x4096(%x: tensor<8x4096xf32>, %wt: tensor<4096x4096xf32>, %b: tensor<4096xf32>) -> tensor<8x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4096xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wt : tensor<8x4096xf32>, tensor<4096x4096xf32>) outs(%c0 : tensor<8x4096xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4096xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %b : tensor<8x4096xf32>, tensor<4096xf32>) outs(%e : tensor<8x4096xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x4096xf32>
  return %y : tensor<8x4096xf32>
}

// Scaled dot-product attention in the forms the frontends emit, for
// attention.test: batched with linalg.softmax and a transposed K, unbatched
// with the softmax as generics (torch's decomposition) and a division by
// sqrt(d), and one whose probabilities are also returned (not fused).
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#scalar3 = affine_map<(b, i, j) -> ()>
#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>

func.func @attention_batched(%q: tensor<4x256x64xf32>, %k: tensor<4x256x64xf32>,
                             %v: tensor<4x256x64xf32>) -> tensor<4x256x64xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant dense<0.125> : tensor<f32>
  %kt0 = tensor.empty() : tensor<4x64x256xf32>
  %kt = linalg.transpose ins(%k : tensor<4x256x64xf32>) outs(%kt0 : tensor<4x64x256xf32>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<4x256x256xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x256x64xf32>, tensor<4x64x256xf32>) outs(%sz : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %x = linalg.generic {indexing_maps = [#id3, #scalar3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %scale : tensor<4x256x256xf32>, tensor<f32>) outs(%s0 : tensor<4x256x256xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<4x256x256xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<4x256x256xf32>) outs(%s0 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
  %o0 = tensor.empty() : tensor<4x256x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x256x256xf32>, tensor<4x256x64xf32>) outs(%oz : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
  return %o : tensor<4x256x64xf32>
}

// Head dim 40 (the head loop unrolled by 2), 192 keys (a 96-key block),
// value dim 48; S / sqrt(40) with the constant inside the body.
func.func @attention_single(%q: tensor<128x40xf32>, %kt: tensor<40x192xf32>,
                            %v: tensor<192x48xf32>) -> tensor<128x48xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrtd = arith.constant 6.32455532 : f32
  %s0 = tensor.empty() : tensor<128x192xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<128x192xf32>) -> tensor<128x192xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<128x40xf32>, tensor<40x192xf32>) outs(%sz : tensor<128x192xf32>) -> tensor<128x192xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<128x192xf32>) outs(%s0 : tensor<128x192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %sqrtd : f32
    linalg.yield %d : f32
  } -> tensor<128x192xf32>
  %r0 = tensor.empty() : tensor<128xf32>
  %rm = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<128xf32>) -> tensor<128xf32>
  %max = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x192xf32>) outs(%rm : tensor<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<128xf32>
  %e = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<128x192xf32>, tensor<128xf32>) outs(%s0 : tensor<128x192xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.subf %a, %m : f32
    %ex = math.exp %t : f32
    linalg.yield %ex : f32
  } -> tensor<128x192xf32>
  %rz = linalg.fill ins(%zero : f32) outs(%r0 : tensor<128xf32>) -> tensor<128xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<128x192xf32>) outs(%rz : tensor<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<128xf32>
  %p = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<128x192xf32>, tensor<128xf32>) outs(%s0 : tensor<128x192xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %t = arith.divf %a, %l : f32
    linalg.yield %t : f32
  } -> tensor<128x192xf32>
  %o0 = tensor.empty() : tensor<128x48xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<128x48xf32>) -> tensor<128x48xf32>
  %o = linalg.matmul ins(%p, %v : tensor<128x192xf32>, tensor<192x48xf32>) outs(%oz : tensor<128x48xf32>) -> tensor<128x48xf32>
  return %o : tensor<128x48xf32>
}

// The probabilities are a second result: they must exist, so nothing fuses
// across the softmax (the remark says why) and the result is still right.
func.func @attention_weights(%q: tensor<2x32x16xf32>, %kt: tensor<2x16x64xf32>,
                             %v: tensor<2x64x16xf32>) -> (tensor<2x32x16xf32>, tensor<2x32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<2x32x64xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x32x64xf32>) -> tensor<2x32x64xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x32x16xf32>, tensor<2x16x64xf32>) outs(%sz : tensor<2x32x64xf32>) -> tensor<2x32x64xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<2x32x64xf32>) outs(%s0 : tensor<2x32x64xf32>) -> tensor<2x32x64xf32>
  %o0 = tensor.empty() : tensor<2x32x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x32x16xf32>) -> tensor<2x32x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x32x64xf32>, tensor<2x64x16xf32>) outs(%oz : tensor<2x32x16xf32>) -> tensor<2x32x16xf32>
  return %o, %p : tensor<2x32x16xf32>, tensor<2x32x64xf32>
}

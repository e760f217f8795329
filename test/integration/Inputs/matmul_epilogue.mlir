// Matmuls and a convolution whose elementwise tails tessel-vectorize-matmul
// applies to the register tiles (see matmul_epilogue.test).
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// relu(A B + bias[n]) * scale[m] + res: M, N not multiples of the 8 x 32
// tile (inputs padded), K = 257 two kc blocks (the last one peeled).
func.func @epi_513x257x129(%a: tensor<513x257xf32>, %b: tensor<257x129xf32>,
                           %bias: tensor<129xf32>, %scale: tensor<513xf32>,
                           %res: tensor<513x129xf32>) -> tensor<513x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<513x129xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<513x129xf32>) -> tensor<513x129xf32>
  %p = linalg.matmul ins(%a, %b : tensor<513x257xf32>, tensor<257x129xf32>) outs(%init : tensor<513x129xf32>) -> tensor<513x129xf32>
  %e1 = tensor.empty() : tensor<513x129xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<513x129xf32>, tensor<129xf32>) outs(%e1 : tensor<513x129xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<513x129xf32>
  %e2 = tensor.empty() : tensor<513x129xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r1, %scale, %res : tensor<513x129xf32>, tensor<513xf32>, tensor<513x129xf32>) outs(%e2 : tensor<513x129xf32>) {
  ^bb0(%x: f32, %s: f32, %z: f32, %o: f32):
    %m = arith.mulf %x, %s : f32
    %t = arith.addf %m, %z : f32
    linalg.yield %t : f32
  } -> tensor<513x129xf32>
  return %r2 : tensor<513x129xf32>
}

// tanh(A B + bias[n]) with K = 600 (three kc blocks: two in the loop).
func.func @epi_200x600x1000(%a: tensor<200x600xf32>, %b: tensor<600x1000xf32>,
                            %bias: tensor<1000xf32>) -> tensor<200x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x1000xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<200x1000xf32>) -> tensor<200x1000xf32>
  %p = linalg.matmul ins(%a, %b : tensor<200x600xf32>, tensor<600x1000xf32>) outs(%init : tensor<200x1000xf32>) -> tensor<200x1000xf32>
  %e1 = tensor.empty() : tensor<200x1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<200x1000xf32>, tensor<1000xf32>) outs(%e1 : tensor<200x1000xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<200x1000xf32>
  return %r : tensor<200x1000xf32>
}

// relu(conv + bias[f]), NHWC 1x1, F = 48 (not a multiple of 32).
func.func @conv_epi(%x: tensor<2x7x7x32xf32>, %w: tensor<1x1x32x48xf32>,
                    %bias: tensor<48xf32>) -> tensor<2x7x7x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x7x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x7x7x48xf32>) -> tensor<2x7x7x48xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x7x7x32xf32>, tensor<1x1x32x48xf32>) outs(%init : tensor<2x7x7x48xf32>) -> tensor<2x7x7x48xf32>
  %e1 = tensor.empty() : tensor<2x7x7x48xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %bias : tensor<2x7x7x48xf32>, tensor<48xf32>) outs(%e1 : tensor<2x7x7x48xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %c0 = arith.constant 0.0 : f32
    %s = arith.addf %v, %c : f32
    %m = arith.maximumf %s, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<2x7x7x48xf32>
  return %r : tensor<2x7x7x48xf32>
}

// relu(conv3x3 + bias[f]) at batch 3 with 600 KiB of output (and 3.7 MiB
// of patches) per image: read through the input (implicit GEMM) a chunk of
// images at a time (an scf.for over the images) on a target where half of
// each core's L2 holds less than the batch's 1.8 MiB of output (the
// explicit im2col would chunk as well: a last-level cache quarter holds
// less than the batch's 11 MiB of patches).
// The bias add and the ReLU are separate generics, as frontends emit them;
// both move into the chunk loop and onto the kernel's register tiles.
func.func @conv3x3_chunked_epi(%x: tensor<3x42x42x64xf32>, %w: tensor<3x3x64x96xf32>,
                               %bias: tensor<96xf32>) -> tensor<3x40x40x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x40x40x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x40x40x96xf32>) -> tensor<3x40x40x96xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<3x42x42x64xf32>, tensor<3x3x64x96xf32>) outs(%init : tensor<3x40x40x96xf32>) -> tensor<3x40x40x96xf32>
  %e1 = tensor.empty() : tensor<3x40x40x96xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                            iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %bias : tensor<3x40x40x96xf32>, tensor<96xf32>) outs(%e1 : tensor<3x40x40x96xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<3x40x40x96xf32>
  %e2 = tensor.empty() : tensor<3x40x40x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%biased : tensor<3x40x40x96xf32>) outs(%e2 : tensor<3x40x40x96xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<3x40x40x96xf32>
  return %r : tensor<3x40x40x96xf32>
}

// conv3x3 + residual[n][w][h][f] (read transposed) with the same chunking:
// the add moves into the chunk loop but the kernel leaves it alone (a
// transposed input); it then runs on each chunk after the product.
func.func @conv3x3_chunked_transposed_residual(%x: tensor<3x42x42x64xf32>, %w: tensor<3x3x64x96xf32>,
                                               %res: tensor<3x40x40x96xf32>) -> tensor<3x40x40x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x40x40x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x40x40x96xf32>) -> tensor<3x40x40x96xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<3x42x42x64xf32>, tensor<3x3x64x96xf32>) outs(%init : tensor<3x40x40x96xf32>) -> tensor<3x40x40x96xf32>
  %e1 = tensor.empty() : tensor<3x40x40x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (n, w, h, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %res : tensor<3x40x40x96xf32>, tensor<3x40x40x96xf32>) outs(%e1 : tensor<3x40x40x96xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<3x40x40x96xf32>
  return %r : tensor<3x40x40x96xf32>
}

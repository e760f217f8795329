// f32 matmuls that tessel-map-matmul-to-gpu maps to its SIMT kernel (tensor
// cores would round the inputs to TF32), run by gpu_matmul_f32.c on a GPU
// or on the CPU through tessel-emulate-gpu-on-cpu.

// Whole tiles.
func.func @f32_256x192x128(%a: tensor<256x128xf32>, %b: tensor<128x192xf32>) -> tensor<256x192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x192xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x192xf32>) -> tensor<256x192xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x192xf32>) outs(%c : tensor<256x192xf32>) -> tensor<256x192xf32>
  return %r : tensor<256x192xf32>
}

// Partial tiles in every dimension, rows of 36 and 68 bytes (4-byte
// copies); deep k with partial tiles.
func.func @f32_33x17x9(%a: tensor<33x9xf32>, %b: tensor<9x17xf32>) -> tensor<33x17xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x17xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<33x17xf32>) -> tensor<33x17xf32>
  %r = linalg.matmul ins(%a, %b : tensor<33x9xf32>, tensor<9x17xf32>) outs(%c : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %r : tensor<33x17xf32>
}
func.func @f32_100x72x520(%a: tensor<100x520xf32>, %b: tensor<520x72xf32>) -> tensor<100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100x520xf32>, tensor<520x72xf32>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %r : tensor<100x72xf32>
}

// A given as A^T (k x m), B as B^T (n x k), and each alone.
#at = affine_map<(m, n, k) -> (k, m)>
#bt = affine_map<(m, n, k) -> (n, k)>
#id = affine_map<(m, n, k) -> (m, k)>
#bn = affine_map<(m, n, k) -> (k, n)>
#cm = affine_map<(m, n, k) -> (m, n)>
func.func @f32_at_bt_80x48x64(%at: tensor<64x80xf32>, %bt: tensor<48x64xf32>) -> tensor<80x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<80x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<80x48xf32>) -> tensor<80x48xf32>
  %r = linalg.generic {indexing_maps = [#at, #bt, #cm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %bt : tensor<64x80xf32>, tensor<48x64xf32>) outs(%c : tensor<80x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<80x48xf32>
  return %r : tensor<80x48xf32>
}
func.func @f32_at_56x40x48(%at: tensor<48x56xf32>, %b: tensor<48x40xf32>) -> tensor<56x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<56x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<56x40xf32>) -> tensor<56x40xf32>
  %r = linalg.generic {indexing_maps = [#at, #bn, #cm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %b : tensor<48x56xf32>, tensor<48x40xf32>) outs(%c : tensor<56x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<56x40xf32>
  return %r : tensor<56x40xf32>
}
func.func @f32_bt_56x40x48(%a: tensor<56x48xf32>, %bt: tensor<40x48xf32>) -> tensor<56x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<56x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<56x40xf32>) -> tensor<56x40xf32>
  %r = linalg.generic {indexing_maps = [#id, #bt, #cm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : tensor<56x48xf32>, tensor<40x48xf32>) outs(%c : tensor<56x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<56x40xf32>
  return %r : tensor<56x40xf32>
}

// Batched, and B shared by every batch.
#ab = affine_map<(b, m, n, k) -> (b, m, k)>
#bb = affine_map<(b, m, n, k) -> (k, n)>
#cb = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batch3_f32_64x48x32(%a: tensor<3x64x32xf32>, %b: tensor<3x32x48xf32>, %w: tensor<32x48xf32>) -> (tensor<3x64x48xf32>, tensor<3x64x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x64x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x64x48xf32>) -> tensor<3x64x48xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x64x32xf32>, tensor<3x32x48xf32>) outs(%c : tensor<3x64x48xf32>) -> tensor<3x64x48xf32>
  %e2 = tensor.empty() : tensor<3x64x48xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x64x48xf32>) -> tensor<3x64x48xf32>
  %s = linalg.generic {indexing_maps = [#ab, #bb, #cb], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<3x64x32xf32>, tensor<32x48xf32>) outs(%c2 : tensor<3x64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<3x64x48xf32>
  return %r, %s : tensor<3x64x48xf32>, tensor<3x64x48xf32>
}

// Accumulates onto C's contents (no fill).
func.func @f32_accumulate_72x40x48(%a: tensor<72x48xf32>, %b: tensor<48x40xf32>, %c: tensor<72x40xf32>) -> tensor<72x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<72x48xf32>, tensor<48x40xf32>) outs(%c : tensor<72x40xf32>) -> tensor<72x40xf32>
  return %r : tensor<72x40xf32>
}

// A bias and relu applied in the kernel's epilogue.
#row = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @f32_bias_relu_96x80x64(%a: tensor<96x64xf32>, %b: tensor<64x80xf32>, %bias: tensor<80xf32>) -> tensor<96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x80xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<96x80xf32>) -> tensor<96x80xf32>
  %r = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x80xf32>) outs(%c : tensor<96x80xf32>) -> tensor<96x80xf32>
  %o = tensor.empty() : tensor<96x80xf32>
  %s = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<96x80xf32>, tensor<80xf32>) outs(%o : tensor<96x80xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %t = arith.addf %x, %y : f32
    %u = arith.maximumf %t, %zero : f32
    linalg.yield %u : f32
  } -> tensor<96x80xf32>
  return %s : tensor<96x80xf32>
}

// An NHWC convolution as an implicit GEMM (A read through the input, no
// patches copied): 2x10x10x16 * 3x3x16x32, stride 1.
func.func @f32_conv_2x10x10x16_3x3x32(%x: tensor<2x10x10x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<2x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x10x10x16xf32>, tensor<3x3x16x32xf32>) outs(%c : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  return %r : tensor<2x8x8x32xf32>
}

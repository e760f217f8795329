// ResNet-50-like f32 convolutions at small spatial sizes, NHWC/HWCF (and
// one NCHW/FCHW with a batch of 2), with explicit tensor.pad as frontends
// produce it. In the CPU pipeline tessel-convert-conv-to-matmul turns each
// into linalg.matmul (1x1 stride 1: collapsed views; otherwise the im2col
// patches, which the kernel reads through the input where the model reads
// A in place and copies otherwise), which tessel-vectorize-matmul makes a
// packed FMA kernel.

// stem_7x7_s2: N=1 32x32x3 -> 16x16x64, 7x7 stride 2 pad 3 dilation 1
func.func @stem_7x7_s2(%x: tensor<1x32x32x3xf32>, %w: tensor<7x7x3x64xf32>) -> tensor<1x16x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 3, 3, 0] high[0, 3, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x3xf32> to tensor<1x38x38x3xf32>
  %e = tensor.empty() : tensor<1x16x16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x38x38x3xf32>, tensor<7x7x3x64xf32>) outs(%init : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %y : tensor<1x16x16x64xf32>
}

// reduce_1x1: N=2 8x8x64 -> 8x8x32, 1x1 stride 1 pad 0 dilation 1, bias + ReLU
func.func @reduce_1x1(%x: tensor<2x8x8x64xf32>, %w: tensor<1x1x64x32xf32>, %bias: tensor<32xf32>) -> tensor<2x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x32xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (f)>,
                                           affine_map<(n, h, w, f) -> (n, h, w, f)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<32xf32>) outs(%e : tensor<2x8x8x32xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<2x8x8x32xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x8x64xf32>, tensor<1x1x64x32xf32>) outs(%init : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%y : tensor<2x8x8x32xf32>) {
  ^bb0(%v: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8x32xf32>
  return %r : tensor<2x8x8x32xf32>
}

// conv_3x3: N=1 8x8x32 -> 8x8x32, 3x3 stride 1 pad 1 dilation 1
func.func @conv_3x3(%x: tensor<1x8x8x32xf32>, %w: tensor<3x3x32x32xf32>) -> tensor<1x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x32xf32> to tensor<1x10x10x32xf32>
  %e = tensor.empty() : tensor<1x8x8x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x10x10x32xf32>, tensor<3x3x32x32xf32>) outs(%init : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %y : tensor<1x8x8x32xf32>
}

// conv_3x3_s2: N=1 14x14x32 -> 7x7x64, 3x3 stride 2 pad 1 dilation 1
func.func @conv_3x3_s2(%x: tensor<1x14x14x32xf32>, %w: tensor<3x3x32x64xf32>) -> tensor<1x7x7x64xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x14x14x32xf32> to tensor<1x16x16x32xf32>
  %e = tensor.empty() : tensor<1x7x7x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x16x16x32xf32>, tensor<3x3x32x64xf32>) outs(%init : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  return %y : tensor<1x7x7x64xf32>
}

// down_1x1_s2: N=1 14x14x64 -> 7x7x128, 1x1 stride 2 pad 0 dilation 1
func.func @down_1x1_s2(%x: tensor<1x14x14x64xf32>, %w: tensor<1x1x64x128xf32>) -> tensor<1x7x7x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x128xf32>) -> tensor<1x7x7x128xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x14x14x64xf32>, tensor<1x1x64x128xf32>) outs(%init : tensor<1x7x7x128xf32>) -> tensor<1x7x7x128xf32>
  return %y : tensor<1x7x7x128xf32>
}

// conv_3x3_d2: N=1 9x9x8 -> 9x9x16, 3x3 stride 1 pad 2 dilation 2
func.func @conv_3x3_d2(%x: tensor<1x9x9x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x9x9x16xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 2, 2, 0] high[0, 2, 2, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x9x9x8xf32> to tensor<1x13x13x8xf32>
  %e = tensor.empty() : tensor<1x9x9x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x9x9x16xf32>) -> tensor<1x9x9x16xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x13x13x8xf32>, tensor<3x3x8x16xf32>) outs(%init : tensor<1x9x9x16xf32>) -> tensor<1x9x9x16xf32>
  return %y : tensor<1x9x9x16xf32>
}

// conv_3x3_d2_b2: N=2 8x8x16 -> 8x8x32, 3x3 stride 1 pad 2 dilation 2: read
// through the input (implicit GEMM) with dilated taps, one mc block per
// image.
func.func @conv_3x3_d2_b2(%x: tensor<2x8x8x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<2x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 2, 2, 0] high[0, 2, 2, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x8x8x16xf32> to tensor<2x12x12x16xf32>
  %e = tensor.empty() : tensor<2x8x8x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<2x12x12x16xf32>, tensor<3x3x16x32xf32>) outs(%init : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  return %y : tensor<2x8x8x32xf32>
}

// conv_3x3_wide: N=2 4x4x16 -> 4x4x512, 3x3 stride 1 pad 1: 16 B
// micro-panels sweep A, so the matmul model packs A, and the patches are
// copied (the tiled im2col copy) rather than read through the input.
func.func @conv_3x3_wide(%x: tensor<2x4x4x16xf32>, %w: tensor<3x3x16x512xf32>) -> tensor<2x4x4x512xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x4x4x16xf32> to tensor<2x6x6x16xf32>
  %e = tensor.empty() : tensor<2x4x4x512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x4x512xf32>) -> tensor<2x4x4x512xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<2x6x6x16xf32>, tensor<3x3x16x512xf32>) outs(%init : tensor<2x4x4x512xf32>) -> tensor<2x4x4x512xf32>
  return %y : tensor<2x4x4x512xf32>
}

// nchw_1x1: NCHW/FCHW, N=2, 16x7x7 -> 32x7x7, 1x1 stride 1, accumulating into
// the init argument: the filter times the patches, init and result
// transposed between NFHW and FNHW.
func.func @nchw_1x1(%x: tensor<2x16x7x7xf32>, %w: tensor<32x16x1x1xf32>, %init: tensor<2x32x7x7xf32>) -> tensor<2x32x7x7xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x16x7x7xf32>, tensor<32x16x1x1xf32>) outs(%init : tensor<2x32x7x7xf32>) -> tensor<2x32x7x7xf32>
  return %y : tensor<2x32x7x7xf32>
}

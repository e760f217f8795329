// Per-channel window ops (no matmul: each channel is reduced on its own).
// tessel-convert-conv-to-matmul generalizes them to linalg.generic windows;
// the fusion and stencil passes tile, parallelize and vectorize them.

// ResNet's max pool after the stem: 3x3, stride 2, padding 1 with -inf.
func.func @maxpool_s2(%x: tensor<2x20x20x32xf32>) -> tensor<2x10x10x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<2x20x20x32xf32> to tensor<2x22x22x32xf32>
  %e = tensor.empty() : tensor<2x10x10x32xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x10x10x32xf32>) -> tensor<2x10x10x32xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%p, %k : tensor<2x22x22x32xf32>, tensor<3x3xf32>) outs(%f : tensor<2x10x10x32xf32>) -> tensor<2x10x10x32xf32>
  return %r : tensor<2x10x10x32xf32>
}

// Sum pool 2x2 stride 2 with 13 channels (a partial vector).
func.func @sumpool_c13(%x: tensor<1x16x16x13xf32>) -> tensor<1x8x8x13xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x13xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x13xf32>) -> tensor<1x8x8x13xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %r = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%x, %k : tensor<1x16x16x13xf32>, tensor<2x2xf32>) outs(%f : tensor<1x8x8x13xf32>) -> tensor<1x8x8x13xf32>
  return %r : tensor<1x8x8x13xf32>
}

// NCHW max pool: the window's stride is on the innermost (W) dimension.
func.func @maxpool_nchw(%x: tensor<1x8x15x15xf32>) -> tensor<1x8x7x7xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x8x7x7xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%x, %k : tensor<1x8x15x15xf32>, tensor<3x3xf32>) outs(%f : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  return %r : tensor<1x8x7x7xf32>
}

// Depthwise 3x3, stride 1, padding 1 (MobileNet-style), 48 channels.
func.func @depthwise_s1(%x: tensor<2x14x14x48xf32>, %w: tensor<3x3x48xf32>) -> tensor<2x14x14x48xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<2x14x14x48xf32> to tensor<2x16x16x48xf32>
  %e = tensor.empty() : tensor<2x14x14x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x14x14x48xf32>) -> tensor<2x14x14x48xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%p, %w : tensor<2x16x16x48xf32>, tensor<3x3x48xf32>) outs(%f : tensor<2x14x14x48xf32>) -> tensor<2x14x14x48xf32>
  return %r : tensor<2x14x14x48xf32>
}

// Depthwise 3x3, stride 2, dilation 2, no padding.
func.func @depthwise_s2_d2(%x: tensor<1x17x17x40xf32>, %w: tensor<3x3x40xf32>) -> tensor<1x7x7x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x40xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x7x7x40xf32>) -> tensor<1x7x7x40xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%x, %w : tensor<1x17x17x40xf32>, tensor<3x3x40xf32>) outs(%f : tensor<1x7x7x40xf32>) -> tensor<1x7x7x40xf32>
  return %r : tensor<1x7x7x40xf32>
}

// Quantized depthwise 3x3 (int8 in, int32 out) with scalar zero points.
func.func @depthwise_q(%x: tensor<1x10x10x24xi8>, %w: tensor<3x3x24xi8>, %izp: i32, %fzp: i32) -> tensor<1x8x8x24xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x8x8x24xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<1x8x8x24xi32>) -> tensor<1x8x8x24xi32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w, %izp, %fzp : tensor<1x10x10x24xi8>, tensor<3x3x24xi8>, i32, i32) outs(%f : tensor<1x8x8x24xi32>) -> tensor<1x8x8x24xi32>
  return %r : tensor<1x8x8x24xi32>
}

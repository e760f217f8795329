// Per-channel window workloads for same-process A/Bs (tessel-ab): ResNet-50's
// max pool after the stem and a MobileNet-style 3x3 depthwise convolution,
// batch 8, NHWC, padding as the frontends emit it (tensor.pad before the op).
// See utils/bench/README.md.
func.func @maxpool_b1(%x: tensor<1x112x112x64xf32>) -> tensor<1x56x56x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x112x112x64xf32> to tensor<1x114x114x64xf32>
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%p, %k : tensor<1x114x114x64xf32>, tensor<3x3xf32>) outs(%f : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  return %r : tensor<1x56x56x64xf32>
}
func.func @depthwise_b1(%x: tensor<1x56x56x128xf32>, %w: tensor<3x3x128xf32>) -> tensor<1x56x56x128xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x56x56x128xf32> to tensor<1x58x58x128xf32>
  %e = tensor.empty() : tensor<1x56x56x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%p, %w : tensor<1x58x58x128xf32>, tensor<3x3x128xf32>) outs(%f : tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32>
  return %r : tensor<1x56x56x128xf32>
}
func.func @maxpool_b8(%x: tensor<8x112x112x64xf32>) -> tensor<8x56x56x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<8x112x112x64xf32> to tensor<8x114x114x64xf32>
  %e = tensor.empty() : tensor<8x56x56x64xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<8x56x56x64xf32>) -> tensor<8x56x56x64xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%p, %k : tensor<8x114x114x64xf32>, tensor<3x3xf32>) outs(%f : tensor<8x56x56x64xf32>) -> tensor<8x56x56x64xf32>
  return %r : tensor<8x56x56x64xf32>
}
func.func @depthwise_b8(%x: tensor<8x56x56x128xf32>, %w: tensor<3x3x128xf32>) -> tensor<8x56x56x128xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<8x56x56x128xf32> to tensor<8x58x58x128xf32>
  %e = tensor.empty() : tensor<8x56x56x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x56x56x128xf32>) -> tensor<8x56x56x128xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%p, %w : tensor<8x58x58x128xf32>, tensor<3x3x128xf32>) outs(%f : tensor<8x56x56x128xf32>) -> tensor<8x56x56x128xf32>
  return %r : tensor<8x56x56x128xf32>
}

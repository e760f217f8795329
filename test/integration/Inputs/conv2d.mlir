// conv_2d_nchw_fchw with stride and padding; the zero padding is explicit
// (tensor.pad), as frontends produce it.

// N=2, C=3, 17x19 image, F=4 filters of 3x3, stride 2, padding 1:
// output 2x4x9x10.
func.func @conv_s2_p1(%x: tensor<2x3x17x19xf32>, %f: tensor<4x3x3x3xf32>) -> tensor<2x4x9x10xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%n: index, %c: index, %h: index, %w: index):
    tensor.yield %zero : f32
  } : tensor<2x3x17x19xf32> to tensor<2x3x19x21xf32>
  %e = tensor.empty() : tensor<2x4x9x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x9x10xf32>) -> tensor<2x4x9x10xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %f : tensor<2x3x19x21xf32>, tensor<4x3x3x3xf32>)
      outs(%init : tensor<2x4x9x10xf32>) -> tensor<2x4x9x10xf32>
  return %y : tensor<2x4x9x10xf32>
}

// N=1, C=5, 12x12, F=6 filters of 5x5, stride 1, padding 2 ("same"), plus a
// per-filter bias and ReLU fused after the convolution.
func.func @conv_same_bias_relu(%x: tensor<1x5x12x12xf32>, %f: tensor<6x5x5x5xf32>,
                               %bias: tensor<6xf32>) -> tensor<1x6x12x12xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
  ^bb0(%n: index, %c: index, %h: index, %w: index):
    tensor.yield %zero : f32
  } : tensor<1x5x12x12xf32> to tensor<1x5x16x16xf32>
  %e = tensor.empty() : tensor<1x6x12x12xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (f)>,
                                           affine_map<(n, f, h, w) -> (n, f, h, w)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<6xf32>) outs(%e : tensor<1x6x12x12xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x6x12x12xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %f : tensor<1x5x16x16xf32>, tensor<6x5x5x5xf32>)
      outs(%init : tensor<1x6x12x12xf32>) -> tensor<1x6x12x12xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%y : tensor<1x6x12x12xf32>) {
  ^bb0(%v: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x6x12x12xf32>
  return %r : tensor<1x6x12x12xf32>
}

// blur_x_blur_y: a separable 5-tap binomial blur of a 3-channel image,
// [0.0625, 0.25, 0.375, 0.25, 0.0625] along x, then along y, VALID (no
// padding): 3xHxW -> 3x(H)x(W-4) -> 3x(H-4)x(W-4). Each pass is a
// linalg.generic with a reduction dimension over the taps.
#in_x  = affine_map<(c, i, j, t) -> (c, i, j + t)>
#in_y  = affine_map<(c, i, j, t) -> (c, i + t, j)>
#taps  = affine_map<(c, i, j, t) -> (t)>
#out   = affine_map<(c, i, j, t) -> (c, i, j)>

func.func @blur_x_blur_y(%img: tensor<3x37x45xf32>) -> tensor<3x33x41xf32> {
  %w = arith.constant dense<[0.0625, 0.25, 0.375, 0.25, 0.0625]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<3x37x41xf32>
  %ix = linalg.fill ins(%zero : f32) outs(%ex : tensor<3x37x41xf32>) -> tensor<3x37x41xf32>
  %bx = linalg.generic {indexing_maps = [#in_x, #taps, #out],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%img, %w : tensor<3x37x45xf32>, tensor<5xf32>) outs(%ix : tensor<3x37x41xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x37x41xf32>
  %ey = tensor.empty() : tensor<3x33x41xf32>
  %iy = linalg.fill ins(%zero : f32) outs(%ey : tensor<3x33x41xf32>) -> tensor<3x33x41xf32>
  %by = linalg.generic {indexing_maps = [#in_y, #taps, #out],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%bx, %w : tensor<3x37x41xf32>, tensor<5xf32>) outs(%iy : tensor<3x33x41xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x33x41xf32>
  return %by : tensor<3x33x41xf32>
}

// The same blur with convolution ops: the channels become the batch of a
// one-channel NCHW image, blurred by a 1x5 and then a 5x1 filter.
func.func @blur_x_blur_y_conv(%img: tensor<3x16x24xf32>) -> tensor<3x12x20xf32> {
  %fx = arith.constant dense<[[[[0.0625, 0.25, 0.375, 0.25, 0.0625]]]]> : tensor<1x1x1x5xf32>
  %fy = arith.constant dense<[[[[0.0625], [0.25], [0.375], [0.25], [0.0625]]]]> : tensor<1x1x5x1xf32>
  %zero = arith.constant 0.0 : f32
  %in = tensor.expand_shape %img [[0, 1], [2], [3]] output_shape [3, 1, 16, 24]
      : tensor<3x16x24xf32> into tensor<3x1x16x24xf32>
  %ex = tensor.empty() : tensor<3x1x16x20xf32>
  %ix = linalg.fill ins(%zero : f32) outs(%ex : tensor<3x1x16x20xf32>) -> tensor<3x1x16x20xf32>
  %bx = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %fx : tensor<3x1x16x24xf32>, tensor<1x1x1x5xf32>)
      outs(%ix : tensor<3x1x16x20xf32>) -> tensor<3x1x16x20xf32>
  %ey = tensor.empty() : tensor<3x1x12x20xf32>
  %iy = linalg.fill ins(%zero : f32) outs(%ey : tensor<3x1x12x20xf32>) -> tensor<3x1x12x20xf32>
  %by = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%bx, %fy : tensor<3x1x16x20xf32>, tensor<1x1x5x1xf32>)
      outs(%iy : tensor<3x1x12x20xf32>) -> tensor<3x1x12x20xf32>
  %out = tensor.collapse_shape %by [[0, 1], [2], [3]]
      : tensor<3x1x12x20xf32> into tensor<3x12x20xf32>
  return %out : tensor<3x12x20xf32>
}

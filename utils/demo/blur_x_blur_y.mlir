// Demo workload: blur_x_blur_y, the separable 5-tap binomial blur
// [0.0625, 0.25, 0.375, 0.25, 0.0625] of a 3x2048x2048 f32 image, first
// along x, then along y, VALID (no padding):
//   3x2048x2048 -> (x) 3x2048x2044 -> (y) 3x2044x2044.
// Each pass is a linalg.generic with a reduction dimension over the taps.
// Compile: tessel-compile blur_x_blur_y.mlir --target=cpu -o blur_x_blur_y.so
#in_x = affine_map<(c, i, j, t) -> (c, i, j + t)>
#in_y = affine_map<(c, i, j, t) -> (c, i + t, j)>
#taps = affine_map<(c, i, j, t) -> (t)>
#out  = affine_map<(c, i, j, t) -> (c, i, j)>

func.func @blur_x_blur_y(%img: tensor<3x2048x2048xf32>) -> tensor<3x2044x2044xf32> {
  %w = arith.constant dense<[0.0625, 0.25, 0.375, 0.25, 0.0625]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<3x2048x2044xf32>
  %ix = linalg.fill ins(%zero : f32) outs(%ex : tensor<3x2048x2044xf32>) -> tensor<3x2048x2044xf32>
  %bx = linalg.generic {indexing_maps = [#in_x, #taps, #out],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%img, %w : tensor<3x2048x2048xf32>, tensor<5xf32>)
      outs(%ix : tensor<3x2048x2044xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x2048x2044xf32>
  %ey = tensor.empty() : tensor<3x2044x2044xf32>
  %iy = linalg.fill ins(%zero : f32) outs(%ey : tensor<3x2044x2044xf32>) -> tensor<3x2044x2044xf32>
  %by = linalg.generic {indexing_maps = [#in_y, #taps, #out],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%bx, %w : tensor<3x2048x2044xf32>, tensor<5xf32>)
      outs(%iy : tensor<3x2044x2044xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x2044x2044xf32>
  return %by : tensor<3x2044x2044xf32>
}

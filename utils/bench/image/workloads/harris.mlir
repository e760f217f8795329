// Image-pipeline benchmark workload: Harris corner response of a planar
// 3x2048x2048 f32 RGB image, VALID (no padding; each 3x3 stencil shrinks
// the image by 1 on every side):
//   gray          = 0.299 r + 0.587 g + 0.114 b                  2048x2048
//   Ix, Iy        = 3x3 Sobel of gray (x: [-1 0 1; -2 0 2; -1 0 1],
//                   y: its transpose)                            2046x2046
//   Ixx, Iyy, Ixy = Ix Ix, Iy Iy, Ix Iy                          2046x2046
//   Sxx, Syy, Sxy = 3x3 box sums of those                        2044x2044
//   response      = Sxx Syy - Sxy^2 - 0.04 (Sxx + Syy)^2         2044x2044
// Written the way a framework exporter emits it: stencils are
// linalg.generic ops with reduction dimensions over the taps (weights as a
// constant tensor), the rest are parallel (elementwise) generics.
// The same pipeline is utils/bench/image/halide_generators.cpp (Halide) and
// image_plain_c.c (plain C); image_reference.c has the double reference.
// Compile: tessel-compile harris.mlir --target=cpu -o harris.so
#chan_r   = affine_map<(i, j) -> (0, i, j)>
#chan_g   = affine_map<(i, j) -> (1, i, j)>
#chan_b   = affine_map<(i, j) -> (2, i, j)>
#plane    = affine_map<(i, j) -> (i, j)>
#win_in   = affine_map<(i, j, a, b) -> (i + a, j + b)>
#win_w    = affine_map<(i, j, a, b) -> (a, b)>
#win_out  = affine_map<(i, j, a, b) -> (i, j)>

func.func @harris(%img: tensor<3x2048x2048xf32>) -> tensor<2044x2044xf32> {
  %sobel_x = arith.constant dense<[[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]> : tensor<3x3xf32>
  %sobel_y = arith.constant dense<[[-1.0, -2.0, -1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 1.0]]> : tensor<3x3xf32>
  %zero = arith.constant 0.0 : f32

  %gray_init = tensor.empty() : tensor<2048x2048xf32>
  %gray = linalg.generic {indexing_maps = [#chan_r, #chan_g, #chan_b, #plane],
                          iterator_types = ["parallel", "parallel"]}
      ins(%img, %img, %img : tensor<3x2048x2048xf32>, tensor<3x2048x2048xf32>, tensor<3x2048x2048xf32>)
      outs(%gray_init : tensor<2048x2048xf32>) {
  ^bb0(%r: f32, %g: f32, %b: f32, %o: f32):
    %kr = arith.constant 0.299 : f32
    %kg = arith.constant 0.587 : f32
    %kb = arith.constant 0.114 : f32
    %wr = arith.mulf %r, %kr : f32
    %wg = arith.mulf %g, %kg : f32
    %wb = arith.mulf %b, %kb : f32
    %s0 = arith.addf %wr, %wg : f32
    %s1 = arith.addf %s0, %wb : f32
    linalg.yield %s1 : f32
  } -> tensor<2048x2048xf32>

  %ix_empty = tensor.empty() : tensor<2046x2046xf32>
  %ix_init = linalg.fill ins(%zero : f32) outs(%ix_empty : tensor<2046x2046xf32>) -> tensor<2046x2046xf32>
  %ix = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out],
                        iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%gray, %sobel_x : tensor<2048x2048xf32>, tensor<3x3xf32>)
      outs(%ix_init : tensor<2046x2046xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2046x2046xf32>
  %iy_empty = tensor.empty() : tensor<2046x2046xf32>
  %iy_init = linalg.fill ins(%zero : f32) outs(%iy_empty : tensor<2046x2046xf32>) -> tensor<2046x2046xf32>
  %iy = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out],
                        iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%gray, %sobel_y : tensor<2048x2048xf32>, tensor<3x3xf32>)
      outs(%iy_init : tensor<2046x2046xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2046x2046xf32>

  %ixx_init = tensor.empty() : tensor<2046x2046xf32>
  %ixx = linalg.generic {indexing_maps = [#plane, #plane],
                         iterator_types = ["parallel", "parallel"]}
      ins(%ix : tensor<2046x2046xf32>) outs(%ixx_init : tensor<2046x2046xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = arith.mulf %x, %x : f32
    linalg.yield %p : f32
  } -> tensor<2046x2046xf32>
  %iyy_init = tensor.empty() : tensor<2046x2046xf32>
  %iyy = linalg.generic {indexing_maps = [#plane, #plane],
                         iterator_types = ["parallel", "parallel"]}
      ins(%iy : tensor<2046x2046xf32>) outs(%iyy_init : tensor<2046x2046xf32>) {
  ^bb0(%y: f32, %o: f32):
    %p = arith.mulf %y, %y : f32
    linalg.yield %p : f32
  } -> tensor<2046x2046xf32>
  %ixy_init = tensor.empty() : tensor<2046x2046xf32>
  %ixy = linalg.generic {indexing_maps = [#plane, #plane, #plane],
                         iterator_types = ["parallel", "parallel"]}
      ins(%ix, %iy : tensor<2046x2046xf32>, tensor<2046x2046xf32>)
      outs(%ixy_init : tensor<2046x2046xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<2046x2046xf32>

  // The window operand only gives the taps their extent (as in the
  // linalg.pooling_*_sum ops); its elements are not read.
  %window = tensor.empty() : tensor<3x3xf32>
  %sxx_empty = tensor.empty() : tensor<2044x2044xf32>
  %sxx_init = linalg.fill ins(%zero : f32) outs(%sxx_empty : tensor<2044x2044xf32>) -> tensor<2044x2044xf32>
  %sxx = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out],
                         iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%ixx, %window : tensor<2046x2046xf32>, tensor<3x3xf32>)
      outs(%sxx_init : tensor<2044x2044xf32>) {
  ^bb0(%p: f32, %unused: f32, %acc: f32):
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2044x2044xf32>
  %syy_empty = tensor.empty() : tensor<2044x2044xf32>
  %syy_init = linalg.fill ins(%zero : f32) outs(%syy_empty : tensor<2044x2044xf32>) -> tensor<2044x2044xf32>
  %syy = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out],
                         iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%iyy, %window : tensor<2046x2046xf32>, tensor<3x3xf32>)
      outs(%syy_init : tensor<2044x2044xf32>) {
  ^bb0(%p: f32, %unused: f32, %acc: f32):
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2044x2044xf32>
  %sxy_empty = tensor.empty() : tensor<2044x2044xf32>
  %sxy_init = linalg.fill ins(%zero : f32) outs(%sxy_empty : tensor<2044x2044xf32>) -> tensor<2044x2044xf32>
  %sxy = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out],
                         iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%ixy, %window : tensor<2046x2046xf32>, tensor<3x3xf32>)
      outs(%sxy_init : tensor<2044x2044xf32>) {
  ^bb0(%p: f32, %unused: f32, %acc: f32):
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2044x2044xf32>

  %resp_init = tensor.empty() : tensor<2044x2044xf32>
  %response = linalg.generic {indexing_maps = [#plane, #plane, #plane, #plane],
                              iterator_types = ["parallel", "parallel"]}
      ins(%sxx, %syy, %sxy : tensor<2044x2044xf32>, tensor<2044x2044xf32>, tensor<2044x2044xf32>)
      outs(%resp_init : tensor<2044x2044xf32>) {
  ^bb0(%a: f32, %c: f32, %b: f32, %o: f32):
    %k = arith.constant 0.04 : f32
    %ac = arith.mulf %a, %c : f32
    %bb = arith.mulf %b, %b : f32
    %det = arith.subf %ac, %bb : f32
    %tr = arith.addf %a, %c : f32
    %tr2 = arith.mulf %tr, %tr : f32
    %ktr2 = arith.mulf %k, %tr2 : f32
    %r = arith.subf %det, %ktr2 : f32
    linalg.yield %r : f32
  } -> tensor<2044x2044xf32>
  return %response : tensor<2044x2044xf32>
}

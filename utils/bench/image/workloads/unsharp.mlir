// Image-pipeline benchmark workload: unsharp mask of a planar 3x2048x2048 f32
// RGB image, VALID (no padding; the output shrinks by the blur radius 2):
//   gray     = 0.299 r + 0.587 g + 0.114 b                       2048x2048
//   blur_y   = 5-tap gaussian (sigma 1, normalized) along y       2044x2048
//   blur     = the same taps along x                              2044x2044
//   sharpen  = 2 gray - blur   (gray at the blur's centre, +2 +2) 2044x2044
//   ratio    = sharpen / gray  (same centre)                      2044x2044
//   out[c]   = ratio * img[c]  (same centre)                    3x2044x2044
// Written the way a framework exporter emits it: stencils are
// linalg.generic ops with a reduction dimension over the taps, the rest are
// parallel (elementwise) generics; shifts are offsets in the indexing maps.
// The same pipeline is utils/bench/image/halide_generators.cpp (Halide) and
// image_plain_c.c (plain C); image_reference.c has the double reference.
// Compile: tessel-compile unsharp.mlir --target=cpu -o unsharp.so
#chan_r    = affine_map<(i, j) -> (0, i, j)>
#chan_g    = affine_map<(i, j) -> (1, i, j)>
#chan_b    = affine_map<(i, j) -> (2, i, j)>
#plane     = affine_map<(i, j) -> (i, j)>
#centre    = affine_map<(i, j) -> (i + 2, j + 2)>
#tap_y     = affine_map<(i, j, t) -> (i + t, j)>
#tap_x     = affine_map<(i, j, t) -> (i, j + t)>
#tap_w     = affine_map<(i, j, t) -> (t)>
#tap_out   = affine_map<(i, j, t) -> (i, j)>
#img_centre = affine_map<(c, i, j) -> (c, i + 2, j + 2)>
#per_pixel = affine_map<(c, i, j) -> (i, j)>
#img_out   = affine_map<(c, i, j) -> (c, i, j)>

func.func @unsharp(%img: tensor<3x2048x2048xf32>) -> tensor<3x2044x2044xf32> {
  %w = arith.constant dense<[0.054488685, 0.244201347, 0.402619958, 0.244201347, 0.054488685]> : tensor<5xf32>
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

  %by_empty = tensor.empty() : tensor<2044x2048xf32>
  %by_init = linalg.fill ins(%zero : f32) outs(%by_empty : tensor<2044x2048xf32>) -> tensor<2044x2048xf32>
  %blur_y = linalg.generic {indexing_maps = [#tap_y, #tap_w, #tap_out],
                            iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%gray, %w : tensor<2048x2048xf32>, tensor<5xf32>)
      outs(%by_init : tensor<2044x2048xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2044x2048xf32>

  %bx_empty = tensor.empty() : tensor<2044x2044xf32>
  %bx_init = linalg.fill ins(%zero : f32) outs(%bx_empty : tensor<2044x2044xf32>) -> tensor<2044x2044xf32>
  %blur = linalg.generic {indexing_maps = [#tap_x, #tap_w, #tap_out],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%blur_y, %w : tensor<2044x2048xf32>, tensor<5xf32>)
      outs(%bx_init : tensor<2044x2044xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2044x2044xf32>

  %sharpen_init = tensor.empty() : tensor<2044x2044xf32>
  %sharpen = linalg.generic {indexing_maps = [#centre, #plane, #plane],
                             iterator_types = ["parallel", "parallel"]}
      ins(%gray, %blur : tensor<2048x2048xf32>, tensor<2044x2044xf32>)
      outs(%sharpen_init : tensor<2044x2044xf32>) {
  ^bb0(%g: f32, %bl: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %g2 = arith.mulf %g, %two : f32
    %d = arith.subf %g2, %bl : f32
    linalg.yield %d : f32
  } -> tensor<2044x2044xf32>

  %ratio_init = tensor.empty() : tensor<2044x2044xf32>
  %ratio = linalg.generic {indexing_maps = [#plane, #centre, #plane],
                           iterator_types = ["parallel", "parallel"]}
      ins(%sharpen, %gray : tensor<2044x2044xf32>, tensor<2048x2048xf32>)
      outs(%ratio_init : tensor<2044x2044xf32>) {
  ^bb0(%sh: f32, %g: f32, %o: f32):
    %q = arith.divf %sh, %g : f32
    linalg.yield %q : f32
  } -> tensor<2044x2044xf32>

  %out_init = tensor.empty() : tensor<3x2044x2044xf32>
  %out = linalg.generic {indexing_maps = [#per_pixel, #img_centre, #img_out],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ratio, %img : tensor<2044x2044xf32>, tensor<3x2048x2048xf32>)
      outs(%out_init : tensor<3x2044x2044xf32>) {
  ^bb0(%q: f32, %x: f32, %o: f32):
    %y = arith.mulf %q, %x : f32
    linalg.yield %y : f32
  } -> tensor<3x2044x2044xf32>
  return %out : tensor<3x2044x2044xf32>
}

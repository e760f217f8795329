// Halide 14 generators of the image-pipeline benchmark (tessel-image-bench):
// the same three pipelines as the MLIR (utils/demo/blur_x_blur_y.mlir,
// utils/bench/image/workloads/*.mlir), image_plain_c.c (plain C) and the
// double reference in image_reference.c. Planar f32 images; x, the last and
// contiguous dimension of the C/MLIR arrays, is Halide's dimension 0. VALID
// boundaries: outputs start at 0 and read the input shifted by the stencil
// radius, so no boundary condition is needed.
//
// Only the algorithm is written here; the schedules come from the
// autoschedulers (the generator is run with auto_schedule=true, -s <name>
// and -p <plugin>; see CMakeLists.txt and build-halide-variant.sh). The image
// size is a generator parameter and is set as static bounds and strides on
// the buffers, so Halide knows the shapes as exactly as Tessel does (static
// tensor shapes), and as the autoscheduler estimates.
//
// C++ because Halide's API is C++.
#include "Halide.h"
#include "image_kernels.h"

namespace {

using namespace Halide;

// The same f32 constants as the C versions and the MLIR.
constexpr float kBinomial[5] = IMAGE_BINOMIAL_5;
constexpr float kGaussian[5] = IMAGE_GAUSSIAN_5;
constexpr float kGrayR = IMAGE_GRAY_R, kGrayG = IMAGE_GRAY_G,
                kGrayB = IMAGE_GRAY_B;
constexpr float kHarrisK = IMAGE_HARRIS_K;

// Pins a planar (x, y, c) or (x, y) buffer to a dense static shape.
template <typename B>
void set_static_shape(B &buf, int width, int height, int channels) {
  buf.dim(0).set_bounds(0, width).set_stride(1);
  buf.dim(1).set_bounds(0, height).set_stride(width);
  buf.dim(0).set_estimate(0, width);
  buf.dim(1).set_estimate(0, height);
  if (channels > 0) {
    buf.dim(2).set_bounds(0, channels).set_stride(width * height);
    buf.dim(2).set_estimate(0, channels);
  }
}

// k[0] * at(0) + ... + k[4] * at(4), summed left to right like the C and
// MLIR versions (same rounding).
template <typename At> Expr taps5(const float (&k)[5], At at) {
  return k[0] * at(0) + k[1] * at(1) + k[2] * at(2) + k[3] * at(3) +
         k[4] * at(4);
}

// The luminance of a planar RGB input at (x, y).
template <typename In> Expr luminance(In &in, Expr x, Expr y) {
  return kGrayR * in(x, y, 0) + kGrayG * in(x, y, 1) + kGrayB * in(x, y, 2);
}

// 3xHxW -> 3x(H-4)x(W-4): 5-tap binomial along x, then along y.
class BlurXBlurY : public Generator<BlurXBlurY> {
public:
  GeneratorParam<int> width{"width", 2048};
  GeneratorParam<int> height{"height", 2048};
  Input<Buffer<float, 3>> input{"input"};
  Output<Buffer<float, 3>> output{"output"};

  void generate() {
    Var x("x"), y("y"), c("c");
    Func blur_x("blur_x");
    blur_x(x, y, c) = taps5(kBinomial, [&](int t) { return input(x + t, y, c); });
    output(x, y, c) = taps5(kBinomial, [&](int t) { return blur_x(x, y + t, c); });
    set_static_shape(input, width, height, 3);
    set_static_shape(output, width - 4, height - 4, 3);
  }
};

// 3xHxW -> 3x(H-4)x(W-4): unsharp mask on the luminance, applied to every
// channel through the ratio sharpened/original luminance.
class Unsharp : public Generator<Unsharp> {
public:
  GeneratorParam<int> width{"width", 2048};
  GeneratorParam<int> height{"height", 2048};
  Input<Buffer<float, 3>> input{"input"};
  Output<Buffer<float, 3>> output{"output"};

  void generate() {
    Var x("x"), y("y"), c("c");
    Func gray("gray"), blur_y("blur_y"), blur("blur"), sharpen("sharpen"),
        ratio("ratio");
    gray(x, y) = luminance(input, x, y);
    blur_y(x, y) = taps5(kGaussian, [&](int t) { return gray(x, y + t); });
    blur(x, y) = taps5(kGaussian, [&](int t) { return blur_y(x + t, y); });
    // The blur at output (x, y) is centred on gray(x + 2, y + 2).
    sharpen(x, y) = 2.0f * gray(x + 2, y + 2) - blur(x, y);
    ratio(x, y) = sharpen(x, y) / gray(x + 2, y + 2);
    output(x, y, c) = ratio(x, y) * input(x + 2, y + 2, c);
    set_static_shape(input, width, height, 3);
    set_static_shape(output, width - 4, height - 4, 3);
  }
};

// 3xHxW -> (H-4)x(W-4): Harris corner response (3x3 Sobel, 3x3 box sums).
class Harris : public Generator<Harris> {
public:
  GeneratorParam<int> width{"width", 2048};
  GeneratorParam<int> height{"height", 2048};
  Input<Buffer<float, 3>> input{"input"};
  Output<Buffer<float, 2>> output{"output"};

  void generate() {
    Var x("x"), y("y");
    Func gray("gray"), ix("ix"), iy("iy"), ixx("ixx"), iyy("iyy"), ixy("ixy"),
        sxx("sxx"), syy("syy"), sxy("sxy");
    gray(x, y) = luminance(input, x, y);
    // Sobel over the 3x3 window whose top-left corner is (x, y); the zero
    // taps are left out, as one writes it by hand.
    ix(x, y) = -gray(x, y) + gray(x + 2, y) - 2.0f * gray(x, y + 1) +
               2.0f * gray(x + 2, y + 1) - gray(x, y + 2) + gray(x + 2, y + 2);
    iy(x, y) = -gray(x, y) - 2.0f * gray(x + 1, y) - gray(x + 2, y) +
               gray(x, y + 2) + 2.0f * gray(x + 1, y + 2) + gray(x + 2, y + 2);
    ixx(x, y) = ix(x, y) * ix(x, y);
    iyy(x, y) = iy(x, y) * iy(x, y);
    ixy(x, y) = ix(x, y) * iy(x, y);
    auto box = [&](Func f) {
      return f(x, y) + f(x + 1, y) + f(x + 2, y) + f(x, y + 1) +
             f(x + 1, y + 1) + f(x + 2, y + 1) + f(x, y + 2) +
             f(x + 1, y + 2) + f(x + 2, y + 2);
    };
    sxx(x, y) = box(ixx);
    syy(x, y) = box(iyy);
    sxy(x, y) = box(ixy);
    Expr det = sxx(x, y) * syy(x, y) - sxy(x, y) * sxy(x, y);
    Expr trace = sxx(x, y) + syy(x, y);
    output(x, y) = det - kHarrisK * trace * trace;
    set_static_shape(input, width, height, 3);
    set_static_shape(output, width - 4, height - 4, 0);
  }
};

} // namespace

HALIDE_REGISTER_GENERATOR(BlurXBlurY, blur_x_blur_y)
HALIDE_REGISTER_GENERATOR(Unsharp, unsharp)
HALIDE_REGISTER_GENERATOR(Harris, harris)

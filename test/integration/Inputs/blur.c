/* Harness for blur.mlir: 5-tap separable blur, x then y, VALID. */
#include "harness.h"

static const double kTaps[5] = {0.0625, 0.25, 0.375, 0.25, 0.0625};

/* blur_x_blur_y's input size; a test that resizes blur.mlir says its own. */
#ifndef BLUR_H
#define BLUR_H 37
#endif
#ifndef BLUR_W
#define BLUR_W 45
#endif

/* Double-precision reference: 3xHxW -> 3x(H-4)x(W-4). */
static void blur_reference(const float *in, double *out, int64_t h, int64_t w) {
  const int64_t wo = w - 4, ho = h - 4;
  double *tmp = alloc_f64((size_t)(3 * h * wo));
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < wo; ++j) {
        double s = 0.0;
        for (int t = 0; t < 5; ++t)
          s += kTaps[t] * (double)in[(c * h + i) * w + j + t];
        tmp[(c * h + i) * wo + j] = s;
      }
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < ho; ++i)
      for (int64_t j = 0; j < wo; ++j) {
        double s = 0.0;
        for (int t = 0; t < 5; ++t)
          s += kTaps[t] * tmp[(c * h + i + t) * wo + j];
        out[(c * ho + i) * wo + j] = s;
      }
  harness_free(tmp);
}

typedef void (*blur_fn)(tessel_memref_f32_3d *, tessel_memref_f32_3d *);

static void run(const char *name, blur_fn fn, int64_t h, int64_t w,
                uint64_t seed) {
  const int64_t ho = h - 4, wo = w - 4;
  const size_t nin = (size_t)(3 * h * w), nout = (size_t)(3 * ho * wo);
  float *in = random_f32(nin, seed, 0.0f, 1.0f); /* pixel intensities */
  float *in0 = copy_f32(in, nin);
  float *out = alloc_f32(nout);
  poison_f32(out, nout);
  double *ref = alloc_f64(nout);
  blur_reference(in, ref, h, w);

  tessel_memref_f32_3d din, dout;
  tessel_memref_f32_init_3d(&din, in, 3, h, w);
  tessel_memref_f32_init_3d(&dout, out, 3, ho, wo);
  fn(&din, &dout);

  char shape[64];
  snprintf(shape, sizeof shape, "3x%ldx%ld->3x%ldx%ld", (long)h, (long)w,
           (long)ho, (long)wo);
  check_f32(name, shape, out, ref, nout, 1e-5, 1e-6);
  check_unchanged(name, in, in0, nin * sizeof(float));
  harness_free(in); harness_free(in0); harness_free(out); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run("blur_x_blur_y", _mlir_ciface_blur_x_blur_y, BLUR_H, BLUR_W, 21);
  run("blur_x_blur_y_conv", _mlir_ciface_blur_x_blur_y_conv, 16, 24, 22);
  return harness_finish();
}

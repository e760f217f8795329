/* Harness for the image benchmark's unsharp mask and Harris corner MLIR
 * (utils/bench/image/workloads, compiled at 3x67x45 and 3x130x700 by
 * image_pipelines.test)
 * against the benchmark's own double-precision reference
 * (utils/bench/image/image_reference.c), so the test covers the very
 * definitions tessel-image-bench checks its variants with. */
#include "harness.h"
#include "image_kernels.h"

/* The shapes the test's sed wrote (-DIMAGE_HEIGHT/-DIMAGE_WIDTH for the
 * other sizes it compiles). */
#ifndef IMAGE_HEIGHT
#define IMAGE_HEIGHT 67
#define IMAGE_WIDTH 45
#endif
enum { kHeight = IMAGE_HEIGHT, kWidth = IMAGE_WIDTH };

typedef void (*image_fn)(void *in, void *out);

static void run(const char *name, image_kind kind, image_fn fn, uint64_t seed) {
  int64_t oc, oh, ow;
  image_output_shape(kind, kHeight, kWidth, &oc, &oh, &ow);
  const size_t nin = (size_t)(3 * kHeight * kWidth), nout = (size_t)(oc * oh * ow);
  float *in = random_f32(nin, seed, 0.0f, 1.0f); /* pixel intensities */
  float *in0 = copy_f32(in, nin);
  float *out = alloc_f32(nout);
  poison_f32(out, nout);
  double *ref = alloc_f64(nout);
  if (image_reference(kind, in, kHeight, kWidth, ref) != 0) {
    printf("FAIL %s: out of memory for the reference\n", name);
    exit(1);
  }
  double ss = 0.0;
  for (size_t i = 0; i < nout; ++i)
    ss += ref[i] * ref[i];
  const double rms = sqrt(ss / (double)nout);

  tessel_memref_f32_3d din, dout3;
  tessel_memref_f32_2d dout2;
  tessel_memref_f32_init_3d(&din, in, 3, kHeight, kWidth);
  tessel_memref_f32_init_3d(&dout3, out, oc, oh, ow);
  tessel_memref_f32_init_2d(&dout2, out, oh, ow);
  fn(&din, oc > 1 ? (void *)&dout3 : (void *)&dout2);

  char shape[64];
  if (oc > 1)
    snprintf(shape, sizeof shape, "3x%dx%d->%ldx%ldx%ld", kHeight, kWidth,
             (long)oc, (long)oh, (long)ow);
  else
    snprintf(shape, sizeof shape, "3x%dx%d->%ldx%ld", kHeight, kWidth, (long)oh,
             (long)ow);
  /* Relative to each element, with a floor at the typical magnitude for
   * outputs that cancel to near zero (Harris' det - k trace^2). */
  check_f32(name, shape, out, ref, nout, 1e-5, 1e-5 * rms);
  check_unchanged(name, in, in0, nin * sizeof(float));
  harness_free(in); harness_free(in0); harness_free(out); harness_free(ref);
}

static void call_unsharp(void *in, void *out) { _mlir_ciface_unsharp(in, out); }
static void call_harris(void *in, void *out) { _mlir_ciface_harris(in, out); }

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run("unsharp", IMAGE_UNSHARP, call_unsharp, 31);
  run("harris", IMAGE_HARRIS, call_harris, 32);
  return harness_finish();
}

/* Harness for gpu_conv.mlir: NHWC convolutions on tensor cores against a
 * double-precision direct convolution. Built with -DHARNESS_GPU_MANAGED for
 * a GPU, or without for the kernels emulated on the CPU. */
#include "harness.h"
#include "tensor_core_inputs.h"

#include <stdint.h>

typedef struct {
  const char *name;
  int64_t n, h, w, c;     /* input, before padding */
  int64_t kh, kw, f;      /* filter */
  int64_t pad, stride, dilation;
  int64_t oh, ow;         /* output */
} conv_shape;

static double *reference(const conv_shape *s, const void *x, const void *w,
                         value_fn value) {
  double *ref = alloc_f64((size_t)(s->n * s->oh * s->ow * s->f));
  for (int64_t b = 0; b < s->n; ++b)
    for (int64_t y = 0; y < s->oh; ++y)
      for (int64_t z = 0; z < s->ow; ++z)
        for (int64_t o = 0; o < s->f; ++o) {
          double sum = 0;
          for (int64_t i = 0; i < s->kh; ++i)
            for (int64_t j = 0; j < s->kw; ++j) {
              int64_t iy = y * s->stride + i * s->dilation - s->pad;
              int64_t ix = z * s->stride + j * s->dilation - s->pad;
              if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w)
                continue;
              for (int64_t ch = 0; ch < s->c; ++ch)
                sum += value(x, (size_t)(((b * s->h + iy) * s->w + ix) * s->c + ch)) *
                       value(w, (size_t)(((i * s->kw + j) * s->c + ch) * s->f + o));
            }
          ref[((b * s->oh + y) * s->ow + z) * s->f + o] = sum;
        }
  return ref;
}

typedef void (*conv_fn)(void *, void *, void *);

static void run(const conv_shape *s, conv_fn fn, int is_i8, uint64_t seed) {
  size_t nx = (size_t)(s->n * s->h * s->w * s->c);
  size_t nw = (size_t)(s->kh * s->kw * s->c * s->f);
  size_t ny = (size_t)(s->n * s->oh * s->ow * s->f);
  void *x = random_input(nx, seed, is_i8), *w = random_input(nw, seed + 1, is_i8);
  void *y = harness_alloc(ny, 4);
  memset(y, 0xff, ny * 4);
  /* Descriptors of rank 4 (element type does not change the layout). */
  tessel_memref_i32_4d dx = {x, x, 0, {s->n, s->h, s->w, s->c},
                             {s->h * s->w * s->c, s->w * s->c, s->c, 1}};
  tessel_memref_i32_4d dw = {w, w, 0, {s->kh, s->kw, s->c, s->f},
                             {s->kw * s->c * s->f, s->c * s->f, s->f, 1}};
  tessel_memref_i32_4d dy = {y, y, 0, {s->n, s->oh, s->ow, s->f},
                             {s->oh * s->ow * s->f, s->ow * s->f, s->f, 1}};
  fn(&dx, &dw, &dy);
  double *ref = reference(s, x, w, is_i8 ? i8_value : f16_value);
  char shape[96];
  snprintf(shape, sizeof shape, "%ldx%ldx%ldx%ld*%ldx%ldx%ldx%ld",
           (long)s->n, (long)s->h, (long)s->w, (long)s->c, (long)s->kh,
           (long)s->kw, (long)s->c, (long)s->f);
  if (is_i8) {
    double *got = alloc_f64(ny);
    for (size_t i = 0; i < ny; ++i)
      got[i] = (double)((int32_t *)y)[i];
    check_f64(s->name, shape, got, ref, ny, 0.0, 0.0);
    harness_free(got);
  } else {
    /* f32 sums of kh*kw*c products of magnitude <= 1. */
    check_f32(s->name, shape, (float *)y, ref, ny, 1e-5,
              2e-6 * (double)(s->kh * s->kw * s->c));
  }
  harness_free(x); harness_free(w); harness_free(y); harness_free(ref);
}

/* Convolution + bias + ReLU, converted to f16 in the kernel's epilogue. */
static void run_epilogue(void) {
  conv_shape s = {"conv3x3_bias_relu_f16", 2, 10, 10, 32, 3, 3, 40, 0, 1, 1, 8, 8};
  size_t nx = (size_t)(s.n * s.h * s.w * s.c), nw = (size_t)(s.kh * s.kw * s.c * s.f);
  size_t ny = (size_t)(s.n * s.oh * s.ow * s.f);
  uint16_t *x = random_input(nx, 11, 0), *w = random_input(nw, 12, 0);
  float *bias = random_f32((size_t)s.f, 13, -1.0f, 1.0f);
  uint16_t *y = (uint16_t *)harness_alloc(ny, 2);
  memset(y, 0xff, ny * 2);
  tessel_memref_f16_4d dx = {x, x, 0, {s.n, s.h, s.w, s.c},
                             {s.h * s.w * s.c, s.w * s.c, s.c, 1}};
  tessel_memref_f16_4d dw = {w, w, 0, {s.kh, s.kw, s.c, s.f},
                             {s.kw * s.c * s.f, s.c * s.f, s.f, 1}};
  tessel_memref_f32_1d db = {bias, bias, 0, {s.f}, {1}};
  tessel_memref_f16_4d dy = {y, y, 0, {s.n, s.oh, s.ow, s.f},
                             {s.oh * s.ow * s.f, s.ow * s.f, s.f, 1}};
  _mlir_ciface_conv3x3_bias_relu_f16(&dx, &dw, &db, &dy);
  double *ref = reference(&s, x, w, f16_value);
  double *got = alloc_f64(ny);
  for (size_t i = 0; i < ny; ++i) {
    double v = ref[i] + (double)bias[i % (size_t)s.f];
    ref[i] = v > 0 ? v : 0;
    got[i] = f16_value(y, i);
  }
  /* f16 results: 11 significant bits. */
  check_f64(s.name, "2x10x10x32*3x3x32x40", got, ref, ny, 2e-3, 2e-3);
  harness_free(x); harness_free(w); harness_free(bias); harness_free(y);
  harness_free(ref); harness_free(got);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  conv_shape a = {"conv3x3_pad1", 2, 14, 14, 64, 3, 3, 48, 1, 1, 1, 14, 14};
  run(&a, (conv_fn)_mlir_ciface_conv3x3_pad1, 0, 1);
  conv_shape b = {"conv3x3_s2", 1, 15, 15, 32, 3, 3, 64, 0, 2, 1, 7, 7};
  run(&b, (conv_fn)_mlir_ciface_conv3x3_s2, 0, 3);
  conv_shape c = {"conv1x1", 2, 7, 7, 64, 1, 1, 80, 0, 1, 1, 7, 7};
  run(&c, (conv_fn)_mlir_ciface_conv1x1, 0, 5);
  conv_shape d = {"conv3x3_d2_i8", 1, 12, 12, 32, 3, 3, 32, 0, 1, 2, 8, 8};
  run(&d, (conv_fn)_mlir_ciface_conv3x3_d2_i8, 1, 7);
  conv_shape e = {"stem7x7_s2", 1, 37, 37, 3, 7, 7, 64, 0, 2, 1, 16, 16};
  run(&e, (conv_fn)_mlir_ciface_stem7x7_s2, 0, 9);
  run_epilogue();
  return harness_finish();
}

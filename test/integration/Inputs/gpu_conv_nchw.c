/* Harness for gpu_conv_nchw.mlir: NCHW convolutions (put between transposes
 * by tessel-convert-conv-to-nhwc, then on tensor cores, or the SIMT cores
 * for f32) against a double-precision direct convolution in NCHW. Built with
 * -DHARNESS_GPU_MANAGED for a GPU, or without for the kernels emulated on
 * the CPU. */
#include "harness.h"
#include "tensor_core_inputs.h"

#include <stdint.h>

typedef struct {
  const char *name;
  int64_t n, c, h, w; /* input, before padding */
  int64_t f, kh, kw;  /* filter (F x C x KH x KW) */
  int64_t pad, stride, dilation;
  int64_t oh, ow; /* output (N x F x OH x OW) */
} conv_shape;

static double *reference(const conv_shape *s, const void *x, const void *w,
                         value_fn value) {
  double *ref = alloc_f64((size_t)(s->n * s->f * s->oh * s->ow));
  for (int64_t b = 0; b < s->n; ++b)
    for (int64_t o = 0; o < s->f; ++o)
      for (int64_t y = 0; y < s->oh; ++y)
        for (int64_t z = 0; z < s->ow; ++z) {
          double sum = 0;
          for (int64_t ch = 0; ch < s->c; ++ch)
            for (int64_t i = 0; i < s->kh; ++i)
              for (int64_t j = 0; j < s->kw; ++j) {
                int64_t iy = y * s->stride + i * s->dilation - s->pad;
                int64_t ix = z * s->stride + j * s->dilation - s->pad;
                if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w)
                  continue;
                sum +=
                    value(x,
                          (size_t)(((b * s->c + ch) * s->h + iy) * s->w + ix)) *
                    value(w,
                          (size_t)(((o * s->c + ch) * s->kh + i) * s->kw + j));
              }
          ref[((b * s->f + o) * s->oh + y) * s->ow + z] = sum;
        }
  return ref;
}

/* Rank-4 descriptors of dense NCHW-like arrays (the element type does not
 * change the layout). */
static tessel_memref_i32_4d dense4(void *p, int64_t a, int64_t b, int64_t c,
                                   int64_t d) {
  tessel_memref_i32_4d m = {p, p, 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
  return m;
}

static void shape_name(const conv_shape *s, char *out, size_t size) {
  snprintf(out, size, "%ldx%ldx%ldx%ld*%ldx%ldx%ldx%ld", (long)s->n, (long)s->c,
           (long)s->h, (long)s->w, (long)s->f, (long)s->c, (long)s->kh,
           (long)s->kw);
}

typedef void (*conv_fn)(void *, void *, void *);

typedef enum { ELEM_F16, ELEM_I8, ELEM_F32 } element_kind;

static double f32_value(const void *p, size_t i) {
  return (double)((const float *)p)[i];
}

/* Inputs in [-1, 1): f32, or as random_input makes them. */
static void *conv_input(size_t count, uint64_t seed, element_kind kind) {
  return kind == ELEM_F32 ? (void *)random_f32(count, seed, -1.0f, 1.0f)
                          : random_input(count, seed, kind == ELEM_I8);
}

static value_fn value_of(element_kind kind) {
  return kind == ELEM_F32 ? f32_value : kind == ELEM_I8 ? i8_value : f16_value;
}

static void run(const conv_shape *s, conv_fn fn, element_kind kind,
                uint64_t seed) {
  int is_i8 = kind == ELEM_I8;
  size_t nx = (size_t)(s->n * s->c * s->h * s->w);
  size_t nw = (size_t)(s->f * s->c * s->kh * s->kw);
  size_t ny = (size_t)(s->n * s->f * s->oh * s->ow);
  void *x = conv_input(nx, seed, kind), *w = conv_input(nw, seed + 1, kind);
  void *y = harness_alloc(ny, 4);
  memset(y, 0xff, ny * 4);
  tessel_memref_i32_4d dx = dense4(x, s->n, s->c, s->h, s->w);
  tessel_memref_i32_4d dw = dense4(w, s->f, s->c, s->kh, s->kw);
  tessel_memref_i32_4d dy = dense4(y, s->n, s->f, s->oh, s->ow);
  fn(&dx, &dw, &dy);
  double *ref = reference(s, x, w, value_of(kind));
  char shape[96];
  shape_name(s, shape, sizeof shape);
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
  harness_free(x);
  harness_free(w);
  harness_free(y);
  harness_free(ref);
}

typedef void (*bias_conv_fn)(void *, void *, void *, void *);

/* Convolution + bias (per output channel) + ReLU, in NCHW: f16 inputs and
 * an f16 result, or f32 throughout. */
static void run_bias_relu(const conv_shape *s, bias_conv_fn fn,
                          element_kind kind, uint64_t seed) {
  size_t nx = (size_t)(s->n * s->c * s->h * s->w),
         nw = (size_t)(s->f * s->c * s->kh * s->kw);
  size_t ny = (size_t)(s->n * s->f * s->oh * s->ow);
  void *x = conv_input(nx, seed, kind), *w = conv_input(nw, seed + 1, kind);
  float *bias = random_f32((size_t)s->f, seed + 2, -1.0f, 1.0f);
  size_t out_bytes = kind == ELEM_F32 ? 4 : 2;
  void *y = harness_alloc(ny, out_bytes);
  memset(y, 0xff, ny * out_bytes);
  tessel_memref_i32_4d dx = dense4(x, s->n, s->c, s->h, s->w);
  tessel_memref_i32_4d dw = dense4(w, s->f, s->c, s->kh, s->kw);
  tessel_memref_f32_1d db = {bias, bias, 0, {s->f}, {1}};
  tessel_memref_i32_4d dy = dense4(y, s->n, s->f, s->oh, s->ow);
  fn(&dx, &dw, &db, &dy);
  double *ref = reference(s, x, w, value_of(kind));
  for (size_t i = 0; i < ny; ++i) {
    size_t channel = (i / (size_t)(s->oh * s->ow)) % (size_t)s->f;
    double v = ref[i] + (double)bias[channel];
    ref[i] = v > 0 ? v : 0;
  }
  char shape[96];
  shape_name(s, shape, sizeof shape);
  if (kind == ELEM_F32) {
    check_f32(s->name, shape, (float *)y, ref, ny, 1e-5,
              2e-6 * (double)(s->kh * s->kw * s->c));
  } else {
    double *got = alloc_f64(ny);
    for (size_t i = 0; i < ny; ++i)
      got[i] = f16_value(y, i);
    /* f16 results: 11 significant bits. */
    check_f64(s->name, shape, got, ref, ny, 2e-3, 2e-3);
    harness_free(got);
  }
  harness_free(x);
  harness_free(w);
  harness_free(bias);
  harness_free(y);
  harness_free(ref);
}

/* A 1x1 convolution accumulating onto an argument: y = acc + conv(x, w). */
static void run_accumulate(void) {
  conv_shape s = {
      "nchw1x1_accumulate", 4, 128, 14, 14, 128, 1, 1, 0, 1, 1, 14, 14};
  size_t nx = (size_t)(s.n * s.c * s.h * s.w), nw = (size_t)(s.f * s.c);
  size_t ny = (size_t)(s.n * s.f * s.oh * s.ow);
  uint16_t *x = random_input(nx, 21, 0), *w = random_input(nw, 22, 0);
  float *acc = random_f32(ny, 23, -4.0f, 4.0f);
  float *y = alloc_f32(ny);
  memset(y, 0xff, ny * 4);
  tessel_memref_i32_4d dx = dense4(x, s.n, s.c, s.h, s.w);
  tessel_memref_i32_4d dw = dense4(w, s.f, s.c, 1, 1);
  tessel_memref_i32_4d da = dense4(acc, s.n, s.f, s.oh, s.ow);
  tessel_memref_i32_4d dy = dense4(y, s.n, s.f, s.oh, s.ow);
  _mlir_ciface_nchw1x1_accumulate((void *)&dx, (void *)&dw, (void *)&da,
                                  (void *)&dy);
  double *ref = reference(&s, x, w, f16_value);
  for (size_t i = 0; i < ny; ++i)
    ref[i] += (double)acc[i];
  char shape[96];
  shape_name(&s, shape, sizeof shape);
  check_f32(s.name, shape, y, ref, ny, 1e-5, 2e-6 * (double)s.c);
  harness_free(x);
  harness_free(w);
  harness_free(acc);
  harness_free(y);
  harness_free(ref);
}

/* A residual block in NCHW: out = relu(conv3x3(pad1(relu(conv1x1(x) + b1)))
 * + x), the inner ReLU's result and the output rounded to f16 as the
 * function does. The reference rounds the inner result the same way, so
 * only the sums' order differs. */
static void run_block(void) {
  const int64_t n = 4, c = 128, h = 14, w = 14;
  size_t nx = (size_t)(n * c * h * w);
  uint16_t *x = random_input(nx, 31, 0);
  uint16_t *w1 = random_input((size_t)(c * c), 32, 0);
  uint16_t *w2 = random_input((size_t)(c * c * 9), 33, 0);
  float *b1 = random_f32((size_t)c, 34, -1.0f, 1.0f);
  uint16_t *y = (uint16_t *)harness_alloc(nx, 2);
  memset(y, 0xff, nx * 2);
  tessel_memref_i32_4d dx = dense4(x, n, c, h, w);
  tessel_memref_i32_4d dw1 = dense4(w1, c, c, 1, 1);
  tessel_memref_f32_3d db = {b1, b1, 0, {c, 1, 1}, {1, 1, 1}};
  tessel_memref_i32_4d dw2 = dense4(w2, c, c, 3, 3);
  tessel_memref_i32_4d dy = dense4(y, n, c, h, w);
  _mlir_ciface_nchw_block((void *)&dx, (void *)&dw1, &db, (void *)&dw2,
                          (void *)&dy);
  conv_shape s1 = {"nchw_block", n, c, h, w, c, 1, 1, 0, 1, 1, h, w};
  double *inner = reference(&s1, x, w1, f16_value);
  uint16_t *inner16 = (uint16_t *)harness_alloc(nx, 2);
  for (size_t i = 0; i < nx; ++i) {
    double v = inner[i] + (double)b1[(i / (size_t)(h * w)) % (size_t)c];
    inner16[i] = to_f16((float)(v > 0 ? v : 0));
  }
  conv_shape s2 = {"nchw_block", n, c, h, w, c, 3, 3, 1, 1, 1, h, w};
  double *ref = reference(&s2, inner16, w2, f16_value);
  double *got = alloc_f64(nx);
  for (size_t i = 0; i < nx; ++i) {
    double v = ref[i] + f16_value(x, i);
    ref[i] = v > 0 ? v : 0;
    got[i] = f16_value(y, i);
  }
  char shape[96];
  shape_name(&s2, shape, sizeof shape);
  /* f16 results of sums of 1152 products of magnitude <= 1. */
  check_f64("nchw_block", shape, got, ref, nx, 2e-3, 8e-3);
  harness_free(x);
  harness_free(w1);
  harness_free(w2);
  harness_free(b1);
  harness_free(y);
  harness_free(inner);
  harness_free(inner16);
  harness_free(ref);
  harness_free(got);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  conv_shape a = {"nchw3x3_pad1", 2, 32, 30, 30, 48, 3, 3, 1, 1, 1, 30, 30};
  run(&a, (conv_fn)_mlir_ciface_nchw3x3_pad1, ELEM_F16, 1);
  conv_shape b = {
      "nchw3x3_s2_bias_relu_f16", 4, 64, 31, 33, 64, 3, 3, 0, 2, 1, 15, 16};
  run_bias_relu(&b, (bias_conv_fn)_mlir_ciface_nchw3x3_s2_bias_relu_f16,
                ELEM_F16, 11);
  conv_shape d = {"nchw3x3_d2_i8", 2, 64, 20, 20, 64, 3, 3, 0, 1, 2, 16, 16};
  run(&d, (conv_fn)_mlir_ciface_nchw3x3_d2_i8, ELEM_I8, 7);
  run_accumulate();
  run_block();
  conv_shape f = {"nchw3x3_pad1_f32", 2, 32, 40, 40, 64, 3, 3, 1, 1, 1, 40, 40};
  run(&f, (conv_fn)_mlir_ciface_nchw3x3_pad1_f32, ELEM_F32, 51);
  /* ResNet-50's stem: 7x7, stride 2, padding 3. */
  conv_shape stem = {
      "nchw7x7_s2_stem_f32", 1, 3, 224, 224, 64, 7, 7, 3, 2, 1, 112, 112};
  run_bias_relu(&stem, (bias_conv_fn)_mlir_ciface_nchw7x7_s2_stem_f32, ELEM_F32,
                41);
  return harness_finish();
}

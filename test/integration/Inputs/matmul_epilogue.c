/* Harness for matmul_epilogue.mlir: products with elementwise tails applied
 * in the kernel, against a double-precision reference. */
#include "harness.h"

static void relu_scale_residual(void) {
  const int64_t m = 513, k = 257, n = 129;
  float *a = random_f32((size_t)(m * k), 1, -1.0f, 1.0f);
  float *b = random_f32((size_t)(k * n), 2, -1.0f, 1.0f);
  float *bias = random_f32((size_t)n, 3, -1.0f, 1.0f);
  float *scale = random_f32((size_t)m, 4, 0.5f, 2.0f);
  float *res = random_f32((size_t)(m * n), 5, -1.0f, 1.0f);
  float *c = alloc_f32((size_t)(m * n));
  poison_f32(c, (size_t)(m * n));
  double *ref = matmul_reference(a, b, NULL, m, k, n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double v = ref[i * n + j] + bias[j];
      ref[i * n + j] = (v > 0 ? v : 0) * scale[i] + res[i * n + j];
    }
  tessel_memref_f32_2d da, db, dres, dc;
  tessel_memref_f32_1d dbias, dscale;
  tessel_memref_f32_init_2d(&da, a, m, k);
  tessel_memref_f32_init_2d(&db, b, k, n);
  tessel_memref_f32_init_1d(&dbias, bias, n);
  tessel_memref_f32_init_1d(&dscale, scale, m);
  tessel_memref_f32_init_2d(&dres, res, m, n);
  tessel_memref_f32_init_2d(&dc, c, m, n);
  _mlir_ciface_epi_513x257x129(&da, &db, &dbias, &dscale, &dres, &dc);
  check_f32("relu_scale_residual", "513x257x129", c, ref, (size_t)(m * n), 1e-5,
            4e-6 * (double)k);
  harness_free(a); harness_free(b); harness_free(bias); harness_free(scale);
  harness_free(res); harness_free(c); harness_free(ref);
}

static void tanh_bias(void) {
  const int64_t m = 200, k = 600, n = 1000;
  float *a = random_f32((size_t)(m * k), 6, -0.1f, 0.1f);
  float *b = random_f32((size_t)(k * n), 7, -0.1f, 0.1f);
  float *bias = random_f32((size_t)n, 8, -1.0f, 1.0f);
  float *c = alloc_f32((size_t)(m * n));
  poison_f32(c, (size_t)(m * n));
  double *ref = matmul_reference(a, b, NULL, m, k, n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      ref[i * n + j] = tanh(ref[i * n + j] + bias[j]);
  tessel_memref_f32_2d da, db, dc;
  tessel_memref_f32_1d dbias;
  tessel_memref_f32_init_2d(&da, a, m, k);
  tessel_memref_f32_init_2d(&db, b, k, n);
  tessel_memref_f32_init_1d(&dbias, bias, n);
  tessel_memref_f32_init_2d(&dc, c, m, n);
  _mlir_ciface_epi_200x600x1000(&da, &db, &dbias, &dc);
  /* tanh's polynomial approximation: a few ulp. */
  check_f32("tanh_bias", "200x600x1000", c, ref, (size_t)(m * n), 1e-5, 1e-5);
  harness_free(a); harness_free(b); harness_free(bias); harness_free(c);
  harness_free(ref);
}

static void conv_bias_relu(void) {
  const int64_t pixels = 2 * 7 * 7, cin = 32, f = 48;
  float *x = random_f32((size_t)(pixels * cin), 9, -1.0f, 1.0f);
  float *w = random_f32((size_t)(cin * f), 10, -1.0f, 1.0f);
  float *bias = random_f32((size_t)f, 11, -1.0f, 1.0f);
  float *y = alloc_f32((size_t)(pixels * f));
  poison_f32(y, (size_t)(pixels * f));
  /* A 1x1 NHWC convolution is [pixels][C] x [C][F]. */
  double *ref = matmul_reference(x, w, NULL, pixels, cin, f);
  for (int64_t i = 0; i < pixels; ++i)
    for (int64_t j = 0; j < f; ++j) {
      double v = ref[i * f + j] + bias[j];
      ref[i * f + j] = v > 0 ? v : 0;
    }
  tessel_memref_f32_4d dx, dw, dy;
  tessel_memref_f32_1d dbias;
  tessel_memref_f32_init_4d(&dx, x, 2, 7, 7, cin);
  tessel_memref_f32_init_4d(&dw, w, 1, 1, cin, f);
  tessel_memref_f32_init_1d(&dbias, bias, f);
  tessel_memref_f32_init_4d(&dy, y, 2, 7, 7, f);
  _mlir_ciface_conv_epi(&dx, &dw, &dbias, &dy);
  check_f32("conv_bias_relu", "2x7x7x32->48", y, ref, (size_t)(pixels * f), 1e-5,
            4e-6 * (double)cin);
  harness_free(x); harness_free(w); harness_free(bias); harness_free(y);
  harness_free(ref);
}

/* Valid 3x3 NHWC convolution of x [n][oh+2][ow+2][c] with w [3][3][c][f]. */
static double *conv3x3_reference(const float *x, const float *w, int64_t n,
                                 int64_t oh, int64_t ow, int64_t c, int64_t f) {
  const int64_t h = oh + 2, wd = ow + 2;
  double *ref = alloc_f64((size_t)(n * oh * ow * f));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double *out = ref + ((b * oh + i) * ow + j) * f;
        for (int64_t o = 0; o < f; ++o)
          out[o] = 0;
        for (int64_t ki = 0; ki < 3; ++ki)
          for (int64_t kj = 0; kj < 3; ++kj)
            for (int64_t ci = 0; ci < c; ++ci) {
              double v = x[((b * h + i + ki) * wd + j + kj) * c + ci];
              const float *wrow = w + ((ki * 3 + kj) * c + ci) * f;
              for (int64_t o = 0; o < f; ++o)
                out[o] += v * wrow[o];
            }
      }
  return ref;
}

/* Batch 3, 40x40 output, 64 -> 96 channels: chunked (see the .mlir). */
enum { CN = 3, CH = 42, CO = 40, CC = 64, CF = 96 };

static void conv3x3_chunked_bias_relu(void) {
  float *x = random_f32((size_t)(CN * CH * CH * CC), 12, -1.0f, 1.0f);
  float *wt = random_f32((size_t)(3 * 3 * CC * CF), 13, -1.0f, 1.0f);
  float *bias = random_f32((size_t)CF, 14, -1.0f, 1.0f);
  size_t count = (size_t)(CN * CO * CO * CF);
  float *y = alloc_f32(count);
  poison_f32(y, count);
  double *ref = conv3x3_reference(x, wt, CN, CO, CO, CC, CF);
  for (size_t i = 0; i < count; ++i) {
    double v = ref[i] + bias[i % CF];
    ref[i] = v > 0 ? v : 0;
  }
  tessel_memref_f32_4d dx, dw, dy;
  tessel_memref_f32_1d dbias;
  tessel_memref_f32_init_4d(&dx, x, CN, CH, CH, CC);
  tessel_memref_f32_init_4d(&dw, wt, 3, 3, CC, CF);
  tessel_memref_f32_init_1d(&dbias, bias, CF);
  tessel_memref_f32_init_4d(&dy, y, CN, CO, CO, CF);
  _mlir_ciface_conv3x3_chunked_epi(&dx, &dw, &dbias, &dy);
  check_f32("conv3x3_chunked_bias_relu", "3x42x42x64->96", y, ref, count, 1e-5,
            4e-6 * (double)(9 * CC));
  harness_free(x); harness_free(wt); harness_free(bias); harness_free(y);
  harness_free(ref);
}

static void conv3x3_chunked_transposed_residual(void) {
  float *x = random_f32((size_t)(CN * CH * CH * CC), 15, -1.0f, 1.0f);
  float *wt = random_f32((size_t)(3 * 3 * CC * CF), 16, -1.0f, 1.0f);
  size_t count = (size_t)(CN * CO * CO * CF);
  float *res = random_f32(count, 17, -1.0f, 1.0f);
  float *y = alloc_f32(count);
  poison_f32(y, count);
  double *ref = conv3x3_reference(x, wt, CN, CO, CO, CC, CF);
  for (int64_t b = 0; b < CN; ++b)
    for (int64_t i = 0; i < CO; ++i)
      for (int64_t j = 0; j < CO; ++j)
        for (int64_t o = 0; o < CF; ++o)
          ref[((b * CO + i) * CO + j) * CF + o] +=
              res[((b * CO + j) * CO + i) * CF + o];
  tessel_memref_f32_4d dx, dw, dres, dy;
  tessel_memref_f32_init_4d(&dx, x, CN, CH, CH, CC);
  tessel_memref_f32_init_4d(&dw, wt, 3, 3, CC, CF);
  tessel_memref_f32_init_4d(&dres, res, CN, CO, CO, CF);
  tessel_memref_f32_init_4d(&dy, y, CN, CO, CO, CF);
  _mlir_ciface_conv3x3_chunked_transposed_residual(&dx, &dw, &dres, &dy);
  check_f32("conv3x3_chunked_transposed_residual", "3x42x42x64->96", y, ref,
            count, 1e-5, 4e-6 * (double)(9 * CC));
  harness_free(x); harness_free(wt); harness_free(res); harness_free(y);
  harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  relu_scale_residual();
  tanh_bias();
  conv_bias_relu();
  conv3x3_chunked_bias_relu();
  conv3x3_chunked_transposed_residual();
  return harness_finish();
}

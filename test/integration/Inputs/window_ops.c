/* Harness for window_ops.mlir: pooling and depthwise convolutions (NHWC,
 * one NCHW pooling), with stride, dilation and padding, against a
 * double-precision reference. */
#include "harness.h"

enum window_kind { WINDOW_MAX, WINDOW_SUM, WINDOW_DEPTHWISE };

/* out[n][i][j][c] = reduce over (kh, kw) of x[n][i*s+kh*d-p][j*s+kw*d-p][c]
 * (times w[kh][kw][c] for depthwise); reads outside x are the padding
 * value (-inf for max, 0 otherwise). NHWC. */
static void window_reference_nhwc(const float *x, const float *w, double *out,
                                  int64_t n, int64_t h, int64_t wd, int64_t c,
                                  int64_t k, int64_t s, int64_t d, int64_t p,
                                  int64_t oh, int64_t ow,
                                  enum window_kind kind) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t ch = 0; ch < c; ++ch) {
          double acc = kind == WINDOW_MAX ? -INFINITY : 0.0;
          for (int64_t kh = 0; kh < k; ++kh)
            for (int64_t kw = 0; kw < k; ++kw) {
              int64_t y = i * s + kh * d - p, xx = j * s + kw * d - p;
              double v = kind == WINDOW_MAX ? -INFINITY : 0.0;
              if (y >= 0 && y < h && xx >= 0 && xx < wd)
                v = x[((b * h + y) * wd + xx) * c + ch];
              if (kind == WINDOW_MAX)
                acc = v > acc ? v : acc;
              else if (kind == WINDOW_SUM)
                acc += v;
              else
                acc += v * (double)w[(kh * k + kw) * c + ch];
            }
          out[((b * oh + i) * ow + j) * c + ch] = acc;
        }
}

static void maxpool_nchw_reference(const float *x, double *out, int64_t c,
                                   int64_t h, int64_t wd, int64_t k, int64_t s,
                                   int64_t oh, int64_t ow) {
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double acc = -INFINITY;
        for (int64_t kh = 0; kh < k; ++kh)
          for (int64_t kw = 0; kw < k; ++kw) {
            double v = x[(ch * h + i * s + kh) * wd + j * s + kw];
            acc = v > acc ? v : acc;
          }
        out[(ch * oh + i) * ow + j] = acc;
      }
}

typedef void (*window_fn)(tessel_memref_f32_4d *, tessel_memref_f32_3d *,
                          tessel_memref_f32_4d *);

static void run_nhwc(const char *name, const char *shape, int64_t n,
                     int64_t h, int64_t wd, int64_t c, int64_t k, int64_t s,
                     int64_t d, int64_t p, int64_t oh, int64_t ow,
                     enum window_kind kind, uint64_t seed) {
  const size_t nx = n * h * wd * c, ny = n * oh * ow * c, nw = k * k * c;
  float *x = random_f32(nx, seed, -1.0f, 1.0f);
  float *w = random_f32(nw, seed + 1, -1.0f, 1.0f);
  float *x0 = copy_f32(x, nx);
  float *y = alloc_f32(ny);
  poison_f32(y, ny);
  double *ref = alloc_f64(ny);
  window_reference_nhwc(x, w, ref, n, h, wd, c, k, s, d, p, oh, ow, kind);
  tessel_memref_f32_4d dx, dy;
  tessel_memref_f32_3d dw;
  tessel_memref_f32_init_4d(&dx, x, n, h, wd, c);
  tessel_memref_f32_init_3d(&dw, w, k, k, c);
  tessel_memref_f32_init_4d(&dy, y, n, oh, ow, c);
  if (!strcmp(name, "maxpool_s2"))
    _mlir_ciface_maxpool_s2(&dx, &dy);
  else if (!strcmp(name, "sumpool_c13"))
    _mlir_ciface_sumpool_c13(&dx, &dy);
  else if (!strcmp(name, "depthwise_s1"))
    _mlir_ciface_depthwise_s1(&dx, &dw, &dy);
  else
    _mlir_ciface_depthwise_s2_d2(&dx, &dw, &dy);
  check_f32(name, shape, y, ref, ny, 1e-5, 1e-5);
  check_unchanged(name, x, x0, nx * sizeof(float));
  harness_free(x); harness_free(x0); harness_free(w); harness_free(y); harness_free(ref);
}

static void run_maxpool_nchw(void) {
  const int64_t c = 8, h = 15, w = 15, oh = 7, ow = 7;
  const size_t nx = c * h * w, ny = c * oh * ow;
  float *x = random_f32(nx, 71, -1.0f, 1.0f);
  float *y = alloc_f32(ny);
  poison_f32(y, ny);
  double *ref = alloc_f64(ny);
  maxpool_nchw_reference(x, ref, c, h, w, 3, 2, oh, ow);
  tessel_memref_f32_4d dx, dy;
  tessel_memref_f32_init_4d(&dx, x, 1, c, h, w);
  tessel_memref_f32_init_4d(&dy, y, 1, c, oh, ow);
  _mlir_ciface_maxpool_nchw(&dx, &dy);
  check_f32("maxpool_nchw", "1x8x15x15 k3 s2 -> 1x8x7x7", y, ref, ny, 1e-6, 1e-6);
  harness_free(x); harness_free(y); harness_free(ref);
}

/* int8 depthwise 3x3 with zero points: exact int32 results. */
static void run_depthwise_q(void) {
  const int64_t h = 10, w = 10, c = 24, oh = 8, ow = 8;
  const int32_t izp = 3, fzp = -2;
  int8_t *x = harness_alloc(h * w * c, 1), *wt = harness_alloc(9 * c, 1);
  int32_t *y = harness_alloc(oh * ow * c, 4);
  for (int64_t i = 0; i < h * w * c; ++i)
    x[i] = (int8_t)((i * 37 + 11) % 255 - 127);
  for (int64_t i = 0; i < 9 * c; ++i)
    wt[i] = (int8_t)((i * 53 + 5) % 255 - 127);
  tessel_memref_i8_4d dx;
  tessel_memref_i8_3d dw;
  tessel_memref_i32_4d dy;
  tessel_memref_i8_init_4d(&dx, x, 1, h, w, c);
  tessel_memref_i8_init_3d(&dw, wt, 3, 3, c);
  tessel_memref_i32_init_4d(&dy, y, 1, oh, ow, c);
  _mlir_ciface_depthwise_q(&dx, &dw, izp, fzp, &dy);
  if (g_corrupt)
    y[oh * ow * c / 2] += 1;
  size_t bad = 0;
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j)
      for (int64_t ch = 0; ch < c; ++ch) {
        int32_t acc = 0;
        for (int64_t kh = 0; kh < 3; ++kh)
          for (int64_t kw = 0; kw < 3; ++kw)
            acc += ((int32_t)x[((i + kh) * w + j + kw) * c + ch] - izp) *
                   ((int32_t)wt[(kh * 3 + kw) * c + ch] - fzp);
        bad += y[(i * ow + j) * c + ch] != acc;
      }
  ++g_checks;
  if (bad) {
    ++g_failures;
    printf("FAIL depthwise_q: %zu of %lld elements differ\n", bad,
           (long long)(oh * ow * c));
  } else {
    printf("PASS depthwise_q 1x10x10x24 i8 * 3x3x24 i8, zero points 3 / -2 -> i32 (exact)\n");
  }
  harness_free(x); harness_free(wt); harness_free(y);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_nhwc("maxpool_s2", "2x20x20x32 k3 s2 p1 -> 2x10x10x32", 2, 20, 20, 32, 3,
           2, 1, 1, 10, 10, WINDOW_MAX, 51);
  run_nhwc("sumpool_c13", "1x16x16x13 k2 s2 -> 1x8x8x13", 1, 16, 16, 13, 2, 2,
           1, 0, 8, 8, WINDOW_SUM, 55);
  run_maxpool_nchw();
  run_nhwc("depthwise_s1", "2x14x14x48 * 3x3x48 s1 p1 -> 2x14x14x48", 2, 14,
           14, 48, 3, 1, 1, 1, 14, 14, WINDOW_DEPTHWISE, 61);
  run_nhwc("depthwise_s2_d2", "1x17x17x40 * 3x3x40 s2 d2 -> 1x7x7x40", 1, 17,
           17, 40, 3, 2, 2, 0, 7, 7, WINDOW_DEPTHWISE, 65);
  run_depthwise_q();
  return harness_finish();
}

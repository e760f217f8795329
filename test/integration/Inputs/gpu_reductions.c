/* Harness for gpu_reductions.mlir: each reduction against a double-precision
 * (or exact integer) reference. Results are 0-d buffers the caller passes,
 * poisoned first, so a kernel that does not write them fails. */
#include "harness.h"

#include <float.h>

static void run_sum_long(void) {
  const int64_t n = 100003;
  float *x = random_f32((size_t)n, 71, -1.0f, 1.0f);
  float *x0 = copy_f32(x, (size_t)n);
  float *s = alloc_f32(1);
  poison_f32(s, 1);
  double ref = 0.0, magnitude = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    ref += (double)x[i];
    magnitude += fabs((double)x[i]);
  }
  tessel_memref_f32_1d dx;
  tessel_memref_f32_init_1d(&dx, x, n);
  tessel_memref_f32_0d ds = {s, s, 0};
  _mlir_ciface_sum_long(&dx, &ds);
  /* f32 partial sums: error within a few ulps of the sum of magnitudes. */
  check_scalar("sum_long", "100003->scalar", (double)s[0], ref, 0.0,
               1e-6 * magnitude);
  check_unchanged("sum_long input", x, x0, (size_t)n * sizeof(float));
  harness_free(x); harness_free(x0); harness_free(s);
}

static void run_max_i32(void) {
  const int64_t n = 70001;
  int32_t *x = (int32_t *)harness_alloc((size_t)n, sizeof(int32_t));
  int32_t *m = (int32_t *)harness_alloc(1, sizeof(int32_t));
  uint64_t state = 72;
  int32_t ref = INT32_MIN;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (int32_t)(state >> 33) - (1 << 30);
    if (x[i] > ref)
      ref = x[i];
  }
  m[0] = 12345;
  tessel_memref_i32_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_i32_0d dm = {m, m, 0};
  _mlir_ciface_max_i32(&dx, &dm);
  check_scalar("max_i32", "70001->scalar", (double)m[0], (double)ref, 0.0, 0.0);
  harness_free(x); harness_free(m);
}

static void run_sum_squares_and_max(void) {
  const int64_t rows = 37, cols = 45, n = rows * cols;
  float *x = random_f32((size_t)n, 73, -2.0f, 0.6f);
  float *s = alloc_f32(1), *m = alloc_f32(1);
  poison_f32(s, 1);
  poison_f32(m, 1);
  double sum = 1.5, top = 0.25;
  for (int64_t i = 0; i < n; ++i) {
    sum += (double)x[i] * (double)x[i];
    if ((double)x[i] > top)
      top = (double)x[i];
  }
  tessel_memref_f32_2d dx;
  tessel_memref_f32_init_2d(&dx, x, rows, cols);
  tessel_memref_f32_0d ds = {s, s, 0}, dm = {m, m, 0};
  _mlir_ciface_sum_squares_and_max(&dx, &ds, &dm);
  check_scalar("sum_squares", "37x45->scalar", (double)s[0], sum, 1e-6, 0.0);
  check_scalar("max", "37x45->scalar", (double)m[0], top, 0.0, 0.0);
  harness_free(x); harness_free(s); harness_free(m);
}

static void run_sum_f64(void) {
  const int64_t n = 1000;
  double *x = alloc_f64((size_t)n);
  double *s = alloc_f64(1);
  double ref = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = 1.0 / (double)(i + 1);
    ref += x[i];
  }
  s[0] = -1.0;
  tessel_memref_f64_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_f64_0d ds = {s, s, 0};
  _mlir_ciface_sum_f64(&dx, &ds);
  check_scalar("sum_f64", "1000->scalar", s[0], ref, 1e-14, 0.0);
  harness_free(x); harness_free(s);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_sum_long();
  run_max_i32();
  run_sum_squares_and_max();
  run_sum_f64();
  return harness_finish();
}

/* Harness for elementwise.mlir: tanh / exp in f32 (polynomial) and f64. */
#include "harness.h"

static void run_tanh_exp(void) {
  const int64_t m = 7, n = 130;
  const size_t count = (size_t)(m * n);
  float *x = random_f32(count, 51, -6.0f, 6.0f);
  float *y = alloc_f32(count);
  poison_f32(y, count);
  double *ref = alloc_f64(count);
  for (size_t i = 0; i < count; ++i) {
    double v = (double)x[i];
    ref[i] = tanh(v) + exp(-0.5 * v * v);
  }
  tessel_memref_f32_2d dx, dy;
  tessel_memref_f32_init_2d(&dx, x, m, n);
  tessel_memref_f32_init_2d(&dy, y, m, n);
  _mlir_ciface_tanh_exp(&dx, &dy);
  check_f32("tanh_exp", "7x130", y, ref, count, 1e-5, 1e-6);
  harness_free(x); harness_free(y); harness_free(ref);
}

static void run_tanh_and_exp(void) {
  const int64_t n = 1000;
  float *x = random_f32((size_t)n, 52, -90.0f, 90.0f);
  x[0] = 0.0f; x[1] = -0.0f; x[2] = 1e-7f; x[3] = -1e-7f; x[4] = 20.0f;
  x[5] = -20.0f; x[6] = 88.0f; x[7] = -87.0f; x[8] = 0.5f; x[9] = -0.5f;
  float *t = alloc_f32((size_t)n), *e = alloc_f32((size_t)n);
  poison_f32(t, (size_t)n);
  poison_f32(e, (size_t)n);
  double *rt = alloc_f64((size_t)n), *re = alloc_f64((size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    rt[i] = tanh((double)x[i]);
    /* Rounded to float so that results beyond FLT_MAX are +inf, as they
     * must be in f32. */
    re[i] = (double)(float)exp((double)x[i]);
  }
  tessel_memref_f32_1d dx, dt, de;
  tessel_memref_f32_init_1d(&dx, x, n);
  tessel_memref_f32_init_1d(&dt, t, n);
  tessel_memref_f32_init_1d(&de, e, n);
  _mlir_ciface_tanh_and_exp(&dx, &dt, &de);
  check_f32("tanh", "1000 in [-90,90]", t, rt, (size_t)n, 1e-5, 1e-6);
  /* exp's relative error grows with |x| after range reduction; allow a few
   * float ulps more. Underflowed results are compared absolutely. */
  check_f32("exp", "1000 in [-90,90]", e, re, (size_t)n, 5e-6, 1e-37);
  harness_free(x); harness_free(t); harness_free(e); harness_free(rt); harness_free(re);
}

static void run_f64(void) {
  const int64_t n = 64;
  double *x = alloc_f64((size_t)n), *y = alloc_f64((size_t)n), *ref = alloc_f64((size_t)n);
  tessel_fill_random_f64(x, (size_t)n, 53);
  for (int64_t i = 0; i < n; ++i) {
    x[i] *= 5.0;
    y[i] = NAN;
    ref[i] = tanh(x[i]) * exp(x[i]);
  }
  tessel_memref_f64_1d dx, dy;
  tessel_memref_f64_init_1d(&dx, x, n);
  tessel_memref_f64_init_1d(&dy, y, n);
  _mlir_ciface_tanh_exp_f64(&dx, &dy);
  check_f64("tanh_exp_f64", "64", y, ref, (size_t)n, 1e-14, 1e-300);
  harness_free(x); harness_free(y); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_tanh_exp();
  run_tanh_and_exp();
  run_f64();
  return harness_finish();
}

/* Harness for matmul_tensor.mlir: C = A * B on tensors, several shapes. */
#include "harness.h"

typedef void (*matmul_f32_fn)(tessel_memref_f32_2d *, tessel_memref_f32_2d *,
                              tessel_memref_f32_2d *);

static void run_f32(const char *name, matmul_f32_fn fn, int64_t m, int64_t k,
                    int64_t n, uint64_t seed) {
  float *a = random_f32((size_t)(m * k), seed, -1.0f, 1.0f);
  float *b = random_f32((size_t)(k * n), seed + 1, -1.0f, 1.0f);
  float *a0 = copy_f32(a, (size_t)(m * k)), *b0 = copy_f32(b, (size_t)(k * n));
  float *c = alloc_f32((size_t)(m * n));
  poison_f32(c, (size_t)(m * n));
  double *ref = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += (double)a[i * k + p] * (double)b[p * n + j];
      ref[i * n + j] = s;
    }

  tessel_memref_f32_2d da, db, dc;
  tessel_memref_f32_init_2d(&da, a, m, k);
  tessel_memref_f32_init_2d(&db, b, k, n);
  tessel_memref_f32_init_2d(&dc, c, m, n);
  fn(&da, &db, &dc);

  char shape[64];
  snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)m, (long)k, (long)n);
  /* f32 accumulation over k terms of magnitude <= 1. */
  check_f32(name, shape, c, ref, (size_t)(m * n), 1e-5, 2e-6 * (double)k);
  check_unchanged(name, a, a0, (size_t)(m * k) * sizeof(float));
  check_unchanged(name, b, b0, (size_t)(k * n) * sizeof(float));
  harness_free(a); harness_free(b); harness_free(a0); harness_free(b0);
  harness_free(c); harness_free(ref);
}

static void run_f64(void) {
  const int64_t m = 5, k = 6, n = 7;
  double *a = alloc_f64(m * k), *b = alloc_f64(k * n), *c = alloc_f64(m * n);
  double *ref = alloc_f64(m * n);
  tessel_fill_random_f64(a, m * k, 11);
  tessel_fill_random_f64(b, k * n, 12);
  for (int64_t i = 0; i < m * n; ++i)
    c[i] = NAN;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += a[i * k + p] * b[p * n + j];
      ref[i * n + j] = s;
    }
  tessel_memref_f64_2d da, db, dc;
  tessel_memref_f64_init_2d(&da, a, m, k);
  tessel_memref_f64_init_2d(&db, b, k, n);
  tessel_memref_f64_init_2d(&dc, c, m, n);
  _mlir_ciface_matmul_f64_5x6x7(&da, &db, &dc);
  check_f64("matmul_f64", "5x6x7", c, ref, m * n, 1e-12, 1e-12);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_f32("matmul", _mlir_ciface_matmul_64x64x64, 64, 64, 64, 1);
  run_f32("matmul", _mlir_ciface_matmul_37x53x29, 37, 53, 29, 3);
  run_f32("matmul", _mlir_ciface_matmul_1x7x3, 1, 7, 3, 5);
  run_f32("matmul", _mlir_ciface_matmul_128x200x96, 128, 200, 96, 7);
  run_f64();
  return harness_finish();
}

/* Harness for matmul_memref.mlir: destination-passing style on memrefs. */
#include "harness.h"

static void run_acc(void) {
  const int64_t m = 33, k = 17, n = 45;
  float *a = random_f32(m * k, 81, -1.0f, 1.0f), *b = random_f32(k * n, 82, -1.0f, 1.0f);
  float *c = random_f32(m * n, 83, -1.0f, 1.0f); /* accumulated into */
  double *ref = alloc_f64(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = (double)c[i * n + j];
      for (int64_t p = 0; p < k; ++p)
        s += (double)a[i * k + p] * (double)b[p * n + j];
      ref[i * n + j] = s;
    }
  tessel_memref_f32_2d da, db, dc;
  tessel_memref_f32_init_2d(&da, a, m, k);
  tessel_memref_f32_init_2d(&db, b, k, n);
  tessel_memref_f32_init_2d(&dc, c, m, n);
  _mlir_ciface_matmul_acc(&da, &db, &dc);
  check_f32("matmul_memref_acc", "33x17x45", c, ref, m * n, 1e-5, 4e-5);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
}

static void run_gemm_sum(void) {
  const int64_t m = 8, k = 5, n = 6;
  const float alpha = 0.75f;
  float *a = random_f32(m * k, 84, -1.0f, 1.0f), *b = random_f32(k * n, 85, -1.0f, 1.0f);
  float *c = random_f32(m * n, 86, -1.0f, 1.0f);
  float *d = alloc_f32(m * n);
  poison_f32(d, m * n);
  double *ref = alloc_f64(m * n);
  double total = 0.0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += (double)a[i * k + p] * (double)b[p * n + j];
      ref[i * n + j] = (double)alpha * s + (double)c[i * n + j];
      total += ref[i * n + j];
    }
  tessel_memref_f32_2d da, db, dc, dd;
  tessel_memref_f32_init_2d(&da, a, m, k);
  tessel_memref_f32_init_2d(&db, b, k, n);
  tessel_memref_f32_init_2d(&dc, c, m, n);
  tessel_memref_f32_init_2d(&dd, d, m, n);
  float sum = _mlir_ciface_gemm_sum(alpha, &da, &db, &dc, &dd);
  check_f32("gemm_memref", "8x5x6", d, ref, m * n, 1e-5, 1e-5);
  check_scalar("gemm_memref_sum", "8x6->scalar", (double)sum, total, 1e-5, 1e-4);
  harness_free(a); harness_free(b); harness_free(c); harness_free(d); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_acc();
  run_gemm_sum();
  return harness_finish();
}

/* Harness for reduction.mlir: row sum, total (scalar result), row softmax. */
#include "harness.h"

static void run_row_sum_and_total(void) {
  const int64_t m = 19, n = 77;
  float *x = random_f32((size_t)(m * n), 61, -1.0f, 1.0f);
  float *s = alloc_f32((size_t)m);
  poison_f32(s, (size_t)m);
  double *ref = alloc_f64((size_t)m);
  double total = 0.0;
  for (int64_t i = 0; i < m; ++i) {
    double acc = 0.0;
    for (int64_t j = 0; j < n; ++j)
      acc += (double)x[i * n + j];
    ref[i] = acc;
    total += acc;
  }
  tessel_memref_f32_2d dx;
  tessel_memref_f32_1d ds;
  tessel_memref_f32_init_2d(&dx, x, m, n);
  tessel_memref_f32_init_1d(&ds, s, m);
  _mlir_ciface_row_sum(&dx, &ds);
  check_f32("row_sum", "19x77->19", s, ref, (size_t)m, 1e-5, 1e-5);
  float t = _mlir_ciface_total(&dx);
  check_scalar("total", "19x77->scalar", (double)t, total, 1e-5, 1e-4);
  harness_free(x); harness_free(s); harness_free(ref);
}

static void run_softmax(void) {
  check_softmax("16x100", 16, 100, 62, _mlir_ciface_softmax);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_row_sum_and_total();
  run_softmax();
  return harness_finish();
}

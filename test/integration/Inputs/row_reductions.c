/* Harness for row_reductions.mlir: softmax, layernorm and a row sum against
 * double-precision references. */
#include "harness.h"

/* Each kernel runs twice: on a 64-byte-aligned output and on one a float
 * past it (the unaligned fallback of streaming stores). */
static void run_softmax(void) {
  check_softmax_at("64x1024", 64, 1024, 71, _mlir_ciface_softmax, 0);
  check_softmax_at("64x1024 (output misaligned)", 64, 1024, 71,
                   _mlir_ciface_softmax, 1);
}

static void run_layernorm(size_t out_offset, const char *shape) {
  const int64_t m = 32, n = 768;
  const size_t count = (size_t)(m * n);
  float *x = random_f32(count, 72, -3.0f, 5.0f);
  float *gamma = random_f32((size_t)n, 73, 0.5f, 1.5f);
  float *beta = random_f32((size_t)n, 74, -0.5f, 0.5f);
  float *y_alloc = alloc_f32(count + out_offset);
  float *y = y_alloc + out_offset;
  poison_f32(y, count);
  double *ref = alloc_f64(count);
  for (int64_t i = 0; i < m; ++i) {
    double mean = 0.0, var = 0.0;
    for (int64_t j = 0; j < n; ++j)
      mean += x[i * n + j];
    mean /= (double)n;
    for (int64_t j = 0; j < n; ++j)
      var += ((double)x[i * n + j] - mean) * ((double)x[i * n + j] - mean);
    var /= (double)n;
    for (int64_t j = 0; j < n; ++j)
      ref[i * n + j] = ((double)x[i * n + j] - mean) / sqrt(var + 1e-5) *
                           gamma[j] + beta[j];
  }
  tessel_memref_f32_2d dx, dy;
  tessel_memref_f32_1d dg, db;
  tessel_memref_f32_init_2d(&dx, x, m, n);
  tessel_memref_f32_init_1d(&dg, gamma, n);
  tessel_memref_f32_init_1d(&db, beta, n);
  tessel_memref_f32_init_2d(&dy, y, m, n);
  _mlir_ciface_layernorm(&dx, &dg, &db, &dy);
  check_f32("layernorm", shape, y, ref, count, 1e-5, 1e-5);
  harness_free(x); harness_free(gamma); harness_free(beta);
  harness_free(y_alloc);
  harness_free(ref);
}

static void run_row_sum_odd(void) {
  const int64_t m = 8, n = 1000;
  float *x = random_f32((size_t)(m * n), 75, -1.0f, 1.0f);
  float *s = alloc_f32((size_t)m);
  poison_f32(s, (size_t)m);
  double *ref = alloc_f64((size_t)m);
  for (int64_t i = 0; i < m; ++i) {
    ref[i] = 0.0;
    for (int64_t j = 0; j < n; ++j)
      ref[i] += x[i * n + j];
  }
  tessel_memref_f32_2d dx;
  tessel_memref_f32_1d ds;
  tessel_memref_f32_init_2d(&dx, x, m, n);
  tessel_memref_f32_init_1d(&ds, s, m);
  _mlir_ciface_row_sum_odd(&dx, &ds);
  check_f32("row_sum_odd", "8x1000->8", s, ref, (size_t)m, 1e-5, 1e-4);
  harness_free(x); harness_free(s); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_softmax();
  run_layernorm(0, "32x768");
  run_layernorm(1, "32x768 (output misaligned)");
  run_row_sum_odd();
  return harness_finish();
}

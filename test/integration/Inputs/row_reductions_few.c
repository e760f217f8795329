/* Harness for row_reductions_few.mlir: few outputs over long reductions,
 * against double-precision sums (f32) and exact f16 results (small
 * integers, whose partial sums f16 holds exactly). Outputs are poisoned
 * first, so outputs a kernel does not write fail. */
#include "harness.h"
#include "row_max_sum_f16.h"

enum { LONG_ROWS = 4, LONG_COLS = 200003, F16_ROWS = 16, F16_COLS = 3001 };

static void run_row_sum_long(void) {
  const size_t n = (size_t)LONG_ROWS * LONG_COLS;
  float *x = random_f32(n, 101, -1.0f, 1.0f);
  float *sum = alloc_f32(LONG_ROWS);
  double ref[LONG_ROWS], magnitude = 0.0;
  for (int i = 0; i < LONG_ROWS; ++i) {
    double s = 0.0, m = 0.0;
    for (size_t j = 0; j < LONG_COLS; ++j) {
      s += (double)x[i * (size_t)LONG_COLS + j];
      m += fabs((double)x[i * (size_t)LONG_COLS + j]);
    }
    ref[i] = s;
    magnitude = fmax(magnitude, m);
  }
  poison_f32(sum, LONG_ROWS);
  tessel_memref_f32_2d dx;
  tessel_memref_f32_init_2d(&dx, x, LONG_ROWS, LONG_COLS);
  tessel_memref_f32_1d dsum;
  tessel_memref_f32_init_1d(&dsum, sum, LONG_ROWS);
  _mlir_ciface_row_sum_long(&dx, &dsum);
  /* f32 partial sums of 200003 terms: within 1e-6 of the magnitudes. */
  check_f32("row_sum_long", "4x200003", sum, ref, LONG_ROWS, 0.0,
            1e-6 * magnitude);
  harness_free(x);
  harness_free(sum);
}

static void run_few_rows_max_sum_f16(void) {
  check_row_max_sum_f16("16x3001", _mlir_ciface_few_rows_max_sum_f16, F16_ROWS,
                        F16_COLS, 102);
}

static void run_middle_sum(void) {
  enum { A = 2, R = 5000, B = 3 };
  float *x = random_f32((size_t)A * R * B, 103, -1.0f, 1.0f);
  float *sum = alloc_f32(A * B);
  double ref[A * B];
  for (int a = 0; a < A; ++a)
    for (int b = 0; b < B; ++b) {
      double s = 0.0;
      for (int r = 0; r < R; ++r)
        s += (double)x[((size_t)a * R + r) * B + b];
      ref[a * B + b] = s;
    }
  poison_f32(sum, A * B);
  tessel_memref_f32_3d dx = {x, x, 0, {A, R, B}, {(int64_t)R * B, B, 1}};
  tessel_memref_f32_2d dsum;
  tessel_memref_f32_init_2d(&dsum, sum, A, B);
  _mlir_ciface_middle_sum(&dx, &dsum);
  check_f32("middle_sum", "2x5000x3->2x3", sum, ref, A * B, 0.0, 1e-6 * R);
  harness_free(x);
  harness_free(sum);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_row_sum_long();
  run_few_rows_max_sum_f16();
  run_middle_sum();
  return harness_finish();
}

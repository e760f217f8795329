/* Harness for row_reductions_widths.mlir: f16 row maxima and sums, exact
 * (integer values whose partial sums stay inside f16's exact integers),
 * and f64 row sums against sums in long double. Outputs are poisoned
 * first, so rows a kernel does not write fail. */
#include "harness.h"
#include "row_max_sum_f16.h"

enum { F16_ROWS = 256, F16_COLS = 3001, F64_ROWS = 512, F64_COLS = 500 };

static void run_f16(void) {
  check_row_max_sum_f16("256x3001", _mlir_ciface_row_max_sum_f16, F16_ROWS,
                        F16_COLS, 91);
}

static void run_f64(void) {
  const size_t n = (size_t)F64_ROWS * F64_COLS;
  double *x = alloc_f64(n);
  double *sum = alloc_f64(F64_ROWS);
  double ref[F64_ROWS], magnitude[F64_ROWS];
  uint64_t state = 92;
  for (int i = 0; i < F64_ROWS; ++i) {
    long double s = 0.0L, m = 0.0L;
    for (int j = 0; j < F64_COLS; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      /* 53 random bits in [-1, 1), so the low half of each value matters. */
      double v = (double)(int64_t)(state >> 11) / 4503599627370496.0 - 1.0;
      x[(size_t)i * F64_COLS + j] = v;
      s += v;
      m += fabs(v);
    }
    ref[i] = (double)s;
    magnitude[i] = (double)m;
    sum[i] = NAN;
  }
  tessel_memref_f64_2d dx = {x, x, 0, {F64_ROWS, F64_COLS}, {F64_COLS, 1}};
  tessel_memref_f64_1d dsum = {sum, sum, 0, {F64_ROWS}, {1}};
  _mlir_ciface_row_sum_f64(&dx, &dsum);
  /* f64 rounding: a few ulps of the row's sum of magnitudes. */
  double worst = 0.0;
  for (int i = 0; i < F64_ROWS; ++i)
    worst = fmax(worst, magnitude[i]);
  check_f64("row_sum_f64", "512x500", sum, ref, F64_ROWS, 0.0, 1e-13 * worst);
  harness_free(x);
  harness_free(sum);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_f16();
  run_f64();
  return harness_finish();
}

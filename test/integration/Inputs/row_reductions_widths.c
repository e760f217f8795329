/* Harness for row_reductions_widths.mlir: f16 row maxima and sums, exact
 * (integer values whose partial sums stay inside f16's exact integers),
 * and f64 row sums against sums in long double. Outputs are poisoned
 * first, so rows a kernel does not write fail. */
#include "harness.h"
#include "tensor_core_inputs.h"

enum { F16_ROWS = 256, F16_COLS = 3001, F64_ROWS = 512, F64_COLS = 500 };

/* Integers in [-4, 4]: a sum of k of them is typically about 2.6 * sqrt(k)
 * (142 for a whole row), far inside the integers f16 holds exactly (up to
 * 2048), so the sums are exact in any order of additions. The rows' totals
 * are checked to stay below 1024 here. */
static void run_f16(void) {
  const size_t n = (size_t)F16_ROWS * F16_COLS;
  uint16_t *x = (uint16_t *)harness_alloc(n, sizeof(uint16_t));
  uint16_t *top = (uint16_t *)harness_alloc(F16_ROWS, sizeof(uint16_t));
  uint16_t *sum = (uint16_t *)harness_alloc(F16_ROWS, sizeof(uint16_t));
  double ref_top[F16_ROWS], ref_sum[F16_ROWS], got_top[F16_ROWS],
      got_sum[F16_ROWS];
  uint64_t state = 91;
  for (int i = 0; i < F16_ROWS; ++i) {
    ref_top[i] = -INFINITY;
    ref_sum[i] = 0.0;
    for (int j = 0; j < F16_COLS; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      /* Every third row holds [-3, 3] only, so its maximum differs from
       * its neighbours' and a max read from the wrong row shows. */
      int v = i % 3 == 0 ? (int)((state >> 33) % 7) - 3
                         : (int)((state >> 33) % 9) - 4;
      x[(size_t)i * F16_COLS + j] = to_f16((float)v);
      ref_sum[i] += v;
      if (v > ref_top[i])
        ref_top[i] = v;
    }
    if (fabs(ref_sum[i]) >= 1024.0) {
      printf("FAIL row_max_sum_f16: row %d's sum %g leaves the test's exact "
             "range\n",
             i, ref_sum[i]);
      ++g_failures;
    }
  }
  for (int i = 0; i < F16_ROWS; ++i)
    top[i] = sum[i] = 0x7e00; /* NaN */
  tessel_memref_f16_2d dx = {x, x, 0, {F16_ROWS, F16_COLS}, {F16_COLS, 1}};
  tessel_memref_f16_1d dtop = {top, top, 0, {F16_ROWS}, {1}};
  tessel_memref_f16_1d dsum = {sum, sum, 0, {F16_ROWS}, {1}};
  _mlir_ciface_row_max_sum_f16(&dx, &dtop, &dsum);
  for (int i = 0; i < F16_ROWS; ++i) {
    got_top[i] = f16_value(top, (size_t)i);
    got_sum[i] = f16_value(sum, (size_t)i);
  }
  check_f64("row_max_f16", "256x3001", got_top, ref_top, F16_ROWS, 0.0, 0.0);
  check_f64("row_sum_f16", "256x3001", got_sum, ref_sum, F16_ROWS, 0.0, 0.0);
  harness_free(x);
  harness_free(top);
  harness_free(sum);
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

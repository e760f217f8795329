/* The f16 row max-and-sum check shared by row_reductions_widths.c and
 * row_reductions_few.c: `fn` is a compiled
 * func @...(tensor<ROWSxCOLSxf16>) -> (tensor<ROWSxf16>, tensor<ROWSxf16>)
 * giving each row's maximum and sum. Inputs are small integers, so every
 * partial sum is an exact f16 integer in any order of additions and the
 * results must match exactly. Include after the generated header. */
#ifndef TESSEL_TEST_ROW_MAX_SUM_F16_H
#define TESSEL_TEST_ROW_MAX_SUM_F16_H

#include "harness.h"
#include "tensor_core_inputs.h"

typedef void (*row_max_sum_f16_fn)(tessel_memref_f16_2d *,
                                   tessel_memref_f16_1d *,
                                   tessel_memref_f16_1d *);

static __attribute__((unused)) void check_row_max_sum_f16(const char *shape,
                                                          row_max_sum_f16_fn fn,
                                                          int rows, int cols,
                                                          uint64_t seed) {
  const size_t n = (size_t)rows * cols;
  uint16_t *x = (uint16_t *)harness_alloc(n, sizeof(uint16_t));
  uint16_t *top = (uint16_t *)harness_alloc((size_t)rows, sizeof(uint16_t));
  uint16_t *sum = (uint16_t *)harness_alloc((size_t)rows, sizeof(uint16_t));
  double *ref_top = alloc_f64((size_t)rows), *ref_sum = alloc_f64((size_t)rows);
  double *got_top = alloc_f64((size_t)rows), *got_sum = alloc_f64((size_t)rows);
  uint64_t state = seed;
  for (int i = 0; i < rows; ++i) {
    ref_top[i] = -INFINITY;
    ref_sum[i] = 0.0;
    for (int j = 0; j < cols; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      /* Integers in [-4, 4]; every third row holds [-3, 3] only, so its
       * maximum differs from its neighbours' and a max read from the wrong
       * row shows. A sum of k of them is typically about 2.6 * sqrt(k). */
      int v = i % 3 == 0 ? (int)((state >> 33) % 7) - 3
                         : (int)((state >> 33) % 9) - 4;
      x[(size_t)i * cols + j] = to_f16((float)v);
      ref_sum[i] += v;
      if (v > ref_top[i])
        ref_top[i] = v;
    }
    /* f16 holds integers exactly up to 2048. */
    if (fabs(ref_sum[i]) >= 1024.0) {
      printf("FAIL row_max_sum_f16: row %d's sum %g leaves the test's exact "
             "range\n",
             i, ref_sum[i]);
      ++g_failures;
    }
    top[i] = sum[i] = 0x7e00; /* NaN */
  }
  tessel_memref_f16_2d dx = {x, x, 0, {rows, cols}, {cols, 1}};
  tessel_memref_f16_1d dtop = {top, top, 0, {rows}, {1}};
  tessel_memref_f16_1d dsum = {sum, sum, 0, {rows}, {1}};
  fn(&dx, &dtop, &dsum);
  for (int i = 0; i < rows; ++i) {
    got_top[i] = f16_value(top, (size_t)i);
    got_sum[i] = f16_value(sum, (size_t)i);
  }
  check_f64("row_max_f16", shape, got_top, ref_top, (size_t)rows, 0.0, 0.0);
  check_f64("row_sum_f16", shape, got_sum, ref_sum, (size_t)rows, 0.0, 0.0);
  harness_free(x);
  harness_free(top);
  harness_free(sum);
  harness_free(ref_top);
  harness_free(ref_sum);
  harness_free(got_top);
  harness_free(got_sum);
}

#endif /* TESSEL_TEST_ROW_MAX_SUM_F16_H */

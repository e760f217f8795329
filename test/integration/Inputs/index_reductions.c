/* Harness for index_reductions.mlir: exact results (integer sums; the
 * argmax's maximum and its first column). */
#include "harness.h"

static void run_row_index_sum(void) {
  enum { ROWS = 2, COLS = 10000 };
  int32_t *x = (int32_t *)harness_alloc(ROWS * COLS, sizeof(int32_t));
  int32_t *sum = (int32_t *)harness_alloc(ROWS, sizeof(int32_t));
  double ref[ROWS], got[ROWS];
  for (int i = 0; i < ROWS; ++i) {
    ref[i] = 0.0;
    for (int r = 0; r < COLS; ++r) {
      x[i * COLS + r] = (i + 1) * (r % 7) - 3;
      ref[i] += x[i * COLS + r] + r;
    }
    sum[i] = -1;
  }
  tessel_memref_i32_2d dx = {x, x, 0, {ROWS, COLS}, {COLS, 1}};
  tessel_memref_i32_1d dsum = {sum, sum, 0, {ROWS}, {1}};
  _mlir_ciface_row_index_sum(&dx, &dsum);
  for (int i = 0; i < ROWS; ++i)
    got[i] = sum[i];
  check_f64("row_index_sum", "2x10000", got, ref, ROWS, 0.0, 0.0);
  harness_free(x);
  harness_free(sum);
}

/* Each row's maximum sits at a column of its own, some of them twice (the
 * first one counts), some in the last 16 columns. */
static void run_row_argmax(void) {
  enum { ROWS = 8, COLS = 4096 };
  float *x = random_f32(ROWS * COLS, 111, -1.0f, 1.0f);
  float *top = alloc_f32(ROWS);
  int32_t *at = (int32_t *)harness_alloc(ROWS, sizeof(int32_t));
  static const int columns[ROWS] = {0, 17, 1000, 2047, 2048, 4000, 4090, 4095};
  double ref_top[ROWS], ref_at[ROWS], got_at[ROWS];
  for (int i = 0; i < ROWS; ++i) {
    x[i * COLS + columns[i]] = 2.0f + (float)i;
    if (i % 2 == 1 && columns[i] + 1 < COLS)
      x[i * COLS + columns[i] + 1] = 2.0f + (float)i; /* a tie after it */
    ref_top[i] = 2.0 + i;
    ref_at[i] = columns[i];
    at[i] = -1;
  }
  poison_f32(top, ROWS);
  tessel_memref_f32_2d dx;
  tessel_memref_f32_init_2d(&dx, x, ROWS, COLS);
  tessel_memref_f32_1d dtop;
  tessel_memref_f32_init_1d(&dtop, top, ROWS);
  tessel_memref_i32_1d dat = {at, at, 0, {ROWS}, {1}};
  _mlir_ciface_row_argmax(&dx, &dtop, &dat);
  for (int i = 0; i < ROWS; ++i)
    got_at[i] = at[i];
  check_f32("row_argmax max", "8x4096", top, ref_top, ROWS, 0.0, 0.0);
  check_f64("row_argmax index", "8x4096", got_at, ref_at, ROWS, 0.0, 0.0);
  harness_free(x);
  harness_free(top);
  harness_free(at);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_row_index_sum();
  run_row_argmax();
  return harness_finish();
}

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

/* Values (i * 7 + r * 13) mod 101 - 50: each row's minimum, -50, occurs
 * about 7 times; the first one counts. */
static void run_row_argmin_i64(void) {
  enum { ROWS = 300, COLS = 777 };
  int32_t *x = (int32_t *)harness_alloc(ROWS * COLS, sizeof(int32_t));
  int32_t *low = (int32_t *)harness_alloc(ROWS, sizeof(int32_t));
  int64_t *at = (int64_t *)harness_alloc(ROWS, sizeof(int64_t));
  double ref_low[ROWS], ref_at[ROWS], got_low[ROWS], got_at[ROWS];
  for (int i = 0; i < ROWS; ++i) {
    int32_t m = 2147483647;
    int64_t where = 0;
    for (int r = 0; r < COLS; ++r) {
      int32_t v = (i * 7 + r * 13) % 101 - 50;
      x[i * COLS + r] = v;
      if (m > v) {
        m = v;
        where = r;
      }
    }
    ref_low[i] = m;
    ref_at[i] = (double)where;
    low[i] = 12345;
    at[i] = -7;
  }
  tessel_memref_i32_2d dx = {x, x, 0, {ROWS, COLS}, {COLS, 1}};
  tessel_memref_i32_1d dlow = {low, low, 0, {ROWS}, {1}};
  tessel_memref_i64_1d dat = {at, at, 0, {ROWS}, {1}};
  _mlir_ciface_row_argmin_i64(&dx, &dlow, &dat);
  for (int i = 0; i < ROWS; ++i) {
    got_low[i] = low[i];
    got_at[i] = (double)at[i];
  }
  check_f64("row_argmin_i64 min", "300x777", got_low, ref_low, ROWS, 0.0, 0.0);
  check_f64("row_argmin_i64 index", "300x777", got_at, ref_at, ROWS, 0.0, 0.0);
  harness_free(x);
  harness_free(low);
  harness_free(at);
}

/* Initial values: -inf at index -1, except row 1's, 5.0 at index 4444, which
 * equals that row's maximum and so stays (the loop's comparison is strict). */
static void run_argmax_special(void) {
  enum { ROWS = 4, COLS = 5000 };
  float *x = random_f32(ROWS * COLS, 222, -1.0f, 1.0f);
  float *top = alloc_f32(ROWS), *top0 = alloc_f32(ROWS);
  int32_t *at = (int32_t *)harness_alloc(ROWS, sizeof(int32_t));
  int32_t *at0 = (int32_t *)harness_alloc(ROWS, sizeof(int32_t));
  double ref_top[ROWS], ref_at[ROWS], got_at[ROWS];
  for (int r = 0; r < COLS; ++r)
    x[r] = -INFINITY;
  for (int r = 7; r < COLS; r += 97)
    x[COLS + r] = NAN;
  x[COLS + 3333] = 5.0f;
  x[COLS + 4999] = 5.0f;
  x[2 * COLS + 4999] = 6.0f;
  x[3 * COLS + 100] = 7.0f;
  x[3 * COLS + 2600] = 7.0f;
  x[3 * COLS + 4900] = 7.0f;
  for (int i = 0; i < ROWS; ++i) {
    top0[i] = i == 1 ? 5.0f : -INFINITY;
    at0[i] = i == 1 ? 4444 : -1;
    float m = top0[i];
    int32_t where = at0[i];
    for (int r = 0; r < COLS; ++r)
      if (m < x[i * COLS + r]) {
        m = x[i * COLS + r];
        where = r;
      }
    ref_top[i] = m;
    ref_at[i] = where;
    at[i] = -7;
  }
  poison_f32(top, ROWS);
  tessel_memref_f32_2d dx;
  tessel_memref_f32_init_2d(&dx, x, ROWS, COLS);
  tessel_memref_f32_1d dtop0, dtop;
  tessel_memref_f32_init_1d(&dtop0, top0, ROWS);
  tessel_memref_f32_init_1d(&dtop, top, ROWS);
  tessel_memref_i32_1d dat0 = {at0, at0, 0, {ROWS}, {1}};
  tessel_memref_i32_1d dat = {at, at, 0, {ROWS}, {1}};
  _mlir_ciface_argmax_special(&dx, &dtop0, &dat0, &dtop, &dat);
  for (int i = 0; i < ROWS; ++i)
    got_at[i] = at[i];
  check_f32("argmax_special max", "4x5000", top, ref_top, ROWS, 0.0, 0.0);
  check_f64("argmax_special index", "4x5000", got_at, ref_at, ROWS, 0.0, 0.0);
  harness_free(x);
  harness_free(top);
  harness_free(top0);
  harness_free(at);
  harness_free(at0);
}

static void run_argmax_nan_first(void) {
  enum { ROWS = 4, COLS = 5000 };
  float *x = random_f32(ROWS * COLS, 333, -1.0f, 1.0f);
  float *top = alloc_f32(ROWS);
  int64_t *at = (int64_t *)harness_alloc(ROWS, sizeof(int64_t));
  double ref_top[ROWS], ref_at[ROWS], got_at[ROWS];
  /* Row 0: thread 1 holds the first NaN, thread 0 the second; row 1: one
     NaN, last; row 2: no NaN, a tie; row 3: all NaN. Row 2 (the one
     --corrupt perturbs) is a number, so a corrupted maximum fails. */
  x[1] = x[256] = x[4000] = NAN;
  x[COLS + 4999] = NAN;
  x[2 * COLS + 10] = x[2 * COLS + 2600] = 3.0f;
  for (int r = 0; r < COLS; ++r)
    x[3 * COLS + r] = NAN;
  for (int i = 0; i < ROWS; ++i) {
    float m = -INFINITY;
    int64_t where = 0;
    for (int r = 0; r < COLS; ++r) {
      float v = x[i * COLS + r];
      if (v > m || (isnan(v) && !isnan(m))) {
        m = v;
        where = r;
      }
    }
    ref_top[i] = m;
    ref_at[i] = (double)where;
    at[i] = -7;
  }
  poison_f32(top, ROWS);
  tessel_memref_f32_2d dx;
  tessel_memref_f32_init_2d(&dx, x, ROWS, COLS);
  tessel_memref_f32_1d dtop;
  tessel_memref_f32_init_1d(&dtop, top, ROWS);
  tessel_memref_i64_1d dat = {at, at, 0, {ROWS}, {1}};
  _mlir_ciface_argmax_nan_first(&dx, &dtop, &dat);
  for (int i = 0; i < ROWS; ++i)
    got_at[i] = (double)at[i];
  check_f32("argmax_nan_first max", "4x5000", top, ref_top, ROWS, 0.0, 0.0);
  check_f64("argmax_nan_first index", "4x5000", got_at, ref_at, ROWS, 0.0, 0.0);
  harness_free(x);
  harness_free(top);
  harness_free(at);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_row_index_sum();
  run_row_argmax();
  run_row_argmin_i64();
  run_argmax_special();
  run_argmax_nan_first();
  return harness_finish();
}

/* Harness for gpu_reductions.mlir: each reduction against a double-precision
 * (or exact integer) reference. Results are 0-d buffers the caller passes,
 * poisoned first, so a kernel that does not write them fails. */
#include "harness.h"

#include <float.h>
#include <string.h>

static void run_sum_long(void) {
  const int64_t n = 100003;
  float *x = random_f32((size_t)n, 71, -1.0f, 1.0f);
  float *x0 = copy_f32(x, (size_t)n);
  float *s = alloc_f32(1);
  poison_f32(s, 1);
  double ref = 0.0, magnitude = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    ref += (double)x[i];
    magnitude += fabs((double)x[i]);
  }
  tessel_memref_f32_1d dx;
  tessel_memref_f32_init_1d(&dx, x, n);
  tessel_memref_f32_0d ds = {s, s, 0};
  _mlir_ciface_sum_long(&dx, &ds);
  /* f32 partial sums: error within a few ulps of the sum of magnitudes. */
  check_scalar("sum_long", "100003->scalar", (double)s[0], ref, 0.0,
               1e-6 * magnitude);
  check_unchanged("sum_long input", x, x0, (size_t)n * sizeof(float));
  harness_free(x); harness_free(x0); harness_free(s);
}

static void run_max_i32(void) {
  const int64_t n = 70001;
  int32_t *x = (int32_t *)harness_alloc((size_t)n, sizeof(int32_t));
  int32_t *m = (int32_t *)harness_alloc(1, sizeof(int32_t));
  uint64_t state = 72;
  int32_t ref = INT32_MIN;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (int32_t)(state >> 33) - (1 << 30);
    if (x[i] > ref)
      ref = x[i];
  }
  m[0] = 12345;
  tessel_memref_i32_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_i32_0d dm = {m, m, 0};
  _mlir_ciface_max_i32(&dx, &dm);
  check_scalar("max_i32", "70001->scalar", (double)m[0], (double)ref, 0.0, 0.0);
  harness_free(x); harness_free(m);
}

static void run_sum_squares_and_max(void) {
  const int64_t rows = 37, cols = 45, n = rows * cols;
  float *x = random_f32((size_t)n, 73, -2.0f, 0.6f);
  float *s = alloc_f32(1), *m = alloc_f32(1);
  poison_f32(s, 1);
  poison_f32(m, 1);
  double sum = 1.5, top = 0.25;
  for (int64_t i = 0; i < n; ++i) {
    sum += (double)x[i] * (double)x[i];
    if ((double)x[i] > top)
      top = (double)x[i];
  }
  tessel_memref_f32_2d dx;
  tessel_memref_f32_init_2d(&dx, x, rows, cols);
  tessel_memref_f32_0d ds = {s, s, 0}, dm = {m, m, 0};
  _mlir_ciface_sum_squares_and_max(&dx, &ds, &dm);
  check_scalar("sum_squares", "37x45->scalar", (double)s[0], sum, 1e-6, 0.0);
  check_scalar("max", "37x45->scalar", (double)m[0], top, 0.0, 0.0);
  harness_free(x); harness_free(s); harness_free(m);
}

static void run_sum_f64(void) {
  const int64_t n = 1000;
  double *x = alloc_f64((size_t)n);
  double *s = alloc_f64(1);
  double ref = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = 1.0 / (double)(i + 1);
    ref += x[i];
  }
  s[0] = -1.0;
  tessel_memref_f64_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_f64_0d ds = {s, s, 0};
  _mlir_ciface_sum_f64(&dx, &ds);
  check_scalar("sum_f64", "1000->scalar", s[0], ref, 1e-14, 0.0);
  harness_free(x); harness_free(s);
}

/* Integers in [-4, 4] as f16, in random order: f16 holds integers exactly
 * up to 2048, and a sum of k of these values is typically about
 * 2.6 * sqrt(k) (365 for all 20000; this seed's total is -586), so every
 * partial sum stays exact whatever the order of the additions, and a lost
 * or doubled lane shows as a wrong total. */
static void run_sum_f16(void) {
  const int64_t n = 20000;
  uint16_t *x = (uint16_t *)harness_alloc((size_t)n, sizeof(uint16_t));
  uint16_t *s = (uint16_t *)harness_alloc(1, sizeof(uint16_t));
  uint64_t state = 74;
  int64_t ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int v = (int)((state >> 33) % 9) - 4;
    _Float16 h = (_Float16)v;
    memcpy(&x[i], &h, sizeof h);
    ref += v;
  }
  s[0] = 0x7e00; /* NaN */
  tessel_memref_f16_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_f16_0d ds = {s, s, 0};
  _mlir_ciface_sum_f16(&dx, &ds);
  _Float16 got;
  memcpy(&got, s, sizeof got);
  check_scalar("sum_f16", "20000->scalar", (double)got, (double)ref, 0.0, 0.0);
  harness_free(x);
  harness_free(s);
}

/* bf16 is the top half of an f32. */
static double from_bf16(uint16_t bits) {
  uint32_t word = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &word, sizeof f);
  return (double)f;
}

static void run_max_bf16(void) {
  const int64_t n = 3000;
  float *f = random_f32((size_t)n, 75, -100.0f, 100.0f);
  uint16_t *x = (uint16_t *)harness_alloc((size_t)n, sizeof(uint16_t));
  uint16_t *m = (uint16_t *)harness_alloc(1, sizeof(uint16_t));
  double ref = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t word;
    memcpy(&word, &f[i], sizeof word);
    x[i] = (uint16_t)(word >> 16);
    if (from_bf16(x[i]) > ref)
      ref = from_bf16(x[i]);
  }
  m[0] = 0x7fc0; /* NaN */
  tessel_memref_bf16_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_bf16_0d dm = {m, m, 0};
  _mlir_ciface_max_bf16(&dx, &dm);
  check_scalar("max_bf16", "3000->scalar", from_bf16(m[0]), ref, 0.0, 0.0);
  harness_free(f);
  harness_free(x);
  harness_free(m);
}

/* Values of up to 2^52 in magnitude: the sum needs both 32-bit halves of
 * every partial result (unsigned arithmetic, wrapping like the kernel). */
static void run_sum_i64(void) {
  const int64_t n = 50000;
  int64_t *x = (int64_t *)harness_alloc((size_t)n, sizeof(int64_t));
  int64_t *s = (int64_t *)harness_alloc(1, sizeof(int64_t));
  uint64_t state = 76, ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (int64_t)(state >> 11) - (int64_t)(1ull << 52);
    ref += (uint64_t)x[i];
  }
  s[0] = 12345;
  tessel_memref_i64_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_i64_0d ds = {s, s, 0};
  _mlir_ciface_sum_i64(&dx, &ds);
  check_scalar("sum_i64 low half", "50000->scalar",
               (double)((uint64_t)s[0] & 0xffffffffu),
               (double)(ref & 0xffffffffu), 0.0, 0.0);
  check_scalar("sum_i64 high half", "50000->scalar",
               (double)((uint64_t)s[0] >> 32), (double)(ref >> 32), 0.0, 0.0);
  harness_free(x);
  harness_free(s);
}

static void run_xor_i8(void) {
  const int64_t n = 777;
  int8_t *x = (int8_t *)harness_alloc((size_t)n, sizeof(int8_t));
  int8_t *s = (int8_t *)harness_alloc(1, sizeof(int8_t));
  uint64_t state = 77;
  uint8_t ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (int8_t)(state >> 56);
    ref ^= (uint8_t)x[i];
  }
  s[0] = 0x5a;
  tessel_memref_i8_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_i8_0d ds = {s, s, 0};
  _mlir_ciface_xor_i8(&dx, &ds);
  check_scalar("xor_i8", "777->scalar", (double)(uint8_t)s[0], (double)ref, 0.0,
               0.0);
  harness_free(x);
  harness_free(s);
}

/* Every value negative: the signed max must come back with its sign (the
 * shuffles move it zero-extended). */
static void run_max_negative_i8(void) {
  const int64_t n = 999;
  int8_t *x = (int8_t *)harness_alloc((size_t)n, sizeof(int8_t));
  int8_t *m = (int8_t *)harness_alloc(1, sizeof(int8_t));
  uint64_t state = 78;
  int ref = -128;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (int8_t)(-2 - (int)((state >> 33) % 127)); /* [-128, -2] */
    if (x[i] > ref)
      ref = x[i];
  }
  m[0] = 77;
  tessel_memref_i8_1d dx = {x, x, 0, {n}, {1}};
  tessel_memref_i8_0d dm = {m, m, 0};
  _mlir_ciface_max_negative_i8(&dx, &dm);
  check_scalar("max_negative_i8", "999->scalar", (double)m[0], (double)ref, 0.0,
               0.0);
  harness_free(x);
  harness_free(m);
}

/* Twice: all positive (1), then one negative element late in the input, in
 * a lane of some warp other than the first (0). */
static void run_all_positive(void) {
  const int64_t n = 5000;
  float *x = random_f32((size_t)n, 79, 0.5f, 2.0f);
  int32_t *r = (int32_t *)harness_alloc(1, sizeof(int32_t));
  tessel_memref_f32_1d dx;
  tessel_memref_f32_init_1d(&dx, x, n);
  tessel_memref_i32_0d dr = {r, r, 0};
  r[0] = 7;
  _mlir_ciface_all_positive(&dx, &dr);
  check_scalar("all_positive (all)", "5000->scalar", (double)r[0], 1.0, 0.0,
               0.0);
  x[3777] = -1.0f;
  r[0] = 7;
  _mlir_ciface_all_positive(&dx, &dr);
  check_scalar("all_positive (one not)", "5000->scalar", (double)r[0], 0.0, 0.0,
               0.0);
  harness_free(x);
  harness_free(r);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_sum_long();
  run_max_i32();
  run_sum_squares_and_max();
  run_sum_f64();
  run_sum_f16();
  run_max_bf16();
  run_sum_i64();
  run_xor_i8();
  run_max_negative_i8();
  run_all_positive();
  return harness_finish();
}

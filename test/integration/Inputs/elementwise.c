/* Harness for elementwise.mlir: tanh / exp / erf in f32 (polynomial) and f64. */
#include "harness.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

static void run_tanh_exp(void) {
  const int64_t m = 7, n = 130;
  const size_t count = (size_t)(m * n);
  float *x = random_f32(count, 51, -6.0f, 6.0f);
  float *y = alloc_f32(count);
  poison_f32(y, count);
  double *ref = alloc_f64(count);
  for (size_t i = 0; i < count; ++i) {
    double v = (double)x[i];
    ref[i] = tanh(v) + exp(-0.5 * v * v);
  }
  tessel_memref_f32_2d dx, dy;
  tessel_memref_f32_init_2d(&dx, x, m, n);
  tessel_memref_f32_init_2d(&dy, y, m, n);
  _mlir_ciface_tanh_exp(&dx, &dy);
  check_f32("tanh_exp", "7x130", y, ref, count, 1e-5, 1e-6);
  harness_free(x); harness_free(y); harness_free(ref);
}

static void run_tanh_and_exp(void) {
  const int64_t n = 1000;
  float *x = random_f32((size_t)n, 52, -90.0f, 90.0f);
  x[0] = 0.0f; x[1] = -0.0f; x[2] = 1e-7f; x[3] = -1e-7f; x[4] = 20.0f;
  x[5] = -20.0f; x[6] = 88.0f; x[7] = -87.0f; x[8] = 0.5f; x[9] = -0.5f;
  float *t = alloc_f32((size_t)n), *e = alloc_f32((size_t)n);
  poison_f32(t, (size_t)n);
  poison_f32(e, (size_t)n);
  double *rt = alloc_f64((size_t)n), *re = alloc_f64((size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    rt[i] = tanh((double)x[i]);
    /* Rounded to float so that results beyond FLT_MAX are +inf, as they
     * must be in f32. */
    re[i] = (double)(float)exp((double)x[i]);
  }
  tessel_memref_f32_1d dx, dt, de;
  tessel_memref_f32_init_1d(&dx, x, n);
  tessel_memref_f32_init_1d(&dt, t, n);
  tessel_memref_f32_init_1d(&de, e, n);
  _mlir_ciface_tanh_and_exp(&dx, &dt, &de);
  check_f32("tanh", "1000 in [-90,90]", t, rt, (size_t)n, 1e-5, 1e-6);
  /* exp's relative error grows with |x| after range reduction; allow a few
   * float ulps more. Underflowed results are compared absolutely. */
  check_f32("exp", "1000 in [-90,90]", e, re, (size_t)n, 5e-6, 1e-37);
  harness_free(x); harness_free(t); harness_free(e); harness_free(rt); harness_free(re);
}

static void run_exp_edges(void) {
  const int64_t n = 256;
  static const float edges[] = {
      INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 1e-40f, -1e-40f, FLT_MAX,
      -FLT_MAX, 88.72283f, 88.72284f, 88.7229f, 88.8f, 89.0f, 89.5f, 1000.0f,
      -87.33f, -87.34f, -87.4f, -95.0f, -100.0f, -103.0f, -103.9f, -103.97f,
      -103.98f, -104.0f, -104.5f, -1000.0f, 0.34657359f, -0.34657359f,
      0.34657360f, -0.34657360f};
  const int64_t nedges = (int64_t)(sizeof edges / sizeof edges[0]);
  float *x = alloc_f32((size_t)n), *y = alloc_f32((size_t)n);
  double *ref = alloc_f64((size_t)n);
  for (int64_t i = 0; i < n; ++i)
    x[i] = i < nedges ? edges[i]
                      : -110.0f + 205.0f * (float)(i - nedges) /
                                      (float)(n - nedges - 1);
  poison_f32(y, (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    ref[i] = (double)(float)exp((double)x[i]);
  tessel_memref_f32_1d dx, dy;
  tessel_memref_f32_init_1d(&dx, x, n);
  tessel_memref_f32_init_1d(&dy, y, n);
  _mlir_ciface_exp_edges(&dx, &dy);
  /* A few ulps (2^-23 ~ 1.2e-7) on normal results. The AVX-512 expansion
   * (vscalefps) rounds denormal results correctly, so they must be within
   * two of the smallest denormal (2^-149 ~ 1.4e-45); the portable one, which
   * GPU targets use (HARNESS_GPU: run on a GPU or emulated), flushes results
   * below FLT_MIN to zero. */
#if defined(HARNESS_GPU_MANAGED) || defined(HARNESS_GPU_EMULATED)
  double denormal_tol = FLT_MIN;
#else
  __builtin_cpu_init();
  double denormal_tol = __builtin_cpu_supports("avx512f") ? 3e-45 : FLT_MIN;
#endif
  check_f32("exp_edges", "256 in [-110,95] + specials", y, ref, (size_t)n,
            4e-7, denormal_tol);
  harness_free(x); harness_free(y); harness_free(ref);
}

static void run_erf(void) {
  const int64_t n = 4096;
  static const float edges[] = {INFINITY, -INFINITY, NAN,   0.0f,  -0.0f,
                                1e-40f,   -1e-40f,   1e-20f, 4.0f, -4.0f,
                                3.9999f,  4.0001f,   10.0f, -10.0f, FLT_MAX};
  const int64_t nedges = (int64_t)(sizeof edges / sizeof edges[0]);
  float *x = alloc_f32((size_t)n), *y = alloc_f32((size_t)n);
  double *ref = alloc_f64((size_t)n);
  /* The edges, then a sweep of [-6, 6] (erf is flat in f32 beyond +-3.92). */
  for (int64_t i = 0; i < n; ++i)
    x[i] = i < nedges ? edges[i]
                      : -6.0f + 12.0f * (float)(i - nedges) /
                                    (float)(n - nedges - 1);
  poison_f32(y, (size_t)n);
  for (int64_t i = 0; i < n; ++i)
    ref[i] = erf((double)x[i]);
  tessel_memref_f32_1d dx, dy;
  tessel_memref_f32_init_1d(&dx, x, n);
  tessel_memref_f32_init_1d(&dy, y, n);
  _mlir_ciface_erf_sweep(&dx, &dy);
  /* At most 7.2 ulps (4.3e-7 relative near +-1, where an ulp is 6e-8);
   * denormal arguments give results near 1.13 x, compared absolutely. */
  int beyond_one = 0;
  for (int64_t i = 0; i < n; ++i)
    beyond_one += fabsf(y[i]) > 1.0f;
  check_f32("erf", "4096 in [-6,6] + specials", y, ref, (size_t)n, 8e-7,
            1e-38);
  /* erf never leaves [-1, 1]; an approximation near its clamp can. */
  check_scalar("erf_bounded", "4096", (double)beyond_one, 0.0, 0.0, 0.0);
  harness_free(x); harness_free(y); harness_free(ref);
}

static void run_f64(void) {
  const int64_t n = 64;
  double *x = alloc_f64((size_t)n), *y = alloc_f64((size_t)n), *ref = alloc_f64((size_t)n);
  tessel_fill_random_f64(x, (size_t)n, 53);
  for (int64_t i = 0; i < n; ++i) {
    x[i] *= 5.0;
    y[i] = NAN;
    ref[i] = tanh(x[i]) * exp(x[i]);
  }
  tessel_memref_f64_1d dx, dy;
  tessel_memref_f64_init_1d(&dx, x, n);
  tessel_memref_f64_init_1d(&dy, y, n);
  _mlir_ciface_tanh_exp_f64(&dx, &dy);
  check_f64("tanh_exp_f64", "64", y, ref, (size_t)n, 1e-14, 1e-300);
  harness_free(x); harness_free(y); harness_free(ref);
}

/* IEEE-754 2019 maximum / minimum of x and y, bit for bit: NaN if either
 * is NaN (any NaN), -0 below +0. */
static double ieee_max(double x, double y) {
  if (isnan(x) || isnan(y))
    return NAN;
  if (x == 0.0 && y == 0.0)
    return signbit(x) && signbit(y) ? -0.0 : 0.0;
  return x > y ? x : y;
}
static double ieee_min(double x, double y) {
  if (isnan(x) || isnan(y))
    return NAN;
  if (x == 0.0 && y == 0.0)
    return signbit(x) || signbit(y) ? -0.0 : 0.0;
  return x < y ? x : y;
}
/* Whether got is want exactly: both NaN, or equal with the same sign. */
static int same(double got, double want) {
  if (isnan(want))
    return isnan(got);
  return got == want && signbit(got) == signbit(want);
}

/* Every pair of 16 edge values (a quiet NaN of each sign, a signalling
 * NaN, signed zeros and infinities, denormals, ordinary numbers); counts
 * results that differ from IEEE maximum / minimum. */
static void run_minmax_edges(void) {
  const int64_t n = 256;
  const uint32_t edge_bits[16] = {
      0x7fc00000u, 0xffc00001u, 0x7fa00000u, 0x00000000u, 0x80000000u,
      0x7f800000u, 0xff800000u, 0x000116c2u, 0x800116c2u, 0x3f800000u,
      0xbf800000u, 0x40600000u, 0xc0600000u, 0x7f7fffffu, 0xff7fffffu,
      0x00800000u};
  float edges[16];
  memcpy(edges, edge_bits, sizeof edges);
  float *a = alloc_f32((size_t)n), *b = alloc_f32((size_t)n);
  float *mx = alloc_f32((size_t)n), *mn = alloc_f32((size_t)n);
  double *a64 = alloc_f64((size_t)n), *b64 = alloc_f64((size_t)n);
  double *mx64 = alloc_f64((size_t)n), *mn64 = alloc_f64((size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = edges[i / 16];
    b[i] = edges[i % 16];
    a64[i] = (double)a[i];
    b64[i] = (double)b[i];
  }
  poison_f32(mx, (size_t)n);
  poison_f32(mn, (size_t)n);
  tessel_memref_f32_1d da, db, dmx, dmn;
  tessel_memref_f32_init_1d(&da, a, n);
  tessel_memref_f32_init_1d(&db, b, n);
  tessel_memref_f32_init_1d(&dmx, mx, n);
  tessel_memref_f32_init_1d(&dmn, mn, n);
  _mlir_ciface_minmax_edges(&da, &db, &dmx, &dmn);
  tessel_memref_f64_1d ea, eb, emx, emn;
  tessel_memref_f64_init_1d(&ea, a64, n);
  tessel_memref_f64_init_1d(&eb, b64, n);
  tessel_memref_f64_init_1d(&emx, mx64, n);
  tessel_memref_f64_init_1d(&emn, mn64, n);
  _mlir_ciface_minmax_edges_f64(&ea, &eb, &emx, &emn);
  int wrong = 0, wrong64 = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = (double)a[i], y = (double)b[i];
    wrong += !same((double)mx[i], ieee_max(x, y)) +
             !same((double)mn[i], ieee_min(x, y));
    wrong64 += !same(mx64[i], ieee_max(x, y)) + !same(mn64[i], ieee_min(x, y));
  }
  check_scalar("minmax_edges", "16x16 pairs", (double)wrong, 0.0, 0.0, 0.0);
  check_scalar("minmax_edges_f64", "16x16 pairs", (double)wrong64, 0.0, 0.0,
               0.0);
  harness_free(a); harness_free(b); harness_free(mx); harness_free(mn);
  harness_free(a64); harness_free(b64); harness_free(mx64); harness_free(mn64);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_tanh_exp();
  run_tanh_and_exp();
  run_exp_edges();
  run_erf();
  run_f64();
  run_minmax_edges();
  return harness_finish();
}

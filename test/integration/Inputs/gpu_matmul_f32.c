/* Harness for gpu_matmul_f32.mlir: the SIMT f32 matmul kernels against
 * double references. Built with -DHARNESS_GPU_MANAGED for a real GPU
 * (managed buffers), or without for the kernels emulated on the CPU
 * (tessel-emulate-gpu-on-cpu). With -DHARNESS_F64 it checks the same
 * programs with every f32 turned into f64 (`sed s/f32/f64/g`): the SIMT
 * kernel's f64 form, against references that are then exact in the
 * inputs and differ only by the order of the sums. */
#include "harness.h"

#include <stdint.h>

#ifdef HARNESS_F64
typedef double real;
typedef tessel_memref_f64_1d memref_1d;
typedef tessel_memref_f64_2d memref_2d;
typedef tessel_memref_f64_3d memref_3d;
typedef tessel_memref_f64_4d memref_4d;
#define TAG "f64"
/* _mlir_ciface_<prefix>f64<suffix>, the names sed gives the f32 ones. */
#define KERNEL(prefix, suffix) _mlir_ciface_##prefix##f64##suffix
/* Inputs with all 53 bits of the mantissa in use. */
static real *random_real(size_t count, uint64_t seed, double lo, double hi) {
  real *p = alloc_f64(count);
  tessel_fill_random_f64(p, count, seed); /* [-1, 1) */
  for (size_t i = 0; i < count; ++i)
    p[i] = lo + (p[i] + 1.0) * 0.5 * (hi - lo);
  return p;
}
static real *alloc_real(size_t count) { return alloc_f64(count); }
static void poison_real(real *p, size_t count) {
  for (size_t i = 0; i < count; ++i)
    p[i] = NAN;
}
#else
typedef float real;
typedef tessel_memref_f32_1d memref_1d;
typedef tessel_memref_f32_2d memref_2d;
typedef tessel_memref_f32_3d memref_3d;
typedef tessel_memref_f32_4d memref_4d;
#define TAG "f32"
#define KERNEL(prefix, suffix) _mlir_ciface_##prefix##f32##suffix
static real *random_real(size_t count, uint64_t seed, double lo, double hi) {
  return random_f32(count, seed, (float)lo, (float)hi);
}
static real *alloc_real(size_t count) { return alloc_f32(count); }
static void poison_real(real *p, size_t count) { poison_f32(p, count); }
#endif

/* ref[b][i][j] = init + sum_k A(b, i, k) B(b, k, j), where A(b, i, k) is
 * a[b * bsa + i * sai + k * sak] (likewise B), and init is c0[...] (if
 * given) or 0. */
typedef struct {
  int64_t batch, m, n, k;
  int64_t bsa, sai, sak; /* A's batch, row (m) and k strides */
  int64_t bsb, sbk, sbj; /* B's batch, k and column (n) strides */
} problem;

static double *reference(const problem *p, const real *a, const real *b,
                         const real *c0) {
  double *ref = alloc_f64((size_t)(p->batch * p->m * p->n));
  for (int64_t q = 0; q < p->batch; ++q)
    for (int64_t i = 0; i < p->m; ++i)
      for (int64_t j = 0; j < p->n; ++j) {
        size_t o = (size_t)((q * p->m + i) * p->n + j);
        double s = c0 ? (double)c0[o] : 0.0;
        for (int64_t l = 0; l < p->k; ++l)
          s += (double)a[q * p->bsa + i * p->sai + l * p->sak] *
               (double)b[q * p->bsb + l * p->sbk + j * p->sbj];
        ref[o] = s;
      }
  return ref;
}

static problem plain(int64_t m, int64_t n, int64_t k) {
  return (problem){1, m, n, k, 0, k, 1, 0, n, 1};
}

/* Products (rounded) of magnitude <= 1 summed in another order than the
 * reference's. */
static void check_sum(const char *name, const problem *p, real *c,
                      const double *ref) {
  char shape[64];
  if (p->batch > 1)
    snprintf(shape, sizeof shape, "%ldx%ldx%ldx%ld", (long)p->batch,
             (long)p->m, (long)p->n, (long)p->k);
  else
    snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)p->m, (long)p->n,
             (long)p->k);
#ifdef HARNESS_F64
  check_f64(name, shape, c, ref, (size_t)(p->batch * p->m * p->n), 1e-12,
            4e-15 * (double)p->k);
#else
  check_f32(name, shape, c, ref, (size_t)(p->batch * p->m * p->n), 1e-5,
            2e-6 * (double)p->k);
#endif
}

typedef void (*product_fn)(memref_2d *, memref_2d *, memref_2d *);

/* A is m x k (or k x m when `at`), B k x n (or n x k when `bt`). */
static void run_2d(const char *name, product_fn fn, int64_t m, int64_t n,
                   int64_t k, int at, int bt, uint64_t seed) {
  problem p = plain(m, n, k);
  if (at) {
    p.sai = 1;
    p.sak = m;
  }
  if (bt) {
    p.sbk = 1;
    p.sbj = k;
  }
  real *a = random_real((size_t)(m * k), seed, -1.0, 1.0);
  real *b = random_real((size_t)(k * n), seed + 1, -1.0, 1.0);
  real *c = alloc_real((size_t)(m * n));
  poison_real(c, (size_t)(m * n));
  memref_2d da = {a, a, 0, {at ? k : m, at ? m : k}, {at ? m : k, 1}};
  memref_2d db = {b, b, 0, {bt ? n : k, bt ? k : n}, {bt ? k : n, 1}};
  memref_2d dc = {c, c, 0, {m, n}, {n, 1}};
  fn(&da, &db, &dc);
  double *ref = reference(&p, a, b, NULL);
  check_sum(name, &p, c, ref);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
}

static void run_batched(void) {
  problem p = {3, 64, 48, 32, 64 * 32, 32, 1, 32 * 48, 48, 1};
  problem shared = p;
  shared.bsb = 0;
  size_t cs = (size_t)(p.batch * p.m * p.n);
  real *a = random_real((size_t)(p.batch * p.m * p.k), 51, -1.0, 1.0);
  real *b = random_real((size_t)(p.batch * p.k * p.n), 52, -1.0, 1.0);
  real *w = random_real((size_t)(p.k * p.n), 53, -1.0, 1.0);
  real *c = alloc_real(cs), *s = alloc_real(cs);
  poison_real(c, cs);
  poison_real(s, cs);
  memref_3d da = {a, a, 0, {p.batch, p.m, p.k}, {p.m * p.k, p.k, 1}};
  memref_3d db = {b, b, 0, {p.batch, p.k, p.n}, {p.k * p.n, p.n, 1}};
  memref_2d dw = {w, w, 0, {p.k, p.n}, {p.n, 1}};
  memref_3d dc = {c, c, 0, {p.batch, p.m, p.n}, {p.m * p.n, p.n, 1}};
  memref_3d ds = {s, s, 0, {p.batch, p.m, p.n}, {p.m * p.n, p.n, 1}};
  KERNEL(batch3_, _64x48x32)(&da, &db, &dw, &dc, &ds);
  double *ref = reference(&p, a, b, NULL);
  check_sum("batch_matmul", &p, c, ref);
  double *ref_shared = reference(&shared, a, w, NULL);
  check_sum("batch_shared_b", &p, s, ref_shared);
  harness_free(a); harness_free(b); harness_free(w); harness_free(c);
  harness_free(s); harness_free(ref); harness_free(ref_shared);
}

static void run_accumulate(void) {
  problem p = plain(72, 40, 48);
  real *a = random_real((size_t)(p.m * p.k), 61, -1.0, 1.0);
  real *b = random_real((size_t)(p.k * p.n), 62, -1.0, 1.0);
  real *c0 = random_real((size_t)(p.m * p.n), 63, -4.0, 4.0);
  real *c = alloc_real((size_t)(p.m * p.n));
  poison_real(c, (size_t)(p.m * p.n));
  memref_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  memref_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  memref_2d dc0 = {c0, c0, 0, {p.m, p.n}, {p.n, 1}};
  memref_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  KERNEL(, _accumulate_72x40x48)(&da, &db, &dc0, &dc);
  double *ref = reference(&p, a, b, c0);
  check_sum("accumulate", &p, c, ref);
  harness_free(a); harness_free(b); harness_free(c0); harness_free(c);
  harness_free(ref);
}

static void run_bias_relu(void) {
  problem p = plain(96, 80, 64);
  real *a = random_real((size_t)(p.m * p.k), 71, -1.0, 1.0);
  real *b = random_real((size_t)(p.k * p.n), 72, -1.0, 1.0);
  real *bias = random_real((size_t)p.n, 73, -1.0, 1.0);
  real *c = alloc_real((size_t)(p.m * p.n));
  poison_real(c, (size_t)(p.m * p.n));
  memref_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  memref_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  memref_1d dbias = {bias, bias, 0, {p.n}, {1}};
  memref_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  KERNEL(, _bias_relu_96x80x64)(&da, &db, &dbias, &dc);
  double *ref = reference(&p, a, b, NULL);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double v = ref[i * p.n + j] + (double)bias[j];
      ref[i * p.n + j] = v > 0 ? v : 0;
    }
  check_sum("bias_relu", &p, c, ref);
  harness_free(a); harness_free(b); harness_free(bias); harness_free(c);
  harness_free(ref);
}

/* y[n][oh][ow][f] = sum over (kh, kw, c) of x[n][oh+kh][ow+kw][c] w[kh][kw][c][f]. */
static void run_conv(void) {
  enum { N = 2, H = 10, W = 10, C = 16, K = 3, F = 32, OH = 8, OW = 8 };
  size_t nx = N * H * W * C, nw = K * K * C * F, ny = N * OH * OW * F;
  real *x = random_real(nx, 81, -1.0, 1.0);
  real *w = random_real(nw, 82, -1.0, 1.0);
  real *y = alloc_real(ny);
  poison_real(y, ny);
  memref_4d dx = {x, x, 0, {N, H, W, C}, {H * W * C, W * C, C, 1}};
  memref_4d dw = {w, w, 0, {K, K, C, F}, {K * C * F, C * F, F, 1}};
  memref_4d dy = {y, y, 0, {N, OH, OW, F}, {OH * OW * F, OW * F, F, 1}};
  KERNEL(, _conv_2x10x10x16_3x3x32)(&dx, &dw, &dy);
  double *ref = alloc_f64(ny);
  for (int n = 0; n < N; ++n)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow)
        for (int f = 0; f < F; ++f) {
          double s = 0;
          for (int kh = 0; kh < K; ++kh)
            for (int kw = 0; kw < K; ++kw)
              for (int c = 0; c < C; ++c)
                s += (double)x[((n * H + oh + kh) * W + ow + kw) * C + c] *
                     (double)w[((kh * K + kw) * C + c) * F + f];
          ref[((n * OH + oh) * OW + ow) * F + f] = s;
        }
  problem p = plain(N * OH * OW, F, K * K * C);
  check_sum("conv", &p, y, ref);
  harness_free(x); harness_free(w); harness_free(y); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_2d(TAG, KERNEL(, _256x192x128), 256, 192, 128, 0, 0, 1);
  run_2d(TAG, KERNEL(, _33x17x9), 33, 17, 9, 0, 0, 3);
  run_2d(TAG, KERNEL(, _100x72x520), 100, 72, 520, 0, 0, 5);
  run_2d(TAG "_at_bt", KERNEL(, _at_bt_80x48x64), 80, 48, 64, 1, 1, 7);
  run_2d(TAG "_at", KERNEL(, _at_56x40x48), 56, 40, 48, 1, 0, 9);
  run_2d(TAG "_bt", KERNEL(, _bt_56x40x48), 56, 40, 48, 0, 1, 11);
  run_batched();
  run_accumulate();
  run_bias_relu();
  run_conv();
  return harness_finish();
}

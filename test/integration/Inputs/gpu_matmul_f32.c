/* Harness for gpu_matmul_f32.mlir: the SIMT f32 matmul kernels against
 * double references. Built with -DHARNESS_GPU_MANAGED for a real GPU
 * (managed buffers), or without for the kernels emulated on the CPU
 * (tessel-emulate-gpu-on-cpu). */
#include "harness.h"

#include <stdint.h>

/* ref[b][i][j] = init + sum_k A(b, i, k) B(b, k, j), where A(b, i, k) is
 * a[b * bsa + i * sai + k * sak] (likewise B), and init is c0[...] (if
 * given) or 0. */
typedef struct {
  int64_t batch, m, n, k;
  int64_t bsa, sai, sak; /* A's batch, row (m) and k strides */
  int64_t bsb, sbk, sbj; /* B's batch, k and column (n) strides */
} problem;

static double *reference(const problem *p, const float *a, const float *b,
                         const float *c0) {
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

/* f32 products (rounded) of magnitude <= 1 summed in another order than
 * the reference's. */
static void check_sum(const char *name, const problem *p, float *c,
                      const double *ref) {
  char shape[64];
  if (p->batch > 1)
    snprintf(shape, sizeof shape, "%ldx%ldx%ldx%ld", (long)p->batch,
             (long)p->m, (long)p->n, (long)p->k);
  else
    snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)p->m, (long)p->n,
             (long)p->k);
  check_f32(name, shape, c, ref, (size_t)(p->batch * p->m * p->n), 1e-5,
            2e-6 * (double)p->k);
}

typedef void (*f32_fn)(tessel_memref_f32_2d *, tessel_memref_f32_2d *,
                       tessel_memref_f32_2d *);

/* A is m x k (or k x m when `at`), B k x n (or n x k when `bt`). */
static void run_2d(const char *name, f32_fn fn, int64_t m, int64_t n,
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
  float *a = random_f32((size_t)(m * k), seed, -1.0f, 1.0f);
  float *b = random_f32((size_t)(k * n), seed + 1, -1.0f, 1.0f);
  float *c = alloc_f32((size_t)(m * n));
  poison_f32(c, (size_t)(m * n));
  tessel_memref_f32_2d da = {a, a, 0, {at ? k : m, at ? m : k}, {at ? m : k, 1}};
  tessel_memref_f32_2d db = {b, b, 0, {bt ? n : k, bt ? k : n}, {bt ? k : n, 1}};
  tessel_memref_f32_2d dc = {c, c, 0, {m, n}, {n, 1}};
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
  float *a = random_f32((size_t)(p.batch * p.m * p.k), 51, -1.0f, 1.0f);
  float *b = random_f32((size_t)(p.batch * p.k * p.n), 52, -1.0f, 1.0f);
  float *w = random_f32((size_t)(p.k * p.n), 53, -1.0f, 1.0f);
  float *c = alloc_f32(cs), *s = alloc_f32(cs);
  poison_f32(c, cs);
  poison_f32(s, cs);
  tessel_memref_f32_3d da = {a, a, 0, {p.batch, p.m, p.k}, {p.m * p.k, p.k, 1}};
  tessel_memref_f32_3d db = {b, b, 0, {p.batch, p.k, p.n}, {p.k * p.n, p.n, 1}};
  tessel_memref_f32_2d dw = {w, w, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f32_3d dc = {c, c, 0, {p.batch, p.m, p.n}, {p.m * p.n, p.n, 1}};
  tessel_memref_f32_3d ds = {s, s, 0, {p.batch, p.m, p.n}, {p.m * p.n, p.n, 1}};
  _mlir_ciface_batch3_f32_64x48x32(&da, &db, &dw, &dc, &ds);
  double *ref = reference(&p, a, b, NULL);
  check_sum("batch_matmul", &p, c, ref);
  double *ref_shared = reference(&shared, a, w, NULL);
  check_sum("batch_shared_b", &p, s, ref_shared);
  harness_free(a); harness_free(b); harness_free(w); harness_free(c);
  harness_free(s); harness_free(ref); harness_free(ref_shared);
}

static void run_accumulate(void) {
  problem p = plain(72, 40, 48);
  float *a = random_f32((size_t)(p.m * p.k), 61, -1.0f, 1.0f);
  float *b = random_f32((size_t)(p.k * p.n), 62, -1.0f, 1.0f);
  float *c0 = random_f32((size_t)(p.m * p.n), 63, -4.0f, 4.0f);
  float *c = alloc_f32((size_t)(p.m * p.n));
  poison_f32(c, (size_t)(p.m * p.n));
  tessel_memref_f32_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_f32_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f32_2d dc0 = {c0, c0, 0, {p.m, p.n}, {p.n, 1}};
  tessel_memref_f32_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  _mlir_ciface_f32_accumulate_72x40x48(&da, &db, &dc0, &dc);
  double *ref = reference(&p, a, b, c0);
  check_sum("accumulate", &p, c, ref);
  harness_free(a); harness_free(b); harness_free(c0); harness_free(c);
  harness_free(ref);
}

static void run_bias_relu(void) {
  problem p = plain(96, 80, 64);
  float *a = random_f32((size_t)(p.m * p.k), 71, -1.0f, 1.0f);
  float *b = random_f32((size_t)(p.k * p.n), 72, -1.0f, 1.0f);
  float *bias = random_f32((size_t)p.n, 73, -1.0f, 1.0f);
  float *c = alloc_f32((size_t)(p.m * p.n));
  poison_f32(c, (size_t)(p.m * p.n));
  tessel_memref_f32_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_f32_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f32_1d dbias = {bias, bias, 0, {p.n}, {1}};
  tessel_memref_f32_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  _mlir_ciface_f32_bias_relu_96x80x64(&da, &db, &dbias, &dc);
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
  float *x = random_f32(nx, 81, -1.0f, 1.0f);
  float *w = random_f32(nw, 82, -1.0f, 1.0f);
  float *y = alloc_f32(ny);
  poison_f32(y, ny);
  tessel_memref_f32_4d dx = {x, x, 0, {N, H, W, C}, {H * W * C, W * C, C, 1}};
  tessel_memref_f32_4d dw = {w, w, 0, {K, K, C, F}, {K * C * F, C * F, F, 1}};
  tessel_memref_f32_4d dy = {y, y, 0, {N, OH, OW, F}, {OH * OW * F, OW * F, F, 1}};
  _mlir_ciface_f32_conv_2x10x10x16_3x3x32(&dx, &dw, &dy);
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
  run_2d("f32", _mlir_ciface_f32_256x192x128, 256, 192, 128, 0, 0, 1);
  run_2d("f32", _mlir_ciface_f32_33x17x9, 33, 17, 9, 0, 0, 3);
  run_2d("f32", _mlir_ciface_f32_100x72x520, 100, 72, 520, 0, 0, 5);
  run_2d("f32_at_bt", _mlir_ciface_f32_at_bt_80x48x64, 80, 48, 64, 1, 1, 7);
  run_2d("f32_at", _mlir_ciface_f32_at_56x40x48, 56, 40, 48, 1, 0, 9);
  run_2d("f32_bt", _mlir_ciface_f32_bt_56x40x48, 56, 40, 48, 0, 1, 11);
  run_batched();
  run_accumulate();
  run_bias_relu();
  run_conv();
  return harness_finish();
}

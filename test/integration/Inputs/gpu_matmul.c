/* Harness for gpu_matmul.mlir: tensor-core matmul kernels against double
 * references. Built with -DHARNESS_GPU_MANAGED for a real GPU (managed
 * buffers), or without for the kernels emulated on the CPU
 * (tessel-emulate-gpu-on-cpu). */
#include "harness.h"

#include <stdint.h>

static uint16_t to_f16(float x) {
  _Float16 h = (_Float16)x;
  uint16_t bits;
  memcpy(&bits, &h, sizeof bits);
  return bits;
}

static double from_f16(uint16_t bits) {
  _Float16 h;
  memcpy(&h, &bits, sizeof h);
  return (double)h;
}

/* Values in [-1, 1) rounded to f16 (the products are then exact in f32). */
static uint16_t *random_f16(size_t count, uint64_t seed) {
  float *f = random_f32(count, seed, -1.0f, 1.0f);
  uint16_t *h = (uint16_t *)harness_alloc(count, sizeof(uint16_t));
  for (size_t i = 0; i < count; ++i)
    h[i] = to_f16(f[i]);
  harness_free(f);
  return h;
}

static int8_t *random_i8(size_t count, uint64_t seed) {
  float *f = random_f32(count, seed, -1.0f, 1.0f);
  int8_t *q = (int8_t *)harness_alloc(count, 1);
  for (size_t i = 0; i < count; ++i)
    q[i] = (int8_t)(f[i] * 127.0f);
  harness_free(f);
  return q;
}

/* ref[b][i][j] = init + sum_k A(b, i, k) B(b, k, j), where A(b, i, k) is
 * a[b * bsa + i * sai + k * sak] (likewise B), and init is c0 (if given)
 * or `fill`. */
typedef double (*element_fn)(const void *, size_t);
static double f16_at(const void *p, size_t i) {
  return from_f16(((const uint16_t *)p)[i]);
}
static double i8_at(const void *p, size_t i) {
  return (double)((const int8_t *)p)[i];
}

typedef struct {
  int64_t batch, m, n, k;
  int64_t bsa, sai, sak; /* A's batch, row (m) and k strides */
  int64_t bsb, sbk, sbj; /* B's batch, k and column (n) strides */
} problem;

static double *reference(const problem *p, const void *a, const void *b,
                         element_fn at, const float *c0, double fill) {
  double *ref = alloc_f64((size_t)(p->batch * p->m * p->n));
  for (int64_t q = 0; q < p->batch; ++q)
    for (int64_t i = 0; i < p->m; ++i)
      for (int64_t j = 0; j < p->n; ++j) {
        size_t o = (size_t)((q * p->m + i) * p->n + j);
        double s = c0 ? (double)c0[o] : fill;
        for (int64_t l = 0; l < p->k; ++l)
          s += at(a, (size_t)(q * p->bsa + i * p->sai + l * p->sak)) *
               at(b, (size_t)(q * p->bsb + l * p->sbk + j * p->sbj));
        ref[o] = s;
      }
  return ref;
}

static problem plain(int64_t m, int64_t n, int64_t k) {
  return (problem){1, m, n, k, 0, k, 1, 0, n, 1};
}

static void shape_name(char *out, size_t size, const problem *p) {
  if (p->batch > 1)
    snprintf(out, size, "%ldx%ldx%ldx%ld", (long)p->batch, (long)p->m,
             (long)p->n, (long)p->k);
  else
    snprintf(out, size, "%ldx%ldx%ld", (long)p->m, (long)p->n, (long)p->k);
}

/* f32 sums of k products of magnitude <= 1, in another order. */
static void check_sum(const char *name, const problem *p, float *c,
                      const double *ref) {
  char shape[64];
  shape_name(shape, sizeof shape, p);
  check_f32(name, shape, c, ref, (size_t)(p->batch * p->m * p->n), 1e-5,
            2e-6 * (double)p->k);
}

typedef void (*f16_f32_fn)(tessel_memref_f16_2d *, tessel_memref_f16_2d *,
                           tessel_memref_f32_2d *);

static void run_f16_f32(const char *name, f16_f32_fn fn, problem p,
                        uint64_t seed) {
  uint16_t *a = random_f16((size_t)(p.m * p.k), seed);
  uint16_t *b = random_f16((size_t)(p.k * p.n), seed + 1);
  float *c = alloc_f32((size_t)(p.m * p.n));
  poison_f32(c, (size_t)(p.m * p.n));
  tessel_memref_f16_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_f16_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f32_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  fn(&da, &db, &dc);
  double *ref = reference(&p, a, b, f16_at, NULL, 0.0);
  check_sum(name, &p, c, ref);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
}

static void run_f16_f16(void) {
  problem p = plain(128, 96, 64);
  uint16_t *a = random_f16((size_t)(p.m * p.k), 21);
  uint16_t *b = random_f16((size_t)(p.k * p.n), 22);
  uint16_t *c = (uint16_t *)harness_alloc((size_t)(p.m * p.n), 2);
  memset(c, 0xff, (size_t)(p.m * p.n) * 2); /* NaN */
  tessel_memref_f16_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_f16_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f16_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  _mlir_ciface_f16_f16_128x96x64(&da, &db, &dc);
  double *ref = reference(&p, a, b, f16_at, NULL, 0.0);
  double *got = alloc_f64((size_t)(p.m * p.n));
  for (int64_t i = 0; i < p.m * p.n; ++i)
    got[i] = from_f16(c[i]);
  /* Sums of 64 products of magnitude <= 1 rounded to f16 (11 bits) once per
   * 16 k steps. */
  check_f64("f16_f16", "128x96x64", got, ref, (size_t)(p.m * p.n), 1e-2, 2e-2);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
  harness_free(got);
}

static void run_i8_i32(void) {
  problem p = plain(96, 80, 80);
  int8_t *a = random_i8((size_t)(p.m * p.k), 31);
  int8_t *b = random_i8((size_t)(p.k * p.n), 32);
  int32_t *c = (int32_t *)harness_alloc((size_t)(p.m * p.n), 4);
  memset(c, 0x5a, (size_t)(p.m * p.n) * 4);
  tessel_memref_i8_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_i8_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_i32_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  _mlir_ciface_i8_i32_96x80x80(&da, &db, &dc);
  double *ref = reference(&p, a, b, i8_at, NULL, 0.0);
  double *got = alloc_f64((size_t)(p.m * p.n));
  for (int64_t i = 0; i < p.m * p.n; ++i)
    got[i] = (double)c[i];
  check_f64("i8_i32", "96x80x80", got, ref, (size_t)(p.m * p.n), 0.0, 0.0);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
  harness_free(got);
}

static void run_transposed(void) {
  /* A^T is 64x80 (k x m), B^T is 48x64 (n x k). */
  problem p = {1, 80, 48, 64, 0, 1, 80, 0, 1, 64};
  uint16_t *at = random_f16((size_t)(p.k * p.m), 41);
  uint16_t *bt = random_f16((size_t)(p.n * p.k), 42);
  float *c = alloc_f32((size_t)(p.m * p.n));
  poison_f32(c, (size_t)(p.m * p.n));
  tessel_memref_f16_2d da = {at, at, 0, {p.k, p.m}, {p.m, 1}};
  tessel_memref_f16_2d db = {bt, bt, 0, {p.n, p.k}, {p.k, 1}};
  tessel_memref_f32_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  _mlir_ciface_f16_f32_at_bt_80x48x64(&da, &db, &dc);
  double *ref = reference(&p, at, bt, f16_at, NULL, 0.0);
  check_sum("f16_f32_at_bt", &p, c, ref);
  harness_free(at); harness_free(bt); harness_free(c); harness_free(ref);
}

/* One operand transposed: A given as A^T (k x m), or B as B^T (n x k). */
static void run_one_transposed(void) {
  problem pa = {1, 56, 40, 48, 0, 1, 56, 0, 40, 1};
  uint16_t *at = random_f16((size_t)(pa.k * pa.m), 81);
  uint16_t *b = random_f16((size_t)(pa.k * pa.n), 82);
  float *c = alloc_f32((size_t)(pa.m * pa.n));
  poison_f32(c, (size_t)(pa.m * pa.n));
  tessel_memref_f16_2d dat = {at, at, 0, {pa.k, pa.m}, {pa.m, 1}};
  tessel_memref_f16_2d db = {b, b, 0, {pa.k, pa.n}, {pa.n, 1}};
  tessel_memref_f32_2d dc = {c, c, 0, {pa.m, pa.n}, {pa.n, 1}};
  _mlir_ciface_f16_f32_at_56x40x48(&dat, &db, &dc);
  double *ref = reference(&pa, at, b, f16_at, NULL, 0.0);
  check_sum("f16_f32_at", &pa, c, ref);
  harness_free(ref);

  problem pb = {1, 56, 40, 48, 0, 48, 1, 0, 1, 48};
  uint16_t *a = random_f16((size_t)(pb.m * pb.k), 83);
  uint16_t *bt = random_f16((size_t)(pb.n * pb.k), 84);
  poison_f32(c, (size_t)(pb.m * pb.n));
  tessel_memref_f16_2d da = {a, a, 0, {pb.m, pb.k}, {pb.k, 1}};
  tessel_memref_f16_2d dbt = {bt, bt, 0, {pb.n, pb.k}, {pb.k, 1}};
  _mlir_ciface_f16_f32_bt_56x40x48(&da, &dbt, &dc);
  ref = reference(&pb, a, bt, f16_at, NULL, 0.0);
  check_sum("f16_f32_bt", &pb, c, ref);
  harness_free(at); harness_free(b); harness_free(a); harness_free(bt);
  harness_free(c); harness_free(ref);
}

/* Two B's sharing one A. */
static void run_shared_a(void) {
  problem p = {2, 40, 48, 32, 0, 32, 1, 32 * 48, 48, 1};
  size_t cs = (size_t)(p.batch * p.m * p.n);
  uint16_t *a = random_f16((size_t)(p.m * p.k), 91);
  uint16_t *b = random_f16((size_t)(p.batch * p.k * p.n), 92);
  float *c = alloc_f32(cs);
  poison_f32(c, cs);
  tessel_memref_f16_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_f16_3d db = {b, b, 0, {p.batch, p.k, p.n}, {p.k * p.n, p.n, 1}};
  tessel_memref_f32_3d dc = {c, c, 0, {p.batch, p.m, p.n}, {p.m * p.n, p.n, 1}};
  _mlir_ciface_batch2_shared_a_40x48x32(&da, &db, &dc);
  double *ref = reference(&p, a, b, f16_at, NULL, 0.0);
  check_sum("batch_shared_a", &p, c, ref);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
}

static void run_batched(void) {
  problem p = {3, 64, 48, 32, 64 * 32, 32, 1, 32 * 48, 48, 1};
  problem shared = p;
  shared.bsb = 0;
  size_t cs = (size_t)(p.batch * p.m * p.n);
  uint16_t *a = random_f16((size_t)(p.batch * p.m * p.k), 51);
  uint16_t *b = random_f16((size_t)(p.batch * p.k * p.n), 52);
  uint16_t *w = random_f16((size_t)(p.k * p.n), 53);
  float *c = alloc_f32(cs), *s = alloc_f32(cs);
  poison_f32(c, cs);
  poison_f32(s, cs);
  tessel_memref_f16_3d da = {a, a, 0, {p.batch, p.m, p.k}, {p.m * p.k, p.k, 1}};
  tessel_memref_f16_3d db = {b, b, 0, {p.batch, p.k, p.n}, {p.k * p.n, p.n, 1}};
  tessel_memref_f16_2d dw = {w, w, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f32_3d dc = {c, c, 0, {p.batch, p.m, p.n}, {p.m * p.n, p.n, 1}};
  tessel_memref_f32_3d ds = {s, s, 0, {p.batch, p.m, p.n}, {p.m * p.n, p.n, 1}};
  _mlir_ciface_batch3_f16_f32_64x48x32(&da, &db, &dw, &dc, &ds);
  double *ref = reference(&p, a, b, f16_at, NULL, 0.0);
  check_sum("batch_matmul", &p, c, ref);
  double *ref_shared = reference(&shared, a, w, f16_at, NULL, 0.0);
  check_sum("batch_shared_b", &p, s, ref_shared);
  harness_free(a); harness_free(b); harness_free(w); harness_free(c);
  harness_free(s); harness_free(ref); harness_free(ref_shared);
}

static void run_initial_c(void) {
  problem p = plain(72, 40, 48);
  uint16_t *a = random_f16((size_t)(p.m * p.k), 61);
  uint16_t *b = random_f16((size_t)(p.k * p.n), 62);
  float *c0 = random_f32((size_t)(p.m * p.n), 63, -4.0f, 4.0f);
  float *c = alloc_f32((size_t)(p.m * p.n));
  poison_f32(c, (size_t)(p.m * p.n));
  tessel_memref_f16_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_f16_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f32_2d dc0 = {c0, c0, 0, {p.m, p.n}, {p.n, 1}};
  tessel_memref_f32_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  _mlir_ciface_f16_f32_accumulate_72x40x48(&da, &db, &dc0, &dc);
  double *ref = reference(&p, a, b, f16_at, c0, 0.0);
  check_sum("accumulate", &p, c, ref);
  poison_f32(c, (size_t)(p.m * p.n));
  _mlir_ciface_f16_f32_fill_72x40x48(&da, &db, &dc);
  double *ref_fill = reference(&p, a, b, f16_at, NULL, 1.5);
  check_sum("fill_1.5", &p, c, ref_fill);
  harness_free(a); harness_free(b); harness_free(c0); harness_free(c);
  harness_free(ref); harness_free(ref_fill);
}

static void run_bias(void) {
  problem p = plain(64, 64, 64);
  uint16_t *a = random_f16((size_t)(p.m * p.k), 71);
  uint16_t *b = random_f16((size_t)(p.k * p.n), 72);
  float *bias = random_f32((size_t)p.n, 73, -1.0f, 1.0f);
  float *c = alloc_f32((size_t)(p.m * p.n));
  poison_f32(c, (size_t)(p.m * p.n));
  tessel_memref_f16_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_f16_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f32_1d dbias = {bias, bias, 0, {p.n}, {1}};
  tessel_memref_f32_2d dc = {c, c, 0, {p.m, p.n}, {p.n, 1}};
  _mlir_ciface_f16_f32_bias_64x64x64(&da, &db, &dbias, &dc);
  double *ref = reference(&p, a, b, f16_at, NULL, 0.0);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j)
      ref[i * p.n + j] += (double)bias[j];
  check_sum("matmul_bias", &p, c, ref);
  harness_free(a); harness_free(b); harness_free(bias); harness_free(c);
  harness_free(ref);
}

/* The epilogues fused into the kernel (and one that is not). */
static void run_epilogues(void) {
  problem p = plain(96, 80, 64);
  uint16_t *a = random_f16((size_t)(p.m * p.k), 101);
  uint16_t *b = random_f16((size_t)(p.k * p.n), 102);
  float *bias = random_f32((size_t)p.n, 103, -1.0f, 1.0f);
  uint16_t *h = (uint16_t *)harness_alloc((size_t)(p.m * p.n), 2);
  memset(h, 0xff, (size_t)(p.m * p.n) * 2);
  tessel_memref_f16_2d da = {a, a, 0, {p.m, p.k}, {p.k, 1}};
  tessel_memref_f16_2d db = {b, b, 0, {p.k, p.n}, {p.n, 1}};
  tessel_memref_f32_1d dbias = {bias, bias, 0, {p.n}, {1}};
  tessel_memref_f16_2d dh = {h, h, 0, {p.m, p.n}, {p.n, 1}};
  _mlir_ciface_f16_bias_relu_f16_96x80x64(&da, &db, &dbias, &dh);
  double *ref = reference(&p, a, b, f16_at, NULL, 0.0);
  double *got = alloc_f64((size_t)(p.m * p.n));
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double v = ref[i * p.n + j] + (double)bias[j];
      ref[i * p.n + j] = v > 0 ? v : 0;
      got[i * p.n + j] = from_f16(h[i * p.n + j]);
    }
  /* f16 results: 11 significant bits. */
  check_f64("bias_relu_f16", "96x80x64", got, ref, (size_t)(p.m * p.n), 2e-3,
            2e-3);
  harness_free(a); harness_free(b); harness_free(bias); harness_free(h);
  harness_free(ref); harness_free(got);

  problem q = plain(72, 40, 48);
  a = random_f16((size_t)(q.m * q.k), 111);
  b = random_f16((size_t)(q.k * q.n), 112);
  float *res = random_f32((size_t)(q.m * q.n), 113, -2.0f, 2.0f);
  float *scale = random_f32((size_t)q.m, 114, 0.5f, 1.5f);
  float *c = alloc_f32((size_t)(q.m * q.n));
  poison_f32(c, (size_t)(q.m * q.n));
  tessel_memref_f16_2d qa = {a, a, 0, {q.m, q.k}, {q.k, 1}};
  tessel_memref_f16_2d qb = {b, b, 0, {q.k, q.n}, {q.n, 1}};
  tessel_memref_f32_2d dres = {res, res, 0, {q.m, q.n}, {q.n, 1}};
  tessel_memref_f32_1d dscale = {scale, scale, 0, {q.m}, {1}};
  tessel_memref_f32_2d dc = {c, c, 0, {q.m, q.n}, {q.n, 1}};
  _mlir_ciface_f16_residual_scale_72x40x48(&qa, &qb, &dres, &dscale, &dc);
  ref = reference(&q, a, b, f16_at, NULL, 0.0);
  for (int64_t i = 0; i < q.m; ++i)
    for (int64_t j = 0; j < q.n; ++j)
      ref[i * q.n + j] =
          (ref[i * q.n + j] + (double)res[i * q.n + j]) * (double)scale[i];
  check_sum("residual_scale", &q, c, ref);
  harness_free(a); harness_free(b); harness_free(res); harness_free(scale);
  harness_free(c); harness_free(ref);

  /* int8 requantization: exact integer products, then a per-column scale
   * small enough that most values land inside [-128, 127]. */
  problem r = plain(96, 80, 80);
  int8_t *qa8 = random_i8((size_t)(r.m * r.k), 121);
  int8_t *qb8 = random_i8((size_t)(r.k * r.n), 122);
  float *cs = random_f32((size_t)r.n, 123, 1e-3f, 4e-3f);
  int8_t *out = (int8_t *)harness_alloc((size_t)(r.m * r.n), 1);
  memset(out, 0x55, (size_t)(r.m * r.n));
  tessel_memref_i8_2d ra = {qa8, qa8, 0, {r.m, r.k}, {r.k, 1}};
  tessel_memref_i8_2d rb = {qb8, qb8, 0, {r.k, r.n}, {r.n, 1}};
  tessel_memref_f32_1d dcs = {cs, cs, 0, {r.n}, {1}};
  tessel_memref_i8_2d dout = {out, out, 0, {r.m, r.n}, {r.n, 1}};
  _mlir_ciface_i8_requantize_96x80x80(&ra, &rb, &dcs, &dout);
  ref = reference(&r, qa8, qb8, i8_at, NULL, 0.0);
  got = alloc_f64((size_t)(r.m * r.n));
  for (int64_t i = 0; i < r.m; ++i)
    for (int64_t j = 0; j < r.n; ++j) {
      /* The product in f32 (as the kernel computes it), rounded to even. */
      float v = nearbyintf((float)ref[i * r.n + j] * cs[j]);
      ref[i * r.n + j] = v < -128.0f ? -128.0 : v > 127.0f ? 127.0 : v;
      got[i * r.n + j] = (double)out[i * r.n + j];
    }
  check_f64("i8_requantize", "96x80x80", got, ref, (size_t)(r.m * r.n), 0.0,
            0.0);
  harness_free(qa8); harness_free(qb8); harness_free(cs); harness_free(out);
  harness_free(ref); harness_free(got);

  problem t = plain(64, 48, 32);
  a = random_f16((size_t)(t.m * t.k), 131);
  b = random_f16((size_t)(t.k * t.n), 132);
  c = alloc_f32((size_t)(t.m * t.n));
  poison_f32(c, (size_t)(t.m * t.n));
  tessel_memref_f16_2d ta = {a, a, 0, {t.m, t.k}, {t.k, 1}};
  tessel_memref_f16_2d tb = {b, b, 0, {t.k, t.n}, {t.n, 1}};
  tessel_memref_f32_2d tc = {c, c, 0, {t.n, t.m}, {t.m, 1}};
  _mlir_ciface_f16_transposed_consumer_64x48x32(&ta, &tb, &tc);
  ref = reference(&t, a, b, f16_at, NULL, 0.0);
  double *refT = alloc_f64((size_t)(t.m * t.n));
  for (int64_t i = 0; i < t.m; ++i)
    for (int64_t j = 0; j < t.n; ++j)
      refT[j * t.m + i] = 2.0 * ref[i * t.n + j];
  check_sum("transposed_consumer", &t, c, refT);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
  harness_free(refT);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_f16_f32("f16_f32", _mlir_ciface_f16_f32_256x192x128, plain(256, 192, 128), 1);
  run_f16_f32("f16_f32", _mlir_ciface_f16_f32_100x72x40, plain(100, 72, 40), 3);
  run_f16_f32("f16_f32", _mlir_ciface_f16_f32_33x17x9, plain(33, 17, 9), 5);
  run_f16_f32("f16_f32", _mlir_ciface_f16_f32_192x320x520,
              plain(192, 320, 520), 7);
  run_f16_f16();
  run_i8_i32();
  run_transposed();
  run_one_transposed();
  run_batched();
  run_shared_a();
  run_initial_c();
  run_bias();
  run_epilogues();
  return harness_finish();
}

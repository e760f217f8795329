/* Harness for gpu_matmul_nk.mlir: products with B given as (n, k), the i8
 * ones checked exactly against integer references, the f16 one against a
 * double-precision reference. Built with
 * -DHARNESS_GPU_MANAGED for a real GPU (managed buffers), or without for
 * the kernels emulated on the CPU (tessel-emulate-gpu-on-cpu). */
#include "harness.h"
#include "tensor_core_inputs.h"

#include <stdint.h>

static int8_t *random_i8(size_t count, uint64_t seed) {
  return (int8_t *)random_input(count, seed, 1);
}

/* ref[i][j] = sum_k A[i][k] * B(k, j); B(k, j) is b[j * k + kk] when B is
 * given as (n, k), b[kk * n + j] otherwise. Exact in double. */
static double *reference(int64_t m, int64_t n, int64_t k, const int8_t *a,
                         const int8_t *b, int b_nk) {
  double *ref = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += (int64_t)a[i * k + kk] *
               (int64_t)(b_nk ? b[j * k + kk] : b[kk * n + j]);
      ref[i * n + j] = (double)sum;
    }
  return ref;
}

typedef void (*product_fn)(tessel_memref_i8_2d *, tessel_memref_i8_2d *,
                           tessel_memref_i32_2d *);

static void run_product(const char *name, product_fn fn, int64_t m, int64_t n,
                        int64_t k, int b_nk, uint64_t seed) {
  int8_t *a = random_i8((size_t)(m * k), seed);
  int8_t *b = random_i8((size_t)(k * n), seed + 1);
  int32_t *c = (int32_t *)harness_alloc((size_t)(m * n), 4);
  memset(c, 0x5a, (size_t)(m * n) * 4);
  tessel_memref_i8_2d da = {a, a, 0, {m, k}, {k, 1}};
  tessel_memref_i8_2d db = b_nk ? (tessel_memref_i8_2d){b, b, 0, {n, k}, {k, 1}}
                                : (tessel_memref_i8_2d){b, b, 0, {k, n}, {n, 1}};
  tessel_memref_i32_2d dc = {c, c, 0, {m, n}, {n, 1}};
  fn(&da, &db, &dc);
  double *ref = reference(m, n, k, a, b, b_nk);
  double *got = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m * n; ++i)
    got[i] = (double)c[i];
  char shape[64];
  snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)m, (long)n, (long)k);
  check_f64(name, shape, got, ref, (size_t)(m * n), 0.0, 0.0);
  harness_free(a); harness_free(b); harness_free(c); harness_free(ref);
  harness_free(got);
}

/* Requantization: exact integer products, a per-column scale small enough
 * that most values land inside [-128, 127], rounded to even in f32 as the
 * kernel computes it. */
static void run_requantize(void) {
  const int64_t m = 96, n = 80, k = 80;
  int8_t *a = random_i8((size_t)(m * k), 121);
  int8_t *b = random_i8((size_t)(n * k), 122);
  float *cs = random_f32((size_t)n, 123, 1e-4f, 4e-4f);
  int8_t *out = (int8_t *)harness_alloc((size_t)(m * n), 1);
  memset(out, 0x55, (size_t)(m * n));
  tessel_memref_i8_2d da = {a, a, 0, {m, k}, {k, 1}};
  tessel_memref_i8_2d db = {b, b, 0, {n, k}, {k, 1}};
  tessel_memref_f32_1d dcs = {cs, cs, 0, {n}, {1}};
  tessel_memref_i8_2d dout = {out, out, 0, {m, n}, {n, 1}};
  _mlir_ciface_i8_bt_requantize_96x80x80(&da, &db, &dcs, &dout);
  double *ref = reference(m, n, k, a, b, 1);
  double *got = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float v = nearbyintf((float)ref[i * n + j] * cs[j]);
      ref[i * n + j] = v < -128.0f ? -128.0 : v > 127.0f ? 127.0 : v;
      got[i * n + j] = (double)out[i * n + j];
    }
  check_f64("i8_bt_requantize", "96x80x80", got, ref, (size_t)(m * n), 0.0,
            0.0);
  harness_free(a); harness_free(b); harness_free(cs); harness_free(out);
  harness_free(ref); harness_free(got);
}

/* f16 inputs in [-1, 1), so the f32 sums of 264 exact products differ from
 * the double reference only by the order of their roundings; then bias and
 * ReLU. */
static void run_f16_bias_relu(void) {
  const int64_t m = 200, n = 336, k = 264;
  /* f16 memrefs hold the bits (uint16_t). */
  uint16_t *a = (uint16_t *)random_input((size_t)(m * k), 41, 0);
  uint16_t *b = (uint16_t *)random_input((size_t)(n * k), 42, 0);
  float *bias = random_f32((size_t)n, 43, -2.0f, 2.0f);
  float *c = alloc_f32((size_t)(m * n));
  poison_f32(c, (size_t)(m * n));
  tessel_memref_f16_2d da = {a, a, 0, {m, k}, {k, 1}};
  tessel_memref_f16_2d db = {b, b, 0, {n, k}, {k, 1}};
  tessel_memref_f32_1d dbias = {bias, bias, 0, {n}, {1}};
  tessel_memref_f32_2d dc = {c, c, 0, {m, n}, {n, 1}};
  _mlir_ciface_f16_bt_bias_relu_200x336x264(&da, &db, &dbias, &dc);
  double *ref = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += f16_value(a, (size_t)(i * k + kk)) *
               f16_value(b, (size_t)(j * k + kk));
      sum += bias[j];
      ref[i * n + j] = sum > 0.0 ? sum : 0.0;
    }
  check_f32("f16_bt_bias_relu", "200x336x264", c, ref, (size_t)(m * n), 1e-4,
            1e-4);
  harness_free(bias); harness_free(a); harness_free(b); harness_free(c);
  harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_product("i8_bt", _mlir_ciface_i8_bt_200x336x528, 200, 336, 528, 1, 1);
  run_product("i8_bt", _mlir_ciface_i8_bt_64x64x128, 64, 64, 128, 1, 11);
  run_requantize();
  run_product("i8_kn", _mlir_ciface_i8_kn_64x48x64, 64, 48, 64, 0, 21);
  run_product("i8_kn", _mlir_ciface_i8_kn_200x336x528, 200, 336, 528, 0, 31);
  run_product("i8_kn", _mlir_ciface_i8_kn_64x40x48, 64, 40, 48, 0, 41);
  run_f16_bias_relu();
  return harness_finish();
}

/* Harness for gpu_matmul_const.mlir (written by gpu_matmul_const.py):
 * products one of whose operands is a constant compiled into the program,
 * checked against references computed from the constants' formula (the
 * generator's weight(i, j)), the i8 ones exactly, the f16 ones against a
 * double-precision reference. Built with -DHARNESS_GPU_MANAGED for a real
 * GPU (managed buffers), or without for the kernels emulated on the CPU. */
#include "harness.h"
#include "tensor_core_inputs.h"

#include <stdint.h>

/* Element (i, j) of a constant; f16 constants hold it divided by 8. */
static int weight(int64_t i, int64_t j) {
  return (int)((i * 7 + j * 13) % 17) - 8;
}

/* x (m, k) times a constant B: b_nk says B is given as (n, k), else (k, n). */
static void run_i8(const char *name, int64_t m, int64_t n, int64_t k, int b_nk,
                   uint64_t seed,
                   void (*fn)(tessel_memref_i8_2d *, tessel_memref_i32_2d *)) {
  int8_t *x = (int8_t *)random_input((size_t)(m * k), seed, 1);
  int32_t *c = (int32_t *)harness_alloc((size_t)(m * n), 4);
  memset(c, 0x5a, (size_t)(m * n) * 4);
  tessel_memref_i8_2d dx = {x, x, 0, {m, k}, {k, 1}};
  tessel_memref_i32_2d dc = {c, c, 0, {m, n}, {n, 1}};
  fn(&dx, &dc);
  double *ref = alloc_f64((size_t)(m * n));
  double *got = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += (int64_t)x[i * k + kk] * (b_nk ? weight(j, kk) : weight(kk, j));
      ref[i * n + j] = (double)sum;
      got[i * n + j] = (double)c[i * n + j];
    }
  char shape[64];
  snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)m, (long)n, (long)k);
  check_f64(name, shape, got, ref, (size_t)(m * n), 0.0, 0.0);
  harness_free(x); harness_free(c); harness_free(ref); harness_free(got);
}

/* f16 x (72, 96) times the constant (96, 136): inputs in [-1, 1), so the f32
 * sums of exact products differ from the double reference only by the
 * order of their roundings. */
static void run_f16_constant_b(void) {
  const int64_t m = 72, n = 136, k = 96;
  uint16_t *x = (uint16_t *)random_input((size_t)(m * k), 51, 0);
  float *c = alloc_f32((size_t)(m * n));
  poison_f32(c, (size_t)(m * n));
  tessel_memref_f16_2d dx = {x, x, 0, {m, k}, {k, 1}};
  tessel_memref_f32_2d dc = {c, c, 0, {m, n}, {n, 1}};
  _mlir_ciface_f16_const_kn_72x136x96(&dx, &dc);
  double *ref = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += f16_value(x, (size_t)(i * k + kk)) * weight(kk, j) / 8.0;
      ref[i * n + j] = sum;
    }
  check_f32("f16_const_kn", "72x136x96", c, ref, (size_t)(m * n), 1e-4, 1e-4);
  harness_free(x); harness_free(c); harness_free(ref);
}

/* Rows 64..127 of the constant (192, 96) times b (96, 72): a view that
 * starts inside the constant. */
static void run_f16_constant_rows(void) {
  const int64_t m = 64, n = 72, k = 96;
  uint16_t *b = (uint16_t *)random_input((size_t)(k * n), 61, 0);
  float *c = alloc_f32((size_t)(m * n));
  poison_f32(c, (size_t)(m * n));
  tessel_memref_f16_2d db = {b, b, 0, {k, n}, {n, 1}};
  tessel_memref_f32_2d dc = {c, c, 0, {m, n}, {n, 1}};
  _mlir_ciface_f16_const_rows_64x72x96(&db, &dc);
  double *ref = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += weight(64 + i, kk) / 8.0 * f16_value(b, (size_t)(kk * n + j));
      ref[i * n + j] = sum;
    }
  check_f32("f16_const_rows", "64x72x96", c, ref, (size_t)(m * n), 1e-4, 1e-4);
  harness_free(b); harness_free(c); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_f16_constant_b();
  run_i8("i8_const_nk", 72, 80, 160, 1, 71, _mlir_ciface_i8_const_nk_72x80x160);
  run_f16_constant_rows();
  run_i8("i8_const_kn", 64, 48, 64, 0, 81, _mlir_ciface_i8_const_kn_64x48x64);
  run_i8("i8_resource_kn", 64, 80, 128, 0, 91,
         _mlir_ciface_i8_resource_kn_64x80x128);
  return harness_finish();
}

/* Harness for matmul_vectorized.mlir: C = A * B (and C = C0 + A * B) in f32
 * against a double-precision reference. */
#include "harness.h"

typedef void (*matmul_fn)(tessel_memref_f32_2d *, tessel_memref_f32_2d *,
                          tessel_memref_f32_2d *);
typedef void (*matmul_acc_fn)(tessel_memref_f32_2d *, tessel_memref_f32_2d *,
                              tessel_memref_f32_2d *, tessel_memref_f32_2d *);

static void run(matmul_fn fn, matmul_acc_fn acc_fn, int64_t m, int64_t k,
                int64_t n, uint64_t seed) {
  float *a = random_f32((size_t)(m * k), seed, -1.0f, 1.0f);
  float *b = random_f32((size_t)(k * n), seed + 1, -1.0f, 1.0f);
  float *c0 = acc_fn ? random_f32((size_t)(m * n), seed + 2, -1.0f, 1.0f) : NULL;
  float *a0 = copy_f32(a, (size_t)(m * k)), *b0 = copy_f32(b, (size_t)(k * n));
  float *c = alloc_f32((size_t)(m * n));
  poison_f32(c, (size_t)(m * n));
  double *ref = matmul_reference(a, b, c0, m, k, n);

  tessel_memref_f32_2d da, db, dc0, dc;
  tessel_memref_f32_init_2d(&da, a, m, k);
  tessel_memref_f32_init_2d(&db, b, k, n);
  tessel_memref_f32_init_2d(&dc, c, m, n);
  if (acc_fn) {
    tessel_memref_f32_init_2d(&dc0, c0, m, n);
    acc_fn(&da, &db, &dc0, &dc);
  } else {
    fn(&da, &db, &dc);
  }

  char shape[64];
  snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)m, (long)k, (long)n);
  /* f32 accumulation over k terms of magnitude <= 1. */
  check_f32(acc_fn ? "matmul_acc" : "matmul", shape, c, ref, (size_t)(m * n),
            1e-5, 2e-6 * (double)k);
  check_unchanged("matmul", a, a0, (size_t)(m * k) * sizeof(float));
  check_unchanged("matmul", b, b0, (size_t)(k * n) * sizeof(float));
  harness_free(a); harness_free(b); harness_free(a0); harness_free(b0);
  if (c0)
    harness_free(c0);
  harness_free(c); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run(_mlir_ciface_matmul_512x512x512, NULL, 512, 512, 512, 1);
  run(_mlir_ciface_matmul_1000x1000x1000, NULL, 1000, 1000, 1000, 3);
  run(_mlir_ciface_matmul_513x129x257, NULL, 513, 129, 257, 5);
  run(_mlir_ciface_matmul_37x53x29, NULL, 37, 53, 29, 7);
  run(_mlir_ciface_matmul_1x7x3, NULL, 1, 7, 3, 9);
  run(NULL, _mlir_ciface_matmul_acc_37x53x29, 37, 53, 29, 11);
  return harness_finish();
}

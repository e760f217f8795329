/* Harness for tosa.mlir: tosa.add (broadcast), tosa.matmul + add + clamp. */
#include "harness.h"

static void run_add(void) {
  float *a = random_f32(20, 71, -1.0f, 1.0f), *b = random_f32(5, 72, -1.0f, 1.0f);
  float *y = alloc_f32(20);
  poison_f32(y, 20);
  double ref[20];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      ref[i * 5 + j] = (double)a[i * 5 + j] + (double)b[j];
  tessel_memref_f32_2d da, db, dy;
  tessel_memref_f32_init_2d(&da, a, 4, 5);
  tessel_memref_f32_init_2d(&db, b, 1, 5);
  tessel_memref_f32_init_2d(&dy, y, 4, 5);
  _mlir_ciface_add_bcast(&da, &db, &dy);
  check_f32("tosa.add", "4x5+1x5", y, ref, 20, 1e-6, 1e-7);
  harness_free(a); harness_free(b); harness_free(y);
}

static void run_matmul(void) {
  const int64_t B = 2, M = 9, K = 11, N = 6;
  float *a = random_f32(B * M * K, 73, -1.0f, 1.0f);
  float *b = random_f32(B * K * N, 74, -1.0f, 1.0f);
  float *bias = random_f32(N, 75, -1.0f, 1.0f);
  float *y = alloc_f32(B * M * N);
  poison_f32(y, B * M * N);
  double *ref = alloc_f64(B * M * N);
  for (int64_t n = 0; n < B; ++n)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0.0;
        for (int64_t p = 0; p < K; ++p)
          s += (double)a[(n * M + i) * K + p] * (double)b[(n * K + p) * N + j];
        s += (double)bias[j];
        ref[(n * M + i) * N + j] = s > 0.0 ? s : 0.0;
      }
  tessel_memref_f32_3d da, db, dbias, dy;
  tessel_memref_f32_init_3d(&da, a, B, M, K);
  tessel_memref_f32_init_3d(&db, b, B, K, N);
  tessel_memref_f32_init_3d(&dbias, bias, 1, 1, N);
  tessel_memref_f32_init_3d(&dy, y, B, M, N);
  _mlir_ciface_matmul_bias_relu(&da, &db, &dbias, &dy);
  check_f32("tosa.matmul+add+clamp", "2x9x11*2x11x6", y, ref, B * M * N, 1e-5,
            1e-5);
  harness_free(a); harness_free(b); harness_free(bias); harness_free(y); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_add();
  run_matmul();
  return harness_finish();
}

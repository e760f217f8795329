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

static void run_rescale(void) {
  enum { N = 64 };
  int8_t *a = harness_alloc(N, 1), *y = harness_alloc(N, 1);
  double got[N], ref[N];
  for (int i = 0; i < N; ++i) {
    /* -128, -124, ..., 124, and odd values to test the rounding. */
    a[i] = (int8_t)(-128 + 4 * i + (i % 3 == 0));
    y[i] = 0x55;
    /* floor(x / 2 + 1/2) + 3, clamped to i8. */
    double v = floor((double)a[i] / 2.0 + 0.5) + 3.0;
    ref[i] = v < -128 ? -128 : v > 127 ? 127 : v;
  }
  tessel_memref_i8_1d da, dy;
  tessel_memref_i8_init_1d(&da, a, N);
  tessel_memref_i8_init_1d(&dy, y, N);
  _mlir_ciface_rescale_half(&da, &dy);
  for (int i = 0; i < N; ++i)
    got[i] = y[i];
  check_f64("tosa.rescale", "64xi8 by 0.5, zero point 3", got, ref, N, 0.0,
            0.0);
  harness_free(a);
  harness_free(y);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_add();
  run_matmul();
  run_rescale();
  return harness_finish();
}

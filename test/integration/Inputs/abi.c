/* Harness for abi.mlir: strided results, calls between entry points, integer
 * element types, index arguments. */
#include "harness.h"

static void run_center(void) {
  float *a = random_f32(64, 101, -1.0f, 1.0f);
  float *y = alloc_f32(16);
  poison_f32(y, 16);
  double ref[16];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      ref[i * 4 + j] = a[(i + 2) * 8 + j + 2];
  tessel_memref_f32_2d da, dy;
  tessel_memref_f32_init_2d(&da, a, 8, 8);
  tessel_memref_f32_init_2d(&dy, y, 4, 4);
  _mlir_ciface_center(&da, &dy);
  check_f32("center", "8x8->4x4", y, ref, 16, 0.0, 0.0);
  harness_free(a); harness_free(y);
}

static void run_four_times(void) {
  float *a = random_f32(16, 102, -1.0f, 1.0f);
  float *y = alloc_f32(16);
  poison_f32(y, 16);
  double ref[16];
  for (int i = 0; i < 16; ++i)
    ref[i] = 4.0 * a[i];
  tessel_memref_f32_1d da, dy;
  tessel_memref_f32_init_1d(&da, a, 16);
  tessel_memref_f32_init_1d(&dy, y, 16);
  _mlir_ciface_four_times(&da, &dy);
  check_f32("four_times", "16", y, ref, 16, 0.0, 0.0);
  harness_free(a); harness_free(y);
}

static void run_matmul_i32(void) {
  int32_t *a = harness_alloc(30, sizeof(int32_t)), *b = harness_alloc(42, sizeof(int32_t));
  int32_t *c = harness_alloc(35, sizeof(int32_t));
  for (int i = 0; i < 30; ++i)
    a[i] = (i * 7919) % 201 - 100;
  for (int i = 0; i < 42; ++i)
    b[i] = (i * 104729) % 199 - 99;
  for (int i = 0; i < 35; ++i)
    c[i] = 0x7f7f7f7f;
  tessel_memref_i32_2d da, db, dc;
  tessel_memref_i32_init_2d(&da, a, 5, 6);
  tessel_memref_i32_init_2d(&db, b, 6, 7);
  tessel_memref_i32_init_2d(&dc, c, 5, 7);
  _mlir_ciface_matmul_i32(&da, &db, &dc);
  if (g_corrupt)
    c[17] += 1;
  size_t bad = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 7; ++j) {
      int64_t s = 0;
      for (int p = 0; p < 6; ++p)
        s += (int64_t)a[i * 6 + p] * b[p * 7 + j];
      bad += c[i * 7 + j] != (int32_t)s;
    }
  ++g_checks;
  if (bad) {
    ++g_failures;
    printf("FAIL matmul_i32 5x6x7: %zu elements differ\n", bad);
  } else {
    printf("PASS matmul_i32 5x6x7 (exact)\n");
  }
  harness_free(a); harness_free(b); harness_free(c);
}

static void run_pick(void) {
  int64_t *a = harness_alloc(10, sizeof(int64_t));
  for (int i = 0; i < 10; ++i)
    a[i] = 1000000000000LL * i + 7;
  tessel_memref_i64_1d da;
  tessel_memref_i64_init_1d(&da, a, 10);
  int64_t v = _mlir_ciface_pick(&da, 6);
  check_scalar("pick", "10[6]", (double)v, (double)a[6], 0.0, 0.0);
  harness_free(a);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_center();
  run_four_times();
  run_matmul_i32();
  run_pick();
  return harness_finish();
}

/* Harness for gpu_emulation.mlir: rotate_rows' out[t] must be
 * in[(t + 1) % 32]; shuffles' rows follow gpu.shuffle's modes (lane = t % 32,
 * an out-of-range source gives the thread's own value, marked invalid). */
#include "harness.h"

int main(int argc, char **argv) {
  harness_init(argc, argv);
  float *in = random_f32(32 * 4, 7, -1.0f, 1.0f);
  float *out = alloc_f32(32 * 4);
  poison_f32(out, 32 * 4);
  /* Shared memory is uninitialized: fill the heap it may come from with a
   * value no row has, so stale reads differ. */
  for (int i = 0; i < 64; ++i) {
    float *scratch = alloc_f32(128);
    for (int j = 0; j < 128; ++j)
      scratch[j] = 1e9f;
    harness_free(scratch);
  }
  tessel_memref_f32_2d din = {in, in, 0, {32, 4}, {4, 1}};
  tessel_memref_f32_2d dout = {out, out, 0, {32, 4}, {4, 1}};
  _mlir_ciface_rotate_rows(&din, &dout);
  double *ref = alloc_f64(32 * 4);
  for (int t = 0; t < 32; ++t)
    for (int j = 0; j < 4; ++j)
      ref[t * 4 + j] = in[((t + 1) % 32) * 4 + j];
  check_f32("rotate_rows", "32x4", out, ref, 32 * 4, 0.0, 0.0);
  harness_free(in); harness_free(out); harness_free(ref);

  float *values = random_f32(64, 8, -1.0f, 1.0f);
  float *received = alloc_f32(4 * 64);
  int32_t *valid = (int32_t *)harness_alloc(4 * 64, sizeof(int32_t));
  double *expected = alloc_f64(4 * 64);
  poison_f32(received, 4 * 64);
  tessel_memref_f32_1d dvalues = {values, values, 0, {64}, {1}};
  tessel_memref_f32_2d dreceived = {received, received, 0, {4, 64}, {64, 1}};
  tessel_memref_i32_2d dvalid = {valid, valid, 0, {4, 64}, {64, 1}};
  _mlir_ciface_shuffles(&dvalues, &dreceived, &dvalid);
  int flags_wrong = 0;
  for (int m = 0; m < 4; ++m)
    for (int t = 0; t < 64; ++t) {
      int lane = t % 32, warp = t - lane;
      int source = m == 0 ? lane ^ 5 : m == 1 ? lane + 3 : m == 2 ? lane - 3 : 7;
      int in_range = source >= 0 && source < 32;
      expected[m * 64 + t] = values[in_range ? warp + source : t];
      flags_wrong += valid[m * 64 + t] != in_range;
    }
  check_f32("shuffles", "4 modes x 64 threads", received, expected, 4 * 64,
            0.0, 0.0);
  printf("%s shuffle_valid 4x64 (%d wrong)\n", flags_wrong ? "FAIL" : "PASS",
         flags_wrong);
  if (flags_wrong)
    ++g_failures;
  ++g_checks;
  harness_free(values); harness_free(received); harness_free(valid);
  harness_free(expected);
  return harness_finish();
}

/* Harness for gpu_emulation_hopper.mlir: out[t] must be in[64 + t] for the
 * 36 rows `in` has, zeros (TMA's fill) after, as the 128-byte swizzle
 * leaves it in shared memory: the 16-byte chunk c of row t holds chunk
 * c ^ (t % 8) of the row. */
#include "harness.h"

int main(int argc, char **argv) {
  harness_init(argc, argv);
  float *in = random_f32(100 * 32, 11, -1.0f, 1.0f);
  float *out = alloc_f32(64 * 32);
  poison_f32(out, 64 * 32);
  /* Shared memory is uninitialized: fill the heap it may come from with a
   * value no row has, so stale reads differ. */
  for (int i = 0; i < 64; ++i) {
    float *scratch = alloc_f32(4096);
    for (int j = 0; j < 4096; ++j)
      scratch[j] = 1e9f;
    harness_free(scratch);
  }
  tessel_memref_f32_2d din = {in, in, 0, {100, 32}, {32, 1}};
  tessel_memref_f32_2d dout = {out, out, 0, {64, 32}, {32, 1}};
  _mlir_ciface_tma_rows(&din, &dout);
  double *ref = alloc_f64(64 * 32);
  for (int t = 0; t < 64; ++t)
    for (int j = 0; j < 32; ++j) {
      int from = (((j / 4) ^ (t % 8)) * 4) + j % 4;
      ref[t * 32 + j] = 64 + t < 100 ? in[(64 + t) * 32 + from] : 0.0;
    }
  check_f32("tma_rows", "64x32 of 100x32", out, ref, 64 * 32, 0.0, 0.0);
  harness_free(in); harness_free(out); harness_free(ref);
  return harness_finish();
}

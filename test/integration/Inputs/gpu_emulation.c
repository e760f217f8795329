/* Harness for gpu_emulation.mlir: out[t] must be in[(t + 1) % 32]. */
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
  return harness_finish();
}

/* Harness for mask_stencil.mlir: out[i][j] = sum over t < 5 of exp(2 x) for
 * x = in[i][j + t] > 0, in double precision. */
#include "harness.h"

int main(int argc, char **argv) {
  harness_init(argc, argv);
  const int64_t rows = 64, cols = 260, outCols = 256;
  float *in = random_f32((size_t)(rows * cols), 81, -1.0f, 1.0f);
  float *out = alloc_f32((size_t)(rows * outCols));
  double *ref = alloc_f64((size_t)(rows * outCols));
  poison_f32(out, (size_t)(rows * outCols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < outCols; ++j) {
      double r = 0.0;
      for (int t = 0; t < 5; ++t) {
        float x = in[i * cols + j + t];
        if (x > 0.0f)
          r += exp(2.0 * (double)x);
      }
      ref[i * outCols + j] = r;
    }
  tessel_memref_f32_2d din, dout;
  tessel_memref_f32_init_2d(&din, in, rows, cols);
  tessel_memref_f32_init_2d(&dout, out, rows, outCols);
  _mlir_ciface_mask(&din, &dout);
  check_f32("mask_stencil", "64x260->64x256", out, ref,
            (size_t)(rows * outCols), 1e-5, 1e-6);
  harness_free(in); harness_free(out); harness_free(ref);
  return harness_finish();
}

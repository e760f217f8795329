/* Harness for inplace_tensor_arg.mlir: the input tensor must stay intact. */
#include "harness.h"

int main(int argc, char **argv) {
  harness_init(argc, argv);
  const int64_t n = 1000;
  float *x = random_f32((size_t)n, 91, -1.0f, 1.0f);
  float *x0 = copy_f32(x, (size_t)n);
  float *y = alloc_f32((size_t)n);
  poison_f32(y, (size_t)n);
  double *ref = alloc_f64((size_t)n);
  for (int64_t i = 0; i < n; ++i)
    ref[i] = 2.0 * (double)x[i];
  tessel_memref_f32_1d dx, dy;
  tessel_memref_f32_init_1d(&dx, x, n);
  tessel_memref_f32_init_1d(&dy, y, n);
  _mlir_ciface_scale_in_place(&dx, &dy);
  check_f32("scale_in_place", "1000", y, ref, (size_t)n, 1e-7, 0.0);
  check_unchanged("scale_in_place (input tensor)", x, x0, (size_t)n * sizeof(float));
  harness_free(x); harness_free(x0); harness_free(y); harness_free(ref);
  return harness_finish();
}

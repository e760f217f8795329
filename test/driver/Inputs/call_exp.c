/* Calls exp_named.mlir's entry point: its body's libm exp must be libm's,
 * not the entry point of the same name. */
#include <math.h>
#include <stdio.h>

#include "tessel/runtime.h"

void _mlir_ciface_exp(tessel_memref_f64_1d *a, tessel_memref_f64_1d *y);

int main(void) {
  double a[3] = {0.0, 1.0, -2.5}, y[3] = {0};
  tessel_memref_f64_1d da, dy;
  tessel_memref_f64_init_1d(&da, a, 3);
  tessel_memref_f64_init_1d(&dy, y, 3);
  _mlir_ciface_exp(&da, &dy);
  for (int i = 0; i < 3; ++i)
    if (fabs(y[i] - exp(a[i])) > 1e-12 * exp(a[i])) {
      printf("FAIL exp(%g) = %g\n", a[i], y[i]);
      return 1;
    }
  printf("exp ok\n");
  return 0;
}

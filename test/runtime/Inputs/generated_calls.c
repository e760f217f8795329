/* Calls a compiled GPU function (its header comes with -include) against
 * the stand-in driver (fake_cuda_driver.c, linked as libcuda.so.1): twice
 * on device 0, then once on device 1, and prints what reached the driver.
 * The kernels do not run; this checks the calls the generated host code
 * makes through the runtime. Built with -DPROGRAM_ADD (test/driver/Inputs/
 * add.mlir) or -DPROGRAM_MM (generated_calls_mm.mlir). */
#include "tessel/gpu_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int fake_cuda_module_loads[2], fake_cuda_launches[2],
    fake_cuda_wrong_context_uses, fake_cuda_stream_creates,
    fake_cuda_stream_destroys, fake_cuda_uploads;

#if defined(PROGRAM_ADD)
static float a[4][8], b[4][8], out[4][8];
static void call(void) {
  tessel_memref_f32_2d ma = {&a[0][0], &a[0][0], 0, {4, 8}, {8, 1}};
  tessel_memref_f32_2d mb = {&b[0][0], &b[0][0], 0, {4, 8}, {8, 1}};
  tessel_memref_f32_2d mo = {&out[0][0], &out[0][0], 0, {4, 8}, {8, 1}};
  _mlir_ciface_add(&ma, &mb, &mo);
}
#elif defined(PROGRAM_MM)
static uint16_t a[128][64], b[64][128];
static float c[128][128];
static void call(void) {
  /* The f16 descriptors have the same layout; only the pointer type
   * differs. */
  tessel_memref_f16_2d ma = {&a[0][0], &a[0][0], 0, {128, 64}, {64, 1}};
  tessel_memref_f16_2d mb = {&b[0][0], &b[0][0], 0, {64, 128}, {128, 1}};
  tessel_memref_f32_2d mc = {&c[0][0], &c[0][0], 0, {128, 128}, {128, 1}};
  _mlir_ciface_mm(&ma, &mb, &mc);
}
#else
#error "define PROGRAM_ADD or PROGRAM_MM"
#endif

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  call();
  int uploads_after_first = fake_cuda_uploads;
  call();
  printf("device 0: %d module load(s), %d launch(es), %d upload(s) after "
         "the first call, %d after the second\n",
         fake_cuda_module_loads[0], fake_cuda_launches[0], uploads_after_first,
         fake_cuda_uploads);
  mgpuSetDefaultDevice(1);
  call();
  printf("device 1: %d module load(s), %d launch(es)\n",
         fake_cuda_module_loads[1], fake_cuda_launches[1]);
  printf("streams: %d created, %d destroyed\n", fake_cuda_stream_creates,
         fake_cuda_stream_destroys);
  printf("handles used in another device's context: %d\n",
         fake_cuda_wrong_context_uses);
  return 0;
}

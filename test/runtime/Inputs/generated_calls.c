/* Calls a compiled GPU function (its header comes with -include) against
 * a stand-in driver: fake_cuda_driver.c linked as libcuda.so.1, or with
 * -DFAKE_HIP fake_hip.c as libamdhip64: twice on device 0, then once on
 * device 1, and prints what reached the driver. The kernels do not run;
 * this checks the calls the generated host code makes through the runtime.
 * Built with -DPROGRAM_ADD (test/driver/Inputs/add.mlir), -DPROGRAM_MM
 * (generated_calls_mm.mlir, CUDA) or -DPROGRAM_TOTAL (a full reduction,
 * CUDA). */
#include "tessel/gpu_runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef FAKE_HIP
#define FAKE(name) fake_hip_##name
#define WRONG_DEVICE_USES fake_hip_wrong_device_uses
#else
#define FAKE(name) fake_cuda_##name
#define WRONG_DEVICE_USES fake_cuda_wrong_context_uses
#endif

extern int FAKE(module_loads)[2], FAKE(launches)[2], WRONG_DEVICE_USES,
    FAKE(stream_creates), FAKE(stream_destroys), FAKE(uploads);

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
#elif defined(PROGRAM_TOTAL)
/* test/integration/Inputs/reduction.mlir: @total returns a full
 * reduction's result, which the host code loads from managed memory after
 * the kernel. */
static float x[19][77];
static void call(void) {
  tessel_memref_f32_2d mx = {&x[0][0], &x[0][0], 0, {19, 77}, {77, 1}};
  (void)_mlir_ciface_total(&mx);
}
#else
#error "define PROGRAM_ADD, PROGRAM_MM or PROGRAM_TOTAL"
#endif

#ifdef FAKE_HIP
/* The three HIP calls made here, declared rather than included so that
 * no HIP include path is needed (hipError_t is an int-sized enum). */
int hipSetDevice(int device);
int hipGetDevice(int *device);
int hipStreamCreate(void **stream);

extern int fake_hip_failing_launches, fake_hip_gone, fake_hip_stream_syncs,
    fake_hip_frees;
extern void *fake_hip_last_launch_stream;

/* HIP's current device is the caller's between calls: a call on default
 * device 1 while the caller has device 0 current runs on 1 and leaves 0
 * current. A lent stream of device 1 is launched on and not destroyed; a
 * failed launch is counted, with its text, and until the stream is lent
 * again the thread launches nothing more. */
static void hip_lent_stream_and_errors(void) {
  void *lent = NULL;
  hipSetDevice(1);
  hipStreamCreate(&lent);
  hipSetDevice(0);
  int creates = fake_hip_stream_creates, destroys = fake_hip_stream_destroys;
  tessel_hip_set_stream(lent);
  call();
  int device = -1;
  hipGetDevice(&device);
  printf("lent stream: launched on it: %s, streams created %d, destroyed %d, "
         "caller's device after the call %d\n",
         fake_hip_last_launch_stream == lent ? "yes" : "no",
         fake_hip_stream_creates - creates, fake_hip_stream_destroys - destroys,
         device);
  uint64_t errors = tessel_hip_error_count();
  fake_hip_failing_launches = 1;
  tessel_hip_set_stream(lent);
  call();
  printf("errors: %llu more, last: %s\n",
         (unsigned long long)(tessel_hip_error_count() - errors),
         tessel_hip_last_error());
  int launches = fake_hip_launches[1];
  call();
  printf("launches after the failed call, same lending: %d\n",
         fake_hip_launches[1] - launches);
  tessel_hip_set_stream(lent);
  call();
  printf("launches after lending again: %d\n", fake_hip_launches[1] - launches);
  /* HIP's null stream, lent: launched on, and a failure there stops the
   * call too. */
  int created = fake_hip_stream_creates;
  tessel_hip_set_stream(TESSEL_HIP_NULL_STREAM);
  call();
  printf("null stream lent: launched on it: %s, streams created %d\n",
         fake_hip_last_launch_stream == NULL ? "yes" : "no",
         fake_hip_stream_creates - created);
  fake_hip_failing_launches = 1;
  call();
  launches = fake_hip_launches[1];
  call();
  printf("launches after a failure on the null stream: %d\n",
         fake_hip_launches[1] - launches);
  /* Lent asynchronously: the call waits for nothing; a free waits for the
   * stream first, since its kernels may still use the memory. */
  tessel_hip_set_stream_async(lent);
  int syncs = fake_hip_stream_syncs;
  call();
  printf("async lent stream: launched on it: %s, waits %d\n",
         fake_hip_last_launch_stream == lent ? "yes" : "no",
         fake_hip_stream_syncs - syncs);
  void *temporary = mgpuMemAlloc(64, lent, false);
  int frees = fake_hip_frees;
  mgpuMemFree(temporary, lent);
  printf("async free: waits %d, frees %d\n", fake_hip_stream_syncs - syncs,
         fake_hip_frees - frees);
  /* Managed memory, which host code reads after a kernel: while the
   * thread has some, the waits are real. */
  void *shared = mgpuMemAlloc(4, lent, true);
  syncs = fake_hip_stream_syncs;
  mgpuStreamSynchronize(lent);
  printf("async wait with managed memory live: waits %d\n",
         fake_hip_stream_syncs - syncs);
  mgpuMemFree(shared, lent);
  syncs = fake_hip_stream_syncs;
  mgpuStreamSynchronize(lent);
  printf("and once it is freed: waits %d\n", fake_hip_stream_syncs - syncs);
  tessel_hip_set_stream(lent);
  syncs = fake_hip_stream_syncs;
  call();
  printf("lent to wait again: waits %d\n", fake_hip_stream_syncs - syncs);
  tessel_hip_set_stream(NULL);
  printf("stream lent after taking it back: %p\n", tessel_hip_stream());
  printf("handles used on another device: %d\n", WRONG_DEVICE_USES);
}
#endif

#ifndef FAKE_HIP
extern int fake_cuda_hold_work, fake_cuda_stream_syncs, fake_cuda_event_records,
    fake_cuda_device_allocs, fake_cuda_guard_managed;
int fake_cuda_unfinished_launches(void);

/* Two more calls on device 0, on a stream lent with
 * tessel_cuda_set_stream_async while the stand-in holds every launch
 * unfinished: generated code waits for nothing, and the launches stay
 * queued, unless the host reads a result from managed memory after them
 * (the stand-in makes that memory fault until they are done). */
static void cuda_async_stream(void) {
  mgpuSetDefaultDevice(0);
  void *lent = mgpuStreamCreate();
  fake_cuda_hold_work = 1;
  /* A host read of managed memory before its kernel is waited for
   * faults. */
  fake_cuda_guard_managed = 1;
  tessel_cuda_set_stream_async(lent);
  int syncs = fake_cuda_stream_syncs, records = fake_cuda_event_records;
  int allocs = fake_cuda_device_allocs, launches = FAKE(launches)[0];
  call();
  call();
  printf("async lent stream: %d launch(es), still queued: %s, %d wait(s), "
         "%d event(s), %d new device block(s)\n",
         FAKE(launches)[0] - launches,
         fake_cuda_unfinished_launches() ? "yes" : "no",
         fake_cuda_stream_syncs - syncs, fake_cuda_event_records - records,
         fake_cuda_device_allocs - allocs);
  tessel_cuda_set_stream(NULL);
}
#endif

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  call();
  int uploads_after_first = FAKE(uploads);
  call();
  printf("device 0: %d module load(s), %d launch(es), %d upload(s) after "
         "the first call, %d after the second\n",
         FAKE(module_loads)[0], FAKE(launches)[0], uploads_after_first,
         FAKE(uploads));
  mgpuSetDefaultDevice(1);
  call();
  printf("device 1: %d module load(s), %d launch(es)\n", FAKE(module_loads)[1],
         FAKE(launches)[1]);
  printf("streams: %d created, %d destroyed\n", FAKE(stream_creates),
         FAKE(stream_destroys));
  printf("handles used in another device's context: %d\n", WRONG_DEVICE_USES);
#ifdef FAKE_HIP
  hip_lent_stream_and_errors();
  /* HIP torn down before the module's destructor unloads it: quietly. */
  fake_hip_gone = argc > 1 && strcmp(argv[1], "hip-gone-at-exit") == 0;
#else
  (void)argc, (void)argv;
  cuda_async_stream();
#endif
  return 0;
}

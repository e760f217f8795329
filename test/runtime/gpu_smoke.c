/* Smoke test for libtessel_cuda_runtime.so: exercises the mgpu* ABI the way
 * MLIR-generated host code does. Without a usable driver or GPU it prints
 * "SKIP: ..." and exits 0; otherwise one "OK:"/"FAIL:" line per check and a
 * final "OK: CUDA runtime smoke test passed". Driven by cuda_link.test. */

/* dup/dup2/fileno for capturing the runtime's stderr are POSIX. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "tessel/gpu_runtime.h"
#include "tessel/runtime.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Test fixture, hand-written: data[i] += 1.0f for i < count. PTX for sm_80
 * so the driver JIT-compiles it for any Ampere-or-newer GPU. */
static const char add_one_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry add_one(\n"
    "    .param .u64 add_one_data,\n"
    "    .param .u32 add_one_count\n"
    ")\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<5>;\n"
    "    .reg .f32 %f<3>;\n"
    "    .reg .b64 %rd<5>;\n"
    "\n"
    "    ld.param.u64 %rd1, [add_one_data];\n"
    "    ld.param.u32 %r2, [add_one_count];\n"
    "    mov.u32 %r3, %ctaid.x;\n"
    "    mov.u32 %r4, %ntid.x;\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mad.lo.s32 %r1, %r3, %r4, %r1;\n"
    "    setp.ge.s32 %p1, %r1, %r2;\n"
    "    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mul.wide.s32 %rd3, %r1, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    ld.global.f32 %f1, [%rd4];\n"
    "    add.f32 %f2, %f1, 0f3F800000;\n"
    "    st.global.f32 [%rd4], %f2;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

/* Parses, but fails ptxas: exercises the error path and its message. */
static const char broken_ptx[] = ".version 7.0\n.target sm_80\n.address_size 64\n"
                                 ".visible .entry broken()\n{\n"
                                 "    not_an_instruction %r1;\n    ret;\n}\n";

enum { element_count = 1000, threads_per_block = 128 };

static int failures = 0;

static void check(bool condition, const char *description) {
  printf("%s: %s\n", condition ? "OK" : "FAIL", description);
  if (!condition)
    ++failures;
}

static bool all_equal(const float *values, size_t count, float expected) {
  for (size_t i = 0; i < count; ++i)
    if (values[i] != expected)
      return false;
  return true;
}

static void launch_add_one(void *function, void *device_data, void *stream) {
  int32_t count = element_count;
  /* mgpuLaunchKernel takes a pointer to each argument, as MLIR passes them. */
  void *params[] = {&device_data, &count};
  intptr_t blocks = (element_count + threads_per_block - 1) / threads_per_block;
  mgpuLaunchKernel(function, blocks, 1, 1, threads_per_block, 1, 1, 0, stream,
                   params, NULL, 2);
}

/* Runs mgpuModuleLoadJIT on broken PTX with stderr redirected to a temporary
 * file, and returns whether the report names the driver call and a CUDA
 * error (tessel-cuda: cuModuleLoadDataEx(...) failed: CUDA_ERROR_...). */
static bool broken_ptx_is_reported(void) {
  FILE *capture = tmpfile();
  if (!capture)
    return false;
  fflush(stderr);
  int saved_stderr = dup(fileno(stderr));
  dup2(fileno(capture), fileno(stderr));
  void *module = mgpuModuleLoadJIT((void *)broken_ptx, 2);
  fflush(stderr);
  dup2(saved_stderr, fileno(stderr));
  close(saved_stderr);

  char report[8192] = {0};
  rewind(capture);
  size_t length = fread(report, 1, sizeof report - 1, capture);
  report[length] = '\0';
  fclose(capture);
  if (module)
    mgpuModuleUnload(module);
  return module == NULL &&
         strstr(report,
                "tessel-cuda: cuModuleLoadDataEx(...) failed: CUDA_ERROR_") !=
             NULL;
}

int main(void) {
  /* Keep stdout and stderr in order when both go to one pipe. */
  setvbuf(stdout, NULL, _IONBF, 0);

  int device_count = tessel_cuda_device_count();
  if (device_count == 0) {
    printf("SKIP: no CUDA device (driver or GPU absent)\n");
    fprintf(stderr, "note: CUDA status: %s\n", tessel_cuda_status());
    return 0;
  }
  int major = 0, minor = 0;
  check(tessel_cuda_compute_capability(0, &major, &minor) == 0 && major > 0,
        "query compute capability");
  printf("note: %d device(s), device 0 is sm_%d%d\n", device_count, major,
         minor);
  mgpuSetDefaultDevice(0);

  const size_t byte_count = element_count * sizeof(float);
  /* Page-aligned because it is page-locked below; no other buffer shares
   * its pages. */
  float *host = tessel_aligned_alloc(element_count, sizeof(float), 4096);
  float *round_trip = tessel_aligned_alloc(element_count, sizeof(float), 0);
  if (!host || !round_trip) {
    printf("FAIL: host allocation\n");
    return 1;
  }

  void *stream = mgpuStreamCreate();
  check(stream != NULL, "mgpuStreamCreate");
  float *device = mgpuMemAlloc(byte_count, stream, false);
  check(device != NULL, "mgpuMemAlloc (device memory)");

  /* memset32 with the bit pattern of 3.0f, then copy back. */
  uint32_t three_bits;
  const float three = 3.0f;
  memcpy(&three_bits, &three, sizeof three_bits);
  mgpuMemset32(device, three_bits, element_count, stream);
  mgpuMemcpy(round_trip, device, byte_count, stream);
  mgpuStreamSynchronize(stream);
  check(all_equal(round_trip, element_count, 3.0f), "mgpuMemset32 + mgpuMemcpy to host");

  mgpuMemset16(device, 0xBEEF, 2 * element_count, stream);
  uint16_t halves[2 * element_count];
  mgpuMemcpy(halves, device, sizeof halves, stream);
  mgpuStreamSynchronize(stream);
  bool halves_ok = true;
  for (size_t i = 0; i < 2 * element_count; ++i)
    halves_ok = halves_ok && halves[i] == 0xBEEF;
  check(halves_ok, "mgpuMemset16");

  tessel_fill_random_f32(host, element_count, 2024);
  mgpuMemcpy(device, host, byte_count, stream);
  memset(round_trip, 0, byte_count);
  mgpuMemcpy(round_trip, device, byte_count, stream);
  mgpuStreamSynchronize(stream);
  check(memcmp(host, round_trip, byte_count) == 0, "host -> device -> host round trip");

  void *module = mgpuModuleLoadJIT((void *)add_one_ptx, 2);
  check(module != NULL, "mgpuModuleLoadJIT (PTX)");
  void *add_one = module ? mgpuModuleGetFunction(module, "add_one") : NULL;
  check(add_one != NULL, "mgpuModuleGetFunction");

  double expected[element_count];
  for (size_t i = 0; i < element_count; ++i)
    expected[i] = (double)host[i] + 1.0;
  if (add_one) {
    launch_add_one(add_one, device, stream);
    mgpuMemcpy(round_trip, device, byte_count, stream);
    mgpuStreamSynchronize(stream);
  }
  check(add_one && tessel_compare_f32("add_one", round_trip, expected,
                                      element_count, 1e-6, 1e-6, NULL) == 0,
        "mgpuLaunchKernel: add_one result");

  /* Cross-stream ordering through an event. */
  void *event = mgpuEventCreate();
  void *second_stream = mgpuStreamCreate();
  check(event != NULL && second_stream != NULL, "mgpuEventCreate");
  if (add_one)
    launch_add_one(add_one, device, stream);
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(second_stream, event);
  memset(round_trip, 0, byte_count);
  mgpuMemcpy(round_trip, device, byte_count, second_stream);
  mgpuStreamSynchronize(second_stream);
  mgpuEventSynchronize(event);
  for (size_t i = 0; i < element_count; ++i)
    expected[i] = (double)host[i] + 2.0;
  check(add_one && tessel_compare_f32("event", round_trip, expected,
                                      element_count, 1e-6, 1e-6, NULL) == 0,
        "mgpuEventRecord + mgpuStreamWaitEvent order two streams");
  mgpuEventDestroy(event);
  mgpuStreamDestroy(second_stream);

  /* host_shared: managed memory the host reads and writes directly. */
  float *shared = mgpuMemAlloc(byte_count, stream, true);
  check(shared != NULL, "mgpuMemAlloc (host_shared)");
  if (shared && add_one) {
    for (size_t i = 0; i < element_count; ++i)
      shared[i] = (float)i;
    launch_add_one(add_one, shared, stream);
    mgpuStreamSynchronize(stream);
    bool shared_ok = true;
    for (size_t i = 0; i < element_count; ++i)
      shared_ok = shared_ok && shared[i] == (float)i + 1.0f;
    check(shared_ok, "kernel updates host_shared memory in place");
  }
  mgpuMemFree(shared, stream);

  /* Registered (page-locked) host memory described by a memref. */
  tessel_memref_f32_2d host_view;
  tessel_memref_f32_init_2d(&host_view, host, 10, element_count / 10);
  mgpuMemHostRegisterMemRef(2, &host_view, sizeof(float));
  mgpuMemcpy(device, host, byte_count, stream);
  mgpuMemcpy(round_trip, device, byte_count, stream);
  mgpuStreamSynchronize(stream);
  mgpuMemHostUnregisterMemRef(2, &host_view, sizeof(float));
  check(memcmp(host, round_trip, byte_count) == 0,
        "mgpuMemHostRegisterMemRef + copies from registered memory");

  check(broken_ptx_is_reported(),
        "invalid PTX is reported as cuModuleLoadDataEx(...) failed: CUDA_ERROR_*");

  if (major >= 9) {
    /* Clusters and TMA exist from sm_90 on. */
    if (add_one) {
      mgpuMemcpy(device, host, byte_count, stream);
      intptr_t blocks = (element_count + threads_per_block - 1) / threads_per_block;
      int32_t count = element_count;
      void *device_data = device;
      void *params[] = {&device_data, &count};
      mgpuLaunchClusterKernel(add_one, 1, 1, 1, blocks, 1, 1,
                              threads_per_block, 1, 1, 0, stream, params,
                              NULL, 2);
      mgpuMemcpy(round_trip, device, byte_count, stream);
      mgpuStreamSynchronize(stream);
      for (size_t i = 0; i < element_count; ++i)
        expected[i] = (double)host[i] + 1.0;
    }
    check(add_one && tessel_compare_f32("cluster", round_trip, expected,
                                        element_count, 1e-6, 1e-6, NULL) == 0,
          "mgpuLaunchClusterKernel (cluster 1x1x1)");

    /* TMA wants 16-byte multiples for the row pitch and the box's inner
     * extent: an 8 x 120 float view (480-byte rows) and an 8 x 32 box. */
    tessel_memref_f32_2d tile_source;
    tessel_memref_f32_init_2d(&tile_source, device, 8, 120);
    int64_t box[2] = {8, 32};
    void *tensor_map = mgpuTensorMapEncodeTiledMemref(
        2, &tile_source, /*CU_TENSOR_MAP_DATA_TYPE_FLOAT32=*/7,
        /*interleave none=*/0, /*swizzle none=*/0, /*l2 promotion none=*/0,
        /*oob fill none=*/0, box);
    check(tensor_map != NULL, "mgpuTensorMapEncodeTiledMemref");
    /* The runtime keeps one device copy per map (the maps are never
     * freed): the same request again is the same copy, another box is not. */
    void *again = mgpuTensorMapEncodeTiledMemref(2, &tile_source, 7, 0, 0, 0,
                                                 0, box);
    int64_t other_box[2] = {4, 32};
    void *other = mgpuTensorMapEncodeTiledMemref(2, &tile_source, 7, 0, 0, 0,
                                                 0, other_box);
    check(again == tensor_map && other != NULL && other != tensor_map,
          "mgpuTensorMapEncodeTiledMemref reuses a map's device copy");

    /* A constant compiled into a program (host memory TMA cannot read):
     * the runtime uploads it once, into a copy the map describes. */
    static float constant[8 * 120];
    static uint64_t constant_slot;
    for (size_t i = 0; i < sizeof constant / sizeof *constant; ++i)
      constant[i] = (float)i;
    tessel_memref_f32_2d constant_view;
    tessel_memref_f32_init_2d(&constant_view, constant, 8, 120);
    void *constant_map = tesselTensorMapEncodeTiledConstant(
        &constant_slot, constant, (int64_t)sizeof constant, 2, &constant_view,
        7, 0, 0, 0, 0, box);
    void *constant_again = tesselTensorMapEncodeTiledConstant(
        &constant_slot, constant, (int64_t)sizeof constant, 2, &constant_view,
        7, 0, 0, 0, 0, box);
    check(constant_map != NULL && constant_again == constant_map &&
              constant_slot != 0,
          "tesselTensorMapEncodeTiledConstant (uploaded once)");
  } else {
    printf("note: sm_%d%d predates clusters and TMA; not testing them\n",
           major, minor);
  }

  /* Freed device memory comes back for the next allocation of its size
   * (the block keeps its address), and is usable again; another size gets
   * a block of its own. */
  mgpuMemFree(device, stream);
  float *again = mgpuMemAlloc(byte_count, stream, false);
  float *larger = mgpuMemAlloc(2 * byte_count, stream, false);
  check(again == device && larger != NULL && larger != again,
        "mgpuMemAlloc reuses a freed block of the same size");
  if (again && larger) {
    mgpuMemcpy(again, host, byte_count, stream);
    mgpuMemcpy(larger, again, byte_count, stream);
    memset(round_trip, 0, byte_count);
    mgpuMemcpy(round_trip, larger, byte_count, stream);
    mgpuStreamSynchronize(stream);
    check(memcmp(round_trip, host, byte_count) == 0,
          "a reused block holds what is copied into it");
  }
  /* A destroyed stream is kept and handed out again, and works. */
  void *kept = mgpuStreamCreate();
  mgpuStreamDestroy(kept);
  void *reused = mgpuStreamCreate();
  check(kept != NULL && reused == kept,
        "mgpuStreamCreate hands a destroyed stream out again");
  mgpuStreamDestroy(reused);
  /* A lent stream (the legacy default stream, as PyTorch's stream 0 is
   * lent): handed out by mgpuStreamCreate, kernels run on it, and
   * mgpuStreamDestroy leaves it usable. */
  tessel_cuda_set_stream((void *)1); /* CU_STREAM_LEGACY */
  void *lent = mgpuStreamCreate();
  check(lent == (void *)1, "mgpuStreamCreate returns the lent stream");
  if (add_one && again) {
    mgpuMemcpy(again, host, byte_count, lent);
    launch_add_one(add_one, again, lent);
    mgpuStreamDestroy(lent);
    memset(round_trip, 0, byte_count);
    mgpuMemcpy(round_trip, again, byte_count, lent);
    mgpuStreamSynchronize(lent);
    check(tessel_compare_f32("add_one on the lent stream", round_trip, expected,
                             element_count, 1e-6, 1e-6, NULL) == 0,
          "a kernel on the lent stream; destroying it leaves it usable");
  }
  tessel_cuda_set_stream(NULL);
  /* Lent with tessel_cuda_set_stream_async: waits on it return at once,
   * and a temporary freed behind its queued kernels is reused by a call on
   * another stream only after them: the copy there sees both kernels'
   * work. */
  void *async_stream = mgpuStreamCreate();
  tessel_cuda_set_stream_async(async_stream);
  float *temporary = mgpuMemAlloc(byte_count, async_stream, false);
  if (add_one && temporary && async_stream) {
    mgpuMemcpy(temporary, host, byte_count, async_stream);
    launch_add_one(add_one, temporary, async_stream);
    launch_add_one(add_one, temporary, async_stream);
    mgpuStreamSynchronize(async_stream); /* skipped */
    mgpuMemFree(temporary, async_stream);
    tessel_cuda_set_stream(NULL);
    void *own = mgpuStreamCreate();
    float *reused_block = mgpuMemAlloc(byte_count, own, false);
    memset(round_trip, 0, byte_count);
    mgpuMemcpy(round_trip, reused_block, byte_count, own);
    mgpuStreamSynchronize(own);
    mgpuStreamDestroy(own);
    for (size_t i = 0; i < element_count; ++i)
      round_trip[i] -= 1.0f; /* add_one ran twice */
    check(reused_block == temporary &&
              tessel_compare_f32("add_one twice, async lent stream", round_trip,
                                 expected, element_count, 1e-6, 1e-6,
                                 NULL) == 0,
          "an async lent stream's freed temporary, reused on another "
          "stream after its kernels");
    mgpuMemFree(reused_block, stream);
  }
  tessel_cuda_set_stream(NULL);
  mgpuStreamSynchronize(async_stream);
  mgpuStreamDestroy(async_stream);
  mgpuMemFree(larger, stream);
  mgpuMemFree(again, stream);
  if (module)
    mgpuModuleUnload(module);
  mgpuStreamDestroy(stream);
  tessel_free(host);
  tessel_free(round_trip);

  if (failures) {
    printf("FAIL: CUDA runtime smoke test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("OK: CUDA runtime smoke test passed\n");
  return 0;
}

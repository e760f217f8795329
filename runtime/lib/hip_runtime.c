/* The mgpu* ABI over HIP, modelled on upstream MLIR's
 * mlir/lib/ExecutionEngine/RocmRuntimeWrappers.cpp but in C, with the
 * signatures MLIR 22 emits (see tessel/gpu_runtime.h).
 *
 * hip_runtime_api.h is plain C when __HIP_PLATFORM_AMD__ is defined (set by
 * the build); the C++-only parts live in hip_runtime.h, which we avoid. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <hip/hip_runtime_api.h>

#include "gpu_common.h"
#include "tessel/gpu_runtime.h"

static hipError_t report_hip_failure(const char *call, hipError_t result) {
  if (result != hipSuccess) {
    const char *name = hipGetErrorName(result);
    fprintf(stderr, "tessel-hip: %s(...) failed: %s\n", call,
            name ? name : "<unknown HIP error>");
  }
  return result;
}

#define HIP_CALL(name, ...) report_hip_failure(#name, name(__VA_ARGS__))

/* HIP keeps the current device per thread, matching the thread-local default
 * device of the mgpu ABI, so (as upstream) no context juggling is needed. */
static _Thread_local int32_t default_device = 0;

int tessel_hip_device_count(void) {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess)
    return 0;
  return count;
}

/* ------------------------------------------------------------------------- */
/* Modules and launches                                                      */
/* ------------------------------------------------------------------------- */

void *mgpuModuleLoad(void *data, size_t data_size) {
  (void)data_size; /* code objects are self-describing ELF */
  hipModule_t module = NULL;
  HIP_CALL(hipModuleLoadData, &module, data);
  return module;
}

void *mgpuModuleLoadJIT(void *data, int opt_level) {
  (void)data;
  (void)opt_level;
  /* Upstream asserts here; failing loudly but recoverably is kinder. */
  fprintf(stderr, "tessel-hip: mgpuModuleLoadJIT(...) failed: HIP has no "
                  "assembly JIT; serialize to a binary (format=bin)\n");
  return NULL;
}

void mgpuModuleUnload(void *module) {
  HIP_CALL(hipModuleUnload, (hipModule_t)module);
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  hipFunction_t function = NULL;
  HIP_CALL(hipModuleGetFunction, &function, (hipModule_t)module, name);
  return function;
}

static bool launch_dims_fit_or_report(const char *caller, const intptr_t *dims,
                                      int count) {
  if (tessel_launch_dims_fit(dims, count))
    return true;
  fprintf(stderr, "tessel-hip: %s: launch dimensions out of range\n", caller);
  return false;
}

void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t dynamic_shared_bytes,
                      void *stream, void **params, void **extra,
                      size_t param_count) {
  (void)param_count; /* the runtime knows the kernel's parameter layout */
  const intptr_t dims[6] = {grid_x, grid_y, grid_z, block_x, block_y, block_z};
  if (!launch_dims_fit_or_report("mgpuLaunchKernel", dims, 6))
    return;
  if (dynamic_shared_bytes < 0) {
    fprintf(stderr, "tessel-hip: negative dynamic shared memory size %d\n",
            (int)dynamic_shared_bytes);
    return;
  }
  HIP_CALL(hipModuleLaunchKernel, (hipFunction_t)function, (unsigned)grid_x,
           (unsigned)grid_y, (unsigned)grid_z, (unsigned)block_x,
           (unsigned)block_y, (unsigned)block_z,
           (unsigned)dynamic_shared_bytes, (hipStream_t)stream, params, extra);
}

void mgpuLaunchClusterKernel(void *function, intptr_t cluster_x,
                             intptr_t cluster_y, intptr_t cluster_z,
                             intptr_t grid_x, intptr_t grid_y, intptr_t grid_z,
                             intptr_t block_x, intptr_t block_y,
                             intptr_t block_z, int32_t dynamic_shared_bytes,
                             void *stream, void **params, void **extra,
                             size_t param_count) {
  /* The HIP we build against has no launch-with-attributes entry point, so
   * only the trivial 1x1x1 cluster, which is an ordinary launch, can run. */
  if (cluster_x != 1 || cluster_y != 1 || cluster_z != 1) {
    fprintf(stderr,
            "tessel-hip: mgpuLaunchClusterKernel(...) failed: clusters of "
            "%lldx%lldx%lld blocks are not supported by this HIP runtime\n",
            (long long)cluster_x, (long long)cluster_y, (long long)cluster_z);
    return;
  }
  mgpuLaunchKernel(function, grid_x, grid_y, grid_z, block_x, block_y, block_z,
                   dynamic_shared_bytes, stream, params, extra, param_count);
}

/* ------------------------------------------------------------------------- */
/* Streams and events                                                        */
/* ------------------------------------------------------------------------- */

void *mgpuStreamCreate(void) {
  hipStream_t stream = NULL;
  HIP_CALL(hipStreamCreate, &stream);
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  HIP_CALL(hipStreamDestroy, (hipStream_t)stream);
}

void mgpuStreamSynchronize(void *stream) {
  HIP_CALL(hipStreamSynchronize, (hipStream_t)stream);
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  HIP_CALL(hipStreamWaitEvent, (hipStream_t)stream, (hipEvent_t)event, 0);
}

void *mgpuEventCreate(void) {
  hipEvent_t event = NULL;
  /* These events only order work; timing would make them slower. */
  HIP_CALL(hipEventCreateWithFlags, &event, hipEventDisableTiming);
  return event;
}

void mgpuEventDestroy(void *event) {
  HIP_CALL(hipEventDestroy, (hipEvent_t)event);
}

void mgpuEventSynchronize(void *event) {
  HIP_CALL(hipEventSynchronize, (hipEvent_t)event);
}

void mgpuEventRecord(void *event, void *stream) {
  HIP_CALL(hipEventRecord, (hipEvent_t)event, (hipStream_t)stream);
}

/* ------------------------------------------------------------------------- */
/* Memory                                                                    */
/* ------------------------------------------------------------------------- */

void *mgpuMemAlloc(uint64_t size_bytes, void *stream, bool is_host_shared) {
  (void)stream; /* allocation is synchronous, as upstream */
  void *ptr = NULL;
  if (size_bytes == 0)
    return NULL;
  /* Upstream ignores host_shared on ROCm; honouring it keeps
   * gpu.alloc host_shared memory host-accessible on both vendors. */
  if (is_host_shared)
    HIP_CALL(hipMallocManaged, &ptr, size_bytes, hipMemAttachGlobal);
  else
    HIP_CALL(hipMalloc, &ptr, size_bytes);
  return ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (ptr)
    HIP_CALL(hipFree, ptr);
}

void mgpuMemcpy(void *dst, void *src, size_t size_bytes, void *stream) {
  HIP_CALL(hipMemcpyAsync, dst, src, size_bytes, hipMemcpyDefault,
           (hipStream_t)stream);
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  HIP_CALL(hipMemsetD16Async, (hipDeviceptr_t)dst, value, count,
           (hipStream_t)stream);
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  /* HIP takes the pattern as int; only the bit pattern matters. */
  HIP_CALL(hipMemsetD32Async, (hipDeviceptr_t)dst, (int)value, count,
           (hipStream_t)stream);
}

void mgpuMemHostRegister(void *ptr, uint64_t size_bytes) {
  HIP_CALL(hipHostRegister, ptr, size_bytes, hipHostRegisterDefault);
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t element_size_bytes) {
  char *first_byte;
  uint64_t byte_count;
  if (tessel_memref_byte_span(rank, descriptor, element_size_bytes,
                              &first_byte, &byte_count))
    mgpuMemHostRegister(first_byte, byte_count);
}

void mgpuMemHostUnregister(void *ptr) { HIP_CALL(hipHostUnregister, ptr); }

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t element_size_bytes) {
  /* Same start address as registration used. */
  char *first_byte;
  uint64_t byte_count;
  if (tessel_memref_byte_span(rank, descriptor, element_size_bytes,
                              &first_byte, &byte_count))
    mgpuMemHostUnregister(first_byte);
}

void mgpuSetDefaultDevice(int32_t device) {
  default_device = device;
  HIP_CALL(hipSetDevice, device);
}

/* Device address of registered host memory, as a 1-D memref (upstream ROCm
 * helpers used by its integration tests). */
static void *device_pointer_for(void *host_ptr) {
  void *device_ptr = NULL;
  HIP_CALL(hipSetDevice, default_device);
  HIP_CALL(hipHostGetDevicePointer, &device_ptr, host_ptr, 0);
  return device_ptr;
}

tessel_memref_f32_1d mgpuMemGetDeviceMemRef1dFloat(float *allocated,
                                                   float *aligned,
                                                   int64_t offset,
                                                   int64_t size,
                                                   int64_t stride) {
  (void)allocated;
  float *device_ptr = device_pointer_for(aligned);
  tessel_memref_f32_1d result = {device_ptr, device_ptr, offset, {size},
                                 {stride}};
  return result;
}

tessel_memref_i32_1d mgpuMemGetDeviceMemRef1dInt32(int32_t *allocated,
                                                   int32_t *aligned,
                                                   int64_t offset,
                                                   int64_t size,
                                                   int64_t stride) {
  (void)allocated;
  int32_t *device_ptr = device_pointer_for(aligned);
  tessel_memref_i32_1d result = {device_ptr, device_ptr, offset, {size},
                                 {stride}};
  return result;
}

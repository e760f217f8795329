/* A stand-in for libcuda.so.1 with two "devices" whose memory is host
 * memory, so that the bookkeeping of libtessel_cuda_runtime.so (reuse of
 * freed device blocks, the tensor-map cache, which driver calls it makes
 * and when) is tested on
 * machines without a GPU. Every entry point the runtime resolves exists;
 * those the tests do not exercise succeed without doing anything. The
 * counters tell the test program what the runtime asked of the driver. */
#include <cuda.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int fake_cuda_device_allocs, fake_cuda_managed_allocs, fake_cuda_frees;
/* Host-to-device copies (cuMemcpyHtoD: the runtime's tensor-map uploads). */
int fake_cuda_uploads;
/* While positive, cuMemAlloc fails with CUDA_ERROR_OUT_OF_MEMORY (and
 * counts it down); the same for cuMemcpyHtoD, with an invalid value. */
int fake_cuda_failing_allocs, fake_cuda_failing_uploads;

CUresult cuInit(unsigned int flags) {
  (void)flags;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_SUCCESS               ? "CUDA_SUCCESS"
          : error == CUDA_ERROR_OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY"
          : error == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
                                              : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}

/* Two devices, so that per-device copies can be told apart. */
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 || ordinal == 1 ? CUDA_SUCCESS
                                      : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetCount(int *count) {
  *count = 2;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice device) {
  (void)attribute, (void)device;
  *value = 0;
  return CUDA_SUCCESS;
}

static int fake_context;

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  (void)device;
  *context = (CUcontext)&fake_context;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext context) {
  (void)context;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *context) {
  if (context)
    *context = (CUcontext)&fake_context;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  if (fake_cuda_failing_allocs > 0) {
    --fake_cuda_failing_allocs;
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  void *block = malloc(bytes);
  if (!block)
    return CUDA_ERROR_OUT_OF_MEMORY;
  ++fake_cuda_device_allocs;
  *ptr = (CUdeviceptr)(uintptr_t)block;
  return CUDA_SUCCESS;
}

CUresult cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned int flags) {
  (void)flags;
  void *block = malloc(bytes);
  if (!block)
    return CUDA_ERROR_OUT_OF_MEMORY;
  ++fake_cuda_managed_allocs;
  *ptr = (CUdeviceptr)(uintptr_t)block;
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr ptr) {
  ++fake_cuda_frees;
  free((void *)(uintptr_t)ptr);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       CUstream stream) {
  (void)stream;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  if (fake_cuda_failing_uploads > 0) {
    --fake_cuda_failing_uploads;
    return CUDA_ERROR_INVALID_VALUE;
  }
  ++fake_cuda_uploads;
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}

/* The map records only the global address, which is all the tests look
 * at. */
CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *element_strides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
    CUtensorMapFloatOOBfill oob_fill) {
  (void)type, (void)rank, (void)dims, (void)strides, (void)box;
  (void)element_strides, (void)interleave, (void)swizzle, (void)l2_promotion;
  (void)oob_fill;
  memset(map, 0, sizeof *map);
  memcpy(map, &address, sizeof address);
  return CUDA_SUCCESS;
}

/* Entry points the tests do not exercise. */
/* Streams are distinct heap handles, counted: the runtime keeps those
 * generated code destroys for its next calls. */
int fake_cuda_stream_creates, fake_cuda_stream_destroys;

CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  (void)flags;
  *stream = (CUstream)malloc(1);
  ++fake_cuda_stream_creates;
  return *stream ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuStreamDestroy(CUstream stream) {
  free(stream);
  ++fake_cuda_stream_destroys;
  return CUDA_SUCCESS;
}

#define FAKE_SUCCESS(name, ...)                                                \
  CUresult name(__VA_ARGS__) { return CUDA_SUCCESS; }
#pragma GCC diagnostic ignored "-Wunused-parameter"
FAKE_SUCCESS(cuModuleLoadData, CUmodule *module, const void *image)
FAKE_SUCCESS(cuModuleLoadDataEx, CUmodule *module, const void *image,
             unsigned int count, CUjit_option *options, void **values)
FAKE_SUCCESS(cuModuleUnload, CUmodule module)
FAKE_SUCCESS(cuModuleGetFunction, CUfunction *function, CUmodule module,
             const char *name)
FAKE_SUCCESS(cuFuncSetAttribute, CUfunction function,
             CUfunction_attribute attribute, int value)
FAKE_SUCCESS(cuLaunchKernel, CUfunction f, unsigned int gx, unsigned int gy,
             unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
             unsigned int shared, CUstream stream, void **params, void **extra)
FAKE_SUCCESS(cuStreamSynchronize, CUstream stream)
FAKE_SUCCESS(cuStreamWaitEvent, CUstream stream, CUevent event,
             unsigned int flags)
FAKE_SUCCESS(cuEventCreate, CUevent *event, unsigned int flags)
FAKE_SUCCESS(cuEventDestroy, CUevent event)
FAKE_SUCCESS(cuEventSynchronize, CUevent event)
FAKE_SUCCESS(cuEventRecord, CUevent event, CUstream stream)
FAKE_SUCCESS(cuMemsetD16Async, CUdeviceptr dst, unsigned short value,
             size_t count, CUstream stream)
FAKE_SUCCESS(cuMemsetD32Async, CUdeviceptr dst, unsigned int value,
             size_t count, CUstream stream)
FAKE_SUCCESS(cuMemHostRegister, void *ptr, size_t bytes, unsigned int flags)
FAKE_SUCCESS(cuMemHostUnregister, void *ptr)

/* A stand-in for libcuda.so.1 with two "devices" whose memory is host
 * memory, so that the bookkeeping of libtessel_cuda_runtime.so (reuse of
 * freed device blocks, the tensor-map cache, which driver calls it makes
 * and when) is tested on
 * machines without a GPU. Every entry point the runtime resolves exists;
 * those the tests do not exercise succeed without doing anything. The
 * counters tell the test program what the runtime asked of the driver. */
#include <cuda.h>

#include <stdbool.h>
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
  *name = error == CUDA_SUCCESS                ? "CUDA_SUCCESS"
          : error == CUDA_ERROR_OUT_OF_MEMORY  ? "CUDA_ERROR_OUT_OF_MEMORY"
          : error == CUDA_ERROR_INVALID_VALUE  ? "CUDA_ERROR_INVALID_VALUE"
          : error == CUDA_ERROR_INVALID_DEVICE ? "CUDA_ERROR_INVALID_DEVICE"
          : error == CUDA_ERROR_UNSUPPORTED_PTX_VERSION
              ? "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"
              : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}

/* Two devices, so that per-device copies can be told apart. */
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 || ordinal == 1 ? CUDA_SUCCESS
                                      : CUDA_ERROR_INVALID_DEVICE;
}

/* CUDA 12.2: older than sm_90a's PTX ISA 8.3 needs. */
CUresult cuDriverGetVersion(int *version) {
  *version = 12020;
  return CUDA_SUCCESS;
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

/* A primary context per device and a context stack per thread, so that
 * handles made in one device's context can be checked where they are used
 * (modules, functions, streams). */
static int fake_contexts[2];
enum { FAKE_CONTEXT_STACK = 16 };
static _Thread_local CUcontext context_stack[FAKE_CONTEXT_STACK];
static _Thread_local int context_depth;

static CUcontext current_context(void) {
  return context_depth ? context_stack[context_depth - 1] : NULL;
}

/* The device whose context is current (-1: none). */
static int current_device(void) {
  CUcontext context = current_context();
  for (int d = 0; d < 2; ++d)
    if (context == (CUcontext)&fake_contexts[d])
      return d;
  return -1;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  if (device < 0 || device > 1)
    return CUDA_ERROR_INVALID_DEVICE;
  *context = (CUcontext)&fake_contexts[device];
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext context) {
  if (context_depth == FAKE_CONTEXT_STACK)
    return CUDA_ERROR_INVALID_VALUE;
  context_stack[context_depth++] = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *context) {
  if (!context_depth)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUcontext popped = context_stack[--context_depth];
  if (context)
    *context = popped;
  return CUDA_SUCCESS;
}

/* Modules and functions remember the context they were made in; a launch
 * of a function in another context fails, as on a GPU. Counted per
 * device. */
int fake_cuda_module_loads[2], fake_cuda_module_unloads[2],
    fake_cuda_launches[2], fake_cuda_wrong_context_uses;

typedef struct fake_handle {
  CUcontext context;
  /* Functions: the dynamic shared memory a launch may ask for, as the
   * last cuFuncSetAttribute set it (a GPU allows 48 KiB without it; here
   * nothing). */
  int shared_limit;
} fake_handle;

static CUresult make_handle(void **handle) {
  if (!current_context())
    return CUDA_ERROR_INVALID_CONTEXT;
  fake_handle *made = malloc(sizeof *made);
  if (!made)
    return CUDA_ERROR_OUT_OF_MEMORY;
  made->context = current_context();
  made->shared_limit = 0;
  *handle = made;
  return CUDA_SUCCESS;
}

/* Whether `handle` belongs to the current context (counted when not). */
static bool in_current_context(const void *handle) {
  bool same =
      handle && ((const fake_handle *)handle)->context == current_context();
  fake_cuda_wrong_context_uses += !same;
  return same;
}

/* An image that is empty or starts with "bad" fails to load; PTX of ISA
 * 9.x is newer than this driver takes. */
static CUresult load_module(CUmodule *module, const void *image) {
  if (*(const char *)image == '\0' || strncmp(image, "bad", 3) == 0)
    return CUDA_ERROR_INVALID_PTX;
  if (strstr(image, ".version 9."))
    return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  CUresult made = make_handle((void **)module);
  if (made == CUDA_SUCCESS)
    ++fake_cuda_module_loads[current_device()];
  return made;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  return load_module(module, image);
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned int count, CUjit_option *options,
                            void **values) {
  (void)count, (void)options, (void)values;
  return load_module(module, image);
}

CUresult cuModuleUnload(CUmodule module) {
  if (!in_current_context(module))
    return CUDA_ERROR_INVALID_HANDLE;
  ++fake_cuda_module_unloads[current_device()];
  free(module);
  return CUDA_SUCCESS;
}

/* A kernel named "missing" is not in any module. */
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  if (!in_current_context(module))
    return CUDA_ERROR_INVALID_HANDLE;
  if (strcmp(name, "missing") == 0)
    return CUDA_ERROR_NOT_FOUND;
  return make_handle((void **)function);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                        unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int shared, CUstream stream,
                        void **params, void **extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz;
  (void)stream, (void)params, (void)extra;
  if (!in_current_context(f))
    return CUDA_ERROR_INVALID_HANDLE;
  if ((int)shared > ((fake_handle *)f)->shared_limit)
    return CUDA_ERROR_INVALID_VALUE;
  ++fake_cuda_launches[current_device()];
  return CUDA_SUCCESS;
}

int fake_cuda_function_attribute_sets;

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute,
                            int value) {
  if (!in_current_context(function))
    return CUDA_ERROR_INVALID_HANDLE;
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    ((fake_handle *)function)->shared_limit = value; /* replaced, not raised */
  ++fake_cuda_function_attribute_sets;
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

/* Streams are distinct heap handles, counted: the runtime keeps those
 * generated code destroys for its next calls. */
int fake_cuda_stream_creates, fake_cuda_stream_destroys;

CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  (void)flags;
  CUresult made = make_handle((void **)stream);
  fake_cuda_stream_creates += made == CUDA_SUCCESS;
  return made;
}

/* Only in the context the stream was made in. */
CUresult cuStreamDestroy(CUstream stream) {
  if (!in_current_context(stream))
    return CUDA_ERROR_INVALID_HANDLE;
  free(stream);
  ++fake_cuda_stream_destroys;
  return CUDA_SUCCESS;
}

/* Entry points the tests do not exercise. */
#define FAKE_SUCCESS(name, ...)                                                \
  CUresult name(__VA_ARGS__) { return CUDA_SUCCESS; }
#pragma GCC diagnostic ignored "-Wunused-parameter"
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

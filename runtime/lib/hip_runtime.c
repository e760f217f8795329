/* The mgpu* ABI over HIP, modelled on upstream MLIR's
 * mlir/lib/ExecutionEngine/RocmRuntimeWrappers.cpp but in C, with the
 * signatures MLIR 22 emits (see tessel/gpu_runtime.h), and with what the
 * CUDA runtime (cuda_runtime.c) adds to upstream: modules on every device,
 * kept streams, a stream the caller lends, and counted errors.
 *
 * hip_runtime_api.h is plain C when __HIP_PLATFORM_AMD__ is defined (set by
 * the build); the C++-only parts live in hip_runtime.h, which we avoid. */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

#include "gpu_common.h"
#include "gpu_modules.h"
#include "gpu_stream_pool.h"
#include "tessel/gpu_runtime.h"

/* ------------------------------------------------------------------------- */
/* Errors                                                                    */
/* ------------------------------------------------------------------------- */

/* Counted per thread (tessel_hip_error_count), as the CUDA runtime's are;
 * see tessel_thread_errors. */
static _Thread_local tessel_thread_errors errors;
static _Thread_local hipStream_t lent_stream = NULL;

__attribute__((format(printf, 1, 2))) static void
report_error(const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  tessel_record_error(&errors, "tessel-hip", lent_stream != NULL, format,
                      arguments);
  va_end(arguments);
}

uint64_t tessel_hip_error_count(void) { return errors.count; }

const char *tessel_hip_last_error(void) { return errors.last; }

static hipError_t report_hip_failure(const char *call, hipError_t result) {
  if (result != hipSuccess) {
    const char *name = hipGetErrorName(result);
    report_error("%s(...) failed: %s", call,
                 name ? name : "<unknown HIP error>");
  }
  return result;
}

#define HIP_CALL(name, ...) report_hip_failure(#name, name(__VA_ARGS__))

/* ------------------------------------------------------------------------- */
/* Devices                                                                   */
/* ------------------------------------------------------------------------- */

/* The mgpu ABI's default device is per thread, as HIP's current device is,
 * but a caller (PyTorch, say) may move HIP's between our calls. So, like
 * the CUDA runtime pushing a context, each call makes the default device
 * current for its duration and gives the caller's back after. */
static _Thread_local int32_t default_device = 0;

int tessel_hip_device_count(void) {
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess)
    return 0;
  return count;
}

/* Makes the default device current; false after a reported failure.
 * `*callers` is the device to give back with leave_default_device. */
static bool enter_default_device(int *callers) {
  if (default_device < 0 || default_device >= TESSEL_MAX_GPU_DEVICES) {
    report_error("device %d is out of range", (int)default_device);
    return false;
  }
  hipError_t result = hipGetDevice(callers);
  if (result != hipSuccess) {
    /* The first HIP call of each: no GPU, or no usable HIP. */
    const char *name = hipGetErrorName(result);
    report_error("HIP is unavailable: hipGetDevice(...) failed: %s",
                 name ? name : "<unknown HIP error>");
    return false;
  }
  if (*callers == default_device)
    return true;
  return HIP_CALL(hipSetDevice, default_device) == hipSuccess;
}

static void leave_default_device(int callers) {
  if (callers != default_device)
    HIP_CALL(hipSetDevice, callers);
}

/* ------------------------------------------------------------------------- */
/* Modules and launches                                                      */
/* ------------------------------------------------------------------------- */

/* Modules and kernels are the runtime's own handles, with a hipModule_t
 * and hipFunction_t per device (gpu_modules.h), since a HIP module is
 * loaded for the device current then and its functions launch only there.
 * HIP has no assembly JIT: images are code objects. */
static void *load_module_image(const tessel_gpu_module *module) {
  hipModule_t loaded = NULL;
  const void *image = module->image ? module->image : module->borrowed_image;
  if (HIP_CALL(hipModuleLoadData, &loaded, image) != hipSuccess)
    return NULL;
  return loaded;
}

static void *get_function(void *module, const char *name) {
  hipFunction_t function = NULL;
  if (HIP_CALL(hipModuleGetFunction, &function, (hipModule_t)module, name) !=
      hipSuccess)
    return NULL;
  return function;
}

static const tessel_gpu_driver hip_driver = {load_module_image, get_function,
                                             report_error};

void *mgpuModuleLoad(void *data, size_t data_size) {
  if (!data) {
    report_error("mgpuModuleLoad: no image");
    return NULL;
  }
  /* Without a size (code objects are self-describing ELF) the image is
   * used in place and has to outlive the module. */
  int callers;
  if (!enter_default_device(&callers))
    return NULL;
  tessel_gpu_module *module = tessel_gpu_module_load(
      &hip_driver, data, data_size, false, 0, default_device);
  leave_default_device(callers);
  return module;
}

void *mgpuModuleLoadJIT(void *data, int opt_level) {
  (void)data;
  (void)opt_level;
  /* Upstream asserts here; failing loudly but recoverably is kinder. */
  report_error("mgpuModuleLoadJIT(...) failed: HIP has no assembly JIT; "
               "serialize to a binary (format=bin)");
  return NULL;
}

/* HIP shut down already: a compiled module's destructor unloads its
 * kernels at exit, possibly after HIP's own static destructors tore the
 * runtime down (both loaded by dlopen, as from Python); HIP has freed
 * everything then, so there is nothing to report. */
static bool hip_is_gone(hipError_t result) {
  return result == hipErrorDeinitialized || result == hipErrorNotInitialized;
}

/* Unloads `module`'s copy on `device`; false, quietly, when HIP is gone. */
static bool unload_on_device(hipModule_t module, int device) {
  int callers = device;
  const char *call = "hipGetDevice";
  hipError_t result = hipGetDevice(&callers);
  bool switched = result == hipSuccess && callers != device;
  if (switched) {
    call = "hipSetDevice";
    result = hipSetDevice(device);
    switched = result == hipSuccess;
  }
  if (result == hipSuccess) {
    call = "hipModuleUnload";
    result = hipModuleUnload(module);
  }
  if (hip_is_gone(result))
    return false;
  report_hip_failure(call, result);
  if (switched)
    HIP_CALL(hipSetDevice, callers);
  return true;
}

void mgpuModuleUnload(void *handle) {
  tessel_gpu_module *module = handle;
  if (!module)
    return;
  for (int device = 0; device < TESSEL_MAX_GPU_DEVICES; ++device)
    if (module->per_device[device] &&
        !unload_on_device(module->per_device[device], device))
      break;
  tessel_gpu_module_free(module);
}

void *mgpuModuleGetFunction(void *handle, const char *name) {
  tessel_gpu_module *module = handle;
  if (!module || !name) {
    report_error("mgpuModuleGetFunction: no %s",
                 module ? "kernel name" : "module (it failed to load)");
    return NULL;
  }
  tessel_gpu_kernel *kernel = tessel_gpu_module_find_kernel(module, name);
  int callers;
  if (kernel || !enter_default_device(&callers))
    return kernel;
  kernel = tessel_gpu_module_add_kernel(module, name, default_device);
  leave_default_device(callers);
  return kernel;
}

void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t dynamic_shared_bytes,
                      void *stream, void **params, void **extra,
                      size_t param_count) {
  (void)param_count; /* the runtime knows the kernel's parameter layout */
  const intptr_t dims[6] = {grid_x, grid_y, grid_z, block_x, block_y, block_z};
  if (!tessel_launch_dims_fit(dims, 6)) {
    report_error("mgpuLaunchKernel: launch dimensions out of range "
                 "(grid %lld,%lld,%lld block %lld,%lld,%lld)",
                 (long long)grid_x, (long long)grid_y, (long long)grid_z,
                 (long long)block_x, (long long)block_y, (long long)block_z);
    return;
  }
  if (dynamic_shared_bytes < 0) {
    report_error("negative dynamic shared memory size %d",
                 (int)dynamic_shared_bytes);
    return;
  }
  if (lent_stream && errors.lent_call_failed)
    return; /* this call already failed (reported); see report_error */
  if (!function) {
    report_error("mgpuLaunchKernel: no kernel (its lookup failed)");
    return;
  }
  int callers;
  if (!enter_default_device(&callers))
    return;
  hipFunction_t kernel = tessel_gpu_kernel_on_device(function, default_device);
  if (kernel)
    HIP_CALL(hipModuleLaunchKernel, kernel, (unsigned)grid_x, (unsigned)grid_y,
             (unsigned)grid_z, (unsigned)block_x, (unsigned)block_y,
             (unsigned)block_z, (unsigned)dynamic_shared_bytes,
             (hipStream_t)stream, params, extra);
  leave_default_device(callers);
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
    report_error("mgpuLaunchClusterKernel(...) failed: clusters of "
                 "%lldx%lldx%lld blocks are not supported by this HIP runtime",
                 (long long)cluster_x, (long long)cluster_y,
                 (long long)cluster_z);
    return;
  }
  mgpuLaunchKernel(function, grid_x, grid_y, grid_z, block_x, block_y, block_z,
                   dynamic_shared_bytes, stream, params, extra, param_count);
}

/* ------------------------------------------------------------------------- */
/* Streams and events                                                        */
/* ------------------------------------------------------------------------- */

/* Generated code's streams are kept for its next calls, as the CUDA
 * runtime's are (gpu_stream_pool.h; TESSEL_HIP_POOLED_STREAMS), and a
 * caller may lend the thread a stream of its own (tessel_hip_set_stream),
 * which generated code then launches on while the default device is the
 * one it was lent on. The null stream, whose handle 0 means "none" to
 * tessel_hip_set_stream, is lent as TESSEL_HIP_NULL_STREAM. Lent with
 * tessel_hip_set_stream_async, generated code's waits on it return at
 * once; a free then waits for it (mgpuMemFree). */
static tessel_stream_pool stream_pool =
    TESSEL_STREAM_POOL_INITIALIZER("TESSEL_HIP_POOLED_STREAMS", "tessel-hip");
static _Thread_local int32_t lent_stream_device = 0;
static _Thread_local bool lent_stream_async = false;

static void lend_stream(void *stream, bool async) {
  lent_stream = (hipStream_t)stream;
  lent_stream_async = async && stream;
  lent_stream_device = default_device;
  errors.lent_call_failed = false;
}

void tessel_hip_set_stream(void *stream) { lend_stream(stream, false); }

void tessel_hip_set_stream_async(void *stream) { lend_stream(stream, true); }

/* The handle generated code is given for the lent stream: HIP's null
 * stream is 0. */
static hipStream_t lent_stream_handle(void) {
  return lent_stream == TESSEL_HIP_NULL_STREAM ? NULL : lent_stream;
}

/* Whether generated code's work on this thread goes to a stream lent with
 * tessel_hip_set_stream_async. */
static bool async_stream_in_use(void) {
  return lent_stream && lent_stream_async &&
         lent_stream_device == default_device;
}

/* Memory the host reads after a kernel (see tessel_host_visible): while
 * the thread has any, waits on an async lent stream are real. */
static _Thread_local tessel_host_visible host_visible;

void *tessel_hip_stream(void) { return lent_stream; }

void *mgpuStreamCreate(void) {
  /* TESSEL_HIP_NULL_STREAM lends HIP's null stream, whose handle is 0. */
  if (lent_stream && lent_stream_device == default_device)
    return lent_stream_handle();
  void *kept = tessel_stream_pool_take(&stream_pool, default_device);
  if (kept)
    return kept;
  hipStream_t stream = NULL;
  int callers;
  if (!enter_default_device(&callers))
    return NULL;
  if (HIP_CALL(hipStreamCreate, &stream) != hipSuccess)
    stream = NULL;
  leave_default_device(callers);
  if (stream)
    tessel_stream_pool_track(&stream_pool, stream, default_device);
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  /* The null, legacy and per-thread default streams are HIP's, never
   * destroyed. */
  if (!stream || stream == TESSEL_HIP_NULL_STREAM ||
      stream == hipStreamPerThread || stream == lent_stream)
    return;
  int32_t device = default_device;
  switch (tessel_stream_pool_give_back(&stream_pool, stream, &device)) {
  case TESSEL_STREAM_KEPT:
    return;
  case TESSEL_STREAM_DESTROYED_TWICE:
    report_error("mgpuStreamDestroy(%p): the stream was already destroyed",
                 stream);
    return;
  case TESSEL_STREAM_TO_DESTROY:
    break;
  }
  int32_t current = default_device;
  default_device = device;
  int callers;
  if (enter_default_device(&callers)) {
    HIP_CALL(hipStreamDestroy, (hipStream_t)stream);
    leave_default_device(callers);
  }
  default_device = current;
}

/* The remaining calls only need the default device current around one HIP
 * call, which returns a hipError_t. */
#define HIP_CALL_ON_DEFAULT_DEVICE(name, ...)                                  \
  do {                                                                         \
    int callers_device;                                                        \
    if (enter_default_device(&callers_device)) {                               \
      HIP_CALL(name, __VA_ARGS__);                                             \
      leave_default_device(callers_device);                                    \
    }                                                                          \
  } while (0)

void mgpuStreamSynchronize(void *stream) {
  if (async_stream_in_use() && (hipStream_t)stream == lent_stream_handle() &&
      !tessel_host_reads_device_memory(&host_visible))
    return;
  HIP_CALL_ON_DEFAULT_DEVICE(hipStreamSynchronize, (hipStream_t)stream);
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  HIP_CALL_ON_DEFAULT_DEVICE(hipStreamWaitEvent, (hipStream_t)stream,
                             (hipEvent_t)event, 0);
}

void *mgpuEventCreate(void) {
  hipEvent_t event = NULL;
  /* These events only order work; timing would make them slower. */
  HIP_CALL_ON_DEFAULT_DEVICE(hipEventCreateWithFlags, &event,
                             hipEventDisableTiming);
  return event;
}

void mgpuEventDestroy(void *event) {
  HIP_CALL_ON_DEFAULT_DEVICE(hipEventDestroy, (hipEvent_t)event);
}

void mgpuEventSynchronize(void *event) {
  HIP_CALL_ON_DEFAULT_DEVICE(hipEventSynchronize, (hipEvent_t)event);
}

void mgpuEventRecord(void *event, void *stream) {
  HIP_CALL_ON_DEFAULT_DEVICE(hipEventRecord, (hipEvent_t)event,
                             (hipStream_t)stream);
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
  if (is_host_shared) {
    HIP_CALL_ON_DEFAULT_DEVICE(hipMallocManaged, &ptr, size_bytes,
                               hipMemAttachGlobal);
    if (ptr)
      tessel_track_host_visible_block(&host_visible, ptr);
  } else {
    HIP_CALL_ON_DEFAULT_DEVICE(hipMalloc, &ptr, size_bytes);
  }
  return ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (!ptr)
    return;
  tessel_forget_host_visible_block(&host_visible, ptr);
  int callers;
  if (!enter_default_device(&callers))
    return;
  /* After an async call's kernels, which may still use it. (Unlike the
   * CUDA runtime this one keeps no freed blocks, so it has no event to
   * defer the free to.) */
  if (async_stream_in_use())
    HIP_CALL(hipStreamSynchronize, lent_stream_handle());
  HIP_CALL(hipFree, ptr);
  leave_default_device(callers);
}

void mgpuMemcpy(void *dst, void *src, size_t size_bytes, void *stream) {
  HIP_CALL_ON_DEFAULT_DEVICE(hipMemcpyAsync, dst, src, size_bytes,
                             hipMemcpyDefault, (hipStream_t)stream);
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  HIP_CALL_ON_DEFAULT_DEVICE(hipMemsetD16Async, (hipDeviceptr_t)dst, value,
                             count, (hipStream_t)stream);
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  /* HIP takes the pattern as int; only the bit pattern matters. */
  HIP_CALL_ON_DEFAULT_DEVICE(hipMemsetD32Async, (hipDeviceptr_t)dst, (int)value,
                             count, (hipStream_t)stream);
}

void mgpuMemHostRegister(void *ptr, uint64_t size_bytes) {
  int callers;
  if (!enter_default_device(&callers))
    return;
  if (HIP_CALL(hipHostRegister, ptr, size_bytes, hipHostRegisterDefault) ==
      hipSuccess)
    ++host_visible.registrations;
  leave_default_device(callers);
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t element_size_bytes) {
  char *first_byte;
  uint64_t byte_count;
  if (tessel_memref_byte_span(rank, descriptor, element_size_bytes,
                              &first_byte, &byte_count))
    mgpuMemHostRegister(first_byte, byte_count);
}

void mgpuMemHostUnregister(void *ptr) {
  int callers;
  if (!enter_default_device(&callers))
    return;
  if (HIP_CALL(hipHostUnregister, ptr) == hipSuccess &&
      host_visible.registrations)
    --host_visible.registrations;
  leave_default_device(callers);
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t element_size_bytes) {
  /* Same start address as registration used. */
  char *first_byte;
  uint64_t byte_count;
  if (tessel_memref_byte_span(rank, descriptor, element_size_bytes,
                              &first_byte, &byte_count))
    mgpuMemHostUnregister(first_byte);
}

/* Unlike upstream, HIP's current device is not changed here: every call
 * selects the default device itself (see enter_default_device). */
void mgpuSetDefaultDevice(int32_t device) { default_device = device; }

/* Device address of registered host memory, as a 1-D memref (upstream ROCm
 * helpers used by its integration tests). */
static void *device_pointer_for(void *host_ptr) {
  void *device_ptr = NULL;
  HIP_CALL_ON_DEFAULT_DEVICE(hipHostGetDevicePointer, &device_ptr, host_ptr, 0);
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

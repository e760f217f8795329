/* The mgpu* ABI over the CUDA driver API, modelled on upstream MLIR's
 * mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp but in C, with the
 * signatures MLIR 22 emits (see tessel/gpu_runtime.h).
 *
 * libcuda.so.1 is dlopen'ed by soname on first use rather than linked:
 * a hard DT_NEEDED on it would stop every program linked against this
 * library from even starting on a machine without the NVIDIA driver, and
 * tests must be able to ask "is there a GPU?" and skip. cuda.h still types
 * every entry point, so calls are checked exactly as with direct linking. */

/* dlopen/dlsym and pthreads are POSIX, not ISO C11. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "gpu_common.h"
#include "gpu_modules.h"
#include "gpu_stream_pool.h"
#include "tessel/gpu_runtime.h"

_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "dlsym results are stored into function pointers");

/* ------------------------------------------------------------------------- */
/* Driver entry points                                                       */
/* ------------------------------------------------------------------------- */

/* Everything this file calls. Names are the cuda.h spellings; cuda.h maps
 * some to versioned symbols (cuMemAlloc -> cuMemAlloc_v2), which the loader
 * below resolves by stringifying after macro expansion. */
#define TESSEL_CUDA_REQUIRED_FUNCTIONS(X)                                      \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventSynchronize)                                                        \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuMemAlloc)                                                                \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree)                                                                 \
  X(cuMemcpyAsync)                                                             \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD32Async)                                                          \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)

/* Newer than the oldest driver we can otherwise run on; the mgpu functions
 * that need them report a clear error when the driver lacks them. */
#if CUDA_VERSION >= 12000
#define TESSEL_HAVE_CUDA_12 1
#define TESSEL_CUDA_OPTIONAL_FUNCTIONS(X)                                     \
  X(cuLaunchKernelEx)                                                         \
  X(cuTensorMapEncodeTiled)
#else
#define TESSEL_HAVE_CUDA_12 0
#define TESSEL_CUDA_OPTIONAL_FUNCTIONS(X)
#endif

#define TESSEL_DECLARE_DRIVER_POINTER(name) static __typeof__(&name) driver_##name;
TESSEL_CUDA_REQUIRED_FUNCTIONS(TESSEL_DECLARE_DRIVER_POINTER)
TESSEL_CUDA_OPTIONAL_FUNCTIONS(TESSEL_DECLARE_DRIVER_POINTER)

typedef enum driver_state {
  DRIVER_NOT_FOUND,   /* no libcuda.so.1 */
  DRIVER_INCOMPLETE,  /* a required symbol is missing */
  DRIVER_INIT_FAILED, /* cuInit failed, e.g. no GPU */
  DRIVER_READY,
} driver_state;

static pthread_once_t driver_load_once = PTHREAD_ONCE_INIT;
static driver_state loaded_driver_state = DRIVER_NOT_FOUND;
static char driver_problem[512] = "not loaded yet";

static const char *cuda_error_name(CUresult result) {
  static _Thread_local char fallback[48];
  const char *name = NULL;
  if (driver_cuGetErrorName)
    driver_cuGetErrorName(result, &name);
  if (name)
    return name;
  snprintf(fallback, sizeof fallback, "CUDA error %d", (int)result);
  return fallback;
}

/* Errors are reported on stderr, and also counted per thread with the last
 * one's text kept (tessel_cuda_error_count, tessel_cuda_last_error); within
 * a call on a lent stream (tessel_cuda_set_stream), an error also stops
 * the call's later launches (see tessel_thread_errors). */
static _Thread_local tessel_thread_errors errors;
static _Thread_local CUstream lent_stream = NULL;

__attribute__((format(printf, 1, 2))) static void
report_error(const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  tessel_record_error(&errors, "tessel-cuda", lent_stream != NULL, format,
                      arguments);
  va_end(arguments);
}

uint64_t tessel_cuda_error_count(void) { return errors.count; }

const char *tessel_cuda_last_error(void) { return errors.last; }

static CUresult report_cuda_failure(const char *call, CUresult result) {
  if (result != CUDA_SUCCESS)
    report_error("%s(...) failed: %s", call, cuda_error_name(result));
  return result;
}

static CUresult report_missing_function(const char *call) {
  report_error("%s(...) failed: not provided by the installed CUDA "
               "driver",
               call);
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* Calls a driver function and reports failure with its name. `name` is used
 * only with # and ##, so it stays the unversioned cuda.h spelling. */
#define CUDA_CALL(name, ...)                                                  \
  (driver_##name ? report_cuda_failure(#name, driver_##name(__VA_ARGS__))     \
                 : report_missing_function(#name))

static bool resolve_driver_symbol(void *library, const char *symbol_name,
                                  void *function_pointer_slot) {
  void *symbol = dlsym(library, symbol_name);
  memcpy(function_pointer_slot, &symbol, sizeof symbol);
  return symbol != NULL;
}

static void load_driver(void) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    snprintf(driver_problem, sizeof driver_problem, "cannot load libcuda.so.1: %s",
             reason ? reason : "unknown error");
    loaded_driver_state = DRIVER_NOT_FOUND;
    return;
  }
  const char *first_missing = NULL;
#define TESSEL_RESOLVE_REQUIRED(name)                                         \
  if (!resolve_driver_symbol(library, TESSEL_STRINGIFY(name), &driver_##name) \
      && !first_missing)                                                      \
    first_missing = TESSEL_STRINGIFY(name);
#define TESSEL_RESOLVE_OPTIONAL(name)                                         \
  resolve_driver_symbol(library, TESSEL_STRINGIFY(name), &driver_##name);
  TESSEL_CUDA_REQUIRED_FUNCTIONS(TESSEL_RESOLVE_REQUIRED)
  TESSEL_CUDA_OPTIONAL_FUNCTIONS(TESSEL_RESOLVE_OPTIONAL)
#undef TESSEL_RESOLVE_REQUIRED
#undef TESSEL_RESOLVE_OPTIONAL
  if (first_missing) {
    snprintf(driver_problem, sizeof driver_problem,
             "libcuda.so.1 lacks %s (driver too old?)", first_missing);
    loaded_driver_state = DRIVER_INCOMPLETE;
    return;
  }
  CUresult init_result = driver_cuInit(0);
  if (init_result != CUDA_SUCCESS) {
    snprintf(driver_problem, sizeof driver_problem, "cuInit(...) failed: %s",
             cuda_error_name(init_result));
    loaded_driver_state = DRIVER_INIT_FAILED;
    return;
  }
  snprintf(driver_problem, sizeof driver_problem, "ok");
  loaded_driver_state = DRIVER_READY;
}

static bool driver_is_ready(void) {
  pthread_once(&driver_load_once, load_driver);
  return loaded_driver_state == DRIVER_READY;
}

/* ------------------------------------------------------------------------- */
/* Context handling                                                          */
/* ------------------------------------------------------------------------- */

/* Like upstream: a thread-local default device, whose primary context is
 * retained once (lazily, never released: it lives as long as the process)
 * and made current only for the duration of each mgpu* call, so callers'
 * own context stacks are left as they were. Unlike upstream, contexts are
 * cached per device, so mgpuSetDefaultDevice after first use still works. */
static _Thread_local int32_t default_device = 0;
static pthread_mutex_t primary_context_mutex = PTHREAD_MUTEX_INITIALIZER;
static CUcontext primary_contexts[TESSEL_MAX_GPU_DEVICES];

/* Makes device `ordinal`'s primary context current; false after a
 * reported failure. */
static bool push_device_context(int32_t ordinal) {
  if (!driver_is_ready()) {
    report_error("CUDA is unavailable: %s", driver_problem);
    return false;
  }
  if (ordinal < 0 || ordinal >= TESSEL_MAX_GPU_DEVICES) {
    report_error("device %d is out of range", (int)ordinal);
    return false;
  }
  pthread_mutex_lock(&primary_context_mutex);
  CUcontext context = primary_contexts[ordinal];
  if (!context) {
    CUdevice device;
    if (CUDA_CALL(cuDeviceGet, &device, ordinal) == CUDA_SUCCESS &&
        CUDA_CALL(cuDevicePrimaryCtxRetain, &context, device) == CUDA_SUCCESS)
      primary_contexts[ordinal] = context;
    else
      context = NULL;
  }
  pthread_mutex_unlock(&primary_context_mutex);
  if (!context)
    return false;
  CUresult pushed = driver_cuCtxPushCurrent(context);
  /* A compiled module's destructor unloads its kernels at exit, possibly
   * after the driver has shut down (a CUDA library of the same process,
   * such as cuBLAS, tore it down first): the driver has freed everything,
   * so there is nothing to report. */
  if (pushed == CUDA_ERROR_DEINITIALIZED)
    return false;
  return report_cuda_failure("cuCtxPushCurrent", pushed) == CUDA_SUCCESS;
}

static bool push_default_context(void) {
  return push_device_context(default_device);
}

static void pop_context(void) {
  CUcontext popped;
  CUDA_CALL(cuCtxPopCurrent, &popped);
}

/* ------------------------------------------------------------------------- */
/* Tessel helpers                                                            */
/* ------------------------------------------------------------------------- */

int tessel_cuda_device_count(void) {
  if (!driver_is_ready())
    return 0;
  int count = 0;
  if (driver_cuDeviceGetCount(&count) != CUDA_SUCCESS)
    return 0;
  return count;
}

const char *tessel_cuda_status(void) {
  driver_is_ready();
  return driver_problem;
}

int tessel_cuda_compute_capability(int device_ordinal, int *major,
                                   int *minor) {
  if (!driver_is_ready())
    return -1;
  CUdevice device;
  if (CUDA_CALL(cuDeviceGet, &device, device_ordinal) != CUDA_SUCCESS ||
      CUDA_CALL(cuDeviceGetAttribute, major,
                CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                device) != CUDA_SUCCESS ||
      CUDA_CALL(cuDeviceGetAttribute, minor,
                CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                device) != CUDA_SUCCESS)
    return -1;
  return 0;
}

int tessel_cuda_driver_version(void) {
  int version = 0;
  if (!driver_is_ready() || driver_cuDriverGetVersion(&version) != CUDA_SUCCESS)
    return 0;
  return version;
}

/* The PTX ISA version of NUL-terminated PTX (".version 8.3" -> 83), 0 if it
 * names none. */
static int ptx_isa_version(const char *ptx) {
  const char *directive = strstr(ptx, ".version ");
  int major = 0, minor = 0;
  if (!directive || sscanf(directive, ".version %d.%d", &major, &minor) != 2)
    return 0;
  return major * 10 + minor;
}

/* ------------------------------------------------------------------------- */
/* Modules and launches                                                      */
/* ------------------------------------------------------------------------- */

/* Modules and kernels are the runtime's own handles, with a CUmodule and
 * CUfunction per device (gpu_modules.h), since a CUDA module belongs to one
 * context. */
/* Loads `module` in the current context (pushed by the caller). */
static void *load_module_image(const tessel_gpu_module *module) {
  CUmodule loaded = NULL;
  const void *image = module->image ? module->image : module->borrowed_image;
  if (!module->jit) {
    if (CUDA_CALL(cuModuleLoadData, &loaded, image) != CUDA_SUCCESS)
      return NULL;
    return loaded;
  }
  /* ptxas diagnostics only reach us through this buffer. */
  char jit_error_log[4096] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *option_values[] = {jit_error_log,
                           (void *)(uintptr_t)sizeof jit_error_log,
                           (void *)(uintptr_t)(unsigned)module->opt_level};
  CUresult result =
      CUDA_CALL(cuModuleLoadDataEx, &loaded, image, 3, options, option_values);
  if (result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    /* The usual cause: kernels for sm_90a (PTX ISA 8.3) on a driver older
     * than CUDA 12.3. Say which versions meet. */
    int ptx = ptx_isa_version(image), driver = tessel_cuda_driver_version();
    report_error("the kernels are PTX ISA %d.%d, newer than this driver "
                 "(CUDA %d.%d) compiles; update the driver, or compile for "
                 "an older target (sm_90 instead of sm_90a)",
                 ptx / 10, ptx % 10, driver / 1000, driver % 1000 / 10);
  }
  if (result != CUDA_SUCCESS) {
    if (jit_error_log[0])
      fprintf(stderr, "tessel-cuda: PTX JIT log:\n%s\n", jit_error_log);
    return NULL;
  }
  return loaded;
}

static void *get_function(void *module, const char *name) {
  CUfunction function = NULL;
  if (CUDA_CALL(cuModuleGetFunction, &function, (CUmodule)module, name) !=
      CUDA_SUCCESS)
    return NULL;
  return function;
}

static const tessel_gpu_driver cuda_driver = {load_module_image, get_function,
                                              report_error};

static void *load_module(const void *data, size_t image_bytes, bool jit,
                         int opt_level) {
  if (!data) {
    report_error("%s: no image", jit ? "mgpuModuleLoadJIT" : "mgpuModuleLoad");
    return NULL;
  }
  if (!push_default_context())
    return NULL;
  tessel_gpu_module *module = tessel_gpu_module_load(
      &cuda_driver, data, image_bytes, jit, opt_level, default_device);
  pop_context();
  return module;
}

void *mgpuModuleLoad(void *data, size_t data_size) {
  /* A cubin or fatbin carries its own size; MLIR passes it too. Without
   * it the image is used in place, and has to outlive the module. */
  return load_module(data, data_size, false, 0);
}

void *mgpuModuleLoadJIT(void *data, int opt_level) {
  return load_module(data, data ? strlen(data) + 1 : 0, true, opt_level);
}

void mgpuModuleUnload(void *handle) {
  tessel_gpu_module *module = handle;
  if (!module)
    return;
  int32_t current = default_device;
  for (int32_t device = 0; device < TESSEL_MAX_GPU_DEVICES; ++device) {
    if (!module->per_device[device])
      continue;
    default_device = device;
    /* At exit the driver may be shut down already (push fails quietly):
     * it has freed the module itself. */
    if (push_default_context()) {
      CUresult unloaded =
          driver_cuModuleUnload((CUmodule)module->per_device[device]);
      if (unloaded != CUDA_ERROR_DEINITIALIZED)
        report_cuda_failure("cuModuleUnload", unloaded);
      pop_context();
    }
  }
  default_device = current;
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
  if (kernel || !push_default_context())
    return kernel;
  kernel = tessel_gpu_module_add_kernel(module, name, default_device);
  pop_context();
  return kernel;
}

/* Raises the function's dynamic shared memory limit to what this launch asks
 * for: above 48 KiB (less any static shared memory) kernels must opt in. */
static bool allow_dynamic_shared_memory(CUfunction function,
                                        int32_t dynamic_shared_bytes) {
  if (dynamic_shared_bytes < 0) {
    report_error("negative dynamic shared memory size %d",
                 (int)dynamic_shared_bytes);
    return false;
  }
  if (dynamic_shared_bytes == 0)
    return true;
  if (CUDA_CALL(cuFuncSetAttribute, function,
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic_shared_bytes) == CUDA_SUCCESS)
    return true;
  CUdevice device;
  int device_limit = 0;
  if (driver_cuDeviceGet(&device, default_device) == CUDA_SUCCESS &&
      driver_cuDeviceGetAttribute(
          &device_limit, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
          device) == CUDA_SUCCESS)
    report_error("requested %d bytes of dynamic shared memory; the "
                 "device allows at most %d per block",
                 (int)dynamic_shared_bytes, device_limit);
  return false;
}

/* allow_dynamic_shared_memory for `kernel` on the default device, once
 * per size it grows to. Each cuFuncSetAttribute replaces the driver's
 * limit rather than raising it, so the limit is only ever set to the
 * largest size asked for so far, under the module's load_mutex: it never
 * drops below what `shared_bytes_allowed` says. */
static bool allow_kernel_shared_memory(tessel_gpu_kernel *kernel,
                                       CUfunction function,
                                       int32_t dynamic_shared_bytes) {
  int32_t *allowed = &kernel->shared_bytes_allowed[default_device];
  if (dynamic_shared_bytes >= 0 &&
      dynamic_shared_bytes <= __atomic_load_n(allowed, __ATOMIC_ACQUIRE))
    return true;
  if (dynamic_shared_bytes < 0) /* reported there */
    return allow_dynamic_shared_memory(function, dynamic_shared_bytes);
  pthread_mutex_lock(&kernel->module->load_mutex);
  int32_t wanted =
      *allowed > dynamic_shared_bytes ? *allowed : dynamic_shared_bytes;
  bool ok = allow_dynamic_shared_memory(function, wanted);
  if (ok)
    __atomic_store_n(allowed, wanted, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&kernel->module->load_mutex);
  return ok;
}

void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t dynamic_shared_bytes,
                      void *stream, void **params, void **extra,
                      size_t param_count) {
  (void)param_count; /* the driver knows the kernel's parameter layout */
  const intptr_t dims[6] = {grid_x, grid_y, grid_z, block_x, block_y, block_z};
  if (!tessel_launch_dims_fit(dims, 6)) {
    report_error("mgpuLaunchKernel: launch dimensions out of range "
                 "(grid %lld,%lld,%lld block %lld,%lld,%lld)",
                 (long long)grid_x, (long long)grid_y, (long long)grid_z,
                 (long long)block_x, (long long)block_y, (long long)block_z);
    return;
  }
  if (lent_stream && errors.lent_call_failed)
    return; /* this call already failed (reported); see report_error */
  if (!function) {
    report_error("mgpuLaunchKernel: no kernel (its lookup "
                 "failed)");
    return;
  }
  if (!push_default_context())
    return;
  CUfunction kernel = tessel_gpu_kernel_on_device(function, default_device);
  if (kernel &&
      allow_kernel_shared_memory(function, kernel, dynamic_shared_bytes))
    CUDA_CALL(cuLaunchKernel, kernel, (unsigned)grid_x, (unsigned)grid_y,
              (unsigned)grid_z, (unsigned)block_x, (unsigned)block_y,
              (unsigned)block_z, (unsigned)dynamic_shared_bytes,
              (CUstream)stream, params, extra);
  pop_context();
}

void mgpuLaunchClusterKernel(void *function, intptr_t cluster_x,
                             intptr_t cluster_y, intptr_t cluster_z,
                             intptr_t grid_x, intptr_t grid_y, intptr_t grid_z,
                             intptr_t block_x, intptr_t block_y,
                             intptr_t block_z, int32_t dynamic_shared_bytes,
                             void *stream, void **params, void **extra,
                             size_t param_count) {
  (void)param_count; /* not passed by MLIR 22; see gpu_runtime.h */
  const intptr_t dims[9] = {cluster_x, cluster_y, cluster_z, grid_x, grid_y,
                            grid_z,    block_x,   block_y,   block_z};
  if (!tessel_launch_dims_fit(dims, 9)) {
    report_error("mgpuLaunchClusterKernel: launch dimensions "
                 "out of range");
    return;
  }
#if TESSEL_HAVE_CUDA_12
  if (lent_stream && errors.lent_call_failed)
    return; /* this call already failed (reported); see report_error */
  if (!function) {
    report_error("mgpuLaunchClusterKernel: no kernel (its "
                 "lookup failed)");
    return;
  }
  if (!push_default_context())
    return;
  CUfunction kernel = tessel_gpu_kernel_on_device(function, default_device);
  bool ready = kernel && allow_kernel_shared_memory(function, kernel,
                                                    dynamic_shared_bytes);
  /* Clusters of more than 8 blocks are "non-portable" and need an opt-in. */
  if (ready && cluster_x * cluster_y * cluster_z > 8)
    ready = CUDA_CALL(cuFuncSetAttribute, kernel,
                      CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                      1) == CUDA_SUCCESS;
  if (ready) {
    CUlaunchAttribute attributes[2];
    memset(attributes, 0, sizeof attributes);
    attributes[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attributes[0].value.clusterDim.x = (unsigned)cluster_x;
    attributes[0].value.clusterDim.y = (unsigned)cluster_y;
    attributes[0].value.clusterDim.z = (unsigned)cluster_z;
    /* Same choice as upstream: spread a cluster's blocks across SMs. */
    attributes[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    attributes[1].value.clusterSchedulingPolicyPreference =
        CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
    CUlaunchConfig config = {
        .gridDimX = (unsigned)grid_x,
        .gridDimY = (unsigned)grid_y,
        .gridDimZ = (unsigned)grid_z,
        .blockDimX = (unsigned)block_x,
        .blockDimY = (unsigned)block_y,
        .blockDimZ = (unsigned)block_z,
        .sharedMemBytes = (unsigned)dynamic_shared_bytes,
        .hStream = (CUstream)stream,
        .attrs = attributes,
        .numAttrs = 2,
    };
    CUDA_CALL(cuLaunchKernelEx, &config, kernel, params, extra);
  }
  pop_context();
#else
  (void)function;
  (void)dynamic_shared_bytes;
  (void)stream;
  (void)params;
  (void)extra;
  report_error("mgpuLaunchClusterKernel needs CUDA 12 headers "
               "(cuLaunchKernelEx); this library was built without them");
#endif
}

/* ------------------------------------------------------------------------- */
/* Streams and events                                                        */
/* ------------------------------------------------------------------------- */

/* Generated code's streams are kept for its next calls
 * (gpu_stream_pool.h; TESSEL_CUDA_POOLED_STREAMS).
 *
 * A caller may instead lend the thread a stream of its own
 * (tessel_cuda_set_stream, e.g. PyTorch's current stream): while the
 * default device is the one it was lent on, generated code launches on it,
 * in order with the caller's other work, so the caller need not
 * synchronize its stream before the call, and mgpuStreamDestroy leaves it
 * alone. Lent with tessel_cuda_set_stream_async, generated code's waits on
 * it return at once, so a call returns once its work is queued, as a
 * framework's own operators do; what the runtime reuses after a call
 * (freed blocks, tensor-map copies) is then ordered after the call's
 * kernels by events instead (see below). */
static tessel_stream_pool stream_pool =
    TESSEL_STREAM_POOL_INITIALIZER("TESSEL_CUDA_POOLED_STREAMS", "tessel-cuda");
static _Thread_local int32_t lent_stream_device = 0;
static _Thread_local bool lent_stream_async = false;

/* Whether generated code's work on this thread goes to a stream lent with
 * tessel_cuda_set_stream_async, whose waits are skipped. */
static bool async_stream_in_use(void) {
  return lent_stream && lent_stream_async &&
         lent_stream_device == default_device;
}

/* Memory the host reads after a kernel (see tessel_host_visible): while
 * the thread has any, waits on an async lent stream are real. */
static _Thread_local tessel_host_visible host_visible;

/* Counts the calling thread's real mgpuStreamSynchronize calls: a tensor
 * map handed out before the thread's latest one may be overwritten, since
 * the kernels of generated code that read it are done (see the tensor-map
 * cache below). */
static _Thread_local uint64_t stream_synchronizations = 0;

/* How far a thread that uses tensor maps knows its kernels to be done: its
 * stream_synchronizations and tags_done (below), published so that another
 * thread may tell which of its maps' copies no kernel reads any more and
 * take them. Made at the thread's first map; freed once the thread has
 * exited and no entry of the map table names it. */
typedef struct map_user {
  _Atomic uint64_t synchronizations, tags_done;
  int references; /* the live thread, and table entries; tensor_map_mutex */
} map_user;
static _Thread_local map_user *this_map_user;
static pthread_mutex_t tensor_map_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Async epochs. A tensor-map copy handed out to a call that does not wait
 * for its kernels may be overwritten only once they are done. Maps get a
 * tag when handed out; at the first skipped wait after a hand-out the
 * thread records an event on its async lent stream, which covers every tag
 * so far. Generated code waits after each op and makes an op's maps after
 * the previous op's wait, so that is one event per kernel that reads maps.
 * The events sit in a ring of TESSEL_ASYNC_EPOCHS and pass in order (a
 * later event that has passed says nothing of an earlier one on another
 * stream): tags_done is one past the last tag of the newest event known to
 * have passed. When the ring is full and the newest event is on the same
 * stream, it is recorded again, later, and covers the new tags too, so the
 * thread does not wait; on another stream, the thread waits for the
 * oldest. A tag whose event could not be recorded had its stream waited
 * for, and is covered by the next event that passes. */
enum { TESSEL_ASYNC_EPOCHS = 32 };
typedef struct epoch_event {
  CUevent event; /* NULL: passed when it was made */
  int32_t device;
  CUstream stream;
  uint64_t last_tag;
} epoch_event;
static _Thread_local epoch_event epoch_events[TESSEL_ASYNC_EPOCHS];
static _Thread_local uint64_t epochs_recorded, epochs_done;
static _Thread_local uint64_t next_map_tag, tags_done;
/* A map was handed out to an async call since the last recorded epoch. */
static _Thread_local bool maps_await_epoch;

/* Advances past the epochs whose events have passed; with `wait_for_one`,
 * waits for the oldest unfinished one first. */
static void advance_async_epochs(bool wait_for_one) {
  while (epochs_done < epochs_recorded) {
    epoch_event *oldest = &epoch_events[epochs_done % TESSEL_ASYNC_EPOCHS];
    if (oldest->event) {
      if (!push_device_context(oldest->device))
        return;
      CUresult result = wait_for_one ? driver_cuEventSynchronize(oldest->event)
                                     : driver_cuEventQuery(oldest->event);
      pop_context();
      if (result == CUDA_ERROR_NOT_READY)
        return;
      if (result != CUDA_SUCCESS) {
        /* Its maps, and later ones, stay in use. */
        report_cuda_failure(
            wait_for_one ? "cuEventSynchronize" : "cuEventQuery", result);
        return;
      }
    }
    tags_done = oldest->last_tag + 1;
    if (this_map_user)
      this_map_user->tags_done = tags_done;
    ++epochs_done;
    wait_for_one = false;
  }
}

typedef enum epoch_record {
  EPOCH_RECORDED, /* the event is recorded after the maps' kernels */
  EPOCH_WAITED,   /* no event: the stream was waited for instead */
  EPOCH_FAILED,   /* neither (reported): the maps' epoch stays open */
} epoch_record;

/* Records `event` (made if NULL) on the lent stream. */
static epoch_record record_on_lent_stream(CUevent *event) {
  if (!push_device_context(lent_stream_device))
    return EPOCH_FAILED;
  bool recorded =
      (*event || CUDA_CALL(cuEventCreate, event, CU_EVENT_DISABLE_TIMING) ==
                     CUDA_SUCCESS) &&
      CUDA_CALL(cuEventRecord, *event, lent_stream) == CUDA_SUCCESS;
  if (!recorded) /* the maps' kernels are done once the stream is */
    CUDA_CALL(cuStreamSynchronize, lent_stream);
  pop_context();
  return recorded ? EPOCH_RECORDED : EPOCH_WAITED;
}

/* The open epoch's maps are covered (by an event, or by a wait for their
 * stream): later maps get the next tag. */
static void close_map_epoch(void) {
  maps_await_epoch = false;
  ++next_map_tag;
}

/* Ends the epoch of the maps handed out since the last one: an event on
 * the async lent stream, after their kernels. */
static void record_async_epoch(void) {
  if (!maps_await_epoch || !lent_stream)
    return;
  /* The tag is taken only once something covers it; until then the
   * epoch stays open, to be ended at the next wait or lending. */
  const uint64_t tag = next_map_tag;
  if (epochs_recorded - epochs_done == TESSEL_ASYNC_EPOCHS)
    advance_async_epochs(false);
  if (epochs_recorded - epochs_done == TESSEL_ASYNC_EPOCHS) {
    epoch_event *newest =
        &epoch_events[(epochs_recorded - 1) % TESSEL_ASYNC_EPOCHS];
    if (newest->event && newest->device == lent_stream_device &&
        newest->stream == lent_stream) {
      /* The stream waits for the event's earlier point first: should the
       * handle name a new stream now (the old one destroyed), the event
       * still passes only after what it covered. */
      if (!push_device_context(lent_stream_device))
        return; /* reported; the epoch stays open */
      bool ordered = CUDA_CALL(cuStreamWaitEvent, lent_stream, newest->event,
                               0) == CUDA_SUCCESS;
      if (!ordered) /* a later event covers the tag: its kernels are done */
        CUDA_CALL(cuStreamSynchronize, lent_stream);
      pop_context();
      epoch_record record =
          ordered ? record_on_lent_stream(&newest->event) : EPOCH_WAITED;
      if (record == EPOCH_FAILED)
        return;
      if (record == EPOCH_RECORDED)
        newest->last_tag = tag;
      close_map_epoch();
      return;
    }
    advance_async_epochs(true);
    if (epochs_recorded - epochs_done == TESSEL_ASYNC_EPOCHS) {
      /* The oldest event failed (reported): wait for this epoch's stream;
       * a later event covers its tag. */
      if (!push_device_context(lent_stream_device))
        return; /* reported; the epoch stays open */
      CUDA_CALL(cuStreamSynchronize, lent_stream);
      pop_context();
      close_map_epoch();
      return;
    }
  }
  epoch_event *slot = &epoch_events[epochs_recorded % TESSEL_ASYNC_EPOCHS];
  if (slot->event && slot->device != lent_stream_device &&
      push_device_context(slot->device)) {
    CUDA_CALL(cuEventDestroy, slot->event);
    pop_context();
    slot->event = NULL;
  }
  if (slot->event && slot->device != lent_stream_device)
    slot->event = NULL; /* its device is gone: leaked, not misused */
  epoch_record record = record_on_lent_stream(&slot->event);
  if (record == EPOCH_FAILED)
    return;
  if (record == EPOCH_WAITED) {
    /* The stream was waited for instead: an epoch that has passed. */
    if (slot->event && push_device_context(lent_stream_device)) {
      CUDA_CALL(cuEventDestroy, slot->event);
      pop_context();
    }
    slot->event = NULL;
  }
  slot->device = lent_stream_device;
  slot->stream = lent_stream;
  slot->last_tag = tag;
  ++epochs_recorded;
  close_map_epoch();
}

/* The calling thread's map_user, made at its first call (NULL, reported,
 * if it cannot be). */
static pthread_key_t map_user_key;
static bool map_user_key_made;
static pthread_once_t map_user_key_once = PTHREAD_ONCE_INIT;
static void retire_map_user(void *user);
static void make_map_user_key(void) {
  map_user_key_made = pthread_key_create(&map_user_key, retire_map_user) == 0;
  if (!map_user_key_made)
    report_error("pthread_key_create failed: threads' tensor-map state "
                 "will not be released when they exit");
}

static map_user *current_map_user(void) {
  if (this_map_user)
    return this_map_user;
  pthread_once(&map_user_key_once, make_map_user_key);
  map_user *user = calloc(1, sizeof *user);
  if (!user) {
    report_error("out of host memory for a thread's tensor-map state");
    return NULL;
  }
  user->synchronizations = stream_synchronizations;
  user->tags_done = tags_done;
  user->references = 1;
  /* Without the key the record outlives the thread: a few bytes, and its
   * async maps still queued at its exit stay in use. */
  if (map_user_key_made)
    (void)pthread_setspecific(map_user_key, user);
  this_map_user = user;
  return user;
}

static void release_map_user(map_user *user) {
  if (user && --user->references == 0)
    free(user);
}

/* At the exit of a thread that made maps: a last look at which of its
 * epochs have passed (their maps' copies may then be taken by other
 * threads; those of epochs still queued stay in use for good), then its
 * events are destroyed (the driver frees a queued one once it passes). */
static void retire_map_user(void *user) {
  advance_async_epochs(false);
  for (int i = 0; i < TESSEL_ASYNC_EPOCHS; ++i) {
    epoch_event *slot = &epoch_events[i];
    if (slot->event && push_device_context(slot->device)) {
      CUDA_CALL(cuEventDestroy, slot->event);
      pop_context();
    }
    slot->event = NULL;
  }
  epochs_done = epochs_recorded;
  this_map_user = NULL;
  pthread_mutex_lock(&tensor_map_mutex);
  release_map_user(user);
  pthread_mutex_unlock(&tensor_map_mutex);
}

/* Whether a wait on `stream` is skipped: it is the async lent stream and
 * the host reads no device memory after it. */
static bool wait_skipped(CUstream stream) {
  return async_stream_in_use() && stream == lent_stream &&
         !tessel_host_reads_device_memory(&host_visible);
}

static void lend_stream(void *stream, bool async) {
  /* Maps handed out on the stream lent so far belong to an epoch on it. */
  if (lent_stream_async)
    record_async_epoch();
  lent_stream = (CUstream)stream;
  lent_stream_async = async && stream;
  lent_stream_device = default_device;
  errors.lent_call_failed = false;
}

void tessel_cuda_set_stream(void *stream) { lend_stream(stream, false); }

void tessel_cuda_set_stream_async(void *stream) { lend_stream(stream, true); }

void *tessel_cuda_stream(void) { return lent_stream; }

/* CU_STREAM_LEGACY and CU_STREAM_PER_THREAD name the default streams; they
 * are not destroyed. */
static bool is_default_stream_handle(CUstream stream) {
  return stream == NULL || stream == CU_STREAM_LEGACY ||
         stream == CU_STREAM_PER_THREAD;
}

void *mgpuStreamCreate(void) {
  if (lent_stream && lent_stream_device == default_device)
    return lent_stream;
  void *kept = tessel_stream_pool_take(&stream_pool, default_device);
  if (kept)
    return kept;
  CUstream stream = NULL;
  if (!push_default_context())
    return NULL;
  /* Non-blocking, as upstream: no implicit sync with the legacy stream. */
  if (CUDA_CALL(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING) !=
      CUDA_SUCCESS)
    stream = NULL;
  pop_context();
  if (stream)
    tessel_stream_pool_track(&stream_pool, stream, default_device);
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  if (stream == lent_stream || is_default_stream_handle((CUstream)stream))
    return;
  /* A stream the pool has no room for is destroyed in its own device's
   * context; one mgpuStreamCreate did not make, in the default one. */
  int32_t device = default_device;
  switch (tessel_stream_pool_give_back(&stream_pool, stream, &device)) {
  case TESSEL_STREAM_KEPT:
    return;
  case TESSEL_STREAM_DESTROYED_TWICE:
    report_error("mgpuStreamDestroy(%p): the stream was already "
                 "destroyed",
                 stream);
    return;
  case TESSEL_STREAM_TO_DESTROY:
    break;
  }
  int32_t current = default_device;
  default_device = device;
  if (push_default_context()) {
    CUDA_CALL(cuStreamDestroy, (CUstream)stream);
    pop_context();
  }
  default_device = current;
}

void mgpuStreamSynchronize(void *stream) {
  if (wait_skipped((CUstream)stream)) {
    record_async_epoch();
    return;
  }
  /* A real wait on the async lent stream (the host reads device memory
   * after it) ends the maps' epoch too, or they would stay in use. */
  if (async_stream_in_use() && (CUstream)stream == lent_stream)
    record_async_epoch();
  if (!push_default_context())
    return;
  CUDA_CALL(cuStreamSynchronize, (CUstream)stream);
  pop_context();
  ++stream_synchronizations;
  if (this_map_user)
    this_map_user->synchronizations = stream_synchronizations;
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (!push_default_context())
    return;
  CUDA_CALL(cuStreamWaitEvent, (CUstream)stream, (CUevent)event, 0);
  pop_context();
}

void *mgpuEventCreate(void) {
  CUevent event = NULL;
  if (!push_default_context())
    return NULL;
  /* These events only order work; timing would make them slower. */
  CUDA_CALL(cuEventCreate, &event, CU_EVENT_DISABLE_TIMING);
  pop_context();
  return event;
}

void mgpuEventDestroy(void *event) {
  if (!push_default_context())
    return;
  CUDA_CALL(cuEventDestroy, (CUevent)event);
  pop_context();
}

void mgpuEventSynchronize(void *event) {
  if (!push_default_context())
    return;
  CUDA_CALL(cuEventSynchronize, (CUevent)event);
  pop_context();
}

void mgpuEventRecord(void *event, void *stream) {
  if (!push_default_context())
    return;
  CUDA_CALL(cuEventRecord, (CUevent)event, (CUstream)stream);
  pop_context();
}

/* ------------------------------------------------------------------------- */
/* Memory                                                                    */
/* ------------------------------------------------------------------------- */

/* Device memory that mgpuMemFree released is kept for the next allocation
 * of the same size on the same device. Generated code allocates its device
 * temporaries on every call (gpu.alloc before the kernels, gpu.dealloc
 * after them); cuMemAlloc of a large block and cuMemFree, which
 * synchronizes the whole device, would cost each call far more than a
 * short kernel. Reuse also keeps a temporary's address from call to call,
 * so its TMA descriptors come from the tensor-map cache below. This is
 * sound for generated code: it frees a buffer only after waiting for the
 * stream whose kernels used it. On a stream lent with
 * tessel_cuda_set_stream_async that wait is skipped, so a block freed
 * there carries an event recorded on that stream after its kernels: its
 * next allocation orders the allocation's stream after the event (see
 * order_after_earlier_use), and it goes back to the driver only once the
 * event has passed. Managed (host-shared) memory is freed at once.
 * TESSEL_CUDA_CACHED_BYTES bounds the memory kept (default 1 GiB; 0
 * disables the reuse); the oldest blocks go back to the driver first. */
typedef struct device_block {
  CUdeviceptr ptr;
  uint64_t size;
  int32_t device;
  /* Made for the block's first async free and kept with it. */
  CUevent freed_event;
  /* freed_event was recorded after kernels that may still use the block. */
  bool use_pending;
} device_block;

enum { TESSEL_CACHED_BLOCKS = 16 };
static pthread_mutex_t device_block_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Blocks handed out by mgpuMemAlloc and not freed yet (only those: the
 * sizes of other pointers are unknown, so they are freed at once). */
static device_block *live_blocks;
static size_t live_block_count, live_block_capacity;
/* Freed blocks, oldest first. */
static device_block cached_blocks[TESSEL_CACHED_BLOCKS];
static int cached_block_count;
static uint64_t cached_block_bytes;

static uint64_t cached_bytes_limit_value;

static void read_cached_bytes_limit(void) {
  cached_bytes_limit_value = (uint64_t)1 << 30;
  const char *text = getenv("TESSEL_CUDA_CACHED_BYTES");
  if (!text || !*text)
    return;
  char *end = NULL;
  errno = 0;
  unsigned long long bytes =
      isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
  if (end && *end == '\0' && errno != ERANGE)
    cached_bytes_limit_value = (uint64_t)bytes;
  else
    fprintf(stderr,
            "tessel-cuda: TESSEL_CUDA_CACHED_BYTES='%s' is not a byte count; "
            "keeping at most %llu bytes of freed device memory\n",
            text, (unsigned long long)cached_bytes_limit_value);
}

static uint64_t cached_bytes_limit(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_cached_bytes_limit);
  return cached_bytes_limit_value;
}

/* Called with device_block_mutex held. */
static void track_live_block(device_block block) {
  device_block *grown = tessel_with_room_for_one(
      live_blocks, live_block_count, &live_block_capacity, sizeof *live_blocks);
  if (!grown)
    return; /* untracked: freed at once, never reused */
  live_blocks = grown;
  live_blocks[live_block_count++] = block;
}

/* Frees `block` in its own device's context, once kernels that an async
 * call queued before freeing it are done. */
static void release_device_block(device_block block) {
  if (!push_device_context(block.device))
    return;
  if (block.use_pending)
    CUDA_CALL(cuEventSynchronize, block.freed_event);
  if (block.freed_event)
    CUDA_CALL(cuEventDestroy, block.freed_event);
  CUDA_CALL(cuMemFree, block.ptr);
  pop_context();
}

/* A block freed by an async call: an event after the kernels queued so
 * far on the lent stream, which may still use it. False (reported) when
 * none could be recorded. Short driver calls only: it runs under
 * device_block_mutex. */
static bool mark_use_pending(device_block *block) {
  if (!push_device_context(block->device))
    return false;
  if (!block->freed_event && CUDA_CALL(cuEventCreate, &block->freed_event,
                                       CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
    block->freed_event = NULL;
  block->use_pending =
      block->freed_event &&
      CUDA_CALL(cuEventRecord, block->freed_event, lent_stream) == CUDA_SUCCESS;
  pop_context();
  return block->use_pending;
}

/* Orders the next use of a reused block after its earlier use, which may
 * still be running, given `freed_event` recorded after it: on the async
 * lent stream, the stream waits (on the GPU); for any other stream the
 * host waits, since the block may be used on another stream than the one
 * it is allocated on (generated code waits for that one right away, so it
 * would wait as long). Called in the block's device's context. */
static void order_after_earlier_use(CUevent freed_event, CUstream stream) {
  CUresult state = driver_cuEventQuery(freed_event);
  if (state == CUDA_SUCCESS)
    return;
  if (state != CUDA_ERROR_NOT_READY)
    report_cuda_failure("cuEventQuery", state);
  if (wait_skipped(stream) &&
      CUDA_CALL(cuStreamWaitEvent, stream, freed_event, 0) == CUDA_SUCCESS)
    return;
  CUDA_CALL(cuEventSynchronize, freed_event);
}

/* Gives every kept block of `device` back to the driver; returns how many. */
static int release_cached_blocks(int32_t device) {
  device_block released[TESSEL_CACHED_BLOCKS];
  int released_count = 0;
  pthread_mutex_lock(&device_block_mutex);
  int kept = 0;
  for (int i = 0; i < cached_block_count; ++i) {
    if (cached_blocks[i].device == device) {
      released[released_count++] = cached_blocks[i];
      cached_block_bytes -= cached_blocks[i].size;
    } else {
      cached_blocks[kept++] = cached_blocks[i];
    }
  }
  cached_block_count = kept;
  pthread_mutex_unlock(&device_block_mutex);
  for (int i = 0; i < released_count; ++i)
    release_device_block(released[i]);
  return released_count;
}

/* cuMemAlloc in the current context. Out of memory while freed blocks are
 * kept: they go back to the driver, and the allocation is tried once more. */
static bool allocate_device_memory(CUdeviceptr *ptr, uint64_t size_bytes) {
  CUresult result = driver_cuMemAlloc(ptr, size_bytes);
  if (result == CUDA_ERROR_OUT_OF_MEMORY &&
      release_cached_blocks(default_device) > 0)
    result = driver_cuMemAlloc(ptr, size_bytes);
  return report_cuda_failure("cuMemAlloc", result) == CUDA_SUCCESS;
}

void *mgpuMemAlloc(uint64_t size_bytes, void *stream, bool is_host_shared) {
  /* Allocation is synchronous, as upstream; `stream` is only ordered after
   * a reused block's earlier use. */
  CUdeviceptr ptr = 0;
  if (size_bytes == 0) /* the driver rejects 0; an empty memref needs none */
    return NULL;
  if (!is_host_shared) {
    pthread_mutex_lock(&device_block_mutex);
    for (int i = 0; i < cached_block_count; ++i) {
      device_block block = cached_blocks[i];
      if (block.size != size_bytes || block.device != default_device)
        continue;
      memmove(&cached_blocks[i], &cached_blocks[i + 1],
              (size_t)(cached_block_count - i - 1) * sizeof *cached_blocks);
      --cached_block_count;
      cached_block_bytes -= block.size;
      const bool use_pending = block.use_pending;
      block.use_pending = false; /* ordered below */
      track_live_block(block);
      pthread_mutex_unlock(&device_block_mutex);
      /* Outside the lock: it may wait. The block is the caller's alone
       * (its address is not handed out yet), and so is its event. */
      if (use_pending && push_default_context()) {
        order_after_earlier_use(block.freed_event, (CUstream)stream);
        pop_context();
      }
      return (void *)(uintptr_t)block.ptr;
    }
    pthread_mutex_unlock(&device_block_mutex);
  }
  if (!push_default_context())
    return NULL;
  if (is_host_shared) {
    if (CUDA_CALL(cuMemAllocManaged, &ptr, size_bytes, CU_MEM_ATTACH_GLOBAL) ==
        CUDA_SUCCESS)
      tessel_track_host_visible_block(&host_visible, (void *)(uintptr_t)ptr);
    else
      ptr = 0;
  } else {
    if (allocate_device_memory(&ptr, size_bytes)) {
      pthread_mutex_lock(&device_block_mutex);
      track_live_block((device_block){
          .ptr = ptr, .size = size_bytes, .device = default_device});
      pthread_mutex_unlock(&device_block_mutex);
    } else {
      ptr = 0;
    }
  }
  pop_context();
  return (void *)(uintptr_t)ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (!ptr)
    return;
  CUdeviceptr address = (CUdeviceptr)(uintptr_t)ptr;
  /* Blocks to give back to the driver, outside the lock. */
  device_block released[TESSEL_CACHED_BLOCKS + 1];
  int released_count = 0;
  bool tracked = false;
  const bool async = async_stream_in_use();
  /* A block an async call freed without an event to keep it by: freed
   * after waiting for the stream, outside the lock. */
  bool wait_before_release = false;
  pthread_mutex_lock(&device_block_mutex);
  for (size_t i = 0; i < live_block_count; ++i) {
    if (live_blocks[i].ptr != address)
      continue;
    device_block block = live_blocks[i];
    live_blocks[i] = live_blocks[--live_block_count];
    tracked = true;
    /* An async call's kernels may still use it. */
    if (async && block.device == default_device && !mark_use_pending(&block))
      wait_before_release = true;
    uint64_t limit = cached_bytes_limit();
    if (block.size > limit || wait_before_release) {
      released[released_count++] = block;
      break;
    }
    while (cached_block_count == TESSEL_CACHED_BLOCKS ||
           cached_block_bytes + block.size > limit) {
      released[released_count++] = cached_blocks[0];
      cached_block_bytes -= cached_blocks[0].size;
      memmove(&cached_blocks[0], &cached_blocks[1],
              (size_t)(--cached_block_count) * sizeof *cached_blocks);
    }
    cached_blocks[cached_block_count++] = block;
    cached_block_bytes += block.size;
    break;
  }
  /* A kept block freed again would be handed out twice. */
  bool freed_twice = false;
  for (int i = 0; !tracked && i < cached_block_count; ++i)
    freed_twice |= cached_blocks[i].ptr == address;
  pthread_mutex_unlock(&device_block_mutex);
  if (wait_before_release && push_default_context()) {
    CUDA_CALL(cuStreamSynchronize, lent_stream);
    pop_context();
  }
  for (int i = 0; i < released_count; ++i)
    release_device_block(released[i]);
  if (freed_twice)
    report_error("mgpuMemFree(%p): the block was already freed", ptr);
  if (tracked || freed_twice)
    return;
  tessel_forget_host_visible_block(&host_visible, ptr);
  if (!push_default_context())
    return;
  /* Not a block to keep: freed now, after the kernels an async call
   * queued, which may use it. */
  if (async)
    CUDA_CALL(cuStreamSynchronize, lent_stream);
  CUDA_CALL(cuMemFree, address);
  pop_context();
}

void mgpuMemcpy(void *dst, void *src, size_t size_bytes, void *stream) {
  if (!push_default_context())
    return;
  /* Unified addressing lets one call cover every direction. */
  CUDA_CALL(cuMemcpyAsync, (CUdeviceptr)(uintptr_t)dst,
            (CUdeviceptr)(uintptr_t)src, size_bytes, (CUstream)stream);
  pop_context();
}

void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  if (!push_default_context())
    return;
  CUDA_CALL(cuMemsetD16Async, (CUdeviceptr)(uintptr_t)dst, value, count,
            (CUstream)stream);
  pop_context();
}

void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  if (!push_default_context())
    return;
  CUDA_CALL(cuMemsetD32Async, (CUdeviceptr)(uintptr_t)dst, value, count,
            (CUstream)stream);
  pop_context();
}

void mgpuMemHostRegister(void *ptr, uint64_t size_bytes) {
  if (!push_default_context())
    return;
  if (CUDA_CALL(cuMemHostRegister, ptr, size_bytes, 0) == CUDA_SUCCESS)
    ++host_visible.registrations;
  pop_context();
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
  if (!push_default_context())
    return;
  if (CUDA_CALL(cuMemHostUnregister, ptr) == CUDA_SUCCESS &&
      host_visible.registrations)
    --host_visible.registrations;
  pop_context();
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t element_size_bytes) {
  /* Same start address as registration used, or the driver will not find
   * the registration. */
  char *first_byte;
  uint64_t byte_count;
  if (tessel_memref_byte_span(rank, descriptor, element_size_bytes,
                              &first_byte, &byte_count))
    mgpuMemHostUnregister(first_byte);
}

void mgpuSetDefaultDevice(int32_t device) { default_device = device; }

/* ------------------------------------------------------------------------- */
/* TMA descriptors                                                           */
/* ------------------------------------------------------------------------- */

void mgpuTensorMapEncodeTiled(void *tensor_map, int32_t data_type,
                              uint32_t rank, void *global_address,
                              const uint64_t *global_dims,
                              const uint64_t *global_strides_bytes,
                              const uint32_t *box_dims,
                              const uint32_t *element_strides,
                              int32_t interleave, int32_t swizzle,
                              int32_t l2_promotion, int32_t oob_fill) {
#if TESSEL_HAVE_CUDA_12
  if (!push_default_context())
    return;
  CUDA_CALL(cuTensorMapEncodeTiled, (CUtensorMap *)tensor_map,
            (CUtensorMapDataType)data_type, rank, global_address, global_dims,
            global_strides_bytes, box_dims, element_strides,
            (CUtensorMapInterleave)interleave, (CUtensorMapSwizzle)swizzle,
            (CUtensorMapL2promotion)l2_promotion,
            (CUtensorMapFloatOOBfill)oob_fill);
  pop_context();
#else
  (void)tensor_map, (void)data_type, (void)rank, (void)global_address;
  (void)global_dims, (void)global_strides_bytes, (void)box_dims;
  (void)element_strides, (void)interleave, (void)swizzle, (void)l2_promotion;
  (void)oob_fill;
  report_error("TMA needs CUDA 12 headers; this library was "
               "built without them");
#endif
}

#if TESSEL_HAVE_CUDA_12
/* Device copies of tensor maps, by everything that goes into them. A
 * compiled matmul asks for the same two maps on every call; encoding and
 * uploading them each time would cost an allocation and a synchronous copy
 * per call, and leak both (the generated code has no point at which it
 * could free a map). The table holds 256 maps. When it is full, a new map
 * overwrites the device copy of the least recently used map that only one
 * thread has used and that no kernel of that thread may still read: one
 * last handed out before that thread's latest mgpuStreamSynchronize
 * (generated code makes a kernel's maps right before it launches it, once
 * per launch, tessel-lower-tma-descriptors, and waits for it: a copy is
 * read only by the launch it was handed out for; a map handed out since
 * the wait may still be waiting for its launch, e.g. A's while B's is
 * made), or, handed out to a call on a stream lent with
 * tessel_cuda_set_stream_async, which does not wait, one whose async epoch
 * that thread has seen pass (see record_async_epoch). Each thread publishes
 * that progress (map_user), so any thread may take an idle copy, a dead
 * thread's included. Maps two threads used are never overwritten; when no
 * map qualifies, the new one gets a device copy of its own that is never
 * freed, as upstream's runtime does for every map. The kernels acquire
 * their maps (fence.proxy.tensormap) before using them, so TMA does not
 * keep using an overwritten slot's older map. */
typedef enum tensor_map_state {
  TENSOR_MAP_FREE,    /* no map (a write failed): any thread may take it */
  TENSOR_MAP_WRITING, /* a thread is writing its copy: lookups skip it */
  TENSOR_MAP_READY,
} tensor_map_state;

typedef struct {
  int32_t device;
  int32_t data_type, interleave, swizzle, l2_promotion, oob_fill;
  uint32_t rank;
  void *global_address;
  uint64_t dims[5], strides[5];
  uint32_t box[5];
  CUdeviceptr copy;
  uint64_t last_use;
  /* The thread that made it (a reference), whose progress says whether
   * its kernels are done with the copy. */
  map_user *user;
  /* Handed out to a call that waits for its kernels, last when the user's
   * stream_synchronizations was handed_out. */
  bool waited_use;
  uint64_t handed_out;
  /* Handed out to an async call, last with the user's map tag
   * async_tag. */
  bool async_use;
  uint64_t async_tag;
  /* Used by more than one thread: never overwritten. */
  bool shared;
  tensor_map_state state;
} tensor_map_entry;
enum { TESSEL_TENSOR_MAP_CACHE = 256 };
static tensor_map_entry tensor_map_cache[TESSEL_TENSOR_MAP_CACHE];
static int tensor_map_cache_size = 0;
static uint64_t tensor_map_clock = 0;

/* Whether kernels of the entry's only user may still read its copy, as far
 * as that thread has published. Another thread's async maps count as in
 * use until that thread has seen their events pass, which it looks at only
 * when one of its maps misses the table, when its ring of events is full,
 * or when it exits. */
static bool tensor_map_in_use(const tensor_map_entry *e) {
  return (e->waited_use && e->handed_out >= e->user->synchronizations) ||
         (e->async_use && e->async_tag >= e->user->tags_done);
}

/* Marks `e` as handed out to the calling thread's current call. */
static void hand_out_tensor_map(tensor_map_entry *e) {
  if (async_stream_in_use()) {
    e->async_use = true;
    e->async_tag = next_map_tag;
    maps_await_epoch = true;
  } else {
    e->waited_use = true;
    e->handed_out = stream_synchronizations;
  }
}

/* The slot a new map of `device` goes into, marked as being written, or
 * -1 (the map then gets a copy no slot keeps). Called with
 * tensor_map_mutex held. */
static int claim_tensor_map_slot(int32_t device) {
  int victim = -1;
  if (tensor_map_cache_size < TESSEL_TENSOR_MAP_CACHE) {
    victim = tensor_map_cache_size++;
    memset(&tensor_map_cache[victim], 0, sizeof *tensor_map_cache);
  }
  for (int i = 0; victim < 0 && i < tensor_map_cache_size; ++i)
    if (tensor_map_cache[i].state == TENSOR_MAP_FREE &&
        tensor_map_cache[i].device == device)
      victim = i;
  int oldest = -1;
  for (int i = 0; victim < 0 && i < tensor_map_cache_size; ++i) {
    const tensor_map_entry *e = &tensor_map_cache[i];
    if (e->state == TENSOR_MAP_READY && !e->shared && e->device == device &&
        !tensor_map_in_use(e) &&
        (oldest < 0 || e->last_use < tensor_map_cache[oldest].last_use))
      oldest = i;
  }
  if (victim < 0)
    victim = oldest;
  if (victim >= 0) {
    tensor_map_entry *e = &tensor_map_cache[victim];
    release_map_user(e->user);
    e->user = NULL;
    e->state = TENSOR_MAP_WRITING;
    e->device = device;
  }
  return victim;
}

/* Ends the write of `slot` (if any) with `entry`, or frees it. */
static void settle_tensor_map_slot(int slot, const tensor_map_entry *entry,
                                   bool written) {
  if (slot < 0)
    return;
  pthread_mutex_lock(&tensor_map_mutex);
  if (written) {
    tensor_map_cache[slot] = *entry;
    ++entry->user->references;
    tensor_map_cache[slot].last_use = ++tensor_map_clock;
    tensor_map_cache[slot].state = TENSOR_MAP_READY;
  } else {
    tensor_map_cache[slot].state = TENSOR_MAP_FREE;
    tensor_map_cache[slot].copy = entry->copy;
  }
  pthread_mutex_unlock(&tensor_map_mutex);
}

static bool same_tensor_map(const tensor_map_entry *a,
                            const tensor_map_entry *b) {
  return a->device == b->device && a->data_type == b->data_type &&
         a->interleave == b->interleave && a->swizzle == b->swizzle &&
         a->l2_promotion == b->l2_promotion && a->oob_fill == b->oob_fill &&
         a->rank == b->rank && a->global_address == b->global_address &&
         memcmp(a->dims, b->dims, sizeof a->dims) == 0 &&
         memcmp(a->strides, b->strides, sizeof a->strides) == 0 &&
         memcmp(a->box, b->box, sizeof a->box) == 0;
}

/* The copy of a map like `key`, handed out to the calling thread, or 0.
 * Called with tensor_map_mutex held. */
static CUdeviceptr find_tensor_map(const tensor_map_entry *key) {
  for (int i = 0; i < tensor_map_cache_size; ++i) {
    tensor_map_entry *e = &tensor_map_cache[i];
    if (e->state == TENSOR_MAP_READY && same_tensor_map(e, key)) {
      e->last_use = ++tensor_map_clock;
      e->shared |= e->user != this_map_user;
      hand_out_tensor_map(e);
      return e->copy;
    }
  }
  return 0;
}
#endif

#if TESSEL_HAVE_CUDA_12
/* Bytes per element of a CUtensorMapDataType (UINT8 .. TFLOAT32_FTZ); 0 for
 * the later enumerators, packed sub-byte formats with no per-element size,
 * and for values that are no enumerator. */
static uint64_t tensor_map_element_bytes(int64_t data_type) {
  static const uint8_t element_bytes[] = {1, 2, 4, 4, 8, 8, 2,
                                          4, 8, 2, 4, 4, 4};
  const int64_t known_types = sizeof element_bytes / sizeof element_bytes[0];
  return data_type >= 0 && data_type < known_types ? element_bytes[data_type]
                                                   : 0;
}
#endif

void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t data_type, int64_t interleave,
                                     int64_t swizzle, int64_t l2_promotion,
                                     int64_t oob_fill, int64_t *box_dims) {
#if TESSEL_HAVE_CUDA_12
  if (rank < 1 || rank > 5) {
    report_error("mgpuTensorMapEncodeTiledMemref: rank %lld "
                 "is outside TMA's 1..5",
                 (long long)rank);
    return NULL;
  }
  const uint64_t element_size = tensor_map_element_bytes(data_type);
  if (!element_size) {
    report_error("mgpuTensorMapEncodeTiledMemref: unsupported "
                 "tensor map data type %lld",
                 (long long)data_type);
    return NULL;
  }
  const tessel_memref_view *view = descriptor;
  const int64_t *sizes = view->sizes_and_strides;
  const int64_t *strides = view->sizes_and_strides + rank;
  if (strides[rank - 1] != 1) {
    report_error("mgpuTensorMapEncodeTiledMemref: innermost "
                 "stride must be 1 for TMA, got %lld",
                 (long long)strides[rank - 1]);
    return NULL;
  }
  /* TMA orders dimensions innermost first; memrefs outermost first. Strides
   * come from the descriptor, so strided (e.g. subview) memrefs work too. */
  uint64_t global_dims[5] = {1, 1, 1, 1, 1};
  uint64_t global_strides_bytes[5] = {0};
  uint32_t box[5] = {1, 1, 1, 1, 1};
  uint32_t element_strides[5] = {1, 1, 1, 1, 1};
  for (int64_t dim = 0; dim < rank; ++dim) {
    global_dims[dim] = (uint64_t)sizes[rank - 1 - dim];
    box[dim] = (uint32_t)box_dims[rank - 1 - dim];
  }
  for (int64_t dim = 0; dim + 1 < rank; ++dim)
    global_strides_bytes[dim] = (uint64_t)strides[rank - 2 - dim] * element_size;
  char *global_address =
      (char *)view->aligned + view->offset * (int64_t)element_size;

  tensor_map_entry key = {.device = default_device,
                          .data_type = (int32_t)data_type,
                          .interleave = (int32_t)interleave,
                          .swizzle = (int32_t)swizzle,
                          .l2_promotion = (int32_t)l2_promotion,
                          .oob_fill = (int32_t)oob_fill,
                          .rank = (uint32_t)rank,
                          .global_address = global_address};
  memcpy(key.dims, global_dims, sizeof key.dims);
  memcpy(key.strides, global_strides_bytes, sizeof key.strides);
  memcpy(key.box, box, sizeof key.box);
  map_user *const self = current_map_user();
  if (!self)
    return NULL;
  pthread_mutex_lock(&tensor_map_mutex);
  CUdeviceptr cached = find_tensor_map(&key);
  if (!cached && epochs_done < epochs_recorded) {
    /* A miss: copies of the thread's finished async calls may be taken.
     * Their events are queried outside the lock. */
    pthread_mutex_unlock(&tensor_map_mutex);
    advance_async_epochs(false);
    pthread_mutex_lock(&tensor_map_mutex);
    cached = find_tensor_map(&key);
  }
  if (cached) {
    pthread_mutex_unlock(&tensor_map_mutex);
    return (void *)(uintptr_t)cached;
  }
  int slot = claim_tensor_map_slot(key.device);
  CUdeviceptr device_copy = slot >= 0 ? tensor_map_cache[slot].copy : 0;
  pthread_mutex_unlock(&tensor_map_mutex);

  key.copy = device_copy;
  if (!push_default_context()) {
    settle_tensor_map_slot(slot, &key, false);
    return NULL;
  }
  CUtensorMap tensor_map;
  bool ok =
      CUDA_CALL(cuTensorMapEncodeTiled, &tensor_map,
                (CUtensorMapDataType)data_type, (cuuint32_t)rank,
                global_address, global_dims, global_strides_bytes, box,
                element_strides, (CUtensorMapInterleave)interleave,
                (CUtensorMapSwizzle)swizzle,
                (CUtensorMapL2promotion)l2_promotion,
                (CUtensorMapFloatOOBfill)oob_fill) == CUDA_SUCCESS;
  /* Kernels read the map through a pointer argument, so it has to live in
   * device memory: a slot's copy when it has one (kept for the process's
   * life), else a new one. */
  if (ok && !device_copy)
    ok = CUDA_CALL(cuMemAlloc, &device_copy, sizeof tensor_map) ==
         CUDA_SUCCESS;
  /* From pageable memory the copy may still be in flight when
   * cuMemcpyHtoD returns, and kernels run on non-blocking streams, which
   * are not ordered after it: wait for it (once per map, thanks to the
   * cache). */
  if (ok && (CUDA_CALL(cuMemcpyHtoD, device_copy, &tensor_map,
                       sizeof tensor_map) != CUDA_SUCCESS ||
             CUDA_CALL(cuStreamSynchronize, NULL) != CUDA_SUCCESS))
    ok = false;
  /* A slot keeps its copy even when this map failed: the next map that
   * takes the slot overwrites it. A copy of no slot is freed. */
  if (!ok && slot < 0 && device_copy) {
    CUDA_CALL(cuMemFree, device_copy);
    device_copy = 0;
  }
  pop_context();
  key.copy = device_copy;
  key.user = self;
  key.shared = false;
  hand_out_tensor_map(&key);
  settle_tensor_map_slot(slot, &key, ok);
  return ok ? (void *)(uintptr_t)device_copy : NULL;
#else
  (void)rank, (void)descriptor, (void)data_type, (void)interleave;
  (void)swizzle, (void)l2_promotion, (void)oob_fill, (void)box_dims;
  report_error("TMA needs CUDA 12 headers; this library was "
               "built without them");
  return NULL;
#endif
}

/* ------------------------------------------------------------------------- */
/* Device copies of constants                                                */
/* ------------------------------------------------------------------------- */

#if TESSEL_HAVE_CUDA_12
/* A compiled module's constant that TMA reads, uploaded once per device.
 * Found by the number the runtime wrote into the module's slot, not by the
 * host address: a module unloaded and another loaded at the same address
 * has fresh (zero) slots, so it cannot get the first one's copies. Copies
 * live as long as the process: the module has no hook at which it could
 * free them, and they are what its kernels read. */
typedef struct constant_copy {
  uint64_t id;
  int32_t device;
  CUdeviceptr copy;
  /* What was uploaded, to catch a slot handed another constant. */
  const void *host;
  uint64_t bytes;
} constant_copy;
static pthread_mutex_t constant_copy_mutex = PTHREAD_MUTEX_INITIALIZER;
static constant_copy *constant_copies;
static size_t constant_copy_count, constant_copy_capacity;
static uint64_t constant_copy_ids;

/* The current device's copy of the constant numbered by `slot`, uploaded
 * now if there is none; 0 on failure (reported). */
static CUdeviceptr device_copy_of_constant(uint64_t *slot, const void *host,
                                           uint64_t bytes) {
  pthread_mutex_lock(&constant_copy_mutex);
  if (*slot == 0)
    *slot = ++constant_copy_ids;
  uint64_t id = *slot;
  for (size_t i = 0; i < constant_copy_count; ++i) {
    const constant_copy *known = &constant_copies[i];
    if (known->id != id)
      continue;
    /* One slot per constant: another address or size under it is a
     * compiler bug, and its copy would be the wrong bytes. */
    if (known->host != host || known->bytes != bytes) {
      pthread_mutex_unlock(&constant_copy_mutex);
      report_error("a constant's slot (%llu) is used for %p (%llu "
                   "bytes) and for %p (%llu bytes)",
                   (unsigned long long)id, known->host,
                   (unsigned long long)known->bytes, host,
                   (unsigned long long)bytes);
      return 0;
    }
    if (known->device == default_device) {
      CUdeviceptr copy = known->copy;
      pthread_mutex_unlock(&constant_copy_mutex);
      return copy;
    }
  }
  /* Uploaded with the lock held, so that two threads' first calls do not
   * make two copies. */
  CUdeviceptr copy = 0;
  constant_copy *grown = tessel_with_room_for_one(
      constant_copies, constant_copy_count, &constant_copy_capacity,
      sizeof *constant_copies);
  if (!grown) {
    pthread_mutex_unlock(&constant_copy_mutex);
    report_error("out of host memory");
    return 0;
  }
  constant_copies = grown;
  if (push_default_context()) {
    bool ok = allocate_device_memory(&copy, bytes);
    /* From pageable memory the copy may still be in flight when
     * cuMemcpyHtoD returns, and kernels run on non-blocking streams: wait
     * for it (once per constant and device). */
    ok = ok && CUDA_CALL(cuMemcpyHtoD, copy, host, bytes) == CUDA_SUCCESS &&
         CUDA_CALL(cuStreamSynchronize, NULL) == CUDA_SUCCESS;
    if (!ok && copy)
      CUDA_CALL(cuMemFree, copy);
    if (!ok)
      copy = 0;
    pop_context();
  }
  if (copy)
    constant_copies[constant_copy_count++] =
        (constant_copy){id, default_device, copy, host, bytes};
  pthread_mutex_unlock(&constant_copy_mutex);
  return copy;
}
#endif

void *tesselTensorMapEncodeTiledConstant(uint64_t *slot, const void *host,
                                         int64_t bytes, int64_t rank,
                                         void *descriptor, int64_t data_type,
                                         int64_t interleave, int64_t swizzle,
                                         int64_t l2_promotion, int64_t oob_fill,
                                         int64_t *box_dims) {
#if TESSEL_HAVE_CUDA_12
  const char *const self = "tesselTensorMapEncodeTiledConstant";
  uint64_t element_size = tensor_map_element_bytes(data_type);
  if (!slot || !host || bytes <= 0 || rank < 1 || rank > 5 || !element_size) {
    report_error("%s: invalid arguments (slot %p, constant %p of %lld "
                 "bytes, rank %lld, data type %lld)",
                 self, (void *)slot, host, (long long)bytes, (long long)rank,
                 (long long)data_type);
    return NULL;
  }
  /* The view has to lie within the constant: its bytes are all the copy
   * has. */
  char *first = NULL;
  uint64_t span = 0;
  const char *begin = host, *end = begin + bytes;
  const tessel_memref_view *view = descriptor;
  if (!tessel_memref_byte_span(rank, descriptor, (int64_t)element_size, &first,
                               &span) ||
      first < begin || first > end || span > (uint64_t)(end - first) ||
      (const char *)view->aligned < begin ||
      (const char *)view->aligned > end) {
    report_error("%s: the view is not inside the constant's %lld "
                 "bytes at %p",
                 self, (long long)bytes, host);
    return NULL;
  }
  CUdeviceptr copy = device_copy_of_constant(slot, host, (uint64_t)bytes);
  if (!copy)
    return NULL;
  /* The same view of the device copy. */
  struct {
    void *allocated, *aligned;
    int64_t offset;
    int64_t sizes_and_strides[10];
  } rebased;
  rebased.allocated = (void *)(uintptr_t)copy;
  rebased.aligned =
      (void *)(uintptr_t)(copy +
                          (uint64_t)((const char *)view->aligned - begin));
  rebased.offset = view->offset;
  memcpy(rebased.sizes_and_strides, view->sizes_and_strides,
         2 * (size_t)rank * sizeof(int64_t));
  return mgpuTensorMapEncodeTiledMemref(rank, &rebased, data_type, interleave,
                                        swizzle, l2_promotion, oob_fill,
                                        box_dims);
#else
  (void)slot, (void)host, (void)bytes, (void)rank, (void)descriptor;
  (void)data_type, (void)interleave, (void)swizzle, (void)l2_promotion;
  (void)oob_fill, (void)box_dims;
  report_error("TMA needs CUDA 12 headers; this library was "
               "built without them");
  return NULL;
#endif
}

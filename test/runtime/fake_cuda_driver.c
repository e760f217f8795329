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
#include <sys/mman.h>
#include <unistd.h>

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

/* Work on streams. While fake_cuda_hold_work is set, a launch stays
 * unfinished until its stream is synchronized, an event recorded after it
 * is synchronized, or fake_cuda_finish_work() is called; otherwise it
 * finishes at once. Each launch has a number; a stream remembers its
 * latest launch, the latest one known finished, and the launches of other
 * streams it waits for (cuStreamWaitEvent): when it finishes, those have.
 * Only the legacy stream and streams made by cuStreamCreate are followed;
 * launches on other handles (tests lend malloc'ed ones) finish at once. */
int fake_cuda_hold_work;
int fake_cuda_stream_syncs, fake_cuda_event_records, fake_cuda_event_syncs,
    fake_cuda_stream_waits;
/* Events made and not destroyed. */
int fake_cuda_live_events;
static uint64_t launch_count, finished_everywhere;

enum { FAKE_WAITS = 8 };
typedef struct fake_stream_state fake_stream_state;
struct fake_stream_state {
  const void *handle; /* NULL once destroyed (states are never reused) */
  uint64_t latest, finished;
  /* Its later launches come after launch waited_launch[i] of
   * waited_stream[i]. */
  const fake_stream_state *waited_stream[FAKE_WAITS];
  uint64_t waited_launch[FAKE_WAITS];
  int wait_count;
};
enum { FAKE_STREAMS = 1024 };
static fake_stream_state stream_states[FAKE_STREAMS];
static int stream_state_count = 1; /* [0]: the legacy stream */

static fake_stream_state *state_of(CUstream stream) {
  if (stream == NULL || stream == CU_STREAM_LEGACY ||
      stream == CU_STREAM_PER_THREAD)
    return &stream_states[0];
  for (int i = 1; i < stream_state_count; ++i)
    if (stream_states[i].handle == stream)
      return &stream_states[i];
  return NULL;
}

static uint64_t finished_on(const fake_stream_state *state) {
  return state->finished > finished_everywhere ? state->finished
                                               : finished_everywhere;
}

/* Launches on any stream that have not finished. */
int fake_cuda_unfinished_launches(void) {
  int unfinished = 0;
  for (int i = 0; i < stream_state_count; ++i)
    unfinished += stream_states[i].latest > finished_on(&stream_states[i]);
  return unfinished;
}

/* With fake_cuda_guard_managed set, managed memory is pages of its own
 * that the host cannot touch while any launch is unfinished: host code
 * that reads a kernel's result before waiting for it faults. */
int fake_cuda_guard_managed;
enum { FAKE_MANAGED = 64 };
static struct {
  void *base;
  size_t bytes;
} managed_blocks[FAKE_MANAGED];
static int managed_count;
static bool managed_guarded;

static void guard_managed(void) {
  bool busy = fake_cuda_unfinished_launches() > 0;
  if (busy == managed_guarded)
    return;
  for (int i = 0; i < managed_count; ++i)
    mprotect(managed_blocks[i].base, managed_blocks[i].bytes,
             busy ? PROT_NONE : PROT_READ | PROT_WRITE);
  managed_guarded = busy;
}

void fake_cuda_finish_work(void) {
  finished_everywhere = launch_count;
  guard_managed();
}

/* `state` has finished its launches up to `launch`, and with them what
 * they waited for. */
static void finish_through(fake_stream_state *state, uint64_t launch) {
  if (state->finished < launch)
    state->finished = launch;
  for (int i = 0; i < state->wait_count; ++i) {
    fake_stream_state *waited = (fake_stream_state *)state->waited_stream[i];
    if (waited != state && finished_on(waited) < state->waited_launch[i])
      finish_through(waited, state->waited_launch[i]);
  }
}

/* Whether launches on `later` now come after launch `launch` of
 * `earlier`. */
static bool ordered_after(const fake_stream_state *later,
                          const fake_stream_state *earlier, uint64_t launch) {
  if (later == earlier)
    return true;
  for (int i = 0; later && i < later->wait_count; ++i)
    if (later->waited_stream[i] == earlier && later->waited_launch[i] >= launch)
      return true;
  return false;
}

/* With fake_cuda_track_pointer_params set, a launch's params are a
 * NULL-terminated list of pointers to device addresses the kernel uses:
 * each address remembers its latest launch, so that a free of it, a copy
 * into it, or a launch using it on a stream not ordered after that launch,
 * before it has finished, is counted as a hazard. */
int fake_cuda_track_pointer_params;
int fake_cuda_hazards;
typedef struct fake_use {
  CUdeviceptr address;
  const fake_stream_state *stream;
  uint64_t launch;
} fake_use;
enum { FAKE_USES = 1024 };
static fake_use uses[FAKE_USES];
static int use_count;

static bool use_unfinished(const fake_use *use) {
  return use->launch >
         (use->stream ? finished_on(use->stream) : finished_everywhere);
}

static void record_use(CUdeviceptr address, const fake_stream_state *stream) {
  for (int i = 0; i < use_count; ++i)
    if (uses[i].address == address) {
      fake_cuda_hazards +=
          use_unfinished(&uses[i]) &&
          !ordered_after(stream, uses[i].stream, uses[i].launch);
      uses[i] = (fake_use){address, stream, launch_count};
      return;
    }
  if (use_count < FAKE_USES)
    uses[use_count++] = (fake_use){address, stream, launch_count};
}

/* Whether [address, address + bytes) may still be used by a launch. */
static bool in_use(CUdeviceptr address, size_t bytes) {
  for (int i = 0; i < use_count; ++i)
    if (uses[i].address >= address && uses[i].address < address + bytes &&
        use_unfinished(&uses[i]))
      return true;
  return false;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                        unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int shared, CUstream stream,
                        void **params, void **extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz;
  (void)params, (void)extra;
  if (!in_current_context(f))
    return CUDA_ERROR_INVALID_HANDLE;
  if ((int)shared > ((fake_handle *)f)->shared_limit)
    return CUDA_ERROR_INVALID_VALUE;
  ++fake_cuda_launches[current_device()];
  fake_stream_state *state = state_of(stream);
  ++launch_count;
  for (int i = 0; fake_cuda_track_pointer_params && params && params[i]; ++i)
    record_use(*(CUdeviceptr *)params[i], state);
  if (state)
    state->latest = launch_count;
  if (!fake_cuda_hold_work)
    fake_cuda_finish_work();
  guard_managed();
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  ++fake_cuda_stream_syncs;
  fake_stream_state *state = state_of(stream);
  if (state)
    finish_through(state, state->latest);
  guard_managed();
  return CUDA_SUCCESS;
}

/* An event is the latest launch of the stream it was recorded on. Events
 * and the streams they are recorded on or waited for belong to a context,
 * as on a GPU: used in another, the call fails and is counted. */
typedef struct fake_event {
  CUcontext context;
  fake_stream_state *stream;
  uint64_t launch;
} fake_event;

/* Whether `stream` may be used in the current context (the legacy
 * stream: any). */
static bool stream_in_current_context(CUstream stream) {
  fake_stream_state *state = state_of(stream);
  return !state || state == &stream_states[0] || in_current_context(stream);
}

static bool event_in_current_context(const fake_event *e) {
  bool same = e && e->context == current_context();
  fake_cuda_wrong_context_uses += !same;
  return same;
}

CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  (void)flags;
  if (!current_context())
    return CUDA_ERROR_INVALID_CONTEXT;
  fake_event *made = calloc(1, sizeof *made);
  if (!made)
    return CUDA_ERROR_OUT_OF_MEMORY;
  made->context = current_context();
  *event = (CUevent)made;
  ++fake_cuda_live_events;
  return CUDA_SUCCESS;
}

/* As the driver, a recorded event that has not passed may be destroyed:
 * the driver releases it once it passes. */
CUresult cuEventDestroy(CUevent event) {
  if (event)
    --fake_cuda_live_events;
  free(event);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  fake_event *e = (fake_event *)event;
  if (!event_in_current_context(e) || !stream_in_current_context(stream))
    return CUDA_ERROR_INVALID_HANDLE;
  ++fake_cuda_event_records;
  e->stream = state_of(stream);
  e->launch = e->stream ? e->stream->latest : 0;
  return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent event) {
  const fake_event *e = (const fake_event *)event;
  return !e->stream || finished_on(e->stream) >= e->launch
             ? CUDA_SUCCESS
             : CUDA_ERROR_NOT_READY;
}

CUresult cuEventSynchronize(CUevent event) {
  ++fake_cuda_event_syncs;
  const fake_event *e = (const fake_event *)event;
  if (e->stream)
    finish_through(e->stream, e->launch);
  guard_managed();
  return CUDA_SUCCESS;
}

/* The stream's later launches come after the event's launch. */
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  (void)flags;
  const fake_event *e = (const fake_event *)event;
  if (!stream_in_current_context(stream))
    return CUDA_ERROR_INVALID_HANDLE;
  ++fake_cuda_stream_waits;
  fake_stream_state *state = state_of(stream);
  if (!state || !e->stream || state == e->stream)
    return CUDA_SUCCESS;
  for (int i = 0; i < state->wait_count; ++i)
    if (state->waited_stream[i] == e->stream) {
      if (state->waited_launch[i] < e->launch)
        state->waited_launch[i] = e->launch;
      return CUDA_SUCCESS;
    }
  if (state->wait_count == FAKE_WAITS)
    return CUDA_ERROR_OUT_OF_MEMORY; /* more than the tests need */
  state->waited_stream[state->wait_count] = e->stream;
  state->waited_launch[state->wait_count++] = e->launch;
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
  void *block = NULL;
  if (fake_cuda_guard_managed && managed_count < FAKE_MANAGED) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = (bytes + page - 1) / page * page;
    block =
        mmap(NULL, mapped, managed_guarded ? PROT_NONE : PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED)
      return CUDA_ERROR_OUT_OF_MEMORY;
    managed_blocks[managed_count].base = block;
    managed_blocks[managed_count++].bytes = mapped;
  } else {
    block = malloc(bytes);
  }
  if (!block)
    return CUDA_ERROR_OUT_OF_MEMORY;
  ++fake_cuda_managed_allocs;
  *ptr = (CUdeviceptr)(uintptr_t)block;
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr ptr) {
  ++fake_cuda_frees;
  fake_cuda_hazards += in_use(ptr, 1);
  for (int i = 0; i < managed_count; ++i)
    if (managed_blocks[i].base == (void *)(uintptr_t)ptr) {
      munmap(managed_blocks[i].base, managed_blocks[i].bytes);
      managed_blocks[i] = managed_blocks[--managed_count];
      return CUDA_SUCCESS;
    }
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
  fake_cuda_hazards += in_use(dst, bytes);
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
  if (stream_state_count == FAKE_STREAMS)
    return CUDA_ERROR_OUT_OF_MEMORY;
  CUresult made = make_handle((void **)stream);
  if (made == CUDA_SUCCESS)
    stream_states[stream_state_count++] = (fake_stream_state){
        .handle = *stream, .latest = launch_count, .finished = launch_count};
  fake_cuda_stream_creates += made == CUDA_SUCCESS;
  return made;
}

/* Only in the context the stream was made in. */
CUresult cuStreamDestroy(CUstream stream) {
  if (!in_current_context(stream))
    return CUDA_ERROR_INVALID_HANDLE;
  /* Its state stays (uses may point at it), under no handle: a stream
   * made later at the same address is another stream. */
  fake_stream_state *state = state_of(stream);
  if (state)
    state->handle = NULL;
  free(stream);
  ++fake_cuda_stream_destroys;
  return CUDA_SUCCESS;
}

/* Entry points the tests do not exercise. */
#define FAKE_SUCCESS(name, ...)                                                \
  CUresult name(__VA_ARGS__) { return CUDA_SUCCESS; }
#pragma GCC diagnostic ignored "-Wunused-parameter"
FAKE_SUCCESS(cuMemsetD16Async, CUdeviceptr dst, unsigned short value,
             size_t count, CUstream stream)
FAKE_SUCCESS(cuMemsetD32Async, CUdeviceptr dst, unsigned int value,
             size_t count, CUstream stream)
FAKE_SUCCESS(cuMemHostRegister, void *ptr, size_t bytes, unsigned int flags)
FAKE_SUCCESS(cuMemHostUnregister, void *ptr)

/* A stand-in for libamdhip64 (under the real library's soname) with two
 * "devices" whose memory is host memory, so that what libtessel_hip_runtime.so
 * asks of HIP (which device is current for each call, modules per device, kept
 * and lent streams, reported errors) is tested on machines without an AMD GPU.
 * Built with the hip_4.2 symbol version that the runtime's references carry.
 * The kernels do not run. The counters tell the test program what reached HIP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <hip/hip_runtime_api.h>

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fake_hip_module_loads[2], fake_hip_module_unloads[2], fake_hip_launches[2];
/* Calls that used a module, function or stream of a device that was not
 * current. */
int fake_hip_wrong_device_uses;
int fake_hip_stream_creates, fake_hip_stream_destroys;
/* Host-to-device copies. */
int fake_hip_uploads;
/* While positive, hipModuleLaunchKernel fails with hipErrorLaunchFailure
 * (and counts it down). */
int fake_hip_failing_launches;
hipStream_t fake_hip_last_launch_stream;
/* Set: HIP has been torn down (as by its static destructors at exit); the
 * calls a module unload makes fail with hipErrorDeinitialized. */
int fake_hip_gone;

struct ihipModule_t {
  int device;
  const char *image;
  size_t image_bytes;
};
struct ihipModuleSymbol_t {
  int device;
};
struct ihipStream_t {
  int device;
};
struct ihipEvent_t {
  int device;
};

static _Thread_local int current_device;

static bool used_on(int device) {
  if (device == current_device)
    return true;
  ++fake_hip_wrong_device_uses;
  return false;
}

const char *hipGetErrorName(hipError_t error) {
  switch (error) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case hipErrorInvalidDevice:
    return "hipErrorInvalidDevice";
  case hipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  case hipErrorLaunchFailure:
    return "hipErrorLaunchFailure";
  case hipErrorDeinitialized:
    return "hipErrorDeinitialized";
  default:
    return "hipErrorFake";
  }
}

hipError_t hipGetDeviceCount(int *count) {
  *count = 2;
  return hipSuccess;
}

hipError_t hipGetDevice(int *device) {
  if (fake_hip_gone)
    return hipErrorDeinitialized;
  *device = current_device;
  return hipSuccess;
}

hipError_t hipSetDevice(int device) {
  if (fake_hip_gone)
    return hipErrorDeinitialized;
  if (device != 0 && device != 1)
    return hipErrorInvalidDevice;
  current_device = device;
  return hipSuccess;
}

/* A code object is an ELF file; its size is where its section headers
 * end (they come last in what the LLVM AMDGPU backend writes). */
static size_t elf_image_bytes(const void *image) {
  const Elf64_Ehdr *header = image;
  if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
      header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_machine != EM_AMDGPU)
    return 0;
  return header->e_shoff + (size_t)header->e_shnum * header->e_shentsize;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  size_t image_bytes = image ? elf_image_bytes(image) : 0;
  if (!image_bytes)
    return hipErrorInvalidImage;
  *module = malloc(sizeof **module);
  **module = (struct ihipModule_t){current_device, image, image_bytes};
  ++fake_hip_module_loads[current_device];
  return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t module) {
  if (fake_hip_gone)
    return hipErrorDeinitialized;
  if (used_on(module->device))
    ++fake_hip_module_unloads[module->device];
  free(module);
  return hipSuccess;
}

/* Found when the code object holds the name (its symbol table does). The
 * runtime keeps its own copy of the image, so this also checks that the
 * copy is still there. */
hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                const char *name) {
  used_on(module->device);
  if (!memmem(module->image, module->image_bytes, name, strlen(name) + 1))
    return hipErrorNotFound;
  *function = malloc(sizeof **function);
  (*function)->device = module->device;
  return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t function, unsigned grid_x,
                                 unsigned grid_y, unsigned grid_z,
                                 unsigned block_x, unsigned block_y,
                                 unsigned block_z, unsigned shared_bytes,
                                 hipStream_t stream, void **params,
                                 void **extra) {
  (void)grid_x, (void)grid_y, (void)grid_z, (void)block_x, (void)block_y,
      (void)block_z, (void)shared_bytes, (void)params, (void)extra;
  bool right_device = used_on(function->device);
  if (stream)
    right_device &= used_on(stream->device);
  if (!right_device)
    return hipErrorInvalidDevice;
  if (fake_hip_failing_launches > 0) {
    --fake_hip_failing_launches;
    return hipErrorLaunchFailure;
  }
  ++fake_hip_launches[current_device];
  fake_hip_last_launch_stream = stream;
  return hipSuccess;
}

hipError_t hipStreamCreate(hipStream_t *stream) {
  *stream = malloc(sizeof **stream);
  (*stream)->device = current_device;
  ++fake_hip_stream_creates;
  return hipSuccess;
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  used_on(stream->device);
  ++fake_hip_stream_destroys;
  free(stream);
  return hipSuccess;
}

int fake_hip_stream_syncs, fake_hip_frees;

hipError_t hipStreamSynchronize(hipStream_t stream) {
  ++fake_hip_stream_syncs;
  if (stream)
    used_on(stream->device);
  return hipSuccess;
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
                              unsigned flags) {
  (void)flags;
  if (stream)
    used_on(stream->device);
  used_on(event->device);
  return hipSuccess;
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags) {
  (void)flags;
  *event = malloc(sizeof **event);
  (*event)->device = current_device;
  return hipSuccess;
}

hipError_t hipEventDestroy(hipEvent_t event) {
  free(event);
  return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  (void)event;
  return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  used_on(event->device);
  if (stream)
    used_on(stream->device);
  return hipSuccess;
}

hipError_t hipMalloc(void **ptr, size_t size) {
  *ptr = malloc(size);
  return *ptr ? hipSuccess : hipErrorOutOfMemory;
}

hipError_t hipMallocManaged(void **ptr, size_t size, unsigned flags) {
  (void)flags;
  return hipMalloc(ptr, size);
}

hipError_t hipFree(void *ptr) {
  ++fake_hip_frees;
  free(ptr);
  return hipSuccess;
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes,
                          hipMemcpyKind kind, hipStream_t stream) {
  (void)kind;
  if (stream)
    used_on(stream->device);
  memmove(dst, src, bytes);
  ++fake_hip_uploads;
  return hipSuccess;
}

hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short value,
                             size_t count, hipStream_t stream) {
  if (stream)
    used_on(stream->device);
  for (size_t i = 0; i < count; ++i)
    ((uint16_t *)dst)[i] = value;
  return hipSuccess;
}

hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count,
                             hipStream_t stream) {
  if (stream)
    used_on(stream->device);
  for (size_t i = 0; i < count; ++i)
    ((int32_t *)dst)[i] = value;
  return hipSuccess;
}

hipError_t hipHostRegister(void *ptr, size_t bytes, unsigned flags) {
  (void)ptr, (void)bytes, (void)flags;
  return hipSuccess;
}

hipError_t hipHostUnregister(void *ptr) {
  (void)ptr;
  return hipSuccess;
}

hipError_t hipHostGetDevicePointer(void **device_ptr, void *host_ptr,
                                   unsigned flags) {
  (void)flags;
  *device_ptr = host_ptr;
  return hipSuccess;
}

/* Compiled modules unload their kernels from destructors, which run before
 * this library's (it is their runtime's dependency): what reached HIP by
 * then is printed last. */
__attribute__((destructor)) static void report_at_exit(void) {
  printf("at exit: module unloads [%d, %d], handles used on another device "
         "%d\n",
         fake_hip_module_unloads[0], fake_hip_module_unloads[1],
         fake_hip_wrong_device_uses);
}

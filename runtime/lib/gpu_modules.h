/* Modules and kernels on every device, for the CUDA and HIP runtimes
 * (private header).
 *
 * A CUDA or HIP module belongs to one device (the context, or the device,
 * current when it was loaded), and its functions launch only there.
 * Generated code loads its kernels once, from a global constructor (on the
 * default device of the loading thread, device 0 unless that thread
 * changed it), and launches them on each calling thread's default device.
 * So the handles given to generated code are the runtime's own: a module is
 * its image (copied) and a driver module per device, loaded on the default
 * device at once (so a bad image is reported there) and on another device
 * when a kernel of it is first looked up or launched there; a kernel is a
 * name of such a module and a driver function per device, looked up the
 * same way. The runtime makes its device current around these calls and
 * does the driver's part through tessel_gpu_driver. */
#ifndef TESSEL_RUNTIME_GPU_MODULES_H
#define TESSEL_RUNTIME_GPU_MODULES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TESSEL_MAX_GPU_DEVICES = 64 };

struct tessel_gpu_module;

/* The driver's part. Both run with the device current; each returns NULL
 * after reporting its failure. */
typedef struct tessel_gpu_driver {
  void *(*load_module)(const struct tessel_gpu_module *module);
  void *(*get_function)(void *driver_module, const char *name);
  /* The runtime's printf-like error report, for failures of its own (out
   * of host memory, ...). */
  void (*report)(const char *format, ...) __attribute__((format(printf, 1, 2)));
} tessel_gpu_driver;

typedef struct tessel_gpu_kernel {
  struct tessel_gpu_kernel *next;
  struct tessel_gpu_module *module;
  char *name;
  void *per_device[TESSEL_MAX_GPU_DEVICES]; /* __atomic accesses */
  /* CUDA: the dynamic shared memory each device's function was allowed,
   * so that a launch asking for no more skips the driver (__atomic). */
  int32_t shared_bytes_allowed[TESSEL_MAX_GPU_DEVICES];
} tessel_gpu_kernel;

typedef struct tessel_gpu_module {
  const tessel_gpu_driver *driver;
  void *image; /* the runtime's copy (NULL: `borrowed_image`) */
  const void *borrowed_image;
  bool jit; /* CUDA: PTX, compiled by the driver at opt_level */
  int opt_level;
  /* Guards per_device and the kernels' per-device fields: held while a
   * device's copy is loaded (a PTX JIT may take long), so apart from the
   * list of kernels, which every call searches. */
  pthread_mutex_t load_mutex;
  pthread_mutex_t kernels_mutex; /* guards `kernels` */
  void *per_device[TESSEL_MAX_GPU_DEVICES];
  tessel_gpu_kernel *kernels;
} tessel_gpu_module;

/* The module of `image_bytes` bytes at `data` (copied; 0: used in place,
 * so it must outlive the module), loaded on `device`, which the caller
 * made current; NULL after a reported failure. */
tessel_gpu_module *tessel_gpu_module_load(const tessel_gpu_driver *driver,
                                          const void *data, size_t image_bytes,
                                          bool jit, int opt_level,
                                          int32_t device);

/* Frees the runtime's part of `module`; its driver modules are the
 * caller's to unload first. */
void tessel_gpu_module_free(tessel_gpu_module *module);

/* The kernel `name` of `module` if it was looked up before, else NULL:
 * generated code asks on every call, and needs no device for this. */
tessel_gpu_kernel *tessel_gpu_module_find_kernel(tessel_gpu_module *module,
                                                 const char *name);

/* The kernel `name` of `module`, the same handle as any earlier lookup's;
 * looked up on `device` (current) now, so that a wrong name is reported
 * here. NULL after a reported failure. */
tessel_gpu_kernel *tessel_gpu_module_add_kernel(tessel_gpu_module *module,
                                                const char *name,
                                                int32_t device);

/* `kernel`'s driver function on `device` (current), its module loaded
 * there first if needed; NULL after a reported failure. */
void *tessel_gpu_kernel_on_device(tessel_gpu_kernel *kernel, int32_t device);

#endif /* TESSEL_RUNTIME_GPU_MODULES_H */

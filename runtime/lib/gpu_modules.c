/* Modules and kernels on every device; see gpu_modules.h. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strdup */
#endif

#include "gpu_modules.h"

#include <stdlib.h>
#include <string.h>

/* `module`'s driver module on `device` (current), loaded now if needed.
 * Called with module->load_mutex held. */
static void *module_on_device(tessel_gpu_module *module, int32_t device) {
  void **slot = &module->per_device[device];
  if (!*slot)
    *slot = module->driver->load_module(module);
  return *slot;
}

void tessel_gpu_module_free(tessel_gpu_module *module) {
  for (tessel_gpu_kernel *k = module->kernels, *next; k; k = next) {
    next = k->next;
    free(k->name);
    free(k);
  }
  pthread_mutex_destroy(&module->load_mutex);
  pthread_mutex_destroy(&module->kernels_mutex);
  free(module->image);
  free(module);
}

tessel_gpu_module *tessel_gpu_module_load(const tessel_gpu_driver *driver,
                                          const void *data, size_t image_bytes,
                                          bool jit, int opt_level,
                                          int32_t device) {
  tessel_gpu_module *module = calloc(1, sizeof *module);
  if (!module || pthread_mutex_init(&module->load_mutex, NULL) != 0) {
    free(module);
    driver->report("out of host memory");
    return NULL;
  }
  if (pthread_mutex_init(&module->kernels_mutex, NULL) != 0) {
    pthread_mutex_destroy(&module->load_mutex);
    free(module);
    driver->report("out of host memory");
    return NULL;
  }
  module->driver = driver;
  module->jit = jit;
  module->opt_level = opt_level;
  /* Copied, so that a caller may free its image after loading: the other
   * devices' copies are loaded later. */
  if (image_bytes) {
    module->image = malloc(image_bytes);
    if (!module->image) {
      tessel_gpu_module_free(module);
      driver->report("out of host memory");
      return NULL;
    }
    memcpy(module->image, data, image_bytes);
  } else {
    module->borrowed_image = data;
  }
  /* No other thread knows the module yet: no lock. */
  if (!module_on_device(module, device)) {
    tessel_gpu_module_free(module);
    return NULL;
  }
  return module;
}

void *tessel_gpu_kernel_on_device(tessel_gpu_kernel *kernel, int32_t device) {
  void **slot = &kernel->per_device[device];
  void *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (function)
    return function;
  tessel_gpu_module *module = kernel->module;
  pthread_mutex_lock(&module->load_mutex);
  function = *slot;
  void *loaded = function ? NULL : module_on_device(module, device);
  if (loaded) {
    function = module->driver->get_function(loaded, kernel->name);
    if (function)
      __atomic_store_n(slot, function, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&module->load_mutex);
  return function;
}

/* Called with module->kernels_mutex held. */
static tessel_gpu_kernel *known_kernel(tessel_gpu_module *module,
                                       const char *name) {
  tessel_gpu_kernel *kernel = module->kernels;
  while (kernel && strcmp(kernel->name, name) != 0)
    kernel = kernel->next;
  return kernel;
}

tessel_gpu_kernel *tessel_gpu_module_find_kernel(tessel_gpu_module *module,
                                                 const char *name) {
  pthread_mutex_lock(&module->kernels_mutex);
  tessel_gpu_kernel *kernel = known_kernel(module, name);
  pthread_mutex_unlock(&module->kernels_mutex);
  return kernel;
}

tessel_gpu_kernel *tessel_gpu_module_add_kernel(tessel_gpu_module *module,
                                                const char *name,
                                                int32_t device) {
  tessel_gpu_kernel *kernel = calloc(1, sizeof *kernel);
  char *copied_name = kernel ? strdup(name) : NULL;
  if (!copied_name) {
    free(kernel);
    module->driver->report("out of host memory");
    return NULL;
  }
  kernel->module = module;
  kernel->name = copied_name;
  tessel_gpu_kernel *known = NULL;
  if (tessel_gpu_kernel_on_device(kernel, device)) {
    pthread_mutex_lock(&module->kernels_mutex);
    /* Another thread may have added it meanwhile: keep one. */
    known = known_kernel(module, name);
    if (!known) {
      kernel->next = module->kernels;
      module->kernels = kernel;
    }
    pthread_mutex_unlock(&module->kernels_mutex);
    if (!known)
      return kernel;
  }
  free(copied_name);
  free(kernel);
  return known;
}

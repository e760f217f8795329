/* Pieces shared by the CUDA and HIP mgpu* implementations. Private header. */
#ifndef TESSEL_RUNTIME_GPU_COMMON_H
#define TESSEL_RUNTIME_GPU_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "tessel/runtime.h"

#define TESSEL_STRINGIFY_RAW(x) #x
/* Expands macros first: cuda.h renames e.g. cuMemAlloc to cuMemAlloc_v2. */
#define TESSEL_STRINGIFY(x) TESSEL_STRINGIFY_RAW(x)

/* Byte range that a ranked memref descriptor's sizes and strides can touch.
 * Computed from the real strides rather than assuming a dense layout, so a
 * strided view is registered whole instead of tripping an assert. Returns
 * false for an empty memref (nothing to register). */
static inline bool tessel_memref_byte_span(int64_t rank, const void *descriptor,
                                           int64_t element_size_bytes,
                                           char **first_byte,
                                           uint64_t *byte_count) {
  const tessel_memref_view *view = descriptor;
  const int64_t *sizes = view->sizes_and_strides;
  const int64_t *strides = view->sizes_and_strides + rank;
  int64_t lowest = view->offset, highest = view->offset;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (sizes[dim] <= 0)
      return false;
    int64_t reach = (sizes[dim] - 1) * strides[dim];
    if (reach < 0)
      lowest += reach;
    else
      highest += reach;
  }
  *first_byte = (char *)view->aligned + lowest * element_size_bytes;
  *byte_count = (uint64_t)(highest - lowest + 1) * (uint64_t)element_size_bytes;
  return true;
}

/* Launch dimensions arrive as MLIR index values; both driver APIs take
 * unsigned int, and silently truncating would launch the wrong grid. */
static inline bool tessel_launch_dims_fit(const intptr_t *dims, int count) {
  for (int i = 0; i < count; ++i)
    if (dims[i] <= 0 || (uint64_t)dims[i] > UINT32_MAX)
      return false;
  return true;
}

#endif /* TESSEL_RUNTIME_GPU_COMMON_H */

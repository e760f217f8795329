/* Pieces shared by the CUDA and HIP mgpu* implementations. Private header. */
#ifndef TESSEL_RUNTIME_GPU_COMMON_H
#define TESSEL_RUNTIME_GPU_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h> /* realloc */

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

/* The growable array `items` (`count` items of `item_size` bytes) with
 * room for one more at its end: as it was, or moved to twice its capacity
 * (16 at first); NULL, the array untouched, when out of memory. */
static inline void *tessel_with_room_for_one(void *items, size_t count,
                                             size_t *capacity,
                                             size_t item_size) {
  if (count < *capacity)
    return items;
  size_t grown_capacity = *capacity ? 2 * *capacity : 16;
  void *grown = realloc(items, grown_capacity * item_size);
  if (grown)
    *capacity = grown_capacity;
  return grown;
}

/* Device memory the host reads after a kernel, per thread: managed memory
 * the thread allocated and has not freed (gpu.alloc host_shared: generated
 * code loads a result such as a full reduction's from it right after the
 * kernel's wait) and host memory it registered. While it has any, a
 * runtime does not skip waits on an async lent stream. A managed block
 * freed by another thread stays on the list, which keeps the waits real:
 * safe. */
typedef struct tessel_host_visible {
  void **blocks;
  size_t count, capacity;
  uint64_t registrations;
  /* A block the list had no room for: every wait stays real. */
  bool untracked;
} tessel_host_visible;

static inline bool
tessel_host_reads_device_memory(const tessel_host_visible *visible) {
  return visible->count || visible->registrations || visible->untracked;
}

static inline void tessel_track_host_visible_block(tessel_host_visible *visible,
                                                   void *ptr) {
  void **grown =
      tessel_with_room_for_one(visible->blocks, visible->count,
                               &visible->capacity, sizeof *visible->blocks);
  if (!grown) {
    visible->untracked = true;
    return;
  }
  visible->blocks = grown;
  visible->blocks[visible->count++] = ptr;
}

static inline void
tessel_forget_host_visible_block(tessel_host_visible *visible, void *ptr) {
  for (size_t i = 0; i < visible->count; ++i)
    if (visible->blocks[i] == ptr) {
      visible->blocks[i] = visible->blocks[--visible->count];
      return;
    }
}

/* Errors a runtime reported on one thread: it writes them to stderr and
 * counts them, keeping the last one's text (generated code cannot see a
 * failure, its caller can); within a call on a lent stream, an error also
 * stops the call's later launches, which would read what failed to be made
 * (a temporary that was not allocated) and could fault, taking the
 * caller's context with them. */
typedef struct tessel_thread_errors {
  uint64_t count;
  char last[512];
  bool lent_call_failed;
} tessel_thread_errors;

__attribute__((format(printf, 4, 0))) static inline void
tessel_record_error(tessel_thread_errors *errors, const char *reporter,
                    bool stream_lent, const char *format, va_list arguments) {
  vsnprintf(errors->last, sizeof errors->last, format, arguments);
  fprintf(stderr, "%s: %s\n", reporter, errors->last);
  ++errors->count;
  errors->lent_call_failed = stream_lent;
}

#endif /* TESSEL_RUNTIME_GPU_COMMON_H */

/*===- gpu_emulation.c - cp.async for GPU kernels run on the CPU ----------===*
 *
 * tessel-emulate-gpu-on-cpu runs every GPU thread of a block as one OpenMP
 * thread. Each thread's asynchronous copies wait in a thread-local queue
 * until a wait lets their group be pending no longer: the latest moment a
 * GPU may complete them, so that a kernel that reads shared memory before
 * waiting for it reads stale data here as well. With
 * TESSEL_EMU_ASYNC_COPIES=eager they are performed when issued instead, the
 * earliest a GPU may: a copy that overwrites shared memory other threads
 * still read (a missing barrier) then corrupts their data here as well.
 *
 *===----------------------------------------------------------------------===*/
#include "tessel/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uintptr_t dst, src;
  intptr_t dst_bytes, src_bytes;
} queued_copy;

/* Per thread: the queued copies in issue order, and for each committed group
 * (oldest first) the number of queued copies up to its end. */
static _Thread_local queued_copy *copies;
static _Thread_local size_t copy_count, copy_capacity;
static _Thread_local size_t *group_ends;
static _Thread_local size_t group_count, group_capacity;

static void *grow(void *buffer, size_t *capacity, size_t element_size) {
  size_t next = *capacity ? 2 * *capacity : 64;
  void *grown = realloc(buffer, next * element_size);
  if (!grown) {
    fprintf(stderr, "tessel-emu: out of memory for queued copies\n");
    abort();
  }
  *capacity = next;
  return grown;
}

static void perform(const queued_copy *c) {
  intptr_t read = c->src_bytes < c->dst_bytes ? c->src_bytes : c->dst_bytes;
  if (read > 0)
    memcpy((void *)c->dst, (const void *)c->src, (size_t)read);
  if (read < c->dst_bytes)
    memset((char *)c->dst + (read > 0 ? read : 0), 0,
           (size_t)(c->dst_bytes - (read > 0 ? read : 0)));
}

/* Performs the first `count` queued copies and drops them (and the groups
 * they end) from the queue. */
static void complete_first(size_t count) {
  for (size_t i = 0; i < count; ++i)
    perform(&copies[i]);
  memmove(copies, copies + count, (copy_count - count) * sizeof *copies);
  copy_count -= count;
  size_t done = 0;
  while (done < group_count && group_ends[done] <= count)
    ++done;
  for (size_t g = done; g < group_count; ++g)
    group_ends[g - done] = group_ends[g] - count;
  group_count -= done;
}

/* 1: perform copies when issued (TESSEL_EMU_ASYNC_COPIES=eager). */
static int eager_copies(void) {
  static _Thread_local int mode = -1;
  if (mode < 0) {
    const char *value = getenv("TESSEL_EMU_ASYNC_COPIES");
    mode = value && !strcmp(value, "eager");
  }
  return mode;
}

static void check_alignment(uintptr_t address, intptr_t alignment,
                            const char *what) {
  if (alignment > 0 && address % (uintptr_t)alignment != 0) {
    fprintf(stderr,
            "tessel-emu: %s at address 0x%llx is not %ld-byte aligned, as "
            "the GPU requires\n",
            what, (unsigned long long)address, (long)alignment);
    abort();
  }
}

void tessel_emu_check_aligned(uintptr_t address, intptr_t alignment,
                              int32_t what) {
  static const char *const kinds[] = {"a tensor-core fragment load",
                                      "a tensor-core fragment store",
                                      "a vector access declared aligned"};
  check_alignment(address, alignment,
                  what >= 0 && what < 3 ? kinds[what] : "an access");
}

void tessel_emu_async_copy(uintptr_t dst, uintptr_t src, intptr_t dst_bytes,
                           intptr_t src_bytes) {
  /* cp.async moves 4, 8 or 16 bytes between addresses aligned to that. */
  check_alignment(dst, dst_bytes, "an asynchronous copy's destination");
  check_alignment(src, dst_bytes, "an asynchronous copy's source");
  if (eager_copies()) {
    perform(&(queued_copy){dst, src, dst_bytes, src_bytes});
    return;
  }
  if (copy_count == copy_capacity)
    copies = grow(copies, &copy_capacity, sizeof *copies);
  copies[copy_count++] = (queued_copy){dst, src, dst_bytes, src_bytes};
}

void tessel_emu_async_commit(void) {
  if (group_count == group_capacity)
    group_ends = grow(group_ends, &group_capacity, sizeof *group_ends);
  group_ends[group_count++] = copy_count;
}

void tessel_emu_async_wait(int32_t pending) {
  if (pending < 0)
    pending = 0;
  if (group_count <= (size_t)pending)
    return;
  complete_first(group_ends[group_count - (size_t)pending - 1]);
}

void tessel_emu_async_flush(void) {
  complete_first(copy_count);
  group_count = 0;
}

void tessel_emu_check_team(int32_t team_size, int32_t block_threads) {
  if (team_size == block_threads)
    return;
  fprintf(stderr,
          "tessel-emu: an OpenMP team of %d threads emulates a GPU block of "
          "%d threads; barriers need exactly one thread per GPU thread (is "
          "OMP_THREAD_LIMIT or OMP_DYNAMIC set?)\n",
          team_size, block_threads);
  abort();
}

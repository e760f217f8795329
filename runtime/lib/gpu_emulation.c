/*===- gpu_emulation.c - cp.async and shuffles for GPU kernels on the CPU --===*
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
 * A warp shuffle is an exchange among the 32 threads of a warp: each
 * writes its value to the warp's slot, waits for the others, reads its
 * source lane's slot, and waits again before the slots are reused.
 *
 *===----------------------------------------------------------------------===*/
#include "tessel/runtime.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* --- Warp shuffles --------------------------------------------------------- */

enum { kWarpSize = 32, kShuffleTimeoutSeconds = 60 };

typedef struct {
  pthread_mutex_t mutex;
  pthread_cond_t changed;
  int32_t lanes;      /* threads of the block in this warp */
  int32_t arrived;    /* lanes waiting at the current phase */
  uint64_t phase;     /* completed phases */
  uint64_t slots[kWarpSize];
} emu_warp;

typedef struct {
  int32_t count;
  emu_warp warps[];
} emu_warps;

uintptr_t tessel_emu_warps_create(int32_t threads) {
  int32_t count = threads > 0 ? (threads + kWarpSize - 1) / kWarpSize : 0;
  emu_warps *all =
      calloc(1, sizeof(emu_warps) + (size_t)count * sizeof(emu_warp));
  if (!all)
    return 0;
  all->count = count;
  for (int32_t w = 0; w < count; ++w) {
    emu_warp *warp = &all->warps[w];
    pthread_mutex_init(&warp->mutex, NULL);
    pthread_cond_init(&warp->changed, NULL);
    int32_t rest = threads - w * kWarpSize;
    warp->lanes = rest < kWarpSize ? rest : kWarpSize;
  }
  return (uintptr_t)all;
}

void tessel_emu_warps_destroy(uintptr_t handle) {
  emu_warps *all = (emu_warps *)handle;
  if (!all)
    return;
  for (int32_t w = 0; w < all->count; ++w) {
    pthread_mutex_destroy(&all->warps[w].mutex);
    pthread_cond_destroy(&all->warps[w].changed);
  }
  free(all);
}

/* Waits, the warp's mutex held, until all its lanes have arrived. */
static void warp_barrier(emu_warp *warp, int32_t warp_index) {
  uint64_t phase = warp->phase;
  if (++warp->arrived == warp->lanes) {
    warp->arrived = 0;
    ++warp->phase;
    pthread_cond_broadcast(&warp->changed);
    return;
  }
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += kShuffleTimeoutSeconds;
  while (warp->phase == phase) {
    int rc = pthread_cond_timedwait(&warp->changed, &warp->mutex, &deadline);
    if (rc == ETIMEDOUT && warp->phase == phase) {
      fprintf(stderr,
              "tessel-emu: %d of the %d lanes of warp %d reached a shuffle "
              "and waited %d s for the others (a shuffle in divergent "
              "code?)\n",
              warp->arrived, warp->lanes, warp_index, kShuffleTimeoutSeconds);
      abort();
    }
  }
}

static int32_t source_lane(int32_t lane, int32_t offset, int32_t mode) {
  switch (mode) {
  case 0: return lane ^ offset;
  case 1: return lane + offset;
  case 2: return lane - offset;
  default: return offset;
  }
}

int32_t tessel_emu_shuffle_valid(int32_t thread, int32_t offset,
                                 int32_t width, int32_t mode) {
  int32_t lane = thread % kWarpSize;
  int32_t source = source_lane(lane, offset, mode);
  return lane < width && source >= 0 && source < width;
}

uint64_t tessel_emu_shuffle(uintptr_t handle, int32_t thread, uint64_t value,
                            int32_t offset, int32_t width, int32_t mode) {
  emu_warps *all = (emu_warps *)handle;
  int32_t index = thread / kWarpSize, lane = thread % kWarpSize;
  if (!all || index >= all->count || width < 1 || width > kWarpSize) {
    fprintf(stderr,
            "tessel-emu: shuffle of thread %d (width %d) outside the block's "
            "warps\n",
            thread, width);
    abort();
  }
  emu_warp *warp = &all->warps[index];
  int valid = tessel_emu_shuffle_valid(thread, offset, width, mode);
  int32_t source = source_lane(lane, offset, mode);
  if (valid && source >= warp->lanes) {
    fprintf(stderr,
            "tessel-emu: lane %d of warp %d shuffles from lane %d, which the "
            "block does not have (%d lanes in that warp)\n",
            lane, index, source, warp->lanes);
    abort();
  }
  pthread_mutex_lock(&warp->mutex);
  warp->slots[lane] = value;
  warp_barrier(warp, index);
  uint64_t result = valid ? warp->slots[source] : value;
  warp_barrier(warp, index);
  pthread_mutex_unlock(&warp->mutex);
  return result;
}

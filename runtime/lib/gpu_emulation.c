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
#include <stdarg.h>
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

static void wgmma_flush(void);

void tessel_emu_async_flush(void) {
  complete_first(copy_count);
  group_count = 0;
  wgmma_flush();
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

/* Seconds a thread waits for others (at a shuffle or an mbarrier) before
 * it reports what would hang on a GPU: TESSEL_EMU_TIMEOUT, else 60. */
static int timeout_seconds(void) {
  static int seconds = 0;
  int known = __atomic_load_n(&seconds, __ATOMIC_RELAXED);
  if (known > 0)
    return known;
  const char *value = getenv("TESSEL_EMU_TIMEOUT");
  long parsed = value ? strtol(value, NULL, 10) : 0;
  known = parsed > 0 && parsed < 86400 ? (int)parsed : 60;
  __atomic_store_n(&seconds, known, __ATOMIC_RELAXED);
  return known;
}

/* --- Warp shuffles --------------------------------------------------------- */

enum { kWarpSize = 32, kMaxWaveSize = 64 };

typedef struct {
  pthread_mutex_t mutex;
  pthread_cond_t changed;
  int32_t lanes;      /* threads of the block in this warp */
  int32_t arrived;    /* lanes waiting at the current phase */
  uint64_t phase;     /* completed phases */
  uint64_t slots[kMaxWaveSize];
  /* AMD matrix instructions: each lane's A, B and C values. */
  uintptr_t operands[kMaxWaveSize][3];
} emu_warp;

typedef struct {
  int32_t count, size;
  emu_warp warps[];
} emu_warps;

uintptr_t tessel_emu_waves_create(int32_t threads, int32_t size) {
  if (size < 1 || size > kMaxWaveSize)
    return 0;
  int32_t count = threads > 0 ? (threads + size - 1) / size : 0;
  emu_warps *all =
      calloc(1, sizeof(emu_warps) + (size_t)count * sizeof(emu_warp));
  if (!all)
    return 0;
  all->count = count;
  all->size = size;
  for (int32_t w = 0; w < count; ++w) {
    emu_warp *warp = &all->warps[w];
    pthread_mutex_init(&warp->mutex, NULL);
    pthread_cond_init(&warp->changed, NULL);
    int32_t rest = threads - w * size;
    warp->lanes = rest < size ? rest : size;
  }
  return (uintptr_t)all;
}

uintptr_t tessel_emu_warps_create(int32_t threads) {
  return tessel_emu_waves_create(threads, kWarpSize);
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
  deadline.tv_sec += timeout_seconds();
  while (warp->phase == phase) {
    int rc = pthread_cond_timedwait(&warp->changed, &warp->mutex, &deadline);
    if (rc == ETIMEDOUT && warp->phase == phase) {
      fprintf(stderr,
              "tessel-emu: %d of the %d lanes of warp %d reached a shuffle "
              "or matrix instruction and waited %d s for the others (one "
              "in divergent code?)\n",
              warp->arrived, warp->lanes, warp_index, timeout_seconds());
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

int32_t tessel_emu_shuffle_valid(uintptr_t handle, int32_t thread,
                                 int32_t offset, int32_t width, int32_t mode) {
  const emu_warps *all = (const emu_warps *)handle;
  int32_t lane = thread % (all ? all->size : kWarpSize);
  int32_t source = source_lane(lane, offset, mode);
  return lane < width && source >= 0 && source < width;
}

uint64_t tessel_emu_shuffle(uintptr_t handle, int32_t thread, uint64_t value,
                            int32_t offset, int32_t width, int32_t mode) {
  emu_warps *all = (emu_warps *)handle;
  int32_t size = all ? all->size : kWarpSize;
  int32_t index = thread / size, lane = thread % size;
  if (!all || index >= all->count || width < 1 || width > size) {
    fprintf(stderr,
            "tessel-emu: shuffle of thread %d (width %d) outside the block's "
            "warps\n",
            thread, width);
    abort();
  }
  emu_warp *warp = &all->warps[index];
  int valid = tessel_emu_shuffle_valid(handle, thread, offset, width, mode);
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

/* --- AMD matrix instructions ----------------------------------------------
 *
 * MFMA 16x16x16 (64 lanes, 4 values each) and RDNA3 WMMA 16x16x16 (32
 * lanes; 16 values of A and B, lanes 16-31 repeating lanes 0-15, 8 of C),
 * with the lane layouts of the CDNA and RDNA3 ISA manuals: lane l's value e
 * lies at (row, column)
 *   MFMA  A (l%16, 4(l/16)+e)  B (4(l/16)+e, l%16)  C (4(l/16)+e, l%16)
 *   WMMA  A (l%16, e)          B (e, l%16)          C (2e+l/16, l%16)
 * Each lane publishes where its values are, waits for the wave, gathers
 * the whole A and B, computes its own values of D and waits again before
 * its values may change. Products and sums are exact (double; i8 products
 * in 64-bit integers), then rounded to f32 or wrapped to i32 once. */

enum { kMfmaF16 = 0, kMfmaI8 = 1, kWmmaF16 = 2, kWmmaI8 = 3 };

static void matrix_position(int32_t kind, int32_t operand, int32_t lane,
                            int32_t e, int32_t *row, int32_t *col) {
  int32_t low = lane % 16, high = lane / 16;
  int mfma = kind == kMfmaF16 || kind == kMfmaI8;
  switch (operand) {
  case 0: /* A */
    *row = low;
    *col = mfma ? 4 * high + e : e;
    return;
  case 1: /* B */
    *row = mfma ? 4 * high + e : e;
    *col = low;
    return;
  default: /* C */
    *row = mfma ? 4 * high + e : 2 * e + high;
    *col = low;
    return;
  }
}

void tessel_emu_matrix_op(uintptr_t handle, int32_t thread, int32_t kind,
                          uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d) {
  emu_warps *all = (emu_warps *)handle;
  int mfma = kind == kMfmaF16 || kind == kMfmaI8;
  int integer = kind == kMfmaI8 || kind == kWmmaI8;
  int32_t size = mfma ? 64 : 32;
  if (!all || all->size != size || kind < kMfmaF16 || kind > kWmmaI8) {
    fprintf(stderr,
            "tessel-emu: matrix instruction kind %d of thread %d on waves of "
            "%d lanes (it needs %d)\n",
            kind, thread, all ? all->size : 0, size);
    abort();
  }
  int32_t index = thread / size, lane = thread % size;
  if (index >= all->count || all->warps[index].lanes != size) {
    fprintf(stderr,
            "tessel-emu: thread %d runs a %d-lane matrix instruction in a "
            "wave the block does not fill\n",
            thread, size);
    abort();
  }
  emu_warp *wave = &all->warps[index];
  int32_t abValues = mfma ? 4 : 16, cValues = mfma ? 4 : 8;
  pthread_mutex_lock(&wave->mutex);
  wave->operands[lane][0] = a;
  wave->operands[lane][1] = b;
  wave->operands[lane][2] = c;
  warp_barrier(wave, index);
  /* Every lane's operands are published and stay put until the second
   * barrier: compute without the mutex, so the lanes run in parallel. */
  pthread_mutex_unlock(&wave->mutex);
  double matrix[2][16][16];
  int seen[2][16][16];
  memset(seen, 0, sizeof seen);
  for (int32_t operand = 0; operand < 2; ++operand)
    for (int32_t l = 0; l < size; ++l)
      for (int32_t e = 0; e < abValues; ++e) {
        int32_t row, col;
        matrix_position(kind, operand, l, e, &row, &col);
        uintptr_t base = wave->operands[l][operand];
        double v = integer ? (double)((const int32_t *)base)[e]
                           : (double)((const float *)base)[e];
        if (seen[operand][row][col] && matrix[operand][row][col] != v) {
          pthread_mutex_lock(&wave->mutex);
          fprintf(stderr,
                  "tessel-emu: WMMA %c(%d, %d) differs between lanes %d and "
                  "%d (lanes 16-31 must repeat lanes 0-15)\n",
                  operand ? 'B' : 'A', row, col, l - 16, l);
          abort();
        }
        seen[operand][row][col] = 1;
        matrix[operand][row][col] = v;
      }
  for (int32_t e = 0; e < cValues; ++e) {
    int32_t row, col;
    matrix_position(kind, 2, lane, e, &row, &col);
    if (integer) {
      int64_t sum = ((const int32_t *)c)[e];
      for (int32_t k = 0; k < 16; ++k)
        sum += (int64_t)matrix[0][row][k] * (int64_t)matrix[1][k][col];
      ((int32_t *)d)[e] = (int32_t)(uint32_t)(uint64_t)sum;
    } else {
      double sum = ((const float *)c)[e];
      for (int32_t k = 0; k < 16; ++k)
        sum += matrix[0][row][k] * matrix[1][k][col];
      ((float *)d)[e] = (float)sum;
    }
  }
  pthread_mutex_lock(&wave->mutex);
  warp_barrier(wave, index);
  pthread_mutex_unlock(&wave->mutex);
}

/* --- Hopper: mbarriers, TMA loads and wgmma ---------------------------------
 *
 * An mbarrier counts the arrivals it still expects in its current phase
 * and the bytes of transactions (TMA loads) still to land; the phase
 * completes when both reach zero. A TMA load waits on its mbarrier's queue
 * until a thread waits for that phase with no arrival missing: the latest
 * moment a GPU may complete it (or is performed when issued, with
 * TESSEL_EMU_ASYNC_COPIES=eager). A wgmma group waits in its thread's queue
 * until a wgmma wait lets it be pending no longer, and only then reads
 * shared memory: a kernel that overwrites a stage before the group reading
 * it is done computes with the new data here as well. TMA writes boxes
 * swizzled as the hardware does (16-byte chunks permuted by address bits),
 * and wgmma reads through the same swizzle, so a kernel that reads a
 * swizzled box with plain loads sees the permuted data here as well. */

enum { kWarpgroupThreads = 128 };

typedef struct {
  uintptr_t map, dst;
  intptr_t column, row;
} queued_load;

typedef struct {
  int32_t initialized;
  int32_t expected; /* arrivals per phase */
  int32_t pending;  /* arrivals still missing in the current phase */
  int64_t tx;       /* transaction bytes still to land */
  uint64_t phase;   /* completed phases */
  queued_load *loads;
  size_t load_count, load_capacity;
} emu_mbarrier;

typedef struct {
  pthread_mutex_t mutex;
  pthread_cond_t changed;
  int32_t count;
  emu_mbarrier barriers[];
} emu_mbarriers;

__attribute__((format(printf, 1, 2), noreturn)) static void
hopper_fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "tessel-emu: ");
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
  abort();
}

uintptr_t tessel_emu_mbarriers_create(int32_t count) {
  emu_mbarriers *all = calloc(
      1, sizeof(emu_mbarriers) + (size_t)(count > 0 ? count : 0) *
                                     sizeof(emu_mbarrier));
  if (!all) {
    fprintf(stderr, "tessel-emu: out of memory for mbarriers\n");
    abort();
  }
  pthread_mutex_init(&all->mutex, NULL);
  pthread_cond_init(&all->changed, NULL);
  all->count = count;
  return (uintptr_t)all;
}

void tessel_emu_mbarriers_destroy(uintptr_t handle) {
  emu_mbarriers *all = (emu_mbarriers *)handle;
  if (!all)
    return;
  for (int32_t i = 0; i < all->count; ++i)
    free(all->barriers[i].loads);
  pthread_mutex_destroy(&all->mutex);
  pthread_cond_destroy(&all->changed);
  free(all);
}

static emu_mbarrier *barrier_at(emu_mbarriers *all, intptr_t index,
                                int need_init) {
  if (!all || index < 0 || index >= all->count)
    hopper_fail("mbarrier %ld of a group of %ld does not exist", (long)index,
                all ? (long)all->count : 0L);
  emu_mbarrier *bar = &all->barriers[index];
  if (need_init && !bar->initialized)
    hopper_fail("mbarrier %ld used before nvgpu.mbarrier.init", (long)index);
  return bar;
}

/* Completes the current phase when nothing is missing (the mutex held). */
static void maybe_complete(emu_mbarriers *all, emu_mbarrier *bar) {
  if (bar->pending != 0 || bar->tx != 0)
    return;
  ++bar->phase;
  bar->pending = bar->expected;
  pthread_cond_broadcast(&all->changed);
}

void tessel_emu_mbarrier_init(uintptr_t handle, intptr_t index,
                              intptr_t count, int32_t predicate) {
  if (!predicate)
    return;
  emu_mbarriers *all = (emu_mbarriers *)handle;
  pthread_mutex_lock(&all->mutex);
  emu_mbarrier *bar = barrier_at(all, index, 0);
  if (count < 1)
    hopper_fail("mbarrier %ld initialized with %ld arrivals", (long)index,
                (long)count);
  bar->initialized = 1;
  bar->expected = bar->pending = (int32_t)count;
  bar->tx = 0;
  bar->phase = 0;
  bar->load_count = 0;
  pthread_mutex_unlock(&all->mutex);
}

void tessel_emu_mbarrier_arrive_expect_tx(uintptr_t handle, intptr_t index,
                                          intptr_t bytes, int32_t predicate) {
  if (!predicate)
    return;
  emu_mbarriers *all = (emu_mbarriers *)handle;
  pthread_mutex_lock(&all->mutex);
  emu_mbarrier *bar = barrier_at(all, index, 1);
  if (bar->pending == 0)
    hopper_fail("mbarrier %ld: an arrival in phase %ld, which expects no "
                "more (%ld transaction bytes still to land)",
                (long)index, (long)bar->phase, (long)bar->tx);
  bar->tx += bytes;
  --bar->pending;
  maybe_complete(all, bar);
  /* Waiters may now perform the phase's queued loads. */
  pthread_cond_broadcast(&all->changed);
  pthread_mutex_unlock(&all->mutex);
}

/* The words of a tensor map as the pass lays it out in host memory. */
enum {
  kMapBase, kMapRows, kMapColumns, kMapRowStride, kMapColumnStride,
  kMapElementBytes, kMapBoxRows, kMapBoxColumns, kMapSwizzleBytes, kMapWords
};

/* The shared-memory address where TMA's swizzle of `swizzle` bytes (128,
 * 64, 32 or 0) puts the byte at `address` of the unswizzled box: the
 * 16-byte chunk index (bits 4 and up) XOR the row within the pattern (bits
 * 7 and up), over log2(swizzle / 16) bits (CUDA's CU_TENSOR_MAP_SWIZZLE_*;
 * the pattern repeats every 8 rows of the swizzle's width). */
static uintptr_t swizzled(uintptr_t address, intptr_t swizzle) {
  uintptr_t mask = swizzle >= 32 ? (uintptr_t)swizzle / 16 - 1 : 0;
  return address ^ (((address >> 7) & mask) << 4);
}

static intptr_t box_bytes(const intptr_t *map) {
  return map[kMapBoxRows] * map[kMapBoxColumns] * map[kMapElementBytes];
}

/* Copies the box at (row, column) to dst; elements outside the tensor are
 * zeros (OOB_ZERO), as TMA fills them. */
static void perform_load(const queued_load *load) {
  const intptr_t *map = (const intptr_t *)load->map;
  intptr_t bytes = map[kMapElementBytes];
  for (intptr_t r = 0; r < map[kMapBoxRows]; ++r)
    for (intptr_t c = 0; c < map[kMapBoxColumns]; ++c) {
      intptr_t row = load->row + r, column = load->column + c;
      char *to = (char *)swizzled(
          load->dst + (uintptr_t)((r * map[kMapBoxColumns] + c) * bytes),
          map[kMapSwizzleBytes]);
      if (row < 0 || row >= map[kMapRows] || column < 0 ||
          column >= map[kMapColumns]) {
        memset(to, 0, (size_t)bytes);
        continue;
      }
      const char *from = (const char *)map[kMapBase] +
                         (row * map[kMapRowStride] + column) * bytes;
      memcpy(to, from, (size_t)bytes);
    }
}

void tessel_emu_tma_load_2d(uintptr_t map_handle, uintptr_t dst,
                            intptr_t column, intptr_t row, uintptr_t handle,
                            intptr_t index, int32_t predicate) {
  if (!predicate)
    return;
  const intptr_t *map = (const intptr_t *)map_handle;
  /* cuTensorMapEncodeTiled's and cp.async.bulk.tensor's requirements. */
  check_alignment(map[kMapBase], 16, "a tensor map's global address");
  if (map[kMapColumnStride] != 1 ||
      (map[kMapRowStride] * map[kMapElementBytes]) % 16 != 0)
    hopper_fail("a tensor map's innermost stride is %ld elements and its row "
                "stride %ld bytes; TMA needs 1 and a multiple of 16",
                (long)map[kMapColumnStride],
                (long)(map[kMapRowStride] * map[kMapElementBytes]));
  if (map[kMapSwizzleBytes] &&
      map[kMapBoxColumns] * map[kMapElementBytes] > map[kMapSwizzleBytes])
    hopper_fail("a TMA box's rows are %ld bytes, wider than its %ld-byte "
                "swizzle",
                (long)(map[kMapBoxColumns] * map[kMapElementBytes]),
                (long)map[kMapSwizzleBytes]);
  /* The swizzle pattern repeats every 8 rows of the swizzle's width and is
   * taken from the address bits, so a box must start on that period for
   * the wgmma descriptors (base offset 0) to read it back. */
  check_alignment(dst,
                  map[kMapSwizzleBytes] ? 8 * map[kMapSwizzleBytes] : 128,
                  "a TMA load's shared-memory destination");
  queued_load load = {map_handle, dst, column, row};
  emu_mbarriers *all = (emu_mbarriers *)handle;
  pthread_mutex_lock(&all->mutex);
  emu_mbarrier *bar = barrier_at(all, index, 1);
  if (eager_copies()) {
    perform_load(&load);
    bar->tx -= box_bytes(map);
    maybe_complete(all, bar);
  } else {
    if (bar->load_count == bar->load_capacity)
      bar->loads = grow(bar->loads, &bar->load_capacity, sizeof *bar->loads);
    bar->loads[bar->load_count++] = load;
    pthread_cond_broadcast(&all->changed);
  }
  pthread_mutex_unlock(&all->mutex);
}

void tessel_emu_mbarrier_try_wait_parity(uintptr_t handle, intptr_t index,
                                         int32_t parity) {
  emu_mbarriers *all = (emu_mbarriers *)handle;
  pthread_mutex_lock(&all->mutex);
  emu_mbarrier *bar = barrier_at(all, index, 1);
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeout_seconds();
  /* The phase of this parity is complete once the current one has the
   * other parity. */
  while ((int32_t)(bar->phase & 1) == (parity & 1)) {
    if (bar->pending == 0 && bar->load_count > 0) {
      for (size_t i = 0; i < bar->load_count; ++i) {
        perform_load(&bar->loads[i]);
        bar->tx -= box_bytes((const intptr_t *)bar->loads[i].map);
      }
      bar->load_count = 0;
      maybe_complete(all, bar);
      continue;
    }
    int rc = pthread_cond_timedwait(&all->changed, &all->mutex, &deadline);
    if (rc == ETIMEDOUT && (int32_t)(bar->phase & 1) == (parity & 1))
      hopper_fail("mbarrier %ld: waited %d s for its phase of parity %ld, "
                  "which still misses %ld arrival(s) and %ld transaction "
                  "byte(s); it would hang on a GPU",
                  (long)index, timeout_seconds(), (long)(parity & 1),
                  (long)bar->pending, (long)bar->tx);
  }
  pthread_mutex_unlock(&all->mutex);
}

/* IEEE half to float, for the products. */
static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  int32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    if (!mantissa) {
      bits = sign;
    } else { /* subnormal: normalize */
      exponent = 1;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        --exponent;
      }
      mantissa &= 0x3ff;
      bits = sign | (uint32_t)(exponent + 112) << 23 | (mantissa << 13);
    }
  } else {
    bits = sign | (uint32_t)(exponent + 112) << 23 | (mantissa << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static float load_half(uintptr_t address) {
  uint16_t h;
  memcpy(&h, (const void *)address, sizeof h);
  return half_to_float(h);
}

/* A queued wgmma: one group of upstream's nvgpu.warpgroup.mma (f16, B
 * MN-major, strides given), or one instruction of a group the kernel issues
 * itself (nvvm.wgmma.mma_async: both operands K-major, read through its
 * encoded descriptors). `group` orders them: a wait leaves the newest
 * `pending` committed groups queued, and the open (uncommitted) one. */
enum {
  kUpstreamF16Group = 0, /* nvgpu.warpgroup.mma's group */
  kKMajorF16 = 1,        /* m64nNk16 f16 x f16 -> f32 */
  kKMajorS8 = 2,         /* m64nNk32 s8 x s8 -> s32 */
};
typedef struct {
  int32_t kind;
  uint64_t group;
  uintptr_t acc, a, b;
  int32_t thread, m_tiles, n, k_steps;
  intptr_t a_m_step, a_k_step, a_sbo, a_pitch, b_k_step, b_lbo, b_sbo,
      b_pitch;
} queued_wgmma;

static _Thread_local queued_wgmma *wgmma_groups;
static _Thread_local size_t wgmma_count, wgmma_capacity;
/* The id of the group wgmma instructions issued now join (commit closes
 * it). */
static _Thread_local uint64_t wgmma_open_group;
/* The calling thread's block's dynamic shared memory: where the 18-bit
 * shared-memory addresses of wgmma descriptors point. */
static _Thread_local uintptr_t shared_window;
static _Thread_local intptr_t shared_window_bytes;

static void queue_wgmma(queued_wgmma entry) {
  if (wgmma_count == wgmma_capacity)
    wgmma_groups = grow(wgmma_groups, &wgmma_capacity, sizeof *wgmma_groups);
  wgmma_groups[wgmma_count++] = entry;
}

/* The thread's registers of each m64nNk16 instruction of the group: register
 * r of lane l in warp w (of the warpgroup) is D[16 w + l / 4 + 8 ((r / 2) %
 * 2)][8 (r / 4) + 2 (l % 4) + r % 2] (PTX ISA, wgmma D fragments). A is
 * K-major, row i of a core matrix group at (i / 8) * SBO + (i % 8) * pitch;
 * B is MN-major (transposed), column j at (j / (pitch / 2)) * LBO, k row
 * at (k / 8) * SBO + (k % 8) * pitch; both read through the swizzle of
 * their pitch, as TMA wrote them. */
static void perform_f16_group(const queued_wgmma *g) {
  float *acc = (float *)g->acc;
  int32_t in_group = g->thread % kWarpgroupThreads;
  int32_t warp = in_group / kWarpSize, lane = in_group % kWarpSize;
  int32_t registers = g->n / 2;
  intptr_t columns_per_row = g->b_pitch / 2;
  for (int32_t i = 0; i < g->m_tiles; ++i)
    for (int32_t kk = 0; kk < g->k_steps; ++kk) {
      uintptr_t a = g->a + (uintptr_t)(i * g->a_m_step + kk * g->a_k_step);
      uintptr_t b = g->b + (uintptr_t)(kk * g->b_k_step);
      for (int32_t r = 0; r < registers; ++r) {
        int32_t row = 16 * warp + lane / 4 + 8 * ((r / 2) % 2);
        int32_t column = 8 * (r / 4) + 2 * (lane % 4) + r % 2;
        float sum = acc[i * registers + r];
        for (int32_t k = 0; k < 16; ++k) {
          float x = load_half(swizzled(
              a + (uintptr_t)((row / 8) * g->a_sbo + (row % 8) * g->a_pitch +
                              k * 2),
              g->a_pitch));
          float y = load_half(swizzled(
              b + (uintptr_t)((column / columns_per_row) * g->b_lbo +
                              (k / 8) * g->b_sbo + (k % 8) * g->b_pitch +
                              (column % columns_per_row) * 2),
              g->b_pitch));
          sum += x * y;
        }
        acc[i * registers + r] = sum;
      }
    }
}

/* One K-major instruction (m64nNk16 f16 x f16 -> f32 or m64nNk32 s8 x s8
 * -> s32): row i of A (column j of B) at (i / 8) * SBO + (i % 8) * pitch
 * from the descriptor's address, its 32 k bytes along that row, read
 * through the swizzle; the D fragment as for upstream's groups. */
static void perform_k_major_instruction(const queued_wgmma *g) {
  int32_t in_group = g->thread % kWarpgroupThreads;
  int32_t warp = in_group / kWarpSize, lane = in_group % kWarpSize;
  for (int32_t r = 0; r < g->n / 2; ++r) {
    int32_t row = 16 * warp + lane / 4 + 8 * ((r / 2) % 2);
    int32_t column = 8 * (r / 4) + 2 * (lane % 4) + r % 2;
    uintptr_t a_row =
        g->a + (uintptr_t)((row / 8) * g->a_sbo + (row % 8) * g->a_pitch);
    uintptr_t b_row =
        g->b + (uintptr_t)((column / 8) * g->b_sbo + (column % 8) * g->b_pitch);
    if (g->kind == kKMajorS8) {
      int32_t *acc = (int32_t *)g->acc;
      int32_t sum = acc[r];
      for (int32_t k = 0; k < 32; ++k)
        sum += (int32_t) * (const int8_t *)swizzled(a_row + k, g->a_pitch) *
               (int32_t) * (const int8_t *)swizzled(b_row + k, g->b_pitch);
      acc[r] = sum;
    } else {
      float *acc = (float *)g->acc;
      float sum = acc[r];
      for (int32_t k = 0; k < 16; ++k)
        sum += load_half(swizzled(a_row + 2 * k, g->a_pitch)) *
               load_half(swizzled(b_row + 2 * k, g->b_pitch));
      acc[r] = sum;
    }
  }
}

void tessel_emu_wgmma_zero(uintptr_t acc, intptr_t count) {
  memset((void *)acc, 0, (size_t)count * sizeof(float));
}

void tessel_emu_wgmma(uintptr_t acc, uintptr_t a, uintptr_t b, int32_t thread,
                      int32_t m_tiles, int32_t n, int32_t k_steps,
                      intptr_t a_m_step, intptr_t a_k_step, intptr_t a_sbo,
                      intptr_t a_pitch, intptr_t b_k_step, intptr_t b_lbo,
                      intptr_t b_sbo, intptr_t b_pitch) {
  if (n < 8 || n > 256 || n % 8 || a_pitch < 32 || b_pitch < 32)
    hopper_fail("wgmma with n = %ld and %ld- and %ld-byte swizzles is not "
                "emulated",
                (long)n, (long)a_pitch, (long)b_pitch);
  /* Upstream's lowering commits the group it issues. */
  queue_wgmma((queued_wgmma){.kind = kUpstreamF16Group,
                             .group = wgmma_open_group++,
                             .acc = acc,
                             .a = a,
                             .b = b,
                             .thread = thread,
                             .m_tiles = m_tiles,
                             .n = n,
                             .k_steps = k_steps,
                             .a_m_step = a_m_step,
                             .a_k_step = a_k_step,
                             .a_sbo = a_sbo,
                             .a_pitch = a_pitch,
                             .b_k_step = b_k_step,
                             .b_lbo = b_lbo,
                             .b_sbo = b_sbo,
                             .b_pitch = b_pitch});
}

void tessel_emu_shared_window(uintptr_t base, intptr_t bytes) {
  shared_window = base;
  shared_window_bytes = bytes;
}

/* The shared-memory address a descriptor's bits 0-13 name (address / 16,
 * 18 bits in all): the one inside the block's dynamic shared memory. */
static uintptr_t descriptor_address(uint64_t descriptor, const char *which) {
  if (!shared_window)
    hopper_fail("a wgmma descriptor outside a block with dynamic shared "
                "memory");
  uintptr_t low = (uintptr_t)(descriptor & 0x3FFF) << 4;
  uintptr_t address = (shared_window & ~(uintptr_t)0x3FFFF) | low;
  if (address < shared_window)
    address += 0x40000;
  if (address < shared_window ||
      address >= shared_window + (uintptr_t)shared_window_bytes)
    hopper_fail("the %s descriptor's address (0x%lx in the shared window) is "
                "outside the block's %ld bytes of shared memory",
                which, (unsigned long)low, (long)shared_window_bytes);
  return address;
}

/* Decodes one K-major descriptor (PTX ISA, "Matrix Descriptor Format"):
 * bits 16-29 the leading byte offset / 16 (unused by K-major swizzled
 * layouts), 32-45 the stride byte offset / 16, 49-51 the base offset, 62-63
 * the swizzle (1: 128 bytes, 2: 64, 3: 32; 0, interleaved, is not
 * emulated). */
static void decode_k_major(uint64_t descriptor, const char *which, int32_t rows,
                           uintptr_t *address, intptr_t *sbo, intptr_t *pitch) {
  static const intptr_t widths[4] = {0, 128, 64, 32};
  /* Bits 14-15, 30-31, 46-48 and 52-61 are reserved. */
  const uint64_t fields = 0x3FFFull | 0x3FFFull << 16 | 0x3FFFull << 32 |
                          0x7ull << 49 | 0x3ull << 62;
  if (descriptor & ~fields)
    hopper_fail("the %s descriptor 0x%016llx sets reserved bits (0x%016llx)",
                which, (unsigned long long)descriptor,
                (unsigned long long)(descriptor & ~fields));
  *address = descriptor_address(descriptor, which);
  *sbo = (intptr_t)((descriptor >> 32) & 0x3FFF) << 4;
  *pitch = widths[(descriptor >> 62) & 3];
  if (!*pitch)
    hopper_fail("the %s descriptor is not swizzled (interleaved layouts are "
                "not emulated)",
                which);
  if ((descriptor >> 49) & 7)
    hopper_fail("the %s descriptor has a base offset (%lu), which is not "
                "emulated",
                which, (unsigned long)((descriptor >> 49) & 7));
  if (*sbo != 8 * *pitch)
    hopper_fail("the %s descriptor's stride byte offset is %ld; K-major "
                "tiles of %ld-byte rows have groups of 8 rows %ld bytes apart",
                which, (long)*sbo, (long)*pitch, (long)(8 * *pitch));
  /* The instruction reads `rows` rows of 32 bytes from there (the swizzle
   * permutes 16-byte pieces within a row): all inside shared memory. */
  uintptr_t end = *address + (uintptr_t)(((rows - 1) / 8) * *sbo +
                                         ((rows - 1) % 8) * *pitch + 32);
  if (end > shared_window + (uintptr_t)shared_window_bytes)
    hopper_fail("the %s operand's %ld rows from its descriptor's address run "
                "past the block's %ld bytes of shared memory",
                which, (long)rows, (long)shared_window_bytes);
}

void tessel_emu_wgmma_k_major(uintptr_t acc, uint64_t a_descriptor,
                              uint64_t b_descriptor, int32_t thread, int32_t n,
                              int32_t kind) {
  if (kind != 0 && kind != 1)
    hopper_fail("a K-major wgmma of unknown kind %ld", (long)kind);
  if (n < 8 || n > 256 || n % (kind ? 16 : 8))
    hopper_fail("a wgmma with n = %ld (m64nNk%d takes multiples of %d up to "
                "256 here)",
                (long)n, kind ? 32 : 16, kind ? 16 : 8);
  queued_wgmma entry = {.kind = kind ? kKMajorS8 : kKMajorF16,
                        .group = wgmma_open_group,
                        .acc = acc,
                        .thread = thread,
                        .m_tiles = 1,
                        .n = n,
                        .k_steps = 1};
  decode_k_major(a_descriptor, "A", 64, &entry.a, &entry.a_sbo, &entry.a_pitch);
  decode_k_major(b_descriptor, "B", n, &entry.b, &entry.b_sbo, &entry.b_pitch);
  queue_wgmma(entry);
}

void tessel_emu_wgmma_commit(void) { ++wgmma_open_group; }

void tessel_emu_wgmma_wait(int32_t pending) {
  if (pending < 0)
    pending = 0;
  /* Groups below `last` are done: all committed ones but the newest
   * `pending`. */
  if (wgmma_open_group < (uint64_t)pending)
    return;
  uint64_t last = wgmma_open_group - (uint64_t)pending;
  size_t done = 0;
  while (done < wgmma_count && wgmma_groups[done].group < last) {
    if (wgmma_groups[done].kind == kUpstreamF16Group)
      perform_f16_group(&wgmma_groups[done]);
    else
      perform_k_major_instruction(&wgmma_groups[done]);
    ++done;
  }
  memmove(wgmma_groups, wgmma_groups + done,
          (wgmma_count - done) * sizeof *wgmma_groups);
  wgmma_count -= done;
}

/* Upstream's lowering of nvgpu.warpgroup.mma.store (NVGPUToNVVM), which
 * kernels depend on: warp w = thread / 32 over the whole block (not the
 * warpgroup) stores its rows at 16 w + ..., and the i-th 64-row slab of the
 * accumulator at a row offset of i times the registers of one slab. */
void tessel_emu_wgmma_store(uintptr_t acc_address, int32_t thread,
                            int32_t m_tiles, int32_t n, uintptr_t dst,
                            intptr_t row_stride, intptr_t column_stride) {
  const float *acc = (const float *)acc_address;
  int32_t lane = thread % kWarpSize, warp = thread / kWarpSize;
  int32_t registers = n / 2;
  for (int32_t s = 0; s < m_tiles; ++s) {
    int32_t top = lane / 4 + 16 * warp + s * registers;
    for (int32_t i = 0; i < 2; ++i)
      for (int32_t j = 0; j < n / 8; ++j)
        for (int32_t e = 0; e < 2; ++e) {
          intptr_t row = top + 8 * i, column = 2 * (lane % 4) + 8 * j + e;
          float *to = (float *)dst + row * row_stride + column * column_stride;
          *to = acc[s * registers + i * 2 + j * 4 + e];
        }
  }
}

/* A thread's end completes what it issued, committed or not. */
static void wgmma_flush(void) {
  tessel_emu_wgmma_commit();
  tessel_emu_wgmma_wait(0);
}

/* Tessel CPU runtime: helpers shared by tests, demos and benchmarks.
 *
 * Plain C11 with no MLIR dependency, so any harness (C, Python ctypes,
 * MLIR-generated code) can link it. */
#ifndef TESSEL_RUNTIME_H
#define TESSEL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TESSEL_RT_EXPORT __declspec(dllexport)
#else
#define TESSEL_RT_EXPORT __attribute__((visibility("default")))
#endif

/* ---------------------------------------------------------------------------
 * Aligned allocation
 * ------------------------------------------------------------------------- */

/* A cache line, and enough for AVX-512 loads of a whole vector. */
#define TESSEL_DEFAULT_ALIGNMENT 64

/* Allocates count * element_size bytes aligned to `alignment` (0 means
 * TESSEL_DEFAULT_ALIGNMENT). Returns NULL if the product overflows, the
 * alignment is not a power of two, or memory is exhausted. The memory is not
 * zeroed. A zero-byte request still returns a unique pointer so callers need
 * not special-case empty shapes. Release with tessel_free. */
TESSEL_RT_EXPORT void *tessel_aligned_alloc(size_t count, size_t element_size,
                                            size_t alignment);

/* tessel_aligned_alloc(byte_count, 1, TESSEL_DEFAULT_ALIGNMENT). */
TESSEL_RT_EXPORT void *tessel_alloc(size_t byte_count);

/* Frees memory from tessel_aligned_alloc/tessel_alloc; NULL is a no-op. */
TESSEL_RT_EXPORT void tessel_free(void *ptr);

/* ---------------------------------------------------------------------------
 * Timing
 * ------------------------------------------------------------------------- */

/* Seconds on a monotonic clock; only differences are meaningful. */
TESSEL_RT_EXPORT double tessel_now_seconds(void);

/* Median of `count` values without modifying them (the mean of the two
 * middle values for even counts). Returns NaN for count == 0 or if scratch
 * memory cannot be allocated. Median, not mean, because one preempted
 * benchmark repetition should not move the reported time. */
TESSEL_RT_EXPORT double tessel_median(const double *values, size_t count);

/* ---------------------------------------------------------------------------
 * MLIR strided memref descriptors
 *
 * Same C layout as upstream MLIR's StridedMemRefType<T, N>
 * (mlir/ExecutionEngine/CRunnerUtils.h), which is what the LLVM lowering of
 * memref<...> passes by pointer to C interface functions:
 *   { T *allocated; T *aligned; int64_t offset; int64_t sizes[N];
 *     int64_t strides[N]; }
 * Rank 0 has no sizes/strides arrays at all (C forbids zero-length arrays,
 * and upstream specialises rank 0 the same way).
 * ------------------------------------------------------------------------- */

/* Defines `tessel_memref_<tag>_<rank>d` for rank >= 1. */
#define TESSEL_DEFINE_MEMREF(tag, element_type, rank)                         \
  typedef struct tessel_memref_##tag##_##rank##d {                           \
    element_type *allocated;                                                  \
    element_type *aligned;                                                    \
    int64_t offset;                                                           \
    int64_t sizes[rank];                                                      \
    int64_t strides[rank];                                                    \
  } tessel_memref_##tag##_##rank##d

/* Defines `tessel_memref_<tag>_0d`. */
#define TESSEL_DEFINE_MEMREF_0D(tag, element_type)                            \
  typedef struct tessel_memref_##tag##_0d {                                   \
    element_type *allocated;                                                  \
    element_type *aligned;                                                    \
    int64_t offset;                                                           \
  } tessel_memref_##tag##_0d

/* Names the type defined above: TESSEL_MEMREF_TYPE(f32, float, 2) is
 * tessel_memref_f32_2d. The element type is accepted so call sites read like
 * the memref type they mirror; it must match the tag's definition. */
#define TESSEL_MEMREF_TYPE(tag, element_type, rank) tessel_memref_##tag##_##rank##d

#define TESSEL_DEFINE_MEMREF_RANKS_0_TO_4(tag, element_type)                  \
  TESSEL_DEFINE_MEMREF_0D(tag, element_type);                                 \
  TESSEL_DEFINE_MEMREF(tag, element_type, 1);                                 \
  TESSEL_DEFINE_MEMREF(tag, element_type, 2);                                 \
  TESSEL_DEFINE_MEMREF(tag, element_type, 3);                                 \
  TESSEL_DEFINE_MEMREF(tag, element_type, 4)

TESSEL_DEFINE_MEMREF_RANKS_0_TO_4(f32, float);
TESSEL_DEFINE_MEMREF_RANKS_0_TO_4(f64, double);
TESSEL_DEFINE_MEMREF_RANKS_0_TO_4(i8, int8_t);
TESSEL_DEFINE_MEMREF_RANKS_0_TO_4(i16, int16_t);
TESSEL_DEFINE_MEMREF_RANKS_0_TO_4(i32, int32_t);
TESSEL_DEFINE_MEMREF_RANKS_0_TO_4(i64, int64_t);

/* Any-rank, any-element view of a ranked descriptor: sizes are
 * sizes_and_strides[0, rank), strides are sizes_and_strides[rank, 2*rank).
 * Valid because all pointers share one representation and the arrays are
 * adjacent int64_t with no padding. */
typedef struct tessel_memref_view {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes_and_strides[];
} tessel_memref_view;

/* Upstream UnrankedMemRefType: what memref<*xT> lowers to. */
typedef struct tessel_unranked_memref {
  int64_t rank;
  void *descriptor; /* points at a ranked descriptor of that rank */
} tessel_unranked_memref;

/* Fills a ranked descriptor of any rank (>= 0) with `data` as both pointers,
 * offset 0, the given sizes and identity (row-major contiguous) strides.
 * `descriptor` must point at a descriptor of exactly that rank. */
TESSEL_RT_EXPORT void tessel_memref_init_identity(void *descriptor, void *data,
                                                  int64_t rank,
                                                  const int64_t *sizes);

/* Product of sizes (1 for rank 0). Returns -1 on overflow or a negative size,
 * so shape bugs surface instead of wrapping. */
TESSEL_RT_EXPORT int64_t tessel_num_elements(int64_t rank, const int64_t *sizes);

/* Typed, ranked wrappers: tessel_memref_<tag>_init_<rank>d(desc, data, d0..).
 * Inline so they cost nothing and need no exported symbol per type. */
#define TESSEL_DEFINE_MEMREF_INIT_HELPERS(tag, element_type)                  \
  static inline void tessel_memref_##tag##_init_1d(                           \
      tessel_memref_##tag##_1d *desc, element_type *data, int64_t d0) {       \
    const int64_t sizes[1] = {d0};                                            \
    tessel_memref_init_identity(desc, data, 1, sizes);                        \
  }                                                                           \
  static inline void tessel_memref_##tag##_init_2d(                           \
      tessel_memref_##tag##_2d *desc, element_type *data, int64_t d0,         \
      int64_t d1) {                                                           \
    const int64_t sizes[2] = {d0, d1};                                        \
    tessel_memref_init_identity(desc, data, 2, sizes);                        \
  }                                                                           \
  static inline void tessel_memref_##tag##_init_3d(                           \
      tessel_memref_##tag##_3d *desc, element_type *data, int64_t d0,         \
      int64_t d1, int64_t d2) {                                               \
    const int64_t sizes[3] = {d0, d1, d2};                                    \
    tessel_memref_init_identity(desc, data, 3, sizes);                        \
  }                                                                           \
  static inline void tessel_memref_##tag##_init_4d(                           \
      tessel_memref_##tag##_4d *desc, element_type *data, int64_t d0,         \
      int64_t d1, int64_t d2, int64_t d3) {                                   \
    const int64_t sizes[4] = {d0, d1, d2, d3};                                \
    tessel_memref_init_identity(desc, data, 4, sizes);                        \
  }

TESSEL_DEFINE_MEMREF_INIT_HELPERS(f32, float)
TESSEL_DEFINE_MEMREF_INIT_HELPERS(f64, double)
TESSEL_DEFINE_MEMREF_INIT_HELPERS(i8, int8_t)
TESSEL_DEFINE_MEMREF_INIT_HELPERS(i16, int16_t)
TESSEL_DEFINE_MEMREF_INIT_HELPERS(i32, int32_t)
TESSEL_DEFINE_MEMREF_INIT_HELPERS(i64, int64_t)

/* ---------------------------------------------------------------------------
 * Test data
 * ------------------------------------------------------------------------- */

/* Fills data[i] with a pseudo-random value in [-1, 1) that depends only on
 * (seed, i): reproducible across runs and platforms, and independent of
 * `count`, so a prefix of a larger buffer gets the same values. */
TESSEL_RT_EXPORT void tessel_fill_random_f32(float *data, size_t count,
                                             uint64_t seed);
TESSEL_RT_EXPORT void tessel_fill_random_f64(double *data, size_t count,
                                             uint64_t seed);

/* Prints one line to stdout: `label: f32[d0x d1...] = [v0, v1, ...]`, showing
 * at most `max_elements` leading elements (row-major) followed by "..." when
 * truncated. `shape` may be NULL for rank 0. */
TESSEL_RT_EXPORT void tessel_print_buffer_f32(const char *label,
                                              const float *data, int64_t rank,
                                              const int64_t *shape,
                                              size_t max_elements);
TESSEL_RT_EXPORT void tessel_print_buffer_f64(const char *label,
                                              const double *data, int64_t rank,
                                              const int64_t *shape,
                                              size_t max_elements);

/* Outcome of a tolerance comparison. Indices are SIZE_MAX when unset. */
typedef struct tessel_compare_stats {
  size_t mismatch_count;
  size_t first_mismatch_index;
  double first_mismatch_actual;
  double first_mismatch_expected;
  double max_abs_error;
  double max_rel_error;
  size_t max_rel_error_index;
} tessel_compare_stats;

/* Compares actual[i] with a double-precision expected[i]. An element matches
 * when |actual - expected| <= abs_tol + rel_tol * |expected| (numpy.isclose),
 * when both are NaN, or when both are the same infinity. The relative error
 * reported is |actual - expected| / max(|expected|, abs_tol) so that
 * near-zero references do not dominate it.
 * If `label` is non-NULL and there are mismatches, one line describing the
 * first mismatch and the max relative error goes to stderr. `stats` may be
 * NULL. Returns the number of mismatching elements. */
TESSEL_RT_EXPORT size_t tessel_compare_f32(const char *label,
                                           const float *actual,
                                           const double *expected,
                                           size_t count, double rel_tol,
                                           double abs_tol,
                                           tessel_compare_stats *stats);
TESSEL_RT_EXPORT size_t tessel_compare_f64(const char *label,
                                           const double *actual,
                                           const double *expected,
                                           size_t count, double rel_tol,
                                           double abs_tol,
                                           tessel_compare_stats *stats);
/* Both buffers float: e.g. a kernel against a float reference implementation.
 * The comparison itself is done in double. */
TESSEL_RT_EXPORT size_t tessel_compare_f32_f32(const char *label,
                                               const float *actual,
                                               const float *expected,
                                               size_t count, double rel_tol,
                                               double abs_tol,
                                               tessel_compare_stats *stats);

/* ---------------------------------------------------------------------------
 * GPU emulation (tessel-emulate-gpu-on-cpu)
 *
 * Code from that pass runs each GPU thread as an OpenMP thread and calls
 * these for the asynchronous copies (cp.async) a thread issues. Addresses
 * are byte addresses; a copy writes dst_bytes, the first src_bytes read
 * from src and the rest zeros (cp.async's zero fill).
 * ------------------------------------------------------------------------- */

/* Queues a copy; it is performed by a later wait or flush (or at once with
 * TESSEL_EMU_ASYNC_COPIES=eager in the environment). Aborts when an address
 * is not aligned to the copy's size. */
TESSEL_RT_EXPORT void tessel_emu_async_copy(uintptr_t dst, uintptr_t src,
                                            intptr_t dst_bytes,
                                            intptr_t src_bytes);
/* Closes the group of the copies queued since the last commit. */
TESSEL_RT_EXPORT void tessel_emu_async_commit(void);
/* Performs, in order, the copies of all committed groups but the newest
 * `pending` (cp.async.wait_group pending). */
TESSEL_RT_EXPORT void tessel_emu_async_wait(int32_t pending);
/* Performs every queued copy, committed or not (the thread ends). */
TESSEL_RT_EXPORT void tessel_emu_async_flush(void);
/* Aborts with a message when `address` is not a multiple of `alignment`;
 * `what`: 0 a fragment load, 1 a fragment store, 2 an aligned vector access. */
TESSEL_RT_EXPORT void tessel_emu_check_aligned(uintptr_t address,
                                               intptr_t alignment,
                                               int32_t what);
/* Aborts with a message unless the OpenMP team emulating a block has the
 * block's thread count. */
TESSEL_RT_EXPORT void tessel_emu_check_team(int32_t team_size,
                                            int32_t block_threads);

/* Warp shuffles (gpu.shuffle). A block of `threads` threads is cut into
 * warps of 32 in thread order (tessel_emu_waves_create below: of another
 * size, up to 64); tessel_emu_warps_create returns the block's
 * exchange state (0 when out of memory), tessel_emu_warps_destroy frees it.
 * tessel_emu_shuffle is called by every thread of a warp alike, `thread`
 * being its index in the block; it returns the `value` of the lane that
 * `mode` (0 xor, 1 down, 2 up, 3 idx: gpu.shuffle's) and `offset` name, or
 * the caller's own when that lane is outside `width` lanes (then
 * tessel_emu_shuffle_valid is 0). It aborts with a message when the lanes
 * of a warp do not all reach it within TESSEL_EMU_TIMEOUT seconds (60
 * unless set; a divergent shuffle)
 * or name a lane the block does not have. */
TESSEL_RT_EXPORT uintptr_t tessel_emu_warps_create(int32_t threads);
TESSEL_RT_EXPORT void tessel_emu_warps_destroy(uintptr_t warps);
TESSEL_RT_EXPORT uint64_t tessel_emu_shuffle(uintptr_t warps, int32_t thread,
                                             uint64_t value, int32_t offset,
                                             int32_t width, int32_t mode);
TESSEL_RT_EXPORT int32_t tessel_emu_shuffle_valid(uintptr_t warps,
                                                  int32_t thread,
                                                  int32_t offset, int32_t width,
                                                  int32_t mode);

/* AMD matrix instructions (amdgpu.mfma / amdgpu.wmma 16x16x16).
 * tessel_emu_waves_create cuts a block into wavefronts of `size` lanes (64
 * for MFMA, 32 for RDNA3 WMMA; at most 64). tessel_emu_matrix_op is called
 * by every lane of a wave alike: `kind` 0 MFMA f16 -> f32, 1 MFMA i8 ->
 * i32, 2 WMMA f16 -> f32, 3 WMMA i8 -> i32; `a`, `b` point to the lane's
 * values of A and B (4 for MFMA, 16 for WMMA) widened to f32 or i32, `c`
 * to its accumulators (4 or 8; f32 or i32), `d` to where its results go.
 * It aborts with a message when the wave is not whole, when WMMA's lanes
 * 16-31 do not repeat lanes 0-15, or when lanes are missing (as
 * tessel_emu_shuffle does). */
TESSEL_RT_EXPORT uintptr_t tessel_emu_waves_create(int32_t threads,
                                                   int32_t size);
TESSEL_RT_EXPORT void tessel_emu_matrix_op(uintptr_t waves, int32_t thread,
                                           int32_t kind, uintptr_t a,
                                           uintptr_t b, uintptr_t c,
                                           uintptr_t d);

/* Hopper kernels (TMA, mbarriers, wgmma). tessel_emu_mbarriers_create makes
 * a block's group of `count` mbarriers (aborting when out of memory),
 * tessel_emu_mbarriers_destroy frees it. The others take `predicate` like
 * the nvgpu ops they stand for (0: the call does nothing) and abort with a
 * message on what would be undefined or hang on a GPU: an mbarrier used
 * before its init, an arrival its phase does not expect, a wait longer
 * than TESSEL_EMU_TIMEOUT seconds (60 unless set; shuffles use it too), a
 * misaligned or malformed TMA transfer.
 *
 * A tensor map is nine index-sized words: base address, rows, columns, row
 * and column strides in elements, element bytes, box rows and columns,
 * swizzle bytes (0 for none). A TMA load's
 * bytes (the whole box, out-of-bounds zeros included) count against its
 * mbarrier's current phase; it is performed when a thread waits for that
 * phase and all its arrivals are in (or when issued, with
 * TESSEL_EMU_ASYNC_COPIES=eager). */
TESSEL_RT_EXPORT uintptr_t tessel_emu_mbarriers_create(int32_t count);
TESSEL_RT_EXPORT void tessel_emu_mbarriers_destroy(uintptr_t mbarriers);
TESSEL_RT_EXPORT void tessel_emu_mbarrier_init(uintptr_t mbarriers,
                                               intptr_t index, intptr_t count,
                                               int32_t predicate);
TESSEL_RT_EXPORT void tessel_emu_mbarrier_arrive_expect_tx(
    uintptr_t mbarriers, intptr_t index, intptr_t bytes, int32_t predicate);
/* Returns once the phase of `parity` of mbarrier `index` has completed. */
TESSEL_RT_EXPORT void tessel_emu_mbarrier_try_wait_parity(uintptr_t mbarriers,
                                                          intptr_t index,
                                                          int32_t parity);
/* Copies the map's box at (row, column) to shared memory at `dst`. */
TESSEL_RT_EXPORT void tessel_emu_tma_load_2d(uintptr_t map, uintptr_t dst,
                                             intptr_t column, intptr_t row,
                                             uintptr_t mbarriers,
                                             intptr_t index,
                                             int32_t predicate);
/* A warpgroup accumulator is each thread's registers of its fragments, f32,
 * m_tiles slabs of n / 2. tessel_emu_wgmma queues one group of m64nNk16
 * f16 products (m_tiles x k_steps instructions; instruction (i, kk) reads A
 * at a + i a_m_step + kk a_k_step and B at b + kk b_k_step, the operand
 * layouts given by the descriptors' strides and swizzle widths, `pitch`);
 * tessel_emu_wgmma_wait performs all but the newest `pending` groups
 * (wgmma.wait_group), tessel_emu_async_flush all of them.
 * tessel_emu_wgmma_store writes the accumulator where upstream's lowering
 * of nvgpu.warpgroup.mma.store puts each thread's registers. */
TESSEL_RT_EXPORT void tessel_emu_wgmma_zero(uintptr_t acc, intptr_t count);
TESSEL_RT_EXPORT void tessel_emu_wgmma(uintptr_t acc, uintptr_t a,
                                       uintptr_t b, int32_t thread,
                                       int32_t m_tiles, int32_t n,
                                       int32_t k_steps, intptr_t a_m_step,
                                       intptr_t a_k_step, intptr_t a_sbo,
                                       intptr_t a_pitch, intptr_t b_k_step,
                                       intptr_t b_lbo, intptr_t b_sbo,
                                       intptr_t b_pitch);
/* The form kernels issue instruction by instruction (nvvm.wgmma.mma_async,
 * both operands K-major): tessel_emu_wgmma_k_major queues one instruction,
 * kind 0 m64nNk16 f16 x f16 -> f32, kind 1 m64nNk32 s8 x s8 -> s32 (the
 * accumulator: the thread's n / 2 registers), read where its encoded
 * shared-memory descriptors point (their 18-bit addresses taken inside the
 * calling thread's block's dynamic shared memory, which
 * tessel_emu_shared_window names), into the open group;
 * tessel_emu_wgmma_commit closes that group. */
TESSEL_RT_EXPORT void tessel_emu_shared_window(uintptr_t base, intptr_t bytes);
TESSEL_RT_EXPORT void tessel_emu_wgmma_k_major(uintptr_t acc,
                                               uint64_t a_descriptor,
                                               uint64_t b_descriptor,
                                               int32_t thread, int32_t n,
                                               int32_t kind);
TESSEL_RT_EXPORT void tessel_emu_wgmma_commit(void);
TESSEL_RT_EXPORT void tessel_emu_wgmma_wait(int32_t pending);
TESSEL_RT_EXPORT void tessel_emu_wgmma_store(uintptr_t acc, int32_t thread,
                                             int32_t m_tiles, int32_t n,
                                             uintptr_t dst,
                                             intptr_t row_stride,
                                             intptr_t column_stride);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_RUNTIME_H */

/* Tessel CPU runtime: see tessel/runtime.h for the contract of each helper. */

/* posix_memalign and clock_gettime are POSIX, not ISO C11. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "tessel/runtime.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The any-rank view is only sound if it lines up with the typed structs. */
_Static_assert(offsetof(tessel_memref_view, sizes_and_strides) ==
                   offsetof(tessel_memref_f32_2d, sizes),
               "memref view must overlay ranked descriptors");
_Static_assert(offsetof(tessel_memref_f32_2d, strides) ==
                   offsetof(tessel_memref_f32_2d, sizes) + 2 * sizeof(int64_t),
               "strides must follow sizes without padding");
_Static_assert(sizeof(tessel_memref_f32_0d) == 24, "rank-0 descriptor layout");

/* ------------------------------------------------------------------------- */
/* Aligned allocation                                                        */
/* ------------------------------------------------------------------------- */

void *tessel_aligned_alloc(size_t count, size_t element_size,
                           size_t alignment) {
  if (alignment == 0)
    alignment = TESSEL_DEFAULT_ALIGNMENT;
  if ((alignment & (alignment - 1)) != 0)
    return NULL;
  /* posix_memalign also wants a multiple of sizeof(void *). */
  if (alignment < sizeof(void *))
    alignment = sizeof(void *);
  if (element_size != 0 && count > SIZE_MAX / element_size)
    return NULL;
  size_t byte_count = count * element_size;
  if (byte_count == 0)
    byte_count = 1;
  void *ptr = NULL;
  if (posix_memalign(&ptr, alignment, byte_count) != 0)
    return NULL;
  return ptr;
}

void *tessel_alloc(size_t byte_count) {
  return tessel_aligned_alloc(byte_count, 1, TESSEL_DEFAULT_ALIGNMENT);
}

void tessel_free(void *ptr) { free(ptr); }

/* ------------------------------------------------------------------------- */
/* Timing                                                                    */
/* ------------------------------------------------------------------------- */

double tessel_now_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static int compare_doubles(const void *lhs, const void *rhs) {
  double a = *(const double *)lhs, b = *(const double *)rhs;
  return (a > b) - (a < b);
}

double tessel_median(const double *values, size_t count) {
  if (count == 0)
    return NAN;
  double *sorted = malloc(count * sizeof(double));
  if (!sorted)
    return NAN;
  memcpy(sorted, values, count * sizeof(double));
  qsort(sorted, count, sizeof(double), compare_doubles);
  /* Halves first: the sum of two large values would overflow. */
  double low = sorted[(count - 1) / 2], high = sorted[count / 2];
  double median = (count % 2) ? high : 0.5 * low + 0.5 * high;
  free(sorted);
  return median;
}

/* ------------------------------------------------------------------------- */
/* Memref descriptors                                                        */
/* ------------------------------------------------------------------------- */

void tessel_memref_init_identity(void *descriptor, void *data, int64_t rank,
                                 const int64_t *sizes) {
  tessel_memref_view *view = descriptor;
  view->allocated = data;
  view->aligned = data;
  view->offset = 0;
  int64_t *out_sizes = view->sizes_and_strides;
  int64_t *out_strides = view->sizes_and_strides + rank;
  int64_t running_stride = 1;
  for (int64_t dim = rank - 1; dim >= 0; --dim) {
    out_sizes[dim] = sizes[dim];
    out_strides[dim] = running_stride;
    running_stride *= sizes[dim];
  }
}

int64_t tessel_num_elements(int64_t rank, const int64_t *sizes) {
  int64_t product = 1;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (sizes[dim] < 0)
      return -1;
    if (sizes[dim] != 0 && product > INT64_MAX / sizes[dim])
      return -1;
    product *= sizes[dim];
  }
  return product;
}

/* ------------------------------------------------------------------------- */
/* Test data                                                                 */
/* ------------------------------------------------------------------------- */

/* SplitMix64 finaliser: a strong 64-bit mix, so hashing (seed, index) gives
 * independent-looking values without any sequential generator state. */
static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= UINT64_C(0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= UINT64_C(0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

static uint64_t random_bits(uint64_t seed, size_t index) {
  return mix64(mix64(seed) + UINT64_C(0x9e3779b97f4a7c15) * ((uint64_t)index + 1));
}

void tessel_fill_random_f32(float *data, size_t count, uint64_t seed) {
  for (size_t i = 0; i < count; ++i) {
    /* 24 random bits map exactly onto float's mantissa: every value is
     * representable, so no rounding can produce +1.0. */
    uint32_t bits = (uint32_t)(random_bits(seed, i) >> 40);
    data[i] = (float)bits * (2.0f / 16777216.0f) - 1.0f;
  }
}

void tessel_fill_random_f64(double *data, size_t count, uint64_t seed) {
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = random_bits(seed, i) >> 11; /* 53 bits, exact in double */
    data[i] = (double)bits * (2.0 / 9007199254740992.0) - 1.0;
  }
}

static void print_shape_prefix(const char *label, const char *type_name,
                               int64_t rank, const int64_t *shape) {
  printf("%s: %s[", label ? label : "buffer", type_name);
  for (int64_t dim = 0; dim < rank; ++dim)
    printf(dim ? "x%lld" : "%lld", (long long)shape[dim]);
  printf("] = [");
}

static void print_suffix(size_t shown, size_t total) {
  if (shown < total)
    printf("%s...", shown ? ", " : "");
  printf("] (%zu elements)\n", total);
}

void tessel_print_buffer_f32(const char *label, const float *data,
                             int64_t rank, const int64_t *shape,
                             size_t max_elements) {
  int64_t total = tessel_num_elements(rank, shape);
  size_t count = total < 0 ? 0 : (size_t)total;
  size_t shown = count < max_elements ? count : max_elements;
  print_shape_prefix(label, "f32", rank, shape);
  for (size_t i = 0; i < shown; ++i)
    printf(i ? ", %g" : "%g", (double)data[i]);
  print_suffix(shown, count);
}

void tessel_print_buffer_f64(const char *label, const double *data,
                             int64_t rank, const int64_t *shape,
                             size_t max_elements) {
  int64_t total = tessel_num_elements(rank, shape);
  size_t count = total < 0 ? 0 : (size_t)total;
  size_t shown = count < max_elements ? count : max_elements;
  print_shape_prefix(label, "f64", rank, shape);
  for (size_t i = 0; i < shown; ++i)
    printf(i ? ", %.17g" : "%.17g", data[i]);
  print_suffix(shown, count);
}

static void reset_stats(tessel_compare_stats *stats) {
  stats->mismatch_count = 0;
  stats->first_mismatch_index = SIZE_MAX;
  stats->first_mismatch_actual = 0.0;
  stats->first_mismatch_expected = 0.0;
  stats->max_abs_error = 0.0;
  stats->max_rel_error = 0.0;
  stats->max_rel_error_index = SIZE_MAX;
}

/* One element of a comparison; shared by every element-type combination so
 * they cannot drift apart in what they call a match. */
static void compare_element(tessel_compare_stats *stats, size_t index,
                            double actual, double expected, double rel_tol,
                            double abs_tol) {
  bool matches;
  double abs_error, rel_error;
  if (isnan(actual) || isnan(expected)) {
    matches = isnan(actual) && isnan(expected);
    abs_error = rel_error = matches ? 0.0 : INFINITY;
  } else if (isinf(actual) || isinf(expected)) {
    matches = actual == expected;
    abs_error = rel_error = matches ? 0.0 : INFINITY;
  } else {
    abs_error = fabs(actual - expected);
    double scale = fmax(fabs(expected), abs_tol);
    rel_error = scale > 0.0 ? abs_error / scale
                            : (abs_error > 0.0 ? INFINITY : 0.0);
    matches = abs_error <= abs_tol + rel_tol * fabs(expected);
  }
  if (abs_error > stats->max_abs_error)
    stats->max_abs_error = abs_error;
  if (rel_error > stats->max_rel_error ||
      stats->max_rel_error_index == SIZE_MAX) {
    stats->max_rel_error = rel_error;
    stats->max_rel_error_index = index;
  }
  if (matches)
    return;
  if (stats->mismatch_count++ == 0) {
    stats->first_mismatch_index = index;
    stats->first_mismatch_actual = actual;
    stats->first_mismatch_expected = expected;
  }
}

static size_t finish_compare(const char *label, size_t count,
                             const tessel_compare_stats *local,
                             tessel_compare_stats *stats) {
  if (label && local->mismatch_count > 0)
    fprintf(stderr,
            "%s: %zu of %zu elements mismatch; first at [%zu]: got %.9g, "
            "expected %.9g; max relative error %.3e at [%zu]\n",
            label, local->mismatch_count, count, local->first_mismatch_index,
            local->first_mismatch_actual, local->first_mismatch_expected,
            local->max_rel_error, local->max_rel_error_index);
  if (stats)
    *stats = *local;
  return local->mismatch_count;
}

size_t tessel_compare_f32(const char *label, const float *actual,
                          const double *expected, size_t count, double rel_tol,
                          double abs_tol, tessel_compare_stats *stats) {
  tessel_compare_stats local;
  reset_stats(&local);
  for (size_t i = 0; i < count; ++i)
    compare_element(&local, i, (double)actual[i], expected[i], rel_tol,
                    abs_tol);
  return finish_compare(label, count, &local, stats);
}

size_t tessel_compare_f64(const char *label, const double *actual,
                          const double *expected, size_t count, double rel_tol,
                          double abs_tol, tessel_compare_stats *stats) {
  tessel_compare_stats local;
  reset_stats(&local);
  for (size_t i = 0; i < count; ++i)
    compare_element(&local, i, actual[i], expected[i], rel_tol, abs_tol);
  return finish_compare(label, count, &local, stats);
}

size_t tessel_compare_f32_f32(const char *label, const float *actual,
                              const float *expected, size_t count,
                              double rel_tol, double abs_tol,
                              tessel_compare_stats *stats) {
  tessel_compare_stats local;
  reset_stats(&local);
  for (size_t i = 0; i < count; ++i)
    compare_element(&local, i, (double)actual[i], (double)expected[i], rel_tol,
                    abs_tol);
  return finish_compare(label, count, &local, stats);
}

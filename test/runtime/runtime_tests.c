/* Unit tests for the Tessel CPU runtime (tessel/runtime.h).
 * One "PASS:"/"FAIL:" line per check, then "runtime: N passed, M failed";
 * exits non-zero if anything failed. Driven by test/runtime/runtime.test. */

#include "tessel/runtime.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int passed_count = 0;
static int failed_count = 0;

static void check(bool condition, const char *description) {
  printf("%s: %s\n", condition ? "PASS" : "FAIL", description);
  if (condition)
    ++passed_count;
  else
    ++failed_count;
}

static bool is_aligned(const void *ptr, size_t alignment) {
  return ((uintptr_t)ptr % alignment) == 0;
}

static void test_aligned_allocation(void) {
  bool all_aligned = true;
  const size_t sizes[] = {0, 1, 3, 63, 64, 65, 4097, 1 << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    unsigned char *ptr = tessel_alloc(sizes[i]);
    all_aligned = all_aligned && ptr && is_aligned(ptr, 64);
    if (ptr && sizes[i])
      ptr[sizes[i] - 1] = 1; /* whole range must be usable */
    tessel_free(ptr);
  }
  check(all_aligned, "tessel_alloc returns 64-byte aligned memory");

  float *page_aligned = tessel_aligned_alloc(1000, sizeof(float), 4096);
  check(page_aligned && is_aligned(page_aligned, 4096),
        "tessel_aligned_alloc honours a 4096-byte alignment");
  tessel_free(page_aligned);

  double *defaulted = tessel_aligned_alloc(7, sizeof(double), 0);
  check(defaulted && is_aligned(defaulted, TESSEL_DEFAULT_ALIGNMENT),
        "alignment 0 means the 64-byte default");
  tessel_free(defaulted);

  check(tessel_aligned_alloc(SIZE_MAX / 2, 4, 64) == NULL,
        "count * element_size overflow returns NULL");
  check(tessel_aligned_alloc(16, 4, 48) == NULL,
        "non-power-of-two alignment returns NULL");
  tessel_free(NULL);
  check(true, "tessel_free(NULL) is a no-op");
}

static void test_memref_descriptors(void) {
  /* Layout must match MLIR's StridedMemRefType<T, N>. */
  check(offsetof(tessel_memref_f32_2d, allocated) == 0 &&
            offsetof(tessel_memref_f32_2d, aligned) == sizeof(void *) &&
            offsetof(tessel_memref_f32_2d, offset) == 2 * sizeof(void *) &&
            offsetof(tessel_memref_f32_2d, sizes) == 2 * sizeof(void *) + 8 &&
            offsetof(tessel_memref_f32_2d, strides) ==
                2 * sizeof(void *) + 8 + 2 * 8 &&
            sizeof(tessel_memref_f32_2d) == 2 * sizeof(void *) + 8 + 4 * 8,
        "memref descriptor layout matches StridedMemRefType");
  check(sizeof(TESSEL_MEMREF_TYPE(f64, double, 3)) == sizeof(tessel_memref_f64_3d) &&
            sizeof(tessel_memref_f64_3d) == 2 * sizeof(void *) + 8 + 6 * 8,
        "TESSEL_MEMREF_TYPE names the ranked typedef");

  float storage[2 * 3 * 4 * 5];
  tessel_memref_f32_1d d1;
  tessel_memref_f32_init_1d(&d1, storage, 7);
  check(d1.allocated == storage && d1.aligned == storage && d1.offset == 0 &&
            d1.sizes[0] == 7 && d1.strides[0] == 1,
        "init_1d: pointers, offset 0, stride 1");

  tessel_memref_f32_2d d2;
  tessel_memref_f32_init_2d(&d2, storage, 3, 4);
  check(d2.sizes[0] == 3 && d2.sizes[1] == 4 && d2.strides[0] == 4 &&
            d2.strides[1] == 1,
        "init_2d: row-major strides {4, 1}");

  tessel_memref_f32_3d d3;
  tessel_memref_f32_init_3d(&d3, storage, 2, 3, 4);
  check(d3.strides[0] == 12 && d3.strides[1] == 4 && d3.strides[2] == 1,
        "init_3d: row-major strides {12, 4, 1}");

  tessel_memref_f32_4d d4;
  tessel_memref_f32_init_4d(&d4, storage, 2, 3, 4, 5);
  check(d4.sizes[3] == 5 && d4.strides[0] == 60 && d4.strides[1] == 20 &&
            d4.strides[2] == 5 && d4.strides[3] == 1,
        "init_4d: row-major strides {60, 20, 5, 1}");

  int32_t ints[6];
  tessel_memref_i32_2d di;
  tessel_memref_i32_init_2d(&di, ints, 2, 3);
  check(di.aligned == ints && di.strides[0] == 3 && di.strides[1] == 1,
        "init helpers exist for integer element types");

  /* A rank beyond the typed helpers, through the generic entry point. */
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[5], strides[5];
  } d5;
  const int64_t sizes5[5] = {2, 1, 3, 1, 2};
  tessel_memref_init_identity(&d5, storage, 5, sizes5);
  check(d5.strides[0] == 6 && d5.strides[1] == 6 && d5.strides[2] == 2 &&
            d5.strides[3] == 2 && d5.strides[4] == 1 && d5.sizes[2] == 3,
        "tessel_memref_init_identity handles rank 5");

  tessel_memref_f64_0d d0;
  double scalar = 0.0;
  tessel_memref_init_identity(&d0, &scalar, 0, NULL);
  check(d0.aligned == &scalar && d0.offset == 0,
        "tessel_memref_init_identity handles rank 0");

  const int64_t shape[3] = {4, 0, 9}, big[2] = {INT64_MAX / 2, 3};
  check(tessel_num_elements(2, sizes5) == 2 &&
            tessel_num_elements(5, sizes5) == 12 &&
            tessel_num_elements(3, shape) == 0 &&
            tessel_num_elements(0, NULL) == 1 &&
            tessel_num_elements(2, big) == -1,
        "tessel_num_elements: products, empty, rank 0, overflow");
}

static void test_random_fill(void) {
  enum { count = 4096 };
  static float first[count], second[count], other_seed[count];
  tessel_fill_random_f32(first, count, 42);
  tessel_fill_random_f32(second, count, 42);
  tessel_fill_random_f32(other_seed, count, 43);
  check(memcmp(first, second, sizeof first) == 0,
        "fill_random_f32 is reproducible for a seed");
  check(memcmp(first, other_seed, sizeof first) != 0,
        "fill_random_f32 differs between seeds");

  bool in_range = true;
  double sum = 0.0, minimum = 1.0, maximum = -1.0;
  for (int i = 0; i < count; ++i) {
    in_range = in_range && first[i] >= -1.0f && first[i] < 1.0f;
    sum += first[i];
    minimum = fmin(minimum, first[i]);
    maximum = fmax(maximum, first[i]);
  }
  check(in_range, "fill_random_f32 values lie in [-1, 1)");
  check(fabs(sum / count) < 0.05 && minimum < -0.9 && maximum > 0.9,
        "fill_random_f32 spreads over the range (mean ~0)");

  float prefix[16];
  tessel_fill_random_f32(prefix, 16, 42);
  check(memcmp(prefix, first, sizeof prefix) == 0,
        "fill_random_f32 values do not depend on the buffer length");

  static double doubles[count];
  tessel_fill_random_f64(doubles, count, 7);
  bool doubles_in_range = true;
  for (int i = 0; i < count; ++i)
    doubles_in_range = doubles_in_range && doubles[i] >= -1.0 && doubles[i] < 1.0;
  check(doubles_in_range && doubles[0] != doubles[1],
        "fill_random_f64 values lie in [-1, 1)");
}

static void test_compare(void) {
  enum { count = 100 };
  float actual[count];
  double expected[count];
  for (int i = 0; i < count; ++i) {
    expected[i] = 0.5 + i * 0.25;
    actual[i] = (float)expected[i];
  }
  tessel_compare_stats stats;
  check(tessel_compare_f32("exact", actual, expected, count, 1e-6, 1e-7,
                           &stats) == 0 &&
            stats.mismatch_count == 0 && stats.first_mismatch_index == SIZE_MAX,
        "compare accepts identical buffers");

  /* Off by 1e-5 relative: inside rel_tol 1e-4, outside 1e-6. */
  actual[10] = (float)(expected[10] * (1.0 + 1e-5));
  check(tessel_compare_f32("within", actual, expected, count, 1e-4, 0.0,
                           &stats) == 0 &&
            stats.max_rel_error > 5e-6 && stats.max_rel_error < 2e-5 &&
            stats.max_rel_error_index == 10,
        "compare accepts an error within tolerance and reports it");

  /* Planted mismatches at 37 and 80; the first one must be reported. */
  actual[37] = (float)(expected[37] + 1.0);
  actual[80] = (float)(expected[80] * 2.0);
  size_t mismatches = tessel_compare_f32(NULL, actual, expected, count, 1e-4,
                                         1e-6, &stats);
  check(mismatches == 2 && stats.mismatch_count == 2 &&
            stats.first_mismatch_index == 37 &&
            stats.first_mismatch_actual == (double)actual[37] &&
            stats.first_mismatch_expected == expected[37],
        "compare detects planted mismatches and reports the first index");
  check(stats.max_rel_error_index == 80 && fabs(stats.max_rel_error - 1.0) < 1e-6,
        "compare reports the max relative error and where it is");

  /* The absolute tolerance covers near-zero references. */
  float tiny_actual[2] = {1e-9f, -1e-9f};
  double zeros[2] = {0.0, 0.0};
  check(tessel_compare_f32(NULL, tiny_actual, zeros, 2, 1e-3, 1e-6, NULL) == 0 &&
            tessel_compare_f32(NULL, tiny_actual, zeros, 2, 1e-3, 0.0, NULL) == 2,
        "compare uses the absolute tolerance near zero");

  float specials[3] = {NAN, INFINITY, 1.0f};
  double special_expected[3] = {NAN, INFINITY, NAN};
  check(tessel_compare_f32(NULL, specials, special_expected, 3, 1e-3, 1e-3,
                           &stats) == 1 &&
            stats.first_mismatch_index == 2,
        "compare: NaN matches only NaN, equal infinities match");

  float reference[3] = {1.0f, 2.0f, 3.0f}, result[3] = {1.0f, 2.0f, 3.5f};
  double result_f64[3] = {1.0, 2.0, 3.0};
  check(tessel_compare_f32_f32(NULL, result, reference, 3, 1e-3, 0.0, &stats) == 1 &&
            stats.first_mismatch_index == 2 &&
            tessel_compare_f64(NULL, result_f64, result_f64, 3, 0.0, 0.0, NULL) == 0,
        "compare_f32_f32 and compare_f64 share the same rules");
}

static void test_median_and_timing(void) {
  const double odd[5] = {9.0, 1.0, 5.0, 3.0, 7.0};
  const double even[4] = {4.0, 1.0, 3.0, 2.0};
  const double single[1] = {2.5};
  check(tessel_median(odd, 5) == 5.0, "median of an odd count");
  check(tessel_median(even, 4) == 2.5, "median of an even count averages");
  const double huge[] = {1e308, 1e308};
  check(tessel_median(huge, 2) == 1e308,
        "median of large values does not overflow");
  check(tessel_median(single, 1) == 2.5 && isnan(tessel_median(odd, 0)),
        "median of one value, NaN for none");
  check(odd[0] == 9.0 && odd[1] == 1.0 && odd[4] == 7.0,
        "median leaves its input unchanged");

  double start = tessel_now_seconds();
  volatile double sink = 0.0;
  for (int i = 0; i < 1000000; ++i)
    sink += i * 0.5;
  double end = tessel_now_seconds();
  check(start > 0.0 && end > start && end - start < 10.0,
        "tessel_now_seconds is monotonic and in seconds");
}

static void test_print(void) {
  const float values[6] = {1.0f, -2.5f, 0.125f, 4.0f, 5.0f, 6.0f};
  const int64_t shape[2] = {2, 3};
  tessel_print_buffer_f32("matrix", values, 2, shape, 4);
  tessel_print_buffer_f32("short", values, 1, shape + 1, 10);
  const double scalar = 0.5;
  tessel_print_buffer_f64("scalar", &scalar, 0, NULL, 4);
  check(true, "print helpers ran (output checked by FileCheck)");
}

int main(void) {
  test_aligned_allocation();
  test_memref_descriptors();
  test_random_fill();
  test_compare();
  test_median_and_timing();
  test_print();
  printf("runtime: %d passed, %d failed\n", passed_count, failed_count);
  return failed_count == 0 ? 0 : 1;
}

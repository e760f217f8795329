/* Shared helpers for Tessel's integration harnesses.
 *
 * A harness is compiled with `-include <generated header>`, so the entry
 * points it calls are declared by tessel-compile itself; a header that does
 * not match the compiled code fails to compile or fails the comparison.
 *
 * Every check compares against a reference computed in double precision and
 * prints `PASS <name> <shape> ...` or `FAIL <name> <shape> ...`; main returns
 * harness_finish(), non-zero when any check failed. `--corrupt` perturbs one
 * element of every result before it is compared, so the test suite can check
 * that a wrong result is caught (prints FAIL, exits non-zero). */
#ifndef TESSEL_TEST_HARNESS_H
#define TESSEL_TEST_HARNESS_H

#include "tessel/runtime.h"
#ifdef HARNESS_GPU_MANAGED
/* GPU targets: kernels read and write the caller's buffers directly, so every
 * buffer is CUDA managed memory (visible to host and device). */
#include "tessel/gpu_runtime.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static __attribute__((unused)) int g_corrupt = 0;
static __attribute__((unused)) int g_checks = 0;
static __attribute__((unused)) int g_failures = 0;

static __attribute__((unused)) void harness_init(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--corrupt")) {
      g_corrupt = 1;
    } else {
      fprintf(stderr, "usage: %s [--corrupt]\n", argv[0]);
      exit(2);
    }
  }
}

#ifndef HARNESS_GPU_MANAGED
/* On the CPU every buffer ends at most 63 bytes before an inaccessible
 * page, so that a kernel reading or writing past a buffer's end (an edge
 * tile's missing guard) crashes instead of reading whatever follows, which
 * the comparison would not see. Buffers stay 64-byte aligned. The mapping's
 * start and length sit in the 64 bytes before the buffer.
 * TESSEL_HARNESS_GUARD=0 turns it off. */
#include <sys/mman.h>
#include <unistd.h>

static int harness_guarded(void) {
  const char *setting = getenv("TESSEL_HARNESS_GUARD");
  return !setting || strcmp(setting, "0") != 0;
}

static void *harness_guarded_alloc(size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t rounded = (bytes + 63) / 64 * 64;
  size_t before = (rounded + 64 + page - 1) / page * page;
  size_t total = before + page;
  char *base = mmap(NULL, total, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return NULL;
  if (mprotect(base + before, page, PROT_NONE) != 0) {
    munmap(base, total);
    return NULL;
  }
  char *p = base + before - rounded;
  memcpy(p - 64, &base, sizeof base);
  memcpy(p - 64 + sizeof base, &total, sizeof total);
  return p;
}

static void harness_guarded_free(void *p) {
  char *base;
  size_t total;
  memcpy(&base, (char *)p - 64, sizeof base);
  memcpy(&total, (char *)p - 64 + sizeof base, sizeof total);
  munmap(base, total);
}
#endif

static __attribute__((unused)) void *harness_alloc(size_t count, size_t size) {
#ifdef HARNESS_GPU_MANAGED
  return mgpuMemAlloc((uint64_t)(count ? count : 1) * size, NULL, true);
#else
  if (harness_guarded())
    return harness_guarded_alloc((count ? count : 1) * size);
  return tessel_aligned_alloc(count, size, 0);
#endif
}

static __attribute__((unused)) void harness_free(void *p) {
#ifdef HARNESS_GPU_MANAGED
  mgpuMemFree(p, NULL);
#else
  if (!p)
    return;
  if (harness_guarded())
    harness_guarded_free(p);
  else
    tessel_free(p);
#endif
}

static __attribute__((unused)) float *alloc_f32(size_t count) {
  float *p = (float *)harness_alloc(count, sizeof(float));
  if (!p) {
    fprintf(stderr, "FAIL: out of memory (%zu floats)\n", count);
    exit(1);
  }
  return p;
}

static __attribute__((unused)) double *alloc_f64(size_t count) {
  double *p = (double *)harness_alloc(count, sizeof(double));
  if (!p) {
    fprintf(stderr, "FAIL: out of memory (%zu doubles)\n", count);
    exit(1);
  }
  return p;
}

/* A float buffer filled with pseudo-random values in [lo, hi). */
static __attribute__((unused)) float *random_f32(size_t count, uint64_t seed, float lo, float hi) {
  float *p = alloc_f32(count);
  tessel_fill_random_f32(p, count, seed); /* [-1, 1) */
  for (size_t i = 0; i < count; ++i)
    p[i] = lo + (p[i] + 1.0f) * 0.5f * (hi - lo);
  return p;
}

/* Fills result buffers with NaN so that unwritten elements fail. */
static __attribute__((unused)) void poison_f32(float *p, size_t count) {
  for (size_t i = 0; i < count; ++i)
    p[i] = NAN;
}

static __attribute__((unused)) int report(const char *name, const char *shape, size_t bad, size_t count,
                  const tessel_compare_stats *st) {
  ++g_checks;
  if (bad) {
    ++g_failures;
    printf("FAIL %s %s: %zu of %zu elements differ (first at %zu: got %.9g, "
           "expected %.9g; max rel err %.3g)\n",
           name, shape, bad, count, st->first_mismatch_index,
           st->first_mismatch_actual, st->first_mismatch_expected,
           st->max_rel_error);
    return 0;
  }
  printf("PASS %s %s (max rel err %.2e)\n", name, shape, st->max_rel_error);
  return 1;
}

/* Compares a float result with a double reference. */
static __attribute__((unused)) int check_f32(const char *name, const char *shape, float *actual,
                     const double *expected, size_t count, double rel_tol,
                     double abs_tol) {
  if (g_corrupt && count)
    actual[count / 2] += 0.5f + 0.5f * fabsf(actual[count / 2]);
  tessel_compare_stats st;
  size_t bad = tessel_compare_f32(name, actual, expected, count, rel_tol,
                                  abs_tol, &st);
  return report(name, shape, bad, count, &st);
}

static __attribute__((unused)) int check_f64(const char *name, const char *shape, double *actual,
                     const double *expected, size_t count, double rel_tol,
                     double abs_tol) {
  if (g_corrupt && count)
    actual[count / 2] += 0.5 + 0.5 * fabs(actual[count / 2]);
  tessel_compare_stats st;
  size_t bad = tessel_compare_f64(name, actual, expected, count, rel_tol,
                                  abs_tol, &st);
  return report(name, shape, bad, count, &st);
}

/* A scalar result. */
static __attribute__((unused)) int check_scalar(const char *name, const char *shape, double actual,
                        double expected, double rel_tol, double abs_tol) {
  if (g_corrupt)
    actual += 0.5 + 0.5 * fabs(actual);
  tessel_compare_stats st;
  size_t bad = tessel_compare_f64(name, &actual, &expected, 1, rel_tol, abs_tol,
                                  &st);
  return report(name, shape, bad, 1, &st);
}

/* Inputs must not be written by the call. */
static __attribute__((unused)) int check_unchanged(const char *name, const void *now,
                           const void *before, size_t bytes) {
  ++g_checks;
  if (memcmp(now, before, bytes) != 0) {
    ++g_failures;
    printf("FAIL %s: the call modified an input buffer\n", name);
    return 0;
  }
  return 1;
}

static __attribute__((unused)) float *copy_f32(const float *src, size_t count) {
  float *p = alloc_f32(count);
  memcpy(p, src, count * sizeof(float));
  return p;
}

/* ref = c0 + a * b for row-major a[m][k], b[k][n] (c0 may be NULL), in
 * double, i-p-j order so it vectorizes. */
static __attribute__((unused)) double *matmul_reference(const float *a, const float *b,
                                                        const float *c0, int64_t m,
                                                        int64_t k, int64_t n) {
  double *ref = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m * n; ++i)
    ref[i] = c0 ? (double)c0[i] : 0.0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      double x = a[i * k + p];
      for (int64_t j = 0; j < n; ++j)
        ref[i * n + j] += x * (double)b[p * n + j];
    }
  return ref;
}

/* Row softmax of x[m][n] in double (max subtracted first). */
static __attribute__((unused)) double *softmax_reference(const float *x, int64_t m,
                                                         int64_t n) {
  double *ref = alloc_f64((size_t)(m * n));
  for (int64_t i = 0; i < m; ++i) {
    double mx = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j < n; ++j)
      if ((double)x[i * n + j] > mx)
        mx = (double)x[i * n + j];
    for (int64_t j = 0; j < n; ++j)
      sum += exp((double)x[i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j)
      ref[i * n + j] = exp((double)x[i * n + j] - mx) / sum;
  }
  return ref;
}

/* Runs `softmax` (an entry point taking x[m][n] and writing y[m][n]) on
 * values in [-8, 8) with one row whose naive exp would overflow, and
 * checks it against softmax_reference. The output starts `out_offset`
 * floats into its allocation (a misaligned buffer for a nonzero offset:
 * code that streams its stores must fall back to regular ones). */
static __attribute__((unused)) void check_softmax_at(
    const char *shape, int64_t m, int64_t n, uint64_t seed,
    void (*softmax)(tessel_memref_f32_2d *, tessel_memref_f32_2d *),
    size_t out_offset) {
  const size_t count = (size_t)(m * n);
  float *x = random_f32(count, seed, -8.0f, 8.0f);
  x[3] = 80.0f;
  float *y_alloc = alloc_f32(count + out_offset);
  float *y = y_alloc + out_offset;
  poison_f32(y, count);
  double *ref = softmax_reference(x, m, n);
  tessel_memref_f32_2d dx, dy;
  tessel_memref_f32_init_2d(&dx, x, m, n);
  tessel_memref_f32_init_2d(&dy, y, m, n);
  softmax(&dx, &dy);
  check_f32("softmax", shape, y, ref, count, 2e-5, 1e-9);
  harness_free(x); harness_free(y_alloc); harness_free(ref);
}

static __attribute__((unused)) void check_softmax(
    const char *shape, int64_t m, int64_t n, uint64_t seed,
    void (*softmax)(tessel_memref_f32_2d *, tessel_memref_f32_2d *)) {
  check_softmax_at(shape, m, n, seed, softmax, 0);
}

static __attribute__((unused)) int harness_finish(void) {
#ifdef HARNESS_GPU_MANAGED
  /* A failure the CUDA runtime reported (generated code cannot see one)
   * fails the run even where the results came out right. */
  if (tessel_cuda_error_count()) {
    printf("FAIL: the CUDA runtime reported %llu error(s), the last: %s\n",
           (unsigned long long)tessel_cuda_error_count(),
           tessel_cuda_last_error());
    return 1;
  }
#endif
  if (g_failures) {
    printf("FAIL: %d of %d checks failed\n", g_failures, g_checks);
    return 1;
  }
  printf("ALL %d CHECKS PASSED\n", g_checks);
  return 0;
}

#endif /* TESSEL_TEST_HARNESS_H */

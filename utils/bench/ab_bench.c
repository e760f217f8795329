/* tessel-ab: times two builds of the same Tessel function against each
 * other in one process (interleaved, median of rounds), to measure what a
 * compiler change does to one workload. Both .so files export
 * _mlir_ciface_<func>(x, w, y) over 4-D f32 memrefs (the convolution
 * workloads tessel-bench generates); the outputs of the two builds are
 * compared before timing, with tessel-bench's tolerance.
 *
 *   tessel-ab A.so B.so FUNC XSHAPE WSHAPE YSHAPE [CALLS] [ROUNDS] [THREADS]
 *   e.g. tessel-ab new.so old.so conv_nhwc_s1_3x3_b1 \
 *        1x56x56x64 3x3x64x64 1x56x56x64 200 5 1,2
 *
 * Prints, per thread count, the median milliseconds per call of A and B
 * and A/B (below 1: A is faster). utils/bench/run-conv-ab.sh builds the
 * two .so files from one workload and two pipelines. */
#include "tessel/runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*conv_fn)(tessel_memref_f32_4d *, tessel_memref_f32_4d *,
                        tessel_memref_f32_4d *);

static int parse_shape(const char *s, int64_t dims[4]) {
  return sscanf(s, "%ldx%ldx%ldx%ld", &dims[0], &dims[1], &dims[2],
                &dims[3]) == 4 ? 0 : -1;
}

/* A contiguous 4-d f32 memref of random values from `seed`. */
static tessel_memref_f32_4d make(const int64_t d[4], uint64_t seed) {
  tessel_memref_f32_4d m;
  size_t n = (size_t)tessel_num_elements(4, d);
  float *data = tessel_aligned_alloc(n, sizeof(float), 0);
  if (!data) {
    fprintf(stderr, "tessel-ab: out of memory\n");
    exit(1);
  }
  tessel_fill_random_f32(data, n, seed);
  tessel_memref_init_identity(&m, data, 4, d);
  return m;
}

/* _mlir_ciface_<func> of the library at `path` (opened into *handle). */
static conv_fn load(const char *path, const char *func, void **handle) {
  void *h = *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "tessel-ab: %s\n", dlerror());
    exit(1);
  }
  char name[512];
  snprintf(name, sizeof name, "_mlir_ciface_%s", func);
  conv_fn f = (conv_fn)dlsym(h, name);
  if (!f) {
    fprintf(stderr, "tessel-ab: %s has no %s\n", path, name);
    exit(1);
  }
  return f;
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: tessel-ab A.so B.so FUNC XSHAPE WSHAPE YSHAPE "
                    "[CALLS] [ROUNDS] [THREADS]\n");
    return 2;
  }
  int64_t xd[4], wd[4], yd[4];
  if (parse_shape(argv[4], xd) || parse_shape(argv[5], wd) ||
      parse_shape(argv[6], yd)) {
    fprintf(stderr, "tessel-ab: shapes are AxBxCxD\n");
    return 2;
  }
  int calls = argc > 7 ? atoi(argv[7]) : 100;
  int rounds = argc > 8 ? atoi(argv[8]) : 5;
  const char *threads = argc > 9 ? argv[9] : "1";
  if (calls < 1 || rounds < 1 || rounds > 99) {
    fprintf(stderr, "tessel-ab: CALLS >= 1, 1 <= ROUNDS <= 99\n");
    return 2;
  }
  void *handle_a, *handle_b;
  conv_fn fa = load(argv[1], argv[3], &handle_a);
  conv_fn fb = load(argv[2], argv[3], &handle_b);
  /* The OpenMP runtime the Tessel code links (a dependency of the .so). */
  void (*set_threads)(int) =
      (void (*)(int))dlsym(handle_a, "omp_set_num_threads");
  if (!set_threads) {
    fprintf(stderr, "tessel-ab: no omp_set_num_threads in %s's "
                    "dependencies\n", argv[1]);
    return 1;
  }
  tessel_memref_f32_4d x = make(xd, 1), w = make(wd, 2), ya = make(yd, 3),
                       yb = make(yd, 4);
  fa(&x, &w, &ya);
  fb(&x, &w, &yb);
  size_t n = (size_t)tessel_num_elements(4, yd);
  /* As tessel-bench checks against its reference: 1e-4 relative, or 1e-4
   * of the output's root mean square absolute, so that outputs near zero
   * (sums of thousands of random products that cancel) may differ by what
   * reassociating the sum changes. */
  double sum_sq = 0;
  for (size_t i = 0; i < n; ++i)
    sum_sq += (double)yb.aligned[i] * yb.aligned[i];
  double rms = n ? sqrt(sum_sq / (double)n) : 0;
  tessel_compare_stats stats;
  size_t mismatches =
      tessel_compare_f32_f32("tessel-ab: A vs B", ya.aligned, yb.aligned, n,
                             1e-4, 1e-4 * (rms > 0 ? rms : 1.0), &stats);
  printf("%s: A %s, B %s; outputs differ by at most %.2e (relative)\n",
         argv[3], argv[1], argv[2], stats.max_rel_error);
  if (mismatches) {
    printf("FAIL: the builds disagree\n");
    return 1;
  }
  char list[64];
  snprintf(list, sizeof list, "%s", threads);
  for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
    int nt = atoi(t);
    set_threads(nt);
    double ta[99], tb[99];
    for (int r = 0; r < rounds; ++r) {
      for (int side = 0; side < 2; ++side) {
        conv_fn f = side ? fb : fa;
        tessel_memref_f32_4d *y = side ? &yb : &ya;
        f(&x, &w, y); /* warm */
        double t0 = tessel_now_seconds();
        for (int c = 0; c < calls; ++c)
          f(&x, &w, y);
        (side ? tb : ta)[r] = (tessel_now_seconds() - t0) * 1e3 / calls;
      }
    }
    double ma = tessel_median(ta, (size_t)rounds);
    double mb = tessel_median(tb, (size_t)rounds);
    printf("%dT: A %.3f ms, B %.3f ms, A/B %.3f\n", nt, ma, mb, ma / mb);
  }
  return 0;
}

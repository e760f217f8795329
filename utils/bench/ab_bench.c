/* tessel-ab: times two builds of the same Tessel function against each
 * other in one process (interleaved, median of rounds), to measure what a
 * compiler change does to one workload. Both .so files export
 * _mlir_ciface_<func>(x, w, y) over contiguous f32 memrefs of rank 1 to 4
 * (the convolution and matmul workloads tessel-bench generates); the
 * outputs of the two builds are compared before timing, with
 * tessel-bench's tolerance.
 *
 *   tessel-ab A.so B.so FUNC XSHAPE WSHAPE YSHAPE [CALLS] [ROUNDS] [THREADS]
 *   (WSHAPE "-": the function takes (x, y) only, e.g. a pooling)
 *   e.g. tessel-ab new.so old.so conv_nhwc_s1_3x3_b1 \
 *        1x56x56x64 3x3x64x64 1x56x56x64 200 5 1,2
 *        tessel-ab new.so old.so matmul_1024x1024x1024 \
 *        1024x1024 1024x1024 1024x1024 10 5 1,2
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

/* An operand: the descriptor of its rank lies at the start of the rank-4
 * one, which is the largest (the arrays shrink with the rank). */
typedef struct operand {
  tessel_memref_f32_4d desc;
  int64_t rank;
  int64_t dims[4];
} operand;

typedef void (*kernel_fn)(void *, void *, void *);
typedef void (*kernel2_fn)(void *, void *);

/* WSHAPE "-": the function takes (x, y) only. */
static int g_no_w = 0;

static void call(kernel_fn f, operand *x, operand *w, void *y) {
  if (g_no_w)
    ((kernel2_fn)(void (*)(void))f)(&x->desc, y);
  else
    f(&x->desc, &w->desc, y);
}

/* "AxBx...": 1 to 4 positive sizes. */
static int parse_shape(const char *s, operand *o) {
  o->rank = 0;
  for (;;) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v <= 0 || o->rank == 4)
      return -1;
    o->dims[o->rank++] = v;
    if (*end == 0)
      return 0;
    if (*end != 'x')
      return -1;
    s = end + 1;
  }
}

/* A contiguous f32 memref of o's shape, random values from `seed`. */
static void make(operand *o, uint64_t seed) {
  size_t n = (size_t)tessel_num_elements(o->rank, o->dims);
  float *data = tessel_aligned_alloc(n, sizeof(float), 0);
  if (!data) {
    fprintf(stderr, "tessel-ab: out of memory\n");
    exit(1);
  }
  tessel_fill_random_f32(data, n, seed);
  tessel_memref_init_identity(&o->desc, data, o->rank, o->dims);
}

/* _mlir_ciface_<func> of the library at `path` (opened into *handle). */
static kernel_fn load(const char *path, const char *func, void **handle) {
  void *h = *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "tessel-ab: %s\n", dlerror());
    exit(1);
  }
  char name[512];
  snprintf(name, sizeof name, "_mlir_ciface_%s", func);
  kernel_fn f = (kernel_fn)dlsym(h, name);
  if (!f) {
    fprintf(stderr, "tessel-ab: %s has no %s\n", path, name);
    exit(1);
  }
  return f;
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: tessel-ab A.so B.so FUNC XSHAPE WSHAPE|- YSHAPE "
                    "[CALLS] [ROUNDS] [THREADS]\n");
    return 2;
  }
  operand x, w, ya, yb;
  g_no_w = !strcmp(argv[5], "-");
  if (parse_shape(argv[4], &x) ||
      (g_no_w ? parse_shape("1", &w) : parse_shape(argv[5], &w)) ||
      parse_shape(argv[6], &ya)) {
    fprintf(stderr, "tessel-ab: shapes are AxB... (1 to 4 sizes)\n");
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
  kernel_fn fa = load(argv[1], argv[3], &handle_a);
  kernel_fn fb = load(argv[2], argv[3], &handle_b);
  /* The OpenMP runtime the Tessel code links (a dependency of the .so). */
  void (*set_threads)(int) =
      (void (*)(int))dlsym(handle_a, "omp_set_num_threads");
  if (!set_threads) {
    fprintf(stderr, "tessel-ab: no omp_set_num_threads in %s's "
                    "dependencies\n", argv[1]);
    return 1;
  }
  yb = ya;
  make(&x, 1);
  make(&w, 2);
  make(&ya, 3);
  make(&yb, 4);
  call(fa, &x, &w, &ya.desc);
  call(fb, &x, &w, &yb.desc);
  const float *out_a = ya.desc.aligned, *out_b = yb.desc.aligned;
  size_t n = (size_t)tessel_num_elements(ya.rank, ya.dims);
  /* As tessel-bench checks against its reference: 1e-4 relative, or 1e-4
   * of the output's root mean square absolute, so that outputs near zero
   * (sums of thousands of random products that cancel) may differ by what
   * reassociating the sum changes. */
  double sum_sq = 0;
  for (size_t i = 0; i < n; ++i)
    sum_sq += (double)out_b[i] * out_b[i];
  double rms = n ? sqrt(sum_sq / (double)n) : 0;
  tessel_compare_stats stats;
  size_t mismatches =
      tessel_compare_f32_f32("tessel-ab: A vs B", out_a, out_b, n,
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
        kernel_fn f = side ? fb : fa;
        void *y = side ? &yb.desc : &ya.desc;
        call(f, &x, &w, y); /* warm */
        double t0 = tessel_now_seconds();
        for (int c = 0; c < calls; ++c)
          call(f, &x, &w, y);
        (side ? tb : ta)[r] = (tessel_now_seconds() - t0) * 1e3 / calls;
      }
    }
    double ma = tessel_median(ta, (size_t)rounds);
    double mb = tessel_median(tb, (size_t)rounds);
    printf("%dT: A %.3f ms, B %.3f ms, A/B %.3f\n", nt, ma, mb, ma / mb);
  }
  return 0;
}

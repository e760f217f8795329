/* tessel-ab: times two builds of the same Tessel function against each
 * other in one process (interleaved, median of rounds), to measure what a
 * compiler change does to one workload. Both .so files export
 * _mlir_ciface_<func>(x, w, y) over 4-D f32 memrefs (the convolution
 * workloads tessel-bench generates); the outputs of the two builds are
 * compared before timing.
 *
 *   tessel-ab A.so B.so FUNC XSHAPE WSHAPE YSHAPE [CALLS] [ROUNDS] [THREADS]
 *   e.g. tessel-ab new.so old.so conv_nhwc_s1_3x3_b1 \
 *        1x56x56x64 3x3x64x64 1x56x56x64 200 5 1,2
 *
 * Prints, per thread count, the median milliseconds per call of A and B
 * and A/B (below 1: A is faster). utils/bench/run-conv-ab.sh builds the
 * two .so files from one workload and two pipelines. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} memref4;
typedef void (*conv_fn)(memref4 *, memref4 *, memref4 *);

static int parse_shape(const char *s, int64_t dims[4]) {
  return sscanf(s, "%ldx%ldx%ldx%ld", &dims[0], &dims[1], &dims[2],
                &dims[3]) == 4 ? 0 : -1;
}

static memref4 make(const int64_t d[4], unsigned seed) {
  memref4 m;
  int64_t n = d[0] * d[1] * d[2] * d[3];
  m.allocated = m.aligned = aligned_alloc(64, (size_t)((n * 4 + 63) / 64 * 64));
  if (!m.allocated) {
    fprintf(stderr, "tessel-ab: out of memory\n");
    exit(1);
  }
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    m.aligned[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  m.offset = 0;
  for (int i = 0; i < 4; ++i)
    m.sizes[i] = d[i];
  m.strides[3] = 1;
  for (int i = 2; i >= 0; --i)
    m.strides[i] = m.strides[i + 1] * d[i + 1];
  return m;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void *handle_a;

static conv_fn load(const char *path, const char *func) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h && !handle_a)
    handle_a = h;
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
  conv_fn fa = load(argv[1], argv[3]), fb = load(argv[2], argv[3]);
  /* The OpenMP runtime the Tessel code links (a dependency of the .so). */
  void (*set_threads)(int) =
      (void (*)(int))dlsym(handle_a, "omp_set_num_threads");
  if (!set_threads) {
    fprintf(stderr, "tessel-ab: no omp_set_num_threads in %s's "
                    "dependencies\n", argv[1]);
    return 1;
  }
  memref4 x = make(xd, 1), w = make(wd, 2), ya = make(yd, 3), yb = make(yd, 4);
  fa(&x, &w, &ya);
  fb(&x, &w, &yb);
  int64_t n = yd[0] * yd[1] * yd[2] * yd[3];
  double maxdiff = 0, maxref = 0;
  for (int64_t i = 0; i < n; ++i) {
    maxdiff = fmax(maxdiff, fabs((double)ya.aligned[i] - yb.aligned[i]));
    maxref = fmax(maxref, fabs((double)yb.aligned[i]));
  }
  double rel = maxref > 0 ? maxdiff / maxref : maxdiff;
  printf("%s: A %s, B %s; outputs differ by at most %.2e (relative)\n",
         argv[3], argv[1], argv[2], rel);
  if (rel > 1e-4) {
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
        memref4 *y = side ? &yb : &ya;
        f(&x, &w, y); /* warm */
        double t0 = now();
        for (int c = 0; c < calls; ++c)
          f(&x, &w, y);
        (side ? tb : ta)[r] = (now() - t0) * 1e3 / calls;
      }
    }
    qsort(ta, rounds, sizeof *ta, by_value);
    qsort(tb, rounds, sizeof *tb, by_value);
    double ma = ta[rounds / 2], mb = tb[rounds / 2];
    printf("%dT: A %.3f ms (%.3f-%.3f), B %.3f ms (%.3f-%.3f), A/B %.3f\n",
           nt, ma, ta[0], ta[rounds - 1], mb, tb[0], tb[rounds - 1], ma / mb);
  }
  return 0;
}

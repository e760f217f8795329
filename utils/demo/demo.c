/* Tessel demo: runs Tessel-compiled kernels against plain C.
 *
 *   tessel-demo --matmul=matmul.so --blur=blur_x_blur_y.so [--runs=N]
 *
 * The shared libraries come from tessel-compile (utils/run-demo.sh builds
 * them from the .mlir files in utils/demo) and are loaded with dlopen, so this program
 * builds without them. For each workload it
 *   - computes a reference in double precision,
 *   - runs the Tessel-compiled function and a plain C version of the same
 *     computation (straightforward loops, no intrinsics, no blocking, no
 *     threads; built with clang -O3 -march=native as part of this file),
 *   - checks both results against the reference (max relative error),
 *   - times both (median of N runs after one warm-up run),
 * and prints one table row. Exit status is non-zero if a result is wrong.
 *
 * Both sides run single-threaded on the same inputs and the same kind of
 * caller-allocated output buffers, so the times are comparable. */
#define _POSIX_C_SOURCE 200809L

#include "tessel/runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Plain C versions --------------------------------------------------- */

/* C = A * B, row-major, i-k-j order so that the inner loop streams rows of B
 * and C (the order a C programmer writes for speed; the i-j-k dot-product
 * order is several times slower). */
__attribute__((noinline)) static void plain_matmul(const float *restrict a,
                                                   const float *restrict b,
                                                   float *restrict c, int m,
                                                   int k, int n) {
  for (int i = 0; i < m; ++i) {
    float *restrict crow = c + (size_t)i * n;
    for (int j = 0; j < n; ++j)
      crow[j] = 0.0f;
    for (int p = 0; p < k; ++p) {
      const float aip = a[(size_t)i * k + p];
      const float *restrict brow = b + (size_t)p * n;
      for (int j = 0; j < n; ++j)
        crow[j] += aip * brow[j];
    }
  }
}

/* The dot-product order: what the loop nest of linalg.matmul is (and what
 * Tessel's CPU pipeline currently emits). The inner loop walks a column of B
 * and is a strict sequential float reduction, so clang does not vectorize it
 * (no -ffast-math). Shown as a second baseline. */
__attribute__((noinline)) static void plain_matmul_ijk(const float *restrict a,
                                                       const float *restrict b,
                                                       float *restrict c, int m,
                                                       int k, int n) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0.0f;
      for (int p = 0; p < k; ++p)
        s += a[(size_t)i * k + p] * b[(size_t)p * n + j];
      c[(size_t)i * n + j] = s;
    }
}

/* 5-tap blur along x into tmp (3 x h x (w-4)), then along y into out
 * (3 x (h-4) x (w-4)). `tmp` is caller-provided scratch. */
__attribute__((noinline)) static void plain_blur(const float *restrict in,
                                                 float *restrict tmp,
                                                 float *restrict out, int h,
                                                 int w) {
  const float k0 = 0.0625f, k1 = 0.25f, k2 = 0.375f;
  const int wo = w - 4, ho = h - 4;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < h; ++i) {
      const float *restrict row = in + ((size_t)c * h + i) * w;
      float *restrict t = tmp + ((size_t)c * h + i) * wo;
      for (int j = 0; j < wo; ++j)
        t[j] = k0 * row[j] + k1 * row[j + 1] + k2 * row[j + 2] +
               k1 * row[j + 3] + k0 * row[j + 4];
    }
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < ho; ++i) {
      const float *restrict t = tmp + ((size_t)c * h + i) * wo;
      float *restrict o = out + ((size_t)c * ho + i) * wo;
      for (int j = 0; j < wo; ++j)
        o[j] = k0 * t[j] + k1 * t[j + wo] + k2 * t[j + 2 * wo] +
               k1 * t[j + 3 * wo] + k0 * t[j + 4 * wo];
    }
}

/* --- Helpers -------------------------------------------------------------- */

static float *alloc_f32(size_t n) {
  float *p = tessel_aligned_alloc(n, sizeof(float), 0);
  if (!p) {
    fprintf(stderr, "tessel-demo: out of memory\n");
    exit(2);
  }
  return p;
}

static double *alloc_f64(size_t n) {
  double *p = tessel_aligned_alloc(n, sizeof(double), 0);
  if (!p) {
    fprintf(stderr, "tessel-demo: out of memory\n");
    exit(2);
  }
  return p;
}

static void *load_symbol(const char *library, const char *symbol) {
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    fprintf(stderr, "tessel-demo: cannot load '%s': %s\n", library, dlerror());
    exit(2);
  }
  void *fn = dlsym(handle, symbol);
  if (!fn) {
    fprintf(stderr, "tessel-demo: '%s' has no symbol '%s'\n", library, symbol);
    exit(2);
  }
  return fn;
}

typedef struct Row {
  const char *workload;
  const char *baseline; /* what the plain C version is */
  char shape[64];
  bool correct, c_correct;
  double max_rel_err, c_max_rel_err;
  double tessel_ms, c_ms;
  double gflop;
} Row;

static int g_runs = 10;

/* Median wall time in ms of `runs` calls of fn(ctx), after one warm-up. */
static double time_ms(void (*fn)(void *), void *ctx, int runs) {
  fn(ctx);
  double *t = malloc(sizeof(double) * (size_t)runs);
  for (int r = 0; r < runs; ++r) {
    double t0 = tessel_now_seconds();
    fn(ctx);
    t[r] = 1e3 * (tessel_now_seconds() - t0);
  }
  double median = tessel_median(t, (size_t)runs);
  free(t);
  return median;
}

/* Checks `actual` against the double reference: correct when every element
 * is within rel_tol * |ref| + abs_tol. Stores the normwise relative error
 * max|actual - ref| / max|ref|, which, unlike an elementwise ratio, is not
 * dominated by the elements whose reference is close to zero. */
static bool check(const char *label, const float *actual, const double *ref,
                  size_t n, double rel_tol, double abs_tol, double *max_rel) {
  tessel_compare_stats st;
  size_t bad = tessel_compare_f32(label, actual, ref, n, rel_tol, abs_tol, &st);
  double max_ref = 0.0, max_err = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double e = fabs((double)actual[i] - ref[i]);
    if (!(e <= max_err)) /* also catches NaN */
      max_err = isnan(e) ? INFINITY : e;
    if (fabs(ref[i]) > max_ref)
      max_ref = fabs(ref[i]);
  }
  *max_rel = max_ref > 0.0 ? max_err / max_ref : max_err;
  return bad == 0;
}

/* --- matmul --------------------------------------------------------------- */

enum { MM = 512, MK = 512, MN = 512 };

typedef void (*matmul_fn)(tessel_memref_f32_2d *, tessel_memref_f32_2d *,
                          tessel_memref_f32_2d *);

typedef struct MatmulCtx {
  matmul_fn fn;
  tessel_memref_f32_2d a, b, c;
  float *pa, *pb, *pc;
} MatmulCtx;

static void run_tessel_matmul(void *p) {
  MatmulCtx *x = p;
  x->fn(&x->a, &x->b, &x->c);
}

static void run_plain_matmul(void *p) {
  MatmulCtx *x = p;
  plain_matmul(x->pa, x->pb, x->pc, MM, MK, MN);
}

static void run_plain_matmul_ijk(void *p) {
  MatmulCtx *x = p;
  plain_matmul_ijk(x->pa, x->pb, x->pc, MM, MK, MN);
}

/* Fills rows[0] (C in i-k-j order) and rows[1] (C in i-j-k order). */
static void demo_matmul(const char *library, Row rows[2]) {
  Row row = {.workload = "matmul", .baseline = "C i-k-j loops"};
  snprintf(row.shape, sizeof row.shape, "%dx%dx%d f32", MM, MK, MN);
  row.gflop = 2.0 * MM * MK * MN * 1e-9;

  MatmulCtx x;
  x.fn = (matmul_fn)load_symbol(library, "_mlir_ciface_matmul");
  x.pa = alloc_f32((size_t)MM * MK);
  x.pb = alloc_f32((size_t)MK * MN);
  x.pc = alloc_f32((size_t)MM * MN);
  tessel_fill_random_f32(x.pa, (size_t)MM * MK, 1);
  tessel_fill_random_f32(x.pb, (size_t)MK * MN, 2);
  tessel_memref_f32_init_2d(&x.a, x.pa, MM, MK);
  tessel_memref_f32_init_2d(&x.b, x.pb, MK, MN);
  tessel_memref_f32_init_2d(&x.c, x.pc, MM, MN);

  double *ref = alloc_f64((size_t)MM * MN);
  double *rowacc = alloc_f64(MN);
  for (int i = 0; i < MM; ++i) {
    for (int j = 0; j < MN; ++j)
      rowacc[j] = 0.0;
    for (int p = 0; p < MK; ++p) {
      const double aip = x.pa[(size_t)i * MK + p];
      for (int j = 0; j < MN; ++j)
        rowacc[j] += aip * (double)x.pb[(size_t)p * MN + j];
    }
    memcpy(ref + (size_t)i * MN, rowacc, sizeof(double) * MN);
  }

  /* Sums of 512 products of values in [-1, 1): allow f32 rounding. */
  const double rel = 1e-4, abs = 1e-4;
  for (size_t i = 0; i < (size_t)MM * MN; ++i)
    x.pc[i] = NAN;
  row.tessel_ms = time_ms(run_tessel_matmul, &x, g_runs);
  row.correct = check("matmul (tessel)", x.pc, ref, (size_t)MM * MN, rel, abs,
                      &row.max_rel_err);
  for (size_t i = 0; i < (size_t)MM * MN; ++i)
    x.pc[i] = NAN;
  row.c_ms = time_ms(run_plain_matmul, &x, g_runs);
  row.c_correct = check("matmul (plain C)", x.pc, ref, (size_t)MM * MN, rel,
                        abs, &row.c_max_rel_err);
  rows[0] = row;
  /* The same Tessel numbers against the naive order. */
  for (size_t i = 0; i < (size_t)MM * MN; ++i)
    x.pc[i] = NAN;
  row.baseline = "C i-j-k loops";
  row.c_ms = time_ms(run_plain_matmul_ijk, &x, g_runs);
  row.c_correct = check("matmul (plain C, i-j-k)", x.pc, ref, (size_t)MM * MN,
                        rel, abs, &row.c_max_rel_err);
  rows[1] = row;
  tessel_free(x.pa);
  tessel_free(x.pb);
  tessel_free(x.pc);
  tessel_free(ref);
  tessel_free(rowacc);
}

/* --- blur_x_blur_y -------------------------------------------------------- */

enum { BH = 2048, BW = 2048 };

typedef void (*blur_fn)(tessel_memref_f32_3d *, tessel_memref_f32_3d *);

typedef struct BlurCtx {
  blur_fn fn;
  tessel_memref_f32_3d in, out;
  float *pin, *ptmp, *pout;
} BlurCtx;

static void run_tessel_blur(void *p) {
  BlurCtx *x = p;
  x->fn(&x->in, &x->out);
}

static void run_plain_blur(void *p) {
  BlurCtx *x = p;
  plain_blur(x->pin, x->ptmp, x->pout, BH, BW);
}

static Row demo_blur(const char *library) {
  const int ho = BH - 4, wo = BW - 4;
  Row row = {.workload = "blur_x_blur_y", .baseline = "C two passes"};
  snprintf(row.shape, sizeof row.shape, "3x%dx%d -> 3x%dx%d f32", BH, BW, ho,
           wo);
  row.gflop = (3.0 * BH * wo * 10 + 3.0 * ho * wo * 10) * 1e-9;

  BlurCtx x;
  x.fn = (blur_fn)load_symbol(library, "_mlir_ciface_blur_x_blur_y");
  const size_t nin = (size_t)3 * BH * BW, nout = (size_t)3 * ho * wo;
  x.pin = alloc_f32(nin);
  x.ptmp = alloc_f32((size_t)3 * BH * wo);
  x.pout = alloc_f32(nout);
  tessel_fill_random_f32(x.pin, nin, 3);
  for (size_t i = 0; i < nin; ++i) /* intensities in [0, 1) */
    x.pin[i] = 0.5f * (x.pin[i] + 1.0f);
  tessel_memref_f32_init_3d(&x.in, x.pin, 3, BH, BW);
  tessel_memref_f32_init_3d(&x.out, x.pout, 3, ho, wo);

  static const double taps[5] = {0.0625, 0.25, 0.375, 0.25, 0.0625};
  double *tmp = alloc_f64((size_t)3 * BH * wo);
  double *ref = alloc_f64(nout);
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < BH; ++i)
      for (int j = 0; j < wo; ++j) {
        double s = 0.0;
        for (int t = 0; t < 5; ++t)
          s += taps[t] * x.pin[((size_t)c * BH + i) * BW + j + t];
        tmp[((size_t)c * BH + i) * wo + j] = s;
      }
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < ho; ++i)
      for (int j = 0; j < wo; ++j) {
        double s = 0.0;
        for (int t = 0; t < 5; ++t)
          s += taps[t] * tmp[((size_t)c * BH + i + t) * wo + j];
        ref[((size_t)c * ho + i) * wo + j] = s;
      }

  const double rel = 1e-5, abs = 1e-6;
  for (size_t i = 0; i < nout; ++i)
    x.pout[i] = NAN;
  row.tessel_ms = time_ms(run_tessel_blur, &x, g_runs);
  row.correct = check("blur_x_blur_y (tessel)", x.pout, ref, nout, rel, abs,
                      &row.max_rel_err);
  for (size_t i = 0; i < nout; ++i)
    x.pout[i] = NAN;
  row.c_ms = time_ms(run_plain_blur, &x, g_runs);
  row.c_correct = check("blur_x_blur_y (plain C)", x.pout, ref, nout, rel, abs,
                        &row.c_max_rel_err);
  tessel_free(x.pin);
  tessel_free(x.ptmp);
  tessel_free(x.pout);
  tessel_free(tmp);
  tessel_free(ref);
  return row;
}

/* --- main ----------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f, "usage: tessel-demo [--matmul=matmul.so] [--blur=blur_x_blur_y.so] "
             "[--runs=N]\n"
             "  Libraries are built by tessel-compile from utils/demo/*.mlir "
             "(see utils/run-demo.sh).\n");
}

int main(int argc, char **argv) {
  const char *matmul = NULL, *blur = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strncmp(argv[i], "--matmul=", 9))
      matmul = argv[i] + 9;
    else if (!strncmp(argv[i], "--blur=", 7))
      blur = argv[i] + 7;
    else if (!strncmp(argv[i], "--runs=", 7))
      g_runs = atoi(argv[i] + 7);
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "tessel-demo: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if ((!matmul && !blur) || g_runs < 1) {
    usage(stderr);
    return 2;
  }

  /* The plain C reference runs on one core, so Tessel's OpenMP code does
   * too unless the user asks otherwise; libomp reads this when the first
   * compiled library is loaded, below. */
  setenv("OMP_NUM_THREADS", "1", /*overwrite=*/0);
  const char *threads = getenv("OMP_NUM_THREADS");

  Row rows[3];
  int n = 0;
  if (matmul) {
    demo_matmul(matmul, rows);
    n += 2;
  }
  if (blur)
    rows[n++] = demo_blur(blur);

  printf("Tessel (tessel-compile --target=cpu) vs plain C (straightforward "
         "loops, clang -O3 -march=native, one thread); Tessel with "
         "OMP_NUM_THREADS=%s.\n"
         "Times: median of %d runs after one warm-up. ratio = Tessel ms / plain "
         "C ms (above 1: Tessel is slower).\n"
         "correct? = every element within tolerance of a double-precision "
         "reference; max rel err = max|result - ref| / max|ref|.\n\n",
         threads, g_runs);
  printf("%-13s  %-31s  %-8s  %-11s  %9s  %-13s  %10s  %7s  %8s  %8s\n",
         "workload", "shape", "correct?", "max rel err", "Tessel ms",
         "plain C", "plain C ms", "ratio", "Tessel", "C");
  printf("%-13s  %-31s  %-8s  %-11s  %9s  %-13s  %10s  %7s  %8s  %8s\n", "",
         "", "", "", "", "", "", "", "GFLOP/s", "GFLOP/s");
  bool ok = true;
  for (int i = 0; i < n; ++i) {
    const Row *r = &rows[i];
    printf("%-13s  %-31s  %-8s  %-11.2e  %9.2f  %-13s  %10.2f  %6.2fx  %8.2f  %8.2f\n",
           r->workload, r->shape, r->correct ? "yes" : "NO", r->max_rel_err,
           r->tessel_ms, r->baseline, r->c_ms, r->tessel_ms / r->c_ms,
           r->gflop / (r->tessel_ms * 1e-3), r->gflop / (r->c_ms * 1e-3));
    if (!r->c_correct)
      printf("  (the plain C version is wrong too: max rel err %.2e)\n",
             r->c_max_rel_err);
    ok = ok && r->correct && r->c_correct;
  }
  if (!ok) {
    printf("\nFAIL: a result does not match the double-precision reference\n");
    return 1;
  }
  return 0;
}

/*===- gpu_bench.c - Tessel's GPU matmul kernels against cuBLAS -----------===*
 *
 *   tessel-gpu-bench --kernels DIR [--only NAME,...] [--reps N] [--json FILE]
 *
 * DIR holds one shared object per workload, compiled by tessel-compile for
 * the GPU (utils/bench/run-gpu-bench.sh --build makes it); each exports
 * _mlir_ciface_<name>. Per workload the harness allocates device operands,
 * fills them with reproducible random values, and times Tessel's entry
 * point and cublasGemmEx (the library torch.matmul and torch._int_mm call)
 * alternately, each call to completion (wall clock around the call and a
 * stream synchronization), median of the repetitions after two warm-ups.
 * It checks Tessel against cuBLAS over the whole output and both against a
 * double-precision dot product at sampled elements, then prints TFLOPS and
 * their ratio (Tessel / cuBLAS; above 1 means Tessel is faster) and, with
 * --json, writes every row.
 *
 * cuBLAS is loaded at run time (dlopen of libcublas.so.13 or .so, or the
 * path in TESSEL_CUBLAS): its types come from the toolkit's headers, so this
 * builds where the toolkit's headers are and runs where a driver and
 * cuBLAS are.
 *
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "tessel/gpu_runtime.h"
#include "tessel/runtime.h"

#include <cublas_v2.h>

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { IN_F16, IN_I8 } input_kind;
typedef enum { ACC_F32, ACC_F16, ACC_I32 } acc_kind;

typedef struct {
  const char *name; /* the .so's stem and the entry point's suffix */
  input_kind in;
  acc_kind acc;
  int64_t m, n, k;
} workload;

/* The bar sizes (4096^3 f16 -> f32 and i8 -> i32) and smaller and
 * odd shapes around them. */
static const workload kWorkloads[] = {
    {"mm_f16_f32_4096", IN_F16, ACC_F32, 4096, 4096, 4096},
    {"mm_f16_f32_8192", IN_F16, ACC_F32, 8192, 8192, 8192},
    {"mm_f16_f32_2048", IN_F16, ACC_F32, 2048, 2048, 2048},
    {"mm_f16_f32_1024", IN_F16, ACC_F32, 1024, 1024, 1024},
    {"mm_f16_f32_4000", IN_F16, ACC_F32, 4000, 4000, 4000},
    {"mm_f16_f16_4096", IN_F16, ACC_F16, 4096, 4096, 4096},
    {"mm_i8_i32_4096", IN_I8, ACC_I32, 4096, 4096, 4096},
    {"mm_i8_i32_8192", IN_I8, ACC_I32, 8192, 8192, 8192},
};

/* cuBLAS entry points, loaded at run time with the header's types. */
static struct {
  __typeof__(cublasCreate_v2) *create;
  __typeof__(cublasGemmEx) *gemm;
  __typeof__(cublasGetStatusName) *status_name;
  cublasHandle_t handle;
} cublas;

static bool load_cublas(void) {
  const char *candidates[] = {getenv("TESSEL_CUBLAS"), "libcublas.so.13",
                              "libcublas.so.12", "libcublas.so"};
  void *lib = NULL;
  for (size_t i = 0; i < sizeof candidates / sizeof *candidates && !lib; ++i)
    if (candidates[i])
      lib = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "tessel-gpu-bench: cannot load cuBLAS (%s); set "
                    "TESSEL_CUBLAS or LD_LIBRARY_PATH\n", dlerror());
    return false;
  }
  cublas.create = (__typeof__(cublas.create))dlsym(lib, "cublasCreate_v2");
  cublas.gemm = (__typeof__(cublas.gemm))dlsym(lib, "cublasGemmEx");
  cublas.status_name =
      (__typeof__(cublas.status_name))dlsym(lib, "cublasGetStatusName");
  if (!cublas.create || !cublas.gemm || !cublas.status_name) {
    fprintf(stderr, "tessel-gpu-bench: cuBLAS lacks cublasCreate_v2, "
                    "cublasGemmEx or cublasGetStatusName\n");
    return false;
  }
  cublasStatus_t s = cublas.create(&cublas.handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "tessel-gpu-bench: cublasCreate failed: %s\n",
            cublas.status_name(s));
    return false;
  }
  return true;
}

static size_t input_bytes(input_kind k) { return k == IN_F16 ? 2 : 1; }
static size_t acc_bytes(acc_kind k) { return k == ACC_F16 ? 2 : 4; }

static uint16_t to_f16(float x) {
  _Float16 h = (_Float16)x;
  uint16_t bits;
  memcpy(&bits, &h, sizeof bits);
  return bits;
}

static double input_at(const void *p, input_kind k, size_t i) {
  if (k == IN_I8)
    return (double)((const int8_t *)p)[i];
  _Float16 h;
  memcpy(&h, (const char *)p + 2 * i, 2);
  return (double)h;
}

static double acc_at(const void *p, acc_kind k, size_t i) {
  switch (k) {
  case ACC_F32: return (double)((const float *)p)[i];
  case ACC_I32: return (double)((const int32_t *)p)[i];
  case ACC_F16: {
    _Float16 h;
    memcpy(&h, (const char *)p + 2 * i, 2);
    return (double)h;
  }
  }
  return NAN;
}

/* Host values in [-1, 1) as f16, or in [-127, 127] as i8. */
static void *random_input(input_kind k, size_t count, uint64_t seed) {
  float *f = malloc(count * sizeof *f);
  void *out = malloc(count * input_bytes(k));
  if (!f || !out) {
    fprintf(stderr, "tessel-gpu-bench: out of host memory\n");
    exit(1);
  }
  tessel_fill_random_f32(f, count, seed);
  for (size_t i = 0; i < count; ++i) {
    if (k == IN_F16)
      ((uint16_t *)out)[i] = to_f16(f[i]);
    else
      ((int8_t *)out)[i] = (int8_t)(f[i] * 127.0f);
  }
  free(f);
  return out;
}

static void *device_copy(const void *host, size_t bytes) {
  void *d = mgpuMemAlloc(bytes, NULL, false);
  if (!d) {
    fprintf(stderr, "tessel-gpu-bench: mgpuMemAlloc(%zu) failed\n", bytes);
    exit(1);
  }
  if (host)
    mgpuMemcpy(d, (void *)host, bytes, NULL);
  return d;
}

/* C (row-major m x n) = A (m x k) B (k x n) is C^T = B^T A^T in cuBLAS's
 * column-major terms: an n x m product of B (ld n) by A (ld k). */
static bool cublas_matmul(const workload *w, void *a, void *b, void *c) {
  float one = 1.0f, zero = 0.0f;
  int32_t ione = 1, izero = 0;
  bool ints = w->in == IN_I8;
  cudaDataType_t ab = ints ? CUDA_R_8I : CUDA_R_16F;
  cudaDataType_t ct = w->acc == ACC_F32   ? CUDA_R_32F
                      : w->acc == ACC_F16 ? CUDA_R_16F
                                          : CUDA_R_32I;
  cublasComputeType_t compute = ints ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F;
  cublasStatus_t s = cublas.gemm(
      cublas.handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)w->n, (int)w->m, (int)w->k,
      ints ? (const void *)&ione : (const void *)&one, b, ab, (int)w->n, a, ab,
      (int)w->k, ints ? (const void *)&izero : (const void *)&zero, c, ct,
      (int)w->n, compute, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "tessel-gpu-bench: cublasGemmEx (%s) failed: %s\n",
            w->name, cublas.status_name(s));
    return false;
  }
  mgpuStreamSynchronize(NULL);
  return true;
}

/* A rank-2 memref descriptor of any element type (the layout of
 * tessel_memref_<tag>_2d). */
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} memref_2d;

typedef void (*entry_2d)(memref_2d *, memref_2d *, memref_2d *);

static void view_2d(memref_2d *v, void *data, int64_t rows, int64_t cols) {
  *v = (memref_2d){data, data, 0, {rows, cols}, {cols, 1}};
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

typedef struct {
  double tessel_ms, cublas_ms, max_rel_vs_cublas, max_rel_vs_ref;
  bool ok;
} result;

static bool run(const workload *w, const char *dir, int reps, result *r) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.so", dir, w->name);
  void *lib = dlopen(path, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "tessel-gpu-bench: %s\n", dlerror());
    return false;
  }
  char symbol[256];
  snprintf(symbol, sizeof symbol, "_mlir_ciface_%s", w->name);
  entry_2d fn = (entry_2d)dlsym(lib, symbol);
  if (!fn) {
    fprintf(stderr, "tessel-gpu-bench: %s has no %s\n", path, symbol);
    return false;
  }
  size_t na = (size_t)(w->m * w->k), nb = (size_t)(w->k * w->n),
         nc = (size_t)(w->m * w->n);
  void *ha = random_input(w->in, na, 1), *hb = random_input(w->in, nb, 2);
  void *da = device_copy(ha, na * input_bytes(w->in));
  void *db = device_copy(hb, nb * input_bytes(w->in));
  void *dc = device_copy(NULL, nc * acc_bytes(w->acc));
  void *dref = device_copy(NULL, nc * acc_bytes(w->acc));
  memref_2d va, vb, vc;
  view_2d(&va, da, w->m, w->k);
  view_2d(&vb, db, w->k, w->n);
  view_2d(&vc, dc, w->m, w->n);

  double *t = malloc(2 * (size_t)reps * sizeof *t);
  bool ok = true;
  for (int i = -2; i < reps && ok; ++i) {
    double t0 = tessel_now_seconds();
    fn(&va, &vb, &vc); /* returns once the kernel has finished */
    double t1 = tessel_now_seconds();
    ok = cublas_matmul(w, da, db, dref);
    double t2 = tessel_now_seconds();
    if (i >= 0) {
      t[i] = (t1 - t0) * 1e3;
      t[reps + i] = (t2 - t1) * 1e3;
    }
  }
  if (!ok)
    return false;
  qsort(t, (size_t)reps, sizeof *t, cmp_double);
  qsort(t + reps, (size_t)reps, sizeof *t, cmp_double);
  r->tessel_ms = t[reps / 2];
  r->cublas_ms = t[reps + reps / 2];
  free(t);

  /* Tessel against cuBLAS everywhere; both against double dot products at
   * 256 sampled elements. */
  void *hc = malloc(nc * acc_bytes(w->acc)), *href = malloc(nc * acc_bytes(w->acc));
  mgpuMemcpy(hc, dc, nc * acc_bytes(w->acc), NULL);
  mgpuMemcpy(href, dref, nc * acc_bytes(w->acc), NULL);
  double scale = w->in == IN_I8 ? 127.0 * 127.0 : 1.0;
  double floor = scale * sqrt((double)w->k); /* a typical |C| */
  r->max_rel_vs_cublas = 0;
  for (size_t i = 0; i < nc; ++i) {
    double d = fabs(acc_at(hc, w->acc, i) - acc_at(href, w->acc, i)) / floor;
    if (!(d <= r->max_rel_vs_cublas))
      r->max_rel_vs_cublas = isnan(d) ? INFINITY : d;
  }
  r->max_rel_vs_ref = 0;
  for (int s = 0; s < 256; ++s) {
    size_t i = (size_t)((s * 2654435761u) % nc), row = i / (size_t)w->n,
           col = i % (size_t)w->n;
    double dot = 0;
    for (int64_t p = 0; p < w->k; ++p)
      dot += input_at(ha, w->in, row * (size_t)w->k + (size_t)p) *
             input_at(hb, w->in, (size_t)p * (size_t)w->n + col);
    double d = fabs(acc_at(hc, w->acc, i) - dot) / floor;
    if (!(d <= r->max_rel_vs_ref))
      r->max_rel_vs_ref = isnan(d) ? INFINITY : d;
  }
  /* f32 sums differ by rounding only; f16 results by f16 rounding of
   * values near sqrt(k); integers not at all. */
  double tol = w->in == IN_I8 ? 0.0 : w->acc == ACC_F16 ? 2e-2 : 1e-4;
  r->ok = r->max_rel_vs_cublas <= tol && r->max_rel_vs_ref <= tol;
  free(ha); free(hb); free(hc); free(href);
  mgpuMemFree(da, NULL); mgpuMemFree(db, NULL);
  mgpuMemFree(dc, NULL); mgpuMemFree(dref, NULL);
  return true;
}

int main(int argc, char **argv) {
  const char *dir = NULL, *only = NULL, *json = NULL;
  int reps = 21;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--kernels") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc)
      json = argv[++i];
    else if (!strcmp(argv[i], "--list")) {
      for (size_t w = 0; w < sizeof kWorkloads / sizeof *kWorkloads; ++w)
        printf("%s %s %ldx%ldx%ld\n", kWorkloads[w].name,
               kWorkloads[w].in == IN_F16 ? "f16" : "i8", (long)kWorkloads[w].m,
               (long)kWorkloads[w].n, (long)kWorkloads[w].k);
      return 0;
    } else {
      fprintf(stderr, "usage: %s --kernels DIR [--only NAME,...] [--reps N] "
                      "[--json FILE] | --list\n", argv[0]);
      return 2;
    }
  }
  if (!dir || reps < 1) {
    fprintf(stderr, "%s: --kernels DIR is required (and --reps >= 1)\n", argv[0]);
    return 2;
  }
  if (tessel_cuda_device_count() < 1) {
    fprintf(stderr, "tessel-gpu-bench: no CUDA device: %s\n", tessel_cuda_status());
    return 1;
  }
  if (!load_cublas())
    return 1;
  int major = 0, minor = 0;
  tessel_cuda_compute_capability(0, &major, &minor);
  FILE *out = json ? fopen(json, "w") : NULL;
  if (json && !out) {
    fprintf(stderr, "tessel-gpu-bench: cannot write %s\n", json);
    return 2;
  }
  if (out)
    fprintf(out, "{\"device_sm\": %d%d, \"reps\": %d, \"rows\": [", major,
            minor, reps);
  printf("sm_%d%d, %d repetitions (median), Tessel vs cublasGemmEx\n", major,
         minor, reps);
  printf("%-18s %-16s %10s %10s %10s %8s  %s\n", "workload", "shape",
         "Tessel ms", "TFLOPS", "cuBLAS TF", "ratio", "check");
  int failures = 0, rows = 0;
  for (size_t i = 0; i < sizeof kWorkloads / sizeof *kWorkloads; ++i) {
    const workload *w = &kWorkloads[i];
    if (only && !strstr(only, w->name))
      continue;
    result r;
    if (!run(w, dir, reps, &r)) {
      ++failures;
      continue;
    }
    double flop = 2.0 * (double)w->m * (double)w->n * (double)w->k;
    double tt = flop / (r.tessel_ms * 1e-3) / 1e12;
    double ct = flop / (r.cublas_ms * 1e-3) / 1e12;
    char shape[64];
    snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)w->m, (long)w->n,
             (long)w->k);
    printf("%-18s %-16s %10.3f %10.1f %10.1f %8.3f  %s (vs cuBLAS %.1e, vs "
           "double %.1e)\n",
           w->name, shape, r.tessel_ms, tt, ct, tt / ct,
           r.ok ? "PASS" : "FAIL", r.max_rel_vs_cublas, r.max_rel_vs_ref);
    failures += !r.ok;
    if (out)
      fprintf(out,
              "%s{\"name\": \"%s\", \"m\": %ld, \"n\": %ld, \"k\": %ld, "
              "\"tessel_ms\": %.6f, \"cublas_ms\": %.6f, \"tessel_tflops\": "
              "%.3f, \"cublas_tflops\": %.3f, \"ratio\": %.4f, \"pass\": %s}",
              rows++ ? ", " : "", w->name, (long)w->m, (long)w->n, (long)w->k,
              r.tessel_ms, r.cublas_ms, tt, ct, tt / ct,
              r.ok ? "true" : "false");
  }
  if (out) {
    fprintf(out, "]}\n");
    fclose(out);
  }
  return failures ? 1 : 0;
}

/*===- gpu_bench.c - Tessel's GPU matmul kernels against cuBLAS -----------===*
 *
 *   tessel-gpu-bench --kernels DIR [--only NAME,...] [--reps N] [--json FILE]
 *   tessel-gpu-bench --list        (the workloads, one line each, for --build)
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
 * The ResNet-50 convolutions run against cuDNN's cudnnConvolutionForward
 * (what torch's conv2d calls): fp16 NHWC in and out with f32 sums on both
 * sides (cuDNN's pseudo-half configuration; Tessel converts in its kernel's
 * epilogue), from the same padded input. cuDNN picks its algorithm by
 * trying them (cudnnFindConvolutionForwardAlgorithm, as torch's benchmark
 * mode does) and gets the workspace it asks for.
 *
 * cuBLAS and cuDNN are loaded at run time (dlopen of libcublas.so.13 and
 * libcudnn.so.9, or the paths in TESSEL_CUBLAS and TESSEL_CUDNN): their
 * types come from the toolkit's headers, so this builds where the headers
 * are and runs where a driver and the libraries are.
 *
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "tessel/gpu_runtime.h"
#include "tessel/runtime.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { IN_F16, IN_I8, IN_F32, IN_F64 } input_kind;
typedef enum { ACC_F32, ACC_F16, ACC_I32, ACC_F64 } acc_kind;

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
    /* f32 on the SIMT cores against cuBLAS's f32 sgemm (no TF32: cuBLAS's
     * default math mode, as torch.matmul with allow_tf32 off). */
    {"mm_f32_f32_4096", IN_F32, ACC_F32, 4096, 4096, 4096},
    {"mm_f32_f32_1024", IN_F32, ACC_F32, 1024, 1024, 1024},
    /* f64 against cuBLAS's dgemm, which on sm_80 and sm_90 runs on the f64
     * tensor cores (DMMA), as Tessel's model chooses there; the _simt rows
     * are built with f64-tensor-cores=false (the SIMT kernel, half the
     * rate), so one run measures what the tensor cores buy. */
    {"mm_f64_f64_4096", IN_F64, ACC_F64, 4096, 4096, 4096},
    {"mm_f64_f64_1024", IN_F64, ACC_F64, 1024, 1024, 1024},
    {"mm_f64_f64_4096_simt", IN_F64, ACC_F64, 4096, 4096, 4096},
    {"mm_f64_f64_1024_simt", IN_F64, ACC_F64, 1024, 1024, 1024},
};

/* A ResNet-50 layer as in the CPU bench: an h x w x c input (given padded
 * by `pad` on each side), f filters of k x k, a stride. */
typedef struct {
  const char *layer;
  int64_t h, w, c, f, k, stride, pad;
} conv_layer;

static const conv_layer kConvLayers[] = {
    {"stem", 224, 224, 3, 64, 7, 2, 3},
    {"s1_1x1_reduce", 56, 56, 64, 64, 1, 1, 0},
    {"s1_3x3", 56, 56, 64, 64, 3, 1, 1},
    {"s1_1x1_expand", 56, 56, 64, 256, 1, 1, 0},
    {"s2_3x3_s2", 56, 56, 128, 128, 3, 2, 1},
    {"s2_3x3", 28, 28, 128, 128, 3, 1, 1},
    {"s3_1x1_reduce", 14, 14, 1024, 256, 1, 1, 0},
    {"s3_3x3", 14, 14, 256, 256, 3, 1, 1},
    {"s4_3x3", 7, 7, 512, 512, 3, 1, 1},
    {"s4_1x1_expand", 7, 7, 512, 2048, 1, 1, 0},
};
static const int64_t kConvBatches[] = {1, 8};

typedef struct {
  const conv_layer *layer;
  int64_t n, hp, wp, oh, ow; /* batch, padded input, output */
  char name[64];             /* conv_<layer>_b<n> */
} conv_workload;

static conv_workload conv_workload_at(const conv_layer *l, int64_t n) {
  conv_workload c = {l, n, l->h + 2 * l->pad, l->w + 2 * l->pad, 0, 0, ""};
  c.oh = (c.hp - l->k) / l->stride + 1;
  c.ow = (c.wp - l->k) / l->stride + 1;
  snprintf(c.name, sizeof c.name, "conv_%s_b%ld", l->layer, (long)n);
  return c;
}

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

/* cuDNN entry points, likewise. */
static struct {
  __typeof__(cudnnCreate) *create;
  __typeof__(cudnnGetErrorString) *error;
  __typeof__(cudnnCreateTensorDescriptor) *create_tensor;
  __typeof__(cudnnSetTensor4dDescriptor) *set_tensor;
  __typeof__(cudnnCreateFilterDescriptor) *create_filter;
  __typeof__(cudnnSetFilter4dDescriptor) *set_filter;
  __typeof__(cudnnCreateConvolutionDescriptor) *create_conv;
  __typeof__(cudnnSetConvolution2dDescriptor) *set_conv;
  __typeof__(cudnnSetConvolutionMathType) *set_math;
  __typeof__(cudnnFindConvolutionForwardAlgorithm) *find;
  __typeof__(cudnnGetConvolutionForwardWorkspaceSize) *workspace_size;
  __typeof__(cudnnConvolutionForward) *forward;
  cudnnHandle_t handle;
} cudnn;

static bool load_cudnn(void) {
  const char *candidates[] = {getenv("TESSEL_CUDNN"), "libcudnn.so.9",
                              "libcudnn.so"};
  void *lib = NULL;
  for (size_t i = 0; i < sizeof candidates / sizeof *candidates && !lib; ++i)
    if (candidates[i])
      lib = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "tessel-gpu-bench: cannot load cuDNN (%s); set "
                    "TESSEL_CUDNN or LD_LIBRARY_PATH\n", dlerror());
    return false;
  }
  void **fields[] = {(void **)&cudnn.create,        (void **)&cudnn.error,
                     (void **)&cudnn.create_tensor, (void **)&cudnn.set_tensor,
                     (void **)&cudnn.create_filter, (void **)&cudnn.set_filter,
                     (void **)&cudnn.create_conv,   (void **)&cudnn.set_conv,
                     (void **)&cudnn.set_math,      (void **)&cudnn.find,
                     (void **)&cudnn.workspace_size, (void **)&cudnn.forward};
  const char *names[] = {"cudnnCreate",
                         "cudnnGetErrorString",
                         "cudnnCreateTensorDescriptor",
                         "cudnnSetTensor4dDescriptor",
                         "cudnnCreateFilterDescriptor",
                         "cudnnSetFilter4dDescriptor",
                         "cudnnCreateConvolutionDescriptor",
                         "cudnnSetConvolution2dDescriptor",
                         "cudnnSetConvolutionMathType",
                         "cudnnFindConvolutionForwardAlgorithm",
                         "cudnnGetConvolutionForwardWorkspaceSize",
                         "cudnnConvolutionForward"};
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
    if (!(*fields[i] = dlsym(lib, names[i]))) {
      fprintf(stderr, "tessel-gpu-bench: cuDNN lacks %s\n", names[i]);
      return false;
    }
  cudnnStatus_t s = cudnn.create(&cudnn.handle);
  if (s != CUDNN_STATUS_SUCCESS) {
    fprintf(stderr, "tessel-gpu-bench: cudnnCreate failed: %s\n",
            cudnn.error(s));
    return false;
  }
  return true;
}

static size_t input_bytes(input_kind k) {
  return k == IN_F64 ? 8 : k == IN_F32 ? 4 : k == IN_F16 ? 2 : 1;
}
static size_t acc_bytes(acc_kind k) {
  return k == ACC_F64 ? 8 : k == ACC_F16 ? 2 : 4;
}

static uint16_t to_f16(float x) {
  _Float16 h = (_Float16)x;
  uint16_t bits;
  memcpy(&bits, &h, sizeof bits);
  return bits;
}

static double input_at(const void *p, input_kind k, size_t i) {
  if (k == IN_I8)
    return (double)((const int8_t *)p)[i];
  if (k == IN_F32)
    return (double)((const float *)p)[i];
  if (k == IN_F64)
    return ((const double *)p)[i];
  _Float16 h;
  memcpy(&h, (const char *)p + 2 * i, 2);
  return (double)h;
}

static double acc_at(const void *p, acc_kind k, size_t i) {
  switch (k) {
  case ACC_F32: return (double)((const float *)p)[i];
  case ACC_I32: return (double)((const int32_t *)p)[i];
  case ACC_F64:
    return ((const double *)p)[i];
  case ACC_F16: {
    _Float16 h;
    memcpy(&h, (const char *)p + 2 * i, 2);
    return (double)h;
  }
  }
  return NAN;
}

/* Host values in [-1, 1) as f16, f32 or f64 (with all 53 bits of the
 * mantissa, so that a kernel that rounded to f32 fails the check), or in
 * [-127, 127] as i8. */
static void *random_input(input_kind k, size_t count, uint64_t seed) {
  float *f = malloc(count * sizeof *f);
  void *out = malloc(count * input_bytes(k));
  if (!f || !out) {
    fprintf(stderr, "tessel-gpu-bench: out of host memory\n");
    exit(1);
  }
  if (k == IN_F64) {
    free(f);
    tessel_fill_random_f64((double *)out, count, seed);
    return out;
  }
  tessel_fill_random_f32(f, count, seed);
  for (size_t i = 0; i < count; ++i) {
    if (k == IN_F16)
      ((uint16_t *)out)[i] = to_f16(f[i]);
    else if (k == IN_F32)
      ((float *)out)[i] = f[i];
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
  double done = 1.0, dzero = 0.0;
  int32_t ione = 1, izero = 0;
  bool ints = w->in == IN_I8, doubles = w->in == IN_F64;
  cudaDataType_t ab = ints              ? CUDA_R_8I
                      : doubles         ? CUDA_R_64F
                      : w->in == IN_F32 ? CUDA_R_32F
                                        : CUDA_R_16F;
  cudaDataType_t ct = w->acc == ACC_F32   ? CUDA_R_32F
                      : w->acc == ACC_F64 ? CUDA_R_64F
                      : w->acc == ACC_F16 ? CUDA_R_16F
                                          : CUDA_R_32I;
  cublasComputeType_t compute = ints      ? CUBLAS_COMPUTE_32I
                                : doubles ? CUBLAS_COMPUTE_64F
                                          : CUBLAS_COMPUTE_32F;
  const void *alpha = ints      ? (const void *)&ione
                      : doubles ? (const void *)&done
                                : (const void *)&one;
  const void *beta = ints      ? (const void *)&izero
                     : doubles ? (const void *)&dzero
                               : (const void *)&zero;
  cublasStatus_t s =
      cublas.gemm(cublas.handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)w->n, (int)w->m,
                  (int)w->k, alpha, b, ab, (int)w->n, a, ab, (int)w->k, beta, c,
                  ct, (int)w->n, compute, CUBLAS_GEMM_DEFAULT);
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
  double tessel_ms, peer_ms, max_rel_vs_peer, max_rel_vs_ref;
  bool ok;
} result;

/* Runs `tessel` and `peer` alternately, two warm-ups then `reps` timed
 * pairs, each call to completion; medians into r. False if the peer
 * failed. */
static bool time_pair(int reps, void (*tessel)(void *), bool (*peer)(void *),
                      void *context, result *r) {
  double *t = malloc(2 * (size_t)reps * sizeof *t);
  bool ok = true;
  for (int i = -2; i < reps && ok; ++i) {
    double t0 = tessel_now_seconds();
    tessel(context); /* returns once the kernel has finished */
    double t1 = tessel_now_seconds();
    ok = peer(context);
    double t2 = tessel_now_seconds();
    if (i >= 0) {
      t[i] = (t1 - t0) * 1e3;
      t[reps + i] = (t2 - t1) * 1e3;
    }
  }
  if (ok) {
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    qsort(t + reps, (size_t)reps, sizeof *t, cmp_double);
    r->tessel_ms = t[reps / 2];
    r->peer_ms = t[reps + reps / 2];
  }
  free(t);
  return ok;
}

/* The largest |a[i] - b[i]| / scale over count elements (infinite on NaN). */
static double max_difference(const void *a, const void *b, acc_kind kind,
                             size_t count, double scale) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i) {
    double d = fabs(acc_at(a, kind, i) - acc_at(b, kind, i)) / scale;
    if (!(d <= worst))
      worst = isnan(d) ? INFINITY : d;
  }
  return worst;
}

static void *load_entry(const char *dir, const char *name) {
  char path[4096], symbol[256];
  snprintf(path, sizeof path, "%s/%s.so", dir, name);
  void *lib = dlopen(path, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "tessel-gpu-bench: %s\n", dlerror());
    return NULL;
  }
  snprintf(symbol, sizeof symbol, "_mlir_ciface_%s", name);
  void *fn = dlsym(lib, symbol);
  if (!fn)
    fprintf(stderr, "tessel-gpu-bench: %s has no %s\n", path, symbol);
  return fn;
}

typedef struct {
  const workload *w;
  entry_2d fn;
  memref_2d va, vb, vc;
  void *da, *db, *dref;
} matmul_run;

static void matmul_tessel(void *p) {
  matmul_run *m = p;
  m->fn(&m->va, &m->vb, &m->vc);
}

static bool matmul_cublas(void *p) {
  matmul_run *m = p;
  return cublas_matmul(m->w, m->da, m->db, m->dref);
}

static bool run(const workload *w, const char *dir, int reps, result *r) {
  matmul_run m = {w, (entry_2d)load_entry(dir, w->name), {0}, {0}, {0},
                  NULL, NULL, NULL};
  if (!m.fn)
    return false;
  size_t na = (size_t)(w->m * w->k), nb = (size_t)(w->k * w->n),
         nc = (size_t)(w->m * w->n);
  void *ha = random_input(w->in, na, 1), *hb = random_input(w->in, nb, 2);
  m.da = device_copy(ha, na * input_bytes(w->in));
  m.db = device_copy(hb, nb * input_bytes(w->in));
  void *dc = device_copy(NULL, nc * acc_bytes(w->acc));
  m.dref = device_copy(NULL, nc * acc_bytes(w->acc));
  view_2d(&m.va, m.da, w->m, w->k);
  view_2d(&m.vb, m.db, w->k, w->n);
  view_2d(&m.vc, dc, w->m, w->n);
  if (!time_pair(reps, matmul_tessel, matmul_cublas, &m, r))
    return false;

  /* Tessel against cuBLAS everywhere; both against double dot products at
   * 256 sampled elements. */
  void *hc = malloc(nc * acc_bytes(w->acc)), *href = malloc(nc * acc_bytes(w->acc));
  mgpuMemcpy(hc, dc, nc * acc_bytes(w->acc), NULL);
  mgpuMemcpy(href, m.dref, nc * acc_bytes(w->acc), NULL);
  double scale = w->in == IN_I8 ? 127.0 * 127.0 : 1.0;
  double typical = scale * sqrt((double)w->k); /* a typical |C| */
  r->max_rel_vs_peer = max_difference(hc, href, w->acc, nc, typical);
  r->max_rel_vs_ref = 0;
  for (int s = 0; s < 256; ++s) {
    size_t i = (size_t)((s * 2654435761u) % nc), row = i / (size_t)w->n,
           col = i % (size_t)w->n;
    double dot = 0;
    for (int64_t p = 0; p < w->k; ++p)
      dot += input_at(ha, w->in, row * (size_t)w->k + (size_t)p) *
             input_at(hb, w->in, (size_t)p * (size_t)w->n + col);
    double d = fabs(acc_at(hc, w->acc, i) - dot) / typical;
    if (!(d <= r->max_rel_vs_ref))
      r->max_rel_vs_ref = isnan(d) ? INFINITY : d;
  }
  /* f32 and f64 sums differ by rounding only; f16 results by f16 rounding
   * of values near sqrt(k); integers not at all. */
  double tol = w->in == IN_I8      ? 0.0
               : w->acc == ACC_F16 ? 2e-2
               : w->acc == ACC_F64 ? 1e-12
                                   : 1e-4;
  r->ok = r->max_rel_vs_peer <= tol && r->max_rel_vs_ref <= tol;
  free(ha); free(hb); free(hc); free(href);
  mgpuMemFree(m.da, NULL); mgpuMemFree(m.db, NULL);
  mgpuMemFree(dc, NULL); mgpuMemFree(m.dref, NULL);
  return true;
}

/* A rank-4 descriptor (NHWC input, HWCF filter, NHWC output). */
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} memref_4d;

static memref_4d view_4d(void *data, int64_t a, int64_t b, int64_t c,
                         int64_t d) {
  return (memref_4d){data, data, 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}

typedef struct {
  const conv_workload *cw;
  void (*fn)(memref_4d *, memref_4d *, memref_4d *);
  memref_4d vx, vw, vy;
  void *dx, *dwk, *dref, *workspace;
  size_t workspace_bytes;
  cudnnTensorDescriptor_t x_desc, y_desc;
  cudnnFilterDescriptor_t w_desc;
  cudnnConvolutionDescriptor_t conv_desc;
  cudnnConvolutionFwdAlgo_t algo;
} conv_run;

static void conv_tessel(void *p) {
  conv_run *c = p;
  c->fn(&c->vx, &c->vw, &c->vy);
}

static bool cudnn_ok(cudnnStatus_t s, const char *what) {
  if (s == CUDNN_STATUS_SUCCESS)
    return true;
  fprintf(stderr, "tessel-gpu-bench: %s failed: %s\n", what, cudnn.error(s));
  return false;
}

static bool conv_cudnn(void *p) {
  conv_run *c = p;
  float one = 1.0f, zero = 0.0f;
  bool ok = cudnn_ok(cudnn.forward(cudnn.handle, &one, c->x_desc, c->dx,
                                   c->w_desc, c->dwk, c->conv_desc, c->algo,
                                   c->workspace, c->workspace_bytes, &zero,
                                   c->y_desc, c->dref),
                     "cudnnConvolutionForward");
  mgpuStreamSynchronize(NULL);
  return ok;
}

/* cuDNN's descriptors for the layer and its fastest algorithm, tried. */
static bool cudnn_prepare(conv_run *c) {
  const conv_workload *cw = c->cw;
  const conv_layer *l = cw->layer;
  if (!cudnn_ok(cudnn.create_tensor(&c->x_desc), "cudnnCreateTensorDescriptor") ||
      !cudnn_ok(cudnn.create_tensor(&c->y_desc), "cudnnCreateTensorDescriptor") ||
      !cudnn_ok(cudnn.create_filter(&c->w_desc), "cudnnCreateFilterDescriptor") ||
      !cudnn_ok(cudnn.create_conv(&c->conv_desc), "cudnnCreateConvolutionDescriptor"))
    return false;
  /* NHWC tensors; an NHWC filter is [F][KH][KW][C]. The padding is in the
   * input already. */
  if (!cudnn_ok(cudnn.set_tensor(c->x_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF,
                                 (int)cw->n, (int)l->c, (int)cw->hp, (int)cw->wp),
                "cudnnSetTensor4dDescriptor") ||
      !cudnn_ok(cudnn.set_tensor(c->y_desc, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF,
                                 (int)cw->n, (int)l->f, (int)cw->oh, (int)cw->ow),
                "cudnnSetTensor4dDescriptor") ||
      !cudnn_ok(cudnn.set_filter(c->w_desc, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC,
                                 (int)l->f, (int)l->c, (int)l->k, (int)l->k),
                "cudnnSetFilter4dDescriptor") ||
      !cudnn_ok(cudnn.set_conv(c->conv_desc, 0, 0, (int)l->stride,
                               (int)l->stride, 1, 1, CUDNN_CROSS_CORRELATION,
                               CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor") ||
      !cudnn_ok(cudnn.set_math(c->conv_desc, CUDNN_TENSOR_OP_MATH),
                "cudnnSetConvolutionMathType"))
    return false;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  if (!cudnn_ok(cudnn.find(cudnn.handle, c->x_desc, c->w_desc, c->conv_desc,
                           c->y_desc, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found,
                           perf),
                "cudnnFindConvolutionForwardAlgorithm"))
    return false;
  for (int i = 0; i < found; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) {
      c->algo = perf[i].algo;
      break;
    }
  if (!cudnn_ok(cudnn.workspace_size(cudnn.handle, c->x_desc, c->w_desc,
                                     c->conv_desc, c->y_desc, c->algo,
                                     &c->workspace_bytes),
                "cudnnGetConvolutionForwardWorkspaceSize"))
    return false;
  if (c->workspace_bytes)
    c->workspace = device_copy(NULL, c->workspace_bytes);
  return true;
}

static bool run_conv(const conv_workload *cw, const char *dir, int reps,
                     result *r) {
  const conv_layer *l = cw->layer;
  conv_run c = {0};
  c.cw = cw;
  c.fn = (void (*)(memref_4d *, memref_4d *, memref_4d *))load_entry(dir, cw->name);
  if (!c.fn || !cudnn_prepare(&c))
    return false;
  size_t nx = (size_t)(cw->n * cw->hp * cw->wp * l->c);
  size_t nw = (size_t)(l->k * l->k * l->c * l->f);
  size_t ny = (size_t)(cw->n * cw->oh * cw->ow * l->f);
  uint16_t *hx = random_input(IN_F16, nx, 3), *hw = random_input(IN_F16, nw, 4);
  /* Zero the padding, as a padding copy would have. */
  for (int64_t b = 0; b < cw->n; ++b)
    for (int64_t y = 0; y < cw->hp; ++y)
      for (int64_t x = 0; x < cw->wp; ++x)
        if (y < l->pad || y >= cw->hp - l->pad || x < l->pad || x >= cw->wp - l->pad)
          memset(hx + ((b * cw->hp + y) * cw->wp + x) * l->c, 0, (size_t)l->c * 2);
  /* cuDNN's filter layout: [F][KH][KW][C] from Tessel's [KH][KW][C][F]. */
  uint16_t *hwk = malloc(nw * 2);
  for (int64_t i = 0; i < l->k; ++i)
    for (int64_t j = 0; j < l->k; ++j)
      for (int64_t ch = 0; ch < l->c; ++ch)
        for (int64_t f = 0; f < l->f; ++f)
          hwk[((f * l->k + i) * l->k + j) * l->c + ch] =
              hw[((i * l->k + j) * l->c + ch) * l->f + f];
  c.dx = device_copy(hx, nx * 2);
  void *dw = device_copy(hw, nw * 2);
  c.dwk = device_copy(hwk, nw * 2);
  void *dy = device_copy(NULL, ny * 2);
  c.dref = device_copy(NULL, ny * 2);
  c.vx = view_4d(c.dx, cw->n, cw->hp, cw->wp, l->c);
  c.vw = view_4d(dw, l->k, l->k, l->c, l->f);
  c.vy = view_4d(dy, cw->n, cw->oh, cw->ow, l->f);
  if (!time_pair(reps, conv_tessel, conv_cudnn, &c, r))
    return false;

  uint16_t *hy = malloc(ny * 2), *href = malloc(ny * 2);
  mgpuMemcpy(hy, dy, ny * 2, NULL);
  mgpuMemcpy(href, c.dref, ny * 2, NULL);
  double typical = sqrt((double)(l->k * l->k * l->c));
  r->max_rel_vs_peer = max_difference(hy, href, ACC_F16, ny, typical);
  r->max_rel_vs_ref = 0;
  for (int s = 0; s < 256; ++s) {
    size_t i = (size_t)((s * 2654435761u) % ny);
    int64_t f = (int64_t)(i % (size_t)l->f), pix = (int64_t)(i / (size_t)l->f);
    int64_t ox = pix % cw->ow, oy = pix / cw->ow % cw->oh, b = pix / (cw->ow * cw->oh);
    double sum = 0;
    for (int64_t ki = 0; ki < l->k; ++ki)
      for (int64_t kj = 0; kj < l->k; ++kj)
        for (int64_t ch = 0; ch < l->c; ++ch)
          sum += input_at(hx, IN_F16, (size_t)(((b * cw->hp + oy * l->stride + ki) *
                                                    cw->wp + ox * l->stride + kj) *
                                                       l->c + ch)) *
                 input_at(hw, IN_F16, (size_t)(((ki * l->k + kj) * l->c + ch) * l->f + f));
    double d = fabs(acc_at(hy, ACC_F16, i) - sum) / typical;
    if (!(d <= r->max_rel_vs_ref))
      r->max_rel_vs_ref = isnan(d) ? INFINITY : d;
  }
  /* f16 outputs of f32 sums: their rounding, relative to a typical sum. */
  r->ok = r->max_rel_vs_peer <= 2e-3 && r->max_rel_vs_ref <= 2e-3;
  free(hx); free(hw); free(hwk); free(hy); free(href);
  mgpuMemFree(c.dx, NULL); mgpuMemFree(dw, NULL); mgpuMemFree(c.dwk, NULL);
  mgpuMemFree(dy, NULL); mgpuMemFree(c.dref, NULL);
  if (c.workspace)
    mgpuMemFree(c.workspace, NULL);
  return true;
}

static bool selected(const char *only, const char *name) {
  if (!only)
    return true;
  size_t length = strlen(name);
  for (const char *p = only; (p = strstr(p, name)); p += length)
    if ((p == only || p[-1] == ',') && (p[length] == ',' || !p[length]))
      return true;
  return false;
}

/* One table row and one JSON row. */
static void report(FILE *out, int *rows, const char *name, const char *shape,
                   double flop, const char *peer, const result *r) {
  double tt = flop / (r->tessel_ms * 1e-3) / 1e12;
  double pt = flop / (r->peer_ms * 1e-3) / 1e12;
  printf("%-22s %-20s %10.3f %10.1f %10.1f %8.3f  %s (vs %s %.1e, vs double "
         "%.1e)\n",
         name, shape, r->tessel_ms, tt, pt, tt / pt, r->ok ? "PASS" : "FAIL",
         peer, r->max_rel_vs_peer, r->max_rel_vs_ref);
  fflush(stdout); /* a row printed stays printed if a later one hangs */
  if (out)
    fprintf(out,
            "%s{\"name\": \"%s\", \"shape\": \"%s\", \"peer\": \"%s\", "
            "\"tessel_ms\": %.6f, \"peer_ms\": %.6f, \"tessel_tflops\": "
            "%.3f, \"peer_tflops\": %.3f, \"ratio\": %.4f, \"pass\": %s}",
            (*rows)++ ? ", " : "", name, shape, peer, r->tessel_ms,
            r->peer_ms, tt, pt, tt / pt, r->ok ? "true" : "false");
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
      /* matmul: NAME matmul IN ACC M N K; conv: NAME conv N HP WP C F K
       * STRIDE OH OW (what run-gpu-bench.sh --build compiles). */
      for (size_t w = 0; w < sizeof kWorkloads / sizeof *kWorkloads; ++w) {
        const workload *x = &kWorkloads[w];
        printf("%s matmul %s %s %ld %ld %ld\n", x->name,
               x->in == IN_F16   ? "f16"
               : x->in == IN_F32 ? "f32"
               : x->in == IN_F64 ? "f64"
                                 : "i8",
               x->acc == ACC_F32   ? "f32"
               : x->acc == ACC_F64 ? "f64"
               : x->acc == ACC_F16 ? "f16"
                                   : "i32",
               (long)x->m, (long)x->n, (long)x->k);
      }
      for (size_t l = 0; l < sizeof kConvLayers / sizeof *kConvLayers; ++l)
        for (size_t b = 0; b < sizeof kConvBatches / sizeof *kConvBatches; ++b) {
          conv_workload c = conv_workload_at(&kConvLayers[l], kConvBatches[b]);
          printf("%s conv %ld %ld %ld %ld %ld %ld %ld %ld %ld\n", c.name,
                 (long)c.n, (long)c.hp, (long)c.wp, (long)c.layer->c,
                 (long)c.layer->f, (long)c.layer->k, (long)c.layer->stride,
                 (long)c.oh, (long)c.ow);
        }
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
  /* cuDNN only when a convolution is asked for: a matmul-only run (such as
   * run-gpu-bench.sh --bars) works without it. */
  bool any_conv = false;
  for (size_t l = 0; l < sizeof kConvLayers / sizeof *kConvLayers; ++l)
    for (size_t b = 0; b < sizeof kConvBatches / sizeof *kConvBatches; ++b) {
      conv_workload c = conv_workload_at(&kConvLayers[l], kConvBatches[b]);
      any_conv |= selected(only, c.name);
    }
  if (!load_cublas() || (any_conv && !load_cudnn()))
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
  printf("sm_%d%d, %d repetitions (median); ratio: Tessel TFLOPS / peer's\n",
         major, minor, reps);
  printf("%-22s %-20s %10s %10s %10s %8s  %s\n", "workload", "shape",
         "Tessel ms", "TFLOPS", "peer TF", "ratio", "check");
  int failures = 0, rows = 0;
  for (size_t i = 0; i < sizeof kWorkloads / sizeof *kWorkloads; ++i) {
    const workload *w = &kWorkloads[i];
    if (!selected(only, w->name))
      continue;
    result r;
    uint64_t errors = tessel_cuda_error_count();
    if (!run(w, dir, reps, &r)) {
      ++failures;
      continue;
    }
    /* Any failure the runtime reported during the timed calls fails the
     * row, even if the checked call came out right. */
    r.ok = r.ok && tessel_cuda_error_count() == errors;
    char shape[64];
    snprintf(shape, sizeof shape, "%ldx%ldx%ld", (long)w->m, (long)w->n,
             (long)w->k);
    report(out, &rows, w->name, shape,
           2.0 * (double)w->m * (double)w->n * (double)w->k, "cuBLAS", &r);
    failures += !r.ok;
  }
  for (size_t l = 0; l < sizeof kConvLayers / sizeof *kConvLayers; ++l)
    for (size_t b = 0; b < sizeof kConvBatches / sizeof *kConvBatches; ++b) {
      conv_workload c = conv_workload_at(&kConvLayers[l], kConvBatches[b]);
      if (!selected(only, c.name))
        continue;
      result r;
      uint64_t errors = tessel_cuda_error_count();
      if (!run_conv(&c, dir, reps, &r)) {
        ++failures;
        continue;
      }
      r.ok = r.ok && tessel_cuda_error_count() == errors;
      char shape[64];
      snprintf(shape, sizeof shape, "%ldx%ldx%ldx%ld*%ldx%ld", (long)c.n,
               (long)c.layer->h, (long)c.layer->w, (long)c.layer->c,
               (long)c.layer->k, (long)c.layer->f);
      double flop = 2.0 * (double)(c.n * c.oh * c.ow * c.layer->f) *
                    (double)(c.layer->k * c.layer->k * c.layer->c);
      report(out, &rows, c.name, shape, flop, "cuDNN", &r);
      failures += !r.ok;
    }
  if (out) {
    fprintf(out, "]}\n");
    fclose(out);
  }
  return failures ? 1 : 0;
}

/* tessel-bench: the CPU benchmark harness (Tessel vs OpenBLAS / oneDNN).
 *
 * Shared declarations of the harness's parts:
 *   workloads.c  the workload catalog, MLIR generation from templates,
 *                input data, the double-precision reference and the checks
 *   peers.c      OpenBLAS cblas_sgemm and oneDNN convolution (C API)
 *   cpu_bench.c  command line, compilation, timing loop, table and JSON
 * What it shares with tessel-image-bench is in bench_common.h.
 * See utils/bench/README.md for the method. */
#ifndef TESSEL_BENCH_H
#define TESSEL_BENCH_H

#include "tessel/runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --- Workloads -------------------------------------------------------------- */

typedef enum { WL_MATMUL, WL_CONV } bench_kind;
typedef enum { LAYOUT_NHWC, LAYOUT_NCHW } bench_layout;
/* What follows the matmul/conv in the module, as the frontends emit it: a
 * bias add over the output channels, then an activation, each its own
 * linalg.generic. */
typedef enum { EPI_NONE, EPI_BIAS_RELU, EPI_BIAS_GELU } bench_epilogue;

/* One ResNet-50 v1.5 convolution layer (per image). */
typedef struct conv_shape {
  const char *name;  /* "s1_3x3" */
  const char *layer; /* what it is in ResNet-50 v1.5 */
  int h, w;          /* input spatial size */
  int c, f;          /* input / output channels */
  int k;             /* square kernel */
  int stride, pad;   /* symmetric */
} conv_shape;

extern const conv_shape bench_conv_shapes[];
extern const size_t bench_num_conv_shapes;

typedef struct workload {
  bench_kind kind;
  char id[96];    /* file/function name: matmul_1024x1024x1024, conv_nhwc_s1_3x3_b8 */
  char group[16]; /* matmul | conv | epilogue */
  char label[48]; /* table column "workload" */
  char shape[96]; /* table column "shape" */
  double flops;   /* per call: 2 * MACs */
  double macs;

  /* matmul: C[m][n] = sum_k A[m][k] * B[k][n] */
  int m, n, k;
  /* conv */
  const conv_shape *cs;
  bench_layout layout; /* NHWC/HWCF or NCHW/FCHW */
  int batch, oh, ow;
  /* EPI_NONE, or the epilogue whose cost the row measures against the same
   * module without it (the "bare" module, compiled as <id>_bare). */
  bench_epilogue epilogue;

  /* Tensor shapes of the entry point (rank 2 or 4). */
  int rank;
  int64_t in0_shape[4], in1_shape[4], out_shape[4];
  size_t in0_count, in1_count, out_count;
  size_t bias_count; /* epilogue: one bias per output channel (n or f) */

  /* Compilation (once per run). Epilogue workloads: `entry` takes the bias
   * as a third argument (a, b, bias, out); `entry_bare` is the module
   * without the epilogue (a, b, out). */
  int compiled; /* 0 not yet, 1 ok, -1 failed */
  double compile_s;
  void *dl, *dl_bare;
  void *entry, *entry_bare;

  /* Inputs (allocated while the workload runs). */
  float *in0, *in1, *bias;

  /* Reference: out_count outputs when `ref_full`, else ref_count samples at
   * ref_index[]. */
  bool ref_full;
  size_t ref_count;
  size_t *ref_index;
  double *ref;
  double ref_rms;
} workload;

/* Builds the full catalog (matmul sizes, then conv NHWC, then conv NCHW,
 * then the epilogue workloads). */
size_t bench_build_catalog(workload **out);

/* Writes the MLIR module of `w` (one public function named `name`); with
 * `bare`, without the epilogue. */
int bench_write_mlir(const workload *w, const char *name, bool bare, FILE *f);

/* Allocates and fills w->in0/in1 (and the bias) with reproducible random
 * values in [-1, 1). */
int bench_alloc_inputs(workload *w);
void bench_free_inputs(workload *w);

/* Computes the double-precision reference (all outputs when the workload has
 * at most `full_max_macs` multiply-adds, else `samples` random outputs).
 * Uses all cores. */
int bench_compute_reference(workload *w, double full_max_macs, size_t samples);
void bench_free_reference(workload *w);

typedef struct check_result {
  bool pass;
  size_t checked, mismatches;
  double max_rel_error;
} check_result;

/* Compares `actual` (w->out_count floats in the workload's output layout)
 * with the reference: |a - e| <= rel_tol * |e| + rel_tol * rms(reference). */
check_result bench_check(const workload *w, const char *label,
                         const float *actual, double rel_tol);

/* --- Peers -------------------------------------------------------------------- */

/* Library identification, filled by peers_init. */
typedef struct peer_info {
  bool have_openblas, have_onednn;
  char openblas[160]; /* config + core */
  char onednn[160];   /* version + ISA */
  char omp_binding[256];
} peer_info;

/* Re-runs the program (execv of /proc/self/exe with `argv`) when OpenBLAS
 * loaded kernels without AVX-512 on a CPU that has it; see peers.c. Call
 * first thing in main. */
void peers_prefer_avx512_openblas(const char *tool, char **argv);
void peers_init(peer_info *info);
void peers_shutdown(void);

/* Sets the thread count for OpenMP (Tessel's code and oneDNN) and OpenBLAS. */
void peers_set_threads(int threads);

/* Matmul peer: OpenBLAS cblas_sgemm, row-major, beta = 0. With an
 * epilogue, followed by the bias and the activation in a C loop over the
 * rows (OpenMP, what a library-based stack runs after the GEMM). */
bool peer_sgemm_available(void);
void peer_sgemm(const workload *w, const float *a, const float *b, float *c);

/* Conv peer: a oneDNN forward-inference direct convolution whose src,
 * weights and dst layouts oneDNN picks (format `any`). The weights are
 * reordered once at creation. With EPI_BIAS_RELU, oneDNN's own fusion: the
 * bias argument and an eltwise relu post-op. */
typedef struct onednn_conv onednn_conv;
bool peer_onednn_available(void);
/* Creates the primitive for the current thread count; `src`/`wei` are the
 * user tensors in the workload's layout, `dst` receives the user-layout
 * result from onednn_conv_to_user. */
onednn_conv *onednn_conv_create(const workload *w, float *src, float *wei,
                                float *bias, float *dst, char *err,
                                size_t err_len);
void onednn_conv_destroy(onednn_conv *c);
/* Reorders the user src into the layout the primitive wants (no-op when the
 * same); returns the seconds taken. */
double onednn_conv_src_in(onednn_conv *c);
/* Runs the convolution only. */
void onednn_conv_run(onednn_conv *c);
/* Reorders the result into the user dst (no-op when the same); returns the
 * seconds taken. */
double onednn_conv_dst_out(onednn_conv *c);
/* "src nChw16c, wei OIhw16i16o, dst nChw16c; jit:avx512_core" */
const char *onednn_conv_describe(const onednn_conv *c);
const char *onednn_conv_src_fmt(const onednn_conv *c);
const char *onednn_conv_wei_fmt(const onednn_conv *c);
const char *onednn_conv_dst_fmt(const onednn_conv *c);
const char *onednn_conv_impl(const onednn_conv *c);

#endif /* TESSEL_BENCH_H */

/* tessel-attention-bench: fused attention softmax(Q K^T / sqrt(d)) V against
 * Tessel's own plain matmul running the same two products unfused, in one
 * process.
 *
 *   tessel-attention-bench [--shapes BHxSxD,...] [--threads 1,2] [--reps N]
 *                          [--min-time S] [--budget S] [--gap-ms N]
 *                          [--json FILE] [--work-dir DIR]
 *                          [--tessel-compile PATH] [--rel-tol T]
 *
 * Per shape (BH heads, S queries and keys, head dim D = value dim) the
 * harness writes two modules and compiles them with tessel-compile:
 *   attention  the attention as the frontends emit it (batch_matmul of Q and
 *              a transposed K, a scale, linalg.softmax, batch_matmul with V),
 *              which tessel-fuse-attention turns into one online-softmax
 *              kernel;
 *   matmuls    qk: linalg.matmul S x D by D x S, and pv: S x S by S x D, the
 *              two products of one head as plain Tessel matmuls (packed,
 *              register-tiled kernels), called BH times each per attention.
 * Both do 2 BH S^2 (D + D) flops. Sampled rows of the attention are checked
 * against a double-precision reference, and sampled elements of each
 * product. Per thread count: warm-up and check, then R repetitions of
 * (attention batch, matmul batch), interleaved; the median per-call time
 * of each side gives its GFLOP/s, and the ratio attention / matmuls is
 * what issue 4's bar (>= 0.8 at S = 2048) is about. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_common.h"
#include "tessel/runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef TESSEL_BENCH_DEFAULT_COMPILER
#define TESSEL_BENCH_DEFAULT_COMPILER "tessel-compile"
#endif
#ifndef TESSEL_BENCH_DEFAULT_WORKDIR
#define TESSEL_BENCH_DEFAULT_WORKDIR "tessel-attention-bench-work"
#endif

#define MAX_SHAPES 16
#define CHECK_ROWS 24

typedef void (*fn3)(tessel_memref_f32_3d *, tessel_memref_f32_3d *,
                    tessel_memref_f32_3d *, tessel_memref_f32_3d *);
typedef void (*fn2)(tessel_memref_f32_2d *, tessel_memref_f32_2d *,
                    tessel_memref_f32_2d *);

typedef struct shape {
  int64_t bh, s, d;
  char name[48];
} shape;

typedef struct options {
  bench_options common;
  shape shapes[MAX_SHAPES];
  int num_shapes;
} options;

typedef struct result {
  const shape *sh;
  int threads;
  bool ran, pass;
  double max_err;
  double compile_attention_s, compile_matmuls_s;
  double t_attention, t_matmuls; /* median seconds per attention */
  int reps, calls_attention, calls_matmuls;
  double busy;
} result;

static void usage(FILE *f) {
  fputs("usage: tessel-attention-bench [options]\n"
        "  --shapes LIST       BHxSxD (heads x sequence x head dim), default\n"
        "                      8x512x64,8x2048x64,8x2048x128,16x1024x64\n"
        "  --threads LIST      thread counts (default 1,2)\n"
        "  --reps N            timed repetitions, median reported (default 7)\n"
        "  --min-time S        per side, the repetitions take at least S s\n"
        "  --budget S          per side and shape, cut repetitions to ~S s\n"
        "  --gap-ms N          idle time between batches (default: 0 at 1\n"
        "                      thread, 250 at more)\n"
        "  --rel-tol T         check tolerance (default 1e-4)\n"
        "  --json FILE         write every row as JSON\n"
        "  --work-dir DIR      generated .mlir/.so/.h/.log files\n"
        "  --tessel-compile P  the driver\n",
        f);
}

static int parse_shape(const char *text, shape *sh) {
  long long bh, s, d;
  char tail;
  if (sscanf(text, "%lldx%lldx%lld%c", &bh, &s, &d, &tail) != 3 || bh < 1 ||
      s < 16 || d < 1 || bh > 4096 || s > 65536 || d > 1024)
    return -1;
  sh->bh = bh, sh->s = s, sh->d = d;
  snprintf(sh->name, sizeof sh->name, "%lldx%lldx%lld", bh, s, d);
  return 0;
}

static int own_option(void *ctx, const char *name, char *val) {
  options *o = ctx;
  if (!val)
    return 0;
  if (strcmp(name, "--shapes") != 0)
    return 0;
  const char *toks[MAX_SHAPES];
  int n = bench_split_list(val, toks, MAX_SHAPES);
  if (n <= 0)
    return -1;
  for (int i = 0; i < n; ++i)
    if (parse_shape(toks[i], &o->shapes[i]) != 0)
      return -1;
  o->num_shapes = n;
  return 1;
}

/* --- Modules ------------------------------------------------------------------ */

static int write_attention(const shape *sh, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  const long long b = sh->bh, s = sh->s, d = sh->d;
  char q[64], kt[64], sc[64];
  snprintf(q, sizeof q, "tensor<%lldx%lldx%lldxf32>", b, s, d);
  snprintf(kt, sizeof kt, "tensor<%lldx%lldx%lldxf32>", b, d, s);
  snprintf(sc, sizeof sc, "tensor<%lldx%lldx%lldxf32>", b, s, s);
  fprintf(f,
          "// softmax(Q K^T / sqrt(%lld)) V over %lld heads, as the frontends emit it.\n"
          "#id = affine_map<(b, i, j) -> (b, i, j)>\n"
          "#scalar = affine_map<(b, i, j) -> ()>\n"
          "func.func @attention(%%q: %s, %%k: %s, %%v: %s) -> %s {\n"
          "  %%zero = arith.constant 0.0 : f32\n"
          "  %%scale = arith.constant dense<%.9e> : tensor<f32>\n"
          "  %%kt0 = tensor.empty() : %s\n"
          "  %%kt = linalg.transpose ins(%%k : %s) outs(%%kt0 : %s) permutation = [0, 2, 1]\n"
          "  %%s0 = tensor.empty() : %s\n"
          "  %%sz = linalg.fill ins(%%zero : f32) outs(%%s0 : %s) -> %s\n"
          "  %%s = linalg.batch_matmul ins(%%q, %%kt : %s, %s) outs(%%sz : %s) -> %s\n"
          "  %%x = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = "
          "[\"parallel\", \"parallel\", \"parallel\"]} ins(%%s, %%scale : %s, tensor<f32>) "
          "outs(%%s0 : %s) {\n"
          "  ^bb0(%%a: f32, %%c: f32, %%o: f32):\n"
          "    %%m = arith.mulf %%a, %%c : f32\n"
          "    linalg.yield %%m : f32\n"
          "  } -> %s\n"
          "  %%p = linalg.softmax dimension(2) ins(%%x : %s) outs(%%s0 : %s) -> %s\n"
          "  %%o0 = tensor.empty() : %s\n"
          "  %%oz = linalg.fill ins(%%zero : f32) outs(%%o0 : %s) -> %s\n"
          "  %%o = linalg.batch_matmul ins(%%p, %%v : %s, %s) outs(%%oz : %s) -> %s\n"
          "  return %%o : %s\n"
          "}\n",
          d, b, q, q, q, q, 1.0 / sqrt((double)d), kt, q, kt, sc, sc, sc, q, kt, sc, sc,
          sc, sc, sc, sc, sc, sc, q, q, q, sc, q, q, q, q);
  return fclose(f);
}

/* func.func @name(a: m x k, b: k x n) -> m x n, a plain linalg.matmul. */
static void write_matmul(FILE *f, const char *name, long long m, long long k,
                         long long n) {
  char a[48], b[48], c[48];
  snprintf(a, sizeof a, "tensor<%lldx%lldxf32>", m, k);
  snprintf(b, sizeof b, "tensor<%lldx%lldxf32>", k, n);
  snprintf(c, sizeof c, "tensor<%lldx%lldxf32>", m, n);
  fprintf(f,
          "func.func @%s(%%a: %s, %%b: %s) -> %s {\n"
          "  %%zero = arith.constant 0.0 : f32\n"
          "  %%e = tensor.empty() : %s\n"
          "  %%z = linalg.fill ins(%%zero : f32) outs(%%e : %s) -> %s\n"
          "  %%r = linalg.matmul ins(%%a, %%b : %s, %s) outs(%%z : %s) -> %s\n"
          "  return %%r : %s\n"
          "}\n",
          name, a, b, c, c, c, c, a, b, c, c, c);
}

/* The two products of one head as plain matmuls: qk (S x D by D x S) and
 * pv (S x S by S x D). */
static int write_matmuls(const shape *sh, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fputs("// The two products of one attention head as plain matmuls.\n", f);
  write_matmul(f, "qk", sh->s, sh->d, sh->s);
  write_matmul(f, "pv", sh->s, sh->s, sh->d);
  return fclose(f);
}

/* Compiles `mlir` to <stem>.so and dlopens it; NULL (and a message) when
 * that fails. */
static void *compile(const options *o, const char *mlir, const char *stem,
                     double *seconds) {
  static const char *const exts[2] = {"so", "log"};
  bench_files fs;
  bench_files_init(&fs, o->common.work_dir, stem, exts, 2);
  char *args[] = {(char *)o->common.compiler, (char *)mlir, "--target=cpu", "-o",
                  fs.tmp[0], NULL};
  int run = bench_run_logged(args, fs.tmp[1], seconds);
  void *dl = NULL;
  if (run != 0) {
    fprintf(stderr, "tessel-attention-bench: tessel-compile failed on %s (log %s)\n",
            mlir, fs.final[1]);
    bench_print_log_head(fs.tmp[1]);
  } else if (!(dl = dlopen(fs.tmp[0], RTLD_NOW | RTLD_LOCAL))) {
    fprintf(stderr, "tessel-attention-bench: dlopen: %s\n", dlerror());
  }
  bench_files_publish(&fs);
  return dl;
}

/* --- Data, reference, calls -------------------------------------------------- */

typedef struct data {
  const shape *sh;
  float *q, *k, *v, *o;   /* [bh][s][d] */
  float *kt, *scores, *pv; /* one head: [d][s], [s][s], [s][d] */
  fn3 attention;
  fn2 qk, pvf;
} data;

static float *alloc_random(size_t n, uint64_t seed) {
  float *p = tessel_aligned_alloc(n, sizeof(float), 64);
  if (!p) {
    fprintf(stderr, "tessel-attention-bench: out of memory\n");
    exit(1);
  }
  tessel_fill_random_f32(p, n, seed);
  return p;
}

static void call_attention(data *x) {
  const shape *sh = x->sh;
  tessel_memref_f32_3d q, k, v, o;
  tessel_memref_f32_init_3d(&q, x->q, sh->bh, sh->s, sh->d);
  tessel_memref_f32_init_3d(&k, x->k, sh->bh, sh->s, sh->d);
  tessel_memref_f32_init_3d(&v, x->v, sh->bh, sh->s, sh->d);
  tessel_memref_f32_init_3d(&o, x->o, sh->bh, sh->s, sh->d);
  x->attention(&q, &k, &v, &o);
}

/* The unfused pair, head by head: S = Q K^T (K^T given), then S V (the
 * scores stand in for the probabilities: same flops, same traffic). */
static void call_matmuls(data *x) {
  const shape *sh = x->sh;
  for (int64_t h = 0; h < sh->bh; ++h) {
    tessel_memref_f32_2d q, kt, s, s2, v, o;
    tessel_memref_f32_init_2d(&q, x->q + h * sh->s * sh->d, sh->s, sh->d);
    tessel_memref_f32_init_2d(&kt, x->kt, sh->d, sh->s);
    tessel_memref_f32_init_2d(&s, x->scores, sh->s, sh->s);
    x->qk(&q, &kt, &s);
    tessel_memref_f32_init_2d(&s2, x->scores, sh->s, sh->s);
    tessel_memref_f32_init_2d(&v, x->v + h * sh->s * sh->d, sh->s, sh->d);
    tessel_memref_f32_init_2d(&o, x->pv, sh->s, sh->d);
    x->pvf(&s2, &v, &o);
  }
}

/* Rows spread over the heads, against a double-precision reference. */
static bool check_attention(const data *x, double rel_tol, double *max_err) {
  const shape *sh = x->sh;
  const int64_t s = sh->s, d = sh->d;
  const double scale = 1.0 / sqrt((double)d);
  double *row = malloc((size_t)s * sizeof(double));
  bool pass = true;
  *max_err = 0.0;
  for (int c = 0; c < CHECK_ROWS; ++c) {
    int64_t h = (int64_t)c * sh->bh / CHECK_ROWS;
    int64_t i = ((int64_t)c * 7919 + 13) % s;
    const float *qi = x->q + (h * s + i) * d;
    double mx = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j < s; ++j) {
      double acc = 0.0;
      for (int64_t p = 0; p < d; ++p)
        acc += (double)qi[p] * x->k[(h * s + j) * d + p];
      row[j] = acc * scale;
      mx = row[j] > mx ? row[j] : mx;
    }
    for (int64_t j = 0; j < s; ++j)
      sum += (row[j] = exp(row[j] - mx));
    for (int64_t col = 0; col < d; ++col) {
      double ref = 0.0;
      for (int64_t j = 0; j < s; ++j)
        ref += row[j] / sum * x->v[(h * s + j) * d + col];
      double got = x->o[(h * s + i) * d + col];
      double err = fabs(got - ref) / (fabs(ref) + 1e-2);
      *max_err = err > *max_err ? err : *max_err;
      if (!(fabs(got - ref) <= rel_tol * fabs(ref) + rel_tol * 1e-1))
        pass = false;
    }
  }
  free(row);
  return pass;
}

/* Sampled elements of the last head's two products. */
static bool check_matmuls(const data *x, double rel_tol) {
  const shape *sh = x->sh;
  const int64_t s = sh->s, d = sh->d, h = sh->bh - 1;
  const float *q = x->q + h * s * d, *v = x->v + h * s * d;
  for (int c = 0; c < 64; ++c) {
    int64_t i = (c * 7919 + 5) % s, j = (c * 104729 + 11) % s, col = c % d;
    double ref = 0.0;
    for (int64_t p = 0; p < d; ++p)
      ref += (double)q[i * d + p] * x->kt[p * s + j];
    if (fabs(x->scores[i * s + j] - ref) > rel_tol * (fabs(ref) + 1.0))
      return false;
    ref = 0.0;
    for (int64_t p = 0; p < s; ++p)
      ref += (double)x->scores[i * s + p] * v[p * d + col];
    if (fabs(x->pv[i * d + col] - ref) > rel_tol * (fabs(ref) + 1.0) * 4)
      return false;
  }
  return true;
}

static double batch(data *x, bool attention, int calls) {
  double t0 = tessel_now_seconds();
  for (int c = 0; c < calls; ++c) {
    if (attention)
      call_attention(x);
    else
      call_matmuls(x);
  }
  return (tessel_now_seconds() - t0) / calls;
}

static void measure(const options *o, data *x, int threads, result *r) {
  const int gap = bench_gap_ms(&o->common, threads);
  omp_set_num_threads(threads);
  r->threads = threads;
  /* Warm-up calls, checked. */
  bench_fill_nan(x->o, (size_t)(x->sh->bh * x->sh->s * x->sh->d));
  double ta = batch(x, true, 1);
  r->pass = check_attention(x, o->common.rel_tol, &r->max_err);
  bench_sleep_ms(gap);
  double tm = batch(x, false, 1);
  r->pass = r->pass && check_matmuls(x, o->common.rel_tol);
  ta = fmin(ta, batch(x, true, 1));
  tm = fmin(tm, batch(x, false, 1));
  r->calls_attention = bench_calls_for(ta, o->common.min_time / o->common.reps);
  r->calls_matmuls = bench_calls_for(tm, o->common.min_time / o->common.reps);
  int reps = o->common.reps;
  double per_rep = ta * r->calls_attention + tm * r->calls_matmuls;
  if (per_rep * reps > 2 * o->common.budget)
    reps = (int)fmax(1.0, 2 * o->common.budget / per_rep);
  double *sa = calloc((size_t)reps, sizeof(double));
  double *sm = calloc((size_t)reps, sizeof(double));
  const bench_cpu_sample start = bench_cpu_sample_now();
  for (int rep = 0; rep < reps; ++rep) {
    bench_sleep_ms(gap);
    sa[rep] = batch(x, true, r->calls_attention);
    bench_sleep_ms(gap);
    sm[rep] = batch(x, false, r->calls_matmuls);
  }
  r->busy = bench_cpu_others(start, bench_cpu_sample_now());
  r->t_attention = tessel_median(sa, (size_t)reps);
  r->t_matmuls = tessel_median(sm, (size_t)reps);
  r->reps = reps;
  r->ran = true;
  free(sa);
  free(sm);
}

static double flops(const shape *sh) {
  return 4.0 * (double)sh->bh * (double)sh->s * (double)sh->s * (double)sh->d;
}

/* --- Main ----------------------------------------------------------------------- */

int main(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  const bench_cli cli = {"tessel-attention-bench", usage, MAX_SHAPES,
                         TESSEL_BENCH_DEFAULT_WORKDIR, TESSEL_BENCH_DEFAULT_COMPILER,
                         own_option, &o};
  if (bench_parse_options(argc, argv, &cli, &o.common) != 0)
    return 2;
  if (o.num_shapes == 0) {
    const char *defaults[] = {"8x512x64", "8x2048x64", "8x2048x128", "16x1024x64"};
    for (int i = 0; i < 4; ++i)
      parse_shape(defaults[i], &o.shapes[o.num_shapes++]);
  }
  if (bench_make_work_dir("tessel-attention-bench", o.common.work_dir) != 0)
    return 1;
  char load_before[64], load_after[64], cpu[128];
  bench_load_average(load_before, sizeof load_before);
  bench_cpu_model(cpu, sizeof cpu);

  result results[MAX_SHAPES * BENCH_MAX_LIST];
  int nres = 0, failures = 0;
  for (int si = 0; si < o.num_shapes; ++si) {
    const shape *sh = &o.shapes[si];
    char mlir_a[BENCH_PATH_MAX], mlir_m[BENCH_PATH_MAX], stem_a[96], stem_m[96];
    snprintf(stem_a, sizeof stem_a, "attention_%s", sh->name);
    snprintf(stem_m, sizeof stem_m, "matmuls_%s", sh->name);
    snprintf(mlir_a, sizeof mlir_a, "%s/%s.mlir", o.common.work_dir, stem_a);
    snprintf(mlir_m, sizeof mlir_m, "%s/%s.mlir", o.common.work_dir, stem_m);
    result base;
    memset(&base, 0, sizeof base);
    base.sh = sh;
    if (write_attention(sh, mlir_a) != 0 || write_matmuls(sh, mlir_m) != 0) {
      fprintf(stderr, "tessel-attention-bench: cannot write %s\n", mlir_a);
      return 1;
    }
    bench_progress("%s: compiling\n", sh->name);
    void *dla = compile(&o, mlir_a, stem_a, &base.compile_attention_s);
    void *dlm = compile(&o, mlir_m, stem_m, &base.compile_matmuls_s);
    data x = {.sh = sh};
    if (dla)
      x.attention = (fn3)dlsym(dla, "_mlir_ciface_attention");
    if (dlm) {
      x.qk = (fn2)dlsym(dlm, "_mlir_ciface_qk");
      x.pvf = (fn2)dlsym(dlm, "_mlir_ciface_pv");
    }
    if (!x.attention || !x.qk || !x.pvf) {
      ++failures;
      results[nres++] = base;
      continue;
    }
    const size_t n = (size_t)(sh->bh * sh->s * sh->d);
    x.q = alloc_random(n, 1), x.k = alloc_random(n, 2), x.v = alloc_random(n, 3);
    x.o = alloc_random(n, 4);
    x.kt = alloc_random((size_t)(sh->d * sh->s), 5);
    for (int64_t j = 0; j < sh->s; ++j) /* K^T of the last head */
      for (int64_t p = 0; p < sh->d; ++p)
        x.kt[p * sh->s + j] = x.k[((sh->bh - 1) * sh->s + j) * sh->d + p];
    x.scores = alloc_random((size_t)(sh->s * sh->s), 6);
    x.pv = alloc_random((size_t)(sh->s * sh->d), 7);
    for (int ti = 0; ti < o.common.num_threads; ++ti) {
      result *r = &results[nres++];
      *r = base;
      measure(&o, &x, o.common.threads[ti], r);
      failures += !r->pass;
      bench_progress("  %dT attention %.2f ms, matmuls %.2f ms, %s (max err %.1e)\n",
                     r->threads, 1e3 * r->t_attention, 1e3 * r->t_matmuls,
                     r->pass ? "PASS" : "FAIL", r->max_err);
    }
    tessel_free(x.q), tessel_free(x.k), tessel_free(x.v), tessel_free(x.o);
    tessel_free(x.kt), tessel_free(x.scores), tessel_free(x.pv);
  }
  bench_load_average(load_after, sizeof load_after);

  printf("\ntessel-attention-bench on %s (load %s -> %s)\n", cpu, load_before, load_after);
  printf("attention = softmax(Q K^T / sqrt(d)) V, fused by tessel-fuse-attention;\n"
         "matmuls = the same two products as plain Tessel matmuls, head by head\n"
         "(QK^T: S x D x S, then PV: S x S x D); bar: attention >= 0.8x matmuls at S = 2048\n\n");
  printf("%-12s %3s %11s %9s %11s %9s %7s %6s %5s %6s\n", "BHxSxD", "thr", "attention",
         "GFLOP/s", "matmuls", "GFLOP/s", "ratio", "check", "reps", "busy");
  for (int i = 0; i < nres; ++i) {
    const result *r = &results[i];
    if (!r->ran) {
      printf("%-12s  compile failed\n", r->sh->name);
      continue;
    }
    char busy[24];
    bench_fmt_busy(busy, sizeof busy, r->busy, r->threads, "*");
    double fl = flops(r->sh);
    printf("%-12s %3d %8.2f ms %9.1f %8.2f ms %9.1f %6.2fx %6s %5d %6s\n", r->sh->name,
           r->threads, 1e3 * r->t_attention, fl / r->t_attention * 1e-9,
           1e3 * r->t_matmuls, fl / r->t_matmuls * 1e-9, r->t_matmuls / r->t_attention,
           r->pass ? "PASS" : "FAIL", r->reps, busy);
  }
  if (o.common.json) {
    FILE *f = bench_json_begin("tessel-attention-bench", o.common.json, load_before,
                               load_after);
    if (!f)
      return 1;
    fputs(",\n  \"rows\": [", f);
    for (int i = 0; i < nres; ++i) {
      const result *r = &results[i];
      fprintf(f, "%s\n    {\"shape\": ", i ? "," : "");
      bench_json_str(f, r->sh->name);
      fprintf(f, ", \"heads\": %lld, \"seq\": %lld, \"head_dim\": %lld, \"threads\": %d, "
                 "\"ran\": %s, \"check\": %s, \"flops\": %.0f, \"attention_s\": ",
              (long long)r->sh->bh, (long long)r->sh->s, (long long)r->sh->d, r->threads,
              r->ran ? "true" : "false", r->pass ? "true" : "false", flops(r->sh));
      bench_json_num(f, r->ran ? r->t_attention : NAN);
      fputs(", \"matmuls_s\": ", f);
      bench_json_num(f, r->ran ? r->t_matmuls : NAN);
      fputs(", \"ratio\": ", f);
      bench_json_num(f, r->ran ? r->t_matmuls / r->t_attention : NAN);
      fprintf(f, ", \"reps\": %d, \"compile_attention_s\": ", r->reps);
      bench_json_num(f, r->compile_attention_s);
      fputs(", \"busy\": ", f);
      bench_json_num(f, r->busy);
      fputs("}", f);
    }
    fputs("\n  ]", f);
    if (bench_json_close(f) != 0)
      return 1;
  }
  return failures ? 1 : 0;
}

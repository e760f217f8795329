/* tessel-bench: Tessel's CPU code against OpenBLAS (matmul) and oneDNN
 * (ResNet-50 convolutions), in one process; and the cost of fused epilogues
 * (bias + activation) against the same product without them.
 *
 *   tessel-bench [--only matmul,conv,conv-nhwc,conv-nchw,epilogue] [--sizes LIST]
 *                [--batch 1,8] [--threads 1,2] [--reps N] [--min-time S]
 *                [--budget S] [--max-gflop X | --skip-large] [--gap-ms N]
 *                [--json FILE] [--work-dir DIR] [--tessel-compile PATH]
 *                [--check-samples N] [--rel-tol T] [--list] [--help]
 *
 * For every selected workload the harness writes an MLIR module from its
 * template, compiles it once with tessel-compile (timing the wall time of
 * that process), dlopens the .so, computes a double-precision reference,
 * and for every thread count: warms both sides up, checks both results,
 * then runs R repetitions of (Tessel batch, peer batch), each batch n calls
 * long so that R batches take at least --min-time, and takes the median
 * per-call time of each side. utils/bench/README.md describes the method. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench.h"
#include "bench_common.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#ifndef TESSEL_BENCH_DEFAULT_COMPILER
#define TESSEL_BENCH_DEFAULT_COMPILER "tessel-compile"
#endif
#ifndef TESSEL_BENCH_DEFAULT_WORKDIR
#define TESSEL_BENCH_DEFAULT_WORKDIR "tessel-bench-work"
#endif

/* --- Options ---------------------------------------------------------------------- */

enum { ONLY_MATMUL = 1, ONLY_CONV_NHWC = 2, ONLY_CONV_NCHW = 4, ONLY_EPILOGUE = 8 };

typedef struct options {
  bench_options common; /* the options tessel-image-bench takes as well */
  unsigned only;
  const char *sizes[BENCH_MAX_LIST];
  int num_sizes;
  int batches[BENCH_MAX_LIST];
  int num_batches;
  double max_gflop, full_check_macs;
  size_t check_samples;
} options;

static void usage(FILE *f) {
  fputs(
      "usage: tessel-bench [options]\n"
      "  --only LIST         workload kinds: matmul, conv (= conv-nhwc,conv-nchw),\n"
      "                      conv-nhwc, conv-nchw, epilogue (matmul+bias+gelu,\n"
      "                      conv+bias+relu; also timed without the epilogue)\n"
      "                      (default: all)\n"
      "  --sizes LIST        keep only these: matmul N (N^3) or MxNxK, conv shape\n"
      "                      names (stem, s1_3x3, ...; a prefix like s1 takes the\n"
      "                      stage), or workload ids (see --list)\n"
      "  --batch LIST        conv batch sizes (default 1,8)\n"
      "  --threads LIST      thread counts (default 1,2)\n"
      "  --reps N            timed repetitions, median reported (default 7)\n"
      "  --min-time S        per side, the R repetitions take at least S seconds:\n"
      "                      a repetition of a fast workload is a batch of calls\n"
      "                      (default 1.0)\n"
      "  --budget S          per side and row, cut repetitions of slow Tessel code\n"
      "                      to about S seconds; a warm-up call longer than S is\n"
      "                      the only sample (default 60)\n"
      "  --max-gflop X       skip workloads of more than X GFLOP per call\n"
      "  --skip-large        = --max-gflop 20 (skips 4096^3)\n"
      "  --gap-ms N          idle time between the Tessel and the peer batch so\n"
      "                      spinning worker threads of one runtime do not steal\n"
      "                      the cores of the other (default: 0 at 1 thread,\n"
      "                      250 at more)\n"
      "  --check-samples N   outputs checked on large workloads (default 10000)\n"
      "  --rel-tol T         check tolerance (default 1e-4)\n"
      "  --json FILE         write every row and the summary as JSON\n"
      "  --work-dir DIR      generated .mlir/.so/.h/.log files\n"
      "                      (default " TESSEL_BENCH_DEFAULT_WORKDIR ")\n"
      "  --tessel-compile P  the driver (default " TESSEL_BENCH_DEFAULT_COMPILER ")\n"
      "  --list              print the selected workloads and exit\n",
      f);
}

/* The options only tessel-bench takes (bench_cli.own). */
static int own_option(void *ctx, const char *name, char *val) {
  options *o = ctx;
  char *end = NULL;
  if (!val) {
    if (strcmp(name, "--skip-large") != 0)
      return 0;
    o->max_gflop = 20.0;
  } else if (strcmp(name, "--only") == 0) {
    const char *toks[BENCH_MAX_LIST];
    int n = bench_split_list(val, toks, BENCH_MAX_LIST);
    o->only = 0;
    for (int t = 0; t < n; ++t) {
      if (strcmp(toks[t], "matmul") == 0)
        o->only |= ONLY_MATMUL;
      else if (strcmp(toks[t], "conv") == 0)
        o->only |= ONLY_CONV_NHWC | ONLY_CONV_NCHW;
      else if (strcmp(toks[t], "conv-nhwc") == 0)
        o->only |= ONLY_CONV_NHWC;
      else if (strcmp(toks[t], "conv-nchw") == 0)
        o->only |= ONLY_CONV_NCHW;
      else if (strcmp(toks[t], "epilogue") == 0)
        o->only |= ONLY_EPILOGUE;
      else
        return -1;
    }
  } else if (strcmp(name, "--sizes") == 0) {
    o->num_sizes = bench_split_list(val, o->sizes, BENCH_MAX_LIST);
  } else if (strcmp(name, "--batch") == 0) {
    if ((o->num_batches = bench_parse_ints(val, o->batches, BENCH_MAX_LIST)) <= 0)
      return -1;
  } else if (strcmp(name, "--max-gflop") == 0) {
    o->max_gflop = strtod(val, &end);
    if (*end || o->max_gflop <= 0)
      return -1;
  } else if (strcmp(name, "--check-samples") == 0) {
    long v = strtol(val, &end, 10);
    if (*end || v < 1)
      return -1;
    o->check_samples = (size_t)v;
  } else {
    return 0;
  }
  return 1;
}

static int parse_options(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->only = ONLY_MATMUL | ONLY_CONV_NHWC | ONLY_CONV_NCHW | ONLY_EPILOGUE;
  o->batches[0] = 1;
  o->batches[1] = 8;
  o->num_batches = 2;
  o->max_gflop = INFINITY;
  o->full_check_macs = 134217728.0; /* 2^27 */
  o->check_samples = 10000;
  const bench_cli cli = {"tessel-bench", usage, BENCH_MAX_LIST, TESSEL_BENCH_DEFAULT_WORKDIR,
                         TESSEL_BENCH_DEFAULT_COMPILER, own_option, o};
  return bench_parse_options(argc, argv, &cli, &o->common);
}

static bool selected(const options *o, const workload *w) {
  if (w->epilogue != EPI_NONE) {
    if (!(o->only & ONLY_EPILOGUE))
      return false;
  } else if (w->kind == WL_MATMUL && !(o->only & ONLY_MATMUL)) {
    return false;
  }
  if (w->kind == WL_CONV) {
    unsigned bit = w->layout == LAYOUT_NHWC ? ONLY_CONV_NHWC : ONLY_CONV_NCHW;
    if (w->epilogue == EPI_NONE && !(o->only & bit))
      return false;
    bool batch_ok = false;
    for (int i = 0; i < o->num_batches; ++i)
      batch_ok |= o->batches[i] == w->batch;
    if (!batch_ok)
      return false;
  }
  if (o->num_sizes == 0)
    return true;
  for (int i = 0; i < o->num_sizes; ++i) {
    const char *t = o->sizes[i];
    if (strcmp(t, w->id) == 0)
      return true;
    if (w->kind == WL_MATMUL) {
      char cube[32];
      if (strcmp(t, w->shape) == 0)
        return true;
      if (w->m == w->n && w->n == w->k) {
        snprintf(cube, sizeof cube, "%d", w->m);
        if (strcmp(t, cube) == 0)
          return true;
      }
    } else {
      const char *name = w->cs->name;
      size_t len = strlen(t);
      if (strcmp(t, name) == 0 ||
          (strncmp(t, name, len) == 0 && name[len] == '_'))
        return true;
    }
  }
  return false;
}

/* --- Helpers ------------------------------------------------------------------------ */

static double now(void) { return tessel_now_seconds(); }

/* --- Compilation ------------------------------------------------------------------ */

/* Writes <work>/<name>.mlir, runs tessel-compile on it (wall time recorded
 * in *seconds), dlopens the result into *dl and *entry. `name` is the
 * workload's id, or <id>_bare for its module without the epilogue. The
 * files get their names <name>.{mlir,so,h,log} once loaded (bench_files). */
static int compile_module(const options *o, const workload *w, bool bare,
                          double *seconds, void **dl, void **entry) {
  static const char *const exts[4] = {"mlir", "so", "h", "log"};
  char name[sizeof w->id + 8];
  snprintf(name, sizeof name, "%s%s", w->id, bare ? "_bare" : "");
  bench_files fs;
  bench_files_init(&fs, o->common.work_dir, name, exts, 4);
  char *mlir = fs.tmp[0], *so = fs.tmp[1];
  FILE *f = fopen(mlir, "w");
  if (!f || bench_write_mlir(w, name, bare, f) != 0) {
    fprintf(stderr, "\ntessel-bench: cannot write %s: %s\n", mlir, strerror(errno));
    if (f)
      fclose(f);
    return -1;
  }
  fclose(f);
  char *args[] = {(char *)o->common.compiler, mlir, "--target=cpu", "-o", so, NULL};
  const int run = bench_run_logged(args, fs.tmp[3], seconds);
  if (run < 0)
    return -1;
  int rc = 0;
  if (run != 0) {
    fprintf(stderr, "\ntessel-bench: tessel-compile failed on %s (log %s):\n",
            fs.final[0], fs.final[3]);
    bench_print_log_head(fs.tmp[3]);
    rc = -1;
  } else if (!(*dl = dlopen(so, RTLD_NOW | RTLD_LOCAL))) {
    fprintf(stderr, "\ntessel-bench: dlopen %s: %s\n", so, dlerror());
    rc = -1;
  } else {
    char sym[160];
    snprintf(sym, sizeof sym, "_mlir_ciface_%s", name);
    if (!(*entry = dlsym(*dl, sym))) {
      fprintf(stderr, "\ntessel-bench: %s not in %s\n", sym, so);
      rc = -1;
    }
  }
  bench_files_publish(&fs);
  return rc;
}

/* The workload's module, and for an epilogue workload its bare module. */
static int compile_workload(const options *o, workload *w) {
  if (compile_module(o, w, false, &w->compile_s, &w->dl, &w->entry) != 0)
    return -1;
  double bare_s;
  if (w->epilogue != EPI_NONE &&
      compile_module(o, w, true, &bare_s, &w->dl_bare, &w->entry_bare) != 0)
    return -1;
  return 0;
}

/* --- Measurement -------------------------------------------------------------------- */

typedef struct row {
  workload *w;
  int threads;
  bool ran;     /* false: compile failure or no data */
  bool has_peer;
  double t_tessel, t_peer, t_peer_io, t_src_reorder, t_dst_reorder;
  double t_bare; /* epilogue rows: the module without the epilogue */
  int reps, calls_tessel, calls_peer, calls_bare, gap_ms;
  double others_busy; /* CPUs other processes used while timing (NaN: unknown) */
  bool tessel_warmup_only;
  check_result check_t, check_p;
  char peer_name[16];
  char peer_detail[256];
  char src_fmt[48], wei_fmt[48], dst_fmt[48], impl[64];
  char note[320];
} row;

typedef struct tessel_call {
  void *entry;
  bool with_bias; /* (a, b, bias, out) instead of (a, b, out) */
  tessel_memref_f32_4d a, b, out; /* large enough for rank 2 as well */
  tessel_memref_f32_1d bias;
} tessel_call;

static void tessel_run(tessel_call *c) {
  if (c->with_bias) {
    void (*f)(void *, void *, void *, void *);
    memcpy(&f, &c->entry, sizeof f);
    f(&c->a, &c->b, &c->bias, &c->out);
  } else {
    void (*f)(void *, void *, void *);
    memcpy(&f, &c->entry, sizeof f);
    f(&c->a, &c->b, &c->out);
  }
}

static double time_tessel(tessel_call *c, int n) {
  double t0 = now();
  for (int i = 0; i < n; ++i)
    tessel_run(c);
  return (now() - t0) / n;
}

typedef struct peer_call {
  workload *w;
  onednn_conv *conv;
  float *out;
} peer_call;

static void peer_run(peer_call *p) {
  if (p->w->kind == WL_MATMUL)
    peer_sgemm(p->w, p->w->in0, p->w->in1, p->out);
  else
    onednn_conv_run(p->conv);
}

static double time_peer(peer_call *p, int n) {
  double t0 = now();
  for (int i = 0; i < n; ++i)
    peer_run(p);
  return (now() - t0) / n;
}

static void measure(const options *o, workload *w, int threads, row *r) {
  memset(r, 0, sizeof *r);
  r->w = w;
  r->threads = threads;
  const int gap = bench_gap_ms(&o->common, threads);
  r->gap_ms = gap;
  peers_set_threads(threads);

  float *out_t = tessel_aligned_alloc(w->out_count, sizeof(float), 0);
  float *out_p = tessel_aligned_alloc(w->out_count, sizeof(float), 0);
  if (!out_t || !out_p) {
    snprintf(r->note, sizeof r->note, "out of memory");
    goto done;
  }
  tessel_call tc;
  memset(&tc, 0, sizeof tc);
  tc.entry = w->entry;
  tessel_memref_init_identity(&tc.a, w->in0, w->rank, w->in0_shape);
  tessel_memref_init_identity(&tc.b, w->in1, w->rank, w->in1_shape);
  tessel_memref_init_identity(&tc.out, out_t, w->rank, w->out_shape);
  const bool epilogue = w->epilogue != EPI_NONE;
  if (epilogue) {
    tc.with_bias = true;
    const int64_t bias_shape[1] = {(int64_t)w->bias_count};
    tessel_memref_init_identity(&tc.bias, w->bias, 1, bias_shape);
  }
  /* The bare module writes the product alone into the same output (its
   * result is not checked: the plain matmul/conv rows check that code). */
  tessel_call tb = tc;
  tb.entry = w->entry_bare;
  tb.with_bias = false;

  peer_call pc = {w, NULL, out_p};
  if (w->kind == WL_MATMUL) {
    r->has_peer = peer_sgemm_available();
    snprintf(r->peer_name, sizeof r->peer_name, "openblas");
  } else {
    snprintf(r->peer_name, sizeof r->peer_name, "onednn");
    if (peer_onednn_available()) {
      char err[256] = "";
      /* Created after the thread count is set: oneDNN sizes its kernels'
       * parallel decomposition when the primitive is created. */
      pc.conv = onednn_conv_create(w, w->in0, w->in1, w->bias, out_p, err,
                                   sizeof err);
      if (!pc.conv)
        snprintf(r->note, sizeof r->note, "oneDNN: %s", err);
      r->has_peer = pc.conv != NULL;
      if (pc.conv) {
        snprintf(r->peer_detail, sizeof r->peer_detail, "%s",
                 onednn_conv_describe(pc.conv));
        snprintf(r->src_fmt, sizeof r->src_fmt, "%s", onednn_conv_src_fmt(pc.conv));
        snprintf(r->wei_fmt, sizeof r->wei_fmt, "%s", onednn_conv_wei_fmt(pc.conv));
        snprintf(r->dst_fmt, sizeof r->dst_fmt, "%s", onednn_conv_dst_fmt(pc.conv));
        snprintf(r->impl, sizeof r->impl, "%s", onednn_conv_impl(pc.conv));
      }
    }
  }

  /* Warm-up and checks. The first call's result is the one checked. */
  char label[160];
  bench_fill_nan(out_t, w->out_count);
  double t_first = time_tessel(&tc, 1);
  snprintf(label, sizeof label, "%s %dT tessel", w->id, threads);
  r->check_t = bench_check(w, label, out_t, o->common.rel_tol);
  double t_tessel_est = t_first;
  if (t_first > o->common.budget) {
    r->tessel_warmup_only = true;
  } else if (t_first < 0.5) {
    t_tessel_est = time_tessel(&tc, 1);
    if (t_tessel_est < 0.05) /* a few more for caches, branch predictors, pools */
      t_tessel_est = time_tessel(&tc, bench_calls_for(t_tessel_est, 0.05));
  }
  bench_progress("    %dT: tessel first call %.3f s", threads, t_first);
  double t_bare_est = 0;
  if (epilogue) {
    t_bare_est = time_tessel(&tb, 1);
    if (t_bare_est < 0.05)
      t_bare_est = time_tessel(&tb, bench_calls_for(t_bare_est, 0.05));
  }

  double t_peer_est = 0;
  if (r->has_peer) {
    bench_sleep_ms(gap);
    bench_fill_nan(out_p, w->out_count);
    double t0 = now();
    if (pc.conv)
      onednn_conv_src_in(pc.conv);
    peer_run(&pc);
    if (pc.conv)
      onednn_conv_dst_out(pc.conv);
    double t_pfirst = now() - t0;
    snprintf(label, sizeof label, "%s %dT %s", w->id, threads, r->peer_name);
    r->check_p = bench_check(w, label, out_p, o->common.rel_tol);
    t_peer_est = time_peer(&pc, 1);
    if (t_peer_est < 0.05)
      t_peer_est = time_peer(&pc, bench_calls_for(t_peer_est, 0.05));
    bench_progress(", %s first call %.3f s", r->peer_name, t_pfirst);
  }

  /* Repetitions: R x (Tessel batch, peer batch). */
  const double batch_target = o->common.min_time / o->common.reps;
  int reps = o->common.reps;
  r->calls_tessel = bench_calls_for(t_tessel_est, batch_target);
  r->calls_peer = bench_calls_for(t_peer_est, batch_target);
  r->calls_bare = epilogue ? bench_calls_for(t_bare_est, batch_target) : 0;
  if (r->tessel_warmup_only) {
    reps = 0;
  } else if (t_tessel_est * r->calls_tessel * reps > o->common.budget) {
    reps = (int)(o->common.budget / (t_tessel_est * r->calls_tessel));
    if (reps < 1)
      reps = 1;
  }
  bench_progress("; %d rep(s) x %d/%d call(s)\n", reps ? reps : 1, r->calls_tessel,
                 r->calls_peer);
  double *ts = calloc((size_t)reps + 1, sizeof(double));
  double *ps = calloc((size_t)reps + 1, sizeof(double));
  double *ss = calloc((size_t)reps + 1, sizeof(double));
  double *ds = calloc((size_t)reps + 1, sizeof(double));
  double *bs = calloc((size_t)reps + 1, sizeof(double));
  if (!ts || !ps || !ss || !ds || !bs) {
    snprintf(r->note, sizeof r->note, "out of memory");
    goto free_samples;
  }
  const bench_cpu_sample timed_start = bench_cpu_sample_now();
  for (int i = 0; i < reps; ++i) {
    bench_sleep_ms(gap);
    ts[i] = time_tessel(&tc, r->calls_tessel);
    if (epilogue) {
      bench_sleep_ms(gap);
      bs[i] = time_tessel(&tb, r->calls_bare);
    }
    if (r->has_peer) {
      bench_sleep_ms(gap);
      ps[i] = time_peer(&pc, r->calls_peer);
      if (pc.conv) {
        ss[i] = onednn_conv_src_in(pc.conv);
        ds[i] = onednn_conv_dst_out(pc.conv);
      }
    }
  }
  if (r->tessel_warmup_only) {
    r->reps = 1;
    r->calls_tessel = 1;
    r->t_tessel = t_first;
    if (epilogue) {
      r->calls_bare = 1;
      r->t_bare = time_tessel(&tb, 1);
    }
    if (r->has_peer) {
      /* Still interleaved: Tessel's single sample, then the peer. */
      bench_sleep_ms(gap);
      r->calls_peer = bench_calls_for(t_peer_est, o->common.min_time);
      r->t_peer = time_peer(&pc, r->calls_peer);
      if (pc.conv) {
        r->t_src_reorder = onednn_conv_src_in(pc.conv);
        r->t_dst_reorder = onednn_conv_dst_out(pc.conv);
      }
    }
  } else {
    r->reps = reps;
    r->t_tessel = tessel_median(ts, (size_t)reps);
    if (epilogue)
      r->t_bare = tessel_median(bs, (size_t)reps);
    if (r->has_peer) {
      r->t_peer = tessel_median(ps, (size_t)reps);
      r->t_src_reorder = tessel_median(ss, (size_t)reps);
      r->t_dst_reorder = tessel_median(ds, (size_t)reps);
    }
  }
  r->others_busy = bench_cpu_others(timed_start, bench_cpu_sample_now());
  r->t_peer_io = r->t_peer + r->t_src_reorder + r->t_dst_reorder;
  r->ran = true;
free_samples:
  free(ts);
  free(ps);
  free(ss);
  free(ds);
  free(bs);
  onednn_conv_destroy(pc.conv);
  bench_sleep_ms(gap);
done:
  tessel_free(out_t);
  tessel_free(out_p);
}

/* --- Report ------------------------------------------------------------------------- */

static double gflops(const row *r, double t) {
  return t > 0 ? r->w->flops / t * 1e-9 : 0.0;
}

static double ratio(const row *r) {
  if (!r->ran || !r->has_peer || r->t_tessel <= 0 || r->t_peer <= 0)
    return NAN;
  return r->t_peer / r->t_tessel; /* = Tessel GFLOP/s / peer GFLOP/s */
}

static const char *check_str(const row *r, char *buf, size_t len) {
  if (!r->ran) {
    snprintf(buf, len, r->w->compiled < 0 ? "COMPILE-FAIL" : "ERROR");
    return buf;
  }
  bool t = r->check_t.pass, p = !r->has_peer || r->check_p.pass;
  if (t && p)
    snprintf(buf, len, r->has_peer ? "PASS" : "PASS(T only)");
  else
    snprintf(buf, len, "FAIL(%s%s%s)", t ? "" : "T", (!t && !p) ? "," : "",
             p ? "" : "P");
  return buf;
}

static void print_table(FILE *f, const row *rows, size_t n) {
  fprintf(f, "%-24s %-36s %3s %12s %12s %10s %9s  %-12s %-14s %s\n", "workload",
          "shape", "thr", "Tessel GF/s", "peer GF/s", "ratio", "compile s",
          "check", "reps", "busy");
  for (size_t i = 0; i < n; ++i) {
    const row *r = &rows[i];
    char tg[32], pg[32], ra[32], cs[32], ck[32], reps[48];
    bench_fmt_num(tg, sizeof tg, r->ran ? gflops(r, r->t_tessel) : NAN, "%.3f");
    bench_fmt_num(pg, sizeof pg, r->ran && r->has_peer ? gflops(r, r->t_peer) : NAN,
                  "%.2f");
    double q = ratio(r);
    bench_fmt_num(ra, sizeof ra, q, q < 0.01 ? "%.2e" : "%.4f");
    bench_fmt_num(cs, sizeof cs, r->w->compiled != 0 ? r->w->compile_s : NAN, "%.2f");
    if (r->tessel_warmup_only)
      snprintf(reps, sizeof reps, "1(warm-up)/%d", r->calls_peer);
    else
      snprintf(reps, sizeof reps, "%dx%d/%d", r->reps, r->calls_tessel, r->calls_peer);
    char busy[32];
    bench_fmt_busy(busy, sizeof busy, r->ran ? r->others_busy : NAN, r->threads, " !");
    fprintf(f, "%-24s %-36s %3d %12s %12s %10s %9s  %-12s %-14s %s\n", r->w->label,
            r->w->shape, r->threads, tg, pg, ra, cs, check_str(r, ck, sizeof ck),
            r->ran ? reps : "-", busy);
  }
  fprintf(f, "(reps: repetitions x Tessel/peer calls per repetition; busy: CPUs\n"
             " other processes kept busy while the row was timed; '!': more than\n"
             " the row's threads left free (by over 0.25), the row was disturbed)\n");
}

/* fused / bare time of an epilogue row (NaN when not measured). */
static double epilogue_cost(const row *r) {
  if (!r->ran || r->w->epilogue == EPI_NONE || r->t_bare <= 0)
    return NAN;
  return r->t_tessel / r->t_bare;
}

static void print_epilogue_table(FILE *f, const row *rows, size_t n) {
  bool any = false;
  for (size_t i = 0; i < n; ++i)
    any |= rows[i].ran && rows[i].w->epilogue != EPI_NONE;
  if (!any)
    return;
  fprintf(f, "\nepilogues: Tessel with the epilogue vs the same module without it\n"
             "(bare), interleaved; peer = OpenBLAS sgemm + C loop (matmul) or oneDNN\n"
             "with bias and a relu post-op (conv):\n");
  fprintf(f, "%-28s %-36s %3s %10s %10s %11s %10s %8s\n", "workload", "shape",
          "thr", "fused ms", "bare ms", "fused/bare", "peer ms", "ratio");
  for (size_t i = 0; i < n; ++i) {
    const row *r = &rows[i];
    if (!r->ran || r->w->epilogue == EPI_NONE)
      continue;
    char pm[32], ra[32];
    bench_fmt_num(pm, sizeof pm, r->has_peer ? r->t_peer * 1e3 : NAN, "%.3f");
    bench_fmt_num(ra, sizeof ra, ratio(r), "%.3f");
    fprintf(f, "%-28s %-36s %3d %10.3f %10.3f %11.3f %10s %8s\n", r->w->label,
            r->w->shape, r->threads, r->t_tessel * 1e3, r->t_bare * 1e3,
            epilogue_cost(r), pm, ra);
  }
}

typedef struct geo {
  char group[24];
  int threads;
  double log_sum;
  int count;
} geo;

static size_t geomeans(const row *rows, size_t n, geo *out, size_t max) {
  size_t ng = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < n; ++i) {
      const row *r = &rows[i];
      double q = ratio(r);
      if (!(q > 0) || isinf(q))
        continue;
      char g[24];
      if (pass == 0)
        snprintf(g, sizeof g, "%s", r->w->group);
      else if (r->w->kind == WL_CONV && r->w->epilogue == EPI_NONE)
        snprintf(g, sizeof g, "conv-%s", r->w->layout == LAYOUT_NHWC ? "nhwc" : "nchw");
      else
        continue;
      size_t j = 0;
      while (j < ng && !(strcmp(out[j].group, g) == 0 && out[j].threads == r->threads))
        ++j;
      if (j == ng) {
        if (ng == max)
          continue;
        memset(&out[ng], 0, sizeof out[ng]);
        snprintf(out[ng].group, sizeof out[ng].group, "%s", g);
        out[ng].threads = r->threads;
        ++ng;
      }
      out[j].log_sum += log(q);
      out[j].count++;
    }
  return ng;
}

static char load_before[64], load_after[64];

static int write_json(const options *o, const peer_info *pi, const row *rows,
                      size_t n, const geo *g, size_t ng) {
  FILE *f = bench_json_begin("tessel-bench", o->common.json, load_before, load_after);
  if (!f)
    return -1;
  fprintf(f, ",\n  \"openblas\": ");
  bench_json_str(f, pi->openblas);
  fprintf(f, ",\n  \"onednn\": ");
  bench_json_str(f, pi->onednn);
  fprintf(f, ",\n  \"openmp\": ");
  bench_json_str(f, pi->omp_binding);
  fprintf(f,
          ",\n  \"options\": {\"reps\": %d, \"min_time_s\": %g, \"budget_s\": %g, "
          "\"max_gflop\": ",
          o->common.reps, o->common.min_time, o->common.budget);
  bench_json_num(f, o->max_gflop);
  fprintf(f,
          ", \"rel_tol\": %g, \"check_samples\": %zu, "
          "\"full_check_max_macs\": %.0f},\n",
          o->common.rel_tol, o->check_samples, o->full_check_macs);
  fprintf(f, "  \"rows\": [\n");
  for (size_t i = 0; i < n; ++i) {
    const row *r = &rows[i];
    const workload *w = r->w;
    char ck[32];
    fprintf(f, "    {\"id\": ");
    bench_json_str(f, w->id);
    fprintf(f, ", \"group\": ");
    bench_json_str(f, w->group);
    fprintf(f, ", \"workload\": ");
    bench_json_str(f, w->label);
    fprintf(f, ", \"shape\": ");
    bench_json_str(f, w->shape);
    if (w->kind == WL_MATMUL)
      fprintf(f, ", \"m\": %d, \"n\": %d, \"k\": %d", w->m, w->n, w->k);
    else {
      fprintf(f, ", \"layout\": \"%s\", \"conv\": ",
              w->layout == LAYOUT_NHWC ? "nhwc/hwcf" : "nchw/fchw");
      bench_json_str(f, w->cs->name);
      fprintf(f, ", \"layer\": ");
      bench_json_str(f, w->cs->layer);
      fprintf(f,
              ", \"batch\": %d, \"h\": %d, \"w\": %d, \"c\": %d, \"f\": %d, "
              "\"kernel\": %d, \"stride\": %d, \"pad\": %d, \"oh\": %d, \"ow\": %d",
              w->batch, w->cs->h, w->cs->w, w->cs->c, w->cs->f, w->cs->k,
              w->cs->stride, w->cs->pad, w->oh, w->ow);
    }
    fprintf(f, ",\n     \"threads\": %d, \"gap_ms\": %d, \"other_processes_cpus\": ",
            r->threads, r->gap_ms);
    bench_json_num(f, r->ran ? r->others_busy : NAN);
    fprintf(f, ", \"disturbed\": %s, \"gflop\": ",
            r->ran && bench_disturbed(r->others_busy, r->threads) ? "true" : "false");
    bench_json_num(f, w->flops * 1e-9);
    fprintf(f, ", \"compile_s\": ");
    bench_json_num(f, w->compiled ? w->compile_s : NAN);
    fprintf(f, ", \"check\": ");
    bench_json_str(f, check_str(r, ck, sizeof ck));
    fprintf(f, ",\n     \"tessel\": {\"seconds\": ");
    bench_json_num(f, r->ran ? r->t_tessel : NAN);
    fprintf(f, ", \"gflops\": ");
    bench_json_num(f, r->ran ? gflops(r, r->t_tessel) : NAN);
    fprintf(f, ", \"reps\": %d, \"calls_per_rep\": %d, \"warmup_only\": %s, "
               "\"check_pass\": %s, \"checked\": %zu, \"max_err\": ",
            r->reps, r->calls_tessel, r->tessel_warmup_only ? "true" : "false",
            r->ran && r->check_t.pass ? "true" : "false", r->check_t.checked);
    bench_json_num(f, r->check_t.max_rel_error);
    fprintf(f, "},\n     \"peer\": {\"name\": ");
    bench_json_str(f, r->peer_name);
    fprintf(f, ", \"available\": %s, \"seconds\": ", r->has_peer ? "true" : "false");
    bench_json_num(f, r->ran && r->has_peer ? r->t_peer : NAN);
    fprintf(f, ", \"gflops\": ");
    bench_json_num(f, r->ran && r->has_peer ? gflops(r, r->t_peer) : NAN);
    fprintf(f, ", \"calls_per_rep\": %d, \"check_pass\": %s, \"checked\": %zu, \"max_err\": ",
            r->calls_peer, r->has_peer && r->check_p.pass ? "true" : "false",
            r->check_p.checked);
    bench_json_num(f, r->has_peer ? r->check_p.max_rel_error : NAN);
    if (w->kind == WL_CONV) {
      fprintf(f, ",\n              \"src_reorder_s\": ");
      bench_json_num(f, r->has_peer ? r->t_src_reorder : NAN);
      fprintf(f, ", \"dst_reorder_s\": ");
      bench_json_num(f, r->has_peer ? r->t_dst_reorder : NAN);
      fprintf(f, ", \"seconds_with_io_reorders\": ");
      bench_json_num(f, r->has_peer ? r->t_peer_io : NAN);
      fprintf(f, ", \"gflops_with_io_reorders\": ");
      bench_json_num(f, r->has_peer ? gflops(r, r->t_peer_io) : NAN);
      fprintf(f, ", \"src_format\": ");
      bench_json_str(f, r->src_fmt);
      fprintf(f, ", \"weights_format\": ");
      bench_json_str(f, r->wei_fmt);
      fprintf(f, ", \"dst_format\": ");
      bench_json_str(f, r->dst_fmt);
      fprintf(f, ", \"impl\": ");
      bench_json_str(f, r->impl);
    }
    fprintf(f, "}");
    if (w->epilogue != EPI_NONE) {
      fprintf(f, ",\n     \"epilogue\": \"%s\", \"bare\": {\"seconds\": ",
              w->epilogue == EPI_BIAS_GELU ? "bias+gelu" : "bias+relu");
      bench_json_num(f, r->ran ? r->t_bare : NAN);
      fprintf(f, ", \"calls_per_rep\": %d}, \"fused_over_bare\": ", r->calls_bare);
      bench_json_num(f, epilogue_cost(r));
    }
    fprintf(f, ",\n     \"ratio\": ");
    bench_json_num(f, ratio(r));
    fprintf(f, ", \"note\": ");
    bench_json_str(f, r->note);
    fprintf(f, "}%s\n", i + 1 < n ? "," : "");
  }
  fprintf(f, "  ],\n  \"geomean_ratio\": [\n");
  for (size_t i = 0; i < ng; ++i)
    fprintf(f, "    {\"group\": \"%s\", \"threads\": %d, \"ratio\": %.6g, \"count\": %d}%s\n",
            g[i].group, g[i].threads, exp(g[i].log_sum / g[i].count), g[i].count,
            i + 1 < ng ? "," : "");
  fprintf(f, "  ]\n}\n");
  return bench_json_close(f);
}

/* --- Main --------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  peers_prefer_avx512_openblas("tessel-bench", argv);
  options o;
  if (parse_options(argc, argv, &o) != 0)
    return 2;
  workload *catalog = NULL;
  size_t ncat = bench_build_catalog(&catalog);
  workload **sel = calloc(ncat ? ncat : 1, sizeof *sel);
  size_t nsel = 0;
  if (!catalog || !sel)
    return 1;
  for (size_t i = 0; i < ncat; ++i)
    if (selected(&o, &catalog[i]))
      sel[nsel++] = &catalog[i];
  if (o.common.list) {
    for (size_t i = 0; i < nsel; ++i)
      printf("%-32s %-24s %-36s %8.3f GFLOP%s\n", sel[i]->id, sel[i]->label,
             sel[i]->shape, sel[i]->flops * 1e-9,
             sel[i]->flops * 1e-9 > o.max_gflop ? "  (skipped: --max-gflop)" : "");
    return 0;
  }
  if (nsel == 0) {
    fprintf(stderr, "tessel-bench: no workload selected (see --list)\n");
    return 2;
  }
  if (bench_make_work_dir("tessel-bench", o.common.work_dir) != 0)
    return 1;

  peer_info pi;
  peers_init(&pi);
  char cpu[256];
  bench_cpu_model(cpu, sizeof cpu);
  bench_load_average(load_before, sizeof load_before);
  bench_progress("tessel-bench: %s, %d logical CPUs, load average %s\n  %s\n  %s\n"
                 "  OpenMP: %s\n",
                 cpu, omp_get_num_procs(), load_before, pi.openblas, pi.onednn,
                 pi.omp_binding);

  row *rows = calloc(nsel * (size_t)o.common.num_threads, sizeof *rows);
  size_t nrows = 0;
  int failures = 0;
  if (!rows)
    return 1;
  for (size_t i = 0; i < nsel; ++i) {
    workload *w = sel[i];
    if (w->flops * 1e-9 > o.max_gflop) {
      bench_progress("[%zu/%zu] %s: skipped (%.1f GFLOP > --max-gflop %g)\n", i + 1,
                     nsel, w->id, w->flops * 1e-9, o.max_gflop);
      continue;
    }
    bench_progress("[%zu/%zu] %s (%s, %.3f GFLOP): compiling... ", i + 1, nsel, w->id,
                   w->shape, w->flops * 1e-9);
    w->compiled = compile_workload(&o, w) == 0 ? 1 : -1;
    bench_progress("%s in %.2f s\n", w->compiled > 0 ? "done" : "FAILED", w->compile_s);
    bool data_ok = false;
    if (w->compiled > 0) {
      double t0 = now();
      data_ok = bench_alloc_inputs(w) == 0 &&
                bench_compute_reference(w, o.full_check_macs, o.check_samples) == 0;
      bench_progress("    reference (%s, %zu outputs) in %.2f s\n",
                     w->ref_full ? "full" : "sampled", w->ref_count, now() - t0);
    }
    for (int t = 0; t < o.common.num_threads; ++t) {
      row *r = &rows[nrows++];
      if (w->compiled > 0 && data_ok) {
        measure(&o, w, o.common.threads[t], r);
      } else {
        memset(r, 0, sizeof *r);
        r->w = w;
        r->threads = o.common.threads[t];
      }
      char ck[32];
      check_str(r, ck, sizeof ck);
      if (strncmp(ck, "PASS", 4) != 0)
        ++failures;
      if (r->ran)
        bench_progress("    %dT: tessel %.3f GFLOP/s, %s %.2f GFLOP/s, ratio %.3g, %s, "
                       "other processes %.2f CPUs%s%s\n",
                       r->threads, gflops(r, r->t_tessel), r->peer_name,
                       gflops(r, r->t_peer), ratio(r), ck, r->others_busy,
                       r->peer_detail[0] ? "; " : "", r->peer_detail);
    }
    bench_free_inputs(w);
    bench_free_reference(w);
  }

  printf("\n");
  print_table(stdout, rows, nrows);
  print_epilogue_table(stdout, rows, nrows);
  geo g[32];
  size_t ng = geomeans(rows, nrows, g, 32);
  printf("\ngeomean ratio (Tessel/peer GFLOP/s):\n");
  for (size_t i = 0; i < ng; ++i)
    printf("  %-10s %dT  %10.3e  (%d workloads)\n", g[i].group, g[i].threads,
           exp(g[i].log_sum / g[i].count), g[i].count);
  bool any_conv = false;
  for (size_t i = 0; i < nrows; ++i)
    any_conv |= rows[i].ran && rows[i].has_peer && rows[i].w->kind == WL_CONV;
  if (any_conv) {
    printf("\noneDNN layouts chosen with format any (weights reordered once, untimed;\n"
           "the peer column times the convolution only; with the src/dst reorders\n"
           "from/to the user layout it is):\n");
    for (size_t i = 0; i < nrows; ++i) {
      const row *r = &rows[i];
      if (!r->ran || !r->has_peer || r->w->kind != WL_CONV)
        continue;
      printf("  %-24s N%-2d %dT  %-40s %9.2f GF/s\n", r->w->label, r->w->batch,
             r->threads, r->peer_detail, gflops(r, r->t_peer_io));
    }
  }
  bench_load_average(load_after, sizeof load_after);
  printf("\n%s, %d logical CPUs; load average before %s, after %s\n%s\n%s\n"
         "OpenMP: %s\n",
         cpu, omp_get_num_procs(), load_before, load_after, pi.openblas,
         pi.onednn, pi.omp_binding);
  if (o.common.json && write_json(&o, &pi, rows, nrows, g, ng) == 0)
    printf("wrote %s\n", o.common.json);

  for (size_t i = 0; i < ncat; ++i)
  {
    if (catalog[i].dl)
      dlclose(catalog[i].dl);
    if (catalog[i].dl_bare)
      dlclose(catalog[i].dl_bare);
  }
  peers_shutdown();
  free(rows);
  free(sel);
  free(catalog);
  return failures ? 1 : 0;
}

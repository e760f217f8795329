/* tessel-bench: Tessel's CPU code against OpenBLAS (matmul) and oneDNN
 * (ResNet-50 convolutions), in one process.
 *
 *   tessel-bench [--only matmul,conv,conv-nhwc,conv-nchw] [--sizes LIST]
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

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TESSEL_BENCH_DEFAULT_COMPILER
#define TESSEL_BENCH_DEFAULT_COMPILER "tessel-compile"
#endif
#ifndef TESSEL_BENCH_DEFAULT_WORKDIR
#define TESSEL_BENCH_DEFAULT_WORKDIR "tessel-bench-work"
#endif

/* --- Options ---------------------------------------------------------------------- */

enum { ONLY_MATMUL = 1, ONLY_CONV_NHWC = 2, ONLY_CONV_NCHW = 4 };

#define MAX_LIST 64

typedef struct options {
  unsigned only;
  const char *sizes[MAX_LIST];
  int num_sizes;
  int batches[MAX_LIST];
  int num_batches;
  int threads[MAX_LIST];
  int num_threads;
  int reps;
  double min_time, budget, max_gflop, rel_tol, full_check_macs;
  int gap_ms; /* -1: auto */
  size_t check_samples;
  const char *json, *work_dir, *compiler;
  bool list;
} options;

static void usage(FILE *f) {
  fputs(
      "usage: tessel-bench [options]\n"
      "  --only LIST         workload kinds: matmul, conv (= conv-nhwc,conv-nchw),\n"
      "                      conv-nhwc, conv-nchw (default: all)\n"
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

static int split_list(char *s, const char **out, int max) {
  int n = 0;
  for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
    if (*tok)
      out[n++] = tok;
  return n;
}

static int parse_ints(char *s, int *out, int max) {
  const char *toks[MAX_LIST];
  int n = split_list(s, toks, max < MAX_LIST ? max : MAX_LIST);
  for (int i = 0; i < n; ++i) {
    char *end;
    long v = strtol(toks[i], &end, 10);
    if (*end || v <= 0 || v > 4096)
      return -1;
    out[i] = (int)v;
  }
  return n;
}

static int parse_options(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  o->only = ONLY_MATMUL | ONLY_CONV_NHWC | ONLY_CONV_NCHW;
  o->batches[0] = 1;
  o->batches[1] = 8;
  o->num_batches = 2;
  o->threads[0] = 1;
  o->threads[1] = 2;
  o->num_threads = 2;
  o->reps = 7;
  o->min_time = 1.0;
  o->budget = 60.0;
  o->max_gflop = INFINITY;
  o->rel_tol = 1e-4;
  o->full_check_macs = 134217728.0; /* 2^27 */
  o->gap_ms = -1;
  o->check_samples = 10000;
  o->work_dir = TESSEL_BENCH_DEFAULT_WORKDIR;
  o->compiler = TESSEL_BENCH_DEFAULT_COMPILER;
  for (int i = 1; i < argc; ++i) {
    char *arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(stdout);
      exit(0);
    }
    if (strcmp(arg, "--list") == 0) {
      o->list = true;
      continue;
    }
    if (strcmp(arg, "--skip-large") == 0) {
      o->max_gflop = 20.0;
      continue;
    }
    /* --name=value or --name value */
    char *val = strchr(arg, '=');
    char name[64];
    if (val) {
      size_t len = (size_t)(val - arg);
      if (len >= sizeof name)
        goto bad;
      memcpy(name, arg, len);
      name[len] = '\0';
      ++val;
    } else {
      snprintf(name, sizeof name, "%s", arg);
      if (i + 1 >= argc)
        goto bad;
      val = argv[++i];
    }
    char *end = NULL;
    if (strcmp(name, "--only") == 0) {
      const char *toks[MAX_LIST];
      int n = split_list(val, toks, MAX_LIST);
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
        else
          goto bad;
      }
    } else if (strcmp(name, "--sizes") == 0) {
      o->num_sizes = split_list(val, o->sizes, MAX_LIST);
    } else if (strcmp(name, "--batch") == 0) {
      if ((o->num_batches = parse_ints(val, o->batches, MAX_LIST)) <= 0)
        goto bad;
    } else if (strcmp(name, "--threads") == 0) {
      if ((o->num_threads = parse_ints(val, o->threads, MAX_LIST)) <= 0)
        goto bad;
    } else if (strcmp(name, "--reps") == 0) {
      o->reps = (int)strtol(val, &end, 10);
      if (*end || o->reps < 1)
        goto bad;
    } else if (strcmp(name, "--min-time") == 0) {
      o->min_time = strtod(val, &end);
      if (*end || o->min_time < 0)
        goto bad;
    } else if (strcmp(name, "--budget") == 0) {
      o->budget = strtod(val, &end);
      if (*end || o->budget <= 0)
        goto bad;
    } else if (strcmp(name, "--max-gflop") == 0) {
      o->max_gflop = strtod(val, &end);
      if (*end || o->max_gflop <= 0)
        goto bad;
    } else if (strcmp(name, "--gap-ms") == 0) {
      o->gap_ms = (int)strtol(val, &end, 10);
      if (*end || o->gap_ms < 0)
        goto bad;
    } else if (strcmp(name, "--check-samples") == 0) {
      long v = strtol(val, &end, 10);
      if (*end || v < 1)
        goto bad;
      o->check_samples = (size_t)v;
    } else if (strcmp(name, "--rel-tol") == 0) {
      o->rel_tol = strtod(val, &end);
      if (*end || o->rel_tol <= 0)
        goto bad;
    } else if (strcmp(name, "--json") == 0) {
      o->json = val;
    } else if (strcmp(name, "--work-dir") == 0) {
      o->work_dir = val;
    } else if (strcmp(name, "--tessel-compile") == 0) {
      o->compiler = val;
    } else {
      goto bad;
    }
    continue;
  bad:
    fprintf(stderr, "tessel-bench: bad argument '%s'\n", arg);
    usage(stderr);
    return -1;
  }
  return 0;
}

static bool selected(const options *o, const workload *w) {
  if (w->kind == WL_MATMUL && !(o->only & ONLY_MATMUL))
    return false;
  if (w->kind == WL_CONV) {
    unsigned bit = w->layout == LAYOUT_NHWC ? ONLY_CONV_NHWC : ONLY_CONV_NCHW;
    if (!(o->only & bit))
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

static void progress(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fflush(stderr);
}

static void sleep_ms(int ms) {
  if (ms <= 0)
    return;
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int mkdir_p(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; ++p)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return -1;
      *p = '/';
    }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST)
    return -1;
  return 0;
}

/* CPU time of the whole machine (non-idle) and of this process, in seconds,
 * to tell how much of the machine other processes used while a row was
 * timed: on a small shared machine they make multi-thread rows meaningless. */
typedef struct cpu_sample {
  double wall, machine_busy, self;
} cpu_sample;

static cpu_sample cpu_sample_now(void) {
  cpu_sample c = {now(), NAN, NAN};
  FILE *f = fopen("/proc/stat", "r");
  if (f) {
    unsigned long long v[8] = {0};
    if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
               &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
      /* user nice system idle iowait irq softirq steal */
      unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
      c.machine_busy = (double)busy / (double)sysconf(_SC_CLK_TCK);
    }
    fclose(f);
  }
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    c.self = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
             (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
  return c;
}

/* Average number of CPUs other processes kept busy between a and b. */
static double cpu_others(cpu_sample a, cpu_sample b) {
  double wall = b.wall - a.wall;
  if (!(wall > 0.05))
    return NAN; /* /proc/stat ticks are too coarse for shorter spans */
  double others = (b.machine_busy - a.machine_busy) - (b.self - a.self);
  return others > 0 ? others / wall : 0.0;
}

static void fill_nan(float *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    p[i] = NAN;
}

/* --- Compilation ------------------------------------------------------------------ */

/* Writes <work>/<id>.mlir, runs tessel-compile on it (wall time recorded),
 * dlopens the result. Every file is first written under a name with this
 * process's id and renamed to <id>.{mlir,so,h,log} once loaded, so that
 * harnesses running at the same time over one work directory never load
 * each other's half-written (or differently compiled) objects. */
static int compile_workload(const options *o, workload *w) {
  char mlir[4096], so[4096], hdr[4096], logp[4096];
  const long me = (long)getpid();
  snprintf(mlir, sizeof mlir, "%s/%s.%ld.mlir", o->work_dir, w->id, me);
  snprintf(so, sizeof so, "%s/%s.%ld.so", o->work_dir, w->id, me);
  snprintf(hdr, sizeof hdr, "%s/%s.%ld.h", o->work_dir, w->id, me);
  snprintf(logp, sizeof logp, "%s/%s.%ld.log", o->work_dir, w->id, me);
  FILE *f = fopen(mlir, "w");
  if (!f || bench_write_mlir(w, f) != 0) {
    fprintf(stderr, "\ntessel-bench: cannot write %s: %s\n", mlir, strerror(errno));
    if (f)
      fclose(f);
    return -1;
  }
  fclose(f);
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    char *args[] = {(char *)o->compiler, mlir, "--target=cpu", "-o", so, NULL};
    execvp(o->compiler, args);
    fprintf(stderr, "exec %s: %s\n", o->compiler, strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  w->compile_s = now() - t0;
  /* The canonical names, for whoever wants to look at the files later. */
  const char *exts[4] = {"mlir", "so", "h", "log"};
  const char *tmp[4] = {mlir, so, hdr, logp};
  char final[4][4096];
  for (int i = 0; i < 4; ++i)
    snprintf(final[i], sizeof final[i], "%s/%s.%s", o->work_dir, w->id, exts[i]);
  int rc = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "\ntessel-bench: tessel-compile failed on %s (log %s):\n",
            final[0], final[3]);
    FILE *l = fopen(logp, "r");
    if (l) {
      char line[512];
      int shown = 0;
      while (fgets(line, sizeof line, l) && shown++ < 20)
        fprintf(stderr, "  %s", line);
      fclose(l);
    }
    rc = -1;
  } else if (!(w->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL))) {
    fprintf(stderr, "\ntessel-bench: dlopen %s: %s\n", so, dlerror());
    rc = -1;
  } else {
    char sym[160];
    snprintf(sym, sizeof sym, "_mlir_ciface_%s", w->id);
    void *p = dlsym(w->dl, sym);
    if (!p) {
      fprintf(stderr, "\ntessel-bench: %s not in %s\n", sym, so);
      rc = -1;
    } else {
      memcpy(&w->entry, &p, sizeof p);
    }
  }
  for (int i = 0; i < 4; ++i)
    if (access(tmp[i], F_OK) == 0)
      rename(tmp[i], final[i]);
  return rc;
}

/* --- Measurement -------------------------------------------------------------------- */

typedef struct row {
  workload *w;
  int threads;
  bool ran;     /* false: compile failure or no data */
  bool has_peer;
  double t_tessel, t_peer, t_peer_io, t_src_reorder, t_dst_reorder;
  int reps, calls_tessel, calls_peer, gap_ms;
  double others_busy; /* CPUs other processes used while timing (NaN: unknown) */
  bool tessel_warmup_only;
  check_result check_t, check_p;
  char peer_name[16];
  char peer_detail[256];
  char src_fmt[48], wei_fmt[48], dst_fmt[48], impl[64];
  char note[320];
} row;

typedef struct tessel_call {
  void (*entry)(void *, void *, void *);
  tessel_memref_f32_4d a, b, out; /* large enough for rank 2 as well */
} tessel_call;

static void tessel_run(tessel_call *c) { c->entry(&c->a, &c->b, &c->out); }

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

static int calls_for(double t_call, double batch_target) {
  if (t_call <= 0)
    return 1;
  double n = ceil(batch_target / t_call);
  return n < 1 ? 1 : n > 1e7 ? 10000000 : (int)n;
}

static void measure(const options *o, workload *w, int threads, row *r) {
  memset(r, 0, sizeof *r);
  r->w = w;
  r->threads = threads;
  const int gap = o->gap_ms >= 0 ? o->gap_ms : (threads > 1 ? 250 : 0);
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
      pc.conv = onednn_conv_create(w, w->in0, w->in1, out_p, err, sizeof err);
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
  fill_nan(out_t, w->out_count);
  double t_first = time_tessel(&tc, 1);
  snprintf(label, sizeof label, "%s %dT tessel", w->id, threads);
  r->check_t = bench_check(w, label, out_t, o->rel_tol);
  double t_tessel_est = t_first;
  if (t_first > o->budget) {
    r->tessel_warmup_only = true;
  } else if (t_first < 0.5) {
    t_tessel_est = time_tessel(&tc, 1);
    if (t_tessel_est < 0.05) /* a few more for caches, branch predictors, pools */
      t_tessel_est = time_tessel(&tc, calls_for(t_tessel_est, 0.05));
  }
  progress("    %dT: tessel first call %.3f s", threads, t_first);

  double t_peer_est = 0;
  if (r->has_peer) {
    sleep_ms(gap);
    fill_nan(out_p, w->out_count);
    double t0 = now();
    if (pc.conv)
      onednn_conv_src_in(pc.conv);
    peer_run(&pc);
    if (pc.conv)
      onednn_conv_dst_out(pc.conv);
    double t_pfirst = now() - t0;
    snprintf(label, sizeof label, "%s %dT %s", w->id, threads, r->peer_name);
    r->check_p = bench_check(w, label, out_p, o->rel_tol);
    t_peer_est = time_peer(&pc, 1);
    if (t_peer_est < 0.05)
      t_peer_est = time_peer(&pc, calls_for(t_peer_est, 0.05));
    progress(", %s first call %.3f s", r->peer_name, t_pfirst);
  }

  /* Repetitions: R x (Tessel batch, peer batch). */
  const double batch_target = o->min_time / o->reps;
  int reps = o->reps;
  r->calls_tessel = calls_for(t_tessel_est, batch_target);
  r->calls_peer = calls_for(t_peer_est, batch_target);
  if (r->tessel_warmup_only) {
    reps = 0;
  } else if (t_tessel_est * r->calls_tessel * reps > o->budget) {
    reps = (int)(o->budget / (t_tessel_est * r->calls_tessel));
    if (reps < 1)
      reps = 1;
  }
  progress("; %d rep(s) x %d/%d call(s)\n", reps ? reps : 1, r->calls_tessel,
           r->calls_peer);
  double *ts = calloc((size_t)reps + 1, sizeof(double));
  double *ps = calloc((size_t)reps + 1, sizeof(double));
  double *ss = calloc((size_t)reps + 1, sizeof(double));
  double *ds = calloc((size_t)reps + 1, sizeof(double));
  if (!ts || !ps || !ss || !ds) {
    snprintf(r->note, sizeof r->note, "out of memory");
    goto free_samples;
  }
  const cpu_sample timed_start = cpu_sample_now();
  for (int i = 0; i < reps; ++i) {
    sleep_ms(gap);
    ts[i] = time_tessel(&tc, r->calls_tessel);
    if (r->has_peer) {
      sleep_ms(gap);
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
    if (r->has_peer) {
      /* Still interleaved: Tessel's single sample, then the peer. */
      sleep_ms(gap);
      r->calls_peer = calls_for(t_peer_est, o->min_time);
      r->t_peer = time_peer(&pc, r->calls_peer);
      if (pc.conv) {
        r->t_src_reorder = onednn_conv_src_in(pc.conv);
        r->t_dst_reorder = onednn_conv_dst_out(pc.conv);
      }
    }
  } else {
    r->reps = reps;
    r->t_tessel = tessel_median(ts, (size_t)reps);
    if (r->has_peer) {
      r->t_peer = tessel_median(ps, (size_t)reps);
      r->t_src_reorder = tessel_median(ss, (size_t)reps);
      r->t_dst_reorder = tessel_median(ds, (size_t)reps);
    }
  }
  r->others_busy = cpu_others(timed_start, cpu_sample_now());
  r->t_peer_io = r->t_peer + r->t_src_reorder + r->t_dst_reorder;
  r->ran = true;
free_samples:
  free(ts);
  free(ps);
  free(ss);
  free(ds);
  onednn_conv_destroy(pc.conv);
  sleep_ms(gap);
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

static void fmt_num(char *buf, size_t len, double v, const char *f) {
  if (isnan(v))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, f, v);
}

/* Other processes needed more CPUs than the row's threads left free. */
static bool disturbed(const row *r) {
  return r->others_busy + r->threads > omp_get_num_procs() + 0.25;
}

static void print_table(FILE *f, const row *rows, size_t n) {
  fprintf(f, "%-24s %-36s %3s %12s %12s %10s %9s  %-12s %-14s %s\n", "workload",
          "shape", "thr", "Tessel GF/s", "peer GF/s", "ratio", "compile s",
          "check", "reps", "busy");
  for (size_t i = 0; i < n; ++i) {
    const row *r = &rows[i];
    char tg[32], pg[32], ra[32], cs[32], ck[32], reps[48];
    fmt_num(tg, sizeof tg, r->ran ? gflops(r, r->t_tessel) : NAN, "%.3f");
    fmt_num(pg, sizeof pg, r->ran && r->has_peer ? gflops(r, r->t_peer) : NAN, "%.2f");
    double q = ratio(r);
    fmt_num(ra, sizeof ra, q, q < 0.01 ? "%.2e" : "%.4f");
    fmt_num(cs, sizeof cs, r->w->compiled != 0 ? r->w->compile_s : NAN, "%.2f");
    if (r->tessel_warmup_only)
      snprintf(reps, sizeof reps, "1(warm-up)/%d", r->calls_peer);
    else
      snprintf(reps, sizeof reps, "%dx%d/%d", r->reps, r->calls_tessel, r->calls_peer);
    char busy[32];
    fmt_num(busy, sizeof busy, r->ran ? r->others_busy : NAN, "%.2f");
    if (r->ran && disturbed(r))
      snprintf(busy + strlen(busy), sizeof busy - strlen(busy), " !");
    fprintf(f, "%-24s %-36s %3d %12s %12s %10s %9s  %-12s %-14s %s\n", r->w->label,
            r->w->shape, r->threads, tg, pg, ra, cs, check_str(r, ck, sizeof ck),
            r->ran ? reps : "-", busy);
  }
  fprintf(f, "(reps: repetitions x Tessel/peer calls per repetition; busy: CPUs\n"
             " other processes kept busy while the row was timed; '!': more than\n"
             " the row's threads left free (by over 0.25), the row was disturbed)\n");
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
      else if (r->w->kind == WL_CONV)
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

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void json_num(FILE *f, double v) {
  if (isnan(v) || isinf(v))
    fputs("null", f);
  else
    fprintf(f, "%.6g", v);
}

static void cpu_model(char *buf, size_t len) {
  snprintf(buf, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "model name", 10) == 0) {
      char *c = strchr(line, ':');
      if (c) {
        c += 1 + strspn(c + 1, " \t");
        c[strcspn(c, "\n")] = '\0';
        snprintf(buf, len, "%s", c);
      }
      break;
    }
  fclose(f);
}

static void load_average(char *buf, size_t len) {
  snprintf(buf, len, "?");
  FILE *f = fopen("/proc/loadavg", "r");
  if (!f)
    return;
  double a, b, c;
  if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
    snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
  fclose(f);
}

static char load_before[64], load_after[64];

static int write_json(const options *o, const peer_info *pi, const row *rows,
                      size_t n, const geo *g, size_t ng) {
  FILE *f = fopen(o->json, "w");
  if (!f) {
    fprintf(stderr, "tessel-bench: cannot write %s: %s\n", o->json, strerror(errno));
    return -1;
  }
  char cpu[256], date[64];
  cpu_model(cpu, sizeof cpu);
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  fprintf(f, "{\n  \"harness\": \"tessel-bench\",\n  \"date\": ");
  json_str(f, date);
  fprintf(f, ",\n  \"host\": {\"cpu\": ");
  json_str(f, cpu);
  fprintf(f, ", \"logical_cpus\": %d, \"loadavg_before\": ", omp_get_num_procs());
  json_str(f, load_before);
  fprintf(f, ", \"loadavg_after\": ");
  json_str(f, load_after);
  fprintf(f, "},\n  \"openblas\": ");
  json_str(f, pi->openblas);
  fprintf(f, ",\n  \"onednn\": ");
  json_str(f, pi->onednn);
  fprintf(f, ",\n  \"openmp\": ");
  json_str(f, pi->omp_binding);
  fprintf(f,
          ",\n  \"options\": {\"reps\": %d, \"min_time_s\": %g, \"budget_s\": %g, "
          "\"max_gflop\": ",
          o->reps, o->min_time, o->budget);
  json_num(f, o->max_gflop);
  fprintf(f,
          ", \"rel_tol\": %g, \"check_samples\": %zu, "
          "\"full_check_max_macs\": %.0f},\n",
          o->rel_tol, o->check_samples, o->full_check_macs);
  fprintf(f, "  \"rows\": [\n");
  for (size_t i = 0; i < n; ++i) {
    const row *r = &rows[i];
    const workload *w = r->w;
    char ck[32];
    fprintf(f, "    {\"id\": ");
    json_str(f, w->id);
    fprintf(f, ", \"group\": ");
    json_str(f, w->group);
    fprintf(f, ", \"workload\": ");
    json_str(f, w->label);
    fprintf(f, ", \"shape\": ");
    json_str(f, w->shape);
    if (w->kind == WL_MATMUL)
      fprintf(f, ", \"m\": %d, \"n\": %d, \"k\": %d", w->m, w->n, w->k);
    else {
      fprintf(f, ", \"layout\": \"%s\", \"conv\": ",
              w->layout == LAYOUT_NHWC ? "nhwc/hwcf" : "nchw/fchw");
      json_str(f, w->cs->name);
      fprintf(f, ", \"layer\": ");
      json_str(f, w->cs->layer);
      fprintf(f,
              ", \"batch\": %d, \"h\": %d, \"w\": %d, \"c\": %d, \"f\": %d, "
              "\"kernel\": %d, \"stride\": %d, \"pad\": %d, \"oh\": %d, \"ow\": %d",
              w->batch, w->cs->h, w->cs->w, w->cs->c, w->cs->f, w->cs->k,
              w->cs->stride, w->cs->pad, w->oh, w->ow);
    }
    fprintf(f, ",\n     \"threads\": %d, \"gap_ms\": %d, \"other_processes_cpus\": ",
            r->threads, r->gap_ms);
    json_num(f, r->ran ? r->others_busy : NAN);
    fprintf(f, ", \"disturbed\": %s, \"gflop\": ",
            r->ran && disturbed(r) ? "true" : "false");
    json_num(f, w->flops * 1e-9);
    fprintf(f, ", \"compile_s\": ");
    json_num(f, w->compiled ? w->compile_s : NAN);
    fprintf(f, ", \"check\": ");
    json_str(f, check_str(r, ck, sizeof ck));
    fprintf(f, ",\n     \"tessel\": {\"seconds\": ");
    json_num(f, r->ran ? r->t_tessel : NAN);
    fprintf(f, ", \"gflops\": ");
    json_num(f, r->ran ? gflops(r, r->t_tessel) : NAN);
    fprintf(f, ", \"reps\": %d, \"calls_per_rep\": %d, \"warmup_only\": %s, "
               "\"check_pass\": %s, \"checked\": %zu, \"max_err\": ",
            r->reps, r->calls_tessel, r->tessel_warmup_only ? "true" : "false",
            r->ran && r->check_t.pass ? "true" : "false", r->check_t.checked);
    json_num(f, r->check_t.max_rel_error);
    fprintf(f, "},\n     \"peer\": {\"name\": ");
    json_str(f, r->peer_name);
    fprintf(f, ", \"available\": %s, \"seconds\": ", r->has_peer ? "true" : "false");
    json_num(f, r->ran && r->has_peer ? r->t_peer : NAN);
    fprintf(f, ", \"gflops\": ");
    json_num(f, r->ran && r->has_peer ? gflops(r, r->t_peer) : NAN);
    fprintf(f, ", \"calls_per_rep\": %d, \"check_pass\": %s, \"checked\": %zu, \"max_err\": ",
            r->calls_peer, r->has_peer && r->check_p.pass ? "true" : "false",
            r->check_p.checked);
    json_num(f, r->has_peer ? r->check_p.max_rel_error : NAN);
    if (w->kind == WL_CONV) {
      fprintf(f, ",\n              \"src_reorder_s\": ");
      json_num(f, r->has_peer ? r->t_src_reorder : NAN);
      fprintf(f, ", \"dst_reorder_s\": ");
      json_num(f, r->has_peer ? r->t_dst_reorder : NAN);
      fprintf(f, ", \"seconds_with_io_reorders\": ");
      json_num(f, r->has_peer ? r->t_peer_io : NAN);
      fprintf(f, ", \"gflops_with_io_reorders\": ");
      json_num(f, r->has_peer ? gflops(r, r->t_peer_io) : NAN);
      fprintf(f, ", \"src_format\": ");
      json_str(f, r->src_fmt);
      fprintf(f, ", \"weights_format\": ");
      json_str(f, r->wei_fmt);
      fprintf(f, ", \"dst_format\": ");
      json_str(f, r->dst_fmt);
      fprintf(f, ", \"impl\": ");
      json_str(f, r->impl);
    }
    fprintf(f, "},\n     \"ratio\": ");
    json_num(f, ratio(r));
    fprintf(f, ", \"note\": ");
    json_str(f, r->note);
    fprintf(f, "}%s\n", i + 1 < n ? "," : "");
  }
  fprintf(f, "  ],\n  \"geomean_ratio\": [\n");
  for (size_t i = 0; i < ng; ++i)
    fprintf(f, "    {\"group\": \"%s\", \"threads\": %d, \"ratio\": %.6g, \"count\": %d}%s\n",
            g[i].group, g[i].threads, exp(g[i].log_sum / g[i].count), g[i].count,
            i + 1 < ng ? "," : "");
  fprintf(f, "  ]\n}\n");
  int err = ferror(f);
  fclose(f);
  return err ? -1 : 0;
}

/* --- Main --------------------------------------------------------------------------- */

int main(int argc, char **argv) {
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
  if (o.list) {
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
  if (mkdir_p(o.work_dir) != 0) {
    fprintf(stderr, "tessel-bench: cannot create %s: %s\n", o.work_dir, strerror(errno));
    return 1;
  }

  peer_info pi;
  peers_init(&pi);
  char cpu[256];
  cpu_model(cpu, sizeof cpu);
  load_average(load_before, sizeof load_before);
  progress("tessel-bench: %s, %d logical CPUs, load average %s\n  %s\n  %s\n"
           "  OpenMP: %s\n",
           cpu, omp_get_num_procs(), load_before, pi.openblas, pi.onednn,
           pi.omp_binding);

  row *rows = calloc(nsel * (size_t)o.num_threads, sizeof *rows);
  size_t nrows = 0;
  int failures = 0;
  if (!rows)
    return 1;
  for (size_t i = 0; i < nsel; ++i) {
    workload *w = sel[i];
    if (w->flops * 1e-9 > o.max_gflop) {
      progress("[%zu/%zu] %s: skipped (%.1f GFLOP > --max-gflop %g)\n", i + 1,
               nsel, w->id, w->flops * 1e-9, o.max_gflop);
      continue;
    }
    progress("[%zu/%zu] %s (%s, %.3f GFLOP): compiling... ", i + 1, nsel, w->id,
             w->shape, w->flops * 1e-9);
    w->compiled = compile_workload(&o, w) == 0 ? 1 : -1;
    progress("%s in %.2f s\n", w->compiled > 0 ? "done" : "FAILED", w->compile_s);
    bool data_ok = false;
    if (w->compiled > 0) {
      double t0 = now();
      data_ok = bench_alloc_inputs(w) == 0 &&
                bench_compute_reference(w, o.full_check_macs, o.check_samples) == 0;
      progress("    reference (%s, %zu outputs) in %.2f s\n",
               w->ref_full ? "full" : "sampled", w->ref_count, now() - t0);
    }
    for (int t = 0; t < o.num_threads; ++t) {
      row *r = &rows[nrows++];
      if (w->compiled > 0 && data_ok) {
        measure(&o, w, o.threads[t], r);
      } else {
        memset(r, 0, sizeof *r);
        r->w = w;
        r->threads = o.threads[t];
      }
      char ck[32];
      check_str(r, ck, sizeof ck);
      if (strncmp(ck, "PASS", 4) != 0)
        ++failures;
      if (r->ran)
        progress("    %dT: tessel %.3f GFLOP/s, %s %.2f GFLOP/s, ratio %.3g, %s, "
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
  load_average(load_after, sizeof load_after);
  printf("\n%s, %d logical CPUs; load average before %s, after %s\n%s\n%s\n"
         "OpenMP: %s\n",
         cpu, omp_get_num_procs(), load_before, load_after, pi.openblas,
         pi.onednn, pi.omp_binding);
  if (o.json && write_json(&o, &pi, rows, nrows, g, ng) == 0)
    printf("wrote %s\n", o.json);

  for (size_t i = 0; i < ncat; ++i)
    if (catalog[i].dl)
      dlclose(catalog[i].dl);
  peers_shutdown();
  free(rows);
  free(sel);
  free(catalog);
  return failures ? 1 : 0;
}

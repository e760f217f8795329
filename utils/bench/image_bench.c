/* tessel-image-bench: Tessel's CPU code on image pipelines (blur_x_blur_y,
 * unsharp mask, Harris corners) against Halide 14's autoschedulers, Tessel
 * without its fusion pass, plain C and a STREAM-like copy, in one process;
 * and on the row reductions softmax and layernorm (memory-bound: no Halide
 * generator, the bar is the copy's bandwidth).
 *
 *   tessel-image-bench [--only LIST] [--threads 1,2] [--reps N]
 *                      [--min-time S] [--budget S] [--gap-ms N]
 *                      [--rel-tol T] [--json FILE] [--work-dir DIR]
 *                      [--tessel-compile PATH] [--source-dir DIR]
 *                      [--halide-dir DIR] [--list] [--help]
 *
 * For every selected workload the harness compiles the workload's MLIR twice
 * with tessel-compile (the target's pipeline, and --pass-pipeline= the same
 * pipeline without its fusion passes: tessel-fuse-elementwise,
 * tessel-merge-siblings, tessel-fuse-producers), dlopens both and the Halide
 * variants the build produced (one per autoscheduler), computes a
 * double-precision reference, and for every thread count: checks every
 * variant's first result, then runs R repetitions of one batch per variant
 * (T, T-nofusion, Halide..., C, copy, T, ...), each batch n calls long so that
 * R batches take at least --min-time, and takes the median per-call time.
 * utils/bench/README.md describes the method. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include "bench_common.h"
#include "image_kernels.h"
#include "tessel/runtime.h"

#if TESSEL_IMAGE_BENCH_HAVE_HALIDE
#include "HalideRuntime.h"
#endif

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TESSEL_BENCH_DEFAULT_COMPILER
#define TESSEL_BENCH_DEFAULT_COMPILER "tessel-compile"
#endif
#ifndef TESSEL_BENCH_DEFAULT_WORKDIR
#define TESSEL_BENCH_DEFAULT_WORKDIR "tessel-image-bench-work"
#endif
#ifndef TESSEL_IMAGE_BENCH_DEFAULT_SOURCE_DIR
#define TESSEL_IMAGE_BENCH_DEFAULT_SOURCE_DIR "."
#endif
#ifndef TESSEL_IMAGE_BENCH_DEFAULT_HALIDE_DIR
#define TESSEL_IMAGE_BENCH_DEFAULT_HALIDE_DIR "bench-image-halide"
#endif
#ifndef TESSEL_IMAGE_BENCH_HAVE_HALIDE
#define TESSEL_IMAGE_BENCH_HAVE_HALIDE 0
#endif

/* The passes whose effect the "Tessel without fusion" variant removes
 * (kFusionPass names them in the output). */
static const char *const kFusionPasses[] = {
    "tessel-fuse-elementwise", "tessel-merge-siblings", "tessel-fuse-producers", NULL};
static const char *const kFusionPass =
    "tessel-fuse-elementwise, tessel-merge-siblings and tessel-fuse-producers";

/* --- Workloads and variants ------------------------------------------------------- */

#define NUM_SCHEDULERS 3
static const char *const kSchedulers[NUM_SCHEDULERS] = {"Mullapudi2016", "Li2018",
                                                        "Adams2019"};

typedef enum {
  V_TESSEL,
  V_TESSEL_NOFUSION,
  V_HALIDE_FIRST,
  V_PLAIN_C = V_HALIDE_FIRST + NUM_SCHEDULERS,
  V_COPY,
  NUM_VARIANTS
} variant_id;

typedef struct variant {
  char name[32];  /* table label: tessel, tessel-nofusion, halide-adams2019, ... */
  bool available; /* compiled / loaded / always there */
  bool failure;   /* unavailable because something that must work did not */
  char note[320]; /* why unavailable, or a remark for every row */
  double compile_s;
  void *dl;
  void *entry;
  float *out;
} variant;

typedef struct workload {
  const char *name; /* MLIR function, Halide generator, file stem */
  image_kind kind;
  const char *mlir; /* relative to --source-dir */
  int64_t h, w;     /* input 3 x h x w */
  int64_t oc, oh, ow;
  size_t in_count, out_count;
  char shape[64];
  variant v[NUM_VARIANTS];
  /* Data, while the workload runs; layernorm's gamma and beta are the start
   * of scratch (image_plain's convention). */
  float *in, *scratch, *copy_src, *copy_dst;
  size_t copy_count;
  double *ref, ref_rms;
} workload;

static workload catalog[] = {
    {.name = "blur_x_blur_y", .kind = IMAGE_BLUR_X_BLUR_Y,
     .mlir = "utils/demo/blur_x_blur_y.mlir", .h = 2048, .w = 2048},
    {.name = "unsharp", .kind = IMAGE_UNSHARP,
     .mlir = "utils/bench/image/workloads/unsharp.mlir", .h = 2048, .w = 2048},
    {.name = "harris", .kind = IMAGE_HARRIS,
     .mlir = "utils/bench/image/workloads/harris.mlir", .h = 2048, .w = 2048},
    {.name = "softmax", .kind = IMAGE_SOFTMAX,
     .mlir = "utils/bench/image/workloads/softmax.mlir", .h = 4096, .w = 4096},
    {.name = "layernorm", .kind = IMAGE_LAYERNORM,
     .mlir = "utils/bench/image/workloads/layernorm.mlir", .h = 16384, .w = 1024},
};

static bool is_row_workload(const workload *w) {
  return w->kind == IMAGE_SOFTMAX || w->kind == IMAGE_LAYERNORM;
}
#define NUM_WORKLOADS (sizeof catalog / sizeof catalog[0])

static void init_workload(workload *w) {
  image_output_shape(w->kind, w->h, w->w, &w->oc, &w->oh, &w->ow);
  w->in_count = (size_t)(image_input_planes(w->kind) * w->h * w->w);
  w->out_count = (size_t)(w->oc * w->oh * w->ow);
  if (is_row_workload(w))
    snprintf(w->shape, sizeof w->shape, "%lldx%lld", (long long)w->h,
             (long long)w->w);
  else if (w->oc > 1)
    snprintf(w->shape, sizeof w->shape, "3x%lldx%lld->%lldx%lldx%lld",
             (long long)w->h, (long long)w->w, (long long)w->oc,
             (long long)w->oh, (long long)w->ow);
  else
    snprintf(w->shape, sizeof w->shape, "3x%lldx%lld->%lldx%lld",
             (long long)w->h, (long long)w->w, (long long)w->oh,
             (long long)w->ow);
  /* The copy moves as many bytes as the workload must at least: its input
   * read once and its output written once. */
  w->copy_count = (w->in_count + w->out_count) / 2;
  for (int i = 0; i < NUM_VARIANTS; ++i) {
    variant *v = &w->v[i];
    memset(v, 0, sizeof *v);
    if (i == V_TESSEL)
      snprintf(v->name, sizeof v->name, "tessel");
    else if (i == V_TESSEL_NOFUSION)
      snprintf(v->name, sizeof v->name, "tessel-nofusion");
    else if (i == V_PLAIN_C)
      snprintf(v->name, sizeof v->name, "c-plain");
    else if (i == V_COPY)
      snprintf(v->name, sizeof v->name, "copy");
    else {
      char lower[32];
      snprintf(lower, sizeof lower, "%s", kSchedulers[i - V_HALIDE_FIRST]);
      for (char *p = lower; *p; ++p)
        *p = (char)tolower((unsigned char)*p);
      snprintf(v->name, sizeof v->name, "halide-%s", lower);
    }
  }
  w->v[V_PLAIN_C].available = true;
  w->v[V_COPY].available = true;
}

static bool is_halide(int id) {
  return id >= V_HALIDE_FIRST && id < V_HALIDE_FIRST + NUM_SCHEDULERS;
}

/* --- Options ---------------------------------------------------------------------- */

/* Entries of a list option kept at most. */
#define MAX_LIST 16

typedef struct options {
  bench_options common; /* the options tessel-bench takes as well */
  bool only[NUM_WORKLOADS];
  const char *source_dir, *halide_dir;
} options;

static void usage(FILE *f) {
  fputs(
      "usage: tessel-image-bench [options]\n"
      "  --only LIST         workloads: blur_x_blur_y, unsharp, harris, softmax,\n"
      "                      layernorm (default: all)\n"
      "  --threads LIST      thread counts (default 1,2)\n"
      "  --reps N            timed repetitions, median reported (default 7)\n"
      "  --min-time S        per variant, the R repetitions take at least S seconds\n"
      "                      (a repetition is a batch of calls; default 1.0)\n"
      "  --budget S          per variant and row, cut repetitions of slow code to\n"
      "                      about S seconds (default 60)\n"
      "  --gap-ms N          idle time before every batch, so spinning worker threads\n"
      "                      of one runtime (libomp, Halide's pool) do not steal the\n"
      "                      cores of the next (default: 0 at 1 thread, 250 at more)\n"
      "  --rel-tol T         check tolerance (default 1e-4)\n"
      "  --json FILE         write every row and the summary as JSON\n"
      "  --work-dir DIR      Tessel's generated .so/.h/.log files\n"
      "                      (default " TESSEL_BENCH_DEFAULT_WORKDIR ")\n"
      "  --tessel-compile P  the driver (default " TESSEL_BENCH_DEFAULT_COMPILER ")\n"
      "  --source-dir DIR    the checkout whose MLIR is compiled\n"
      "                      (default " TESSEL_IMAGE_BENCH_DEFAULT_SOURCE_DIR ")\n"
      "  --halide-dir DIR    the Halide variants the build made (ninja\n"
      "                      tessel-image-bench-halide; default\n"
      "                      " TESSEL_IMAGE_BENCH_DEFAULT_HALIDE_DIR ")\n"
      "  --list              print the selected workloads and exit\n",
      f);
}

/* The options only tessel-image-bench takes (bench_cli.own). */
static int own_option(void *ctx, const char *name, char *val) {
  options *o = ctx;
  if (!val) {
    return 0; /* no flags of its own */
  } else if (strcmp(name, "--only") == 0) {
    const char *toks[MAX_LIST];
    int n = bench_split_list(val, toks, MAX_LIST);
    for (size_t w = 0; w < NUM_WORKLOADS; ++w)
      o->only[w] = false;
    for (int t = 0; t < n; ++t) {
      size_t w = 0;
      while (w < NUM_WORKLOADS && strcmp(toks[t], catalog[w].name) != 0)
        ++w;
      if (w == NUM_WORKLOADS)
        return -1;
      o->only[w] = true;
    }
  } else if (strcmp(name, "--source-dir") == 0) {
    o->source_dir = val;
  } else if (strcmp(name, "--halide-dir") == 0) {
    o->halide_dir = val;
  } else {
    return 0;
  }
  return 1;
}

static int parse_options(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  for (size_t i = 0; i < NUM_WORKLOADS; ++i)
    o->only[i] = true;
  o->source_dir = TESSEL_IMAGE_BENCH_DEFAULT_SOURCE_DIR;
  o->halide_dir = TESSEL_IMAGE_BENCH_DEFAULT_HALIDE_DIR;
  const bench_cli cli = {"tessel-image-bench", usage, MAX_LIST, TESSEL_BENCH_DEFAULT_WORKDIR,
                         TESSEL_BENCH_DEFAULT_COMPILER, own_option, o};
  return bench_parse_options(argc, argv, &cli, &o->common);
}

/* --- Helpers ---------------------------------------------------------------------- */

static double now(void) { return tessel_now_seconds(); }

/* --- The pipeline without the fusion pass ---------------------------------------- */

static void skip_spaces(const char **p) {
  while (**p == ' ' || **p == '\t' || **p == '\n')
    ++*p;
}

/* Skips a balanced {...} (options may nest braces and quote strings). */
static int skip_options(const char **p) {
  int depth = 0;
  char quote = 0;
  for (; **p; ++*p) {
    char c = **p;
    if (quote) {
      if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      ++*p;
      return 0;
    }
  }
  return -1;
}

/* Copies the pass list at *p (up to the ')' that closes it, or the end) to
 * `out` without the elements named `pass`; an op-anchored list that only
 * held such elements (func.func(pass)) goes as well. Returns the number of
 * elements kept, or -1 when the text does not parse. */
static bool is_listed(const char *name, size_t len, const char *const *passes) {
  for (; *passes; ++passes)
    if (len == strlen(*passes) && strncmp(name, *passes, len) == 0)
      return true;
  return false;
}

static int filter_pass_list(const char **p, const char *const *passes, FILE *out,
                            int depth, int *removed) {
  int kept = 0;
  for (;;) {
    skip_spaces(p);
    if (**p == ')' || **p == '\0')
      return kept;
    const char *start = *p;
    while (**p && !strchr("{(), \t\n", **p))
      ++*p;
    const size_t name_len = (size_t)(*p - start);
    if (name_len == 0)
      return -1;
    skip_spaces(p);
    if (**p == '{' && skip_options(p) != 0)
      return -1;
    const char *head_end = *p;
    skip_spaces(p);
    bool keep;
    char *inner = NULL; /* the nested list, written only when kept */
    size_t inner_len = 0;
    bool nested = **p == '(';
    if (nested) {
      ++*p;
      const char *inner_start = *p;
      FILE *in = open_memstream(&inner, &inner_len);
      int inner_kept = in ? filter_pass_list(p, passes, in, depth + 1, removed) : -1;
      if (in)
        fclose(in);
      if (inner_kept < 0 || **p != ')') {
        free(inner);
        return -1;
      }
      const bool was_empty = *p == inner_start;
      ++*p;
      keep = inner_kept > 0 || was_empty;
    } else {
      keep = !is_listed(start, name_len, passes);
      if (!keep)
        ++*removed;
    }
    if (keep) {
      if (kept++)
        fputs(depth > 1 ? ", " : ",", out);
      fwrite(start, 1, (size_t)(head_end - start), out);
      if (nested)
        fprintf(out, "(%s)", inner);
    }
    free(inner);
    skip_spaces(p);
    if (**p == ',')
      ++*p;
    else if (**p != ')' && **p != '\0')
      return -1;
  }
}

/* Runs `tessel-compile --print-pipeline --target=cpu`; the returned string is
 * malloc'd, NULL on failure. */
static char *print_pipeline(const char *compiler) {
  int fds[2];
  if (pipe(fds) != 0)
    return NULL;
  pid_t pid = fork();
  if (pid < 0)
    return NULL;
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    char *args[] = {(char *)compiler, "--print-pipeline", "--target=cpu", NULL};
    execvp(compiler, args);
    _exit(127);
  }
  close(fds[1]);
  /* All of the output: it has no NUL to stop getdelim. */
  FILE *in = fdopen(fds[0], "r");
  char *text = NULL;
  size_t cap = 0;
  ssize_t len = in ? getdelim(&text, &cap, '\0', in) : -1;
  if (in)
    fclose(in);
  else
    close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || len <= 0) {
    free(text);
    return NULL;
  }
  while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
    text[--len] = '\0';
  return text;
}

typedef struct pipelines {
  char *normal;      /* --print-pipeline */
  char *nofusion;    /* without kFusionPass; = normal when it is not there */
  bool fusion_in_pipeline;
} pipelines;

static int make_pipelines(const options *o, pipelines *pl) {
  memset(pl, 0, sizeof *pl);
  pl->normal = print_pipeline(o->common.compiler);
  if (!pl->normal) {
    fprintf(stderr, "tessel-image-bench: '%s --print-pipeline --target=cpu' failed\n",
            o->common.compiler);
    return -1;
  }
  char *out = NULL;
  size_t out_len = 0;
  FILE *f = open_memstream(&out, &out_len);
  int removed = 0;
  const char *p = pl->normal;
  const int kept = f ? filter_pass_list(&p, kFusionPasses, f, 0, &removed) : -1;
  if (f)
    fclose(f);
  if (kept < 0 || *p != '\0') {
    fprintf(stderr, "tessel-image-bench: cannot read the printed pipeline: %s\n",
            pl->normal);
    free(out);
    return -1;
  }
  pl->fusion_in_pipeline = removed > 0;
  if (removed > 0) {
    pl->nofusion = out;
  } else {
    free(out);
    pl->nofusion = strdup(pl->normal);
  }
  return pl->nofusion ? 0 : -1;
}

/* --- Tessel: compile and load ---------------------------------------------------- */

/* Runs tessel-compile on the workload's MLIR (with --pass-pipeline= when
 * `pipeline` is set; wall time recorded) and dlopens the result. The files
 * get their names <stem>.{so,h,log} once loaded (bench_files). */
static int compile_tessel(const options *o, workload *w, variant *v,
                          const char *stem, const char *pipeline) {
  static const char *const exts[3] = {"so", "h", "log"};
  bench_files fs;
  bench_files_init(&fs, o->common.work_dir, stem, exts, 3);
  char mlir[BENCH_PATH_MAX], hdr_opt[BENCH_PATH_MAX + 16];
  snprintf(mlir, sizeof mlir, "%s/%s", o->source_dir, w->mlir);
  snprintf(hdr_opt, sizeof hdr_opt, "--header=%s", fs.tmp[1]);
  char *pipe_opt = NULL;
  if (pipeline) {
    const size_t len = strlen("--pass-pipeline=") + strlen(pipeline) + 1;
    if (!(pipe_opt = malloc(len))) {
      fprintf(stderr, "tessel-image-bench: out of memory\n");
      exit(1);
    }
    snprintf(pipe_opt, len, "--pass-pipeline=%s", pipeline);
  }
  char *args[8] = {(char *)o->common.compiler, mlir, "--target=cpu", "-o", fs.tmp[0],
                   hdr_opt, pipe_opt, NULL};
  const int run = bench_run_logged(args, fs.tmp[2], &v->compile_s);
  free(pipe_opt);
  if (run < 0)
    return -1;
  int rc = 0;
  if (run != 0) {
    fprintf(stderr, "\ntessel-image-bench: tessel-compile failed on %s (log %s):\n",
            mlir, fs.final[2]);
    bench_print_log_head(fs.tmp[2]);
    snprintf(v->note, sizeof v->note, "tessel-compile failed (log %s)", fs.final[2]);
    rc = -1;
  } else if (!(v->dl = dlopen(fs.tmp[0], RTLD_NOW | RTLD_LOCAL))) {
    snprintf(v->note, sizeof v->note, "dlopen: %s", dlerror());
    rc = -1;
  } else {
    char sym[160];
    snprintf(sym, sizeof sym, "_mlir_ciface_%s", w->name);
    if (!(v->entry = dlsym(v->dl, sym))) {
      snprintf(v->note, sizeof v->note, "%s not in %s", sym, fs.final[0]);
      rc = -1;
    }
  }
  bench_files_publish(&fs);
  v->available = rc == 0;
  v->failure = rc != 0;
  return rc;
}

/* --- Halide: the runtime and the variants ----------------------------------------- */

typedef struct halide_info {
  bool runtime_loaded;
  char runtime[512]; /* path or why not */
  int (*set_num_threads)(int);
  void (*shutdown_thread_pool)(void);
  char target[256], machine_params[64];
} halide_info;

static halide_info halide;

/* Halide's default error handler aborts the process; this one keeps the
 * message, and the pipeline returns its error code to the harness. */
static char halide_last_error[256];

#if TESSEL_IMAGE_BENCH_HAVE_HALIDE
static void record_halide_error(void *user_context, const char *msg) {
  (void)user_context;
  snprintf(halide_last_error, sizeof halide_last_error, "%s", msg);
  halide_last_error[strcspn(halide_last_error, "\n")] = '\0';
}
#endif

/* Reads `key=value` from a variant's .status file. */
static bool status_value(const char *path, const char *key, char *out,
                         size_t len) {
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  char line[1024];
  size_t klen = strlen(key);
  bool found = false;
  while (!found && fgets(line, sizeof line, f))
    if (strncmp(line, key, klen) == 0 && line[klen] == '=') {
      line[strcspn(line, "\n")] = '\0';
      snprintf(out, len, "%s", line + klen + 1);
      found = true;
    }
  fclose(f);
  return found;
}

static void halide_init(const options *o) {
  memset(&halide, 0, sizeof halide);
#if TESSEL_IMAGE_BENCH_HAVE_HALIDE
  char path[4096];
  snprintf(path, sizeof path, "%s/libtessel_halide_runtime.so", o->halide_dir);
  /* Loaded first, so that every variant (DT_NEEDED on its soname) binds to
   * this one runtime: one thread pool, one halide_set_num_threads. */
  void *rt = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!rt) {
    snprintf(halide.runtime, sizeof halide.runtime,
             "not built (%s; run ninja tessel-image-bench-halide)", dlerror());
    return;
  }
  void *f = dlsym(rt, "halide_set_num_threads");
  if (!f) {
    snprintf(halide.runtime, sizeof halide.runtime,
             "%s has no halide_set_num_threads", path);
    return;
  }
  memcpy(&halide.set_num_threads, &f, sizeof f);
  void *set_handler = dlsym(rt, "halide_set_error_handler");
  void *shutdown = dlsym(rt, "halide_shutdown_thread_pool");
  if (!set_handler || !shutdown) {
    snprintf(halide.runtime, sizeof halide.runtime,
             "%s lacks halide_set_error_handler or halide_shutdown_thread_pool",
             path);
    return;
  }
  memcpy(&halide.shutdown_thread_pool, &shutdown, sizeof shutdown);
  halide_error_handler_t (*set_error_handler)(halide_error_handler_t);
  memcpy(&set_error_handler, &set_handler, sizeof set_handler);
  set_error_handler(record_halide_error);
  halide.runtime_loaded = true;
  snprintf(halide.runtime, sizeof halide.runtime, "%s", path);
#else
  (void)o;
  snprintf(halide.runtime, sizeof halide.runtime,
           "Halide 14 was not found when the build was configured");
#endif
}

static void load_halide_variant(const options *o, workload *w, int id) {
  variant *v = &w->v[id];
  const char *sched = kSchedulers[id - V_HALIDE_FIRST];
  if (is_row_workload(w)) {
    snprintf(v->note, sizeof v->note,
             "no Halide generator for this workload (its bar is the copy)");
    return;
  }
  if (!halide.runtime_loaded) {
    snprintf(v->note, sizeof v->note, "no Halide: %s", halide.runtime);
    return;
  }
  const char *fn = v->name + strlen("halide-");
  char stem[160], status_path[4096], so[4096];
  snprintf(stem, sizeof stem, "%s_%s", w->name, fn);
  snprintf(status_path, sizeof status_path, "%s/%s.status", o->halide_dir, stem);
  snprintf(so, sizeof so, "%s/%s.so", o->halide_dir, stem);
  char status[32] = "", reason[256] = "", value[256];
  if (!status_value(status_path, "status", status, sizeof status)) {
    snprintf(v->note, sizeof v->note,
             "%s variant not built (no %s; run ninja tessel-image-bench-halide)",
             sched, status_path);
    return;
  }
  if (strcmp(status, "ok") != 0) {
    status_value(status_path, "reason", reason, sizeof reason);
    snprintf(v->note, sizeof v->note, "%s could not build it: %s", sched, reason);
    return;
  }
  if (!halide.target[0] && status_value(status_path, "target", value, sizeof value))
    snprintf(halide.target, sizeof halide.target, "%s", value);
  if (!halide.machine_params[0] &&
      status_value(status_path, "machine_params", value, sizeof value))
    snprintf(halide.machine_params, sizeof halide.machine_params, "%s", value);
  if (!(v->dl = dlopen(so, RTLD_NOW | RTLD_LOCAL))) {
    snprintf(v->note, sizeof v->note, "dlopen: %s", dlerror());
    v->failure = true;
    return;
  }
  if (!(v->entry = dlsym(v->dl, stem))) {
    snprintf(v->note, sizeof v->note, "%s not in %s", stem, so);
    v->failure = true;
    return;
  }
  if (status_value(status_path, "seconds", value, sizeof value))
    v->compile_s = atof(value);
  if (status_value(status_path, "warning", value, sizeof value) && value[0])
    snprintf(v->note, sizeof v->note, "%s", value);
  v->available = true;
}

/* --- Calling a variant -------------------------------------------------------------- */

typedef struct call_state {
  workload *w;
  tessel_memref_f32_3d tessel_in, tessel_out[2]; /* tessel, tessel-nofusion */
  tessel_memref_f32_1d gamma, beta;              /* layernorm */
#if TESSEL_IMAGE_BENCH_HAVE_HALIDE
  halide_dimension_t in_dims[3], out_dims[NUM_SCHEDULERS][3];
  halide_buffer_t in_buf, out_buf[NUM_SCHEDULERS];
#endif
} call_state;

static void call_state_init(call_state *cs, workload *w) {
  memset(cs, 0, sizeof *cs);
  cs->w = w;
  const int64_t in_shape[3] = {3, w->h, w->w};
  const int64_t out_shape3[3] = {w->oc, w->oh, w->ow};
  const int64_t out_shape2[2] = {w->oh, w->ow};
  const int out_rank = w->oc > 1 ? 3 : 2;
  const int in_rank = image_input_planes(w->kind) > 1 ? 3 : 2;
  tessel_memref_init_identity(&cs->tessel_in, w->in, in_rank,
                              in_rank == 3 ? in_shape : in_shape + 1);
  if (w->kind == IMAGE_LAYERNORM) {
    tessel_memref_init_identity(&cs->gamma, w->scratch, 1, &w->w);
    tessel_memref_init_identity(&cs->beta, w->scratch + w->w, 1, &w->w);
  }
  for (int i = 0; i < 2; ++i)
    tessel_memref_init_identity(&cs->tessel_out[i], w->v[V_TESSEL + i].out, out_rank,
                                out_rank == 3 ? out_shape3 : out_shape2);
#if TESSEL_IMAGE_BENCH_HAVE_HALIDE
  /* Halide's dimension 0 is x, the contiguous one. */
  const halide_dimension_t in_dims[3] = {
      {0, (int32_t)w->w, 1, 0},
      {0, (int32_t)w->h, (int32_t)w->w, 0},
      {0, 3, (int32_t)(w->w * w->h), 0}};
  memcpy(cs->in_dims, in_dims, sizeof in_dims);
  const struct halide_type_t f32 = {halide_type_float, 32, 1};
  cs->in_buf.host = (uint8_t *)w->in;
  cs->in_buf.type = f32;
  cs->in_buf.dimensions = 3;
  cs->in_buf.dim = cs->in_dims;
  for (int s = 0; s < NUM_SCHEDULERS; ++s) {
    const halide_dimension_t out_dims[3] = {
        {0, (int32_t)w->ow, 1, 0},
        {0, (int32_t)w->oh, (int32_t)w->ow, 0},
        {0, (int32_t)w->oc, (int32_t)(w->ow * w->oh), 0}};
    memcpy(cs->out_dims[s], out_dims, sizeof out_dims);
    halide_buffer_t *b = &cs->out_buf[s];
    b->host = (uint8_t *)w->v[V_HALIDE_FIRST + s].out;
    b->type = f32;
    b->dimensions = out_rank;
    b->dim = cs->out_dims[s];
  }
#endif
}

/* One call; returns 0, or the Halide pipeline's error code. */
static int call_variant(call_state *cs, int id) {
  workload *w = cs->w;
  variant *v = &w->v[id];
  switch (id) {
  case V_TESSEL:
  case V_TESSEL_NOFUSION: {
    if (w->kind == IMAGE_LAYERNORM) {
      void (*fn)(void *, void *, void *, void *);
      memcpy(&fn, &v->entry, sizeof fn);
      fn(&cs->tessel_in, &cs->gamma, &cs->beta, &cs->tessel_out[id - V_TESSEL]);
      return 0;
    }
    void (*fn)(void *, void *);
    memcpy(&fn, &v->entry, sizeof fn);
    fn(&cs->tessel_in, &cs->tessel_out[id - V_TESSEL]);
    return 0;
  }
  case V_PLAIN_C:
    image_plain(w->kind, w->in, w->h, w->w, w->scratch, v->out);
    return 0;
  case V_COPY:
    image_stream_copy(w->copy_src, w->copy_dst, w->copy_count);
    return 0;
  default:
    break;
  }
#if TESSEL_IMAGE_BENCH_HAVE_HALIDE
  int (*fn)(halide_buffer_t *, halide_buffer_t *);
  memcpy(&fn, &v->entry, sizeof fn);
  return fn(&cs->in_buf, &cs->out_buf[id - V_HALIDE_FIRST]);
#else
  return -1;
#endif
}

/* --- Checks ------------------------------------------------------------------------- */

typedef struct check_result {
  bool pass;
  size_t mismatches;
  double max_err;
} check_result;

/* Passes when every element has |a - e| <= rel_tol |e| + rel_tol rms(ref)
 * (the tolerance of tessel-bench); the error reported is max |a - e| / (|e| +
 * rms), which is <= rel_tol exactly when every element passes. */
static check_result check_output(const workload *w, const char *label,
                                 const float *actual, double rel_tol) {
  check_result r = {false, 0, 0.0};
  const double rms = w->ref_rms > 0 ? w->ref_rms : 1.0;
  tessel_compare_stats st;
  r.mismatches = tessel_compare_f32(label, actual, w->ref, w->out_count, rel_tol,
                                    rel_tol * rms, &st);
  double worst = 0.0;
  for (size_t i = 0; i < w->out_count; ++i) {
    const double d = fabs((double)actual[i] - w->ref[i]) / (fabs(w->ref[i]) + rms);
    if (d > worst || d != d)
      worst = d;
  }
  r.max_err = worst;
  r.pass = r.mismatches == 0;
  return r;
}

/* --- Measurement -------------------------------------------------------------------- */

typedef struct row {
  workload *w;
  int threads;
  int id; /* variant; -1: the "best Halide" summary row */
  int best_of; /* for the summary row: the variant it repeats */
  bool ran;
  int error; /* Halide error code of the first call */
  char error_text[256];
  check_result check;
  double t; /* median seconds per call */
  int reps, calls;
  double par;  /* CPU time / wall time while timed */
  double busy; /* CPUs other processes used while the block was timed */
  int gap_ms;
} row;

static double time_batch(call_state *cs, int id, int n) {
  double t0 = now();
  for (int i = 0; i < n; ++i)
    call_variant(cs, id);
  return (now() - t0) / n;
}

static void set_threads(int threads) {
  omp_set_num_threads(threads);
  if (halide.set_num_threads) {
    /* halide_set_num_threads alone only caps how many workers are woken: a
     * worker left from a run with more threads that is still awake joins
     * the next parallel loop anyway (seen as par 1.9 at 1 thread). A fresh
     * pool creates exactly threads - 1 workers. */
    halide.shutdown_thread_pool();
    halide.set_num_threads(threads);
  }
}

/* Measures every available variant of `w` at `threads`; fills
 * rows[0..NUM_VARIANTS). */
static void measure(const options *o, workload *w, int threads, row *rows) {
  const int gap = bench_gap_ms(&o->common, threads);
  set_threads(threads);
  call_state cs;
  call_state_init(&cs, w);
  double est[NUM_VARIANTS] = {0};
  for (int id = 0; id < NUM_VARIANTS; ++id) {
    row *r = &rows[id];
    memset(r, 0, sizeof *r);
    r->w = w;
    r->threads = threads;
    r->id = id;
    r->gap_ms = gap;
    r->par = NAN;
    r->t = NAN;
    variant *v = &w->v[id];
    if (!v->available)
      continue;
    /* Warm-up and check: the first call's result is the one checked. */
    bench_sleep_ms(gap);
    if (id == V_COPY)
      bench_fill_nan(w->copy_dst, w->copy_count);
    else
      bench_fill_nan(v->out, w->out_count);
    halide_last_error[0] = '\0';
    double t0 = now();
    r->error = call_variant(&cs, id);
    double t_first = now() - t0;
    if (r->error) {
      snprintf(r->error_text, sizeof r->error_text, "Halide error %d: %s", r->error,
               halide_last_error[0] ? halide_last_error : "(no message)");
      bench_progress("    %dT %-22s %s\n", threads, v->name, r->error_text);
      continue;
    }
    char label[96];
    snprintf(label, sizeof label, "%s %dT %s", w->name, threads, v->name);
    if (id == V_COPY) {
      r->check.pass = memcmp(w->copy_src, w->copy_dst, w->copy_count * sizeof(float)) == 0;
      r->check.mismatches = r->check.pass ? 0 : 1;
    } else {
      r->check = check_output(w, label, v->out, o->common.rel_tol);
    }
    est[id] = t_first;
    if (t_first < 0.5) {
      est[id] = time_batch(&cs, id, 1);
      if (est[id] < 0.05) /* a few more for caches, predictors, thread pools */
        est[id] = time_batch(&cs, id, bench_calls_for(est[id], 0.05));
    }
    r->calls = bench_calls_for(est[id], o->common.min_time / o->common.reps);
    r->ran = true;
    bench_progress("    %dT %-22s first call %8.3f ms, %s (max err %.2e)\n", threads,
                   v->name, 1e3 * t_first, r->check.pass ? "PASS" : "FAIL",
                   r->check.max_err);
  }
  /* Repetitions of one batch per variant, all cut alike when one variant's
   * share would exceed the budget. */
  int reps = o->common.reps;
  for (int id = 0; id < NUM_VARIANTS; ++id)
    if (rows[id].ran && est[id] * rows[id].calls * reps > o->common.budget) {
      int r = (int)(o->common.budget / (est[id] * rows[id].calls));
      reps = r < 1 ? 1 : r < reps ? r : reps;
    }
  double *samples = calloc((size_t)NUM_VARIANTS * (size_t)reps, sizeof(double));
  double cpu[NUM_VARIANTS] = {0}, wall[NUM_VARIANTS] = {0};
  if (!samples) {
    fprintf(stderr, "tessel-image-bench: out of memory\n");
    exit(1);
  }
  const bench_cpu_sample start = bench_cpu_sample_now();
  for (int rep = 0; rep < reps; ++rep)
    for (int id = 0; id < NUM_VARIANTS; ++id) {
      if (!rows[id].ran)
        continue;
      bench_sleep_ms(gap);
      const double c0 = bench_self_cpu_seconds(), w0 = now();
      samples[id * reps + rep] = time_batch(&cs, id, rows[id].calls);
      cpu[id] += bench_self_cpu_seconds() - c0;
      wall[id] += now() - w0;
    }
  const double busy = bench_cpu_others(start, bench_cpu_sample_now());
  for (int id = 0; id < NUM_VARIANTS; ++id) {
    row *r = &rows[id];
    r->busy = busy;
    if (!r->ran)
      continue;
    r->reps = reps;
    r->t = tessel_median(&samples[id * reps], (size_t)reps);
    r->par = wall[id] > 0 ? cpu[id] / wall[id] : NAN;
  }
  free(samples);
  bench_sleep_ms(gap);
}

/* --- Report ------------------------------------------------------------------------- */

static double mpix(const row *r) {
  return r->ran && r->id != V_COPY && r->t > 0
             ? (double)(r->w->oh * r->w->ow) / r->t * 1e-6
             : NAN;
}

/* Bytes a call must move at least (input read once, output written once);
 * for the copy: what it reads and writes. */
static double gbps(const row *r) {
  if (!r->ran || !(r->t > 0))
    return NAN;
  const double bytes = r->id == V_COPY
                           ? 2.0 * (double)r->w->copy_count * sizeof(float)
                           : (double)(r->w->in_count + r->w->out_count) * sizeof(float);
  return bytes / r->t * 1e-9;
}

/* Rows of one (workload, threads) block sit at block[variant id], the best
 * Halide summary at block[NUM_VARIANTS]; Tessel's is block[V_TESSEL]. */
static const row *tessel_row_of(const row *r) {
  return r->id >= 0 ? r - r->id : r - NUM_VARIANTS;
}

/* Tessel's speed over the row's: Tessel Mpix/s / variant Mpix/s. */
static double ratio_vs(const row *tessel, const row *r) {
  if (!tessel->ran || !r->ran || !(tessel->t > 0) || !(r->t > 0))
    return NAN;
  return r->t / tessel->t;
}

static int variant_of(const row *r) { return r->id >= 0 ? r->id : r->best_of; }

static const char *row_label(const row *r, char *buf, size_t len) {
  if (r->id >= 0)
    snprintf(buf, len, "%s", r->w->v[r->id].name);
  else if (r->best_of >= 0)
    snprintf(buf, len, "best halide (%s)", r->w->v[r->best_of].name + strlen("halide-"));
  else
    snprintf(buf, len, "best halide");
  return buf;
}

static const char *check_str(const row *r, char *buf, size_t len) {
  const variant *v = r->best_of >= 0 || r->id >= 0 ? &r->w->v[variant_of(r)] : NULL;
  if (!v)
    snprintf(buf, len, "-");
  else if (!v->available)
    snprintf(buf, len, !v->failure ? "NOT-BUILT"
                       : is_halide(variant_of(r)) ? "LOAD-FAIL"
                                                  : "COMPILE-FAIL");
  else if (r->error)
    snprintf(buf, len, "ERROR(%d)", r->error);
  else if (!r->ran)
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%s", r->check.pass ? "PASS" : "FAIL");
  return buf;
}

static const char *row_note(const row *r, const pipelines *pl) {
  if (r->id < 0)
    return r->best_of < 0 ? "no Halide variant ran" : "";
  const variant *v = &r->w->v[r->id];
  if (r->error)
    return r->error_text;
  if (r->id == V_TESSEL_NOFUSION && v->available)
    return pl->fusion_in_pipeline
               ? "the cpu pipeline without its fusion passes"
               : "fusion passes not in pipeline (same pipeline as tessel)";
  return v->note;
}

/* Fills the summary row of a block: the fastest Halide variant that ran and
 * passed its check. */
static void best_halide(row *block, row *summary) {
  memset(summary, 0, sizeof *summary);
  summary->w = block[0].w;
  summary->threads = block[0].threads;
  summary->id = -1;
  summary->best_of = -1;
  summary->t = NAN;
  summary->par = NAN;
  summary->busy = block[0].busy;
  for (int id = V_HALIDE_FIRST; id < V_HALIDE_FIRST + NUM_SCHEDULERS; ++id) {
    const row *r = &block[id];
    if (r->ran && r->check.pass && (summary->best_of < 0 || r->t < summary->t)) {
      *summary = *r;
      summary->id = -1;
      summary->best_of = id;
    }
  }
}

static void print_table(FILE *f, row *const *rows, size_t n, const pipelines *pl) {
  fprintf(f, "%-14s %3s  %-28s %10s %9s %8s %9s  %-12s %9s %5s %-8s %5s  %s\n",
          "workload", "thr", "variant", "ms", "Mpix/s", "GB/s", "ratio", "check",
          "max err", "par", "reps", "busy", "note");
  for (size_t i = 0; i < n; ++i) {
    const row *r = rows[i];
    const row *t = tessel_row_of(r);
    char label[48], ms[32], mp[32], gb[32], ra[32], ck[32], err[32], par[32],
        reps[32], busy[32];
    row_label(r, label, sizeof label);
    bench_fmt_num(ms, sizeof ms, r->ran ? 1e3 * r->t : NAN, "%.3f");
    bench_fmt_num(mp, sizeof mp, mpix(r), "%.1f");
    bench_fmt_num(gb, sizeof gb, gbps(r), "%.2f");
    bench_fmt_num(ra, sizeof ra, ratio_vs(t, r), "%.3f");
    check_str(r, ck, sizeof ck);
    bench_fmt_num(err, sizeof err,
                  r->ran && variant_of(r) != V_COPY ? r->check.max_err : NAN, "%.2e");
    bench_fmt_num(par, sizeof par, r->par, "%.2f");
    if (r->ran)
      snprintf(reps, sizeof reps, "%dx%d", r->reps, r->calls);
    else
      snprintf(reps, sizeof reps, "-");
    bench_fmt_busy(busy, sizeof busy, r->busy, r->threads, "!");
    fprintf(f, "%-14s %3d  %-28s %10s %9s %8s %9s  %-12s %9s %5s %-8s %5s  %s\n",
            r->w->name, r->threads, label, ms, mp, gb, ra, ck, err, par, reps, busy,
            row_note(r, pl));
  }
  fprintf(f,
          "(ms: median per call; Mpix/s: output pixels (all channels of a pixel\n"
          " counted once; for softmax and layernorm, output elements) per second; GB/s: (input + output bytes) / time, for copy\n"
          " the bytes it reads and writes; ratio: the row's time / Tessel's time,\n"
          " i.e. Tessel Mpix/s / row Mpix/s, above 1 Tessel is faster; max err:\n"
          " max |a - e| / (|e| + rms(reference)); par: CPU time / wall time while\n"
          " the row was timed (the threads it really used); reps: repetitions x\n"
          " calls per repetition; busy: CPUs other processes kept busy while the\n"
          " block was timed, '!': fewer CPUs than the row's threads were left free)\n");
}

/* The bars: Tessel >= 1.0x the best Halide autoschedule on every
 * workload, and blur_x_blur_y >= 3x Tessel without fusion. */
typedef struct bar {
  const row *tessel, *other;
  const char *what;
  double target;
  double ratio;
  const char *status; /* met | not met | n/a: why */
} bar;

static size_t collect_bars(row *const *rows, size_t n, const pipelines *pl,
                           bar *out, size_t max) {
  size_t nb = 0;
  for (size_t i = 0; i < n && nb + 2 <= max; ++i) {
    const row *r = rows[i];
    if (r->id != V_TESSEL)
      continue;
    const row *best = NULL, *nofusion = r + V_TESSEL_NOFUSION;
    for (size_t j = i; j < n; ++j)
      if (rows[j]->id < 0 && rows[j]->w == r->w && rows[j]->threads == r->threads) {
        best = rows[j];
        break;
      }
    bar *b = &out[nb++];
    b->tessel = r;
    if (is_row_workload(r->w)) {
      /* The copy moves the same bytes: the time ratio is the bandwidth
       * ratio. */
      b->other = r + V_COPY;
      b->what = "copy bandwidth";
      b->target = 0.8;
      b->ratio = ratio_vs(r, b->other);
      b->status = isnan(b->ratio)          ? "n/a: no result"
                  : b->ratio >= b->target ? "met"
                                          : "not met";
      continue;
    }
    b->other = best;
    b->what = "best halide";
    b->target = 1.0;
    b->ratio = best ? ratio_vs(r, best) : NAN;
    b->status = isnan(b->ratio) ? "n/a: no result" : b->ratio >= b->target ? "met" : "not met";
    if (r->w->kind == IMAGE_BLUR_X_BLUR_Y) {
      b = &out[nb++];
      b->tessel = r;
      b->other = nofusion;
      b->what = "tessel-nofusion";
      b->target = 3.0;
      b->ratio = ratio_vs(r, nofusion);
      b->status = !pl->fusion_in_pipeline ? "n/a: fusion pass not in pipeline"
                  : isnan(b->ratio)        ? "n/a: no result"
                  : b->ratio >= b->target  ? "met"
                                           : "not met";
    }
  }
  return nb;
}

static char load_before[64], load_after[64];

static int write_json(const options *o, const pipelines *pl, row *const *rows,
                      size_t n, const bar *bars, size_t nb) {
  FILE *f = bench_json_begin("tessel-image-bench", o->common.json, load_before, load_after);
  if (!f)
    return -1;
  fprintf(f, ",\n  \"openmp\": ");
  char omp[128];
  snprintf(omp, sizeof omp, "omp_set_num_threads -> %s",
           bench_symbol_owner("omp_set_num_threads"));
  bench_json_str(f, omp);
  fprintf(f, ",\n  \"halide\": {\"runtime\": ");
  bench_json_str(f, halide.runtime);
  fprintf(f, ", \"target\": ");
  bench_json_str(f, halide.target);
  fprintf(f, ", \"machine_params\": ");
  bench_json_str(f, halide.machine_params);
  fprintf(f, "},\n  \"pipeline\": ");
  bench_json_str(f, pl->normal);
  fprintf(f, ",\n  \"pipeline_without_fusion\": ");
  bench_json_str(f, pl->nofusion);
  fprintf(f, ",\n  \"fusion_passes\": ");
  bench_json_str(f, kFusionPass);
  fprintf(f, ", \"fusion_pass_in_pipeline\": %s",
          pl->fusion_in_pipeline ? "true" : "false");
  fprintf(f,
          ",\n  \"options\": {\"reps\": %d, \"min_time_s\": %g, \"budget_s\": %g, "
          "\"rel_tol\": %g},\n  \"rows\": [\n",
          o->common.reps, o->common.min_time, o->common.budget, o->common.rel_tol);
  for (size_t i = 0; i < n; ++i) {
    const row *r = rows[i];
    const row *tr = tessel_row_of(r);
    const variant *v = variant_of(r) >= 0 ? &r->w->v[variant_of(r)] : NULL;
    char label[48], ck[32];
    fprintf(f, "    {\"workload\": ");
    bench_json_str(f, r->w->name);
    fprintf(f, ", \"shape\": ");
    bench_json_str(f, r->w->shape);
    fprintf(f, ", \"threads\": %d, \"variant\": ", r->threads);
    bench_json_str(f, row_label(r, label, sizeof label));
    if (r->id < 0) {
      fprintf(f, ", \"best_of\": ");
      bench_json_str(f, v ? v->name : "");
    }
    fprintf(f, ", \"available\": %s, \"check\": ", v && v->available ? "true" : "false");
    bench_json_str(f, check_str(r, ck, sizeof ck));
    fprintf(f, ",\n     \"seconds\": ");
    bench_json_num(f, r->ran ? r->t : NAN);
    fprintf(f, ", \"mpix_per_s\": ");
    bench_json_num(f, mpix(r));
    fprintf(f, ", \"gb_per_s\": ");
    bench_json_num(f, gbps(r));
    fprintf(f, ", \"ratio\": ");
    bench_json_num(f, ratio_vs(tr, r));
    fprintf(f, ", \"max_err\": ");
    bench_json_num(f, r->ran && variant_of(r) != V_COPY ? r->check.max_err : NAN);
    fprintf(f, ", \"cpu_per_wall\": ");
    bench_json_num(f, r->par);
    fprintf(f, ", \"reps\": %d, \"calls_per_rep\": %d, \"gap_ms\": %d, "
               "\"compile_s\": ",
            r->reps, r->calls, r->gap_ms);
    bench_json_num(f,
                   v && v->available && (variant_of(r) < V_PLAIN_C) ? v->compile_s : NAN);
    fprintf(f, ", \"other_processes_cpus\": ");
    bench_json_num(f, r->busy);
    fprintf(f, ", \"disturbed\": %s, \"note\": ",
            !isnan(r->busy) && bench_disturbed(r->busy, r->threads) ? "true" : "false");
    bench_json_str(f, row_note(r, pl));
    fprintf(f, "}%s\n", i + 1 < n ? "," : "");
  }
  fprintf(f, "  ],\n  \"bars\": [\n");
  for (size_t i = 0; i < nb; ++i) {
    fprintf(f, "    {\"workload\": ");
    bench_json_str(f, bars[i].tessel->w->name);
    fprintf(f, ", \"threads\": %d, \"versus\": ", bars[i].tessel->threads);
    bench_json_str(f, bars[i].what);
    fprintf(f, ", \"target\": %g, \"ratio\": ", bars[i].target);
    bench_json_num(f, bars[i].ratio);
    fprintf(f, ", \"status\": ");
    bench_json_str(f, bars[i].status);
    fprintf(f, "}%s\n", i + 1 < nb ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  return bench_json_close(f);
}

/* --- Main --------------------------------------------------------------------------- */

static int prepare_data(workload *w) {
  w->in = tessel_aligned_alloc(w->in_count, sizeof(float), 0);
  w->ref = tessel_aligned_alloc(w->out_count, sizeof(double), 0);
  w->scratch = tessel_aligned_alloc(image_plain_scratch_floats(w->kind, w->h, w->w),
                                    sizeof(float), 0);
  w->copy_src = tessel_aligned_alloc(w->copy_count, sizeof(float), 0);
  w->copy_dst = tessel_aligned_alloc(w->copy_count, sizeof(float), 0);
  if (!w->in || !w->ref || !w->scratch || !w->copy_src || !w->copy_dst)
    return -1;
  for (int id = 0; id < NUM_VARIANTS; ++id)
    if (id != V_COPY &&
        !(w->v[id].out = tessel_aligned_alloc(w->out_count, sizeof(float), 0)))
      return -1;
  /* Pixel intensities in [0, 1); the row workloads' values (logits,
   * activations) in [-4, 4). */
  tessel_fill_random_f32(w->in, w->in_count, 1);
  for (size_t i = 0; i < w->in_count; ++i)
    w->in[i] = is_row_workload(w) ? 4.0f * w->in[i] : 0.5f * (w->in[i] + 1.0f);
  if (w->kind == IMAGE_LAYERNORM)
    image_layernorm_params(w->w, w->scratch, w->scratch + w->w);
  tessel_fill_random_f32(w->copy_src, w->copy_count, 2);
  if (image_reference(w->kind, w->in, w->h, w->w, w->ref) != 0)
    return -1;
  double ss = 0.0;
  for (size_t i = 0; i < w->out_count; ++i)
    ss += w->ref[i] * w->ref[i];
  w->ref_rms = sqrt(ss / (double)w->out_count);
  return 0;
}

static void free_data(workload *w) {
  tessel_free(w->in);
  tessel_free(w->ref);
  tessel_free(w->scratch);
  tessel_free(w->copy_src);
  tessel_free(w->copy_dst);
  for (int id = 0; id < NUM_VARIANTS; ++id) {
    tessel_free(w->v[id].out);
    w->v[id].out = NULL;
  }
  w->in = w->scratch = w->copy_src = w->copy_dst = NULL;
  w->ref = NULL;
}

int main(int argc, char **argv) {
  options o;
  if (parse_options(argc, argv, &o) != 0)
    return 2;
  size_t nsel = 0;
  for (size_t i = 0; i < NUM_WORKLOADS; ++i) {
    init_workload(&catalog[i]);
    nsel += o.only[i];
  }
  if (o.common.list) {
    for (size_t i = 0; i < NUM_WORKLOADS; ++i)
      if (o.only[i])
        printf("%-14s %-28s %s/%s\n", catalog[i].name, catalog[i].shape,
               o.source_dir, catalog[i].mlir);
    return 0;
  }
  if (nsel == 0) {
    fprintf(stderr, "tessel-image-bench: no workload selected\n");
    return 2;
  }
  if (bench_make_work_dir("tessel-image-bench", o.common.work_dir) != 0)
    return 1;

  pipelines pl;
  if (make_pipelines(&o, &pl) != 0)
    return 1;
  halide_init(&o);
  char cpu[256];
  bench_cpu_model(cpu, sizeof cpu);
  bench_load_average(load_before, sizeof load_before);
  bench_progress("tessel-image-bench: %s, %d logical CPUs, load average %s\n"
                 "  OpenMP: omp_set_num_threads -> %s\n  Halide runtime: %s\n"
                 "  %s: %s\n",
                 cpu, omp_get_num_procs(), load_before,
                 bench_symbol_owner("omp_set_num_threads"), halide.runtime, kFusionPass,
                 pl.fusion_in_pipeline
                     ? "in the cpu pipeline; tessel-nofusion runs without them"
                     : "not in the cpu pipeline; tessel-nofusion is the same pipeline");

  const size_t rows_per_block = NUM_VARIANTS + 1;
  const size_t max_rows = nsel * (size_t)o.common.num_threads * rows_per_block;
  row *storage = calloc(max_rows, sizeof *storage);
  row **order = calloc(max_rows, sizeof *order);
  if (!storage || !order)
    return 1;
  size_t nrows = 0, nblocks = 0;
  int failures = 0;
  size_t done = 0;
  for (size_t i = 0; i < NUM_WORKLOADS; ++i) {
    if (!o.only[i])
      continue;
    workload *w = &catalog[i];
    bench_progress("[%zu/%zu] %s (%s): compiling... ", ++done, nsel, w->name, w->shape);
    char stem[96];
    compile_tessel(&o, w, &w->v[V_TESSEL], w->name, NULL);
    snprintf(stem, sizeof stem, "%s_nofusion", w->name);
    compile_tessel(&o, w, &w->v[V_TESSEL_NOFUSION], stem, pl.nofusion);
    bench_progress("tessel %s in %.2f s, tessel-nofusion %s in %.2f s\n",
                   w->v[V_TESSEL].available ? "done" : "FAILED", w->v[V_TESSEL].compile_s,
                   w->v[V_TESSEL_NOFUSION].available ? "done" : "FAILED",
                   w->v[V_TESSEL_NOFUSION].compile_s);
    for (int s = 0; s < NUM_SCHEDULERS; ++s) {
      load_halide_variant(&o, w, V_HALIDE_FIRST + s);
      if (!w->v[V_HALIDE_FIRST + s].available)
        bench_progress("    %s: %s\n", w->v[V_HALIDE_FIRST + s].name,
                       w->v[V_HALIDE_FIRST + s].note);
    }
    double t0 = now();
    if (prepare_data(w) != 0) {
      fprintf(stderr, "tessel-image-bench: out of memory for %s\n", w->name);
      return 1;
    }
    bench_progress("    reference in %.2f s\n", now() - t0);
    for (int t = 0; t < o.common.num_threads; ++t) {
      row *block = &storage[nblocks++ * rows_per_block];
      measure(&o, w, o.common.threads[t], block);
      best_halide(block, &block[NUM_VARIANTS]);
      /* Table order: Tessel, without fusion, Halide..., best Halide, C, copy. */
      for (int id = 0; id < V_PLAIN_C; ++id)
        order[nrows++] = &block[id];
      order[nrows++] = &block[NUM_VARIANTS];
      order[nrows++] = &block[V_PLAIN_C];
      order[nrows++] = &block[V_COPY];
      for (int id = 0; id < NUM_VARIANTS; ++id) {
        const row *r = &block[id];
        const variant *v = &w->v[id];
        /* A Halide schedule that fails at run time (Halide's own bounds
         * checks) is that autoscheduler not handling the workload: reported,
         * not a failure of the benchmark. Wrong results are. */
        if (v->failure || (r->ran && !r->check.pass))
          ++failures;
      }
    }
    free_data(w);
  }

  bench_load_average(load_after, sizeof load_after);
  printf("\n");
  print_table(stdout, order, nrows, &pl);
  bar bars[32];
  size_t nb = collect_bars(order, nrows, &pl, bars, 32);
  printf("\nbars (Tessel Mpix/s over the other's; issue targets: >= 1.0x the best\n"
         "Halide autoschedule on every image pipeline, >= 3x Tessel without\n"
         "fusion on blur_x_blur_y; softmax and layernorm: GB/s >= 0.8x the copy's):\n");
  for (size_t i = 0; i < nb; ++i) {
    char ra[32];
    bench_fmt_num(ra, sizeof ra, bars[i].ratio, "%.3fx");
    printf("  %-14s %dT  vs %-16s %9s  (target %.1fx) %s\n", bars[i].tessel->w->name,
           bars[i].tessel->threads, bars[i].what, ra, bars[i].target, bars[i].status);
  }
  printf("\n%s, %d logical CPUs; load average before %s, after %s\n"
         "OpenMP: omp_set_num_threads -> %s (Tessel's code, plain C, copy)\n"
         "Halide: runtime %s; target %s; machine_params %s\n"
         "pipeline: %s %s\n",
         cpu, omp_get_num_procs(), load_before, load_after,
         bench_symbol_owner("omp_set_num_threads"), halide.runtime,
         halide.target[0] ? halide.target : "-",
         halide.machine_params[0] ? halide.machine_params : "-", kFusionPass,
         pl.fusion_in_pipeline ? "removed for tessel-nofusion"
                               : "is not in the cpu pipeline: tessel-nofusion = tessel");
  if (o.common.json && write_json(&o, &pl, order, nrows, bars, nb) == 0)
    printf("wrote %s\n", o.common.json);

  for (size_t i = 0; i < NUM_WORKLOADS; ++i)
    for (int id = 0; id < NUM_VARIANTS; ++id)
      if (catalog[i].v[id].dl)
        dlclose(catalog[i].v[id].dl);
  free(storage);
  free(order);
  free(pl.normal);
  free(pl.nofusion);
  return failures ? 1 : 0;
}

/* What both benchmark harnesses (tessel-bench, cpu_bench.c, and
 * tessel-image-bench, image_bench.c) share: the options they both take, the
 * tessel-compile runs, timing and CPU accounting, the host description, and
 * the helpers of their tables and JSON. See utils/bench/README.md. */
#ifndef TESSEL_BENCH_COMMON_H
#define TESSEL_BENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* --- Command line ------------------------------------------------------------------ */

/* Room for the longest list option (a harness may keep fewer entries). */
#define BENCH_MAX_LIST 64

/* The options both harnesses take, with the same meaning and defaults. */
typedef struct bench_options {
  int threads[BENCH_MAX_LIST];
  int num_threads;
  int reps;
  double min_time, budget, rel_tol;
  int gap_ms; /* -1: auto */
  const char *json, *work_dir, *compiler;
  bool list;
} bench_options;

/* How one harness parses its command line. `own` takes the harness's own
 * options: called with val == NULL for every argument first (return 1 when
 * it is one of the harness's flags, like --skip-large), then with an
 * option's name and value; returns 1 when it took the option, 0 when it is
 * not one of them and -1 when the value is bad. */
typedef struct bench_cli {
  const char *prog;                /* prefix of the error message */
  void (*usage)(FILE *f);          /* the harness's --help text */
  int max_list;                    /* entries a list option keeps at most */
  const char *work_dir, *compiler; /* defaults of --work-dir, --tessel-compile */
  int (*own)(void *ctx, const char *name, char *val);
  void *ctx;
} bench_cli;

/* Sets the defaults (threads 1,2, 7 repetitions, --min-time 1 s, --budget
 * 60 s, --rel-tol 1e-4, --gap-ms auto, cli's directories), then parses argv
 * (--name=value or --name value) into `o` and, through cli->own, the
 * harness's options. --help prints the usage and exits 0; a bad argument
 * prints "<prog>: bad argument '...'" and the usage on stderr and returns
 * -1. */
int bench_parse_options(int argc, char **argv, const bench_cli *cli,
                        bench_options *o);

/* Splits a comma-separated list in place; empty entries are dropped. */
int bench_split_list(char *s, const char **out, int max);

/* A list of counts in [1, 4096]; returns how many, or -1 when one is bad. */
int bench_parse_ints(char *s, int *out, int max);

/* The --gap-ms to sleep before each batch at `threads` (auto: 250 ms with
 * more than one thread, when spinning workers could steal cores). */
int bench_gap_ms(const bench_options *o, int threads);

/* --- Helpers -------------------------------------------------------------------------- */

/* printf to stderr, flushed at once (the progress log). */
void bench_progress(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

void bench_sleep_ms(int ms);

/* Creates the work directory and its parents; says why not on stderr. */
int bench_make_work_dir(const char *prog, const char *dir);

/* Outputs are filled with NaN before the checked call, so that an element
 * the code never writes fails the check. */
void bench_fill_nan(float *p, size_t n);

/* The calls a batch needs to last `batch_target` seconds (1 to 10^7). */
int bench_calls_for(double t_call, double batch_target);

/* The file name of the library that defines `sym` ("(unbound)": none). */
const char *bench_symbol_owner(const char *sym);

/* --- CPU accounting --------------------------------------------------------------- */

/* CPU time of the whole machine (non-idle) and of this process, in seconds,
 * to tell how much of the machine other processes used while a row was
 * timed: on a small shared machine they make multi-thread rows meaningless. */
typedef struct bench_cpu_sample {
  double wall, machine_busy, self;
} bench_cpu_sample;

/* This process's CPU time (all threads). */
double bench_self_cpu_seconds(void);
bench_cpu_sample bench_cpu_sample_now(void);

/* Average number of CPUs other processes kept busy between a and b (NaN
 * for spans too short for /proc/stat's ticks). */
double bench_cpu_others(bench_cpu_sample a, bench_cpu_sample b);

/* Other processes kept busy more CPUs than a row at `threads` left free
 * (by over 0.25): the row was disturbed. */
bool bench_disturbed(double others_busy, int threads);

/* --- Compiling with tessel-compile ----------------------------------------------- */

#define BENCH_PATH_MAX 4096
#define BENCH_MAX_FILES 4

/* The files of one tessel-compile run in a work directory. They are written
 * as <stem>.<pid>.<ext> and renamed to <stem>.<ext> once loaded, so that
 * harnesses running at the same time over one work directory never load
 * each other's half-written (or differently compiled) objects. */
typedef struct bench_files {
  int n;
  char tmp[BENCH_MAX_FILES][BENCH_PATH_MAX];
  char final[BENCH_MAX_FILES][BENCH_PATH_MAX];
} bench_files;

void bench_files_init(bench_files *f, const char *dir, const char *stem,
                      const char *const *exts, int n);
/* Renames the files that exist to their final names. */
void bench_files_publish(const bench_files *f);

/* Runs argv (argv[0] the program, NULL-terminated) with stdout and stderr
 * in `log`, and sets *seconds to its wall time. Returns 0 when it exited
 * with 0, 1 when it failed, -1 when it could not be started. */
int bench_run_logged(char *const *argv, const char *log, double *seconds);

/* Shows the start of a failed compilation's log on stderr, indented. */
void bench_print_log_head(const char *log);

/* --- Host and report -------------------------------------------------------------- */

void bench_cpu_model(char *buf, size_t len);
void bench_load_average(char *buf, size_t len);

/* `v` with printf format `f`, or "-" when it is NaN (no result). */
void bench_fmt_num(char *buf, size_t len, double v, const char *f);

/* The busy column: bench_fmt_num, then `mark` when the row was disturbed. */
void bench_fmt_busy(char *buf, size_t len, double others_busy, int threads,
                    const char *mark);

/* Creates the JSON report `path` of `harness` and opens its object:
 * harness, date (UTC), host (CPU model, logical CPUs, load averages); the
 * caller goes on with ",\n  ...". NULL, with a message, when it cannot. */
FILE *bench_json_begin(const char *harness, const char *path,
                       const char *load_before, const char *load_after);
/* Closes it; -1 when a write failed. */
int bench_json_close(FILE *f);

void bench_json_str(FILE *f, const char *s);
/* null for NaN and infinities, which JSON lacks. */
void bench_json_num(FILE *f, double v);

#endif /* TESSEL_BENCH_COMMON_H */

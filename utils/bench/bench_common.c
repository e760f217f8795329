/* The parts both benchmark harnesses share (bench_common.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#endif
#include "bench_common.h"

#include "tessel/runtime.h"

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

/* --- Command line ------------------------------------------------------------------ */

int bench_split_list(char *s, const char **out, int max) {
  int n = 0;
  for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
    if (*tok)
      out[n++] = tok;
  return n;
}

int bench_parse_ints(char *s, int *out, int max) {
  const char *toks[BENCH_MAX_LIST];
  int n = bench_split_list(s, toks, max < BENCH_MAX_LIST ? max : BENCH_MAX_LIST);
  for (int i = 0; i < n; ++i) {
    char *end;
    long v = strtol(toks[i], &end, 10);
    if (*end || v <= 0 || v > 4096)
      return -1;
    out[i] = (int)v;
  }
  return n;
}

/* One of the options both harnesses take: 1 taken, 0 not one of them, -1
 * bad value. */
static int common_option(const bench_cli *cli, const char *name, char *val,
                         bench_options *o) {
  char *end = NULL;
  if (strcmp(name, "--threads") == 0) {
    o->num_threads = bench_parse_ints(val, o->threads, cli->max_list);
    return o->num_threads > 0 ? 1 : -1;
  } else if (strcmp(name, "--reps") == 0) {
    o->reps = (int)strtol(val, &end, 10);
    return *end || o->reps < 1 ? -1 : 1;
  } else if (strcmp(name, "--min-time") == 0) {
    o->min_time = strtod(val, &end);
    return *end || o->min_time < 0 ? -1 : 1;
  } else if (strcmp(name, "--budget") == 0) {
    o->budget = strtod(val, &end);
    return *end || o->budget <= 0 ? -1 : 1;
  } else if (strcmp(name, "--gap-ms") == 0) {
    o->gap_ms = (int)strtol(val, &end, 10);
    return *end || o->gap_ms < 0 ? -1 : 1;
  } else if (strcmp(name, "--rel-tol") == 0) {
    o->rel_tol = strtod(val, &end);
    return *end || o->rel_tol <= 0 ? -1 : 1;
  } else if (strcmp(name, "--json") == 0) {
    o->json = val;
  } else if (strcmp(name, "--work-dir") == 0) {
    o->work_dir = val;
  } else if (strcmp(name, "--tessel-compile") == 0) {
    o->compiler = val;
  } else {
    return 0;
  }
  return 1;
}

int bench_parse_options(int argc, char **argv, const bench_cli *cli,
                        bench_options *o) {
  memset(o, 0, sizeof *o);
  o->threads[0] = 1;
  o->threads[1] = 2;
  o->num_threads = 2;
  o->reps = 7;
  o->min_time = 1.0;
  o->budget = 60.0;
  o->rel_tol = 1e-4;
  o->gap_ms = -1;
  o->work_dir = cli->work_dir;
  o->compiler = cli->compiler;
  for (int i = 1; i < argc; ++i) {
    char *arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      cli->usage(stdout);
      exit(0);
    }
    if (strcmp(arg, "--list") == 0) {
      o->list = true;
      continue;
    }
    int taken = cli->own(cli->ctx, arg, NULL);
    if (taken > 0)
      continue;
    if (taken < 0)
      goto bad;
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
    taken = common_option(cli, name, val, o);
    if (taken == 0)
      taken = cli->own(cli->ctx, name, val);
    if (taken > 0)
      continue;
  bad:
    fprintf(stderr, "%s: bad argument '%s'\n", cli->prog, arg);
    cli->usage(stderr);
    return -1;
  }
  return 0;
}

int bench_gap_ms(const bench_options *o, int threads) {
  return o->gap_ms >= 0 ? o->gap_ms : (threads > 1 ? 250 : 0);
}

/* --- Helpers -------------------------------------------------------------------------- */

void bench_progress(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fflush(stderr);
}

void bench_sleep_ms(int ms) {
  if (ms <= 0)
    return;
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int mkdir_p(const char *path) {
  char buf[BENCH_PATH_MAX];
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

int bench_make_work_dir(const char *prog, const char *dir) {
  if (mkdir_p(dir) == 0)
    return 0;
  fprintf(stderr, "%s: cannot create %s: %s\n", prog, dir, strerror(errno));
  return -1;
}

void bench_fill_nan(float *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    p[i] = NAN;
}

int bench_calls_for(double t_call, double batch_target) {
  if (t_call <= 0)
    return 1;
  double n = ceil(batch_target / t_call);
  return n < 1 ? 1 : n > 1e7 ? 10000000 : (int)n;
}

const char *bench_symbol_owner(const char *sym) {
  void *p = dlsym(RTLD_DEFAULT, sym);
  Dl_info info;
  if (!p || !dladdr(p, &info) || !info.dli_fname)
    return "(unbound)";
  const char *slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

/* --- CPU accounting --------------------------------------------------------------- */

double bench_self_cpu_seconds(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return NAN;
  return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

bench_cpu_sample bench_cpu_sample_now(void) {
  bench_cpu_sample c = {tessel_now_seconds(), NAN, bench_self_cpu_seconds()};
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
  return c;
}

double bench_cpu_others(bench_cpu_sample a, bench_cpu_sample b) {
  double wall = b.wall - a.wall;
  if (!(wall > 0.05))
    return NAN; /* /proc/stat ticks are too coarse for shorter spans */
  double others = (b.machine_busy - a.machine_busy) - (b.self - a.self);
  return others > 0 ? others / wall : 0.0;
}

bool bench_disturbed(double others_busy, int threads) {
  return others_busy + threads > omp_get_num_procs() + 0.25;
}

/* --- Compiling with tessel-compile ----------------------------------------------- */

void bench_files_init(bench_files *f, const char *dir, const char *stem,
                      const char *const *exts, int n) {
  const long me = (long)getpid();
  f->n = n < BENCH_MAX_FILES ? n : BENCH_MAX_FILES;
  for (int i = 0; i < f->n; ++i) {
    snprintf(f->tmp[i], sizeof f->tmp[i], "%s/%s.%ld.%s", dir, stem, me, exts[i]);
    snprintf(f->final[i], sizeof f->final[i], "%s/%s.%s", dir, stem, exts[i]);
  }
}

void bench_files_publish(const bench_files *f) {
  for (int i = 0; i < f->n; ++i)
    if (access(f->tmp[i], F_OK) == 0)
      rename(f->tmp[i], f->final[i]);
}

int bench_run_logged(char *const *argv, const char *log, double *seconds) {
  double t0 = tessel_now_seconds();
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  *seconds = tessel_now_seconds() - t0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

void bench_print_log_head(const char *log) {
  FILE *l = fopen(log, "r");
  if (!l)
    return;
  char line[512];
  int shown = 0;
  while (fgets(line, sizeof line, l) && shown++ < 20)
    fprintf(stderr, "  %s", line);
  fclose(l);
}

/* --- Host and report -------------------------------------------------------------- */

void bench_cpu_model(char *buf, size_t len) {
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

void bench_load_average(char *buf, size_t len) {
  snprintf(buf, len, "?");
  FILE *f = fopen("/proc/loadavg", "r");
  if (!f)
    return;
  double a, b, c;
  if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
    snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
  fclose(f);
}

void bench_fmt_num(char *buf, size_t len, double v, const char *f) {
  if (isnan(v))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, f, v);
}

void bench_fmt_busy(char *buf, size_t len, double others_busy, int threads,
                    const char *mark) {
  bench_fmt_num(buf, len, others_busy, "%.2f");
  if (!isnan(others_busy) && bench_disturbed(others_busy, threads))
    snprintf(buf + strlen(buf), len - strlen(buf), "%s", mark);
}

FILE *bench_json_begin(const char *harness, const char *path,
                       const char *load_before, const char *load_after) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "%s: cannot write %s: %s\n", harness, path, strerror(errno));
    return NULL;
  }
  char cpu[256], date[64];
  bench_cpu_model(cpu, sizeof cpu);
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  fprintf(f, "{\n  \"harness\": ");
  bench_json_str(f, harness);
  fprintf(f, ",\n  \"date\": ");
  bench_json_str(f, date);
  fprintf(f, ",\n  \"host\": {\"cpu\": ");
  bench_json_str(f, cpu);
  fprintf(f, ", \"logical_cpus\": %d, \"loadavg_before\": ", omp_get_num_procs());
  bench_json_str(f, load_before);
  fprintf(f, ", \"loadavg_after\": ");
  bench_json_str(f, load_after);
  fputc('}', f);
  return f;
}

int bench_json_close(FILE *f) {
  int err = ferror(f);
  fclose(f);
  return err ? -1 : 0;
}

void bench_json_str(FILE *f, const char *s) {
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

void bench_json_num(FILE *f, double v) {
  if (isnan(v) || isinf(v))
    fputs("null", f);
  else
    fprintf(f, "%.6g", v);
}

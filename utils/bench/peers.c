/* tessel-bench peers: OpenBLAS sgemm and oneDNN convolution (C API).
 *
 * Each peer is optional at build time (TESSEL_BENCH_HAVE_OPENBLAS /
 * TESSEL_BENCH_HAVE_ONEDNN); without it the harness reports Tessel alone. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT, RTLD_NOLOAD */
#endif
#include "bench.h"
#include "bench_common.h"

#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if TESSEL_BENCH_HAVE_OPENBLAS
#include <cblas.h>
/* cblas.h of the Debian openblas packages declares these; repeat them so a
 * generic cblas.h works too. */
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char *openblas_get_config(void);
char *openblas_get_corename(void);
#endif

#if TESSEL_BENCH_HAVE_ONEDNN
#include <dnnl.h>
#include <dnnl_debug.h>
#endif

/* --- Threads ------------------------------------------------------------------- */

/* Debian's oneDNN is built against GNU libgomp, Tessel's code against LLVM
 * libomp. The harness links libomp ahead of libdnnl, so oneDNN's GOMP_* and
 * omp_* references normally bind to libomp (which implements the GOMP ABI)
 * and one thread pool serves both. peers_init records where they bound; if
 * libgomp is a separate runtime after all, its thread count is set too. */
static void (*gomp_set_num_threads)(int);

void peers_set_threads(int threads) {
  omp_set_num_threads(threads);
  if (gomp_set_num_threads)
    gomp_set_num_threads(threads);
#if TESSEL_BENCH_HAVE_OPENBLAS
  openblas_set_num_threads(threads);
#endif
}

#if TESSEL_BENCH_HAVE_ONEDNN
static dnnl_engine_t engine;
static dnnl_stream_t stream;
#endif

/* OpenBLAS picks its kernels once, when the library loads, from cpuid or
 * from OPENBLAS_CORETYPE. Its 0.3.21 does not know every AVX-512 CPU (Zen
 * 5 is taken for Haswell), and an environment may pin OPENBLAS_CORETYPE to
 * an AVX2 core; either halves the peer's sgemm rate, which would make every
 * ratio overstate Tessel. On a CPU with AVX-512 whose OpenBLAS core has no
 * AVX-512 kernels, the harness re-runs itself once with the AVX-512 core
 * (Cooperlake when the CPU has AVX512-BF16, else SkylakeX), unless
 * TESSEL_BENCH_KEEP_OPENBLAS_CORE is set. */
#if TESSEL_BENCH_HAVE_OPENBLAS
static bool core_has_avx512(const char *core) {
  static const char *const avx512_cores[] = {"skylakex", "cooperlake",
                                             "sapphirerapids"};
  char lower[64];
  size_t n = 0;
  for (; core[n] && n + 1 < sizeof lower; ++n)
    lower[n] = (char)(core[n] >= 'A' && core[n] <= 'Z' ? core[n] - 'A' + 'a'
                                                       : core[n]);
  lower[n] = 0;
  for (size_t i = 0; i < sizeof avx512_cores / sizeof *avx512_cores; ++i)
    if (strstr(lower, avx512_cores[i]))
      return true;
  return false;
}
#endif

void peers_prefer_avx512_openblas(const char *tool, char **argv) {
#if TESSEL_BENCH_HAVE_OPENBLAS && (defined(__x86_64__) || defined(__i386__))
  if (getenv("TESSEL_BENCH_KEEP_OPENBLAS_CORE") ||
      getenv("TESSEL_BENCH_OPENBLAS_REEXEC"))
    return;
  __builtin_cpu_init();
  const char *core = openblas_get_corename();
  /* SkylakeX's kernels need AVX512F, BW, VL and DQ (not all AVX-512
   * CPUs have them: Knights Landing has F and CD only). */
  if (!__builtin_cpu_supports("avx512f") ||
      !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512vl") ||
      !__builtin_cpu_supports("avx512dq") || !core || core_has_avx512(core))
    return;
  const char *wanted =
      __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
  fprintf(stderr,
          "%s: OpenBLAS chose its %s kernels on a CPU with AVX-512%s; "
          "re-running with OPENBLAS_CORETYPE=%s (set "
          "TESSEL_BENCH_KEEP_OPENBLAS_CORE=1 to keep them)\n",
          tool, core,
          getenv("OPENBLAS_CORETYPE") ? " (OPENBLAS_CORETYPE is set)" : "",
          wanted);
  setenv("OPENBLAS_CORETYPE", wanted, 1);
  setenv("TESSEL_BENCH_OPENBLAS_REEXEC", "1", 1);
  /* OPENBLAS_CORETYPE takes effect only in a DYNAMIC_ARCH build; the
   * header line names the core the peer then runs with. */
  execv("/proc/self/exe", argv);
  fprintf(stderr, "%s: re-running failed; OpenBLAS keeps its %s kernels\n",
          tool, core);
#else
  (void)tool;
  (void)argv;
#endif
}

void peers_init(peer_info *info) {
  memset(info, 0, sizeof *info);
  void *gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (gomp) {
    void (*f)(int) = (void (*)(int))dlsym(gomp, "omp_set_num_threads");
    if (f && f != (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_num_threads"))
      gomp_set_num_threads = f;
  }
  snprintf(info->omp_binding, sizeof info->omp_binding,
           "omp_set_num_threads -> %s, GOMP_parallel (oneDNN) -> %s%s",
           bench_symbol_owner("omp_set_num_threads"),
           bench_symbol_owner("GOMP_parallel"),
           gomp_set_num_threads ? "; libgomp.so.1 is loaded too (oneDNN's "
                                  "dependency), its thread count is set as well"
                                : "");
#if TESSEL_BENCH_HAVE_OPENBLAS
  info->have_openblas = true;
  snprintf(info->openblas, sizeof info->openblas, "OpenBLAS %s; core %s",
           openblas_get_config(), openblas_get_corename());
#else
  snprintf(info->openblas, sizeof info->openblas, "not built in");
#endif
#if TESSEL_BENCH_HAVE_ONEDNN
  if (dnnl_engine_create(&engine, dnnl_cpu, 0) == dnnl_success &&
      dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) ==
          dnnl_success) {
    info->have_onednn = true;
    const dnnl_version_t *v = dnnl_version();
    snprintf(info->onednn, sizeof info->onednn,
             "oneDNN %d.%d.%d (%s runtime), ISA %s", v->major, v->minor,
             v->patch, dnnl_runtime2str(v->cpu_runtime),
             dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa()));
  } else {
    snprintf(info->onednn, sizeof info->onednn, "oneDNN: no CPU engine");
  }
#else
  snprintf(info->onednn, sizeof info->onednn, "not built in");
#endif
}

void peers_shutdown(void) {
#if TESSEL_BENCH_HAVE_ONEDNN
  if (stream)
    dnnl_stream_destroy(stream);
  if (engine)
    dnnl_engine_destroy(engine);
  stream = NULL;
  engine = NULL;
#endif
}

/* --- OpenBLAS -------------------------------------------------------------------- */

bool peer_sgemm_available(void) { return TESSEL_BENCH_HAVE_OPENBLAS != 0; }

void peer_sgemm(const workload *w, const float *a, const float *b, float *c) {
#if TESSEL_BENCH_HAVE_OPENBLAS
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, w->m, w->n, w->k,
              1.0f, a, w->k, b, w->n, 0.0f, c, w->n);
  if (w->epilogue == EPI_NONE)
    return;
  const int n = w->n;
  const float *bias = w->bias;
  const bool gelu = w->epilogue == EPI_BIAS_GELU;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < w->m; ++i) {
    float *row = c + (size_t)i * (size_t)n;
    for (int j = 0; j < n; ++j) {
      const float x = row[j] + bias[j];
      row[j] = gelu ? 0.5f * x * (1.0f + erff(x * 0.707106781f))
                    : (x > 0.0f ? x : 0.0f);
    }
  }
#else
  (void)w; (void)a; (void)b; (void)c;
#endif
}

/* --- oneDNN ---------------------------------------------------------------------- */

bool peer_onednn_available(void) {
#if TESSEL_BENCH_HAVE_ONEDNN
  return engine != NULL;
#else
  return false;
#endif
}

#if TESSEL_BENCH_HAVE_ONEDNN

struct onednn_conv {
  dnnl_primitive_t conv, src_reorder, dst_reorder;
  dnnl_memory_t user_src, user_wei, user_dst, bias; /* bias: or NULL */
  dnnl_memory_t src, wei, dst; /* == the user memory when no reorder */
  char src_fmt[48], wei_fmt[48], dst_fmt[48], impl[64], describe[256];
};

/* The layout of a blocked memory descriptor in oneDNN's notation with
 * dimension letters for activations (n c h w) or weights (o i h w):
 * outer dimensions by decreasing stride (upper case when also blocked),
 * then the inner blocks, e.g. nChw16c, OIhw16i16o, nhwc, hwio. */
static void md_format(const dnnl_memory_desc_t *md, bool weights, char *buf,
                      size_t len) {
  if (md->format_kind != dnnl_blocked) {
    snprintf(buf, len, "%s", dnnl_fmt_kind2str(md->format_kind));
    return;
  }
  const char *letters = weights ? "oihw" : "nchw";
  const dnnl_blocking_desc_t *bd = &md->format_desc.blocking;
  int order[DNNL_MAX_NDIMS];
  int nd = md->ndims;
  for (int i = 0; i < nd; ++i)
    order[i] = i;
  /* Stable sort by decreasing outer stride; size-1 dimensions have
   * arbitrary strides, so ties keep the logical order. */
  for (int i = 1; i < nd; ++i)
    for (int j = i; j > 0 && bd->strides[order[j]] > bd->strides[order[j - 1]];
         --j) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  size_t o = 0;
  for (int i = 0; i < nd && o + 1 < len; ++i) {
    int d = order[i];
    bool blocked = false;
    for (int b = 0; b < bd->inner_nblks; ++b)
      blocked |= bd->inner_idxs[b] == d;
    char ch = d < 4 ? letters[d] : (char)('a' + d);
    buf[o++] = blocked ? (char)(ch - 'a' + 'A') : ch;
  }
  buf[o] = '\0';
  for (int b = 0; b < bd->inner_nblks && o < len; ++b) {
    int d = (int)bd->inner_idxs[b];
    o += (size_t)snprintf(buf + o, len - o, "%lld%c",
                          (long long)bd->inner_blks[b],
                          d < 4 ? letters[d] : (char)('a' + d));
  }
}

static double now(void) { return tessel_now_seconds(); }

static void exec2(dnnl_primitive_t p, dnnl_memory_t from, dnnl_memory_t to) {
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  dnnl_primitive_execute(p, stream, 2, args);
  dnnl_stream_wait(stream);
}

#define DNNL_TRY(call)                                                         \
  do {                                                                         \
    dnnl_status_t st_ = (call);                                                \
    if (st_ != dnnl_success) {                                                 \
      snprintf(err, err_len, "%s: %s", #call, dnnl_status2str(st_));           \
      goto fail;                                                               \
    }                                                                          \
  } while (0)

/* Creates `*mem` with the primitive's md and a reorder from/to the user
 * memory when they differ. */
static dnnl_status_t make_side(const dnnl_memory_desc_t *want,
                               dnnl_memory_t user, bool to_user,
                               dnnl_memory_t *mem, dnnl_primitive_t *reorder) {
  const dnnl_memory_desc_t *user_md;
  dnnl_status_t st = dnnl_memory_get_memory_desc(user, &user_md);
  if (st != dnnl_success)
    return st;
  if (dnnl_memory_desc_equal(want, user_md)) {
    *mem = user;
    *reorder = NULL;
    return dnnl_success;
  }
  st = dnnl_memory_create(mem, want, engine, DNNL_MEMORY_ALLOCATE);
  if (st != dnnl_success)
    return st;
  dnnl_primitive_desc_t rpd;
  st = to_user ? dnnl_reorder_primitive_desc_create(&rpd, want, engine,
                                                    user_md, engine, NULL)
               : dnnl_reorder_primitive_desc_create(&rpd, user_md, engine,
                                                    want, engine, NULL);
  if (st != dnnl_success)
    return st;
  st = dnnl_primitive_create(reorder, rpd);
  dnnl_primitive_desc_destroy(rpd);
  return st;
}

onednn_conv *onednn_conv_create(const workload *w, float *src, float *wei,
                                float *bias, float *dst, char *err,
                                size_t err_len) {
  const conv_shape *cs = w->cs;
  onednn_conv *c = calloc(1, sizeof *c);
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t post_ops = NULL;
  if (!c) {
    snprintf(err, err_len, "out of memory");
    return NULL;
  }
  /* oneDNN dims are logical: N C H W for data, O I H W for weights. */
  dnnl_dims_t sdims = {w->batch, cs->c, cs->h, cs->w};
  dnnl_dims_t wdims = {cs->f, cs->c, cs->k, cs->k};
  dnnl_dims_t ddims = {w->batch, cs->f, w->oh, w->ow};
  dnnl_dims_t strides = {cs->stride, cs->stride};
  dnnl_dims_t pad_l = {cs->pad, cs->pad};
  /* The same right padding the MLIR uses (the unused part of it is legal). */
  dnnl_dims_t pad_r = {cs->pad, cs->pad};
  const bool nhwc = w->layout == LAYOUT_NHWC;
  dnnl_memory_desc_t user_s, user_w, user_d, any_s, any_w, any_d;
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&user_s, 4, sdims, dnnl_f32,
                                        nhwc ? dnnl_nhwc : dnnl_nchw));
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&user_w, 4, wdims, dnnl_f32,
                                        nhwc ? dnnl_hwio : dnnl_oihw));
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&user_d, 4, ddims, dnnl_f32,
                                        nhwc ? dnnl_nhwc : dnnl_nchw));
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&any_s, 4, sdims, dnnl_f32,
                                        dnnl_format_tag_any));
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&any_w, 4, wdims, dnnl_f32,
                                        dnnl_format_tag_any));
  DNNL_TRY(dnnl_memory_desc_init_by_tag(&any_d, 4, ddims, dnnl_f32,
                                        dnnl_format_tag_any));
  dnnl_memory_desc_t bias_md;
  const bool with_bias = w->epilogue != EPI_NONE && bias;
  if (with_bias) {
    dnnl_dims_t bdims = {cs->f};
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&bias_md, 1, bdims, dnnl_f32, dnnl_a));
    /* The activation as oneDNN's own fusion: an eltwise post-op applied to
     * the accumulators before the store. */
    DNNL_TRY(dnnl_post_ops_create(&post_ops));
    DNNL_TRY(dnnl_post_ops_append_eltwise(post_ops, 1.0f, dnnl_eltwise_relu,
                                          0.0f, 0.0f));
    DNNL_TRY(dnnl_primitive_attr_create(&attr));
    DNNL_TRY(dnnl_primitive_attr_set_post_ops(attr, post_ops));
  }
  dnnl_convolution_desc_t cd;
  /* Direct, not auto: auto may choose Winograd for 3x3, whose f32 results
   * can exceed the 1e-4 tolerance the harness checks. */
  DNNL_TRY(dnnl_convolution_forward_desc_init(
      &cd, dnnl_forward_inference, dnnl_convolution_direct, &any_s, &any_w,
      with_bias ? &bias_md : NULL, &any_d, strides, pad_l, pad_r));
  DNNL_TRY(dnnl_primitive_desc_create(&pd, &cd, attr, engine, NULL));
  const char *impl = NULL;
  DNNL_TRY(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
  snprintf(c->impl, sizeof c->impl, "%s", impl ? impl : "?");
  const dnnl_memory_desc_t *s_md = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
  const dnnl_memory_desc_t *w_md = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
  const dnnl_memory_desc_t *d_md = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
  md_format(s_md, false, c->src_fmt, sizeof c->src_fmt);
  md_format(w_md, true, c->wei_fmt, sizeof c->wei_fmt);
  md_format(d_md, false, c->dst_fmt, sizeof c->dst_fmt);
  snprintf(c->describe, sizeof c->describe, "src %s, wei %s, dst %s; %s",
           c->src_fmt, c->wei_fmt, c->dst_fmt, c->impl);

  DNNL_TRY(dnnl_memory_create(&c->user_src, &user_s, engine, src));
  DNNL_TRY(dnnl_memory_create(&c->user_wei, &user_w, engine, wei));
  DNNL_TRY(dnnl_memory_create(&c->user_dst, &user_d, engine, dst));
  if (with_bias)
    DNNL_TRY(dnnl_memory_create(&c->bias, &bias_md, engine, bias));
  DNNL_TRY(make_side(s_md, c->user_src, false, &c->src, &c->src_reorder));
  dnnl_primitive_t wei_reorder = NULL;
  DNNL_TRY(make_side(w_md, c->user_wei, false, &c->wei, &wei_reorder));
  DNNL_TRY(make_side(d_md, c->user_dst, true, &c->dst, &c->dst_reorder));
  DNNL_TRY(dnnl_primitive_create(&c->conv, pd));
  dnnl_primitive_desc_destroy(pd);
  pd = NULL;
  /* Weights: reordered once, never timed (a deployed network keeps them in
   * the chosen layout). */
  if (wei_reorder) {
    exec2(wei_reorder, c->user_wei, c->wei);
    dnnl_primitive_destroy(wei_reorder);
  }
  if (attr)
    dnnl_primitive_attr_destroy(attr);
  if (post_ops)
    dnnl_post_ops_destroy(post_ops);
  return c;
fail:
  if (pd)
    dnnl_primitive_desc_destroy(pd);
  if (attr)
    dnnl_primitive_attr_destroy(attr);
  if (post_ops)
    dnnl_post_ops_destroy(post_ops);
  onednn_conv_destroy(c);
  return NULL;
}

void onednn_conv_destroy(onednn_conv *c) {
  if (!c)
    return;
  dnnl_primitive_t prims[3] = {c->conv, c->src_reorder, c->dst_reorder};
  for (int i = 0; i < 3; ++i)
    if (prims[i])
      dnnl_primitive_destroy(prims[i]);
  dnnl_memory_t own[3] = {c->src, c->wei, c->dst};
  dnnl_memory_t user[3] = {c->user_src, c->user_wei, c->user_dst};
  for (int i = 0; i < 3; ++i) {
    if (own[i] && own[i] != user[i])
      dnnl_memory_destroy(own[i]);
    if (user[i])
      dnnl_memory_destroy(user[i]);
  }
  if (c->bias)
    dnnl_memory_destroy(c->bias);
  free(c);
}

double onednn_conv_src_in(onednn_conv *c) {
  if (!c->src_reorder)
    return 0.0;
  double t0 = now();
  exec2(c->src_reorder, c->user_src, c->src);
  return now() - t0;
}

void onednn_conv_run(onednn_conv *c) {
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, c->src},
                             {DNNL_ARG_WEIGHTS, c->wei},
                             {DNNL_ARG_DST, c->dst},
                             {DNNL_ARG_BIAS, c->bias}};
  dnnl_primitive_execute(c->conv, stream, c->bias ? 4 : 3, args);
  dnnl_stream_wait(stream);
}

double onednn_conv_dst_out(onednn_conv *c) {
  if (!c->dst_reorder)
    return 0.0;
  double t0 = now();
  exec2(c->dst_reorder, c->dst, c->user_dst);
  return now() - t0;
}

const char *onednn_conv_describe(const onednn_conv *c) { return c->describe; }
const char *onednn_conv_src_fmt(const onednn_conv *c) { return c->src_fmt; }
const char *onednn_conv_wei_fmt(const onednn_conv *c) { return c->wei_fmt; }
const char *onednn_conv_dst_fmt(const onednn_conv *c) { return c->dst_fmt; }
const char *onednn_conv_impl(const onednn_conv *c) { return c->impl; }

#else /* !TESSEL_BENCH_HAVE_ONEDNN */

onednn_conv *onednn_conv_create(const workload *w, float *src, float *wei,
                                float *bias, float *dst, char *err,
                                size_t err_len) {
  (void)w; (void)src; (void)wei; (void)bias; (void)dst;
  snprintf(err, err_len, "oneDNN not built in");
  return NULL;
}
void onednn_conv_destroy(onednn_conv *c) { (void)c; }
double onednn_conv_src_in(onednn_conv *c) { (void)c; return 0.0; }
void onednn_conv_run(onednn_conv *c) { (void)c; }
double onednn_conv_dst_out(onednn_conv *c) { (void)c; return 0.0; }
const char *onednn_conv_describe(const onednn_conv *c) { (void)c; return ""; }
const char *onednn_conv_src_fmt(const onednn_conv *c) { (void)c; return ""; }
const char *onednn_conv_wei_fmt(const onednn_conv *c) { (void)c; return ""; }
const char *onednn_conv_dst_fmt(const onednn_conv *c) { (void)c; return ""; }
const char *onednn_conv_impl(const onednn_conv *c) { (void)c; return ""; }

#endif

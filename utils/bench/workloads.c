/* tessel-bench workloads: the catalog, MLIR generation from templates,
 * inputs, the double-precision reference and the result checks. */
#include "bench.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ResNet-50 v1.5 (torchvision layout: the stride of a stage's first block
 * is on its 3x3 convolution and on the 1x1 projection shortcut). Per image,
 * NHWC input HxWxC, HWCF weights kxkxCxF. */
const conv_shape bench_conv_shapes[] = {
    {"stem", "conv1 7x7/2 stem", 224, 224, 3, 64, 7, 2, 3},
    {"s1_1x1_reduce", "stage1 1x1 reduce (block 1)", 56, 56, 64, 64, 1, 1, 0},
    {"s1_3x3", "stage1 3x3", 56, 56, 64, 64, 3, 1, 1},
    {"s1_1x1_expand", "stage1 1x1 expand / projection", 56, 56, 64, 256, 1, 1, 0},
    {"s2_3x3_s2", "stage2 block1 3x3/2", 56, 56, 128, 128, 3, 2, 1},
    {"s2_1x1_down_s2", "stage2 1x1/2 downsample projection", 56, 56, 256, 512, 1, 2, 0},
    {"s2_3x3", "stage2 3x3", 28, 28, 128, 128, 3, 1, 1},
    {"s3_1x1_reduce", "stage3 1x1 reduce (blocks 2-6)", 14, 14, 1024, 256, 1, 1, 0},
    {"s3_3x3", "stage3 3x3", 14, 14, 256, 256, 3, 1, 1},
    {"s4_3x3", "stage4 3x3", 7, 7, 512, 512, 3, 1, 1},
    {"s4_1x1_expand", "stage4 1x1 expand", 7, 7, 512, 2048, 1, 1, 0},
};
const size_t bench_num_conv_shapes =
    sizeof(bench_conv_shapes) / sizeof(bench_conv_shapes[0]);

/* The NCHW/FCHW subset. */
static const char *const nchw_subset[] = {"stem", "s1_3x3", "s2_1x1_down_s2",
                                          "s3_1x1_reduce", "s4_3x3"};

static const int matmul_sizes[][3] = {
    /* M, N, K; ordered by work so quick results come first */
    {256, 256, 256},    {513, 257, 129},    {1000, 1000, 1000},
    {1023, 1023, 1023}, {1024, 1024, 1024}, {2048, 2048, 2048},
    {4096, 4096, 4096},
};

static const int batches[] = {1, 8};

/* Epilogue workloads: matmul + bias + GELU at the shapes of transformer
 * feed-forward layers (M tokens x N hidden x K model), conv + bias + ReLU
 * at ResNet-50 layers (NHWC), where a separate epilogue pass is cheapest
 * relative to the product (1x1: 128 FLOP per output) and dearest. */
static const int gelu_sizes[][3] = {
    {64, 4096, 1024}, {512, 3072, 768}, {1024, 1024, 1024}};
static const char *const relu_subset[] = {"s1_1x1_reduce", "s1_3x3",
                                          "s3_1x1_reduce", "s4_3x3"};

static void set_count(workload *w) {
  w->in0_count = w->in1_count = w->out_count = 1;
  for (int i = 0; i < w->rank; ++i) {
    w->in0_count *= (size_t)w->in0_shape[i];
    w->in1_count *= (size_t)w->in1_shape[i];
    w->out_count *= (size_t)w->out_shape[i];
  }
}

static void make_conv(workload *w, const conv_shape *cs, bench_layout layout,
                      int batch) {
  memset(w, 0, sizeof *w);
  w->kind = WL_CONV;
  w->cs = cs;
  w->layout = layout;
  w->batch = batch;
  w->oh = (cs->h + 2 * cs->pad - cs->k) / cs->stride + 1;
  w->ow = (cs->w + 2 * cs->pad - cs->k) / cs->stride + 1;
  const char *lay = layout == LAYOUT_NHWC ? "nhwc" : "nchw";
  snprintf(w->id, sizeof w->id, "conv_%s_%s_b%d", lay, cs->name, batch);
  snprintf(w->group, sizeof w->group, "conv");
  snprintf(w->label, sizeof w->label, "conv %s %s", lay, cs->name);
  snprintf(w->shape, sizeof w->shape, "N%d %dx%dx%d->%dx%dx%d k%d s%d p%d",
           batch, cs->h, cs->w, cs->c, w->oh, w->ow, cs->f, cs->k, cs->stride,
           cs->pad);
  w->rank = 4;
  if (layout == LAYOUT_NHWC) {
    int64_t x[4] = {batch, cs->h, cs->w, cs->c};
    int64_t f[4] = {cs->k, cs->k, cs->c, cs->f};
    int64_t o[4] = {batch, w->oh, w->ow, cs->f};
    memcpy(w->in0_shape, x, sizeof x);
    memcpy(w->in1_shape, f, sizeof f);
    memcpy(w->out_shape, o, sizeof o);
  } else {
    int64_t x[4] = {batch, cs->c, cs->h, cs->w};
    int64_t f[4] = {cs->f, cs->c, cs->k, cs->k};
    int64_t o[4] = {batch, cs->f, w->oh, w->ow};
    memcpy(w->in0_shape, x, sizeof x);
    memcpy(w->in1_shape, f, sizeof f);
    memcpy(w->out_shape, o, sizeof o);
  }
  set_count(w);
  w->macs = (double)batch * w->oh * w->ow * cs->f * (double)cs->k * cs->k * cs->c;
  w->flops = 2.0 * w->macs;
}

static void make_matmul(workload *w, const int *mnk) {
  memset(w, 0, sizeof *w);
  w->kind = WL_MATMUL;
  w->m = mnk[0];
  w->n = mnk[1];
  w->k = mnk[2];
  snprintf(w->id, sizeof w->id, "matmul_%dx%dx%d", w->m, w->n, w->k);
  snprintf(w->group, sizeof w->group, "matmul");
  snprintf(w->label, sizeof w->label, "matmul");
  snprintf(w->shape, sizeof w->shape, "%dx%dx%d", w->m, w->n, w->k);
  w->rank = 2;
  w->in0_shape[0] = w->m;
  w->in0_shape[1] = w->k;
  w->in1_shape[0] = w->k;
  w->in1_shape[1] = w->n;
  w->out_shape[0] = w->m;
  w->out_shape[1] = w->n;
  set_count(w);
  w->macs = (double)w->m * w->n * w->k;
  w->flops = 2.0 * w->macs;
}

/* Turns the plain workload `w` into its epilogue variant. */
static void add_epilogue(workload *w, bench_epilogue e) {
  char id[sizeof w->id], label[sizeof w->label];
  const char *what = e == EPI_BIAS_GELU ? "bias_gelu" : "bias_relu";
  /* matmul_... -> matmul_bias_gelu_..., conv_nhwc_... -> conv_bias_relu_nhwc_... */
  const char *rest = strchr(w->id, '_');
  snprintf(id, sizeof id, "%.*s_%s%s", (int)(rest - w->id), w->id, what, rest);
  snprintf(label, sizeof label, "%s+%s", w->label,
           e == EPI_BIAS_GELU ? "bias+gelu" : "bias+relu");
  memcpy(w->id, id, sizeof id);
  memcpy(w->label, label, sizeof label);
  snprintf(w->group, sizeof w->group, "epilogue");
  w->epilogue = e;
  w->bias_count = (size_t)(w->kind == WL_MATMUL ? w->n : w->cs->f);
}

size_t bench_build_catalog(workload **out) {
  size_t nm = sizeof matmul_sizes / sizeof matmul_sizes[0];
  size_t nb = sizeof batches / sizeof batches[0];
  size_t ns = sizeof nchw_subset / sizeof nchw_subset[0];
  size_t ng = sizeof gelu_sizes / sizeof gelu_sizes[0];
  size_t nr = sizeof relu_subset / sizeof relu_subset[0];
  size_t total = nm + nb * bench_num_conv_shapes + nb * ns + ng + nb * nr;
  workload *ws = calloc(total, sizeof *ws);
  if (!ws)
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < nm; ++i)
    make_matmul(&ws[n++], matmul_sizes[i]);
  for (size_t b = 0; b < nb; ++b)
    for (size_t s = 0; s < bench_num_conv_shapes; ++s)
      make_conv(&ws[n++], &bench_conv_shapes[s], LAYOUT_NHWC, batches[b]);
  for (size_t b = 0; b < nb; ++b)
    for (size_t j = 0; j < ns; ++j)
      for (size_t s = 0; s < bench_num_conv_shapes; ++s)
        if (strcmp(bench_conv_shapes[s].name, nchw_subset[j]) == 0)
          make_conv(&ws[n++], &bench_conv_shapes[s], LAYOUT_NCHW, batches[b]);
  for (size_t i = 0; i < ng; ++i) {
    make_matmul(&ws[n], gelu_sizes[i]);
    add_epilogue(&ws[n++], EPI_BIAS_GELU);
  }
  for (size_t b = 0; b < nb; ++b)
    for (size_t j = 0; j < nr; ++j)
      for (size_t s = 0; s < bench_num_conv_shapes; ++s)
        if (strcmp(bench_conv_shapes[s].name, relu_subset[j]) == 0) {
          make_conv(&ws[n], &bench_conv_shapes[s], LAYOUT_NHWC, batches[b]);
          add_epilogue(&ws[n++], EPI_BIAS_RELU);
        }
  *out = ws;
  return n;
}

/* --- MLIR templates ------------------------------------------------------------- */

static void tensor_type(char *buf, size_t len, int rank, const int64_t *shape) {
  size_t o = 0;
  o += (size_t)snprintf(buf + o, len - o, "tensor<");
  for (int i = 0; i < rank; ++i)
    o += (size_t)snprintf(buf + o, len - o, "%lldx", (long long)shape[i]);
  snprintf(buf + o, len - o, "f32>");
}

/* The bias add and the activation after `%y`, as two generics (the form the
 * frontends emit); the result is `%r`. */
static void write_epilogue(const workload *w, const char *to, FILE *f) {
  const bool conv = w->kind == WL_CONV;
  const char *dims = conv ? "(d0, d1, d2, d3)" : "(d0, d1)";
  const char *id = conv ? "(d0, d1, d2, d3)" : "(d0, d1)";
  const char *ch = conv ? "(d3)" : "(d1)";
  const char *iters = conv ? "\"parallel\", \"parallel\", \"parallel\", \"parallel\""
                           : "\"parallel\", \"parallel\"";
  fprintf(f,
          "  %%e1 = tensor.empty() : %s\n"
          "  %%biased = linalg.generic {indexing_maps = [affine_map<%s -> %s>,\n"
          "      affine_map<%s -> %s>, affine_map<%s -> %s>],\n"
          "      iterator_types = [%s]}\n"
          "      ins(%%y, %%bias : %s, tensor<%zuxf32>) outs(%%e1 : %s) {\n"
          "  ^bb0(%%ev: f32, %%eb: f32, %%eo: f32):\n"
          "    %%es = arith.addf %%ev, %%eb : f32\n"
          "    linalg.yield %%es : f32\n"
          "  } -> %s\n"
          "  %%e2 = tensor.empty() : %s\n"
          "  %%r = linalg.generic {indexing_maps = [affine_map<%s -> %s>,\n"
          "      affine_map<%s -> %s>], iterator_types = [%s]}\n"
          "      ins(%%biased : %s) outs(%%e2 : %s) {\n"
          "  ^bb0(%%ev: f32, %%eo: f32):\n",
          to, dims, id, dims, ch, dims, id, iters, to, w->bias_count, to, to, to,
          dims, id, dims, id, iters, to, to);
  if (w->epilogue == EPI_BIAS_RELU)
    fprintf(f, "    %%ez = arith.constant 0.0 : f32\n"
               "    %%act = arith.maximumf %%ev, %%ez : f32\n");
  else /* exact GELU, x/2 (1 + erf(x / sqrt 2)): torch's default */
    fprintf(f, "    %%half = arith.constant 0.5 : f32\n"
               "    %%one = arith.constant 1.0 : f32\n"
               "    %%rsqrt2 = arith.constant 0.707106781 : f32\n"
               "    %%et = arith.mulf %%ev, %%rsqrt2 : f32\n"
               "    %%erf = math.erf %%et : f32\n"
               "    %%ep = arith.addf %%erf, %%one : f32\n"
               "    %%eh = arith.mulf %%ev, %%half : f32\n"
               "    %%act = arith.mulf %%eh, %%ep : f32\n");
  fprintf(f, "    linalg.yield %%act : f32\n"
             "  } -> %s\n", to);
}

int bench_write_mlir(const workload *w, const char *name, bool bare, FILE *f) {
  char t0[96], t1[96], to[96], tp[96], bias_arg[64] = "";
  tensor_type(t0, sizeof t0, w->rank, w->in0_shape);
  tensor_type(t1, sizeof t1, w->rank, w->in1_shape);
  tensor_type(to, sizeof to, w->rank, w->out_shape);
  const bool epilogue = w->epilogue != EPI_NONE && !bare;
  if (epilogue)
    snprintf(bias_arg, sizeof bias_arg, ", %%bias: tensor<%zuxf32>", w->bias_count);
  fprintf(f, "// Generated by tessel-bench (utils/bench/workloads.c): %s %s%s\n",
          w->label, w->shape, bare ? " without the epilogue" : "");
  if (w->kind == WL_MATMUL) {
    fprintf(f,
            "func.func @%s(%%a: %s, %%b: %s%s) -> %s {\n"
            "  %%zero = arith.constant 0.0 : f32\n"
            "  %%empty = tensor.empty() : %s\n"
            "  %%init = linalg.fill ins(%%zero : f32) outs(%%empty : %s) -> %s\n"
            "  %%y = linalg.matmul ins(%%a, %%b : %s, %s)\n"
            "                     outs(%%init : %s) -> %s\n",
            name, t0, t1, bias_arg, to, to, to, to, t0, t1, to, to);
  } else {
    const conv_shape *cs = w->cs;
    const int p = cs->pad;
    int64_t padded[4];
    memcpy(padded, w->in0_shape, sizeof padded);
    const int hdim = w->layout == LAYOUT_NHWC ? 1 : 2;
    padded[hdim] += 2 * p;
    padded[hdim + 1] += 2 * p;
    tensor_type(tp, sizeof tp, 4, padded);
    const char *op = w->layout == LAYOUT_NHWC ? "linalg.conv_2d_nhwc_hwcf"
                                              : "linalg.conv_2d_nchw_fchw";
    fprintf(f,
            "// ResNet-50 v1.5 %s; layout %s\n"
            "func.func @%s(%%x: %s, %%w: %s%s) -> %s {\n"
            "  %%zero = arith.constant 0.0 : f32\n",
            cs->layer, w->layout == LAYOUT_NHWC ? "NHWC/HWCF" : "NCHW/FCHW",
            name, t0, t1, bias_arg, to);
    const char *conv_in = "%x";
    if (p > 0) {
      const char *lo = w->layout == LAYOUT_NHWC ? "[0, %d, %d, 0]" : "[0, 0, %d, %d]";
      char low[32];
      snprintf(low, sizeof low, lo, p, p);
      fprintf(f,
              "  %%xp = tensor.pad %%x low%s high%s {\n"
              "  ^bb0(%%i0: index, %%i1: index, %%i2: index, %%i3: index):\n"
              "    tensor.yield %%zero : f32\n"
              "  } : %s to %s\n",
              low, low, t0, tp);
      conv_in = "%xp";
    } else {
      snprintf(tp, sizeof tp, "%s", t0);
    }
    fprintf(f,
            "  %%empty = tensor.empty() : %s\n"
            "  %%init = linalg.fill ins(%%zero : f32) outs(%%empty : %s) -> %s\n"
            "  %%y = %s {dilations = dense<1> : tensor<2xi64>,\n"
            "        strides = dense<%d> : tensor<2xi64>}\n"
            "      ins(%s, %%w : %s, %s) outs(%%init : %s) -> %s\n",
            to, to, to, op, cs->stride, conv_in, tp, t1, to, to);
  }
  if (epilogue)
    write_epilogue(w, to, f);
  fprintf(f, "  return %%%s : %s\n}\n", epilogue ? "r" : "y", to);
  return ferror(f) ? -1 : 0;
}

/* --- Inputs --------------------------------------------------------------------- */

int bench_alloc_inputs(workload *w) {
  w->in0 = tessel_aligned_alloc(w->in0_count, sizeof(float), 0);
  w->in1 = tessel_aligned_alloc(w->in1_count, sizeof(float), 0);
  if (w->bias_count)
    w->bias = tessel_aligned_alloc(w->bias_count, sizeof(float), 0);
  if (!w->in0 || !w->in1 || (w->bias_count && !w->bias)) {
    bench_free_inputs(w);
    return -1;
  }
  tessel_fill_random_f32(w->in0, w->in0_count, 1);
  tessel_fill_random_f32(w->in1, w->in1_count, 2);
  if (w->bias)
    tessel_fill_random_f32(w->bias, w->bias_count, 3);
  return 0;
}

void bench_free_inputs(workload *w) {
  tessel_free(w->in0);
  tessel_free(w->in1);
  tessel_free(w->bias);
  w->in0 = w->in1 = w->bias = NULL;
}

/* --- Reference -------------------------------------------------------------------- */

/* The epilogue applied to one accumulated output `acc` of channel `ch`
 * (identity for EPI_NONE), in double precision. */
static double epilogue_ref(const workload *w, double acc, size_t ch) {
  if (w->epilogue == EPI_NONE)
    return acc;
  const double x = acc + (double)w->bias[ch];
  if (w->epilogue == EPI_BIAS_RELU)
    return x > 0.0 ? x : 0.0;
  return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
}

/* One output element in double precision. `idx` is the row-major index into
 * the workload's output tensor. */
static double reference_at(const workload *w, size_t idx) {
  const float *x = w->in0, *wt = w->in1;
  double s = 0.0;
  if (w->kind == WL_MATMUL) {
    const size_t n = (size_t)w->n, k = (size_t)w->k;
    const size_t i = idx / n, j = idx % n;
    for (size_t p = 0; p < k; ++p)
      s += (double)x[i * k + p] * (double)wt[p * n + j];
    return epilogue_ref(w, s, j);
  }
  const conv_shape *cs = w->cs;
  const int H = cs->h, W = cs->w, C = cs->c, F = cs->f, K = cs->k;
  int n, f, oh, ow;
  size_t r = idx;
  if (w->layout == LAYOUT_NHWC) {
    f = (int)(r % (size_t)F); r /= (size_t)F;
    ow = (int)(r % (size_t)w->ow); r /= (size_t)w->ow;
    oh = (int)(r % (size_t)w->oh); r /= (size_t)w->oh;
    n = (int)r;
  } else {
    ow = (int)(r % (size_t)w->ow); r /= (size_t)w->ow;
    oh = (int)(r % (size_t)w->oh); r /= (size_t)w->oh;
    f = (int)(r % (size_t)F); r /= (size_t)F;
    n = (int)r;
  }
  for (int kh = 0; kh < K; ++kh) {
    const int ih = oh * cs->stride + kh - cs->pad;
    if (ih < 0 || ih >= H)
      continue;
    for (int kw = 0; kw < K; ++kw) {
      const int iw = ow * cs->stride + kw - cs->pad;
      if (iw < 0 || iw >= W)
        continue;
      if (w->layout == LAYOUT_NHWC) {
        const float *xp = x + (((size_t)n * H + ih) * W + iw) * C;
        const float *wp = wt + (((size_t)kh * K + kw) * C) * F + f;
        for (int c = 0; c < C; ++c)
          s += (double)xp[c] * (double)wp[(size_t)c * F];
      } else {
        for (int c = 0; c < C; ++c)
          s += (double)x[(((size_t)n * C + c) * H + ih) * W + iw] *
               (double)wt[(((size_t)f * C + c) * K + kh) * K + kw];
      }
    }
  }
  return epilogue_ref(w, s, (size_t)f);
}

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int bench_compute_reference(workload *w, double full_max_macs, size_t samples) {
  bench_free_reference(w);
  w->ref_full = w->macs <= full_max_macs || samples >= w->out_count;
  w->ref_count = w->ref_full ? w->out_count : samples;
  w->ref = malloc(w->ref_count * sizeof(double));
  if (!w->ref)
    return -1;
  if (!w->ref_full) {
    w->ref_index = malloc(w->ref_count * sizeof(size_t));
    if (!w->ref_index)
      return -1;
    uint64_t state = 0x7E55E1ull ^ (uint64_t)w->out_count;
    for (size_t i = 0; i < w->ref_count; ++i)
      w->ref_index[i] = (size_t)(splitmix64(&state) % w->out_count);
  }
  const long long count = (long long)w->ref_count;
  double sumsq = 0.0;
#pragma omp parallel for schedule(dynamic, 64) num_threads(omp_get_num_procs()) \
    reduction(+ : sumsq)
  for (long long i = 0; i < count; ++i) {
    const size_t idx = w->ref_full ? (size_t)i : w->ref_index[i];
    const double v = reference_at(w, idx);
    w->ref[i] = v;
    sumsq += v * v;
  }
  w->ref_rms = sqrt(sumsq / (double)(count > 0 ? count : 1));
  return 0;
}

void bench_free_reference(workload *w) {
  free(w->ref);
  free(w->ref_index);
  w->ref = NULL;
  w->ref_index = NULL;
  w->ref_count = 0;
}

check_result bench_check(const workload *w, const char *label,
                         const float *actual, double rel_tol) {
  check_result r = {false, w->ref_count, 0, 0.0};
  const float *a = actual;
  float *gathered = NULL;
  if (!w->ref_full) {
    gathered = malloc(w->ref_count * sizeof(float));
    if (!gathered)
      return r;
    for (size_t i = 0; i < w->ref_count; ++i)
      gathered[i] = actual[w->ref_index[i]];
    a = gathered;
  }
  /* Absolute floor: the same relative tolerance of the reference's RMS, so
   * outputs that cancel to near zero are judged against the typical output
   * magnitude rather than against themselves. */
  const double abs_tol = rel_tol * (w->ref_rms > 0 ? w->ref_rms : 1.0);
  tessel_compare_stats st;
  r.mismatches =
      tessel_compare_f32(label, a, w->ref, w->ref_count, rel_tol, abs_tol, &st);
  (void)st;
  /* Reported error: max |a - e| / (|e| + rms), which is <= rel_tol exactly
   * when an element passes the test above. */
  const double rms = w->ref_rms > 0 ? w->ref_rms : 1.0;
  double worst = 0.0;
  for (size_t i = 0; i < w->ref_count; ++i) {
    const double e = w->ref[i];
    const double d = fabs((double)a[i] - e) / (fabs(e) + rms);
    if (d > worst || d != d)
      worst = d;
  }
  r.max_rel_error = worst;
  r.pass = r.mismatches == 0;
  free(gathered);
  return r;
}

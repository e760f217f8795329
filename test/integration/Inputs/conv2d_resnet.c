/* Harness for conv2d_resnet.mlir: ResNet-50-like NHWC/HWCF convolutions
 * (stem, 1x1, 3x3, strided, dilated, read through the input or copied as
 * patches) and one NCHW/FCHW with a batch of 2,
 * each against a double-precision reference. */
#include "harness.h"

typedef struct {
  const char *name;
  int64_t n, h, w, c, f, k, stride, pad, dil;
  int bias_relu;
} conv_case;

/* NHWC/HWCF: out[n][i][j][o] = bias[o] + sum_{kh,kw,c}
 * x[n][i*s+kh*d-p][j*s+kw*d-p][c] * w[kh][kw][c][o]; out-of-bounds reads
 * are zero. */
static void ref_nhwc(const conv_case *cs, const float *x, const float *w,
                     const float *bias, double *out, int64_t oh, int64_t ow) {
  for (int64_t b = 0; b < cs->n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t o = 0; o < cs->f; ++o) {
          double s = bias ? (double)bias[o] : 0.0;
          for (int64_t kh = 0; kh < cs->k; ++kh)
            for (int64_t kw = 0; kw < cs->k; ++kw) {
              int64_t y = i * cs->stride + kh * cs->dil - cs->pad;
              int64_t xx = j * cs->stride + kw * cs->dil - cs->pad;
              if (y < 0 || y >= cs->h || xx < 0 || xx >= cs->w)
                continue;
              for (int64_t ci = 0; ci < cs->c; ++ci)
                s += (double)x[((b * cs->h + y) * cs->w + xx) * cs->c + ci] *
                     (double)w[((kh * cs->k + kw) * cs->c + ci) * cs->f + o];
            }
          if (cs->bias_relu && s < 0.0)
            s = 0.0;
          out[((b * oh + i) * ow + j) * cs->f + o] = s;
        }
}

typedef void (*conv_fn)(tessel_memref_f32_4d *, tessel_memref_f32_4d *,
                        tessel_memref_f32_4d *);
typedef void (*conv_bias_fn)(tessel_memref_f32_4d *, tessel_memref_f32_4d *,
                             tessel_memref_f32_1d *, tessel_memref_f32_4d *);

static void run_nhwc(const conv_case *cs, conv_fn fn, conv_bias_fn bias_fn,
                     uint64_t seed) {
  const int64_t span = cs->dil * (cs->k - 1) + 1;
  const int64_t oh = (cs->h + 2 * cs->pad - span) / cs->stride + 1;
  const int64_t ow = (cs->w + 2 * cs->pad - span) / cs->stride + 1;
  const size_t nx = cs->n * cs->h * cs->w * cs->c;
  const size_t nw = cs->k * cs->k * cs->c * cs->f;
  const size_t ny = cs->n * oh * ow * cs->f;
  float *x = random_f32(nx, seed, -1.0f, 1.0f);
  float *wt = random_f32(nw, seed + 1, -1.0f, 1.0f);
  float *bias = cs->bias_relu ? random_f32(cs->f, seed + 2, -1.0f, 1.0f) : NULL;
  float *x0 = copy_f32(x, nx);
  float *y = alloc_f32(ny);
  poison_f32(y, ny);
  double *ref = alloc_f64(ny);
  ref_nhwc(cs, x, wt, bias, ref, oh, ow);
  tessel_memref_f32_4d dx, dw, dy;
  tessel_memref_f32_init_4d(&dx, x, cs->n, cs->h, cs->w, cs->c);
  tessel_memref_f32_init_4d(&dw, wt, cs->k, cs->k, cs->c, cs->f);
  tessel_memref_f32_init_4d(&dy, y, cs->n, oh, ow, cs->f);
  if (bias) {
    tessel_memref_f32_1d db;
    tessel_memref_f32_init_1d(&db, bias, cs->f);
    bias_fn(&dx, &dw, &db, &dy);
  } else {
    fn(&dx, &dw, &dy);
  }
  char shape[96];
  snprintf(shape, sizeof shape, "%ldx%ldx%ldx%ld*%ldx%ldx%ldx%ld->%ldx%ldx%ldx%ld",
           (long)cs->n, (long)cs->h, (long)cs->w, (long)cs->c, (long)cs->k,
           (long)cs->k, (long)cs->c, (long)cs->f, (long)cs->n, (long)oh,
           (long)ow, (long)cs->f);
  /* f32 accumulation over k*k*c terms of magnitude <= 1. */
  check_f32(cs->name, shape, y, ref, ny, 1e-5,
            2e-6 * (double)(cs->k * cs->k * cs->c));
  check_unchanged(cs->name, x, x0, nx * sizeof(float));
  harness_free(x); harness_free(x0); harness_free(wt); harness_free(y);
  harness_free(ref);
  if (bias)
    harness_free(bias);
}

/* NCHW/FCHW 1x1 stride 1, accumulating into the init argument. */
static void run_nchw_1x1(void) {
  const int64_t n = 2, c = 16, h = 7, w = 7, f = 32;
  const size_t nx = n * c * h * w, nw = f * c, ny = n * f * h * w;
  float *x = random_f32(nx, 71, -1.0f, 1.0f), *wt = random_f32(nw, 72, -1.0f, 1.0f);
  float *init = random_f32(ny, 73, -1.0f, 1.0f);
  float *x0 = copy_f32(x, nx), *init0 = copy_f32(init, ny);
  float *y = alloc_f32(ny);
  poison_f32(y, ny);
  double *ref = alloc_f64(ny);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < f; ++o)
      for (int64_t p = 0; p < h * w; ++p) {
        double s = (double)init[(b * f + o) * h * w + p];
        for (int64_t ci = 0; ci < c; ++ci)
          s += (double)x[(b * c + ci) * h * w + p] * (double)wt[o * c + ci];
        ref[(b * f + o) * h * w + p] = s;
      }
  tessel_memref_f32_4d dx, dw, di, dy;
  tessel_memref_f32_init_4d(&dx, x, n, c, h, w);
  tessel_memref_f32_init_4d(&dw, wt, f, c, 1, 1);
  tessel_memref_f32_init_4d(&di, init, n, f, h, w);
  tessel_memref_f32_init_4d(&dy, y, n, f, h, w);
  _mlir_ciface_nchw_1x1(&dx, &dw, &di, &dy);
  check_f32("nchw_1x1", "2x16x7x7*32x16x1x1->2x32x7x7", y, ref, ny, 1e-5,
            2e-6 * (double)(c + 1));
  check_unchanged("nchw_1x1", x, x0, nx * sizeof(float));
  check_unchanged("nchw_1x1", init, init0, ny * sizeof(float));
  harness_free(x); harness_free(x0); harness_free(wt); harness_free(init);
  harness_free(init0); harness_free(y); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  static const conv_case stem = {"stem_7x7_s2", 1, 32, 32, 3, 64, 7, 2, 3, 1, 0};
  static const conv_case reduce = {"reduce_1x1", 2, 8, 8, 64, 32, 1, 1, 0, 1, 1};
  static const conv_case c3 = {"conv_3x3", 1, 8, 8, 32, 32, 3, 1, 1, 1, 0};
  static const conv_case c3s2 = {"conv_3x3_s2", 1, 14, 14, 32, 64, 3, 2, 1, 1, 0};
  static const conv_case down = {"down_1x1_s2", 1, 14, 14, 64, 128, 1, 2, 0, 1, 0};
  static const conv_case c3d2 = {"conv_3x3_d2", 1, 9, 9, 8, 16, 3, 1, 2, 2, 0};
  static const conv_case c3d2b2 = {"conv_3x3_d2_b2", 2, 8, 8, 16, 32, 3, 1, 2, 2, 0};
  static const conv_case wide = {"conv_3x3_wide", 2, 4, 4, 16, 512, 3, 1, 1, 1, 0};
  run_nhwc(&stem, _mlir_ciface_stem_7x7_s2, NULL, 11);
  run_nhwc(&reduce, NULL, _mlir_ciface_reduce_1x1, 21);
  run_nhwc(&c3, _mlir_ciface_conv_3x3, NULL, 31);
  run_nhwc(&c3s2, _mlir_ciface_conv_3x3_s2, NULL, 41);
  run_nhwc(&down, _mlir_ciface_down_1x1_s2, NULL, 51);
  run_nhwc(&c3d2, _mlir_ciface_conv_3x3_d2, NULL, 61);
  run_nhwc(&c3d2b2, _mlir_ciface_conv_3x3_d2_b2, NULL, 71);
  run_nhwc(&wide, _mlir_ciface_conv_3x3_wide, NULL, 81);
  run_nchw_1x1();
  return harness_finish();
}

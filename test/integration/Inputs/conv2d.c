/* Harness for conv2d.mlir: NCHW/FCHW convolutions with stride and padding. */
#include "harness.h"

/* out[n][f][oh][ow] = init[f] + sum_{c,kh,kw} x[n][c][oh*s+kh-p][ow*s+kw-p] *
 * w[f][c][kh][kw], out-of-bounds reads are zero. */
static void conv_reference(const float *x, const float *w, const float *bias,
                           double *out, int64_t n, int64_t c, int64_t h,
                           int64_t wd, int64_t f, int64_t k, int64_t stride,
                           int64_t pad, int64_t oh, int64_t ow, int relu) {
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < f; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double s = bias ? (double)bias[o] : 0.0;
          for (int64_t ci = 0; ci < c; ++ci)
            for (int64_t kh = 0; kh < k; ++kh)
              for (int64_t kw = 0; kw < k; ++kw) {
                int64_t y = i * stride + kh - pad, xx = j * stride + kw - pad;
                if (y < 0 || y >= h || xx < 0 || xx >= wd)
                  continue;
                s += (double)x[((b * c + ci) * h + y) * wd + xx] *
                     (double)w[((o * c + ci) * k + kh) * k + kw];
              }
          if (relu && s < 0.0)
            s = 0.0;
          out[((b * f + o) * oh + i) * ow + j] = s;
        }
}

static void run_s2_p1(void) {
  const int64_t n = 2, c = 3, h = 17, w = 19, f = 4, k = 3, oh = 9, ow = 10;
  const size_t nx = n * c * h * w, nw = f * c * k * k, ny = n * f * oh * ow;
  float *x = random_f32(nx, 31, -1.0f, 1.0f), *wt = random_f32(nw, 32, -1.0f, 1.0f);
  float *x0 = copy_f32(x, nx);
  float *y = alloc_f32(ny);
  poison_f32(y, ny);
  double *ref = alloc_f64(ny);
  conv_reference(x, wt, NULL, ref, n, c, h, w, f, k, 2, 1, oh, ow, 0);
  tessel_memref_f32_4d dx, dw, dy;
  tessel_memref_f32_init_4d(&dx, x, n, c, h, w);
  tessel_memref_f32_init_4d(&dw, wt, f, c, k, k);
  tessel_memref_f32_init_4d(&dy, y, n, f, oh, ow);
  _mlir_ciface_conv_s2_p1(&dx, &dw, &dy);
  check_f32("conv_2d_nchw_fchw_stride2_pad1", "2x3x17x19*4x3x3x3->2x4x9x10", y,
            ref, ny, 1e-5, 1e-5);
  check_unchanged("conv_2d_nchw_fchw_stride2_pad1", x, x0, nx * sizeof(float));
  harness_free(x); harness_free(x0); harness_free(wt); harness_free(y); harness_free(ref);
}

static void run_same_bias_relu(void) {
  const int64_t n = 1, c = 5, h = 12, w = 12, f = 6, k = 5, oh = 12, ow = 12;
  const size_t nx = n * c * h * w, nw = f * c * k * k, ny = n * f * oh * ow;
  float *x = random_f32(nx, 41, -1.0f, 1.0f), *wt = random_f32(nw, 42, -1.0f, 1.0f);
  float *bias = random_f32(f, 43, -1.0f, 1.0f);
  float *y = alloc_f32(ny);
  poison_f32(y, ny);
  double *ref = alloc_f64(ny);
  conv_reference(x, wt, bias, ref, n, c, h, w, f, k, 1, 2, oh, ow, 1);
  tessel_memref_f32_4d dx, dw, dy;
  tessel_memref_f32_1d db;
  tessel_memref_f32_init_4d(&dx, x, n, c, h, w);
  tessel_memref_f32_init_4d(&dw, wt, f, c, k, k);
  tessel_memref_f32_init_1d(&db, bias, f);
  tessel_memref_f32_init_4d(&dy, y, n, f, oh, ow);
  _mlir_ciface_conv_same_bias_relu(&dx, &dw, &db, &dy);
  check_f32("conv_2d_nchw_fchw_same_bias_relu", "1x5x12x12*6x5x5x5->1x6x12x12",
            y, ref, ny, 1e-5, 1e-5);
  harness_free(x); harness_free(wt); harness_free(bias); harness_free(y); harness_free(ref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_s2_p1();
  run_same_bias_relu();
  return harness_finish();
}

/* Double-precision references of the image-pipeline workloads (see
 * image_kernels.h). Every stage is computed in double from the float input
 * and the float constants, with full-size double intermediates: the result
 * is the exact math of the pipeline up to double rounding, which the f32
 * implementations are checked against. Plain C11; with OpenMP the rows are
 * computed in parallel (tessel-image-bench), without it serially (the lit
 * test). */
#include "image_kernels.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#ifdef _OPENMP
#define PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#else
#define PARALLEL_FOR
#endif

static const float kBinomial[5] = IMAGE_BINOMIAL_5;
static const float kGaussian[5] = IMAGE_GAUSSIAN_5;

static bool is_row_workload(image_kind kind) {
  return kind == IMAGE_SOFTMAX || kind == IMAGE_LAYERNORM;
}

int image_input_planes(image_kind kind) { return is_row_workload(kind) ? 1 : 3; }

void image_output_shape(image_kind kind, int64_t h, int64_t w,
                        int64_t *channels, int64_t *rows, int64_t *cols) {
  const bool rowwise = is_row_workload(kind);
  *channels = kind == IMAGE_HARRIS || rowwise ? 1 : 3;
  *rows = rowwise ? h : h - 4;
  *cols = rowwise ? w : w - 4;
}

void image_layernorm_params(int64_t w, float *gamma, float *beta) {
  /* A fixed linear congruential sequence: no libm, same on every run. */
  uint32_t state = 12345u;
  for (int64_t j = 0; j < w; ++j) {
    state = state * 1664525u + 1013904223u;
    gamma[j] = 0.5f + (float)(state >> 8) / 16777216.0f;
    state = state * 1664525u + 1013904223u;
    beta[j] = -0.25f + 0.5f * ((float)(state >> 8) / 16777216.0f);
  }
}

static int softmax_reference(const float *in, int64_t h, int64_t w,
                             double *out) {
  PARALLEL_FOR
  for (int64_t i = 0; i < h; ++i) {
    const float *x = in + i * w;
    double *y = out + i * w;
    double m = x[0], s = 0.0;
    for (int64_t j = 1; j < w; ++j)
      m = x[j] > m ? x[j] : m;
    for (int64_t j = 0; j < w; ++j)
      s += y[j] = exp((double)x[j] - m);
    for (int64_t j = 0; j < w; ++j)
      y[j] /= s;
  }
  return 0;
}

static int layernorm_reference(const float *in, int64_t h, int64_t w,
                               double *out) {
  float *gamma = malloc((size_t)(2 * w) * sizeof(float));
  if (!gamma)
    return -1;
  float *beta = gamma + w;
  image_layernorm_params(w, gamma, beta);
  PARALLEL_FOR
  for (int64_t i = 0; i < h; ++i) {
    const float *x = in + i * w;
    double *y = out + i * w;
    double mean = 0.0, var = 0.0;
    for (int64_t j = 0; j < w; ++j)
      mean += x[j];
    mean /= (double)w;
    for (int64_t j = 0; j < w; ++j)
      var += ((double)x[j] - mean) * ((double)x[j] - mean);
    var /= (double)w;
    const double inv = 1.0 / sqrt(var + (double)IMAGE_LAYERNORM_EPS);
    for (int64_t j = 0; j < w; ++j)
      y[j] = ((double)x[j] - mean) * inv * gamma[j] + beta[j];
  }
  free(gamma);
  return 0;
}

/* gray = 0.299 r + 0.587 g + 0.114 b, h x w. */
static void gray_reference(const float *in, int64_t h, int64_t w, double *gray) {
  const size_t plane = (size_t)(h * w);
  PARALLEL_FOR
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j) {
      const size_t p = (size_t)(i * w + j);
      gray[p] = (double)IMAGE_GRAY_R * in[p] +
                (double)IMAGE_GRAY_G * in[plane + p] +
                (double)IMAGE_GRAY_B * in[2 * plane + p];
    }
}

/* 5-tap filter along x: src rows x cols -> rows x (cols-4). */
static void taps_x(const double *src, int64_t rows, int64_t cols,
                   const float taps[5], double *dst) {
  const int64_t oc = cols - 4;
  PARALLEL_FOR
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < oc; ++j) {
      double s = 0.0;
      for (int t = 0; t < 5; ++t)
        s += (double)taps[t] * src[i * cols + j + t];
      dst[i * oc + j] = s;
    }
}

/* 5-tap filter along y: src rows x cols -> (rows-4) x cols. */
static void taps_y(const double *src, int64_t rows, int64_t cols,
                   const float taps[5], double *dst) {
  PARALLEL_FOR
  for (int64_t i = 0; i < rows - 4; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double s = 0.0;
      for (int t = 0; t < 5; ++t)
        s += (double)taps[t] * src[(i + t) * cols + j];
      dst[i * cols + j] = s;
    }
}

static int blur_x_blur_y_reference(const float *in, int64_t h, int64_t w,
                                   double *out) {
  const int64_t oh = h - 4, ow = w - 4;
  double *plane = malloc((size_t)(h * w) * sizeof(double));
  double *bx = malloc((size_t)(h * ow) * sizeof(double));
  if (!plane || !bx) {
    free(plane);
    free(bx);
    return -1;
  }
  for (int64_t c = 0; c < 3; ++c) {
    const float *src = in + (size_t)(c * h * w);
    PARALLEL_FOR
    for (int64_t p = 0; p < h * w; ++p)
      plane[p] = src[p];
    taps_x(plane, h, w, kBinomial, bx);
    taps_y(bx, h, ow, kBinomial, out + (size_t)(c * oh * ow));
  }
  free(plane);
  free(bx);
  return 0;
}

static int unsharp_reference(const float *in, int64_t h, int64_t w,
                             double *out) {
  const int64_t oh = h - 4, ow = w - 4;
  const size_t plane = (size_t)(h * w);
  double *gray = malloc(plane * sizeof(double));
  double *by = malloc((size_t)(oh * w) * sizeof(double));
  double *blur = malloc((size_t)(oh * ow) * sizeof(double));
  if (!gray || !by || !blur) {
    free(gray);
    free(by);
    free(blur);
    return -1;
  }
  gray_reference(in, h, w, gray);
  taps_y(gray, h, w, kGaussian, by);
  taps_x(by, oh, w, kGaussian, blur);
  PARALLEL_FOR
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      const double g = gray[(i + 2) * w + j + 2];
      const double ratio = (2.0 * g - blur[i * ow + j]) / g;
      for (int64_t c = 0; c < 3; ++c)
        out[(c * oh + i) * ow + j] =
            ratio * (double)in[c * (int64_t)plane + (i + 2) * w + j + 2];
    }
  free(gray);
  free(by);
  free(blur);
  return 0;
}

static int harris_reference(const float *in, int64_t h, int64_t w,
                            double *out) {
  static const double sobel_x[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
  static const double sobel_y[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
  const int64_t gh = h - 2, gw = w - 2, oh = h - 4, ow = w - 4;
  double *gray = malloc((size_t)(h * w) * sizeof(double));
  double *ixx = malloc((size_t)(gh * gw) * sizeof(double));
  double *iyy = malloc((size_t)(gh * gw) * sizeof(double));
  double *ixy = malloc((size_t)(gh * gw) * sizeof(double));
  if (!gray || !ixx || !iyy || !ixy) {
    free(gray);
    free(ixx);
    free(iyy);
    free(ixy);
    return -1;
  }
  gray_reference(in, h, w, gray);
  PARALLEL_FOR
  for (int64_t i = 0; i < gh; ++i)
    for (int64_t j = 0; j < gw; ++j) {
      double ix = 0.0, iy = 0.0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          const double g = gray[(i + a) * w + j + b];
          ix += sobel_x[a][b] * g;
          iy += sobel_y[a][b] * g;
        }
      ixx[i * gw + j] = ix * ix;
      iyy[i * gw + j] = iy * iy;
      ixy[i * gw + j] = ix * iy;
    }
  PARALLEL_FOR
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j) {
      double sxx = 0.0, syy = 0.0, sxy = 0.0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          const int64_t p = (i + a) * gw + j + b;
          sxx += ixx[p];
          syy += iyy[p];
          sxy += ixy[p];
        }
      const double det = sxx * syy - sxy * sxy, trace = sxx + syy;
      out[i * ow + j] = det - (double)IMAGE_HARRIS_K * trace * trace;
    }
  free(gray);
  free(ixx);
  free(iyy);
  free(ixy);
  return 0;
}

int image_reference(image_kind kind, const float *in, int64_t h, int64_t w,
                    double *out) {
  switch (kind) {
  case IMAGE_BLUR_X_BLUR_Y:
    return blur_x_blur_y_reference(in, h, w, out);
  case IMAGE_UNSHARP:
    return unsharp_reference(in, h, w, out);
  case IMAGE_HARRIS:
    return harris_reference(in, h, w, out);
  case IMAGE_SOFTMAX:
    return softmax_reference(in, h, w, out);
  case IMAGE_LAYERNORM:
    return layernorm_reference(in, h, w, out);
  }
  return -1;
}

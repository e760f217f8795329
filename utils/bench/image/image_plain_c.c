/* Plain C versions of the image-pipeline workloads (see image_kernels.h):
 * the baseline a C programmer gets without a scheduling language. One
 * straightforward loop nest per stage of the pipeline (the same stages as the
 * MLIR), every intermediate stored in full; the rows of each stage are split
 * over the OpenMP threads (omp_set_num_threads), the inner loop runs along
 * the contiguous x so that the compiler vectorizes it. Built with -O3
 * -march=native (no -ffast-math: the float operations are the ones
 * written). */
#include "image_kernels.h"

#include <math.h>
#include <omp.h>

static const float kBinomial[5] = IMAGE_BINOMIAL_5;
static const float kGaussian[5] = IMAGE_GAUSSIAN_5;

/* gray = 0.299 r + 0.587 g + 0.114 b, h x w. */
static void gray_plane(const float *restrict in, int64_t h, int64_t w,
                       float *restrict gray) {
  const int64_t plane = h * w;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j) {
      const int64_t p = i * w + j;
      gray[p] = IMAGE_GRAY_R * in[p] + IMAGE_GRAY_G * in[plane + p] +
                IMAGE_GRAY_B * in[2 * plane + p];
    }
}

/* planes x rows x cols -> planes x rows x (cols-4), 5 taps along x. */
static void taps_x(const float *restrict src, int64_t planes, int64_t rows,
                   int64_t cols, const float taps[5], float *restrict dst) {
  const int64_t oc = cols - 4;
  const float k0 = taps[0], k1 = taps[1], k2 = taps[2], k3 = taps[3],
              k4 = taps[4];
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t i = 0; i < rows; ++i) {
      const float *restrict s = src + (c * rows + i) * cols;
      float *restrict d = dst + (c * rows + i) * oc;
      for (int64_t j = 0; j < oc; ++j)
        d[j] = k0 * s[j] + k1 * s[j + 1] + k2 * s[j + 2] + k3 * s[j + 3] +
               k4 * s[j + 4];
    }
}

/* planes x rows x cols -> planes x (rows-4) x cols, 5 taps along y. */
static void taps_y(const float *restrict src, int64_t planes, int64_t rows,
                   int64_t cols, const float taps[5], float *restrict dst) {
  const int64_t orows = rows - 4;
  const float k0 = taps[0], k1 = taps[1], k2 = taps[2], k3 = taps[3],
              k4 = taps[4];
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t i = 0; i < orows; ++i) {
      const float *restrict s = src + (c * rows + i) * cols;
      float *restrict d = dst + (c * orows + i) * cols;
      for (int64_t j = 0; j < cols; ++j)
        d[j] = k0 * s[j] + k1 * s[j + cols] + k2 * s[j + 2 * cols] +
               k3 * s[j + 3 * cols] + k4 * s[j + 4 * cols];
    }
}

static void blur_x_blur_y(const float *in, int64_t h, int64_t w,
                          float *scratch, float *out) {
  float *bx = scratch; /* 3 x h x (w-4) */
  taps_x(in, 3, h, w, kBinomial, bx);
  taps_y(bx, 3, h, w - 4, kBinomial, out);
}

static void unsharp(const float *restrict in, int64_t h, int64_t w,
                    float *scratch, float *restrict out) {
  const int64_t oh = h - 4, ow = w - 4, plane = h * w;
  float *restrict gray = scratch;   /* h x w */
  float *restrict by = gray + plane; /* (h-4) x w */
  float *restrict blur = by + oh * w; /* (h-4) x (w-4) */
  float *restrict sharpen = blur + oh * ow;
  float *restrict ratio = sharpen + oh * ow;
  gray_plane(in, h, w, gray);
  taps_y(gray, 1, h, w, kGaussian, by);
  taps_x(by, 1, oh, w, kGaussian, blur);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j)
      sharpen[i * ow + j] = 2.0f * gray[(i + 2) * w + j + 2] - blur[i * ow + j];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j)
      ratio[i * ow + j] = sharpen[i * ow + j] / gray[(i + 2) * w + j + 2];
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        out[(c * oh + i) * ow + j] =
            ratio[i * ow + j] * in[c * plane + (i + 2) * w + j + 2];
}

/* 3x3 box sum: rows x cols -> (rows-2) x (cols-2). */
static void box3(const float *restrict src, int64_t rows, int64_t cols,
                 float *restrict dst) {
  const int64_t oc = cols - 2;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < rows - 2; ++i) {
    const float *restrict r0 = src + i * cols, *restrict r1 = r0 + cols,
                          *restrict r2 = r1 + cols;
    for (int64_t j = 0; j < oc; ++j)
      dst[i * oc + j] = r0[j] + r0[j + 1] + r0[j + 2] + r1[j] + r1[j + 1] +
                        r1[j + 2] + r2[j] + r2[j + 1] + r2[j + 2];
  }
}

static void harris(const float *restrict in, int64_t h, int64_t w,
                   float *scratch, float *restrict out) {
  const int64_t gh = h - 2, gw = w - 2, oh = h - 4, ow = w - 4;
  float *restrict gray = scratch; /* h x w */
  float *restrict ix = gray + h * w; /* (h-2) x (w-2), five of them */
  float *restrict iy = ix + gh * gw;
  float *restrict ixx = iy + gh * gw;
  float *restrict iyy = ixx + gh * gw;
  float *restrict ixy = iyy + gh * gw;
  float *restrict sxx = ixy + gh * gw; /* (h-4) x (w-4), three of them */
  float *restrict syy = sxx + oh * ow;
  float *restrict sxy = syy + oh * ow;
  gray_plane(in, h, w, gray);
  /* Sobel, written out without the zero taps. */
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < gh; ++i) {
    const float *restrict r0 = gray + i * w, *restrict r1 = r0 + w,
                          *restrict r2 = r1 + w;
    for (int64_t j = 0; j < gw; ++j)
      ix[i * gw + j] = -r0[j] + r0[j + 2] - 2.0f * r1[j] + 2.0f * r1[j + 2] -
                       r2[j] + r2[j + 2];
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < gh; ++i) {
    const float *restrict r0 = gray + i * w, *restrict r2 = r0 + 2 * w;
    for (int64_t j = 0; j < gw; ++j)
      iy[i * gw + j] = -r0[j] - 2.0f * r0[j + 1] - r0[j + 2] + r2[j] +
                       2.0f * r2[j + 1] + r2[j + 2];
  }
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < gh * gw; ++p)
    ixx[p] = ix[p] * ix[p];
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < gh * gw; ++p)
    iyy[p] = iy[p] * iy[p];
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < gh * gw; ++p)
    ixy[p] = ix[p] * iy[p];
  box3(ixx, gh, gw, sxx);
  box3(iyy, gh, gw, syy);
  box3(ixy, gh, gw, sxy);
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < oh * ow; ++p) {
    const float det = sxx[p] * syy[p] - sxy[p] * sxy[p];
    const float trace = sxx[p] + syy[p];
    out[p] = det - IMAGE_HARRIS_K * (trace * trace);
  }
}

/* softmax, one stage per loop nest: row maxima, exp into a full-size
 * buffer, row sums, division. */
static void softmax(const float *restrict in, int64_t h, int64_t w,
                    float *restrict scratch, float *restrict out) {
  float *restrict e = scratch, *restrict m = scratch + h * w,
                  *restrict s = m + h;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i) {
    float v = -INFINITY;
    for (int64_t j = 0; j < w; ++j)
      v = fmaxf(v, in[i * w + j]);
    m[i] = v;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j)
      e[i * w + j] = expf(in[i * w + j] - m[i]);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i) {
    float v = 0.0f;
    for (int64_t j = 0; j < w; ++j)
      v += e[i * w + j];
    s[i] = v;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j)
      out[i * w + j] = e[i * w + j] / s[i];
}

/* layernorm, one stage per loop nest: row means, centred values into a
 * full-size buffer, row variances, normalization. */
static void layernorm(const float *restrict in, int64_t h, int64_t w,
                      float *restrict scratch, float *restrict out) {
  const float *restrict gamma = scratch, *restrict beta = scratch + w;
  float *restrict xc = scratch + 2 * w, *restrict mean = xc + h * w,
                  *restrict var = mean + h;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i) {
    float v = 0.0f;
    for (int64_t j = 0; j < w; ++j)
      v += in[i * w + j];
    mean[i] = v / (float)w;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i)
    for (int64_t j = 0; j < w; ++j)
      xc[i * w + j] = in[i * w + j] - mean[i];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i) {
    float v = 0.0f;
    for (int64_t j = 0; j < w; ++j)
      v += xc[i * w + j] * xc[i * w + j];
    var[i] = v / (float)w;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < h; ++i) {
    const float inv = 1.0f / sqrtf(var[i] + IMAGE_LAYERNORM_EPS);
    for (int64_t j = 0; j < w; ++j)
      out[i * w + j] = xc[i * w + j] * inv * gamma[j] + beta[j];
  }
}

size_t image_plain_scratch_floats(image_kind kind, int64_t h, int64_t w) {
  switch (kind) {
  case IMAGE_BLUR_X_BLUR_Y:
    return (size_t)(3 * h * (w - 4));
  case IMAGE_UNSHARP:
    return (size_t)(h * w + (h - 4) * w + 3 * (h - 4) * (w - 4));
  case IMAGE_HARRIS:
    return (size_t)(h * w + 5 * (h - 2) * (w - 2) + 3 * (h - 4) * (w - 4));
  case IMAGE_SOFTMAX:
    return (size_t)(h * w + 2 * h);
  case IMAGE_LAYERNORM:
    return (size_t)(2 * w + h * w + 2 * h);
  }
  return 0;
}

void image_plain(image_kind kind, const float *in, int64_t h, int64_t w,
                 float *scratch, float *out) {
  switch (kind) {
  case IMAGE_BLUR_X_BLUR_Y:
    blur_x_blur_y(in, h, w, scratch, out);
    break;
  case IMAGE_UNSHARP:
    unsharp(in, h, w, scratch, out);
    break;
  case IMAGE_HARRIS:
    harris(in, h, w, scratch, out);
    break;
  case IMAGE_SOFTMAX:
    softmax(in, h, w, scratch, out);
    break;
  case IMAGE_LAYERNORM:
    layernorm(in, h, w, scratch, out);
    break;
  }
}

void image_stream_copy(const float *restrict src, float *restrict dst,
                       size_t count) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < count; ++i)
    dst[i] = src[i];
}

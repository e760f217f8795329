/* The image-pipeline workloads outside MLIR: their constants, the
 * double-precision references (image_reference.c) and the plain C versions
 * (image_plain_c.c). Shared by tessel-image-bench (utils/bench/image_bench.c),
 * the Halide generators (halide_generators.cpp, for the constants) and the
 * lit test test/integration/image_pipelines.test (for the references).
 *
 * Every image is planar f32: channel c, row i, column j at
 * (c * h + i) * w + j. Boundaries are VALID: an output element (i, j) reads
 * the input window that starts at (i, j), so outputs shrink by twice the
 * stencil radius and no pixel is invented. The MLIR of each workload is
 * utils/demo/blur_x_blur_y.mlir and utils/bench/image/workloads/{unsharp,harris}.mlir. */
#ifndef TESSEL_IMAGE_KERNELS_H
#define TESSEL_IMAGE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The f32 constants, written with 9 significant digits so that each literal
 * is the same float in C, C++ (Halide) and MLIR. */
#define IMAGE_BINOMIAL_5 {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f}
/* exp(-t^2 / 2) for t = -2..2, normalized to sum 1, rounded to f32. */
#define IMAGE_GAUSSIAN_5                                                       \
  {0.054488685f, 0.244201347f, 0.402619958f, 0.244201347f, 0.054488685f}
#define IMAGE_GRAY_R 0.299f
#define IMAGE_GRAY_G 0.587f
#define IMAGE_GRAY_B 0.114f
#define IMAGE_HARRIS_K 0.04f

/* blur_x_blur_y: 3 x h x w -> 3 x (h-4) x (w-4); 5-tap binomial along x
 * (into 3 x h x (w-4)), then along y.
 * unsharp: 3 x h x w -> 3 x (h-4) x (w-4); gray = 0.299 r + 0.587 g +
 * 0.114 b; blur = 5-tap gaussian along y, then x; with g = gray(i+2, j+2)
 * (the blur's centre): out[c](i, j) = (2 g - blur(i, j)) / g * in[c](i+2, j+2).
 * harris: 3 x h x w -> (h-4) x (w-4); gray as above; Ix, Iy = 3x3 Sobel
 * (x: [-1 0 1; -2 0 2; -1 0 1], y: its transpose) of gray, (h-2) x (w-2);
 * Sxx, Syy, Sxy = 3x3 box sums of Ix^2, Iy^2, Ix Iy;
 * out = Sxx Syy - Sxy^2 - 0.04 (Sxx + Syy)^2. */
typedef enum image_kind {
  IMAGE_BLUR_X_BLUR_Y,
  IMAGE_UNSHARP,
  IMAGE_HARRIS,
  /* Row workloads (memory-bound reductions along rows; one h x w plane in,
   * one out; their MLIR is utils/bench/image/workloads/{softmax,layernorm}.mlir):
   * softmax: y[i][j] = exp(x[i][j] - max_j x[i]) / sum_j exp(x[i][j] - max_j x[i]).
   * layernorm: y = (x - mean) / sqrt(var + IMAGE_LAYERNORM_EPS) * gamma[j] +
   * beta[j], mean and (biased) var over each row; gamma and beta from
   * image_layernorm_params. */
  IMAGE_SOFTMAX,
  IMAGE_LAYERNORM
} image_kind;

#define IMAGE_LAYERNORM_EPS 1e-5f

/* Input planes: 3 (RGB) for the image pipelines, 1 for the row workloads. */
int image_input_planes(image_kind kind);

/* Output channels (1 for harris and the row workloads), rows and columns
 * for an h x w input. */
void image_output_shape(image_kind kind, int64_t h, int64_t w,
                        int64_t *channels, int64_t *rows, int64_t *cols);

/* layernorm's scale and shift over w columns, the same on every call:
 * gamma[j] in [0.5, 1.5), beta[j] in [-0.25, 0.25). */
void image_layernorm_params(int64_t w, float *gamma, float *beta);

/* Double-precision references (every intermediate in double). `out` holds
 * the whole output. Uses OpenMP over rows when compiled with it. Returns 0,
 * or -1 when scratch memory cannot be allocated. */
int image_reference(image_kind kind, const float *in, int64_t h, int64_t w,
                    double *out);

/* Plain C: the straightforward unfused loops a C programmer writes, one
 * loop nest per stage, each intermediate in a full-size float buffer
 * (`scratch`, image_plain_scratch_floats() floats, allocated by the caller
 * so that its allocation is not timed). Rows are split over the current
 * OpenMP thread count (omp_set_num_threads). For layernorm, scratch starts
 * with gamma[w] and beta[w] (image_layernorm_params, filled by the
 * caller). */
size_t image_plain_scratch_floats(image_kind kind, int64_t h, int64_t w);
void image_plain(image_kind kind, const float *in, int64_t h, int64_t w,
                 float *scratch, float *out);

/* STREAM-like copy dst[i] = src[i], split over the current OpenMP thread
 * count: moves 2 * 4 * count bytes (STREAM's count: no write-allocate). */
void image_stream_copy(const float *src, float *dst, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_IMAGE_KERNELS_H */

//===- Im2col.h - The NHWC im2col copy of a convolution ---------*- C++ -*-===//
//
// The patches copy that turns an NHWC convolution into a matmul, shared by
// tessel-convert-conv-to-matmul (which creates it) and
// tessel-vectorize-matmul (which either reads the input through it, an
// implicit GEMM, or runs it as a tiled, vectorized copy).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_IM2COL_H
#define TESSEL_PASSES_UTILS_IM2COL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tessel {

/// Elements of one vectorized piece of the patch copy, at most.
constexpr int64_t kMaxIm2colPieceElems = 64;

/// The largest divisor of `c` that is at most kMaxIm2colPieceElems.
int64_t im2colPieceElems(int64_t c);

/// An NHWC im2col copy: a linalg.generic writing the [N, OH, OW, KH, KW, C]
/// patches of `input` ([N, H, W, C], already padded) with the input map
/// (n, oh, ow, kh, kw, c) -> (n, oh*sh + kh*dh, ow*sw + kw*dw, c).
struct NhwcIm2col {
  linalg::GenericOp copy;
  Value input;
  int64_t n = 0, oh = 0, ow = 0, kh = 0, kw = 0, c = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
};

/// Where the patches of a zero-padded NHWC convolution read its padding,
/// recorded by tessel-convert-conv-to-matmul on the linalg.matmul it makes
/// (A = the [images*OH*OW, KH*KW*C] patches, row oh*OW + ow of an image,
/// column (kh*KW + kw)*C + c) for tessel-vectorize-matmul: a register tile
/// whose output row reads only padding rows for a kc block's tap adds
/// nothing there (zeros times the filter) and skips the block.
struct PatchPadding {
  int64_t oh = 0, ow = 0, kh = 0, kw = 0, c = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  /// The input (before padding) is rows [top, top + h) and columns
  /// [left, left + w) of the padded input; everything else is zero.
  int64_t top = 0, left = 0, h = 0, w = 0;

  /// Whether output row `outRow` reads an input row for filter row
  /// `filterRow`.
  bool rowReadsInput(int64_t outRow, int64_t filterRow) const {
    int64_t ih = outRow * sh + filterRow * dh - top;
    return ih >= 0 && ih < h;
  }
  /// Whether output column `outCol` reads an input column for filter column
  /// `filterCol`.
  bool columnReadsInput(int64_t outCol, int64_t filterCol) const {
    int64_t iw = outCol * sw + filterCol * dw - left;
    return iw >= 0 && iw < w;
  }
  /// The (output row, filter row) pairs of an image that read only padding.
  int64_t paddingOnlyRowPairs() const {
    int64_t count = 0;
    for (int64_t fh = 0; fh < kh; ++fh)
      for (int64_t r = 0; r < oh; ++r)
        count += !rowReadsInput(r, fh);
    return count;
  }
  /// Likewise (output column, filter column) pairs.
  int64_t paddingOnlyColumnPairs() const {
    int64_t count = 0;
    for (int64_t fw = 0; fw < kw; ++fw)
      for (int64_t col = 0; col < ow; ++col)
        count += !columnReadsInput(col, fw);
    return count;
  }
};
/// Records `padding` on `matmul` (attribute tessel.zero_padded_patches).
void setPatchPadding(Operation *matmul, const PatchPadding &padding);
/// The padding recorded on `matmul`, when it is present, well formed and
/// matches the matmul's [M, K] x [K, N] shapes.
std::optional<PatchPadding> getPatchPadding(linalg::MatmulOp matmul);

/// A copy of `input` into `dest` (a tensor of `shape`, a new one when
/// null), element (i0..) read at `inputMap` (shape's rank -> input's rank):
/// patches in any layout.
linalg::GenericOp createPatchCopy(RewriterBase &rewriter, Location loc,
                                  Value input, ArrayRef<int64_t> shape,
                                  AffineMap inputMap, Value dest = {});

/// The NHWC patches of `input` into `dest` (createPatchCopy); shape
/// [images, oh, ow, kh, kw, c] with the given strides and dilations.
linalg::GenericOp createNhwcIm2col(RewriterBase &rewriter, Location loc,
                                   Value input, ArrayRef<int64_t> shape,
                                   int64_t sh, int64_t sw, int64_t dh,
                                   int64_t dw, Value dest = {});

/// `patches` as an im2col copy that createNhwcIm2col made (an untiled
/// linalg.generic of that form, on static f32 tensors), or nothing.
std::optional<NhwcIm2col> matchNhwcIm2col(Value patches);

/// The copy as a parallel, vectorized loop nest (see the .cpp). Replaces
/// `im2col.copy` and returns the new result (its pieces left scalar if they
/// could not be vectorized), or failure, the copy left alone, when it
/// cannot be tiled.
FailureOr<Value> tileAndVectorizeIm2col(RewriterBase &rewriter,
                                        const NhwcIm2col &im2col);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_IM2COL_H

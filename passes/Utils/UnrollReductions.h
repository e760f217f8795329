//===- UnrollReductions.h - Small reduction windows as shifted operands -*- C++ -*-===//
//
// A stencil written as a linalg.generic with a reduction loop over its taps
// (`(c, i, j, t) -> (c, i, j + t)`) has a non-permutation access that the
// linalg vectorizer cannot turn into vector transfers. Unrolling the taps
// gives an all-parallel generic that reads one shifted slice per tap (an
// identity access each): vectorizable like any elementwise op, the taps'
// weights become scalars, and the accumulation order is the loop's.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_UNROLLREDUCTIONS_H
#define TESSEL_PASSES_UTILS_UNROLLREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::tessel {

/// Replaces `op` (on tensors) whose static reduction loops run at
/// most `maxIterations` times in all by an all-parallel linalg.generic over
/// its parallel loops: for each reduction point, in lexicographic order,
/// the body is repeated on operands that are slices of the inputs at that
/// point (shifted by the point's constant offsets; inputs indexed by the
/// reduction loops alone become scalars read with tensor.extract). Fails
/// with `why` set, leaving `op` untouched, when an access is not a shifted,
/// possibly strided copy of the parallel loops (`s * d + c` per index, s a
/// positive constant: pooling's `2 * oh + kh` is a slice of stride 2; two
/// loops in one index are not) or there are too many iterations. Inputs the
/// body does not read are dropped. An op without reduction loops
/// is rewritten the same way (one point): its shifted and constant-index
/// accesses (a centre crop, a channel of an image) become slices.
FailureOr<linalg::GenericOp> unrollSmallReductions(RewriterBase &rewriter,
                                                   linalg::LinalgOp op,
                                                   int64_t maxIterations,
                                                   std::string &why);

/// An all-parallel generic whose output is initialized by a linalg.fill and
/// read in the body reads the fill's value instead, and writes into the
/// fill's destination: the full write and re-read of the fill disappear.
/// Returns whether it changed `op`.
bool foldFillIntoElementwise(RewriterBase &rewriter, linalg::GenericOp op);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_UNROLLREDUCTIONS_H

//===- TransposeFolding.h - Transposes into indexing maps -------*- C++ -*-===//
//
// Rewrites that move a linalg.transpose on tensors into the indexing maps
// of the linalg.generic ops beside it: the producer writes the transposed
// layout, or the readers read through the permutation. Two transposes that
// undo each other (the ones tessel-convert-conv-to-nhwc puts after one
// convolution and before the next) then meet in one op's maps and cancel.
//
// Permutations are linalg.transpose's: result dimension i is input
// dimension permutation[i].
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_TRANSPOSEFOLDING_H
#define TESSEL_PASSES_UTILS_TRANSPOSEFOLDING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::tessel {

/// Why `op` cannot be rewritten to write its result in another layout
/// (empty when it can): it must be an all-parallel linalg.generic on tensors
/// with one result written through a permutation map, whose body reads
/// neither its output nor the loop indices.
std::string whyNotRelayoutable(linalg::GenericOp op);

/// The map through which a reader that read transpose(x)'s result through
/// `map` reads x itself.
AffineMap readThroughTranspose(AffineMap map, ArrayRef<int64_t> permutation);

/// The map through which a reader that read `x` through `map` reads
/// transpose(x)'s result.
AffineMap readTransposed(AffineMap map, ArrayRef<int64_t> permutation);

/// Replaces `op` (whyNotRelayoutable empty) by the generic that writes its
/// result transposed by `permutation` into `init` (a tensor of that shape):
/// the same body over permuted loops, its output map the identity. Returns
/// the new op; `op`'s result is left for the caller to replace.
linalg::GenericOp relayoutGeneric(RewriterBase &rewriter, linalg::GenericOp op,
                                  ArrayRef<int64_t> permutation, Value init);

/// Makes `reader` (a linalg.generic reading `operand` as an input) read
/// `source` through `newMap` instead.
void rereadOperand(RewriterBase &rewriter, linalg::GenericOp reader,
                   OpOperand &operand, Value source, AffineMap newMap);

/// An empty tensor of `type`'s elements whose dimension i is `type`'s
/// dimension permutation[i].
Value permutedEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                    ArrayRef<int64_t> permutation);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_TRANSPOSEFOLDING_H

//===- RowReductions.h - Long innermost reductions as vector partial sums -*- C++ -*-===//
//
// A reduction along the innermost loop (softmax's row max and row sum,
// layernorm's mean and variance) run as written is one scalar chain per
// row: each step waits for the previous one (a few cycles of latency per
// element) and nothing is vectorized. Reassociated, it is a vector of
// partial results accumulated elementwise block by block (u vectors wide,
// so u independent chains hide the latency) and merged once per row: the
// row streams through at the speed of its loads. Floating-point sums are
// reassociated by this (the partial sums add up in another order than the
// sequential loop's); max and min are not affected.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_ROWREDUCTIONS_H
#define TESSEL_PASSES_UTILS_ROWREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <string>

namespace mlir::tessel {

/// What splitRowReduction made of an op.
struct RowReductionSplit {
  /// Elementwise accumulation of one block of the row into the partial
  /// results (all loops parallel, static shape [1, ..., 1, block]).
  linalg::LinalgOp accumulate;
  /// The fill of the partial results with the combiner's neutral element.
  linalg::LinalgOp initialize;
  /// The reduction of the partial results to the row's result.
  linalg::LinalgOp merge;
  /// The loops over the rows (outermost first; none for a 1-D reduction).
  SmallVector<LoopLikeOpInterface> rowLoops;
  /// The loop over the row's blocks, carrying the partial results.
  scf::ForOp blockLoop;
  /// Lanes per block (a multiple of the vector width).
  int64_t block = 0;
};

/// rowReductionUnsupportedReason's answer for an op that would qualify but
/// for a linalg.index in its body (worth a remark: the op stays scalar).
inline constexpr llvm::StringLiteral kRowReductionReadsLoopIndex =
    "its body reads a loop index (linalg.index), which the split would see "
    "relative to each block";

/// Why `op` is not a long innermost reduction that splitRowReduction
/// takes, or empty: one result, one reduction loop, the innermost, with a
/// static extent longer than `minExtent` that `lanes` divides; accesses
/// that are projected permutations; no linalg.index in the body.
std::string rowReductionUnsupportedReason(linalg::LinalgOp op, int64_t lanes,
                                          int64_t minExtent);

/// Rewrites `op` (checked with rowReductionUnsupportedReason) into loops
/// over its parallel iterations, one row at a time, each reducing its row
/// in blocks of up to `maxVectors` vectors of `lanes` (the largest such
/// block that divides the row) into partial results, merged at the end of
/// the row (upstream scf::tileReductionUsingScf).
FailureOr<RowReductionSplit> splitRowReduction(RewriterBase &rewriter,
                                               linalg::LinalgOp op,
                                               int64_t lanes,
                                               int64_t maxVectors);

/// Computes the elementwise producer of the reduced operand inside the
/// loops of `split`, block by block, instead of in a nest of its own whose
/// result the reduction re-reads: softmax's exp inside its row sum,
/// layernorm's centring inside its sum of squares. The loops also yield
/// the producer's whole result for its other users (upstream
/// scf::yieldReplacementForFusedProducer), so nothing is computed twice;
/// the original producer is erased. Needs a producer in the same block,
/// all loops parallel, writing its result with the identity map, read by
/// the reduction with the identity map, and no other user before the row
/// loops. The loops are rebuilt with the extra results: `split`'s
/// rowLoops and blockLoop are updated. Returns the producer's block-sized
/// copy (to be vectorized like
/// any elementwise op) and the erased original, or failure with `why`
/// (`why` is empty when the reduced operand has no linalg producer at all).
/// Failures are decided before any rewrite, except those of the upstream
/// calls: after a failed tileAndFuseProducerOfSlice the IR computes the
/// same values (a dead clone is left), after a failed
/// yieldReplacementForFusedProducer it may not be valid: `irInvalidated`.
struct FusedRowProducer {
  linalg::LinalgOp tiled;
  Operation *erased = nullptr;
  /// The original producer's name and location, for remarks.
  std::string name;
  std::optional<Location> loc;
};
FailureOr<FusedRowProducer>
fuseProducerIntoRowReduction(RewriterBase &rewriter,
                             RowReductionSplit &split, std::string &why,
                             bool &irInvalidated);

/// `vector.reduction` of a max or min (maximumf, minimumf, maxnumf,
/// minnumf) over a 1-D vector of a power-of-two length as a tree of
/// elementwise ops on halves: LLVM scalarizes these reductions on x86 into
/// one sequential compare-and-select chain per lane (about 7 instructions
/// each, latency-bound: some 450 for a row max merged from 64 lanes). The
/// ops are associative and commutative, NaN and signed zeros included, so
/// the tree gives the same value.
void populateMinMaxReductionTreePatterns(RewritePatternSet &patterns);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_ROWREDUCTIONS_H

//===- TileAndFuse.h - Tile a consumer, fuse each producer once -*- C++ -*-===//
//
// Tiling of a root op with its producers fused into the tiles, computing
// each producer once per tile for all its consumers there. Upstream's
// tileConsumerAndFuseProducersUsingSCF fuses one copy of a producer per
// slice its consumers read: a value read through two maps (unsharp's gray,
// read with the blur's halo and at its centre) is computed twice per tile,
// and CSE merges only identical slices. Here the producers are fused
// consumers first, so all of a producer's slices exist when it is reached,
// and one copy computes their bounding box; each slice becomes a view of
// that copy. The rewriting of each fusion is upstream's
// tileAndFuseProducerOfSlice.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_TILEANDFUSE_H
#define TESSEL_PASSES_UTILS_TILEANDFUSE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::tessel {

struct TileAndFuseResult {
  /// The tile loops (outermost first).
  SmallVector<LoopLikeOpInterface> loops;
  /// Replacements of the root's results.
  SmallVector<Value> replacements;
  /// Producers fused once per slice instead, and why the slices could not
  /// share one copy.
  SmallVector<std::pair<Operation *, std::string>> fusedPerSlice;
};

/// Whether every result of `op` is written through the same indexing map:
/// a box of its loops is then one box of every result, the first condition
/// for one copy per tile (the fusion cost model counts by the same rule).
bool writesResultsThroughOneMap(linalg::LinalgOp op);

/// Tiles `root` with `options` and fuses `producers` (in program order,
/// producers before consumers) into its tiles, each once per tile covering
/// the union of the slices its consumers read, plus the linalg.fill ops that
/// initialize their outputs. A producer whose slices are not readable by one
/// copy (results written through different maps, a slice through the
/// loop's destination, bounds a tile-dependent distance apart) is fused per
/// slice, as upstream does; with `oncePerTile` false, every producer is.
FailureOr<TileAndFuseResult>
tileAndFuseOncePerTile(RewriterBase &rewriter, TilingInterface root,
                       const scf::SCFTilingOptions &options,
                       ArrayRef<Operation *> producers,
                       bool oncePerTile = true);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_TILEANDFUSE_H

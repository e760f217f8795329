//===- FusionGroup.h - Producers fused into a consumer's tiles ---*- C++ -*-===//
//
// Which linalg ops form one fused loop nest (a root consumer and producers
// whose every use lies inside the group), and what a tile of that nest
// computes, reads and keeps: the inputs of the fusion cost model.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_ANALYSIS_FUSIONGROUP_H
#define TESSEL_PASSES_ANALYSIS_FUSIONGROUP_H

#include "passes/CostModel/FusionTiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlir::tessel {

/// Largest reduction window (iterations) of a generic convolution that
/// still counts as a stencil: fused and recomputed like elementwise work.
constexpr int64_t kMaxStencilWindow = 64;

/// Why `op` cannot take part in a fused group (as root or producer), or
/// empty when it can: top level of its function, on statically shaped
/// tensors, outputs written through projected permutations, and not a
/// contraction or convolution (those become kernels of their own).
std::string unfusableReason(linalg::LinalgOp op);

/// Why `op` cannot be tiled through its indexing maps (an operand read or
/// written through a map that decreases somewhere, isNonDecreasingAccess),
/// or empty: part of unfusableReason, which tessel-fuse-producers names in
/// a remark since nothing else would tile such an op.
std::string untileableAccessReason(linalg::LinalgOp op);

/// The linalg.generic ops of `func`'s body that pass unfusableReason, in
/// program order: what the passes that merge ops before tiling consider.
SmallVector<linalg::GenericOp> fusableGenerics(func::FuncOp func);

struct FusionGroup {
  linalg::LinalgOp root;
  /// Fused producers in program order (producers before consumers).
  SmallVector<linalg::LinalgOp> producers;
  /// Producers feeding the group that stay materialized, and why.
  SmallVector<std::pair<Operation *, std::string>> materialized;

  bool contains(Operation *op) const;
};

/// Grows the group of `root`: a linalg producer of a member joins when it
/// may be fused and all uses of its results are members (so fusing it
/// removes the full-size intermediate); linalg.fill destinations are not
/// members (they are re-created per tile).
FusionGroup collectFusionGroup(linalg::LinalgOp root);

/// Arithmetic ops the body of `op` executes per iteration (at least 1).
int64_t workPerIteration(linalg::LinalgOp op);

/// Cost of the tile of `group` that covers `rootBox` (extents of the root's
/// loops): every member's domain grown by the halos its consumers read.
/// With `oncePerTile` (see Utils/TileAndFuse.h) a member whose results share
/// one output map is computed once over the bounding box of the slices its
/// consumers read; otherwise once per distinct slice.
std::optional<GroupTileCost> evaluateGroupTile(const FusionGroup &group,
                                               ArrayRef<int64_t> rootBox,
                                               bool oncePerTile = true);

/// The model's view of `group` (cost callback bound to it).
FusionProblem describeFusionProblem(const FusionGroup &group,
                                    bool oncePerTile = true);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_ANALYSIS_FUSIONGROUP_H

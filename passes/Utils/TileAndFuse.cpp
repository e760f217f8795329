//===- TileAndFuse.cpp - Tile a consumer, fuse each producer once ---------===//
#include "passes/Utils/TileAndFuse.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {
/// The slices of one producer's results that the tile reads.
struct ProducerSlices {
  SmallVector<tensor::ExtractSliceOp> direct;
  /// Slices of the loop's destination whose initial value is the
  /// producer's result (upstream fuses those through the loop's init).
  SmallVector<tensor::ExtractSliceOp> throughDestination;
};

/// How one copy covers several slices: per dimension, the slice with the
/// smallest offset and the slice with the largest end.
struct UnionPlan {
  SmallVector<unsigned> lowest, highest;
};
} // namespace

bool mlir::tessel::writesResultsThroughOneMap(linalg::LinalgOp op) {
  if (op->getNumResults() == 0)
    return false;
  AffineMap first = op.getIndexingMapMatchingResult(op->getResult(0));
  return llvm::all_of(op->getResults(), [&](OpResult r) {
    return op.getIndexingMapMatchingResult(r) == first;
  });
}

static ProducerSlices slicesInLoop(Operation *producer,
                                   LoopLikeOpInterface loop) {
  ProducerSlices slices;
  for (OpResult result : producer->getResults()) {
    for (OpOperand &use : result.getUses()) {
      Operation *user = use.getOwner();
      if (user == loop.getOperation()) {
        if (BlockArgument arg = loop.getTiedLoopRegionIterArg(&use))
          for (Operation *argUser : arg.getUsers())
            if (auto slice = dyn_cast<tensor::ExtractSliceOp>(argUser))
              slices.throughDestination.push_back(slice);
        continue;
      }
      auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
      if (slice && slice.getSource() == result &&
          loop->isProperAncestor(slice) && !slice->use_empty())
        slices.direct.push_back(slice);
    }
  }
  return slices;
}

/// The end (offset + size) of `slice` along `dim`, as a value-bounds
/// variable.
static ValueBoundsConstraintSet::Variable sliceEnd(tensor::ExtractSliceOp slice,
                                                   unsigned dim) {
  MLIRContext *ctx = slice.getContext();
  AffineMap sum = AffineMap::get(
      2, 0, getAffineDimExpr(0, ctx) + getAffineDimExpr(1, ctx), ctx);
  SmallVector<ValueBoundsConstraintSet::Variable> operands{
      ValueBoundsConstraintSet::Variable(slice.getMixedOffsets()[dim]),
      ValueBoundsConstraintSet::Variable(slice.getMixedSizes()[dim])};
  return ValueBoundsConstraintSet::Variable(sum, operands);
}

/// Why `slices` cannot be read from one copy of `producer`, or the plan of
/// that copy.
static FailureOr<UnionPlan> planUnion(Operation *producer,
                                      ArrayRef<tensor::ExtractSliceOp> slices,
                                      std::string &why) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(producer);
  if (!linalgOp) {
    why = "it is not a linalg op";
    return failure();
  }
  if (!writesResultsThroughOneMap(linalgOp)) {
    why = "its results are written through different maps";
    return failure();
  }
  for (tensor::ExtractSliceOp slice : slices) {
    if (!slice.hasUnitStride() ||
        slice.getType().getRank() != slice.getSourceType().getRank()) {
      why = "a slice is strided or rank-reducing";
      return failure();
    }
  }
  using Variable = ValueBoundsConstraintSet::Variable;
  UnionPlan plan;
  tensor::ExtractSliceOp first = slices.front();
  MLIRContext *ctx = first.getContext();
  AffineMap difference = AffineMap::get(
      2, 0, getAffineDimExpr(0, ctx) - getAffineDimExpr(1, ctx), ctx);
  // `a - b` when it is the same constant for every tile.
  auto constantDistance = [&](Variable a, Variable b) {
    SmallVector<Variable> operands{a, b};
    return ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::EQ, Variable(difference, operands));
  };
  unsigned rank = first.getSourceType().getRank();
  for (unsigned d = 0; d < rank; ++d) {
    // Every slice's start and end a constant away from the first slice's:
    // the union is then a tile-sized box, and the constants order the
    // slices. (Reads at i and 2i can be ordered, but their union grows
    // with the tile index.)
    unsigned lowest = 0, highest = 0;
    int64_t lowestStart = 0, highestEnd = 0;
    for (auto [i, slice] : llvm::enumerate(slices)) {
      tensor::ExtractSliceOp s = slice;
      FailureOr<int64_t> start =
          constantDistance(Variable(s.getMixedOffsets()[d]),
                           Variable(first.getMixedOffsets()[d]));
      FailureOr<int64_t> end =
          constantDistance(sliceEnd(s, d), sliceEnd(first, d));
      if (failed(start) || failed(end)) {
        why = "the slices' bounds along dimension " + std::to_string(d) +
              " differ by an amount that depends on the tile";
        return failure();
      }
      if (*start < lowestStart) {
        lowestStart = *start;
        lowest = i;
      }
      if (*end > highestEnd) {
        highestEnd = *end;
        highest = i;
      }
    }
    plan.lowest.push_back(lowest);
    plan.highest.push_back(highest);
  }
  return plan;
}

/// Moves the pure ops computing `value` before `point` when they are after
/// it in its block; fails when `value` cannot be made available there.
static LogicalResult makeAvailableBefore(RewriterBase &rewriter, Value value,
                                         Operation *point) {
  DominanceInfo dom;
  if (dom.properlyDominates(value, point))
    return success();
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != point->getBlock() || !isPure(def) ||
      def->getNumRegions() != 0)
    return failure();
  for (Value operand : def->getOperands())
    if (failed(makeAvailableBefore(rewriter, operand, point)))
      return failure();
  rewriter.moveOpBefore(def, point);
  return success();
}

/// The first op of `block` that uses one of `slices` (directly or in a
/// nested region), or null when one is used outside `block`.
static Operation *firstUser(ArrayRef<tensor::ExtractSliceOp> slices,
                            Block *block) {
  Operation *first = nullptr;
  for (tensor::ExtractSliceOp slice : slices) {
    for (Operation *user : slice->getUsers()) {
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return nullptr;
      if (!first || inBlock->isBeforeInBlock(first))
        first = inBlock;
    }
  }
  return first;
}

/// Fuses one copy of `producer` covering all `slices` and makes each slice
/// a view of it. Fails, leaving the IR as it was, when that is not possible
/// (`why` says why).
static LogicalResult
fuseOnceForSlices(RewriterBase &rewriter, Operation *producer,
                  ArrayRef<tensor::ExtractSliceOp> slices,
                  MutableArrayRef<LoopLikeOpInterface> loops,
                  std::string &why) {
  FailureOr<UnionPlan> plan = planUnion(producer, slices, why);
  if (failed(plan))
    return failure();
  tensor::ExtractSliceOp first = slices.front();
  Block *block = first->getBlock();
  if (llvm::any_of(slices, [&](tensor::ExtractSliceOp s) {
        return s->getBlock() != block;
      })) {
    why = "its slices are in different blocks";
    return failure();
  }
  Operation *point = firstUser(slices, block);
  if (!point) {
    why = "a slice is used outside the tile's block";
    return failure();
  }
  // The copy goes before the first reader; the slices' bounds (affine
  // functions of the tile's indices) are computed before it. Moving pure
  // index computations earlier changes nothing else.
  for (tensor::ExtractSliceOp slice : slices)
    for (Value v : llvm::concat<Value>(slice.getOffsets(), slice.getSizes()))
      if (failed(makeAvailableBefore(rewriter, v, point))) {
        why = "a slice's bounds are computed after the first reader";
        return failure();
      }

  Location loc = producer->getLoc();
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  rewriter.setInsertionPoint(point);
  unsigned rank = plan->lowest.size();
  SmallVector<OpFoldResult> offsets, sizes;
  for (unsigned d = 0; d < rank; ++d) {
    tensor::ExtractSliceOp low = slices[plan->lowest[d]];
    tensor::ExtractSliceOp high = slices[plan->highest[d]];
    offsets.push_back(low.getMixedOffsets()[d]);
    if (low == high) {
      sizes.push_back(low.getMixedSizes()[d]);
      continue;
    }
    sizes.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, d0 + d1 - d2,
        {high.getMixedOffsets()[d], high.getMixedSizes()[d],
         low.getMixedOffsets()[d]}));
  }
  SmallVector<OpFoldResult> unitStrides(rank, rewriter.getIndexAttr(1));
  auto unionSlice = tensor::ExtractSliceOp::create(
      rewriter, loc, first.getSource(), offsets, sizes, unitStrides);
  std::optional<scf::SCFFuseProducerOfSliceResult> fused =
      scf::tileAndFuseProducerOfSlice(rewriter, unionSlice, loops);
  if (!fused || fused->tiledOps.empty() ||
      fused->tiledOps.front()->getNumResults() != producer->getNumResults()) {
    // Nothing was fused: drop the slice (and the bounds computed for it).
    if (unionSlice->use_empty())
      rewriter.eraseOp(unionSlice);
    why = "upstream could not tile it for the union of its slices";
    return failure();
  }
  Operation *tiled = fused->tiledOps.front();
  rewriter.eraseOp(unionSlice);
  rewriter.setInsertionPoint(point);
  for (tensor::ExtractSliceOp slice : slices) {
    Value whole =
        tiled->getResult(cast<OpResult>(slice.getSource()).getResultNumber());
    SmallVector<OpFoldResult> relative;
    for (unsigned d = 0; d < rank; ++d)
      relative.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, d0 - d1, {slice.getMixedOffsets()[d], offsets[d]}));
    Value view;
    if (slice.getType() == whole.getType() &&
        llvm::all_of(relative,
                     [](OpFoldResult r) { return isConstantIntValue(r, 0); }) &&
        llvm::all_of(llvm::zip(slice.getMixedSizes(), sizes), [](auto pair) {
          return isEqualConstantIntOrValue(std::get<0>(pair),
                                           std::get<1>(pair));
        }))
      view = whole;
    else
      view = tensor::ExtractSliceOp::create(rewriter, loc, slice.getType(),
                                            whole, relative,
                                            slice.getMixedSizes(), unitStrides);
    rewriter.replaceOp(slice, view);
  }
  return success();
}

/// Whether `slice` reads a linalg.fill's result, directly or as the
/// destination of one of `loops`.
static bool slicesAFill(tensor::ExtractSliceOp slice,
                        ArrayRef<LoopLikeOpInterface> loops) {
  Value source = slice.getSource();
  for (LoopLikeOpInterface loop : llvm::reverse(loops)) {
    auto arg = dyn_cast<BlockArgument>(source);
    if (!arg || arg.getOwner()->getParentOp() != loop.getOperation())
      break;
    OpOperand *init = loop.getTiedLoopInit(arg);
    if (!init)
      return false;
    source = init->get();
  }
  return source.getDefiningOp<linalg::FillOp>() != nullptr;
}

FailureOr<TileAndFuseResult> mlir::tessel::tileAndFuseOncePerTile(
    RewriterBase &rewriter, TilingInterface root,
    const scf::SCFTilingOptions &options, ArrayRef<Operation *> producers,
    bool oncePerTile) {
  FailureOr<scf::SCFTilingResult> tiling =
      scf::tileUsingSCF(rewriter, root, options);
  if (failed(tiling))
    return failure();
  TileAndFuseResult result;
  result.loops = tiling->loops;
  result.replacements = tiling->replacements;
  if (result.loops.empty())
    return result;
  LoopLikeOpInterface outer = result.loops.front();
  // Consumers first: every reader of a producer has been fused (and has
  // sliced it) when the producer is reached.
  for (Operation *producer : llvm::reverse(producers)) {
    ProducerSlices slices = slicesInLoop(producer, outer);
    std::string why;
    if (oncePerTile && slices.direct.size() > 1 &&
        slices.throughDestination.empty()) {
      if (succeeded(fuseOnceForSlices(rewriter, producer, slices.direct,
                                      result.loops, why)))
        continue;
    } else if (oncePerTile && !slices.throughDestination.empty() &&
               slices.direct.size() + slices.throughDestination.size() > 1) {
      why = "it is also the loop's destination";
    }
    if (!why.empty())
      result.fusedPerSlice.emplace_back(producer, why);
    for (tensor::ExtractSliceOp slice : llvm::concat<tensor::ExtractSliceOp>(
             slices.direct, slices.throughDestination))
      if (!slice->use_empty())
        (void)scf::tileAndFuseProducerOfSlice(rewriter, slice, result.loops);
  }
  // Fills of the fused ops' outputs (and of the root's): one per slice,
  // they are as cheap as the slice.
  SmallVector<tensor::ExtractSliceOp> fillSlices;
  outer->walk([&](tensor::ExtractSliceOp slice) {
    if (!slice->use_empty() && slicesAFill(slice, result.loops))
      fillSlices.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : fillSlices)
    (void)scf::tileAndFuseProducerOfSlice(rewriter, slice, result.loops);
  return result;
}

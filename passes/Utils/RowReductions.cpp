//===- RowReductions.cpp - Long innermost reductions as vector partial sums ===//
#include "passes/Utils/RowReductions.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;
using namespace mlir::tessel;

std::string mlir::tessel::rowReductionUnsupportedReason(linalg::LinalgOp op,
                                                        int64_t lanes,
                                                        int64_t minExtent) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumDpsInits() != 1)
    return "it is not an op on tensors with one result";
  unsigned loops = op.getNumLoops();
  if (op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray()[loops - 1] != utils::IteratorType::reduction)
    return "its reduction is not one loop, the innermost";
  int64_t extent = op.getStaticLoopRanges()[loops - 1];
  if (ShapedType::isDynamic(extent))
    return "its reduction loop has a dynamic extent";
  if (extent <= minExtent)
    return "its reduction loop is short (unrolled instead)";
  if (extent % lanes != 0)
    return "its reduction loop runs " + std::to_string(extent) +
           " iterations, not a multiple of the " + std::to_string(lanes) +
           " vector lanes";
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return "an access is not a projected permutation of the loops";
  if (!isa<PartialReductionOpInterface>(op.getOperation()))
    return "the op has no partial-reduction tiling";
  return {};
}

FailureOr<RowReductionSplit>
mlir::tessel::splitRowReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                int64_t lanes, int64_t maxVectors) {
  MLIRContext *ctx = rewriter.getContext();
  unsigned loops = op.getNumLoops();
  int64_t extent = op.getStaticLoopRanges()[loops - 1];
  int64_t vectors = maxVectors;
  while (vectors > 1 && extent % (lanes * vectors) != 0)
    vectors /= 2;
  int64_t block = lanes * vectors;

  // One row at a time: its partial results stay in registers.
  linalg::LinalgOp row = op;
  if (loops > 1) {
    SmallVector<int64_t> rowSizes(loops, 1);
    rowSizes.back() = 0;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(ctx, rowSizes));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> rows = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(rows))
      return failure();
    rewriter.replaceOp(op, rows->replacements);
    row = cast<linalg::LinalgOp>(rows->tiledOps.back());
  }

  SmallVector<int64_t> blockSizes(loops, 0);
  blockSizes.back() = block;
  rewriter.setInsertionPoint(row);
  FailureOr<scf::SCFTilingResult> split = scf::tileReductionUsingScf(
      rewriter, cast<PartialReductionOpInterface>(row.getOperation()),
      getAsIndexOpFoldResult(ctx, blockSizes));
  if (failed(split) || split->tiledOps.size() != 1 ||
      split->mergeOps.size() != 1 || split->loops.size() != 1 ||
      split->initialValues.size() != 1)
    return failure();
  rewriter.replaceOp(row, split->replacements);

  RowReductionSplit result;
  result.accumulate = dyn_cast<linalg::LinalgOp>(split->tiledOps.front());
  result.merge = dyn_cast<linalg::LinalgOp>(split->mergeOps.front());
  result.initialize =
      split->initialValues.front().getDefiningOp<linalg::LinalgOp>();
  result.blockLoop = dyn_cast<scf::ForOp>(split->loops.front().getOperation());
  result.block = block;
  if (!result.accumulate || !result.merge || !result.initialize ||
      !result.blockLoop)
    return failure();
  return result;
}

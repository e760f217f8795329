//===- RowReductions.cpp - Long innermost reductions as vector partial sums ===//
#include "passes/Utils/RowReductions.h"

#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
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
  // Upstream's partial-reduction tiling leaves the body's loop indices
  // relative to the block: a sum of the reduction index came out as the
  // sum of indices within each 16-lane block, and vectorizing the index
  // built an invalid vector.transfer_write.
  if (!op.getBlock()->getOps<linalg::IndexOp>().empty())
    return kRowReductionReadsLoopIndex.str();
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
  SmallVector<LoopLikeOpInterface> rowLoops;
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
    rowLoops = rows->loops;
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
  result.rowLoops = rowLoops;
  result.blockLoop = dyn_cast<scf::ForOp>(split->loops.front().getOperation());
  result.block = block;
  if (!result.accumulate || !result.merge || !result.initialize ||
      !result.blockLoop)
    return failure();
  return result;
}

/// The producer whose result `operand` of the block-level accumulation
/// slices (through the row slice), with the slices from outermost in; null
/// when the operand is not such a slice chain.
static OpResult slicedProducer(OpOperand &operand,
                               SmallVectorImpl<tensor::ExtractSliceOp> &chain) {
  Value value = operand.get();
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
    chain.insert(chain.begin(), slice);
    value = slice.getSource();
  }
  if (chain.empty())
    return nullptr;
  return dyn_cast<OpResult>(value);
}

FailureOr<FusedRowProducer>
mlir::tessel::fuseProducerIntoRowReduction(RewriterBase &rewriter,
                                           RowReductionSplit &split,
                                           std::string &why,
                                           bool &irInvalidated) {
  irInvalidated = false;
  Operation *outermost = split.rowLoops.empty()
                             ? split.blockLoop.getOperation()
                             : split.rowLoops.front().getOperation();
  linalg::LinalgOp accumulate = split.accumulate;
  OpResult produced;
  SmallVector<tensor::ExtractSliceOp> chain;
  for (OpOperand *input : accumulate.getDpsInputOperands()) {
    chain.clear();
    OpResult candidate = slicedProducer(*input, chain);
    auto producer =
        candidate ? dyn_cast<linalg::LinalgOp>(candidate.getOwner()) : nullptr;
    if (producer && accumulate.getMatchingIndexingMap(input).isIdentity()) {
      produced = candidate;
      break;
    }
  }
  if (!produced) {
    why.clear(); // Nothing to fuse: not a failure to report.
    return failure();
  }
  auto producer = cast<linalg::LinalgOp>(produced.getOwner());
  FusedRowProducer result;
  result.name = producer->getName().getStringRef().str();
  result.loc = producer->getLoc();
  if (!producer.hasPureTensorSemantics() ||
      producer.getNumLoops() != producer.getNumParallelLoops()) {
    why = "its producer is not an elementwise op on tensors";
    return failure();
  }
  // Its other results would keep the original alive: computed twice.
  if (producer->getNumResults() != 1) {
    why = "its producer has several results";
    return failure();
  }
  if (producer->getBlock() != outermost->getBlock() ||
      !producer->isBeforeInBlock(outermost)) {
    why = "its producer is not computed just before the reduction";
    return failure();
  }
  if (!producer.getIndexingMapMatchingResult(produced).isIdentity()) {
    why = "its producer writes its result through a non-identity map";
    return failure();
  }
  // A fill read by the body would become the loops' initial value, written
  // in a nest of its own (unfused, it folds into the producer).
  for (OpOperand &init : producer.getDpsInitsMutable())
    if (producer.payloadUsesValueFromOperand(&init)) {
      why = "its producer reads its output's initial value";
      return failure();
    }
  // A slice of the reduction's iterations is then exactly one slice of the
  // producer's: each element is computed once. Other users must come after
  // the loops, which will yield the whole result for them; inside the
  // loops only the chain being fused may read it (a second read would keep
  // the original alive and compute it twice).
  for (OpOperand &use : produced.getUses()) {
    if (outermost->isAncestor(use.getOwner())) {
      if (use.getOwner() != chain.front().getOperation()) {
        why = "the reduction reads its result more than once";
        return failure();
      }
      continue;
    }
    Operation *user = outermost->getBlock()->findAncestorOpInBlock(
        *use.getOwner());
    if (!user || !outermost->isBeforeInBlock(user)) {
      why = "its result is also used before the reduction";
      return failure();
    }
  }

  // One slice of the producer's result per block instead of a slice of
  // the row slice.
  if (chain.size() > 1) {
    RewritePatternSet patterns(rewriter.getContext());
    tensor::populateMergeConsecutiveInsertExtractSlicePatterns(patterns);
    SmallVector<Operation *> slices(chain.begin(), chain.end());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyOpPatternsGreedily(slices, std::move(patterns), config);
  }
  tensor::ExtractSliceOp blockSlice;
  for (OpOperand *input : accumulate.getDpsInputOperands()) {
    auto slice = input->get().getDefiningOp<tensor::ExtractSliceOp>();
    if (slice && slice.getSource() == produced)
      blockSlice = slice;
  }
  if (!blockSlice) {
    why = "its row and block slices do not compose into one";
    return failure();
  }

  SmallVector<LoopLikeOpInterface> loops(split.rowLoops.begin(),
                                         split.rowLoops.end());
  loops.push_back(cast<LoopLikeOpInterface>(split.blockLoop.getOperation()));
  std::optional<scf::SCFFuseProducerOfSliceResult> fused =
      scf::tileAndFuseProducerOfSlice(rewriter, blockSlice, loops);
  if (!fused) {
    why = "upstream producer fusion failed on its slice";
    return failure();
  }
  if (failed(scf::yieldReplacementForFusedProducer(
          rewriter, blockSlice, *fused, loops,
          {unsigned(produced.getResultNumber())}))) {
    // Upstream may have rebuilt part of the loop nest by now.
    why = "the loops cannot yield its whole result";
    irInvalidated = true;
    return failure();
  }
  // The loops were rebuilt with one more result each.
  split.rowLoops.assign(loops.begin(), loops.end() - 1);
  split.blockLoop = cast<scf::ForOp>(loops.back().getOperation());
  // The outermost loop's last result is now the producer's whole result.
  Operation *outer = loops.front().getOperation();
  Value whole = outer->getResults().back();
  rewriter.replaceUsesWithIf(produced, whole, [&](OpOperand &use) {
    return !outer->isAncestor(use.getOwner());
  });
  // What still reads the original: the slices the fused copy replaced.
  for (Operation *user : llvm::make_early_inc_range(produced.getUsers()))
    if (isa<tensor::ExtractSliceOp>(user) && user->use_empty())
      rewriter.eraseOp(user);
  result.tiled = dyn_cast_or_null<linalg::LinalgOp>(
      fused->tiledAndFusedProducer.getDefiningOp());
  if (producer->use_empty()) {
    result.erased = producer.getOperation();
    rewriter.eraseOp(producer);
  }
  return result;
}

namespace {
struct MinMaxReductionAsTree : public OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const override {
    using vector::CombiningKind;
    CombiningKind kind = op.getKind();
    if (kind != CombiningKind::MAXIMUMF && kind != CombiningKind::MINIMUMF &&
        kind != CombiningKind::MAXNUMF && kind != CombiningKind::MINNUMF)
      return rewriter.notifyMatchFailure(op, "not a floating-point max/min");
    VectorType type = op.getSourceVectorType();
    int64_t lanes = type.getNumElements();
    if (type.getRank() != 1 || type.isScalable() || lanes < 2 ||
        !llvm::isPowerOf2_64(lanes))
      return rewriter.notifyMatchFailure(op, "not a power-of-two 1-D vector");
    if (cast<vector::MaskableOpInterface>(op.getOperation()).isMasked())
      return rewriter.notifyMatchFailure(op, "masked");
    Location loc = op.getLoc();
    arith::FastMathFlagsAttr fastmath = op.getFastmathAttr();
    Value value = op.getVector();
    for (; lanes > 1; lanes /= 2) {
      auto half = [&](int64_t offset) -> Value {
        return vector::ExtractStridedSliceOp::create(
            rewriter, loc, value, ArrayRef<int64_t>{offset},
            ArrayRef<int64_t>{lanes / 2}, ArrayRef<int64_t>{1});
      };
      value = vector::makeArithReduction(rewriter, loc, kind, half(0),
                                         half(lanes / 2), fastmath);
    }
    Value result =
        vector::ExtractOp::create(rewriter, loc, value, ArrayRef<int64_t>{0});
    if (Value acc = op.getAcc())
      result = vector::makeArithReduction(rewriter, loc, kind, result, acc,
                                          fastmath);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::tessel::populateMinMaxReductionTreePatterns(
    RewritePatternSet &patterns) {
  patterns.add<MinMaxReductionAsTree>(patterns.getContext());
}

//===- FuseProducers.cpp - Overlapped-tile fusion of linalg producers -----===//
//
// Tiles each root consumer (a linalg op whose result leaves the fusable
// ops) by sizes from CostModel/FusionTiling and fuses into every tile the
// producers whose results only the group uses (Utils/TileAndFuse, around
// upstream's tileAndFuseProducerOfSlice): a fused producer computes, once
// per tile, the union of the slices its consumers there read, halo
// included, so neighbouring tiles recompute their overlap instead of
// exchanging it, and its result lives in a tile-sized tensor (after
// bufferization, a tile buffer) instead of a full-size one. The tile loops
// are one scf.forall, which the CPU pipeline runs over the cores.
//
//===----------------------------------------------------------------------===//
#include "passes/Analysis/FusionGroup.h"
#include "passes/CostModel/FusionTiling.h"
#include "passes/Passes.h"
#include "passes/Utils/GPUThreadLoops.h"
#include "passes/Utils/KernelSupport.h"
#include "passes/Utils/TileAndFuse.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#define DEBUG_TYPE "tessel-fuse-producers"

namespace mlir::tessel {
#define GEN_PASS_DEF_FUSEPRODUCERSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Tiles the group's root by `tiling` and fuses the members (and fills
/// that initialize their outputs) into the tile; erases what became dead.
static LogicalResult tileAndFuseGroup(RewriterBase &rewriter,
                                      const FusionGroup &group,
                                      const FusionTiling &tiling,
                                      bool oncePerTile) {
  MLIRContext *ctx = rewriter.getContext();
  // A loop the tile covers whole is not tiled (size 0): no loop variable
  // that is always 0 in the slices, so the slices of one value that two
  // members read (softmax's exp, read by its row sum and its division)
  // are identical.
  SmallVector<int64_t> sizes(tiling.tileSizes);
  linalg::LinalgOp root = group.root;
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  bool tiled = false;
  for (auto [size, range] : llvm::zip(sizes, ranges)) {
    if (!ShapedType::isDynamic(range) && size >= range)
      size = 0;
    tiled |= size != 0;
  }
  if (!tiled)
    sizes.assign(tiling.tileSizes.begin(), tiling.tileSizes.end());
  scf::SCFTilingOptions tilingOptions;
  tilingOptions.setTileSizes(getAsIndexOpFoldResult(ctx, sizes));
  tilingOptions.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  SmallVector<Operation *> producers;
  for (linalg::LinalgOp p : group.producers)
    producers.push_back(p);
  rewriter.setInsertionPoint(root);
  FailureOr<TileAndFuseResult> fused = tileAndFuseOncePerTile(
      rewriter, cast<TilingInterface>(root.getOperation()), tilingOptions,
      producers, oncePerTile);
  if (failed(fused))
    return failure();
  for (auto &[producer, why] : fused->fusedPerSlice)
    producer->emitRemark() << "computed once per slice its consumers read in "
                              "each tile, not once for all: "
                           << why;
  if (fused->replacements.size() != root->getNumResults())
    return root->emitError("tiling produced ")
           << fused->replacements.size() << " replacements for "
           << root->getNumResults() << " results";
  for (auto [result, replacement] :
       llvm::zip_equal(root->getResults(), fused->replacements))
    rewriter.replaceAllUsesWith(result, replacement);
  // The originals are dead now, as are the slices of them that upstream
  // leaves behind, and fills only they used.
  Region *body = root->getParentRegion();
  rewriter.eraseOp(root);
  (void)simplifyRegions(rewriter, MutableArrayRef<Region>(*body));
  return success();
}

/// A root without producers is tiled only to run over the cores: worth it
/// when there are several cores and each gets at least a few tiles' worth
/// of work (a fork/join costs microseconds: about 64K elements).
static bool isWorthTilingAlone(linalg::LinalgOp op,
                               const FusionTarget &target) {
  if (target.parallelUnits <= 1)
    return false;
  int64_t volume = 1;
  for (int64_t e : op.getStaticLoopRanges())
    volume *= e;
  return volume >= 64 * 1024;
}

/// Gives each fused intermediate a buffer of the largest tile's static
/// size, sliced to the tile at hand: edge tiles make the sizes dynamic, but
/// their upper bounds are known. A static buffer per iteration of the
/// parallel loop is what the pipeline's promote-buffers-to-stack turns into
/// stack memory, instead of a heap allocation (and fresh pages) per tile.
static void makeTileBuffersStatic(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<tensor::EmptyOp> empties;
  func.walk([&](tensor::EmptyOp empty) {
    if (!empty.getType().hasStaticShape() &&
        empty->getParentOfType<scf::ForallOp>())
      empties.push_back(empty);
  });
  for (tensor::EmptyOp empty : empties) {
    RankedTensorType type = empty.getType();
    SmallVector<int64_t> shape(type.getShape());
    bool bounded = true;
    for (auto [d, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size))
        continue;
      FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB,
          ValueBoundsConstraintSet::Variable(empty.getResult(), d),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(bound) || *bound <= 0) {
        bounded = false;
        break;
      }
      size = *bound;
    }
    if (!bounded)
      continue;
    rewriter.setInsertionPoint(empty);
    Location loc = empty.getLoc();
    Value full =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    SmallVector<OpFoldResult> offsets(shape.size(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(shape.size(), rewriter.getIndexAttr(1));
    Value tile = tensor::ExtractSliceOp::create(
        rewriter, loc, type, full, offsets, empty.getMixedSizes(), strides);
    rewriter.replaceOp(empty, tile);
  }
}

/// Clones the chain of tensor.empty, its slices and fills that defines
/// `init` before `user`; null when `init` is defined otherwise.
static Value cloneInitChain(RewriterBase &rewriter, Value init,
                            Operation *user) {
  Operation *def = init.getDefiningOp();
  // Only the tile's own buffers: a chain from outside the tile loop is a
  // full-size tensor, which cloning would re-create in every tile.
  auto forall = user->getParentOfType<scf::ForallOp>();
  if (!def || !forall || !forall->isProperAncestor(def) ||
      !isa<tensor::EmptyOp, tensor::ExtractSliceOp, linalg::FillOp>(def))
    return {};
  IRMapping mapping;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
    Value source = cloneInitChain(rewriter, slice.getSource(), user);
    if (!source)
      return {};
    mapping.map(slice.getSource(), source);
  } else if (auto fill = dyn_cast<linalg::FillOp>(def)) {
    Value output = cloneInitChain(rewriter, fill.getOutputs()[0], user);
    if (!output)
      return {};
    mapping.map(fill.getOutputs()[0], output);
  }
  rewriter.setInsertionPoint(user);
  return rewriter.clone(*def, mapping)
      ->getResult(cast<OpResult>(init).getResultNumber());
}

/// Outputs of the tile's ops that share one destination tensor (CSE merges
/// identical tile buffers and fills: the three box sums of merged Harris
/// start from one zero-filled tile) get a destination each. Shared, they
/// would make bufferization allocate a buffer per extra output, of the
/// tile's dynamic size, on the heap and on every tile.
static void giveEachOutputItsOwnBuffer(RewriterBase &rewriter,
                                       func::FuncOp func) {
  llvm::DenseSet<Value> claimed;
  func.walk([&](DestinationStyleOpInterface op) {
    if (!op->getParentOfType<scf::ForallOp>() || !op.hasPureTensorSemantics())
      return;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (claimed.insert(init.get()).second)
        continue;
      if (Value own = cloneInitChain(rewriter, init.get(), op))
        rewriter.modifyOpInPlace(op, [&] { init.set(own); });
    }
  });
}

/// Ops outside the tiles, and the tile loops, that share one filled
/// destination (CSE above merges the zero fills of two convolutions) get a
/// fill each. Shared, bufferization copies the filled buffer for the second
/// op (a read and a write instead of a write), and the GPU matmul kernel,
/// which folds a fill into its accumulators, would load the copy instead.
/// With `empties`, those that share one tensor.empty get one each: shared,
/// bufferization may give the later op the buffer of an earlier result it
/// no longer needs, and a GPU matmul kernel that takes the later op as its
/// epilogue (after bufferization, unlike the CPU pipeline's fusion, which
/// bufferization sees) would overwrite its own operand (a transposed
/// input) while other blocks still read it. On the CPU the reuse is kept:
/// a buffer already touched costs no page faults.
static void unshareDestinations(RewriterBase &rewriter, func::FuncOp func,
                                bool empties) {
  llvm::DenseSet<Value> claimed;
  func.walk([&](Operation *op) {
    if (op->getParentOfType<scf::ForallOp>())
      return;
    // Tile loops claim their destinations too, whichever comes first.
    SmallVector<OpOperand *> inits;
    if (auto forall = dyn_cast<scf::ForallOp>(op)) {
      for (OpOperand &init : forall.getOutputsMutable())
        inits.push_back(&init);
    } else if (auto dps = dyn_cast<DestinationStyleOpInterface>(op);
               dps && dps.hasPureTensorSemantics()) {
      for (OpOperand &init : dps.getDpsInitsMutable())
        inits.push_back(&init);
    }
    for (OpOperand *init : inits) {
      if (claimed.insert(init->get()).second)
        continue;
      auto fill = init->get().getDefiningOp<linalg::FillOp>();
      auto empty = fill ? fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>()
                        : init->get().getDefiningOp<tensor::EmptyOp>();
      if (!empty || !empty.getDynamicSizes().empty() || (!fill && !empties))
        continue;
      // In the original's block, before what holds `op` there: not inside
      // a loop around `op`, and not allocated long before it is needed.
      Operation *holder = empty->getBlock()->findAncestorOpInBlock(*op);
      if (holder)
        rewriter.setInsertionPoint(holder);
      else
        rewriter.setInsertionPointAfter(empty);
      Value fresh = rewriter.clone(*empty)->getResult(0);
      if (fill) {
        rewriter.setInsertionPoint(op);
        fresh = linalg::FillOp::create(rewriter, fill.getLoc(),
                                       fill.getInputs()[0], fresh)
                    .getResult(0);
      }
      rewriter.modifyOpInPlace(op, [&] { init->set(fresh); });
    }
  });
}

namespace {
struct FuseProducersPass
    : public tessel::impl::FuseProducersPassBase<FuseProducersPass> {
  using FuseProducersPassBase::FuseProducersPassBase;

  /// The `tile-sizes` option in place of the model, checked against the
  /// root (parallel loops only, one size per loop).
  bool useGivenTileSizes(const FusionProblem &problem, FusionTiling &tiling,
                         std::string &why) {
    if (tileSizes.size() != problem.extents.size()) {
      why = "tile-sizes has " + std::to_string(tileSizes.size()) +
            " entries, the op has " + std::to_string(problem.extents.size()) +
            " loops";
      return false;
    }
    SmallVector<int64_t> box(problem.extents);
    tiling.tiles = 1;
    for (auto [d, size] : llvm::enumerate(tileSizes)) {
      if (size < 0 || (size > 0 && !problem.tileable[d])) {
        why = "tile-sizes tiles loop " + std::to_string(d) +
              ", which is a reduction (or the size is negative)";
        return false;
      }
      if (size > 0) {
        box[d] = std::min<int64_t>(size, problem.extents[d]);
        tiling.tiles *= (problem.extents[d] + box[d] - 1) / box[d];
      }
    }
    std::optional<GroupTileCost> cost = problem.costOf(box);
    if (!cost) {
      why = "the footprint of a fused access is not affine";
      return false;
    }
    tiling.tileSizes.assign(tileSizes.begin(), tileSizes.end());
    tiling.perTile = *cost;
    tiling.rationale = "tile sizes given by the tile-sizes option, "
                       "intermediates " +
                       std::to_string(cost->intermediateBytes) + " B per tile";
    return true;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = TargetAttr::lookup(func);
    SmallVector<linalg::LinalgOp> candidates;
    for (Operation &op : func.getBody().getOps())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        if (unfusableReason(linalgOp).empty())
          candidates.push_back(linalgOp);
        else if (std::string why = untileableAccessReason(linalgOp);
                 !why.empty())
          op.emitRemark() << "not tiled: " << why;
      }
    if (candidates.empty())
      return;
    // CPU tiles run on cores; NVIDIA GPU tiles are thread blocks, which
    // tessel-map-tiles-to-gpu builds from the tile loops.
    bool gpu = target && target.getKind() == "nvgpu";
    if (!target || (!target.isCPU() && !gpu)) {
      candidates.back()->emitRemark()
          << "not fused: no #tessel.target of kind cpu or nvgpu (run "
             "tessel-attach-target first)";
      return;
    }
    FusionTarget params =
        gpu ? gpuFusionTarget(target.getSmCount(), target.getSmemPerBlock(),
                              target.getWarpSize())
            : cpuFusionTarget(cpuModelParams(target));

    IRRewriter rewriter(&getContext());
    llvm::SmallPtrSet<Operation *, 16> consumed;
    bool changed = false;
    // Consumers before producers: a producer is either fused into a later
    // op's tiles (and erased) or becomes a root of its own when reached.
    for (linalg::LinalgOp root : llvm::reverse(candidates)) {
      if (consumed.contains(root))
        continue;
      // On a GPU, contractions become kernels only after bufferization, and
      // take the elementwise op that reads their result as their epilogue:
      // it must stay the op right after them.
      // Only an elementwise linalg.generic reading the result in place can
      // be that epilogue; a transpose of it (an NCHW convolution's) is tiled
      // like any other op.
      auto generic = dyn_cast<linalg::GenericOp>(root.getOperation());
      if (gpu && generic &&
          generic.getNumParallelLoops() == generic.getNumLoops() &&
          llvm::any_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
            auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
            return producer &&
                   (linalg::isaContractionOpInterface(producer) ||
                    isa<linalg::ConvolutionOpInterface>(
                        producer.getOperation())) &&
                   generic.getMatchingIndexingMap(input).isIdentity();
          })) {
        root->emitRemark() << "not tiled: it reads a contraction's result, "
                              "which the contraction's GPU kernel applies it "
                              "to as its epilogue";
        continue;
      }
      FusionGroup group = collectFusionGroup(root);
      for (auto &[op, why] : group.materialized)
        op->emitRemark() << "not fused into the tiles of "
                         << group.root->getName() << " at " << group.root->getLoc()
                         << ": " << why;
      FusionProblem problem = describeFusionProblem(group, oncePerTile);
      FusionTiling tiling;
      std::string why;
      // Tiles would give such a reduction one block per tile, too few to
      // fill the GPU, each thread folding a long share alone.
      if (gpu && group.producers.empty() && tileSizes.empty() &&
          prefersSplitOverBlocks(root, target.getSmCount())) {
        root->emitRemark() << "not tiled: few outputs over long reductions, "
                              "which tessel-map-reductions-to-gpu splits "
                              "over several blocks per output";
        continue;
      }
      if (group.producers.empty() && root->getNumResults() > 0 &&
          !isWorthTilingAlone(root, params)) {
        root->emitRemark() << "not tiled: no fusable producer and too little "
                              "work to spread over the "
                           << params.unitName;
        continue;
      }
      if (!tileSizes.empty()) {
        if (!useGivenTileSizes(problem, tiling, why)) {
          root->emitRemark() << "not tiled: " << why;
          continue;
        }
      } else if (!computeFusionTiling(params, problem, tiling, why)) {
        root->emitRemark() << "not tiled: " << why;
        continue;
      }
      InFlightDiagnostic remark = root->emitRemark();
      remark << (group.producers.empty()
                     ? std::string("tiled alone (no fusable producer)")
                     : "fused " + std::to_string(group.producers.size()) +
                           " producer(s) [");
      llvm::interleaveComma(group.producers, remark, [&](linalg::LinalgOp p) {
        remark << p->getName() << " at " << p->getLoc();
      });
      if (!group.producers.empty())
        remark << "] into its tiles";
      remark << ": " << tiling.rationale;
      remark.report();
      for (linalg::LinalgOp p : group.producers)
        consumed.insert(p);
      if (failed(tileAndFuseGroup(rewriter, group, tiling, oncePerTile))) {
        root->emitError() << "tiling and fusing failed";
        return signalPassFailure();
      }
      changed = true;
    }
    if (!changed)
      return;
    // Tiles of tensor.empty as tile-sized tensor.empty: the fused
    // intermediates' destinations, so bufferization allocates a tile.
    {
      RewritePatternSet patterns(&getContext());
      tensor::populateFoldTensorEmptyPatterns(patterns);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }
    makeTileBuffersStatic(rewriter, func);
    // Producers fused per slice (see TileAndFuse.h) may be tiled twice over
    // identical slices; those copies merge here.
    DominanceInfo dom(func);
    eliminateCommonSubExpressions(rewriter, dom, func);
    giveEachOutputItsOwnBuffer(rewriter, func);
    unshareDestinations(rewriter, func, /*empties=*/gpu);
  }
};
} // namespace

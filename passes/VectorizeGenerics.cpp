//===- VectorizeGenerics.cpp - Elementwise and stencil ops to vector code -===//
//
// Each linalg op outside the matmul kernels (elementwise ops, fills,
// stencils; fused tiles included) becomes loops over register blocks of
// vector code:
//   1. stencil taps (reduction loops of a few iterations) are unrolled into
//      shifted operands (Utils/UnrollReductions), so every access is a
//      projected permutation;
//   2. an output initialized by a fill is written directly (the fill value
//      enters the body);
//   3. the op is tiled into blocks of 1 x ... x 1 x (u vectors) along its
//      innermost loop, u from the register file (inputs plus accumulator
//      per vector must fit); the innermost loop is peeled so that all but
//      the last block have static shapes;
//   4. each block is vectorized (upstream linalg::vectorize; the remainder
//      block with masks).
// Reductions along a long innermost loop (row max, row sum) take another
// route: one row at a time, the row in blocks of u vectors accumulated
// into partial results that stay in registers across the row, merged at
// its end (Utils/RowReductions).
//
//===----------------------------------------------------------------------===//
#include "passes/Analysis/FusionGroup.h"
#include "passes/Passes.h"
#include "passes/Utils/KernelSupport.h"
#include "passes/Utils/RowReductions.h"
#include "passes/Utils/UnrollReductions.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"

#define DEBUG_TYPE "tessel-vectorize-generics"

namespace mlir::tessel {
#define GEN_PASS_DEF_VECTORIZEGENERICSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Marks a register block for step 4, with its vector sizes.
static constexpr llvm::StringLiteral kVectorSizesAttr = "tessel.vector_sizes";

/// Marks the block loop of a split row reduction: its partial results are
/// hoisted out of it into registers once vectorized.
static constexpr llvm::StringLiteral kPartialResultsAttr =
    "tessel.partial_results";

/// Vector lanes of the target for elements of `type`.
static int64_t lanesFor(TargetAttr target, Type type) {
  Type element = getElementTypeOrSelf(type);
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
  return std::max<int64_t>(1,
                           target.getVectorBits() / std::max<int64_t>(8, bits));
}

/// Why the recipe leaves `op` alone, or empty.
static std::string unsupportedReason(linalg::LinalgOp op) {
  if (!isa_and_nonnull<func::FuncOp, scf::ForallOp>(op->getParentOp()))
    return "it is inside a loop nest built by another transformation";
  if (!op.hasPureTensorSemantics())
    return "it works on buffers, not tensors";
  if (linalg::isaContractionOpInterface(op))
    return "it is a contraction (tessel-vectorize-matmul's)";
  if (linalg::isaConvolutionOpInterface(op) && !isa<linalg::GenericOp>(op))
    return "it is a convolution (tessel-convert-conv-to-matmul's)";
  for (Value v : op->getOperands()) {
    Type element = getElementTypeOrSelf(v.getType());
    if (!element.isIntOrFloat())
      return "an operand's element type is not an integer or float";
    // A memref holds a byte per i1, but LLVM loads and stores vector<Nxi1>
    // as N packed bits: vectorized accesses would read the wrong elements.
    if (isa<ShapedType>(v.getType()) && element.getIntOrFloatBitWidth() < 8)
      return "an operand holds elements narrower than a byte (i1): vector "
             "accesses would pack them into bits";
  }
  // Upstream's tiling divides by the loop ranges.
  if (llvm::is_contained(op.getStaticLoopRanges(), 0))
    return "a loop has no iterations (a dimension is 0)";
  return {};
}

/// a * b + c as one fused multiply-add in the body of `op` where the
/// product has no other use: what C compilers do by default
/// (-ffp-contract=on); one rounding instead of two, and half the
/// instructions on targets with FMA units.
static void contractMultiplyAdds(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<arith::AddFOp> adds;
  op.getBlock()->walk([&](arith::AddFOp add) { adds.push_back(add); });
  for (arith::AddFOp add : adds) {
    for (unsigned i = 0; i < 2; ++i) {
      auto mul = add->getOperand(i).getDefiningOp<arith::MulFOp>();
      if (!mul || !mul->hasOneUse() || mul->getBlock() != add->getBlock())
        continue;
      rewriter.setInsertionPoint(add);
      Value fma = math::FmaOp::create(rewriter, add.getLoc(), mul.getLhs(),
                                      mul.getRhs(), add->getOperand(1 - i));
      rewriter.replaceOp(add, fma);
      rewriter.eraseOp(mul);
      break;
    }
  }
}

/// a / b as a * (1 / b) in the body of `op` where b is read through a map
/// that does not use the innermost loop (softmax's row sum, a per-row
/// scale): the reciprocal is then invariant in the vectorized inner loop
/// and hoisted out of it, leaving a multiply per element instead of a
/// division (several times the multiply's cost on x86). The result may
/// differ from the division's by an ulp.
static void multiplyByRowReciprocals(RewriterBase &rewriter,
                                     linalg::GenericOp op) {
  if (op.getNumLoops() == 0)
    return;
  unsigned innermost = op.getNumLoops() - 1;
  auto isRowInvariant = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != op.getBody() ||
        arg.getArgNumber() >= op.getNumDpsInputs())
      return false;
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(
        arg.getArgNumber()));
    return !map.isFunctionOfDim(innermost);
  };
  SmallVector<arith::DivFOp> divisions;
  op.getBody()->walk([&](arith::DivFOp div) {
    if (isRowInvariant(div.getRhs()) && !isRowInvariant(div.getLhs()))
      divisions.push_back(div);
  });
  for (arith::DivFOp div : divisions) {
    rewriter.setInsertionPoint(div);
    Location loc = div.getLoc();
    Value one = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(div.getType(), 1.0));
    Value reciprocal = arith::DivFOp::create(rewriter, loc, one, div.getRhs());
    rewriter.replaceOpWithNewOp<arith::MulFOp>(div, div.getLhs(), reciprocal);
  }
}

namespace {
struct VectorizeGenericsPass
    : public tessel::impl::VectorizeGenericsPassBase<VectorizeGenericsPass> {
  using VectorizeGenericsPassBase::VectorizeGenericsPassBase;

  /// Steps 1 and 2; returns the op to tile or failure (remark emitted).
  FailureOr<linalg::LinalgOp> makeElementwise(RewriterBase &rewriter,
                                              linalg::LinalgOp op) {
    bool shifted = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
      return !op.getMatchingIndexingMap(in).isProjectedPermutation();
    });
    if (op.getNumReductionLoops() > 0 || shifted) {
      std::string why;
      FailureOr<linalg::GenericOp> unrolled =
          unrollSmallReductions(rewriter, op, kMaxStencilWindow, why);
      if (failed(unrolled)) {
        op->emitRemark() << "not vectorized: " << why;
        return failure();
      }
      op = *unrolled;
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
      foldFillIntoElementwise(rewriter, generic);
    return op;
  }

  /// Set when fusing a row producer failed after upstream had rewritten
  /// loops (error emitted): the IR may be invalid.
  bool irInvalidated_ = false;

  /// Steps 1 and 2 plus the body rewrites of elementwise ops; failure
  /// (remark emitted) when the op cannot be made elementwise.
  FailureOr<linalg::LinalgOp> prepareElementwise(RewriterBase &rewriter,
                                                 linalg::LinalgOp op,
                                                 bool hasFMA) {
    FailureOr<linalg::LinalgOp> made = makeElementwise(rewriter, op);
    if (failed(made))
      return failure();
    if (auto generic = dyn_cast<linalg::GenericOp>(made->getOperation()))
      multiplyByRowReciprocals(rewriter, generic);
    if (hasFMA)
      contractMultiplyAdds(rewriter, *made);
    return made;
  }

  /// A long innermost reduction split into row-by-row vector partial
  /// results; false (no remark) when `op` is not one. The elementwise
  /// producer of its input, when there is one, is computed inside its
  /// loops: its block-sized copy goes to `elementwise`, the erased
  /// original to `erased`.
  bool splitLongReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                          TargetAttr target, bool hasFMA,
                          SmallVectorImpl<linalg::LinalgOp> &elementwise,
                          llvm::SmallPtrSetImpl<Operation *> &erased) {
    if (!reassociateReductions || op.getNumReductionLoops() == 0)
      return false;
    int64_t lanes = lanesFor(target, op->getResult(0).getType());
    std::string unsupported =
        rowReductionUnsupportedReason(op, lanes, kMaxStencilWindow);
    if (unsupported == kRowReductionReadsLoopIndex)
      op->emitRemark() << "row reduction not split into vector partial "
                          "results: "
                       << unsupported;
    if (!unsupported.empty())
      return false;
    int64_t extent = op.getStaticLoopRanges().back();
    Location loc = op.getLoc();
    FailureOr<RowReductionSplit> split =
        splitRowReduction(rewriter, op, lanes, /*maxVectors=*/4);
    if (failed(split)) {
      emitRemark(loc) << "not vectorized: splitting its reduction of "
                      << extent << " iterations into partial results failed";
      return true;
    }
    for (linalg::LinalgOp part :
         {split->initialize, split->accumulate, split->merge})
      part->setAttr(kVectorSizesAttr, rewriter.getDenseI64ArrayAttr(
                                          part.getStaticLoopRanges()));
    if (hasFMA)
      contractMultiplyAdds(rewriter, split->accumulate);
    emitRemark(loc) << "row reduction of " << extent
                    << " iterations vectorized: one row at a time, in blocks "
                       "of "
                    << split->block << " lanes accumulated into "
                    << split->block / lanes
                    << " vector(s) of partial results kept in registers, "
                       "merged once per row (floating-point sums "
                       "reassociated)";
    // Tagged once the loops are final (fusing a producer rebuilds them).
    llvm::scope_exit tagBlockLoop([&] {
      split->blockLoop->setAttr(kPartialResultsAttr, rewriter.getUnitAttr());
    });
    if (!fuseRowProducers)
      return true;
    std::string why;
    bool irInvalidated = false;
    FailureOr<FusedRowProducer> fused =
        fuseProducerIntoRowReduction(rewriter, *split, why, irInvalidated);
    if (failed(fused)) {
      if (irInvalidated) {
        tagBlockLoop.release(); // The loop may be gone.
        emitError(loc) << "computing its input's producer in its loops "
                          "failed midway: "
                       << why;
        irInvalidated_ = true;
      } else if (!why.empty()) {
        emitRemark(loc) << "its input's producer stays a nest of its own: "
                        << why;
      }
      return true;
    }
    if (fused->erased)
      erased.insert(fused->erased);
    if (fused->tiled) {
      FailureOr<linalg::LinalgOp> made =
          prepareElementwise(rewriter, fused->tiled, hasFMA);
      if (succeeded(made))
        elementwise.push_back(*made);
    }
    emitRemark(loc) << "its input's producer (" << fused->name << " at "
                    << *fused->loc
                    << ") computed in the same loops, one block at a time "
                       "(the loops also yield its whole result for its "
                       "other users): one pass over the tile less";
    return true;
  }

  /// Step 3: register blocks along the innermost loop.
  LogicalResult tileForRegisters(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t lanes, int64_t registers) {
    unsigned loops = op.getNumLoops();
    if (loops == 0)
      return success();
    // Each vector of the block needs a register per input plus one for the
    // result; keep a quarter of the file for addresses of masks and
    // temporaries. Four vectors hide the FMA latency of a dependent chain.
    int64_t perVector = op.getNumDpsInputs() + 1;
    int64_t unroll = std::clamp<int64_t>(registers * 3 / 4 / perVector, 1, 4);
    int64_t block = lanes * unroll;
    SmallVector<int64_t> sizes(loops, 1);
    sizes.back() = block;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // Vector sizes: the block, or the whole (static) extent when smaller;
    // loops the block covers are not tiled.
    SmallVector<int64_t> vectorSizes;
    bool needsTiling = false;
    for (auto [s, r] : llvm::zip(sizes, ranges)) {
      bool covered = !ShapedType::isDynamic(r) && s >= r;
      vectorSizes.push_back(covered ? r : s);
      if (covered)
        s = 0;
      needsTiling |= s != 0;
    }
    if (!needsTiling) {
      op->setAttr(kVectorSizesAttr, rewriter.getDenseI64ArrayAttr(ranges));
      return success();
    }
    scf::SCFTilingOptions options;
    options.setTileSizes(
        getAsIndexOpFoldResult(rewriter.getContext(), sizes));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()),
                          options);
    if (failed(tiled))
      return op->emitError("tiling for registers failed");
    rewriter.replaceOp(op, tiled->replacements);
    Operation *blockOp = tiled->tiledOps.back();
    blockOp->setAttr(kVectorSizesAttr,
                     rewriter.getDenseI64ArrayAttr(vectorSizes));
    // Peel the innermost loop when it is the block loop and does not divide
    // evenly: whole blocks get static shapes.
    int64_t last = ranges.back();
    bool peel = sizes.back() != 0 &&
                (ShapedType::isDynamic(last) || last % sizes.back() != 0);
    if (peel && !tiled->loops.empty())
      if (auto inner = dyn_cast<scf::ForOp>(tiled->loops.back().getOperation())) {
        scf::ForOp remainder;
        (void)scf::peelForLoopAndSimplifyBounds(rewriter, inner, remainder);
      }
    return success();
  }

  void runOnOperation() override {
    irInvalidated_ = false;
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    TargetAttr target = TargetAttr::lookup(func);
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      std::string why = unsupportedReason(op);
      if (why.empty())
        ops.push_back(op);
      else if (op.hasPureTensorSemantics() &&
               isa_and_nonnull<func::FuncOp>(op->getParentOp()))
        op->emitRemark() << "not vectorized here: " << why;
    });
    if (ops.empty())
      return;
    if (!target || !target.isCPU() || target.getVectorBits() <= 0) {
      ops.front()->emitRemark() << "not vectorized: no #tessel.target of kind "
                                   "cpu with a vector width";
      return;
    }
    bool hasFMA = tessel::targetEnablesFeature(target, "fma");
    IRRewriter rewriter(ctx);
    // Steps 1 and 2, consumers first: a fill is folded into the op that
    // reads it before the fill itself would be vectorized.
    SmallVector<linalg::LinalgOp> elementwise;
    // Producers computed inside the loops of the reduction they feed.
    llvm::SmallPtrSet<Operation *, 4> erased;
    for (linalg::LinalgOp op : llvm::reverse(ops)) {
      if (erased.contains(op.getOperation()))
        continue;
      if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation())) {
        if (fill->use_empty()) {
          rewriter.eraseOp(fill);
          continue;
        }
        elementwise.push_back(op);
        continue;
      }
      // Named elementwise ops as generics.
      if (!isa<linalg::GenericOp>(op)) {
        rewriter.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generic)) {
          op->emitRemark() << "not vectorized: cannot be generalized";
          continue;
        }
        op = *generic;
      }
      if (splitLongReduction(rewriter, op, target, hasFMA, elementwise,
                             erased)) {
        // Nothing more can be done safely on IR a failed rewrite left.
        if (irInvalidated_)
          return signalPassFailure();
        continue;
      }
      FailureOr<linalg::LinalgOp> made =
          prepareElementwise(rewriter, op, hasFMA);
      if (succeeded(made))
        elementwise.push_back(*made);
    }
    // Step 3.
    for (linalg::LinalgOp op : elementwise) {
      if (isa<linalg::FillOp>(op) && op->use_empty()) {
        rewriter.eraseOp(op);
        continue;
      }
      int64_t lanes = lanesFor(target, op->getResult(0).getType());
      if (failed(tileForRegisters(rewriter, op, lanes,
                                  target.getVectorRegisters())))
        return signalPassFailure();
    }
    // Peeled blocks get static slice sizes.
    OpPassManager cleanup(func::FuncOp::getOperationName());
    cleanup.addPass(createCanonicalizerPass());
    if (failed(runPipeline(cleanup, func)))
      return signalPassFailure();
    // Step 4.
    SmallVector<linalg::LinalgOp> blocks;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kVectorSizesAttr))
        blocks.push_back(op);
    });
    for (linalg::LinalgOp op : blocks) {
      auto sizes = op->getAttrOfType<DenseI64ArrayAttr>(kVectorSizesAttr);
      op->removeAttr(kVectorSizesAttr);
      SmallVector<int64_t> vectorSizes;
      if (op.hasDynamicShape())
        vectorSizes.assign(sizes.asArrayRef().begin(), sizes.asArrayRef().end());
      rewriter.setInsertionPoint(op);
      if (failed(linalg::vectorizeOpPrecondition(op, vectorSizes))) {
        op->emitRemark() << "not vectorized: the linalg vectorizer rejects "
                            "this block";
        continue;
      }
      // Scalable flags spelled out: an empty list yields mask types that
      // differ from the transfers' expected ones.
      SmallVector<bool> scalable(vectorSizes.size(), false);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, op, vectorSizes, scalable);
      if (failed(vectorized))
        return signalPassFailure();
      rewriter.replaceOp(op, vectorized->replacements);
    }
    // Masked transfers as transfers with mask operands (what the transfer
    // lowerings after bufferization handle); transfers of slices as
    // transfers of the sliced tensor, so no slice is copied in and out.
    RewritePatternSet patterns(ctx);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    // The merges of split reductions (vector.multi_reduction along the
    // innermost dimension) as one vector.reduction per row, which LLVM
    // lowers to a shuffle tree (the pipeline lets it reassociate).
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    // Row max/min merges as trees (LLVM would scalarize them).
    populateMinMaxReductionTreePatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
    // The partial results of split reductions out of their block loops:
    // their read and write at a fixed position become a loop-carried
    // vector.
    SmallVector<scf::ForOp> blockLoops;
    func.walk([&](scf::ForOp loop) {
      if (loop->removeAttr(kPartialResultsAttr))
        blockLoops.push_back(loop);
    });
    for (scf::ForOp loop : blockLoops)
      hoistLoopInvariantSubsets(rewriter, loop);
  }
};
} // namespace

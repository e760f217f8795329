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
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Analysis/FusionGroup.h"
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
#include "mlir/Transforms/Passes.h"

#define DEBUG_TYPE "tessel-vectorize-generics"

namespace mlir::tessel {
#define GEN_PASS_DEF_VECTORIZEGENERICSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Marks a register block for step 4, with its vector sizes.
static constexpr llvm::StringLiteral kVectorSizesAttr = "tessel.vector_sizes";

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
  for (Value v : op->getOperands())
    if (!getElementTypeOrSelf(v.getType()).isIntOrFloat())
      return "an operand's element type is not an integer or float";
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
    bool hasFMA = target.getFeatures().contains("+fma");
    IRRewriter rewriter(ctx);
    // Steps 1 and 2, consumers first: a fill is folded into the op that
    // reads it before the fill itself would be vectorized.
    SmallVector<linalg::LinalgOp> elementwise;
    for (linalg::LinalgOp op : llvm::reverse(ops)) {
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
      FailureOr<linalg::LinalgOp> made = makeElementwise(rewriter, op);
      if (failed(made))
        continue;
      if (hasFMA)
        contractMultiplyAdds(rewriter, *made);
      elementwise.push_back(*made);
    }
    // Step 3.
    for (linalg::LinalgOp op : elementwise) {
      if (isa<linalg::FillOp>(op) && op->use_empty()) {
        rewriter.eraseOp(op);
        continue;
      }
      Type element = getElementTypeOrSelf(op->getResult(0).getType());
      int64_t bits =
          element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
      int64_t lanes = std::max<int64_t>(
          1, target.getVectorBits() / std::max<int64_t>(8, bits));
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
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

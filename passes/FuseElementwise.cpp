//===- FuseElementwise.cpp - Inline elementwise producers into consumers --===//
//
// An elementwise linalg.generic whose every reader can take its body
// (upstream's areElementwiseOpsFusable) is inlined into them by upstream's
// fuseElementwiseOps, when CostModel/ElementwiseFusion says the recomputed
// work (a stencil reads each element several times) costs no more than the
// store it saves. Upstream's own pass (linalg-fuse-elementwise-ops) fuses
// whatever is legal, one consumer at a time, and keeps a producer that
// another op still reads: a 3x3 box sum of exp(x) would evaluate the exp
// nine times per element. Here a producer is fused into all its readers or
// none, so the intermediate always disappears.
//
//===----------------------------------------------------------------------===//
#include "passes/Analysis/FusionGroup.h"
#include "passes/CostModel/ElementwiseFusion.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

#include <cstdio>

#define DEBUG_TYPE "tessel-fuse-elementwise"

namespace mlir::tessel {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

static std::string formatCost(double cost) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", cost);
  return text;
}

/// Inlines `producer` into every op that reads it and erases it.
static LogicalResult fuseIntoAllConsumers(RewriterBase &rewriter,
                                          linalg::GenericOp producer) {
  // The ops fusion created that still exist.
  llvm::SmallPtrSet<Operation *, 4> fused;
  Value result = producer->getResult(0);
  while (!result.use_empty()) {
    OpOperand &use = *result.getUses().begin();
    auto consumer = cast<linalg::GenericOp>(use.getOwner());
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> fusion =
        linalg::fuseElementwiseOps(rewriter, &use);
    if (failed(fusion))
      return failure();
    // The fused op also yields the producer's result while other readers
    // remain; that extra result is left unused and removed below.
    for (OpResult old : consumer->getResults())
      rewriter.replaceAllUsesWith(old, fusion->replacements.lookup(old));
    fused.erase(consumer);
    rewriter.eraseOp(consumer);
    fused.insert(fusion->fusedOp);
  }
  rewriter.eraseOp(producer);
  // Inputs read twice through the same map (a producer and its consumer
  // both reading x) read once, and the producer results kept while other
  // readers remained (all dead now) dropped, so that the fused op can be
  // judged as a single-result producer in turn. (The rewrite creates its
  // op at the insertion point.)
  for (Operation *op : fused) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::deduplicateOperandsAndRemoveDeadResults(
            rewriter, cast<linalg::GenericOp>(op), /*removeOutputs=*/true)))
      return failure();
  }
  return success();
}

namespace {
struct FuseElementwisePass
    : public tessel::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using FuseElementwisePassBase::FuseElementwisePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    llvm::SmallPtrSet<Operation *, 8> remarked;
    // Producers first: a chain a -> b -> c inlines a into b, then the
    // merged b (with a's cost in its body) is judged for c.
    for (bool progress = true; progress;) {
      progress = false;
      SmallVector<linalg::GenericOp> generics = fusableGenerics(func);
      for (linalg::GenericOp producer : generics) {
        std::string why;
        std::optional<ElementwiseFusionEstimate> estimate =
            estimateElementwiseFusion(producer, why);
        if (!estimate) {
          if (!why.empty() && remarked.insert(producer).second)
            producer->emitRemark() << "not inlined into its consumers: " << why;
          continue;
        }
        std::string perElement =
            "each element evaluated " +
            formatCost(estimate->evaluationsPerElement) + " times at " +
            formatCost(estimate->costPerEvaluation) + " ops" +
            (estimate->becomesFma
                 ? std::string(" (its multiply becomes an FMA with the "
                               "consumer's add)")
                 : std::string());
        if (!estimate->profitable()) {
          if (remarked.insert(producer).second)
            producer->emitRemark()
                << "not inlined into its consumers: " << perElement
                << " recomputes " << formatCost(estimate->recomputedCost)
                << " ops per element, more than the "
                << formatCost(estimate->savedCost) << " its store costs";
          continue;
        }
        llvm::SmallPtrSet<Operation *, 4> consumers;
        for (Operation *user : producer->getUsers())
          consumers.insert(user);
        producer->emitRemark()
            << "inlined into " << consumers.size()
            << " consumer(s): " << perElement << " ("
            << formatCost(estimate->recomputedCost)
            << " recomputed ops per element, no "
            << producer->getResult(0).getType() << " intermediate)";
        if (failed(fuseIntoAllConsumers(rewriter, producer))) {
          producer->emitError() << "inlining into a consumer failed after "
                                   "the model had accepted it";
          return signalPassFailure();
        }
        progress = true;
        break; // The op list is stale.
      }
    }
  }
};
} // namespace

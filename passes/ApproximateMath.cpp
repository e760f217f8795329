//===- ApproximateMath.cpp - Polynomial approximations of f32 math --------===//
#include "passes/Passes.h"
#include "passes/Utils/ErfApproximation.h"
#include "passes/Utils/KernelSupport.h"
#include "passes/Utils/SubnormalLogs.h"
#include "passes/Utils/X86MathApproximations.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tessel-approximate-math"

namespace mlir::tessel {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct ApproximateMathPass
    : public tessel::impl::ApproximateMathPassBase<ApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    // Upstream's rewrites handle scalars and vectors only; math on tensors
    // (which elementwise-to-linalg turns into scalar code later) is skipped.
    SmallVector<Operation *> mathOps;
    getOperation().walk([&](Operation *op) {
      if (isa_and_nonnull<math::MathDialect>(op->getDialect()) &&
          llvm::none_of(op->getOperandTypes(), llvm::IsaPred<TensorType>))
        mathOps.push_back(op);
    });
    if (mathOps.empty())
      return;
    // Subnormal inputs of log and log2 first: the approximation clamps them.
    OpBuilder builder(&getContext());
    for (Operation *&op : mathOps)
      if (Operation *log = tessel::rescaleSubnormalLogInput(builder, op))
        op = log;
    RewritePatternSet patterns(&getContext());
    if (targetInstructions &&
        tessel::targetHasAVX512Feature(
            tessel::TargetAttr::lookup(getOperation()), "avx512f"))
      tessel::populateAVX512ExpApproximationPatterns(patterns);
    // erf as one rational function (no interval selects): GELU epilogues.
    tessel::populateRationalErfApproximationPatterns(patterns);
    // Upstream's default set: f32 expansions plus the polynomial rewrites,
    // without target-specific (AVX2) intrinsics so every target can use it.
    populateMathPolynomialApproximationPatterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(mathOps, std::move(patterns), config)))
      getOperation().emitRemark()
          << "math approximation did not converge; remaining math ops go "
             "to libm";
  }
};
} // namespace

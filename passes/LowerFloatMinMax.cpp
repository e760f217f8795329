//===- LowerFloatMinMax.cpp - Float maximum / minimum as AVX-512DQ vrange -===//
//
// Runs the patterns of Utils/X86MinMax.h over a function whose target has
// AVX-512DQ and 512-bit vectors. Elsewhere the ops are left to LLVM's
// portable expansion.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "passes/Utils/KernelSupport.h"
#include "passes/Utils/X86MinMax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tessel-lower-float-minmax"

namespace mlir::tessel {
#define GEN_PASS_DEF_LOWERFLOATMINMAXPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct LowerFloatMinMaxPass
    : public tessel::impl::LowerFloatMinMaxPassBase<LowerFloatMinMaxPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!tessel::targetHasAVX512Feature(tessel::TargetAttr::lookup(func),
                                        "avx512dq"))
      return;
    RewritePatternSet patterns(&getContext());
    tessel::populateAVX512DQMinMaxPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

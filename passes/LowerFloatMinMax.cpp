//===- LowerFloatMinMax.cpp - Float maximum / minimum as AVX-512DQ vrange -===//
//
// Runs the patterns of Utils/X86MinMax.h over a function whose target has
// AVX-512DQ and 512-bit vectors. Elsewhere the ops are left to LLVM's
// portable expansion.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Tessel/TesselDialect.h"
#include "passes/Utils/X86MinMax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/TargetParser/Triple.h"

#define DEBUG_TYPE "tessel-lower-float-minmax"

namespace mlir::tessel {
#define GEN_PASS_DEF_LOWERFLOATMINMAXPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
/// Whether the last +/-`feature` in the target's feature list (LLVM's
/// rule) is +.
bool hasFeature(tessel::TargetAttr target, StringRef feature) {
  SmallVector<StringRef> features;
  target.getFeatures().split(features, ',');
  bool enabled = false;
  for (StringRef f : features) {
    f = f.trim();
    if (f.drop_front() != feature)
      continue;
    enabled = f.starts_with("+");
  }
  return enabled;
}

struct LowerFloatMinMaxPass
    : public tessel::impl::LowerFloatMinMaxPassBase<LowerFloatMinMaxPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    tessel::TargetAttr target = tessel::TargetAttr::lookup(func);
    // 512-bit vectors only: a 256-bit description asks for no zmm code.
    if (!target || !target.isCPU() ||
        !llvm::Triple(target.getTriple()).isX86() ||
        target.getVectorBits() < 512 || !hasFeature(target, "avx512dq"))
      return;
    RewritePatternSet patterns(&getContext());
    tessel::populateAVX512DQMinMaxPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

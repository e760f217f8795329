//===- ExpandBF16Conversions.cpp - bf16 conversions as integer arithmetic -===//
//
// LLVM lowers an f32 -> bf16 `fptrunc` to one instruction only where the
// CPU has one (x86: AVX512-BF16 or AVX-NE-CONVERT; AArch64: BF16); elsewhere
// it calls compiler-rt's __truncsfbf2, also after each bf16 add or max, which
// it computes in f32. GCC 12's libgcc (Debian 12) lacks that function, so a
// shared object linked the usual way has it undefined and does not link.
// This pass makes the f32 computation explicit (upstream's float emulation,
// extended to math ops) and then the conversions integer arithmetic
// (upstream's bf16 expansion). Upstream's arith-expand{include-bf16} would do
// the second step, but it also expands maximumf/minimumf into compares that
// ignore the order of signed zeros, so only the bf16 patterns are applied,
// and only where the target needs them.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "passes/Utils/KernelSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/TargetParser/Triple.h"

#define DEBUG_TYPE "tessel-expand-bf16-conversions"

namespace mlir::tessel {
#define GEN_PASS_DEF_EXPANDBF16CONVERSIONSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

/// Whether LLVM converts f32 to bf16 inline for `target`'s CPU. GPU targets
/// do (and their host code has no bf16 arithmetic).
static bool convertsBF16Natively(tessel::TargetAttr target) {
  if (!target || !target.isCPU())
    return true;
  llvm::Triple triple(target.getTriple());
  if (triple.isX86())
    return tessel::targetEnablesFeature(target, "avx512bf16") ||
           tessel::targetEnablesFeature(target, "avxneconvert");
  if (triple.isAArch64())
    return tessel::targetEnablesFeature(target, "bf16");
  return false;
}

namespace {
struct ExpandBF16ConversionsPass
    : public tessel::impl::ExpandBF16ConversionsPassBase<
          ExpandBF16ConversionsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!always && convertsBF16Natively(tessel::TargetAttr::lookup(func)))
      return;
    // Rewriting the scalar bodies of linalg ops would break the named ones
    // (a matmul's body must stay its multiply-add): the pass runs once
    // they are loops.
    linalg::LinalgOp structured;
    func.walk([&](linalg::LinalgOp op) {
      structured = op;
      return WalkResult::interrupt();
    });
    if (structured) {
      structured->emitRemark()
          << "bf16 conversions not expanded: linalg ops are not lowered to "
             "loops yet (run this pass after tessel-lower-linalg-to-affine)";
      return;
    }
    MLIRContext *context = &getContext();
    // bf16 arithmetic (arith, math, vector reductions and contractions) in
    // f32 between explicit conversions: LLVM would do the same, with calls.
    TypeConverter converter;
    arith::populateEmulateUnsupportedFloatsConversions(
        converter, {BFloat16Type::get(context)}, Float32Type::get(context));
    RewritePatternSet emulation(context);
    arith::populateEmulateUnsupportedFloatsPatterns(emulation, converter);
    ConversionTarget target(*context);
    arith::populateEmulateUnsupportedFloatsLegality(target, converter);
    target.addDynamicallyLegalDialect<math::MathDialect>(
        [&](Operation *op) -> std::optional<bool> {
          return converter.isLegal(op);
        });
    if (failed(applyPartialConversion(func, target, std::move(emulation))))
      return signalPassFailure();
    // The emulation marks its conversions `contract`, which lets extf(truncf)
    // fold away: the f32 result would flow on unrounded. Each op's result is
    // rounded to bf16 as the program says (as LLVM's promotion does).
    func.walk([](Operation *op) {
      if (isa<arith::TruncFOp, arith::ExtFOp>(op))
        if (auto flags = dyn_cast<arith::ArithFastMathInterface>(op))
          op->setAttr(flags.getFastMathAttrName(),
                      arith::FastMathFlagsAttr::get(
                          op->getContext(), arith::FastMathFlags::none));
    });
    RewritePatternSet expansion(context);
    arith::populateExpandBFloat16Patterns(expansion);
    if (failed(applyPatternsGreedily(func, std::move(expansion))))
      signalPassFailure();
  }
};
} // namespace

//===- FinalizeTarget.cpp - #tessel.target → LLVM attributes --------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#define DEBUG_TYPE "tessel-finalize-target"

namespace mlir::tessel {
#define GEN_PASS_DEF_FINALIZETARGETPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {
struct FinalizeTargetPass
    : public tessel::impl::FinalizeTargetPassBase<FinalizeTargetPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Whatever sits under the name goes: the output must be plain upstream IR.
    auto target = dyn_cast_or_null<TargetAttr>(
        module->removeAttr(TesselDialect::getTargetAttrName()));
    if (!target || !target.isCPU())
      return;

    MLIRContext *ctx = &getContext();
    if (!target.getTriple().empty())
      module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                      StringAttr::get(ctx, target.getTriple()));
    StringAttr cpu = target.getChip().empty()
                         ? StringAttr()
                         : StringAttr::get(ctx, target.getChip());
    LLVM::TargetFeaturesAttr features =
        target.getFeatures().empty()
            ? LLVM::TargetFeaturesAttr()
            : LLVM::TargetFeaturesAttr::get(ctx, target.getFeatures());
    module.walk([&](LLVM::LLVMFuncOp func) {
      if (func.isExternal())
        return;
      if (cpu)
        func.setTargetCpuAttr(cpu);
      if (features)
        func.setTargetFeaturesAttr(features);
    });
  }
};
} // namespace

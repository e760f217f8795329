//===- ConvertAMDGPUToROCDL.cpp - amdgpu ops for the target's chip --------===//
//
// Upstream's convert-gpu-to-rocdl and convert-amdgpu-to-rocdl take the
// chipset as a pass option, which a textual pipeline fixes for every chip.
// Tessel's pipelines name no chip (tessel-attach-target or --target-options
// choose it), so this pass runs upstream's AMDGPU -> ROCDL patterns with the
// chipset of the gpu.module's #rocdl.target (tessel-attach-gpu-target put
// the #tessel.target's chip there): amdgpu.mfma and amdgpu.wmma become the
// chip's intrinsics, or an error where the chip has no such instruction.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/AMDGPU/Utils/Chipset.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "tessel-convert-amdgpu-to-rocdl"

namespace mlir::tessel {
#define GEN_PASS_DEF_CONVERTAMDGPUTOROCDLPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {
struct ConvertAMDGPUToROCDLPass
    : public tessel::impl::ConvertAMDGPUToROCDLPassBase<
          ConvertAMDGPUToROCDLPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    Operation *first = nullptr;
    module.walk([&](Operation *op) {
      if (!first && isa_and_nonnull<amdgpu::AMDGPUDialect>(op->getDialect()))
        first = op;
    });
    if (!first)
      return;
    ROCDL::ROCDLTargetAttr rocdl;
    if (ArrayAttr targets = module.getTargetsAttr())
      for (Attribute t : targets)
        if ((rocdl = dyn_cast<ROCDL::ROCDLTargetAttr>(t)))
          break;
    if (!rocdl) {
      first->emitError() << "cannot lower amdgpu ops: gpu.module @"
                         << module.getSymName()
                         << " has no #rocdl.target naming the chip (run "
                            "tessel-attach-gpu-target first)";
      return signalPassFailure();
    }
    FailureOr<amdgpu::Chipset> chipset =
        amdgpu::Chipset::parse(rocdl.getChip());
    if (failed(chipset)) {
      first->emitError() << "cannot lower amdgpu ops: '" << rocdl.getChip()
                         << "' is not an AMDGPU chip name";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx, DataLayout(module));
    LLVMTypeConverter converter(ctx, options);
    RewritePatternSet patterns(ctx);
    populateAMDGPUToROCDLConversionPatterns(converter, patterns, *chipset);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<amdgpu::AMDGPUDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

//===- LowerTMADescriptors.cpp - Host TMA descriptors to runtime calls ----===//
//
// nvgpu.tma.create.descriptor runs on the host, and kernels read the
// descriptor through a pointer. Upstream lowers it inside
// convert-nvgpu-to-nvvm, which has to run on the whole module before
// outlining for the kernels to receive plain pointers; but that conversion
// also rewrites every other nvgpu op in the launch bodies, and fails on the
// WMMA kernels, whose loops carry gpu.mma_matrix values its type converter
// does not know. This pass converts only the descriptor ops (with
// upstream's pattern: the same runtime call, mgpuTensorMapEncodeTiledMemref)
// and hands each kernel the pointer, cast back to the descriptor type inside
// the launch body, so outlining passes a pointer.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "tessel-lower-tma-descriptors"

namespace mlir::tessel {
#define GEN_PASS_DEF_LOWERTMADESCRIPTORSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct LowerTMADescriptorsPass
    : public tessel::impl::LowerTMADescriptorsPassBase<
          LowerTMADescriptorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](nvgpu::TmaCreateDescriptorOp op) {
      if (op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<gpu::GPUModuleOp>()) {
        op->emitError("a TMA descriptor is created on the host; this one is "
                      "inside a kernel");
        signalPassFailure();
        return;
      }
      any = true;
    });
    if (!any)
      return;
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.addIllegalOp<nvgpu::TmaCreateDescriptorOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // The conversion leaves pointer -> descriptor casts after the calls.
    // Uses inside a launch get a cast of their own at the body's start, so
    // the launch captures the pointer.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp cast) {
      if (cast->getNumOperands() == 1 && cast->getNumResults() == 1 &&
          isa<LLVM::LLVMPointerType>(cast.getOperand(0).getType()) &&
          isa<nvgpu::TensorMapDescriptorType>(cast.getResult(0).getType()) &&
          !cast->getParentOfType<gpu::LaunchOp>())
        casts.push_back(cast);
    });
    OpBuilder b(ctx);
    for (UnrealizedConversionCastOp cast : casts) {
      DenseMap<Operation *, Value> perLaunch;
      for (OpOperand &use : llvm::make_early_inc_range(cast->getUses())) {
        auto launch = use.getOwner()->getParentOfType<gpu::LaunchOp>();
        if (!launch)
          continue;
        Value &inside = perLaunch[launch];
        if (!inside) {
          b.setInsertionPointToStart(&launch.getBody().front());
          inside = UnrealizedConversionCastOp::create(
                       b, cast.getLoc(), cast.getResult(0).getType(),
                       cast.getOperand(0))
                       .getResult(0);
        }
        use.set(inside);
      }
      if (cast->use_empty())
        cast->erase();
    }
  }
};
} // namespace

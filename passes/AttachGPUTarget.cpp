//===- AttachGPUTarget.cpp - #tessel.target → #nvvm/#rocdl.target --------===//
#include "passes/CostModel/KernelRegisterLimit.h"
#include "passes/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#define DEBUG_TYPE "tessel-attach-gpu-target"

namespace mlir::tessel {
#define GEN_PASS_DEF_ATTACHGPUTARGETPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Debian's ROCm device libraries (rocm-device-libs 5.2) ship ABI versions
/// 400 and 500 only; upstream's default of 600 would look for bitcode that
/// is not there.
static constexpr StringLiteral kROCDLAbiVersion = "500";

/// What the register limit needs of `kernel`: its block size, its shared
/// memory (workgroup attributions plus the largest constant dynamic size
/// its launches in `module` ask for; unknown when one is not constant), and
/// whether it streams (holds no tensor-core op).
static KernelResources kernelResources(gpu::GPUFuncOp kernel,
                                       gpu::GPUModuleOp gpuModule,
                                       ModuleOp module) {
  KernelResources resources;
  if (std::optional<ArrayRef<int32_t>> blockSize = kernel.getKnownBlockSize()) {
    resources.threads = 1;
    for (int32_t extent : *blockSize)
      resources.threads *= std::max<int64_t>(extent, 1);
  }
  DataLayout layout = DataLayout::closest(kernel);
  int64_t shared = 0;
  for (BlockArgument buffer : kernel.getWorkgroupAttributions())
    if (auto type = dyn_cast<MemRefType>(buffer.getType());
        type && type.hasStaticShape())
      shared += type.getNumElements() *
                static_cast<int64_t>(layout.getTypeSize(type.getElementType()));
  int64_t dynamicShared = 0;
  bool known = true;
  module.walk([&](gpu::LaunchFuncOp launch) {
    if (launch.getKernelModuleName() != gpuModule.getSymName() ||
        launch.getKernelName() != kernel.getName())
      return;
    if (Value size = launch.getDynamicSharedMemorySize()) {
      std::optional<int64_t> bytes = getConstantIntValue(size);
      if (!bytes)
        known = false;
      else
        dynamicShared = std::max(dynamicShared, *bytes);
    }
  });
  resources.sharedBytes =
      known ? std::optional<int64_t>(shared + dynamicShared) : std::nullopt;
  resources.streaming =
      !kernel
           .walk([](Operation *op) {
             return isa<gpu::SubgroupMmaComputeOp,
                        gpu::SubgroupMmaLoadMatrixOp>(op) ||
                            isa_and_nonnull<nvgpu::NVGPUDialect>(
                                op->getDialect())
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           })
           .wasInterrupted();
  return resources;
}

namespace {
struct AttachGPUTargetPass
    : public tessel::impl::AttachGPUTargetPassBase<AttachGPUTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = TargetAttr::lookup(module);
    if (!target || !target.isGPU()) {
      module.emitOpError() << "needs a #tessel.target of kind nvgpu or amdgpu "
                            "(run tessel-attach-target{kind=nvgpu|amdgpu} "
                            "first)";
      return signalPassFailure();
    }
    auto emitError = [&] { return module.emitError(); };
    Attribute deviceTarget;
    if (target.getKind() == "nvgpu")
      deviceTarget = NVVM::NVVMTargetAttr::getChecked(
          emitError, &getContext(), static_cast<int>(optLevel), target.getTriple(),
          target.getChip(), target.getFeatures());
    else
      deviceTarget = ROCDL::ROCDLTargetAttr::getChecked(
          emitError, &getContext(), static_cast<int>(optLevel), target.getTriple(),
          target.getChip(), target.getFeatures(), StringRef(kROCDLAbiVersion));
    if (!deviceTarget)
      return signalPassFailure();

    ArrayAttr targets = ArrayAttr::get(&getContext(), {deviceTarget});
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      gpuModule.setTargetsAttr(targets);
      // NVIDIA kernels state their register limit (.maxnreg), from the
      // model in CostModel/KernelRegisterLimit.h.
      if (target.getKind() == "nvgpu")
        for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
          if (func.isKernel() && !func->hasAttr("nvvm.maxnreg"))
            func->setAttr(
                "nvvm.maxnreg",
                IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                 kernelRegisterLimit(
                                     kernelResources(func, gpuModule, module),
                                     target, occupancyThreads)));
    }
  }
};
} // namespace

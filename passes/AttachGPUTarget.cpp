//===- AttachGPUTarget.cpp - #tessel.target → #nvvm/#rocdl.target --------===//
#include "passes/Passes.h"

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

namespace {
/// The PTX limit on registers per thread.
static constexpr int64_t kMaxRegistersPerThread = 255;

/// Registers per thread that let one block of `kernel` fit the register
/// file `target` describes (64K 32-bit registers when it does not say):
/// the file divided by the known block size, in the units of 8 that the
/// allocation granularity of whole warps allows, at most 255. 255 when the
/// block size is not known.
static int64_t registerLimit(gpu::GPUFuncOp kernel, TargetAttr target) {
  constexpr int64_t kDefaultRegisterFile = 64 * 1024;
  constexpr int64_t kRegisterGranule = 8;
  std::optional<ArrayRef<int32_t>> blockSize = kernel.getKnownBlockSize();
  if (!blockSize)
    return kMaxRegistersPerThread;
  int64_t threads = 1;
  for (int32_t extent : *blockSize)
    threads *= std::max<int64_t>(extent, 1);
  int64_t registerFile = target.getRegistersPerBlock() > 0
                             ? target.getRegistersPerBlock()
                             : kDefaultRegisterFile;
  int64_t limit = llvm::alignDown(registerFile / threads, kRegisterGranule);
  return std::clamp<int64_t>(limit, kRegisterGranule, kMaxRegistersPerThread);
}

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
      // NVIDIA kernels state their register limit (.maxnreg): without one
      // ptxas applies its own occupancy heuristic, which spills rather than
      // exceed 128 registers (ptxas 13.0, a ResNet-50 stage-4 implicit
      // GEMM: 12 bytes of spills at 128 registers without, 116 registers
      // and none with). The limit is what one block of the kernel's known
      // size may take from the register file, at most the architectural
      // 255: ptxas does not lower a stated .maxnreg to fit the block (it
      // gave a 1024-thread softmax kernel 141 registers, which no SM can
      // launch).
      if (target.getKind() == "nvgpu")
        for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
          if (func.isKernel() && !func->hasAttr("nvvm.maxnreg"))
            func->setAttr("nvvm.maxnreg",
                          IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                           registerLimit(func, target)));
    }
  }
};
} // namespace

//===- ConvertWarpgroupKernels.cpp - nvgpu->NVVM for wgmma kernels first --===//
//
// Kernels with warpgroup accumulators (the Hopper matmul) carry them through
// their k loop. Upstream's convert-nvgpu-to-nvvm converts loop-carried
// values with the structured loops, but not block arguments of a CFG, so it
// must run before convert-scf-to-cf on those kernels. On the WMMA kernels
// it must not: their loops carry gpu.mma_matrix values, which its type
// converter rejects, so the rest of the pipeline converts them later. This
// pass runs upstream's pass early on exactly the gpu.modules that hold a
// warpgroup op.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Pass/PassManager.h"

#define DEBUG_TYPE "tessel-convert-warpgroup-kernels"

namespace mlir::tessel {
#define GEN_PASS_DEF_CONVERTWARPGROUPKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

/// The module holds an op of the warpgroup (wgmma) family.
static bool hasWarpgroupOps(gpu::GPUModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaInitAccumulatorOp,
                   nvgpu::WarpgroupMmaStoreOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {
struct ConvertWarpgroupKernelsPass
    : public tessel::impl::ConvertWarpgroupKernelsPassBase<
          ConvertWarpgroupKernelsPass> {
  void runOnOperation() override {
    OpPassManager pipeline(gpu::GPUModuleOp::getOperationName());
    pipeline.addPass(createConvertNVGPUToNVVMPass());
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>())
      if (hasWarpgroupOps(module) && failed(runPipeline(pipeline, module)))
        return signalPassFailure();
  }
};
} // namespace

//===- ExternalizeDynamicSharedMemory.cpp - Dynamic shared memory, extern -===//
//
// Upstream's convert-gpu-to-nvvm lowers gpu.dynamic_shared_memory to an
// internal zero-length array in shared memory. The NVPTX backend prints
// that as a 1-byte static variable (`.shared .align 16 .b8 x;`), not as the
// dynamic shared memory that follows every static variable (`.extern
// .shared .b8 x[]`). ptxas may then place other static shared variables
// after it, inside the range the kernel indexes as its dynamic buffer: in
// the Hopper matmul, the mbarriers that nvgpu.mbarrier.create makes landed
// at byte 8 of the first TMA stage, which the first load overwrote.
//
// This pass gives those arrays external linkage, which is how CUDA C++'s
// `extern __shared__` reaches the backend: every such array then starts at
// the dynamic buffer, after all static shared memory.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#define DEBUG_TYPE "tessel-externalize-dynamic-shared-memory"

namespace mlir::tessel {
#define GEN_PASS_DEF_EXTERNALIZEDYNAMICSHAREDMEMORYPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

/// A zero-length array in shared memory without an initializer: what
/// gpu.dynamic_shared_memory lowers to.
static bool isDynamicSharedArray(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == NVVM::NVVMMemorySpace::Shared && array &&
         array.getNumElements() == 0 && !global.getValueOrNull() &&
         !global.getInitializerBlock();
}

namespace {
struct ExternalizeDynamicSharedMemoryPass
    : public tessel::impl::ExternalizeDynamicSharedMemoryPassBase<
          ExternalizeDynamicSharedMemoryPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      if (!isDynamicSharedArray(global) ||
          global.getLinkage() == LLVM::Linkage::External)
        continue;
      global.setLinkage(LLVM::Linkage::External);
      // An external declaration has default visibility and no unnamed_addr.
      global.setVisibility_(LLVM::Visibility::Default);
      global.setUnnamedAddr(std::nullopt);
    }
  }
};
} // namespace

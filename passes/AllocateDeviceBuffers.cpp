//===- AllocateDeviceBuffers.cpp - Host temporaries kernels use → device --===//
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "tessel-allocate-device-buffers"

namespace mlir::tessel {
#define GEN_PASS_DEF_ALLOCATEDEVICEBUFFERSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
/// Where a buffer is touched: inside kernels, on the host, or both, and
/// which deallocations free it (directly or through a view of it, as
/// buffer-deallocation emits for `extract_strided_metadata` bases).
struct BufferUses {
  bool onDevice = false;
  bool onHost = false;
  SmallVector<memref::DeallocOp> deallocs;
};
} // namespace

/// Follows `value` through view-like ops (subview, reshapes, casts), which
/// alias the buffer, and classifies every other use.
static void classifyUses(Value value, BufferUses &uses) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      uses.deallocs.push_back(dealloc);
      continue;
    }
    if (user->getParentOfType<gpu::LaunchOp>() ||
        isa<gpu::LaunchFuncOp>(user)) {
      uses.onDevice = true;
      continue;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(user);
        view && view.getViewSource() == value) {
      for (Value result : user->getResults())
        classifyUses(result, uses);
      continue;
    }
    uses.onHost = true;
  }
}

namespace {
struct AllocateDeviceBuffersPass
    : public tessel::impl::AllocateDeviceBuffersPassBase<
          AllocateDeviceBuffersPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    bool ok = true;
    getOperation().walk([&](Operation *op) {
      if (!isa<memref::AllocOp, memref::AllocaOp>(op) ||
          op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<gpu::GPUModuleOp>())
        return;
      Value buffer = op->getResult(0);
      BufferUses uses;
      classifyUses(buffer, uses);
      if (!uses.onDevice)
        return;
      if (isa<memref::AllocaOp>(op)) {
        op->emitOpError() << "allocates a stack buffer that a GPU kernel "
                             "uses; kernels cannot reach host stack memory";
        ok = false;
        return;
      }
      auto alloc = cast<memref::AllocOp>(op);
      rewriter.setInsertionPoint(alloc);
      // A buffer both sides touch must be visible to both: managed memory.
      auto deviceAlloc = gpu::AllocOp::create(
          rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), /*hostShared=*/uses.onHost);
      rewriter.replaceOp(alloc, deviceAlloc.getMemref());
      for (memref::DeallocOp dealloc : uses.deallocs) {
        rewriter.setInsertionPoint(dealloc);
        rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
            dealloc, /*asyncToken=*/Type(), ValueRange(), dealloc.getMemref());
      }
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace

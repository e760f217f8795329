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
  Type tokenType;

  /// `gpu.wait async`: a token with no dependencies to order an op on.
  Value waitAsync(RewriterBase &rewriter, Location loc) {
    return gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange())
        .getAsyncToken();
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    tokenType = gpu::AsyncTokenType::get(&getContext());
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
      Location loc = alloc.getLoc();
      rewriter.setInsertionPoint(alloc);
      Value deviceBuffer;
      if (uses.onHost) {
        // Both sides touch it: managed memory, which gpu-to-llvm lowers
        // only in the synchronous form.
        deviceBuffer = gpu::AllocOp::create(
                           rewriter, loc, alloc.getType(), /*asyncToken=*/Type(),
                           ValueRange(), alloc.getDynamicSizes(),
                           alloc.getSymbolOperands(), /*hostShared=*/true)
                           .getMemref();
      } else {
        // Device memory: gpu-to-llvm lowers only the async form, so the
        // allocation is issued on a fresh token and waited for at once.
        Value ready = waitAsync(rewriter, loc);
        auto deviceAlloc = gpu::AllocOp::create(
            rewriter, loc, alloc.getType(), tokenType, ready,
            alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            /*hostShared=*/false);
        gpu::WaitOp::create(rewriter, loc, Type(),
                            ValueRange{deviceAlloc.getAsyncToken()});
        deviceBuffer = deviceAlloc.getMemref();
      }
      rewriter.replaceOp(alloc, deviceBuffer);
      for (memref::DeallocOp dealloc : uses.deallocs) {
        rewriter.setInsertionPoint(dealloc);
        Location deallocLoc = dealloc.getLoc();
        // gpu-to-llvm lowers deallocation only in the async form, managed
        // memory included.
        Value ready = waitAsync(rewriter, deallocLoc);
        auto freed = gpu::DeallocOp::create(rewriter, deallocLoc, tokenType,
                                            ready, dealloc.getMemref());
        gpu::WaitOp::create(rewriter, deallocLoc, Type(),
                            ValueRange{freed.getAsyncToken()});
        rewriter.eraseOp(dealloc);
      }
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace

//===- AllocateDeviceBuffers.cpp - Host temporaries kernels use → device --===//
#include "passes/Passes.h"
#include "passes/Utils/GlobalViews.h"

#include "mlir/IR/IRMapping.h"
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
    // A TMA descriptor made on the host only records the address (of the
    // buffer, or of a memref.cast of it, a view): the tensor memory
    // accelerator reads the buffer on the device.
    if (isa<nvgpu::TmaCreateDescriptorOp>(user)) {
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

/// Kernels that read a global (a convolution's constant filter) through a
/// host-side `memref.get_global` would dereference a host address on the
/// device. The get_global (and the views of it) are cloned into the
/// launch, so that gpu-kernel-outlining copies the global into the device
/// module. Upstream outlining sinks only constants and dims, not globals.
/// Mutable globals have no single copy both sides could share: an error.
static LogicalResult sinkGlobalsIntoLaunch(RewriterBase &rewriter,
                                           gpu::LaunchOp launch) {
  bool ok = true;
  launch.getBody().walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      SmallVector<Operation *> chain =
          tessel::globalViewChain(operand.get(), launch);
      if (chain.empty())
        continue;
      auto getGlobal = cast<memref::GetGlobalOp>(chain.front());
      memref::GlobalOp global = tessel::lookupGlobal(getGlobal);
      if (!global || !global.getConstant()) {
        getGlobal->emitOpError()
            << "reads a mutable global that a GPU kernel uses; kernels "
               "reach only constant globals (copied to the device module)";
        ok = false;
        continue;
      }
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&launch.getBody().front());
      IRMapping map;
      Operation *clone = nullptr;
      for (Operation *link : chain)
        clone = rewriter.clone(*link, map);
      rewriter.modifyOpInPlace(op, [&] {
        operand.set(clone->getResult(
            cast<OpResult>(operand.get()).getResultNumber()));
      });
    }
  });
  return success(ok);
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
    getOperation().walk([&](gpu::LaunchOp launch) {
      ok &= succeeded(sinkGlobalsIntoLaunch(rewriter, launch));
    });
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

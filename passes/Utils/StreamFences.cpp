//===- StreamFences.cpp - Where the fence of non-temporal stores goes -----===//
#include "passes/Utils/StreamFences.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kStreamFence = "llvm.x86.sse.sfence";

bool isAtomicLLVMAccess(Operation *op) {
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return load.getOrdering() != LLVM::AtomicOrdering::not_atomic;
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return store.getOrdering() != LLVM::AtomicOrdering::not_atomic;
  return false;
}

/// Whether the LLVM intrinsic `name` (vrange, the AVX-512 exp's vscalef)
/// neither reads nor writes memory, by LLVM's own attributes for it.
bool isIntrinsicWithoutMemoryAccess(StringRef name) {
  llvm::Intrinsic::ID id = llvm::Intrinsic::lookupIntrinsicID(name);
  if (id == llvm::Intrinsic::not_intrinsic)
    return false;
  llvm::LLVMContext context;
  return llvm::Intrinsic::getFnAttributes(context, id)
      .getMemoryEffects()
      .doesNotAccessMemory();
}

bool mightSynchronize(Operation *op) {
  if (tessel::isStreamFence(op))
    return false;
  if (isa<omp::LoopNestOp, omp::YieldOp>(op))
    return false;
  if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op))
    return !isIntrinsicWithoutMemoryAccess(call.getIntrin());
  if (isa<CallOpInterface, LLVM::InlineAsmOp, LLVM::FenceOp, LLVM::AtomicRMWOp,
          LLVM::AtomicCmpXchgOp, memref::AtomicRMWOp,
          memref::GenericAtomicRMWOp>(op) ||
      isAtomicLLVMAccess(op))
    return true;
  // Loops whose iterations may run on other threads read what this one
  // wrote as soon as they start.
  if (isa<scf::ParallelOp, scf::ForallOp, affine::AffineParallelOp>(op))
    return true;
  // OpenMP constructs (critical sections, barriers, nested parallel
  // regions), async tasks and GPU ops (barriers, shuffles) coordinate
  // threads.
  StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
  if (dialect == "omp" || dialect == "async" || dialect == "gpu" ||
      dialect == "nvvm" || dialect == "rocdl")
    return true;
  // What the analysis cannot see into: unregistered ops, ops that declare
  // no memory effects at all (neither their own nor their regions').
  return !op->isRegistered() ||
         (!isa<MemoryEffectOpInterface>(op) &&
          !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>());
}

/// What a fence cannot leave, in words, for the remark.
std::string describeBoundary(Operation *op) {
  if (isa<scf::ParallelOp, scf::ForallOp, affine::AffineParallelOp>(op))
    return "it is in the body of " + op->getName().getStringRef().str() +
           ", whose iterations may run on different threads";
  if (isa<omp::LoopNestOp>(op))
    return "its omp.loop_nest is not the only loop of an omp.wsloop directly "
           "in an omp.parallel";
  return "";
}
} // namespace

bool mlir::tessel::isStreamFence(Operation *op) {
  auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
  return call && call.getIntrin() == kStreamFence;
}

Operation *mlir::tessel::findSynchronizingOp(Region &region) {
  Operation *found = nullptr;
  // Pre-order: the construct (omp.critical) is named, not its terminator.
  region.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!mightSynchronize(op))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

Operation *mlir::tessel::fenceSinkTarget(Operation *fence, std::string &why) {
  Operation *target = nullptr;
  for (Operation *parent = fence->getParentOp(); parent;
       parent = parent->getParentOp()) {
    // Structured control flow that is not a loop: the fence runs at most once
    // per visit of the enclosing loop body, and may leave it with the loop.
    if (isa<scf::IfOp, scf::IndexSwitchOp, scf::ExecuteRegionOp,
            memref::AllocaScopeOp, affine::AffineIfOp>(parent))
      continue;
    Operation *loop = nullptr;
    if (isa<scf::ForOp, scf::WhileOp, affine::AffineForOp>(parent)) {
      loop = parent;
    } else if (isa<omp::LoopNestOp>(parent)) {
      // A thread's share of the iterations ends at the wsloop; past it the
      // iterations of other threads are visible (the barrier), so the fence
      // goes right after the wsloop and no further.
      auto wsloop = dyn_cast_or_null<omp::WsloopOp>(parent->getParentOp());
      if (wsloop && isa_and_nonnull<omp::ParallelOp>(wsloop->getParentOp()))
        loop = wsloop;
    }
    if (!loop) {
      why = describeBoundary(parent);
      break;
    }
    for (Region &region : loop->getRegions()) {
      if (Operation *sync = findSynchronizingOp(region)) {
        why = (target ? "the next loop out holds " : "the loop holds ") +
              sync->getName().getStringRef().str() +
              ", which may synchronize with other threads";
        return target;
      }
    }
    target = loop;
    if (isa<omp::WsloopOp>(loop))
      break;
  }
  return target;
}

void mlir::tessel::sinkStreamFences(RewriterBase &rewriter,
                                    ArrayRef<Operation *> fences,
                                    Operation *loop) {
  Location loc = fences.front()->getLoc();
  for (Operation *fence : fences)
    rewriter.eraseOp(fence);

  Operation *fence = loop->getNextNode();
  if (!fence || !isStreamFence(fence)) {
    rewriter.setInsertionPointAfter(loop);
    fence = LLVM::CallIntrinsicOp::create(
        rewriter, loc, rewriter.getStringAttr(kStreamFence), ValueRange{});
  }

  auto wsloop = dyn_cast<omp::WsloopOp>(loop);
  if (!wsloop || wsloop.getNowait())
    return;
  // Each thread fences its own stores, then waits for the others, as the
  // loop's own barrier did.
  rewriter.modifyOpInPlace(wsloop, [&] { wsloop.setNowait(true); });
  if (isa<omp::TerminatorOp>(fence->getNextNode()))
    return; // The end of the parallel region is a barrier.
  rewriter.setInsertionPointAfter(fence);
  omp::BarrierOp::create(rewriter, loc);
}

//===- PromoteBuffersToStack.cpp - Stack buffers within a budget ----------===//
//
// Upstream promote-buffers-to-stack decides per allocation (size and rank
// limits only). Allocas carry no lifetime markers, so LLVM gives each its own
// stack slot: a function with many medium buffers (a whole network compiled as
// one function) needs the sum of them all, and overflows the thread's stack.
// This pass keeps upstream's rewrite (and its escape analysis) but chooses
// which allocations it may promote under a per-function byte budget: tile
// buffers inside parallel loops first (they are what the fused nests reuse;
// convert-scf-to-openmp scopes them to an iteration), then those outside
// loops. Buffers in sequential loops are never promoted: nothing releases
// an alloca there, so the stack would grow every iteration. Then the
// rest in program order while the budget lasts.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tessel/TargetDescription.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"

#define DEBUG_TYPE "tessel-promote-buffers-to-stack"

namespace mlir::tessel {
#define GEN_PASS_DEF_PROMOTEBUFFERSTOSTACKPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
/// Bytes of a static alloc, or nullopt when it is not a static candidate.
std::optional<int64_t> staticBytes(memref::AllocOp alloc, unsigned maxRank) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || type.getRank() > maxRank ||
      !type.getElementType().isIntOrIndexOrFloat())
    return std::nullopt;
  return type.getNumElements() * tessel::storageBytes(type.getElementType());
}

/// The innermost loop around `op` in `func`, or null.
Operation *innermostLoop(Operation *op, Operation *func) {
  for (Operation *p = op->getParentOp(); p && p != func; p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return p;
  return nullptr;
}

struct PromoteBuffersToStackPass
    : public tessel::impl::PromoteBuffersToStackPassBase<
          PromoteBuffersToStackPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<std::pair<memref::AllocOp, int64_t>> inLoops, outside;
    int64_t sequentialCount = 0;
    func.walk([&](memref::AllocOp alloc) {
      std::optional<int64_t> bytes = staticBytes(alloc, maxRankOfAllocatedMemref);
      if (!bytes || *bytes > maxAllocSizeInBytes)
        return;
      Operation *loop = innermostLoop(alloc, func);
      // An alloca in the body of a parallel loop is released per iteration
      // (convert-scf-to-openmp scopes it); in a sequential loop nothing
      // releases it, and the stack grows by it every iteration.
      if (loop && !isa<scf::ForallOp, scf::ParallelOp>(loop)) {
        ++sequentialCount;
        return;
      }
      (loop ? inLoops : outside).push_back({alloc, *bytes});
    });
    if (sequentialCount)
      func.emitRemark() << sequentialCount
                        << " buffer(s) allocated in sequential loops stay on "
                           "the heap (on the stack they would grow it every "
                           "iteration)";
    llvm::DenseSet<Value> chosen;
    int64_t used = 0, leftBytes = 0, leftCount = 0;
    for (auto *list : {&inLoops, &outside})
      for (auto [alloc, bytes] : *list) {
        if (used + bytes <= maxStackBytes) {
          chosen.insert(alloc.getResult());
          used += bytes;
        } else {
          leftBytes += bytes;
          ++leftCount;
        }
      }
    if (leftCount)
      func.emitRemark() << "stack budget "
                        << static_cast<int64_t>(maxStackBytes) << " bytes: "
                        << chosen.size() << " buffer(s) (" << used
                        << " bytes) may go on the stack, " << leftCount
                        << " (" << leftBytes << " bytes) stay on the heap";
    if (chosen.empty())
      return;
    // Upstream's rewrite, restricted to the chosen allocations; it still
    // skips buffers that escape the function.
    OpPassManager pm(func::FuncOp::getOperationName());
    pm.addPass(bufferization::createPromoteBuffersToStackPass(
        [chosen = std::move(chosen)](Value v) { return chosen.contains(v); }));
    if (failed(runPipeline(pm, func)))
      signalPassFailure();
  }
};
} // namespace

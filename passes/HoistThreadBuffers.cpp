//===- HoistThreadBuffers.cpp - Per-thread scratch buffers ----------------===//
//
// The tile buffers of fused nests are static allocas in the body of the
// OpenMP worksharing loop, scoped to one iteration by the memref.alloca_scope
// convert-scf-to-openmp wraps around it. Their lifetime never crosses an
// iteration, so one buffer per thread, taken once at the start of the
// parallel region, serves every iteration that thread runs: the stack
// pointer no longer moves per tile, and the scope (now empty of allocas)
// is inlined, which keeps the loop body a single-block region for
// convert-scf-to-cf.
//
// The inlining is done here rather than left to upstream's canonicalization,
// which keeps a scope holding any op without declared memory effects (it
// might allocate): tessel-stream-stores puts an llvm.call_intrinsic (sfence)
// in the loop body. Only alloca ops take stack space, so a scope without one
// (outside nested scopes) frees nothing and can go.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tessel-hoist-thread-buffers"

namespace mlir::tessel {
#define GEN_PASS_DEF_HOISTTHREADBUFFERSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct HoistThreadBuffersPass
    : public tessel::impl::HoistThreadBuffersPassBase<HoistThreadBuffersPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaOp> allocas;
    getOperation().walk([&](memref::AllocaOp alloca) {
      // Static size only: a size computed in the iteration cannot move.
      if (alloca.getType().hasStaticShape() &&
          alloca.getDynamicSizes().empty() && alloca.getSymbolOperands().empty() &&
          alloca->getParentOfType<omp::WsloopOp>())
        allocas.push_back(alloca);
    });
    for (memref::AllocaOp alloca : allocas) {
      auto parallel = alloca->getParentOfType<omp::ParallelOp>();
      if (!parallel)
        continue;
      Block &entry = parallel.getRegion().front();
      alloca->moveBefore(&entry, entry.begin());
    }

    SmallVector<memref::AllocaScopeOp> emptyScopes;
    getOperation().walk([&](memref::AllocaScopeOp scope) {
      if (scope->getParentOfType<omp::WsloopOp>() &&
          scope.getBodyRegion().hasOneBlock() && !holdsAlloca(scope))
        emptyScopes.push_back(scope);
    });
    IRRewriter rewriter(&getContext());
    for (memref::AllocaScopeOp scope : emptyScopes) {
      Block &body = scope.getBodyRegion().front();
      auto ret = cast<memref::AllocaScopeReturnOp>(body.getTerminator());
      SmallVector<Value> results(ret.getResults());
      rewriter.eraseOp(ret);
      rewriter.inlineBlockBefore(&body, scope);
      rewriter.replaceOp(scope, results);
    }
  }

  /// Whether `scope` allocates on the stack itself (nested scopes release
  /// their own allocations).
  static bool holdsAlloca(memref::AllocaScopeOp scope) {
    return scope
        ->walk<WalkOrder::PreOrder>([&](Operation *op) {
          if (op != scope.getOperation() && isa<memref::AllocaScopeOp>(op))
            return WalkResult::skip();
          if (isa<memref::AllocaOp, LLVM::AllocaOp>(op))
            return WalkResult::interrupt();
          return WalkResult::advance();
        })
        .wasInterrupted();
  }
};
} // namespace

//===- HoistThreadBuffers.cpp - Per-thread scratch buffers ----------------===//
//
// The tile buffers of fused nests are static allocas in the body of the
// OpenMP worksharing loop, scoped to one iteration by the memref.alloca_scope
// convert-scf-to-openmp wraps around it. Their lifetime never crosses an
// iteration, so one buffer per thread, taken once at the start of the
// parallel region, serves every iteration that thread runs: the stack
// pointer no longer moves per tile, and the scope (now empty of allocas)
// can be inlined, which keeps the loop body a single-block region for
// convert-scf-to-cf.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

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
  }
};
} // namespace

//===- SinkStreamFences.cpp - One sfence per thread, not per tile ---------===//
//
// Runs Utils/StreamFences.h over a function after convert-scf-to-openmp:
// the fences tessel-stream-stores leaves in loop bodies move past the
// loops (for a worksharing loop, to the end of each thread's share), each
// move and each fence that stays in a loop with a remark.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "passes/Utils/StreamFences.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"

#define DEBUG_TYPE "tessel-sink-stream-fences"

namespace mlir::tessel {
#define GEN_PASS_DEF_SINKSTREAMFENCESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct SinkStreamFencesPass
    : public tessel::impl::SinkStreamFencesPassBase<SinkStreamFencesPass> {
  void runOnOperation() override {
    struct Group {
      SmallVector<Operation *> fences;
      std::string stoppedBy; // why none of them goes further, if known
    };
    llvm::MapVector<Operation *, Group> fencesByLoop;
    getOperation().walk([&](Operation *op) {
      if (!tessel::isStreamFence(op))
        return;
      std::string why;
      if (Operation *loop = tessel::fenceSinkTarget(op, why)) {
        Group &group = fencesByLoop[loop];
        group.fences.push_back(op);
        if (group.stoppedBy.empty())
          group.stoppedBy = why;
      } else if (!why.empty()) {
        op->emitRemark() << "fence of non-temporal stores left in its loop: "
                         << why;
      }
    });
    IRRewriter rewriter(&getContext());
    for (auto &[loop, group] : fencesByLoop) {
      bool worksharing = isa<omp::WsloopOp>(loop);
      InFlightDiagnostic remark = loop->emitRemark();
      remark << group.fences.size()
             << " fence(s) of non-temporal stores moved out of the loop body: "
                "one sfence "
             << (worksharing ? "per thread after its share of the worksharing "
                               "loop"
                             : "after the loop")
             << ", not one per iteration";
      if (!group.stoppedBy.empty())
        remark << " (not further: " << group.stoppedBy << ")";
      remark.report();
      tessel::sinkStreamFences(rewriter, group.fences, loop);
    }
  }
};
} // namespace

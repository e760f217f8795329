//===- DecomposeAggregates.cpp - linalg.softmax & co. → structured ops ----===//
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tessel-decompose-aggregates"

namespace mlir::tessel {
#define GEN_PASS_DEF_DECOMPOSEAGGREGATESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct DecomposeAggregatesPass
    : public tessel::impl::DecomposeAggregatesPassBase<
          DecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    bool ok = true;
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> results = op.decomposeOperation(rewriter);
      if (failed(results)) {
        op->emitOpError() << "could not be decomposed into structured ops";
        ok = false;
        continue;
      }
      rewriter.replaceOp(op, *results);
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace

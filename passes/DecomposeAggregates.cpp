//===- DecomposeAggregates.cpp - linalg.softmax & co. → structured ops ----===//
#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

#define DEBUG_TYPE "tessel-decompose-aggregates"

namespace mlir::tessel {
#define GEN_PASS_DEF_DECOMPOSEAGGREGATESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

/// Upstream decomposes aggregates on tensors only (on memrefs it would mix
/// tensor and buffer operands in one op). `op` on buffers is decomposed on
/// tensor views of its operands (bufferization.to_tensor, restrict: the
/// function's buffers do not alias here) whose results are written back to
/// its outputs (materialize_in_destination); one-shot-bufferize turns the
/// whole back into buffers.
static LogicalResult decomposeOnBuffers(RewriterBase &rewriter,
                                        DestinationStyleOpInterface op) {
  Location loc = op.getLoc();
  IRMapping map;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    Value tensor = bufferization::ToTensorOp::create(
        rewriter, loc, memref::getTensorTypeFromMemRefType(type), operand.get(),
        /*restrict=*/true, /*writable=*/op.isDpsInit(&operand));
    map.map(operand.get(), tensor);
  }
  // The same op on the tensors, with a result per output (buffer forms
  // have none). Aggregates have no regions.
  if (op->getNumRegions() != 0)
    return op->emitOpError() << "on buffers, with a region, is not "
                                "decomposed (write it on tensors)";
  OperationState state(loc, op->getName());
  for (Value operand : op->getOperands())
    state.operands.push_back(map.lookupOrDefault(operand));
  for (Value init : op.getDpsInits())
    state.types.push_back(map.lookup(init).getType());
  state.addAttributes(op->getAttrs());
  Operation *onTensors = rewriter.create(state);
  FailureOr<SmallVector<Value>> results =
      cast<linalg::AggregatedOpInterface>(onTensors).decomposeOperation(
          rewriter);
  if (failed(results)) {
    rewriter.eraseOp(onTensors);
    return op->emitOpError() << "could not be decomposed into structured ops";
  }
  for (auto [init, value] : llvm::zip(op.getDpsInits(), *results)) {
    auto write = bufferization::MaterializeInDestinationOp::create(
        rewriter, loc, value, init);
    write.setRestrict(true);
    write.setWritable(true);
  }
  rewriter.eraseOp(onTensors);
  rewriter.eraseOp(op);
  return success();
}

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
      auto dps = dyn_cast<DestinationStyleOpInterface>(op.getOperation());
      if (dps && dps.hasPureBufferSemantics()) {
        if (failed(decomposeOnBuffers(rewriter, dps)))
          ok = false;
        continue;
      }
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

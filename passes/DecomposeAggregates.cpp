//===- DecomposeAggregates.cpp - linalg.softmax & co. → structured ops ----===//
#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
/// tensor views of its inputs (bufferization.to_tensor restrict) into
/// fresh output tensors (aggregates overwrite their outputs without
/// reading them), whose values are then written to the output buffers
/// (materialize_in_destination); one-shot-bufferize turns the whole back
/// into buffer ops. An output that is also an input is read through the
/// input's view, which the writes follow.
static LogicalResult decomposeOnBuffers(RewriterBase &rewriter,
                                        DestinationStyleOpInterface op) {
  Location loc = op.getLoc();
  if (op->getNumRegions() != 0)
    return op->emitOpError() << "on buffers, with a region, is not "
                                "decomposed (write it on tensors)";
  IRMapping map;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type || map.contains(input->get()))
      continue;
    map.map(input->get(),
            bufferization::ToTensorOp::create(
                rewriter, loc, memref::getTensorTypeFromMemRefType(type),
                input->get(), /*restrict=*/true, /*writable=*/false));
  }
  SmallVector<Value> outputs;
  for (Value init : op.getDpsInits()) {
    auto type = cast<MemRefType>(init.getType());
    outputs.push_back(tensor::EmptyOp::create(
        rewriter, loc, memref::getMixedSizes(rewriter, loc, init),
        type.getElementType()));
  }
  // The same op on the tensors, with a result per output (buffer forms
  // have none).
  OperationState state(loc, op->getName());
  unsigned outputIndex = 0;
  for (OpOperand &operand : op->getOpOperands())
    state.operands.push_back(op.isDpsInit(&operand)
                                 ? outputs[outputIndex++]
                                 : map.lookupOrDefault(operand.get()));
  for (Value output : outputs)
    state.types.push_back(output.getType());
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
    // restrict promises no other tensor view of the buffer: not so when
    // the output is also read (in place); one-shot-bufferize then copies.
    auto buffer = memref::skipViewLikeOps(cast<MemrefValue>(init));
    bool alsoRead = llvm::any_of(op.getDpsInputs(), [&](Value input) {
      auto in = dyn_cast<MemrefValue>(input);
      return in && memref::skipViewLikeOps(in) == buffer;
    });
    write.setRestrict(!alsoRead);
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

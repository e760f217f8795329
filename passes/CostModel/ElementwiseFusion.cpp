//===- ElementwiseFusion.cpp - When to merge linalg bodies ----------------===//
#include "passes/CostModel/ElementwiseFusion.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tessel;

double mlir::tessel::opCost(Operation *op) {
  if (isa<arith::ConstantOp, linalg::IndexOp, linalg::YieldOp>(op))
    return 0;
  if (isa<arith::DivFOp, arith::RemFOp, arith::DivSIOp, arith::DivUIOp,
          arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
          arith::FloorDivSIOp, math::SqrtOp, math::RsqrtOp>(op))
    return 8;
  if (isa<math::AbsFOp, math::AbsIOp, math::FmaOp, math::CopySignOp>(op))
    return 1;
  if (isa<math::MathDialect>(op->getDialect()))
    return 16;
  return 1;
}

double mlir::tessel::bodyCost(Block &body) {
  double cost = 0;
  for (Operation &op : body.without_terminator())
    cost += opCost(&op);
  return cost;
}

static double volume(ArrayRef<int64_t> extents) {
  double v = 1;
  for (int64_t e : extents)
    v *= static_cast<double>(e);
  return v;
}

/// Whether the producer's yielded value is a product that every consumer
/// only adds or subtracts: inlined, the multiply and the add contract into
/// one FMA, so recomputing the product costs nothing.
static bool productBecomesFma(linalg::GenericOp producer) {
  auto yield = cast<linalg::YieldOp>(producer.getBody()->getTerminator());
  if (yield.getNumOperands() != 1 ||
      !yield.getOperand(0).getDefiningOp<arith::MulFOp>())
    return false;
  for (OpOperand &use : producer->getResult(0).getUses()) {
    auto consumer = cast<linalg::GenericOp>(use.getOwner());
    BlockArgument arg = consumer.getMatchingBlockArgument(&use);
    for (Operation *user : arg.getUsers())
      if (!isa<arith::AddFOp, arith::SubFOp>(user))
        return false;
  }
  return true;
}

std::optional<ElementwiseFusionEstimate>
mlir::tessel::estimateElementwiseFusion(linalg::GenericOp producer,
                                        std::string &why) {
  // Not an elementwise producer at all: no reason worth a remark.
  if (producer->getNumResults() != 1 ||
      producer.getNumParallelLoops() != producer.getNumLoops() ||
      producer.hasDynamicShape() || producer->getResult(0).use_empty())
    return std::nullopt;
  Value result = producer->getResult(0);
  // Read by no generic (the function's result, say): nothing to fuse into.
  if (llvm::none_of(result.getUsers(), llvm::IsaPred<linalg::GenericOp>))
    return std::nullopt;
  double evaluations = 0;
  for (OpOperand &use : result.getUses()) {
    Operation *user = use.getOwner();
    auto consumer = dyn_cast<linalg::GenericOp>(user);
    if (!consumer || user->getBlock() != producer->getBlock()) {
      why = "its result is also used by '" +
            user->getName().getStringRef().str() + "'";
      return std::nullopt;
    }
    if (!linalg::areElementwiseOpsFusable(&use)) {
      why = "the linalg.generic that reads it as operand #" +
            std::to_string(use.getOperandNumber()) +
            " cannot take its body (an output, a map of another rank, or "
            "a loop only it would bound)";
      return std::nullopt;
    }
    if (consumer.hasDynamicShape()) {
      why = "a consumer has dynamic shapes";
      return std::nullopt;
    }
    if (!consumer.getMatchingBlockArgument(&use).use_empty())
      evaluations += volume(consumer.getStaticLoopRanges());
  }
  ElementwiseFusionEstimate estimate;
  estimate.evaluationsPerElement =
      evaluations / volume(producer.getStaticLoopRanges());
  estimate.costPerEvaluation = bodyCost(*producer.getBody());
  estimate.becomesFma = productBecomesFma(producer);
  if (estimate.becomesFma)
    estimate.costPerEvaluation -= 1;
  estimate.recomputedCost = std::max(0.0, estimate.evaluationsPerElement - 1) *
                            estimate.costPerEvaluation;
  estimate.savedCost = 1;
  return estimate;
}

/// Iterations of the reduction loops `map` reads along (the taps one
/// evaluation of a stencil body reads through it).
static int64_t tapsOf(linalg::GenericOp op, AffineMap map) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t taps = 1;
  for (auto [d, range] : llvm::enumerate(ranges))
    if (iterators[d] == utils::IteratorType::reduction &&
        map.isFunctionOfDim(d))
      taps *= range;
  return taps;
}

std::optional<SiblingMergeEstimate>
mlir::tessel::estimateSiblingMerge(linalg::GenericOp first,
                                   linalg::GenericOp second) {
  if (first.getStaticLoopRanges() != second.getStaticLoopRanges() ||
      first.getIteratorTypesArray() != second.getIteratorTypesArray())
    return std::nullopt;
  // Distinct (value, map) reads of each op whose block argument is used.
  auto usedReads = [](linalg::GenericOp op) {
    SmallVector<std::pair<Value, AffineMap>> reads;
    for (OpOperand *input : op.getDpsInputOperands()) {
      std::pair<Value, AffineMap> read{input->get(),
                                       op.getMatchingIndexingMap(input)};
      if (!op.getMatchingBlockArgument(input).use_empty() &&
          !llvm::is_contained(reads, read))
        reads.push_back(read);
    }
    return reads;
  };
  SiblingMergeEstimate estimate;
  SmallVector<std::pair<Value, AffineMap>> firstReads = usedReads(first);
  for (auto &read : firstReads)
    estimate.registers += tapsOf(first, read.second);
  for (auto &read : usedReads(second)) {
    if (llvm::is_contained(firstReads, read))
      ++estimate.sharedInputs;
    else
      estimate.registers += tapsOf(second, read.second);
  }
  estimate.registers += first.getNumDpsInits() + second.getNumDpsInits();

  BackwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return op->getBlock() == first->getBlock() && !op->isBeforeInBlock(first);
  };
  SetVector<Operation *> slice;
  if (failed(getBackwardSlice(second.getOperation(), &slice, options)) ||
      slice.contains(first)) {
    estimate.blocker = "the second one reads what the first one computes";
    return estimate;
  }
  // The merged op takes `second`'s place: `first`'s results move down.
  for (Operation *user : first->getUsers()) {
    Operation *inBlock = second->getBlock()->findAncestorOpInBlock(*user);
    if (!inBlock || !second->isBeforeInBlock(inBlock)) {
      estimate.blocker = "a use of the first one's result comes before the "
                         "second";
      break;
    }
  }
  return estimate;
}

//===- GPUThreadLoops.cpp - A linalg op run by a block's threads ----------===//
//
// Written here rather than through scf.parallel and upstream's
// convert-parallel-loops-to-gpu: that conversion maps one loop nest to a
// launch, not several nests in sequence within one block (a fused tile runs
// its ops one after the other, sharing shared-memory buffers), and it
// cannot give a loop more iterations than the block has threads.
//
//===----------------------------------------------------------------------===//
#include "passes/Utils/GPUThreadLoops.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tessel;

int64_t mlir::tessel::parallelIterationBound(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t total = 1;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (type != utils::IteratorType::parallel)
      continue;
    int64_t bound = ranges[d];
    // A dynamic extent (an edge tile's slice): the upper bound of an
    // operand dimension the loop indexes directly.
    for (OpOperand &operand : op->getOpOperands()) {
      if (!ShapedType::isDynamic(bound))
        break;
      if (!isa<ShapedType>(operand.get().getType()))
        continue;
      AffineMap map = maps[operand.getOperandNumber()];
      for (auto [i, e] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (!dim || dim.getPosition() != d)
          continue;
        FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
            presburger::BoundType::UB,
            ValueBoundsConstraintSet::Variable(operand.get(), i),
            /*stopCondition=*/nullptr, /*closedUB=*/true);
        if (succeeded(ub)) {
          bound = *ub;
          break;
        }
      }
    }
    if (ShapedType::isDynamic(bound))
      return 0;
    total *= bound;
  }
  return total;
}

/// The indices `map` names at loop indices `ivs`.
static SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                                   ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults())
    indices.push_back(getValueOrCreateConstantIndexOp(
        b, loc,
        affine::makeComposedFoldedAffineApply(
            b, loc, AffineMap::get(map.getNumDims(), 0, e),
            getAsOpFoldResult(ivs))));
  return indices;
}

LogicalResult mlir::tessel::distributeOverThreads(RewriterBase &rewriter,
                                                  linalg::LinalgOp linalgOp,
                                                  Value tid, int64_t threads) {
  Location loc = linalgOp.getLoc();
  rewriter.setInsertionPoint(linalgOp);
  auto op = dyn_cast<linalg::GenericOp>(linalgOp.getOperation());
  if (!op) {
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, linalgOp);
    if (failed(generic))
      return failure();
    op = *generic;
  }
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  auto sizeOf = [&](unsigned d) {
    return getValueOrCreateConstantIndexOp(rewriter, loc, ranges[d].size);
  };
  SmallVector<unsigned> parallel, reduction;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    (type == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(d);

  Value total = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (unsigned d : parallel)
    total = arith::MulIOp::create(rewriter, loc, total, sizeOf(d));
  Value step = arith::ConstantIndexOp::create(rewriter, loc, threads);
  auto loop = scf::ForOp::create(rewriter, loc, tid, total, step);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());

  // Innermost parallel dimension fastest.
  SmallVector<Value> ivs(op.getNumLoops());
  Value rest = loop.getInductionVar();
  for (auto [i, d] : llvm::enumerate(llvm::reverse(parallel))) {
    Value size = sizeOf(d);
    bool outermost = i + 1 == parallel.size();
    ivs[d] = outermost ? rest : arith::RemUIOp::create(rewriter, loc, rest, size);
    if (!outermost)
      rest = arith::DivUIOp::create(rewriter, loc, rest, size);
  }

  Block *body = op.getBlock();
  SmallVector<OpOperand *> inits;
  for (OpOperand &init : op.getDpsInitsMutable())
    inits.push_back(&init);
  // An output's current value is read only when the body uses it (all
  // reductions do).
  auto readsOutput = [&](OpOperand *init) {
    return !op.getMatchingBlockArgument(init).use_empty();
  };

  // The body at `ivs` with the outputs' values `accs`; returns the yields.
  auto emitBody = [&](OpBuilder &b, ValueRange accs) {
    IRMapping map;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      if (isa<MemRefType>(value.getType()))
        value = memref::LoadOp::create(
            b, loc, value,
            applyMap(b, loc, op.getMatchingIndexingMap(input), ivs));
      map.map(op.getMatchingBlockArgument(input), value);
    }
    for (auto [init, acc] : llvm::zip(inits, accs))
      if (acc)
        map.map(op.getMatchingBlockArgument(init), acc);
    for (Operation &o : body->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(o)) {
        map.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      b.clone(o, map);
    }
    SmallVector<Value> yields;
    for (Value v : body->getTerminator()->getOperands())
      yields.push_back(map.lookupOrDefault(v));
    return yields;
  };

  SmallVector<Value> accs;
  for (OpOperand *init : inits)
    accs.push_back(readsOutput(init) || !reduction.empty()
                       ? memref::LoadOp::create(
                             rewriter, loc, init->get(),
                             applyMap(rewriter, loc,
                                      op.getMatchingIndexingMap(init), ivs))
                             .getResult()
                       : Value());
  SmallVector<Value> results;
  if (reduction.empty()) {
    results = emitBody(rewriter, accs);
  } else {
    // Reduction loops, outermost first, carrying the outputs' values.
    SmallVector<scf::ForOp> loops;
    ValueRange carried = accs;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (unsigned d : reduction) {
      auto inner = scf::ForOp::create(rewriter, loc, zero, sizeOf(d), one,
                                      carried);
      ivs[d] = inner.getInductionVar();
      if (!loops.empty())
        scf::YieldOp::create(rewriter, loc, inner.getResults());
      rewriter.setInsertionPointToStart(inner.getBody());
      carried = inner.getRegionIterArgs();
      loops.push_back(inner);
    }
    scf::YieldOp::create(rewriter, loc, emitBody(rewriter, carried));
    rewriter.setInsertionPointAfter(loops.front());
    results = loops.front().getResults();
  }
  for (auto [init, value] : llvm::zip(inits, results))
    memref::StoreOp::create(
        rewriter, loc, value, init->get(),
        applyMap(rewriter, loc, op.getMatchingIndexingMap(init), ivs));
  rewriter.eraseOp(op);
  return success();
}

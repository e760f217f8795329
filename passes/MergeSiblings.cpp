//===- MergeSiblings.cpp - One linalg.generic for ops sharing an input ----===//
//
// Horizontal fusion: two linalg.generic ops over the same loops (same
// ranges, same iterator types) that read a common input through the same
// map, and of which neither reads the other, become one generic with the
// results of both. The common input is loaded once per iteration, and the
// overlapped-tile fusion that follows sees one producer where it saw two:
// one tile buffer traversal, one loop nest. Upstream has no such rewrite
// for linalg (its horizontal fusion is for affine loops, on buffers).
// CostModel/ElementwiseFusion bounds the merged body by the vector
// register file.
//
//===----------------------------------------------------------------------===//
#include "passes/Analysis/FusionGroup.h"
#include "passes/CostModel/ElementwiseFusion.h"
#include "passes/Passes.h"
#include "passes/Utils/KernelSupport.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tessel-merge-siblings"

namespace mlir::tessel {
#define GEN_PASS_DEF_MERGESIBLINGSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// One generic computing what `first` and `second` compute, at `second`'s
/// place; both are replaced and erased. Returns the merged op.
static linalg::GenericOp mergeGenerics(RewriterBase &rewriter,
                                       linalg::GenericOp first,
                                       linalg::GenericOp second) {
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  for (linalg::GenericOp op : {first, second})
    for (OpOperand *input : op.getDpsInputOperands()) {
      inputs.push_back(input->get());
      maps.push_back(op.getMatchingIndexingMap(input));
    }
  for (linalg::GenericOp op : {first, second})
    for (OpOperand &init : op.getDpsInitsMutable()) {
      inits.push_back(init.get());
      maps.push_back(op.getMatchingIndexingMap(&init));
    }
  SmallVector<Type> resultTypes(first->getResultTypes());
  llvm::append_range(resultTypes, second->getResultTypes());

  rewriter.setInsertionPoint(second);
  auto merged =
      linalg::GenericOp::create(rewriter, second.getLoc(), resultTypes, inputs,
                                inits, maps, first.getIteratorTypesArray());
  // Block arguments: inputs of both, then outputs of both (the operand
  // order above).
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value v : llvm::concat<Value>(inputs, inits)) {
    argTypes.push_back(getElementTypeOrSelf(v.getType()));
    argLocs.push_back(v.getLoc());
  }
  Region &region = merged.getRegion();
  Block *body = rewriter.createBlock(&region, region.end(), argTypes, argLocs);
  IRMapping mapping;
  unsigned inputBase = 0, initBase = inputs.size();
  SmallVector<Value> yielded;
  for (linalg::GenericOp op : {first, second}) {
    Block *old = op.getBody();
    unsigned numInputs = op.getNumDpsInputs();
    for (unsigned i = 0; i < numInputs; ++i)
      mapping.map(old->getArgument(i), body->getArgument(inputBase + i));
    for (unsigned i = 0, e = op.getNumDpsInits(); i < e; ++i)
      mapping.map(old->getArgument(numInputs + i),
                  body->getArgument(initBase + i));
    inputBase += numInputs;
    initBase += op.getNumDpsInits();
    rewriter.setInsertionPointToEnd(body);
    for (Operation &inner : old->without_terminator())
      rewriter.clone(inner, mapping);
    for (Value v : old->getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(v));
  }
  linalg::YieldOp::create(rewriter, second.getLoc(), yielded);

  unsigned n = first->getNumResults();
  rewriter.replaceOp(first, merged->getResults().take_front(n));
  rewriter.replaceOp(second, merged->getResults().drop_front(n));
  return merged;
}

namespace {
struct MergeSiblingsPass
    : public tessel::impl::MergeSiblingsPassBase<MergeSiblingsPass> {
  using MergeSiblingsPassBase::MergeSiblingsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = TargetAttr::lookup(func);
    int64_t registers =
        target && target.isCPU() ? cpuModelParams(target).vectorRegisters : 0;
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<std::pair<Operation *, Operation *>> remarked;
    for (bool progress = true; progress;) {
      progress = false;
      SmallVector<linalg::GenericOp> generics = fusableGenerics(func);
      for (auto [i, first] : llvm::enumerate(generics)) {
        for (linalg::GenericOp second : ArrayRef(generics).drop_front(i + 1)) {
          std::optional<SiblingMergeEstimate> estimate =
              estimateSiblingMerge(first, second);
          // Ops over other loops, or sharing nothing, are not siblings:
          // no remark.
          if (!estimate || estimate->sharedInputs == 0)
            continue;
          std::string why = estimate->blocker;
          if (why.empty() && registers > 0 && estimate->registers > registers)
            why = "the merged body needs " +
                  std::to_string(estimate->registers) +
                  " vector registers, the target has " +
                  std::to_string(registers);
          if (!why.empty()) {
            if (remarked.insert({first, second}).second)
              second->emitRemark()
                  << "not merged with the linalg.generic at " << first->getLoc()
                  << ", which reads the same input: " << why;
            continue;
          }
          InFlightDiagnostic remark = second->emitRemark();
          remark << "merged with the linalg.generic at " << first->getLoc()
                 << ": " << estimate->sharedInputs
                 << " input(s) read once for both, " << estimate->registers
                 << " vector registers";
          if (registers > 0)
            remark << " (of " << registers << ")";
          remark.report();
          linalg::GenericOp merged = mergeGenerics(rewriter, first, second);
          // The operands both read, read once (the rewrite creates its op
          // at the insertion point).
          rewriter.setInsertionPoint(merged);
          (void)linalg::deduplicateOperandsAndRemoveDeadResults(
              rewriter, merged, /*removeOutputs=*/false);
          progress = true;
          break;
        }
        if (progress)
          break;
      }
    }
  }
};
} // namespace

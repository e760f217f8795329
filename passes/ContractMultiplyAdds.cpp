//===- ContractMultiplyAdds.cpp - Multiplies and adds as fused multiply-adds //
//
// Runs the patterns of Utils/MultiplyAdds.h over the ops nested in the
// pass's anchor: in the GPU pipelines, each gpu.module after its kernels'
// loops are final, so no analysis before it (contraction and reduction
// matching, which look for arith.mulf / arith.addf) sees a math.fma.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "passes/Utils/MultiplyAdds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#define DEBUG_TYPE "tessel-contract-multiply-adds"

namespace mlir::tessel {
#define GEN_PASS_DEF_CONTRACTMULTIPLYADDSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct ContractMultiplyAddsPass
    : public tessel::impl::ContractMultiplyAddsPassBase<
          ContractMultiplyAddsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Each rewrite touches only its add and its multiply, so one walk
    // finds every candidate; unlike a greedy driver it leaves the rest of
    // the kernel (dead ops, foldable constants) exactly as it was.
    SmallVector<Operation *> candidates;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::AddFOp, arith::SubFOp>(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : candidates)
      (void)tessel::contractMultiplyAdd(rewriter, op);
  }
};
} // namespace

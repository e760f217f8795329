//===- LowerLinalgToAffine.cpp - linalg on memrefs to affine loops -------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tessel-lower-linalg-to-affine"

namespace mlir::tessel {
#define GEN_PASS_DEF_LOWERLINALGTOAFFINEPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct LowerLinalgToAffinePass
    : public tessel::impl::LowerLinalgToAffinePassBase<
          LowerLinalgToAffinePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    bool ok = true;
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    for (linalg::LinalgOp op : ops) {
      if (!op.hasPureBufferSemantics()) {
        op->emitOpError() << "operates on tensors; it must be bufferized "
                           "before lowering to affine loops";
        ok = false;
        continue;
      }
      rewriter.setInsertionPoint(op);
      // Dynamic extents computed inside scf loops (the partial tiles of
      // fused nests) are not valid affine dimensions or symbols there:
      // such ops get scf.for loops, which the later lowering treats alike.
      if (op.hasDynamicShape() &&
          !isa_and_nonnull<func::FuncOp>(op->getParentOp())) {
        if (failed(linalg::linalgOpToLoops(rewriter, op))) {
          op->emitOpError() << "cannot be lowered to loops";
          ok = false;
          continue;
        }
        rewriter.eraseOp(op);
        continue;
      }
      if (failed(linalg::linalgOpToAffineLoops(rewriter, op))) {
        op->emitOpError() << "cannot be lowered to affine loops";
        ok = false;
        continue;
      }
      rewriter.eraseOp(op);
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace

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
    // Bufferization leaves copies as memref.copy, which upstream lowers to a
    // call into libmlir_c_runner_utils for strided views; as linalg.copy it
    // becomes an affine nest like everything else and needs no runtime.
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    bool ok = true;
    for (memref::CopyOp copy : copies) {
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType())) {
        copy.emitOpError() << "copies unranked memrefs, which cannot be "
                              "lowered to affine loops";
        ok = false;
        continue;
      }
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }

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

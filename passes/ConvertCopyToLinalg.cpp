//===- ConvertCopyToLinalg.cpp - memref.copy → linalg.copy ----------------===//
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tessel-convert-copy-to-linalg"

namespace mlir::tessel {
#define GEN_PASS_DEF_CONVERTCOPYTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct ConvertCopyToLinalgPass
    : public tessel::impl::ConvertCopyToLinalgPassBase<
          ConvertCopyToLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    IRRewriter rewriter(&getContext());
    bool ok = true;
    for (memref::CopyOp copy : copies) {
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType())) {
        copy.emitOpError() << "copies unranked memrefs, which Tessel cannot "
                              "lower";
        ok = false;
        continue;
      }
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
    if (!ok)
      signalPassFailure();
  }
};
} // namespace

//===- PadBufferRows.cpp - Line-aligned rows for local tile buffers -------===//
//
// Runs Utils/PadBufferRows.h over the static local buffers of a function
// for a CPU target: each buffer whose rows are not whole cache lines gets
// longer rows, or a remark saying why not.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "passes/Utils/PadBufferRows.h"
#include "passes/Utils/Remarks.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tessel-pad-buffer-rows"

namespace mlir::tessel {
#define GEN_PASS_DEF_PADBUFFERROWSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct PadBufferRowsPass
    : public tessel::impl::PadBufferRowsPassBase<PadBufferRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    tessel::TargetAttr target = tessel::TargetAttr::lookup(func);
    if (!target || !target.isCPU())
      return;
    int64_t line = target.getCacheLine() > 0 ? target.getCacheLine() : 64;
    SmallVector<Operation *> allocs;
    func.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp>(op))
        allocs.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *alloc : allocs) {
      std::string why;
      std::optional<int64_t> padded =
          tessel::paddedRowExtent(alloc, line, minRowLines, why);
      auto type = cast<MemRefType>(alloc->getResult(0).getType());
      if (!padded) {
        if (!why.empty())
          alloc->emitRemark() << "rows of " << type << " not padded: " << why;
        continue;
      }
      alloc->emitRemark() << "rows of " << type << " padded from "
                          << type.getShape().back() << " to " << *padded
                          << " elements: each starts at a " << line
                          << "-byte line";
      tessel::padBufferRows(rewriter, alloc, *padded, line);
    }
  }
};
} // namespace

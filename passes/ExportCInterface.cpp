//===- ExportCInterface.cpp - Mark public functions for the C ABI --------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#define DEBUG_TYPE "tessel-export-c-interface"

namespace mlir::tessel {
#define GEN_PASS_DEF_EXPORTCINTERFACEPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {
struct ExportCInterfacePass
    : public tessel::impl::ExportCInterfacePassBase<ExportCInterfacePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    UnitAttr unit = UnitAttr::get(ctx);
    BoolAttr readOnly = BoolAttr::get(ctx, false);
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), unit);
      for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<TensorType>(type))
          func.setArgAttr(index,
                          bufferization::BufferizationDialect::kWritableAttrName,
                          readOnly);
    }
  }
};
} // namespace

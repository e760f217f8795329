//===- ContractMultiplyAdds.cpp - Let multiply-adds fuse into FMAs --------===//
//
// Marks every multiply-add pair (Utils/MultiplyAdds.h) nested in the pass's
// anchor: in the GPU pipelines, each gpu.module, whose kernels LLVM's
// backends then compile with one fused multiply-add per pair.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "passes/Utils/MultiplyAdds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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
    // Marking only sets attributes, so the walk may mark as it goes.
    getOperation()->walk(
        [](Operation *op) { (void)tessel::allowMultiplyAddContraction(op); });
  }
};
} // namespace

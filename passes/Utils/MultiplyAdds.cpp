//===- MultiplyAdds.cpp - Multiplies and adds that may fuse into an FMA ---===//
#include "passes/Utils/MultiplyAdds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

/// The product `value` when it is a multiply that `user` may absorb: used
/// only there, and in the same block.
static arith::MulFOp absorbableProduct(Value value, Operation *user) {
  auto mul = value.getDefiningOp<arith::MulFOp>();
  if (!mul || !mul->hasOneUse() || mul->getBlock() != user->getBlock())
    return {};
  return mul;
}

static void addContract(Operation *op) {
  auto fastMath = cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlags flags = fastMath.getFastMathFlagsAttr().getValue();
  op->setAttr(fastMath.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), flags | arith::FastMathFlags::contract));
}

LogicalResult mlir::tessel::allowMultiplyAddContraction(Operation *op) {
  if (!isa<arith::AddFOp, arith::SubFOp>(op))
    return failure();
  // One product per add: offered both of a * b - c * d, the backend would
  // pick which to fuse; offered the first only, the choice stays ours.
  for (Value operand : op->getOperands()) {
    if (arith::MulFOp mul = absorbableProduct(operand, op)) {
      addContract(mul);
      addContract(op);
      return success();
    }
  }
  return failure();
}

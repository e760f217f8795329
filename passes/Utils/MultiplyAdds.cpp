//===- MultiplyAdds.cpp - a * b + c as one fused multiply-add -------------===//
#include "passes/Utils/MultiplyAdds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

/// The product `value` when it is a multiply that `user` may absorb: used
/// only there, and in the same block. A product made in another block (one
/// hoisted out of the add's loop) stays where it was put.
static arith::MulFOp absorbableProduct(Value value, Operation *user) {
  auto mul = value.getDefiningOp<arith::MulFOp>();
  if (!mul || !mul->hasOneUse() || mul->getBlock() != user->getBlock())
    return {};
  return mul;
}

LogicalResult mlir::tessel::contractMultiplyAdd(RewriterBase &rewriter,
                                                Operation *op) {
  bool subtract = isa<arith::SubFOp>(op);
  if (!subtract && !isa<arith::AddFOp>(op))
    return failure();
  auto flags = [](Operation *o) {
    return cast<arith::ArithFastMathInterface>(o)
        .getFastMathFlagsAttr()
        .getValue();
  };
  // An add takes the first product it finds; a subtract a - b either
  // a = x * y (x * y + (-b)) or b = x * y ((-x) * y + a).
  for (unsigned i = 0; i < 2; ++i) {
    arith::MulFOp mul = absorbableProduct(op->getOperand(i), op);
    if (!mul)
      continue;
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    auto shared = arith::FastMathFlagsAttr::get(rewriter.getContext(),
                                                flags(mul) & flags(op));
    Value lhs = mul.getLhs();
    Value addend = op->getOperand(1 - i);
    if (subtract && i == 0)
      addend = arith::NegFOp::create(rewriter, loc, addend, shared);
    else if (subtract)
      lhs = arith::NegFOp::create(rewriter, loc, lhs, shared);
    Value fma =
        math::FmaOp::create(rewriter, loc, lhs, mul.getRhs(), addend, shared);
    rewriter.replaceOp(op, fma);
    rewriter.eraseOp(mul);
    return success();
  }
  return failure();
}

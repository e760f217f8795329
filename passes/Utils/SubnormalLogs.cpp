//===- SubnormalLogs.cpp - f32 logarithms of subnormal inputs -------------===//
#include "passes/Utils/SubnormalLogs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cfloat>
#include <cmath>

using namespace mlir;

Operation *mlir::tessel::rescaleSubnormalLogInput(OpBuilder &b, Operation *op) {
  if (!isa<math::LogOp, math::Log2Op>(op))
    return nullptr;
  Value x = op->getOperand(0);
  Type type = x.getType();
  if (!getElementTypeOrSelf(type).isF32() ||
      (isa<ShapedType>(type) && !isa<VectorType>(type)))
    return nullptr;
  Location loc = op->getLoc();
  b.setInsertionPoint(op);
  auto constant = [&](double value) -> Value {
    auto attr = b.getF32FloatAttr(static_cast<float>(value));
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(vector, attr));
    return arith::ConstantOp::create(b, loc, attr);
  };
  // Negative inputs and NaN compare as they did: log gives NaN either way.
  Value subnormal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                          constant(FLT_MIN));
  Value scaled =
      arith::MulFOp::create(b, loc, x, constant(std::ldexp(1.0, 23)));
  Value input = arith::SelectOp::create(b, loc, subnormal, scaled, x);
  Operation *log = b.clone(*op);
  log->setOperand(0, input);
  double logOfScale = isa<math::LogOp>(op) ? 23.0 * std::log(2.0) : 23.0;
  Value corrected =
      arith::SubFOp::create(b, loc, log->getResult(0), constant(logOfScale));
  Value result =
      arith::SelectOp::create(b, loc, subnormal, corrected, log->getResult(0));
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return log;
}

//===- SubnormalLogs.h - f32 logarithms of subnormal inputs -----*- C++ -*-===//
//
// Upstream's polynomial log and log2 (populateMathPolynomialApproximation-
// Patterns) clamp their input to the smallest normal float, so every
// subnormal input gets log(2^-126): log(1e-45) came out as -87.34 instead
// of -103.28, where PyTorch, NumPy and libm are exact. Scaling a subnormal
// input by 2^23 brings it into the normal range; the log of the scale is
// subtracted afterwards. One compare, a multiply and two selects per
// value, and still one logarithm.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_SUBNORMALLOGS_H
#define TESSEL_PASSES_UTILS_SUBNORMALLOGS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace mlir::tessel {

/// Rewrites `op`, a math.log or math.log2 on f32 scalars or vectors, as
/// the same op on its input scaled by 2^23 where the input is below the
/// smallest normal float, minus 23 log(2) (23) there. Returns the new
/// logarithm (for the approximation to rewrite next), or null when `op` is
/// not such an op (left as it is).
Operation *rescaleSubnormalLogInput(OpBuilder &b, Operation *op);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_SUBNORMALLOGS_H

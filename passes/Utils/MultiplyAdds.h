//===- MultiplyAdds.h - a * b + c as one fused multiply-add -----*- C++ -*-===//
//
// A multiply whose only use is an add (or a subtract) in the same block
// becomes one math.fma: one rounding instead of two and one instruction
// instead of two on every target Tessel compiles for. C compilers contract
// the same way by default (-ffp-contract=on; nvcc's --fmad=true), so
// results match what users get from hand-written kernels.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_MULTIPLYADDS_H
#define TESSEL_PASSES_UTILS_MULTIPLYADDS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// Rewrites `op`, an arith.addf or arith.subf one of whose operands is an
/// arith.mulf with no other use, made in the same block, into a
/// math.fma (a negated operand for a subtract), with the fast-math flags
/// the multiply and the add share. Fails, leaving the IR alone, otherwise.
LogicalResult contractMultiplyAdd(RewriterBase &rewriter, Operation *op);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_MULTIPLYADDS_H

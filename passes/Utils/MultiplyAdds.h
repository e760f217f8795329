//===- MultiplyAdds.h - Multiplies and adds that may fuse into an FMA -*- C++
//-*-===//
//
// A multiply whose only use is an add (or a subtract) in the same block may
// be computed with it as one fused multiply-add: one rounding instead of
// two, one instruction instead of two. The pair is marked with the arith
// `contract` fast-math flag rather than rewritten into math.fma: LLVM's
// backends then fuse it into their native instruction for every type they
// have one for (NVPTX: fma.rn.f32, .f16, .f16x2, .bf16, .f64), whereas
// math.fma on NVIDIA becomes a libdevice call (__nv_fmaf) that f16 reaches
// through f32.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_MULTIPLYADDS_H
#define TESSEL_PASSES_UTILS_MULTIPLYADDS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir::tessel {

/// Adds `contract` to the fast-math flags of `op`, an arith.addf or
/// arith.subf, and of the arith.mulf one of its operands is, when that
/// multiply has no other use and is in the same block (a product made in
/// another block, one hoisted out of the add's loop, stays apart). Fails,
/// leaving the IR alone, otherwise.
LogicalResult allowMultiplyAddContraction(Operation *op);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_MULTIPLYADDS_H

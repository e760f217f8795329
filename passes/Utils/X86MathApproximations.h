//===- X86MathApproximations.h - Shorter math on AVX-512 --------*- C++ -*-===//
//
// Polynomial approximations that use x86 instructions the portable upstream
// expansions cannot assume. Upstream's f32 exp builds 2^k from an integer
// (clamp k, convert, add the bias, shift, multiply: 7 vector
// instructions per 16 floats); AVX-512's vscalefps computes p * 2^k from a
// float k in one and handles overflow, underflow and denormal results
// itself, which also drops the clamps on k. The exp is most of a
// softmax's arithmetic (and the softmax inside fused attention), which on
// one core is bound by it rather than by memory.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_X86MATHAPPROXIMATIONS_H
#define TESSEL_PASSES_UTILS_X86MATHAPPROXIMATIONS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// `math.exp` on static f32 vectors whose element count is a multiple of 16
/// becomes a Cody-Waite reduction, a degree-6 polynomial and one
/// `x86vector.avx512.mask.scalef` per 16 lanes (13 vector
/// instructions per 16 floats instead of 20). Needs AVX-512F and
/// `convert-vector-to-llvm{enable-x86vector}` downstream. `benefit` lets it
/// win over upstream's portable pattern in the same set.
void populateAVX512ExpApproximationPatterns(RewritePatternSet &patterns,
                                            PatternBenefit benefit = 2);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_X86MATHAPPROXIMATIONS_H

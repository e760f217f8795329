//===- ErfApproximation.h - A shorter f32 erf -------------------*- C++ -*-===//
//
// GELU (0.5 x (1 + erf(x / sqrt 2))) is the epilogue of most transformer
// matmuls, applied to every accumulator of the last kc block. Upstream's
// f32 erf picks one of three rational pieces by interval: about 35 vector
// instructions (compares, a dozen selects of coefficients, two
// polynomials, a division) per vector, which costs ~5% of a K = 1024
// matmul on its own. One rational function over the whole clamped range
// needs no selects.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_ERFAPPROXIMATION_H
#define TESSEL_PASSES_UTILS_ERFAPPROXIMATION_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// `math.erf` on f32 scalars and fixed-size vectors becomes
/// x P(x^2) / Q(x^2) on x clamped to [-4, 4] (P of degree 6, Q of degree
/// 4), clamped to [-1, 1]: 17 instructions and a division, at most 7.2
/// ulp from erf (4e-7 absolute). `benefit`
/// lets it win over upstream's pattern in the same set.
void populateRationalErfApproximationPatterns(RewritePatternSet &patterns,
                                              PatternBenefit benefit = 2);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_ERFAPPROXIMATION_H

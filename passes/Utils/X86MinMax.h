//===- X86MinMax.h - IEEE-754 maximum / minimum on AVX-512DQ ----*- C++ -*-===//
//
// arith.maximumf / minimumf are IEEE-754 2019 maximum / minimum: NaN in
// either operand gives NaN, and -0 orders below +0. x86 has no instruction
// for exactly that before AVX10.2, so LLVM 22 expands a 16-lane f32
// maximum into six (sign-bit mask, two blends, vmaxps, an unordered
// compare, a masked move), about half of a softmax row-max loop's
// instructions and a long chain through its accumulators. AVX-512DQ's
// vrangeps with "max (min), sign from the comparison" orders signed zeros
// and propagates signalling NaNs, but returns the number when the other
// operand is a quiet NaN (IEEE 754-2008 maxNum); one unordered compare and
// a masked add (NaN + x is NaN) restore the propagation: three
// instructions.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_X86MINMAX_H
#define TESSEL_PASSES_UTILS_X86MINMAX_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// `arith.maximumf` / `arith.minimumf` on static f32 (f64) vectors whose
/// element count is a multiple of 16 (8) become one
/// `llvm.x86.avx512.mask.range.ps.512` (`.pd.512`) per 512 bits, plus,
/// unless the op has the `nnan` flag, `cmpf uno` + `addf` + `select` on
/// the whole vector. Needs AVX-512DQ.
void populateAVX512DQMinMaxPatterns(RewritePatternSet &patterns);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_X86MINMAX_H

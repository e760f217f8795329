//===- AMDMatrixFragments.h - Lanes of AMD matrix instructions -*- C++ -*-===//
//
// Which elements of a 16x16 fragment each lane of a wavefront holds for the
// AMD matrix instructions Tessel's kernels use, from the CDNA and RDNA3 ISA
// manuals (the same layouts as IREE's MFMA_*_16x16x16_* and
// WMMAR3_*_16x16x16_* intrinsics):
//
//   MFMA 16x16x16, 64 lanes, 4 values per lane (lane l, value e):
//     A (m x k): (l mod 16, 4 (l / 16) + e)
//     B (k x n): (4 (l / 16) + e, l mod 16)
//     C (m x n): (4 (l / 16) + e, l mod 16)
//   RDNA3 WMMA 16x16x16, 32 lanes:
//     A: 16 values, (l mod 16, e), lanes 16-31 repeating lanes 0-15
//     B: 16 values, (e, l mod 16), likewise
//     C: 8 values, (2 e + l / 16, l mod 16)
//
// Every coordinate is c_low (l mod 16) + c_high (l / 16) + c_value e, which
// is what FragmentAxis holds.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_AMDMATRIXFRAGMENTS_H
#define TESSEL_PASSES_UTILS_AMDMATRIXFRAGMENTS_H

#include "passes/CostModel/GPUMatmulTiling.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::tessel {

/// One coordinate of a lane's value: low * (lane mod 16) + high *
/// (lane / 16) + value * e.
struct FragmentAxis {
  int64_t low = 0, high = 0, value = 0;
  int64_t at(int64_t lane, int64_t e) const {
    return low * (lane % 16) + high * (lane / 16) + value * e;
  }
};

/// Where lane l's value e of a fragment lies in the fragment's 16x16
/// matrix, and how many values a lane holds.
struct AMDFragmentLayout {
  int64_t values = 0;
  FragmentAxis row, col;
};

/// The layout of operand `operand` ("AOp", "BOp" or "COp", as
/// gpu.mma_matrix names them) of `unit`'s instruction; values == 0 when
/// `unit` is not an AMD instruction or the operand is unknown.
AMDFragmentLayout amdFragmentLayout(MmaInstruction::Unit unit,
                                    llvm::StringRef operand);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_AMDMATRIXFRAGMENTS_H

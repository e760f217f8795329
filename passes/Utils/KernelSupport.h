//===- KernelSupport.h - What Tessel's CPU kernels accept ------*- C++ -*-===//
//
// The operand contract shared by the passes that rewrite linalg ops into the
// packed matmul kernel, so they accept and explain the same things.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_KERNELSUPPORT_H
#define TESSEL_PASSES_UTILS_KERNELSUPPORT_H

#include "dialects/Tessel/TesselDialect.h"
#include "passes/CostModel/MatmulTiling.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace mlir::tessel {

/// Why `op`'s operands are outside what the f32 kernels handle (not on
/// tensors, not statically shaped, not f32), or empty when they are fine.
/// The reason completes a remark such as "not vectorized: <reason>".
std::string unsupportedKernelOperandsReason(linalg::LinalgOp op);

/// What the CPU cost models read from a cpu #tessel.target.
CPUModelParams cpuModelParams(TargetAttr target);

/// Whether `target`'s LLVM feature list enables `feature` (e.g. "fma",
/// "avx512bf16"): the last +/- of it wins (LLVM's rule); unlisted is off.
bool targetEnablesFeature(TargetAttr target, StringRef feature);

/// Whether an x86 CPU `target` runs 512-bit code with `feature` (e.g.
/// "avx512f", "avx512dq"): the last +/- of it in the feature list wins
/// (LLVM's rule), and the described vectors are 512 bits (a 256-bit
/// description asks for no zmm code).
bool targetHasAVX512Feature(TargetAttr target, StringRef feature);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_KERNELSUPPORT_H

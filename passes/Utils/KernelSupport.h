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

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_KERNELSUPPORT_H

//===- GPUTensorCores.h - What tessel-map-matmul-to-gpu can map -*- C++ -*-===//
//
// The target-side conditions under which tessel-map-matmul-to-gpu puts a
// product on WMMA tensor cores, for passes that prepare work for it (e.g.
// tessel-convert-conv-to-nhwc) and must not pay for a rewrite that the
// mapping then declines.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GPUTENSORCORES_H
#define TESSEL_PASSES_UTILS_GPUTENSORCORES_H

#include "dialects/Tessel/TesselDialect.h"
#include "passes/CostModel/GPUMatmulTiling.h"

#include "mlir/IR/Types.h"

#include <string>

namespace mlir::tessel {

/// `type` as MLIR prints it ("f16", "i8"), as tensor-core shapes and
/// remarks name element types.
std::string typeName(Type type);

/// The GPU matmul models' figures from `target`.
GPUModelParams gpuModelParams(TargetAttr target);

/// Why an unbatched `m` x `n` x `k` product of `input` x `input` -> `acc`
/// elements, its operands row-major and aligned for cp.async, would not be
/// mapped to WMMA tensor cores on `target` by tessel-map-matmul-to-gpu
/// with its default options; empty when it would. Checks the target kind,
/// the element types, the target's `mma` list, the warp size, the model's
/// figures and that a tiling fits.
std::string whyNoTensorCoreProduct(TargetAttr target, Type input, Type acc,
                                   int64_t m, int64_t n, int64_t k);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GPUTENSORCORES_H

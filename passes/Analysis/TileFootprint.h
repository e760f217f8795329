//===- TileFootprint.h - Data touched by a tile of a loop nest ---*- C++ -*-===//
//
// The rectangular footprint of an affine access over a box of iterations:
// what a tile of a consumer reads from an operand, hence how much of its
// producer a fused tile must (re)compute. Upstream's affine region analysis
// (MemRefRegion) answers this for affine.for nests on memrefs via
// FlatAffineValueConstraints; fusion decisions are taken earlier, on linalg
// ops over tensors, where the indexing maps already are the access
// functions, so a direct evaluation of the maps suffices.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_ANALYSIS_TILEFOOTPRINT_H
#define TESSEL_PASSES_ANALYSIS_TILEFOOTPRINT_H

#include "mlir/IR/AffineMap.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <optional>

namespace mlir::tessel {

/// Extent of each result of `map` when its dimensions range over boxes of
/// `loopExtents` iterations (extent 1 for a fixed dimension). Exact for
/// results that are sums of dimensions with constant coefficients plus a
/// constant; std::nullopt when a result is not (mod, floordiv, symbols).
std::optional<SmallVector<int64_t>>
accessFootprint(AffineMap map, ArrayRef<int64_t> loopExtents);

/// Extents of the loops of an op whose output access `outputMap` (a
/// permutation or projected permutation) must cover a box of `resultExtents`
/// elements; loops the map does not use keep their extent in `fullExtents`
/// (reductions). std::nullopt when the map is not a projected permutation.
std::optional<SmallVector<int64_t>>
iterationBoxForResult(AffineMap outputMap, ArrayRef<int64_t> resultExtents,
                      ArrayRef<int64_t> fullExtents);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_ANALYSIS_TILEFOOTPRINT_H

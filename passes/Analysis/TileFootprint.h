//===- TileFootprint.h - Data touched by a tile of a loop nest ---*- C++
//-*-===//
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

/// A box of indices: per dimension, the first index and the count.
struct IndexBox {
  SmallVector<int64_t> offsets;
  SmallVector<int64_t> extents;

  bool operator==(const IndexBox &other) const {
    return offsets == other.offsets && extents == other.extents;
  }
};

/// The smallest box holding `a` and `b` (same rank).
IndexBox boundingBox(const IndexBox &a, const IndexBox &b);

/// The slice of an operand that tiling takes for the access `map` when the
/// loops range over `loops`. It mirrors upstream's computeSliceParameters:
/// the slice starts at the linear part of the map at the loops' first
/// indices, and its size is the map at the last indices, minus that start,
/// plus one, so a constant in the map widens the slice instead of shifting
/// it (a read through (i + 2) of a tile [o, o + n) takes [o, o + n + 2)).
/// Exact for results that are sums of dimensions with constant
/// coefficients plus a constant; std::nullopt otherwise (mod, floordiv,
/// symbols).
std::optional<IndexBox> tiledSliceOfAccess(AffineMap map,
                                           const IndexBox &loops);

/// Whether `map` is one upstream's tiling slices right: every result a sum
/// of dimensions with non-negative coefficients plus a constant. Tiling
/// takes an operand's slice at the map of the tile's first indices, of the
/// map of the tile sizes minus one plus one, and keeps the map over the
/// tile's local indices: a reversed read (36 - i) gets a slice of the wrong
/// place, and a division or mod the wrong elements.
bool isNonDecreasingAccess(AffineMap map);

/// The box of loops of an op whose output access `outputMap` (a projected
/// permutation) must cover `result`; loops the map does not use range over
/// all of `fullExtents` (reductions). std::nullopt when the map is not a
/// projected permutation.
std::optional<IndexBox> iterationBoxForResult(AffineMap outputMap,
                                              const IndexBox &result,
                                              ArrayRef<int64_t> fullExtents);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_ANALYSIS_TILEFOOTPRINT_H

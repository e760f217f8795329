//===- TileFootprint.cpp - Data touched by a tile of a loop nest ----------===//
#include "passes/Analysis/TileFootprint.h"

#include "mlir/IR/AffineExprVisitor.h"

using namespace mlir;
using namespace mlir::tessel;

namespace {
/// Coefficients of a linear affine expression in the dimensions.
struct LinearForm {
  SmallVector<int64_t> coefficients;
  int64_t constant = 0;
  bool linear = true;
};
} // namespace

static void collectLinear(AffineExpr expr, int64_t scale, LinearForm &form) {
  if (!form.linear)
    return;
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    form.coefficients[dim.getPosition()] += scale;
    return;
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    form.constant += scale * c.getValue();
    return;
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary) {
    form.linear = false; // a symbol
    return;
  }
  switch (binary.getKind()) {
  case AffineExprKind::Add:
    collectLinear(binary.getLHS(), scale, form);
    collectLinear(binary.getRHS(), scale, form);
    return;
  case AffineExprKind::Mul:
    if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS())) {
      collectLinear(binary.getLHS(), scale * c.getValue(), form);
      return;
    }
    if (auto c = dyn_cast<AffineConstantExpr>(binary.getLHS())) {
      collectLinear(binary.getRHS(), scale * c.getValue(), form);
      return;
    }
    form.linear = false;
    return;
  default:
    form.linear = false;
    return;
  }
}

IndexBox mlir::tessel::boundingBox(const IndexBox &a, const IndexBox &b) {
  IndexBox box;
  for (auto [ao, ae, bo, be] :
       llvm::zip_equal(a.offsets, a.extents, b.offsets, b.extents)) {
    int64_t lo = std::min(ao, bo);
    box.offsets.push_back(lo);
    box.extents.push_back(std::max(ao + ae, bo + be) - lo);
  }
  return box;
}

std::optional<IndexBox>
mlir::tessel::tiledSliceOfAccess(AffineMap map, const IndexBox &loops) {
  if (map.getNumDims() != loops.extents.size() ||
      loops.offsets.size() != loops.extents.size())
    return std::nullopt;
  IndexBox slice;
  for (AffineExpr result : map.getResults()) {
    LinearForm form;
    form.coefficients.assign(map.getNumDims(), 0);
    collectLinear(result, 1, form);
    if (!form.linear)
      return std::nullopt;
    // Start: the linear part at the first indices. Size: the map at the
    // last indices (constant included) minus the start, plus one. Every
    // index in between is read when a coefficient is 1, the case that
    // matters; strided reads over-approximate by their holes, as upstream's
    // slices do.
    int64_t start = 0, extent = 1 + form.constant;
    for (auto [c, o, n] :
         llvm::zip_equal(form.coefficients, loops.offsets, loops.extents)) {
      start += c * o;
      extent += std::abs(c) * (n - 1);
    }
    slice.offsets.push_back(start);
    slice.extents.push_back(std::max<int64_t>(1, extent));
  }
  return slice;
}

std::optional<IndexBox>
mlir::tessel::iterationBoxForResult(AffineMap outputMap, const IndexBox &result,
                                    ArrayRef<int64_t> fullExtents) {
  if (!outputMap.isProjectedPermutation() ||
      outputMap.getNumResults() != result.extents.size() ||
      outputMap.getNumDims() != fullExtents.size())
    return std::nullopt;
  IndexBox box;
  box.offsets.assign(fullExtents.size(), 0);
  box.extents.assign(fullExtents.begin(), fullExtents.end());
  for (auto [expr, offset, extent] : llvm::zip_equal(
           outputMap.getResults(), result.offsets, result.extents)) {
    unsigned d = cast<AffineDimExpr>(expr).getPosition();
    box.offsets[d] = offset;
    box.extents[d] = extent;
  }
  return box;
}

static bool isNonDecreasing(AffineExpr e) {
  switch (e.getKind()) {
  case AffineExprKind::DimId:
  case AffineExprKind::SymbolId:
  case AffineExprKind::Constant:
    return true;
  case AffineExprKind::Add: {
    auto sum = cast<AffineBinaryOpExpr>(e);
    return isNonDecreasing(sum.getLHS()) && isNonDecreasing(sum.getRHS());
  }
  case AffineExprKind::Mul: {
    // Simplified products have their constant factor on the right.
    auto product = cast<AffineBinaryOpExpr>(e);
    auto factor = dyn_cast<AffineConstantExpr>(product.getRHS());
    return factor && factor.getValue() >= 0 &&
           isNonDecreasing(product.getLHS());
  }
  // Divisions never decrease, but upstream's slice keeps the map over the
  // tile's local indices, and (lb + i) floordiv 2 is not lb floordiv 2 +
  // i floordiv 2 for odd lb: wrong slices too.
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv:
  case AffineExprKind::Mod:
    return false;
  }
  return false;
}

bool mlir::tessel::isNonDecreasingAccess(AffineMap map) {
  return llvm::all_of(map.getResults(), isNonDecreasing);
}

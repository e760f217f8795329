//===- TileFootprint.cpp - Data touched by a tile of a loop nest ----------===//
#include "passes/Analysis/TileFootprint.h"

#include "mlir/IR/AffineExprVisitor.h"

using namespace mlir;

namespace {
/// Coefficients of a linear affine expression in the dimensions.
struct LinearForm {
  SmallVector<int64_t> coefficients;
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
  if (isa<AffineConstantExpr>(expr))
    return;
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

std::optional<SmallVector<int64_t>>
mlir::tessel::accessFootprint(AffineMap map, ArrayRef<int64_t> loopExtents) {
  if (map.getNumDims() != loopExtents.size())
    return std::nullopt;
  SmallVector<int64_t> extents;
  for (AffineExpr result : map.getResults()) {
    LinearForm form;
    form.coefficients.assign(map.getNumDims(), 0);
    collectLinear(result, 1, form);
    if (!form.linear)
      return std::nullopt;
    // A linear function over a box spans sum |c_k| (n_k - 1) + 1 values
    // (every value in between is hit when a coefficient is 1, which is the
    // case that matters; strided accesses over-approximate by the holes).
    int64_t extent = 1;
    for (auto [c, n] : llvm::zip(form.coefficients, loopExtents))
      extent += std::abs(c) * (n - 1);
    extents.push_back(extent);
  }
  return extents;
}

std::optional<SmallVector<int64_t>>
mlir::tessel::iterationBoxForResult(AffineMap outputMap,
                                    ArrayRef<int64_t> resultExtents,
                                    ArrayRef<int64_t> fullExtents) {
  if (!outputMap.isProjectedPermutation() ||
      outputMap.getNumResults() != resultExtents.size() ||
      outputMap.getNumDims() != fullExtents.size())
    return std::nullopt;
  SmallVector<int64_t> box(fullExtents);
  for (auto [result, extent] :
       llvm::zip(outputMap.getResults(), resultExtents))
    box[cast<AffineDimExpr>(result).getPosition()] = extent;
  return box;
}

//===- PadBufferRows.cpp - Line-aligned rows for local buffers ------------===//
#include "passes/Utils/PadBufferRows.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

/// Whether every use of `value`, through subviews, accepts a strided
/// layout in place of the identity one. Upstream's multi-buffering has the
/// same subview rewrite, but not as a public utility nor with this check.
static bool usesAcceptStridedLayout(Value value, std::string &why) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      if (use.get() != subview.getSource() ||
          !usesAcceptStridedLayout(subview.getResult(), why))
        return false;
      continue;
    }
    if (isa<memref::LoadOp, memref::StoreOp, memref::DimOp, memref::CopyOp,
            memref::DeallocOp, memref::PrefetchOp, vector::TransferReadOp,
            vector::TransferWriteOp, vector::LoadOp, vector::StoreOp,
            vector::MaskedLoadOp, vector::MaskedStoreOp>(user))
      continue;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user))
      if (linalgOp.hasPureBufferSemantics())
        continue;
    why = "'" + user->getName().getStringRef().str() +
          "' uses it and needs its contiguous layout";
    return false;
  }
  return true;
}

std::optional<int64_t> mlir::tessel::paddedRowExtent(Operation *alloc,
                                                     int64_t lineBytes,
                                                     int64_t minRowLines,
                                                     std::string &why) {
  why.clear();
  if (!isa<memref::AllocOp, memref::AllocaOp>(alloc) || lineBytes <= 0)
    return std::nullopt;
  auto type = cast<MemRefType>(alloc->getResult(0).getType());
  Type element = type.getElementType();
  if (!type.hasStaticShape() || type.getRank() < 2 ||
      !type.getLayout().isIdentity() || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t extent = type.getShape().back();
  int64_t rowBytes = extent * elementBytes;
  int64_t rows = type.getNumElements() / std::max<int64_t>(1, extent);
  if (rowBytes % lineBytes == 0 || rows <= 1 || lineBytes % elementBytes)
    return std::nullopt;
  if (rowBytes < minRowLines * lineBytes) {
    why = "rows of " + std::to_string(rowBytes) + " B are shorter than " +
          std::to_string(minRowLines) + " cache lines";
    return std::nullopt;
  }
  if (!usesAcceptStridedLayout(alloc->getResult(0), why))
    return std::nullopt;
  int64_t perLine = lineBytes / elementBytes;
  return (extent + perLine - 1) / perLine * perLine;
}

/// Rebuilds the subviews of `oldValue` on `newValue` (same offsets, sizes
/// and strides, result types inferred from the new source), recursively,
/// and points the other uses at `newValue`.
static void replaceAndPropagateLayout(RewriterBase &rewriter, Value oldValue,
                                      Value newValue) {
  for (OpOperand &use : llvm::make_early_inc_range(oldValue.getUses())) {
    auto subview = dyn_cast<memref::SubViewOp>(use.getOwner());
    if (!subview) {
      rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(newValue); });
      continue;
    }
    rewriter.setInsertionPoint(subview);
    MemRefType oldResult = subview.getType();
    MemRefType newType = memref::SubViewOp::inferRankReducedResultType(
        oldResult.getShape(), cast<MemRefType>(newValue.getType()),
        subview.getMixedOffsets(), subview.getMixedSizes(),
        subview.getMixedStrides());
    auto rebuilt = memref::SubViewOp::create(
        rewriter, subview.getLoc(), newType, newValue,
        subview.getMixedOffsets(), subview.getMixedSizes(),
        subview.getMixedStrides());
    replaceAndPropagateLayout(rewriter, subview.getResult(),
                              rebuilt.getResult());
    rewriter.eraseOp(subview);
  }
}

void mlir::tessel::padBufferRows(RewriterBase &rewriter, Operation *alloc,
                                 int64_t paddedExtent, int64_t lineBytes) {
  auto type = cast<MemRefType>(alloc->getResult(0).getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = paddedExtent;
  auto paddedType = MemRefType::get(shape, type.getElementType(),
                                    MemRefLayoutAttrInterface(),
                                    type.getMemorySpace());
  std::optional<uint64_t> oldAlignment;
  if (auto a = dyn_cast<memref::AllocOp>(alloc))
    oldAlignment = a.getAlignment();
  else
    oldAlignment = cast<memref::AllocaOp>(alloc).getAlignment();
  IntegerAttr alignment = rewriter.getI64IntegerAttr(std::max<int64_t>(
      lineBytes, static_cast<int64_t>(oldAlignment.value_or(0))));
  rewriter.setInsertionPoint(alloc);
  Location loc = alloc->getLoc();
  Value padded;
  if (isa<memref::AllocOp>(alloc))
    padded = memref::AllocOp::create(rewriter, loc, paddedType, ValueRange{},
                                     alignment);
  else
    padded = memref::AllocaOp::create(rewriter, loc, paddedType, ValueRange{},
                                      alignment);
  SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t s : type.getShape())
    sizes.push_back(rewriter.getIndexAttr(s));
  Value view = memref::SubViewOp::create(rewriter, loc, padded, offsets,
                                         sizes, strides);
  // Deallocations free the padded allocation itself.
  for (OpOperand &use :
       llvm::make_early_inc_range(alloc->getResult(0).getUses()))
    if (isa<memref::DeallocOp>(use.getOwner()))
      rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(padded); });
  replaceAndPropagateLayout(rewriter, alloc->getResult(0), view);
  rewriter.eraseOp(alloc);
}

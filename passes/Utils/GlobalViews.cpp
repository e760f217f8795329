//===- GlobalViews.cpp - Values that are views of a memref global --------===//
#include "passes/Utils/GlobalViews.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace mlir;

SmallVector<Operation *> mlir::tessel::globalViewChain(Value value,
                                                       Operation *region) {
  SmallVector<Operation *> chain;
  Operation *def = value.getDefiningOp();
  while (def && !(region && region->isAncestor(def))) {
    chain.push_back(def);
    if (isa<memref::GetGlobalOp>(def)) {
      std::reverse(chain.begin(), chain.end());
      return chain;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    def = view.getViewSource().getDefiningOp();
  }
  return {};
}

memref::GlobalOp mlir::tessel::lookupGlobal(memref::GetGlobalOp getGlobal) {
  return SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
}

memref::GlobalOp mlir::tessel::constantGlobalOf(Value value) {
  SmallVector<Operation *> chain = globalViewChain(value);
  if (chain.empty())
    return {};
  memref::GlobalOp global =
      lookupGlobal(cast<memref::GetGlobalOp>(chain.front()));
  if (!global || !global.getConstant() || !global.getInitialValue())
    return {};
  return global;
}

FailureOr<ElementsAttr>
mlir::tessel::transposeConstantView(memref::GlobalOp global, MemRefType view,
                                    std::string &why) {
  Type element = view.getElementType();
  MemRefType globalType = global.getType();
  if (element != globalType.getElementType() ||
      !element.isIntOrIndexOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0 || view.getRank() != 2 ||
      !view.hasStaticShape()) {
    why = "the view is not a 2-D matrix of the global's whole-byte elements";
    return failure();
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(view.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic)) {
    why = "the view's strides or offset are not static";
    return failure();
  }
  int64_t rows = view.getDimSize(0), cols = view.getDimSize(1);
  int64_t count = globalType.getNumElements();
  int64_t last = offset + (rows - 1) * strides[0] + (cols - 1) * strides[1];
  int64_t first = offset + std::min<int64_t>(0, (rows - 1) * strides[0]) +
                  std::min<int64_t>(0, (cols - 1) * strides[1]);
  if (rows == 0 || cols == 0 || first < 0 || last >= count) {
    why = "the view reaches outside the global";
    return failure();
  }
  auto transposedType = RankedTensorType::get({cols, rows}, element);
  Attribute init = *global.getInitialValue();
  if (auto splat = dyn_cast<SplatElementsAttr>(init))
    return ElementsAttr(splat.resizeSplat(transposedType));

  // The raw bytes: the global's data is row-major and dense (one element
  // per getIntOrFloatBitWidth() / 8 bytes for whole-byte types).
  ArrayRef<char> data;
  auto resource = dyn_cast<DenseResourceElementsAttr>(init);
  if (resource) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      why = "its dense_resource data is not available";
      return failure();
    }
    data = blob->getData();
  } else if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    data = dense.getRawData();
  } else {
    why = "its initial value is neither dense nor dense_resource";
    return failure();
  }
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  if (int64_t(data.size()) != count * bytes) {
    why = "its data has " + std::to_string(data.size()) + " bytes, not " +
          std::to_string(count * bytes);
    return failure();
  }
  std::vector<char> transposed(size_t(rows * cols * bytes));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(
          &transposed[size_t((c * rows + r) * bytes)],
          &data[size_t((offset + r * strides[0] + c * strides[1]) * bytes)],
          size_t(bytes));
  if (resource)
    return ElementsAttr(DenseResourceElementsAttr::get(
        transposedType, "__tessel_transposed",
        HeapAsmResourceBlob::allocateAndCopyWithAlign(
            transposed, std::max<size_t>(alignof(int64_t), size_t(bytes)),
            /*dataIsMutable=*/false)));
  return ElementsAttr(
      DenseElementsAttr::getFromRawBuffer(transposedType, transposed));
}

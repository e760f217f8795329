//===- GlobalViews.cpp - Values that are views of a memref global --------===//
#include "passes/Utils/GlobalViews.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/CheckedArithmetic.h"

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

/// The global's data as raw bytes (row-major, whole bytes per element); an
/// empty optional when it is not available. Not for splats.
static std::optional<ArrayRef<char>> rawData(Attribute init) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return blob->getData();
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(init))
    return dense.getRawData();
  return std::nullopt;
}

std::string mlir::tessel::checkConstantTransposable(memref::GlobalOp global,
                                                    MemRefType view) {
  MemRefType globalType = global.getType();
  if (!global.getConstant() || !global.getInitialValue())
    return "it is not a constant with an initial value";
  if (!globalType.getLayout().isIdentity() || !globalType.hasStaticShape())
    return "the global's type is not a static, identity-layout memref";
  Type element = view.getElementType();
  if (element != globalType.getElementType() || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return "its elements are not whole bytes of the global's element type";
  if (view.getRank() != 2 || !view.hasStaticShape())
    return "the view is not a statically shaped 2-D matrix";
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(view.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return "the view's strides or offset are not static";
  int64_t rows = view.getDimSize(0), cols = view.getDimSize(1);
  // The lowest and highest elements the view reaches, without overflow.
  std::optional<int64_t> first = offset, last = offset;
  int64_t sizes[] = {rows, cols};
  for (auto [size, stride] : llvm::zip(sizes, strides)) {
    std::optional<int64_t> reach = llvm::checkedMul(size - 1, stride);
    if (!reach || !first || !last)
      return "the view reaches outside the global";
    first = llvm::checkedAdd(*first, std::min<int64_t>(0, *reach));
    last = llvm::checkedAdd(*last, std::max<int64_t>(0, *reach));
  }
  if (rows == 0 || cols == 0 || !first || !last || *first < 0 ||
      *last >= globalType.getNumElements())
    return "the view reaches outside the global";
  Attribute init = *global.getInitialValue();
  if (isa<SplatElementsAttr>(init))
    return {};
  std::optional<ArrayRef<char>> data = rawData(init);
  if (!data)
    return isa<DenseResourceElementsAttr>(init)
               ? "its dense_resource data is not available"
               : "its initial value is neither dense nor dense_resource";
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  if (int64_t(data->size()) != globalType.getNumElements() * bytes)
    return "its data has " + std::to_string(data->size()) + " bytes, not " +
           std::to_string(globalType.getNumElements() * bytes);
  return {};
}

memref::GlobalOp mlir::tessel::transposableConstantOf(Value value,
                                                      std::string &why) {
  memref::GlobalOp global = constantGlobalOf(value);
  if (!global)
    return {};
  if (llvm::any_of(globalViewChain(value),
                   [](Operation *op) { return isa<memref::ViewOp>(op); })) {
    why = "it is read through a memref.view (a byte shift)";
    return {};
  }
  why = checkConstantTransposable(global, cast<MemRefType>(value.getType()));
  return why.empty() ? global : memref::GlobalOp();
}

ElementsAttr mlir::tessel::transposeConstantView(memref::GlobalOp global,
                                                 MemRefType view) {
  assert(checkConstantTransposable(global, view).empty() &&
         "checked by the caller");
  Type element = view.getElementType();
  int64_t rows = view.getDimSize(0), cols = view.getDimSize(1);
  auto [strides, offset] = view.getStridesAndOffset();
  auto transposedType = RankedTensorType::get({cols, rows}, element);
  Attribute init = *global.getInitialValue();
  if (auto splat = dyn_cast<SplatElementsAttr>(init))
    return splat.resizeSplat(transposedType);

  ArrayRef<char> data = *rawData(init);
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  size_t size = size_t(rows * cols * bytes);
  auto transpose = [&](MutableArrayRef<char> out) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        std::memcpy(
            &out[size_t((c * rows + r) * bytes)],
            &data[size_t((offset + r * strides[0] + c * strides[1]) * bytes)],
            size_t(bytes));
  };
  if (isa<DenseResourceElementsAttr>(init)) {
    // 64-byte aligned: enough for any element type, and a power of two.
    AsmResourceBlob blob = HeapAsmResourceBlob::allocate(size, 64);
    transpose(blob.getMutableData());
    return DenseResourceElementsAttr::get(transposedType, "__tessel_transposed",
                                          std::move(blob));
  }
  std::vector<char> transposed(size);
  transpose(transposed);
  return DenseElementsAttr::getFromRawBuffer(transposedType, transposed);
}

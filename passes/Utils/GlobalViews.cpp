//===- GlobalViews.cpp - Values that are views of a memref global --------===//
#include "passes/Utils/GlobalViews.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>

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

//===- AddressRemap.cpp - Addresses of another loop iteration -------------===//
#include "passes/Utils/AddressRemap.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

static bool isRemappableImpl(Value value, Operation *loop, unsigned depth) {
  Operation *def = value.getDefiningOp();
  if (!def || !loop->isProperAncestor(def))
    return true;
  if (depth > 32 || !isPure(def) || def->getNumRegions() != 0)
    return false;
  return llvm::all_of(def->getOperands(), [&](Value operand) {
    return isRemappableImpl(operand, loop, depth + 1);
  });
}

bool mlir::tessel::isRemappable(Value value, Operation *loop) {
  return isRemappableImpl(value, loop, 0);
}

FailureOr<Value> mlir::tessel::remapAddress(OpBuilder &b, Value value,
                                            IRMapping &mapping,
                                            Operation *loop) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  if (!def || !loop->isProperAncestor(def))
    return value;
  if (!isPure(def) || def->getNumRegions() != 0)
    return failure();
  bool dependsOnIV = false;
  for (Value operand : def->getOperands()) {
    FailureOr<Value> remapped = remapAddress(b, operand, mapping, loop);
    if (failed(remapped))
      return failure();
    dependsOnIV |= *remapped != operand;
  }
  if (!dependsOnIV)
    return value;
  Operation *clone = b.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

//===- AddressRemap.h - Addresses of another loop iteration -----*- C++ -*-===//
//
// Software prefetch needs the address a read will use in a later iteration
// of a loop: the pure computation of its memref (subviews) and indices,
// recomputed with the induction variable advanced. Shared by
// tessel-prefetch-next-tile and tessel-prefetch-kernel-rows.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_ADDRESSREMAP_H
#define TESSEL_PASSES_UTILS_ADDRESSREMAP_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::tessel {

/// Whether `value` is computed inside `loop` only by pure ops without
/// regions (or outside it), so remapAddress can recompute it for another
/// iteration.
bool isRemappable(Value value, Operation *loop);

/// Clones into `b` the pure computation of `value` inside `loop` with
/// `mapping` applied (the induction variable mapped to another iteration's).
/// Values that do not depend on the mapped ones are used as they are, so the
/// result is `value` itself when it does not.
FailureOr<Value> remapAddress(OpBuilder &b, Value value, IRMapping &mapping,
                              Operation *loop);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_ADDRESSREMAP_H

//===- GlobalViews.h - Values that are views of a memref global -*- C++ -*-===//
//
// Constants reach GPU kernels through memref.get_global: kernels read the
// device module's copy, while anything made on the host (a TMA descriptor)
// sees the host copy's address. Both tessel-allocate-device-buffers (which
// moves such views into launches) and tessel-lower-tma-descriptors (which
// has the runtime describe a device copy instead) need to know when a value
// is one.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GLOBALVIEWS_H
#define TESSEL_PASSES_UTILS_GLOBALVIEWS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tessel {

/// The chain of ops from a `memref.get_global` to `value`'s definition (the
/// get_global first, then the view-like ops over it), when `value` is such
/// a view defined outside `region` (null: anywhere); empty otherwise.
SmallVector<Operation *> globalViewChain(Value value,
                                         Operation *region = nullptr);

/// The memref.global that `getGlobal` reads; null if it names none.
memref::GlobalOp lookupGlobal(memref::GetGlobalOp getGlobal);

/// The constant memref.global with an initial value whose view `value` is
/// (through globalViewChain); null otherwise.
memref::GlobalOp constantGlobalOf(Value value);

/// Why the elements `view` sees of the constant `global` cannot be
/// transposed at compile time, or empty: `view` must be a 2-D memref type
/// with static sizes, strides and offset, of the global's element type
/// (whole bytes), inside the global, whose type is an identity-layout
/// memref; the global's data must be available (dense, splat or a
/// dense_resource that was not elided).
std::string checkConstantTransposable(memref::GlobalOp global, MemRefType view);

/// The constant global `value` is a view of, when that view can be
/// transposed at compile time (a chain of views without memref.view, which
/// shifts bytes, and checkConstantTransposable); null otherwise, with `why`
/// saying why when `value` is a view of a constant (constantGlobalOf).
memref::GlobalOp transposableConstantOf(Value value, std::string &why);

/// The elements `view` sees of `global`, transposed: a (cols x rows)
/// attribute of the same kind as the global's initial value (dense, splat
/// or dense_resource). checkConstantTransposable must have returned empty.
ElementsAttr transposeConstantView(memref::GlobalOp global, MemRefType view);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GLOBALVIEWS_H

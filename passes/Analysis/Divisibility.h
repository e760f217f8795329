//===- Divisibility.h - Known divisors of index values ---------*- C++ -*-===//
//
// What the alignment-sensitive rewrites (non-temporal stores, prefetches by
// cache line) need to know about an address: the largest integer known to
// divide an index value, and through that the alignment of the element
// offset a memref access computes relative to its base buffer.
//
// Upstream's affine::getLargestKnownDivisorOfValue only knows affine.for
// induction variables and constants; after bufferization Tessel's loops are
// scf.for / scf.parallel with arith and affine.apply index arithmetic, so
// this walks those as well.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_ANALYSIS_DIVISIBILITY_H
#define TESSEL_PASSES_ANALYSIS_DIVISIBILITY_H

#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"

#include <cstdint>

namespace mlir::tessel {

/// Stands for "divisible by anything" (the value 0).
constexpr int64_t kDivisibleByAll = int64_t(1) << 40;

/// Largest positive integer known to divide the index or integer `value`
/// (1 when nothing is known; kDivisibleByAll for the constant 0).
int64_t largestKnownDivisor(Value value);

/// An access `memref[indices]` seen from the buffer it views: `base` is the
/// memref the chain of memref.subview / memref.cast ops starts from, and
/// `offsetDivisor` divides the element offset of the access from `base`'s
/// aligned pointer (memref.extract_aligned_pointer_as_index). Fails when a
/// memref on the way has a dynamic stride or offset where it matters, or
/// is another kind of view.
struct BaseOffset {
  Value base;
  int64_t offsetDivisor = 1;
};
std::optional<BaseOffset> offsetFromBase(Value memref, ValueRange indices);
/// The same for an access whose index i is known to be a multiple of
/// `indexDivisors[i]` (kDivisibleByAll for 0).
std::optional<BaseOffset> offsetFromBase(Value memref,
                                         ArrayRef<int64_t> indexDivisors);

/// Bytes of a statically shaped memref of integers or floats of whole bytes
/// (what cache-size comparisons need); nullopt for anything else (dynamic
/// shapes, index or sub-byte elements).
std::optional<int64_t> staticSizeInBytes(Type type);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_ANALYSIS_DIVISIBILITY_H

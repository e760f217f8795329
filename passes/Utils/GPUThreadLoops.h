//===- GPUThreadLoops.h - A linalg op run by a block's threads -*- C++ -*-===//
//
// Inside a gpu.launch, a linalg op on memrefs becomes a loop over its
// parallel iterations that the block's threads share round-robin:
// consecutive threads take consecutive iterations of the innermost parallel
// dimension (row-major memrefs: their accesses coalesce); each thread runs
// the op's reduction dimensions alone, its results in registers until the
// last reduction step.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GPUTHREADLOOPS_H
#define TESSEL_PASSES_UTILS_GPUTHREADLOOPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// Replaces `op` (buffer semantics) by that loop, `tid` being the thread's
/// index in a block of `threads` threads. Fails (IR unchanged) when `op`
/// cannot be generalized.
LogicalResult distributeOverThreads(RewriterBase &rewriter,
                                    linalg::LinalgOp op, Value tid,
                                    int64_t threads);

/// The number of parallel iterations of `op` at most (the product of its
/// parallel loops' static upper bounds), or 0 when one is unbounded.
int64_t parallelIterationBound(linalg::LinalgOp op);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GPUTHREADLOOPS_H

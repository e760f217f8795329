//===- StreamFences.h - Where the fence of non-temporal stores goes -*- C++ -*-===//
//
// Non-temporal stores are weakly ordered, so tessel-stream-stores ends each
// streaming nest with an `sfence`. Inside the body of a tiled loop that
// fence runs once per tile, and each one stalls the core until the
// write-combining buffers of that tile have drained: the next tile's loads
// cannot overlap the previous tile's writes (softmax at 4096 columns: one
// fence per 16 KiB row). The stores only have to be ordered before whatever
// lets another thread read them: the barrier that ends a worksharing loop,
// or the return. So a fence may move past the end of every enclosing loop
// whose body holds nothing that synchronizes with other threads.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_STREAMFENCES_H
#define TESSEL_PASSES_UTILS_STREAMFENCES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::tessel {

/// Whether `op` is the fence tessel-stream-stores emits after non-temporal
/// stores (llvm.call_intrinsic "llvm.x86.sse.sfence").
bool isStreamFence(Operation *op);

/// The first op in `region` (nested ops included) that may synchronize
/// with another thread or has effects the analysis cannot see: calls,
/// atomics, memory fences other than stream fences, inline assembly,
/// intrinsics that LLVM says may touch memory, parallel loops, OpenMP
/// constructs other than the loop itself, async and GPU ops, unregistered
/// ops and ops that declare no memory effects. nullptr when there is none.
Operation *findSynchronizingOp(Region &region);

/// Where `fence` may move to: the outermost enclosing loop (scf.for,
/// scf.while, affine.for, or an omp.wsloop directly in an omp.parallel)
/// such that the fence and every loop in between are reached only through
/// scf.if / scf.index_switch / scf.execute_region / memref.alloca_scope /
/// affine.if and no loop on the way holds a synchronizing op. The fence
/// then goes right after that loop. nullptr when it stays: not in a loop,
/// or the innermost loop synchronizes. `why` says what stops the move
/// (there, or further out); empty when nothing but the function or the
/// end of a thread's share of a worksharing loop does.
Operation *fenceSinkTarget(Operation *fence, std::string &why);

/// Moves the fences in `fences` (all with sink target `loop`) to one fence
/// right after `loop`. An omp.wsloop becomes `nowait` so each thread fences
/// its own stores before the loop's barrier: an explicit omp.barrier
/// follows the fence unless the loop already was nowait or the parallel
/// region ends right there (its end is a barrier).
void sinkStreamFences(RewriterBase &rewriter, ArrayRef<Operation *> fences,
                      Operation *loop);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_STREAMFENCES_H

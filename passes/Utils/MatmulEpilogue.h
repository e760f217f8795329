//===- MatmulEpilogue.h - The elementwise tail of a matmul -----*- C++ -*-===//
//
// What the frontends put after a matmul or a convolution (bias add,
// activation, residual add, scale, clamp), gathered into one elementwise
// linalg.generic over the matmul's [M][N] iteration space, so that the
// kernel can apply it to each register tile before the tile is stored
// instead of re-reading C in a separate pass.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_MATMULEPILOGUE_H
#define TESSEL_PASSES_UTILS_MATMULEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::tessel {

/// Gathers the epilogue of `matmul` (a static f32 matmul on tensors): the
/// chain of elementwise linalg.generic ops that alone consume its result,
/// directly or through the tensor.expand_shape that the convolution lowering
/// puts after it. Each generic read through an expand_shape is collapsed to
/// the matmul's [M][N] iteration space; consecutive ones are fused into one
/// (upstream elementwise fusion). The returned op reads the matmul result
/// through identity maps, its other inputs through identity or broadcast
/// maps ((m, n), (n), (m), ()), writes one f32 [M][N] result without reading
/// its output, and sits in the matmul's block.
///
/// Returns null when the matmul's result has no such consumer; the IR is
/// then unchanged (but for an expand_shape / collapse_shape pair after the
/// product composed into one reshape), and `why` is empty when no linalg.generic consumes the
/// result alone, else says why the one that does was left alone
/// (completing "epilogue not fused: ..."). When a later op of the chain
/// does not qualify, the epilogue stops before it (`why` says why; that op
/// stays a separate loop nest).
linalg::GenericOp gatherMatmulEpilogue(RewriterBase &rewriter,
                                       linalg::MatmulOp matmul,
                                       std::string &why);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_MATMULEPILOGUE_H

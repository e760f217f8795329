//===- AttentionKernel.h - Online-softmax attention as vector code -*- C++ -*-===//
//
// Emits the fused attention of an AttentionMatch, sized by an
// AttentionTiling, on tensors (before bufferization):
//
//   scf.forall (b, query block) {               // over the cores
//     O_acc = 0, m = -inf, l = 0                 // Br x Dv, Br, Br
//     scf.for key block {                        // Bc keys at a time
//       S = scale * Q_blk K_blk^T                // register tiles, vector.fma
//       per row: m' = max(m, max S); alpha = exp(m - m')
//                P = exp(S - m') in place; l = alpha l + sum P
//       O_acc = alpha O_acc + P V_blk            // register tiles, vector.fma
//     }
//     O[b, block] = O_acc / l
//   }
//
// The S x S scores never exist: a Br x Bc block is all there is (the
// online softmax of Milakov & Gimelshein, 2018, as flash attention uses it).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_ATTENTIONKERNEL_H
#define TESSEL_PASSES_UTILS_ATTENTIONKERNEL_H

#include "passes/Analysis/AttentionMatch.h"
#include "passes/CostModel/AttentionTiling.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// Builds the kernel before `match.output` and returns its result (the
/// attention's output tensor); the matched ops are left for the caller.
Value buildOnlineSoftmaxAttention(RewriterBase &rewriter,
                                  const AttentionMatch &match,
                                  const AttentionTiling &tiling);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_ATTENTIONKERNEL_H

//===- AttentionMatch.h - Recognize softmax(Q K^T s) V in linalg -*- C++ -*-===//
//
// Scaled dot-product attention as the frontends and linalg.softmax's
// decomposition emit it: two (batch_)matmuls around a softmax over the
// last dimension, each step its own linalg op:
//
//   S = Q * Kt            (linalg.matmul / batch_matmul, init fill(0))
//   X = S * s | S / s     (optional; s a constant)
//   M = max_j X           (reduction over the last dim, init -inf or NaN)
//   E = exp(X - M)
//   L = sum_j E           (init fill(0))
//   P = E / L
//   O = P * V             (init fill(0))
//
// Reshapes that only regroup the leading (batch) dimensions may sit between
// the steps. The kernel reads Q, Kt and V and writes O; the intermediates
// are only checked to be exactly this chain, used by nothing else.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_ANALYSIS_ATTENTIONMATCH_H
#define TESSEL_PASSES_ANALYSIS_ATTENTIONMATCH_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace mlir::tessel {

struct AttentionMatch {
  /// The products: S = Q * Kt and O = P * V.
  linalg::LinalgOp scores, output;
  /// Q [B?, Sq, D], Kt [B?, D, Skv], V [B?, Skv, Dv] (B present for
  /// batch_matmul); `outputInit` the tensor O is written into.
  Value q, kt, v, outputInit;
  /// The factor applied to S before the softmax (1 when none).
  double scale = 1.0;
  /// Batch count (1 for linalg.matmul), rows, head dim, kv length, value dim.
  int64_t batch = 1, sq = 0, d = 0, skv = 0, dv = 0;
  bool batched = false;
};

/// Whether `output` (a linalg.matmul or batch_matmul) is the end of an
/// attention chain. Returns false with `why` empty when its A operand is not
/// a softmax at all (nothing to say), and with `why` set when it is one but
/// the chain cannot be fused as a whole (the reason completes "attention
/// not fused: <why>").
bool matchAttention(linalg::LinalgOp output, AttentionMatch &match,
                    std::string &why);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_ANALYSIS_ATTENTIONMATCH_H

//===- AttentionTiling.h - Block and register sizes of fused attention -*- C++ -*-===//
//
// Sizes of the online-softmax attention kernel (Utils/AttentionKernel) from
// the target description alone: the register tiles of its two products,
// the block of query rows one parallel iteration owns and the block of
// keys/values one step of its loop consumes.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_ATTENTIONTILING_H
#define TESSEL_PASSES_COSTMODEL_ATTENTIONTILING_H

#include "passes/CostModel/MatmulTiling.h"

#include <cstdint>
#include <string>

namespace mlir::tessel {

/// All sizes in elements (f32).
///  - lanes: f32 elements per vector register;
///  - blockRows (Br) query rows per iteration of the parallel loop; its
///    Br x blockCols score block lives in L1;
///  - blockCols (Bc) keys per step of the sequential loop over K and V;
///  - scoreRows x scoreCols: the register tile of S = Q K^T (scoreCols a
///    multiple of lanes), accumulated over the head dimension;
///  - outputRows x Dv: the register tile of O += P V, Dv / lanes vectors
///    per row, accumulated over the Bc keys of a step;
///  - unrollHead / unrollKeys: how many steps of those two reduction loops
///    one loop iteration does.
struct AttentionTiling {
  int64_t lanes = 0;
  int64_t blockRows = 0, blockCols = 0;
  int64_t scoreRows = 0, scoreCols = 0;
  int64_t outputRows = 0;
  int64_t unrollHead = 1, unrollKeys = 1;
  /// One line per size saying where it came from.
  std::string rationale;
};

/// Sizes for `batch` independent attentions of `sq` query rows over `skv`
/// keys, head dimension `d`, value dimension `dv`. Returns false with `why`
/// set when the target lacks what the model needs or the shapes are outside
/// what the kernel handles (it has no partial tiles: Dv and Skv must be
/// multiples of the vector length).
bool computeAttentionTiling(const CPUModelParams &target, int64_t batch,
                            int64_t sq, int64_t d, int64_t skv, int64_t dv,
                            AttentionTiling &result, std::string &why);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_ATTENTIONTILING_H

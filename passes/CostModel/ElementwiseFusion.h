//===- ElementwiseFusion.h - When to merge linalg bodies --------*- C++ -*-===//
//
// The model behind the two loop-fusion passes that run before tiling:
//
//  - vertical: an elementwise producer's body is inlined into each consumer
//    (tessel-fuse-elementwise). The intermediate is never stored, but a
//    consumer that reads each produced element r times (a stencil's taps)
//    recomputes it r times;
//  - horizontal: two ops over the same iteration domain that read a common
//    input become one op with both results (tessel-merge-siblings): the
//    input is loaded once per iteration instead of once per op.
//
// Costs are per element, in vector instructions of the loop body, on the
// view that the loops these ops become (vectorize-generics' register
// blocks) are bound by arithmetic and stores, not by loads: a core issues
// two or more vector loads per cycle but one store, and the loads a fused
// body adds re-read the window its consumer already streams through, which
// sits in L1. Instruction weights are in opCost.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_ELEMENTWISEFUSION_H
#define TESSEL_PASSES_COSTMODEL_ELEMENTWISEFUSION_H

#include "passes/CostModel/MatmulTiling.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace mlir::tessel {

/// Vector instructions one evaluation of `op` costs, relative to an FMA
/// (reciprocal throughput): 1 for adds, multiplies, compares, selects and
/// casts, 8 for divisions and square roots, 16 for transcendentals (their
/// polynomial approximations), 0 for constants and index ops.
double opCost(Operation *op);

/// Cost of one evaluation of a linalg body (yield excluded).
double bodyCost(Block &body);

/// What inlining an elementwise producer into all its consumers costs and
/// saves, per element of the producer.
struct ElementwiseFusionEstimate {
  /// Producer evaluations per produced element once fused: the consumers'
  /// iterations that read it (a 3x3 stencil: about 9).
  double evaluationsPerElement = 0;
  /// Cost of one evaluation, less a multiply that becomes an FMA with the
  /// consumer's add.
  double costPerEvaluation = 0;
  /// The producer yields a product every consumer adds: the multiply
  /// and the add contract into one FMA (not counted in costPerEvaluation).
  bool becomesFma = false;
  /// (evaluationsPerElement - 1) * costPerEvaluation.
  double recomputedCost = 0;
  /// The store of the intermediate that fusion removes.
  double savedCost = 0;
  bool profitable() const { return recomputedCost <= savedCost; }
};

/// The estimate for fusing `producer` into every op that reads it, or
/// std::nullopt when it cannot be fused into all of them: with `why` empty
/// when it is no single-result, static elementwise op read by a generic,
/// else with
/// `why` naming the reader that cannot take its body.
std::optional<ElementwiseFusionEstimate>
estimateElementwiseFusion(linalg::GenericOp producer, std::string &why);

/// What merging two ops over the same domain into one saves and needs.
struct SiblingMergeEstimate {
  /// Inputs (value and indexing map) both read: loaded once when merged.
  int64_t sharedInputs = 0;
  /// Vector registers the merged body needs live in one register block:
  /// one per used input access (each stencil tap counted) plus one
  /// accumulator per result.
  int64_t registers = 0;
  /// Why they cannot be merged (empty when they can): the second reads
  /// what the first computes, or a use of the first comes before the
  /// second (the merged op takes the second's place).
  std::string blocker;
};

/// The estimate for merging `first` and `second` (first before second in
/// one block), or std::nullopt when their loops differ (not siblings).
std::optional<SiblingMergeEstimate>
estimateSiblingMerge(linalg::GenericOp first, linalg::GenericOp second);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_ELEMENTWISEFUSION_H

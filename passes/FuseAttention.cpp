//===- FuseAttention.cpp - Online-softmax fusion of attention -------------===//
//
// Finds softmax(Q K^T s) V chains (Analysis/AttentionMatch), sizes the
// kernel from the target (CostModel/AttentionTiling), replaces the chain by
// it (Utils/AttentionKernel) and erases what became dead.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Analysis/AttentionMatch.h"
#include "passes/CostModel/AttentionTiling.h"
#include "passes/Utils/AttentionKernel.h"
#include "passes/Utils/KernelSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/Support/FormatVariadic.h"

#define DEBUG_TYPE "tessel-fuse-attention"

namespace mlir::tessel {
#define GEN_PASS_DEF_FUSEATTENTIONPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Applies the block-rows / block-cols overrides; why not when they do not
/// fit the shapes and the tiles.
static bool applyOverrides(AttentionTiling &t, const AttentionMatch &m,
                           int64_t rows, int64_t cols, std::string &why) {
  if (rows) {
    if (m.sq % rows != 0 || rows % t.scoreRows != 0 ||
        rows % t.outputRows != 0) {
      why = "block-rows=" + std::to_string(rows) + " must divide " +
            std::to_string(m.sq) + " query rows and be a multiple of the " +
            std::to_string(t.scoreRows) + "- and " +
            std::to_string(t.outputRows) + "-row register tiles";
      return false;
    }
    t.blockRows = rows;
  }
  if (cols) {
    if (m.skv % cols != 0 || cols % t.scoreCols != 0) {
      why = "block-cols=" + std::to_string(cols) + " must divide " +
            std::to_string(m.skv) + " keys and be a multiple of the " +
            std::to_string(t.scoreCols) + "-column score tile";
      return false;
    }
    t.blockCols = cols;
    t.unrollKeys = cols % 4 == 0 ? 4 : 1;
  }
  return true;
}

namespace {
struct FuseAttentionPass
    : public tessel::impl::FuseAttentionPassBase<FuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> products;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        products.push_back(op);
    });
    TargetAttr target = TargetAttr::lookup(getOperation());
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp output : products) {
      AttentionMatch match;
      std::string why;
      if (!matchAttention(output, match, why)) {
        if (!why.empty())
          output->emitRemark() << "attention not fused: " << why;
        continue;
      }
      if (!target || !target.isCPU()) {
        output->emitRemark() << "attention not fused: no #tessel.target of "
                                "kind cpu (run tessel-attach-target first)";
        continue;
      }
      AttentionTiling tiling;
      if (!computeAttentionTiling(cpuModelParams(target), match.batch,
                                  match.sq, match.d, match.skv, match.dv,
                                  tiling, why) ||
          !applyOverrides(tiling, match, blockRows, blockCols, why)) {
        output->emitRemark() << "attention not fused: " << why;
        continue;
      }
      double scoreMiB = double(match.batch) * match.sq * match.skv * 4 /
                        (1024.0 * 1024.0);
      output->emitRemark()
          << "attention fused (online softmax): " << match.batch << " x "
          << match.sq << " queries over " << match.skv << " keys, head dim "
          << match.d << ", value dim " << match.dv << "; the "
          << llvm::formatv("{0:F1}", scoreMiB).str()
          << " MiB of scores and probabilities are never materialized, "
             "only a "
          << tiling.blockRows << "x" << tiling.blockCols << " score block ("
          << tiling.blockRows * tiling.blockCols * 4 / 1024
          << " KiB) per parallel iteration; " << tiling.rationale;
      Value fused = buildOnlineSoftmaxAttention(rewriter, match, tiling);
      rewriter.replaceAllUsesWith(output->getResult(0), fused);
      // The chain, its fills and empties are dead now (as in
      // tessel-fuse-producers: upstream's region simplification removes them).
      Region *body = output->getParentRegion();
      rewriter.eraseOp(output);
      (void)simplifyRegions(rewriter, MutableArrayRef<Region>(*body));
    }
  }
};
} // namespace

//===- MatmulEpilogue.cpp - The elementwise tail of a matmul --------------===//
#include "passes/Utils/MatmulEpilogue.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::tessel;

/// A projected permutation whose results are distinct dims in increasing
/// order: a broadcast, no transposition (which would make the kernel gather
/// the operand across its register tile).
static bool isOrderedProjection(AffineMap map) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return false;
  int64_t last = -1;
  for (AffineExpr e : map.getResults()) {
    int64_t dim = cast<AffineDimExpr>(e).getPosition();
    if (dim <= last)
      return false;
    last = dim;
  }
  return true;
}

/// The op that alone uses `v` (every use in it), or null.
static Operation *soleUser(Value v) {
  Operation *user = nullptr;
  for (Operation *u : v.getUsers()) {
    if (user && u != user)
      return nullptr;
    user = u;
  }
  return user;
}

/// An expand_shape of `v` whose result is only collapsed again (the
/// convolution's [N*OH*OW][F] product expanded to NHWC, then its unit batch
/// dropped for the generics by linalg-fold-unit-extent-dims) composed into
/// one reshape, with upstream's canonicalization of the pair.
static void composeReshapes(Value v) {
  auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(soleUser(v));
  if (!expand)
    return;
  auto collapse =
      dyn_cast_or_null<tensor::CollapseShapeOp>(soleUser(expand.getResult()));
  if (!collapse)
    return;
  MLIRContext *ctx = v.getContext();
  RewritePatternSet patterns(ctx);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
  (void)applyOpPatternsGreedily({collapse.getOperation()}, std::move(patterns));
}

/// The linalg.generic that alone consumes `v`, directly or through one
/// tensor.expand_shape (then `reshape`), or null.
static linalg::GenericOp soleConsumer(Value v, tensor::ExpandShapeOp &reshape) {
  reshape = {};
  composeReshapes(v);
  Operation *user = soleUser(v);
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(user)) {
    reshape = expand;
    user = soleUser(expand.getResult());
  }
  return dyn_cast_or_null<linalg::GenericOp>(user);
}

/// Why `op`, which reads `read` (the product so far, or its expanded view
/// `reshape`), cannot extend the epilogue of a matmul in `block`; empty when
/// it can. `fusing`: `op` would be fused with the epilogue gathered so far.
static std::string unsuitableReason(linalg::GenericOp op, Value read,
                                    tensor::ExpandShapeOp reshape, Block *block,
                                    bool fusing) {
  if (op->getBlock() != block)
    return "it is in another block than the product (a loop around one of "
           "them)";
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1)
    return "it is not an op on tensors with one result";
  if (op.getNumParallelLoops() != op.getNumLoops())
    return "it reduces";
  if (op.hasIndexSemantics())
    return "its body reads the loop indices";
  auto readType = cast<RankedTensorType>(read.getType());
  auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!resultType || resultType.getShape() != readType.getShape() ||
      !resultType.getElementType().isF32())
    return "its result is not an f32 tensor of the product's shape";
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity() ||
      op.payloadUsesValueFromOperand(init))
    return "it reads its output";
  unsigned reads = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (input->get() == read) {
      ++reads;
      if (!map.isIdentity())
        return "it reads the product through a non-identity map";
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || !type.hasStaticShape())
      return "an input is not a statically shaped tensor";
    if (!isOrderedProjection(map))
      return "an input is read through a transposing or non-affine-projection "
             "map";
  }
  if (fusing && reads != 1)
    return "it reads the previous epilogue op through several operands";
  for (Operation &bodyOp : op.getBody()->without_terminator())
    if (!isMemoryEffectFree(&bodyOp))
      return "its body has side effects";
  if (reshape &&
      !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                        reshape.getReassociationIndices()))
    return "its maps do not collapse to the product's (m, n) loops";
  return "";
}

linalg::GenericOp mlir::tessel::gatherMatmulEpilogue(RewriterBase &rewriter,
                                                     linalg::MatmulOp matmul,
                                                     std::string &why) {
  OpBuilder::InsertionGuard guard(rewriter);
  Block *block = matmul->getBlock();
  Value product = matmul.getResult(0);
  linalg::GenericOp epilogue;
  while (true) {
    tensor::ExpandShapeOp reshape;
    linalg::GenericOp next = soleConsumer(product, reshape);
    if (!next)
      break;
    Value read = reshape ? reshape.getResult() : product;
    std::string reason =
        unsuitableReason(next, read, reshape, block, bool(epilogue));
    if (!reason.empty()) {
      why = (epilogue ? "stops before a linalg.generic: "
                      : "the linalg.generic consuming it is left alone: ") +
            reason;
      break;
    }
    if (reshape) {
      // The consumer over the product's (m, n) loops (a convolution's
      // batch and image rows and columns are m), reading the product
      // itself instead of collapse_shape(expand_shape(product)).
      rewriter.setInsertionPoint(next);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(next,
                                          reshape.getReassociationIndices(),
                                          rewriter);
      if (failed(collapsed)) {
        why = "collapsing the consumer of the expand_shape failed";
        break;
      }
      rewriter.replaceOp(next, collapsed->results);
      next = cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
      for (OpOperand *input : next.getDpsInputOperands()) {
        auto collapse = input->get().getDefiningOp<tensor::CollapseShapeOp>();
        if (!collapse || collapse.getSrc() != reshape.getResult())
          continue;
        rewriter.modifyOpInPlace(next, [&] { input->set(product); });
        if (collapse->use_empty())
          rewriter.eraseOp(collapse);
      }
      if (reshape->use_empty())
        rewriter.eraseOp(reshape);
    }
    if (!epilogue) {
      epilogue = next;
    } else {
      OpOperand *operand = nullptr;
      for (OpOperand *input : next.getDpsInputOperands())
        if (input->get() == product)
          operand = input;
      // Two elementwise generics over the same loops with identity maps:
      // upstream's precondition holds; a failure is reported, not assumed.
      if (!operand || !linalg::areElementwiseOpsFusable(operand)) {
        why = "stops before a linalg.generic that elementwise fusion rejects";
        break;
      }
      // The fused op is created at the insertion point: where `next` is.
      rewriter.setInsertionPoint(next);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fused)) {
        why = "stops before a linalg.generic that elementwise fusion rejects";
        break;
      }
      for (auto [from, to] : fused->replacements)
        rewriter.replaceAllUsesWith(from, to);
      rewriter.eraseOp(next);
      if (epilogue->use_empty())
        rewriter.eraseOp(epilogue);
      epilogue = cast<linalg::GenericOp>(fused->fusedOp);
    }
    product = epilogue.getResult(0);
  }
  return epilogue;
}

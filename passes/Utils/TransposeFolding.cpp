//===- TransposeFolding.cpp - Transposes into indexing maps ---------------===//
//
// Upstream folds transposes into maps only for the named linalg.elementwise
// op (linalg-fold-into-elementwise) and only on the reader's side; the
// frontends emit linalg.generic, and cancelling a pair needs the producer's
// side too.
//
//===----------------------------------------------------------------------===//
#include "passes/Utils/TransposeFolding.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace mlir::tessel;

std::string mlir::tessel::whyNotRelayoutable(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumDpsInits() != 1)
    return "it is not an op on tensors with one result";
  if (op.getNumParallelLoops() != op.getNumLoops())
    return "it reduces";
  if (!op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isPermutation())
    return "it writes its result through a map that is not a permutation";
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return "its body reads the loop indices";
  if (!op.getMatchingBlockArgument(op.getDpsInitOperand(0)).use_empty())
    return "its body reads its output";
  return "";
}

AffineMap mlir::tessel::readThroughTranspose(AffineMap map,
                                             ArrayRef<int64_t> permutation) {
  // x's dimension permutation[i] is the result's dimension i.
  SmallVector<int64_t> inverse = invertPermutationVector(permutation);
  return AffineMap::getPermutationMap(inverse, map.getContext()).compose(map);
}

AffineMap mlir::tessel::readTransposed(AffineMap map,
                                       ArrayRef<int64_t> permutation) {
  return AffineMap::getPermutationMap(permutation, map.getContext())
      .compose(map);
}

linalg::GenericOp mlir::tessel::relayoutGeneric(RewriterBase &rewriter,
                                                linalg::GenericOp op,
                                                ArrayRef<int64_t> permutation,
                                                Value init) {
  MLIRContext *ctx = op.getContext();
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  // The new loops are the transposed result's dimensions; the old loop
  // nest's index for them is output^-1(old result index).
  AffineMap oldLoops = inversePermutation(output).compose(
      AffineMap::getPermutationMap(invertPermutationVector(permutation), ctx));
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(input).compose(oldLoops));
  maps.push_back(AffineMap::getMultiDimIdentityMap(op.getNumLoops(), ctx));

  rewriter.setInsertionPoint(op);
  auto relaid = linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange{init.getType()}, op.getDpsInputs(),
      ValueRange{init}, maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), relaid.getRegion(),
                              relaid.getRegion().begin());
  // Keep discardable attributes (names, remarks' anchors) of the original.
  for (NamedAttribute attr : op->getDiscardableAttrs())
    relaid->setAttr(attr.getName(), attr.getValue());
  return relaid;
}

void mlir::tessel::rereadOperand(RewriterBase &rewriter,
                                 linalg::GenericOp reader, OpOperand &operand,
                                 Value source, AffineMap newMap) {
  SmallVector<AffineMap> maps = reader.getIndexingMapsArray();
  maps[operand.getOperandNumber()] = newMap;
  rewriter.modifyOpInPlace(reader, [&] {
    reader.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    operand.set(source);
  });
}

Value mlir::tessel::permutedEmpty(OpBuilder &b, Location loc,
                                  RankedTensorType type,
                                  ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> shape;
  for (int64_t d : permutation)
    shape.push_back(type.getDimSize(d));
  return tensor::EmptyOp::create(b, loc, shape, type.getElementType());
}

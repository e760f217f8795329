//===- Im2col.cpp - The NHWC im2col copy of a convolution -----------------===//
#include "passes/Utils/Im2col.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessel;

int64_t mlir::tessel::im2colPieceElems(int64_t c) {
  for (int64_t t = std::min(c, kMaxIm2colPieceElems); t > 1; --t)
    if (c % t == 0)
      return t;
  return 1;
}

static AffineMap im2colInputMap(MLIRContext *ctx, int64_t sh, int64_t sw,
                                int64_t dh, int64_t dw) {
  AffineExpr n, oh, ow, kh, kw, c;
  bindDims(ctx, n, oh, ow, kh, kw, c);
  return AffineMap::get(6, 0, {n, oh * sh + kh * dh, ow * sw + kw * dw, c},
                        ctx);
}

linalg::GenericOp mlir::tessel::createPatchCopy(RewriterBase &rewriter,
                                                Location loc, Value input,
                                                ArrayRef<int64_t> shape,
                                                AffineMap inputMap,
                                                Value dest) {
  MLIRContext *ctx = rewriter.getContext();
  Value empty = dest ? dest
                     : tensor::EmptyOp::create(rewriter, loc, shape,
                                               Float32Type::get(ctx))
                           .getResult();
  SmallVector<AffineMap> maps = {
      inputMap, AffineMap::getMultiDimIdentityMap(shape.size(), ctx)};
  SmallVector<utils::IteratorType> iterators(shape.size(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
      rewriter, loc, empty.getType(), ValueRange{input}, ValueRange{empty},
      maps, iterators, [](OpBuilder &builder, Location loc, ValueRange args) {
        linalg::YieldOp::create(builder, loc, args[0]);
      });
}

linalg::GenericOp mlir::tessel::createNhwcIm2col(RewriterBase &rewriter,
                                                 Location loc, Value input,
                                                 ArrayRef<int64_t> shape,
                                                 int64_t sh, int64_t sw,
                                                 int64_t dh, int64_t dw,
                                                 Value dest) {
  return createPatchCopy(rewriter, loc, input, shape,
                         im2colInputMap(rewriter.getContext(), sh, sw, dh, dw),
                         dest);
}

static constexpr llvm::StringLiteral kPatchPaddingAttr =
    "tessel.zero_padded_patches";

void mlir::tessel::setPatchPadding(Operation *matmul, const PatchPadding &p) {
  matmul->setAttr(
      kPatchPaddingAttr,
      DenseI64ArrayAttr::get(matmul->getContext(),
                             {p.oh, p.ow, p.kh, p.kw, p.c, p.sh, p.sw, p.dh,
                              p.dw, p.top, p.left, p.h, p.w}));
}

std::optional<PatchPadding>
mlir::tessel::getPatchPadding(linalg::MatmulOp matmul) {
  auto attr = matmul->getAttrOfType<DenseI64ArrayAttr>(kPatchPaddingAttr);
  if (!attr || attr.size() != 13)
    return std::nullopt;
  ArrayRef<int64_t> v = attr.asArrayRef();
  PatchPadding p;
  p.oh = v[0], p.ow = v[1], p.kh = v[2], p.kw = v[3], p.c = v[4];
  p.sh = v[5], p.sw = v[6], p.dh = v[7], p.dw = v[8];
  p.top = v[9], p.left = v[10], p.h = v[11], p.w = v[12];
  if (llvm::any_of(v.take_front(9), [](int64_t x) { return x < 1; }) ||
      p.top < 0 || p.left < 0 || p.h < 1 || p.w < 1)
    return std::nullopt;
  auto a = dyn_cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
  if (!a || !a.hasStaticShape() || a.getRank() != 2 ||
      a.getDimSize(0) % (p.oh * p.ow) != 0 ||
      a.getDimSize(1) != p.kh * p.kw * p.c)
    return std::nullopt;
  return p;
}

std::optional<NhwcIm2col> mlir::tessel::matchNhwcIm2col(Value patches) {
  auto copy = patches.getDefiningOp<linalg::GenericOp>();
  if (!copy || copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 ||
      !copy.hasPureTensorSemantics() || copy.getNumLoops() != 6 ||
      copy.getNumParallelLoops() != 6)
    return std::nullopt;
  Value input = copy.getDpsInputs()[0];
  auto inType = dyn_cast<RankedTensorType>(input.getType());
  auto outType = dyn_cast<RankedTensorType>(patches.getType());
  if (!inType || !outType || inType.getRank() != 4 ||
      !inType.hasStaticShape() || !outType.hasStaticShape() ||
      !inType.getElementType().isF32() || !outType.getElementType().isF32())
    return std::nullopt;
  Block &body = copy.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || body.getOperations().size() != 1 ||
      yield.getNumOperands() != 1 || yield.getOperand(0) != body.getArgument(0))
    return std::nullopt;
  SmallVector<AffineMap> maps = copy.getIndexingMapsArray();
  if (!maps[1].isIdentity() || maps[0].getNumResults() != 4 ||
      maps[0].getNumSymbols() != 0)
    return std::nullopt;
  // The map's coefficients (it is linear when it has the im2col form,
  // which the comparison below checks).
  MLIRContext *ctx = copy.getContext();
  auto coefficient = [&](unsigned result, unsigned dim) -> int64_t {
    SmallVector<AffineExpr> unit;
    for (unsigned i = 0; i < 6; ++i)
      unit.push_back(getAffineConstantExpr(i == dim ? 1 : 0, ctx));
    auto value =
        dyn_cast<AffineConstantExpr>(maps[0].getResult(result).replaceDims(unit));
    return value ? value.getValue() : 0;
  };
  NhwcIm2col r;
  r.sh = coefficient(1, 1), r.dh = coefficient(1, 3);
  r.sw = coefficient(2, 2), r.dw = coefficient(2, 4);
  if (r.sh < 1 || r.dh < 1 || r.sw < 1 || r.dw < 1 ||
      maps[0] != im2colInputMap(ctx, r.sh, r.sw, r.dh, r.dw))
    return std::nullopt;
  ArrayRef<int64_t> shape = outType.getShape();
  r.copy = copy;
  r.input = input;
  r.n = shape[0], r.oh = shape[1], r.ow = shape[2];
  r.kh = shape[3], r.kw = shape[4], r.c = shape[5];
  if (inType.getDimSize(0) != r.n || inType.getDimSize(3) != r.c ||
      llvm::is_contained(shape, 0))
    return std::nullopt;
  return r;
}

/// The copy as a parallel, vectorized loop nest (both with
/// scf::tileUsingSCF): an scf.forall over the (n, oh) rows (disjoint
/// destinations; the CPU pipeline runs it on OpenMP threads), in it scf.for
/// loops over ow, kh (and kw, c where needed) around vectorized pieces: a
/// piece is all of KW*C when the filter is not dilated along W and KW*C is
/// at most kMaxIm2colPieceElems (the stem's 7x3: contiguous in the input
/// and the patches), otherwise C in chunks that divide it (one piece per
/// kw tap). Contiguous pieces are copied in 1-D vectors on collapsed
/// views, the others by linalg::vectorize (one transfer pair each).
FailureOr<Value> mlir::tessel::tileAndVectorizeIm2col(RewriterBase &rewriter,
                                                      const NhwcIm2col &d) {
  linalg::GenericOp op = d.copy;
  MLIRContext *ctx = op.getContext();
  auto tile = [&](Operation *target, ArrayRef<int64_t> sizes, bool forall)
      -> FailureOr<scf::SCFTilingResult> {
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(ctx, sizes));
    if (forall)
      options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    rewriter.setInsertionPoint(target);
    return scf::tileUsingSCF(rewriter, cast<TilingInterface>(target),
                             options);
  };
  FailureOr<scf::SCFTilingResult> rows =
      tile(op, {1, 1, 0, 0, 0, 0}, /*forall=*/true);
  if (failed(rows))
    return failure();
  rewriter.replaceOp(op, rows->replacements);
  Value result = rows->replacements.front();
  int64_t kwTile = d.kw, cTile = d.c;
  if (d.dw != 1 || d.kw * d.c > kMaxIm2colPieceElems) {
    kwTile = 1;
    cTile = im2colPieceElems(d.c);
  }
  Operation *rowOp = rows->tiledOps.back();
  FailureOr<scf::SCFTilingResult> pieces = tile(
      rowOp, {0, 0, 1, 1, kwTile == d.kw ? 0 : kwTile,
              cTile == d.c ? 0 : cTile},
      /*forall=*/false);
  if (failed(pieces))
    return result; // parallel, not vectorized
  rewriter.replaceOp(rowOp, pieces->replacements);

  // The piece copies an input slice [1, 1, kwTile', cTile] into an output
  // slice [1, 1, 1, 1, kwTile, cTile]; its W extent kwTile' is
  // (kwTile-1)*dw + 1 = kwTile (dw is 1 or kwTile is). Its loops over n,
  // oh, ow and kh have one iteration (index 0), so its input map
  // (n, oh*sh + kh*dh, ow*sw + kw*dw, c) is (n, oh, kw, c) there: a
  // projected permutation, which linalg::vectorize takes (the original
  // map it does not). Where the piece is not contiguous (dilated along W,
  // or C chunks of several kw taps), the copy becomes one
  // vector.transfer_read and one vector.transfer_write of
  // vector<1x1x1x1xkwTilexcTile> on the slices, which insert into the row
  // in place; contiguous pieces are copied first, below.
  auto piece = cast<linalg::GenericOp>(pieces->tiledOps.back());
  auto srcType = cast<RankedTensorType>(piece.getDpsInputs()[0].getType());
  auto dstType = cast<RankedTensorType>(piece.getDpsInits()[0].getType());
  if (!srcType.hasStaticShape() || !dstType.hasStaticShape() ||
      srcType.getShape() != ArrayRef<int64_t>{1, 1, kwTile, cTile} ||
      dstType.getShape() != ArrayRef<int64_t>{1, 1, 1, 1, kwTile, cTile})
    return result; // not vectorized
  // A piece of all of KW*C (not dilated along W), or a chunk of C when KW
  // is 1, is contiguous in the input and in the patches: copied in 1-D
  // vectors on collapsed views. linalg::vectorize would give a KW x C vector, which
  // LLVM moves as KW rows of C elements (the stem: 7 rows of 3 floats,
  // each an 8-byte and a 4-byte move), 14 scalar moves where 21 floats
  // take two vector ones.
  if (kwTile == d.kw && kwTile * cTile > 1) {
    Location loc = piece.getLoc();
    int64_t length = kwTile * cTile;
    Type f32 = srcType.getElementType();
    auto flat = RankedTensorType::get({length}, f32);
    rewriter.setInsertionPoint(piece);
    Value src = tensor::CollapseShapeOp::create(
        rewriter, loc, flat, piece.getDpsInputs()[0],
        ArrayRef<ReassociationIndices>{{0, 1, 2, 3}});
    Value dst = tensor::CollapseShapeOp::create(
        rewriter, loc, flat, piece.getDpsInits()[0],
        ArrayRef<ReassociationIndices>{{0, 1, 2, 3, 4, 5}});
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value padding =
        arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(f32));
    // In vectors of 16 (8) elements, the last one ending at the piece's
    // end and overlapping the one before (it writes the same values again):
    // LLVM copies an odd-length vector (21 elements) one element at a time.
    int64_t width = length >= 16 ? 16 : length >= 8 ? 8 : length;
    SmallVector<int64_t> offsets;
    for (int64_t offset = 0; offset + width <= length; offset += width)
      offsets.push_back(offset);
    if (offsets.back() + width < length)
      offsets.push_back(length - width);
    auto vectorType = VectorType::get({width}, f32);
    Value written = dst;
    for (int64_t offset : offsets) {
      Value at = offset ? arith::ConstantIndexOp::create(rewriter, loc, offset)
                              .getResult()
                        : zero;
      Value part = vector::TransferReadOp::create(
          rewriter, loc, vectorType, src, ValueRange{at}, padding,
          ArrayRef<bool>{true});
      written = vector::TransferWriteOp::create(rewriter, loc, part, written,
                                                ValueRange{at},
                                                ArrayRef<bool>{true})
                    .getResult();
    }
    Value copied = tensor::ExpandShapeOp::create(
        rewriter, loc, dstType, written,
        ArrayRef<ReassociationIndices>{{0, 1, 2, 3, 4, 5}});
    rewriter.replaceOp(piece, copied);
    return result;
  }
  AffineExpr n, oh, ow, kh, kw, c;
  bindDims(ctx, n, oh, ow, kh, kw, c);
  rewriter.modifyOpInPlace(piece, [&] {
    piece.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(
        {AffineMap::get(6, 0, {n, oh, kw, c}, ctx),
         AffineMap::getMultiDimIdentityMap(6, ctx)}));
  });
  rewriter.setInsertionPoint(piece);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, piece);
  if (failed(vectorized))
    return result; // the piece stays a (correct) scalar generic
  rewriter.replaceOp(piece, vectorized->replacements);
  return result;
}

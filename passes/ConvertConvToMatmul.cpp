//===- ConvertConvToMatmul.cpp - 2-D convolutions as linalg.matmul --------===//
//
// Rewrites static f32 2-D convolutions on tensors into a `linalg.matmul`
// (which tessel-vectorize-matmul then turns into its packed FMA kernel):
//
//  - conv_2d_nhwc_hwcf, 1x1 filter, stride 1, dilation 1: the input, filter
//    and output are collapsed views ([N*H*W, C] x [C, F] -> [N*H*W, F]);
//    no data is copied.
//  - any other conv_2d_nhwc_hwcf: im2col. A linalg.generic copies the
//    patches into a [N, OH, OW, KH, KW, C] tensor (its input map is affine:
//    (n, oh, ow, kh, kw, c) -> (n, oh*sh + kh*dh, ow*sw + kw*dw, c), so it
//    lowers to plain loops without divisions); collapsed, that is the
//    [N*OH*OW, KH*KW*C] matrix A, and the filter collapses to the
//    [KH*KW*C, F] matrix B. The copy is tiled into an scf.forall over the
//    (n, oh) rows (run on the cores) of vector transfers along C, or
//    along KW*C where that is small and contiguous (tileAndVectorizeIm2col).
//    When the whole batch's patches would not stay in cache, the copy and
//    the product run a chunk of images at a time in an scf.for; the zero
//    fill of the output and its elementwise consumers move into that loop
//    (fuseConsumersIntoChunkLoop), so the kernel applies them as its
//    epilogue. Implicit GEMM (a cpu target, and the matmul cost model
//    reading A through the input: readsConvolutionInput): the copy is left
//    whole and untiled (passes/Utils/Im2col), for tessel-vectorize-matmul
//    to read the input through it (or to tile it, should its options make
//    it pack A after all); the chunks then follow the output's size.
//  - conv_2d_nchw_fchw: the transposed product, in the op's own layout.
//    The filter collapses to A = [F, C*KH*KW]; the im2col tensor is
//    [C, KH, KW, N, OH, OW] -> B = [C*KH*KW, N*OH*OW]; the product is
//    [F, N*OH*OW]. With N = 1 that is the output itself (a view): nothing
//    is transposed, and a 1x1 stride-1 convolution copies nothing at all.
//    With N > 1 the init and the result are transposed between NFHW and
//    FNHW (linalg.transpose), the input and filter never are.
//
// Upstream's linalg::rewriteInIm2Col is not used: for NHWC it keeps the
// batch as a separate dimension and emits a batched contraction as a
// linalg.generic, which the matmul kernel does not take, and its im2col
// body computes the input indices with divisions.
//
// Depthwise convolutions and pooling are no matmul (no reduction over
// channels shared by all filters): they become linalg.generic windows for
// the fusion and stencil passes, whatever their element type. Every other
// convolution, and any matmul-like one not f32 or not statically shaped,
// gets a remark and is left alone.
// Padding arrives as a tensor.pad before the convolution. Before an NHWC
// im2col that alone reads it, it becomes a copy over the cores
// (padRowsInParallel); elsewhere it stays.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Utils/Im2col.h"
#include "passes/Utils/KernelSupport.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"

#define DEBUG_TYPE "tessel-convert-conv-to-matmul"

namespace mlir::tessel {
#define GEN_PASS_DEF_CONVERTCONVTOMATMULPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// The sizes of a 2-D convolution, whatever its layout.
struct ConvDims {
  int64_t n, c, h, w;    // input
  int64_t f, kh, kw;     // filter
  int64_t oh, ow;        // output
  int64_t sh, sw, dh, dw;
};

std::string formatBytes(int64_t bytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (bytes >= (int64_t(1) << 20))
    os << llvm::format("%.1f MiB", double(bytes) / (1 << 20));
  else
    os << llvm::format("%.1f KiB", double(bytes) / (1 << 10));
  return s;
}

std::string ratio(int64_t a, int64_t b) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.1f", double(a) / double(b));
  return s;
}

RankedTensorType f32Tensor(MLIRContext *ctx, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, Float32Type::get(ctx));
}

Value collapse(RewriterBase &rewriter, Location loc, Value v,
               ArrayRef<ReassociationIndices> groups) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (const ReassociationIndices &g : groups) {
    int64_t size = 1;
    for (int64_t d : g)
      size *= type.getDimSize(d);
    shape.push_back(size);
  }
  return tensor::CollapseShapeOp::create(
      rewriter, loc, f32Tensor(rewriter.getContext(), shape), v, groups);
}

Value expand(RewriterBase &rewriter, Location loc, Value v,
             ArrayRef<int64_t> shape, ArrayRef<ReassociationIndices> groups) {
  return tensor::ExpandShapeOp::create(
      rewriter, loc, f32Tensor(rewriter.getContext(), shape), v, groups);
}

Value matmul(RewriterBase &rewriter, Location loc, Value a, Value b,
             Value c) {
  return linalg::MatmulOp::create(rewriter, loc, TypeRange{c.getType()},
                                  ValueRange{a, b}, ValueRange{c})
      .getResult(0);
}

/// The tensor.pad `input` is, when it pads an NHWC tensor ([N, H, W, C],
/// or [H, W, C] behind the expand_shape that linalg-fold-unit-extent-dims
/// leaves at batch 1) along H and W only, by static amounts, with a
/// constant, and nothing else reads it; else null.
tensor::PadOp paddedAlongHW(Value input) {
  if (auto expand = input.getDefiningOp<tensor::ExpandShapeOp>()) {
    if (!input.hasOneUse() || expand.getSrcType().getRank() != 3 ||
        expand.getResultType().getRank() != 4 ||
        expand.getResultType().getDimSize(0) != 1)
      return {};
    input = expand.getSrc();
  }
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad || !input.hasOneUse() || !pad.getConstantPaddingValue() ||
      !pad.getSourceType().hasStaticShape() ||
      !pad.getResultType().hasStaticShape() || !pad.getLow().empty() ||
      !pad.getHigh().empty())
    return {};
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  int64_t rank = low.size();
  if ((rank != 3 && rank != 4) || low.back() || high.back() ||
      (rank == 4 && (low[0] || high[0])))
    return {};
  return pad;
}

/// `pad` (see paddedAlongHW) as a copy over the cores: an scf.forall over
/// the padded rows ((n,) h) builds each row in place, piece by piece along
/// C (one vector of at most kMaxIm2colPieceElems), from the input row or the
/// padding value. Bufferized, tensor.pad is a memset of the whole padded
/// tensor and a copy of the input into it, both on one thread before the
/// parallel im2col: at batch 8 (7 MiB) a serial tenth of the 2-thread
/// time. Replaces `pad` and returns the padded tensor, or returns null
/// (nothing changed) when the padding value cannot be used outside it.
Value padRowsInParallel(RewriterBase &rewriter, tensor::PadOp pad) {
  Location loc = pad.getLoc();
  RankedTensorType srcType = pad.getSourceType();
  RankedTensorType dstType = pad.getResultType();
  ArrayRef<int64_t> src = srcType.getShape(), dst = dstType.getShape();
  // The dims: an optional batch, then H, W, C.
  unsigned rank = dst.size(), hDim = rank - 3, wDim = rank - 2;
  int64_t top = pad.getStaticLow()[hDim], left = pad.getStaticLow()[wDim];
  int64_t c = dst.back(), cTile = tessel::im2colPieceElems(c);
  auto pieceType = VectorType::get({cTile}, dstType.getElementType());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(pad);
  // A constant yielded from inside the pad's region goes with the pad: a
  // copy of it here.
  Value value = pad.getConstantPaddingValue();
  if (pad.getRegion().isAncestor(value.getParentRegion())) {
    Attribute attr;
    if (!matchPattern(value, m_Constant(&attr)))
      return {};
    value = arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(attr));
  }
  Value empty = tensor::EmptyOp::create(rewriter, loc, dst,
                                        dstType.getElementType());
  SmallVector<OpFoldResult> rowCounts;
  for (unsigned i = 0; i <= hDim; ++i)
    rowCounts.push_back(rewriter.getIndexAttr(dst[i]));
  auto forall = scf::ForallOp::create(rewriter, loc, rowCounts,
                                      ValueRange{empty}, std::nullopt);
  rewriter.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> rowIvs(forall.getInductionVars());
  Value h = rowIvs.back();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  // Whether `i` lies in [lo, lo + size).
  auto within = [&](OpBuilder &b, Value i, int64_t lo, int64_t size) {
    Value geLo = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sge, i,
        arith::ConstantIndexOp::create(b, loc, lo));
    Value ltHi = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, i,
        arith::ConstantIndexOp::create(b, loc, lo + size));
    return arith::AndIOp::create(b, loc, geLo, ltHi).getResult();
  };
  Value rowInside = within(rewriter, h, top, src[hDim]);
  Value srcRow = arith::SubIOp::create(rewriter, loc, h, index(top));
  Value padding = vector::BroadcastOp::create(rewriter, loc, pieceType, value);
  // The padded row: [(1,) 1, Wp, C] at ((n,) h, 0, 0).
  SmallVector<OpFoldResult> rowOffsets(rowIvs.begin(), rowIvs.end());
  SmallVector<OpFoldResult> rowSizes(hDim + 1, rewriter.getIndexAttr(1));
  rowOffsets.append(2, rewriter.getIndexAttr(0));
  rowSizes.push_back(rewriter.getIndexAttr(dst[wDim]));
  rowSizes.push_back(rewriter.getIndexAttr(c));
  SmallVector<OpFoldResult> unitStrides(rank, rewriter.getIndexAttr(1));
  Value row = tensor::ExtractSliceOp::create(
      rewriter, loc, forall.getRegionIterArgs()[0], rowOffsets, rowSizes,
      unitStrides);
  Value zero = index(0);
  auto columns = scf::ForOp::create(
      rewriter, loc, zero, index(dst[wDim]), index(1), ValueRange{row},
      [&](OpBuilder &b, Location, Value w, ValueRange wIters) {
        Value inside = arith::AndIOp::create(
            b, loc, rowInside, within(b, w, left, src[wDim]));
        Value srcCol = arith::SubIOp::create(
            b, loc, w, arith::ConstantIndexOp::create(b, loc, left));
        auto pieces = scf::ForOp::create(
            b, loc, zero, arith::ConstantIndexOp::create(b, loc, c),
            arith::ConstantIndexOp::create(b, loc, cTile), wIters,
            [&](OpBuilder &pb, Location, Value c0, ValueRange cIters) {
              auto piece = scf::IfOp::create(
                  pb, loc, inside,
                  [&](OpBuilder &tb, Location) {
                    SmallVector<Value> at(ArrayRef<Value>(rowIvs).drop_back());
                    at.append({srcRow, srcCol, c0});
                    Value read = vector::TransferReadOp::create(
                        tb, loc, pieceType, pad.getSource(), at, value,
                        ArrayRef<bool>{true});
                    scf::YieldOp::create(tb, loc, read);
                  },
                  [&](OpBuilder &eb, Location) {
                    scf::YieldOp::create(eb, loc, padding);
                  });
              SmallVector<Value> to(hDim + 1, zero);
              to.append({w, c0});
              Value written =
                  vector::TransferWriteOp::create(pb, loc, piece.getResult(0),
                                                  cIters[0], to,
                                                  ArrayRef<bool>{true})
                      .getResult();
              scf::YieldOp::create(pb, loc, written);
            });
        scf::YieldOp::create(b, loc, pieces.getResults());
      });
  rewriter.setInsertionPointToEnd(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, columns.getResult(0),
                                        forall.getRegionIterArgs()[0],
                                        rowOffsets, rowSizes, unitStrides);
  rewriter.replaceOp(pad, forall.getResult(0));
  return forall.getResult(0);
}

bool isUnitStrideAndDilation(const ConvDims &d) {
  return d.sh == 1 && d.sw == 1 && d.dh == 1 && d.dw == 1;
}

std::string describe(const ConvDims &d) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << d.kh << "x" << d.kw << " filter, stride " << d.sh;
  if (d.sw != d.sh)
    os << "x" << d.sw;
  os << ", dilation " << d.dh;
  if (d.dw != d.dh)
    os << "x" << d.dw;
  return s;
}

/// True (after a remark saying why) when the rows x cols f32 im2col buffer
/// would exceed the max-im2col-mib budget.
bool im2colTooLarge(Operation *op, int64_t rows, int64_t cols,
                    int64_t maxIm2colBytes) {
  int64_t bytes = rows * cols * 4;
  if (maxIm2colBytes <= 0 || bytes <= maxIm2colBytes)
    return false;
  op->emitRemark() << "not converted: the im2col buffer tensor<" << rows
                   << "x" << cols << "xf32> (" << formatBytes(bytes)
                   << ") exceeds max-im2col-mib";
  return true;
}

/// Images per im2col chunk: all `n` when the whole patch buffer of
/// `bytesPerImage` each fits in `chunkBytes` (or there is no budget), else
/// the most that divide `n` and fit (at least 1).
int64_t imagesPerChunk(int64_t n, int64_t bytesPerImage, int64_t chunkBytes) {
  if (chunkBytes <= 0 || n * bytesPerImage <= chunkBytes)
    return n;
  for (int64_t images = n - 1; images > 1; --images)
    if (n % images == 0 && images * bytesPerImage <= chunkBytes)
      return images;
  return 1;
}

/// The im2col patches of `input` (a batch of `images` images) into `dest`
/// (null: a new tensor), tiled and vectorized; the [images*OH*OW,
/// KH*KW*C] matrix view of them and the patch tensor itself.
std::pair<Value, Value> nhwcPatches(RewriterBase &rewriter, Location loc,
                                    Value input, const ConvDims &d,
                                    int64_t images, Value dest) {
  linalg::GenericOp copy = tessel::createNhwcIm2col(
      rewriter, loc, input, {images, d.oh, d.ow, d.kh, d.kw, d.c}, d.sh, d.sw,
      d.dh, d.dw, dest);
  std::optional<tessel::NhwcIm2col> im2col =
      tessel::matchNhwcIm2col(copy.getResult(0));
  FailureOr<Value> tiled =
      im2col ? tessel::tileAndVectorizeIm2col(rewriter, *im2col)
             : FailureOr<Value>(failure());
  Value patches = succeeded(tiled) ? *tiled : copy.getResult(0);
  rewriter.setInsertionPointAfterValue(patches);
  return {collapse(rewriter, loc, patches, {{0, 1, 2}, {3, 4, 5}}), patches};
}

/// Whether `op` is an elementwise linalg.generic on tensors in `block`
/// with one result, reading `v` through the identity map: one the chunk
/// loop can take in.
bool isChunkableConsumer(linalg::GenericOp op, Value v, Block *block) {
  if (!op || op->getBlock() != block || !op.hasPureTensorSemantics() ||
      op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() || op.hasIndexSemantics())
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == v && !op.getMatchingIndexingMap(input).isIdentity())
      return false;
  // An op reading its output would see what stopCarrying places there.
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    return op.getMatchingIndexingMap(&init).isIdentity() &&
           !op.payloadUsesValueFromOperand(&init);
  });
}

/// Stops carrying output `i` of the chunk loop, which no one reads after
/// the loop, and yields its iter_arg unchanged (canonicalization folds it
/// away). The chunks are disjoint, so no iteration reads what an earlier
/// one wrote: each reads its slice of the loop's initial value instead, or,
/// when that is a tensor.empty (contents undefined: the convolution's
/// accumulator, filled per chunk, or a moved op's output), a slice of the
/// loop's final output `into`, so that the chunk's product is accumulated
/// and finished in place where its result lands.
void stopCarrying(RewriterBase &rewriter, scf::ForOp loop, unsigned i,
                  Value into) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  BlockArgument carried = loop.getRegionIterArg(i);
  Value init = loop.getInitArgs()[i];
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(i, carried); });
  Value source = init;
  if (init.getDefiningOp<tensor::EmptyOp>() &&
      into.getType() == carried.getType())
    source = into;
  rewriter.replaceUsesWithIf(carried, source, [&](OpOperand &use) {
    return use.getOwner() != yield;
  });
}

/// Moves the chain of elementwise linalg.generic ops that alone consume the
/// output of the chunk loop `loop` (result 0) into it, each applied to the
/// chunk's slice (upstream consumer fusion), so that the matmul kernel finds
/// them as its epilogue and applies them to its register tiles, instead of
/// their running as a separate pass over the whole output after the loop.
/// The outputs the moved ops consumed are no longer carried (stopCarrying).
/// Returns how many ops moved.
unsigned fuseConsumersIntoChunkLoop(RewriterBase &rewriter, scf::ForOp loop) {
  SmallVector<unsigned> consumed;
  unsigned output = 0;
  while (loop.getResult(output).hasOneUse()) {
    Value result = loop.getResult(output);
    auto consumer = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
    if (!isChunkableConsumer(consumer, result, loop->getBlock()))
      break;
    SmallVector<LoopLikeOpInterface> loops = {loop};
    if (failed(scf::tileAndFuseConsumer(rewriter, consumer, loops)))
      break;
    consumed.push_back(output);
    if (consumer->use_empty())
      rewriter.eraseOp(consumer);
    // The moved op's results are the new loop's last ones.
    loop = cast<scf::ForOp>(loops.front().getOperation());
    output = loop.getNumResults() - 1;
  }
  for (unsigned i : consumed)
    if (loop.getResult(i).use_empty())
      stopCarrying(rewriter, loop, i, loop.getRegionIterArg(output));
  // The dead updates of those outputs and the slices consumer fusion left
  // unused, so that the matmul's product has the moved op as its only
  // reader (the kernel takes it as its epilogue only then).
  for (Operation &bodyOp :
       llvm::make_early_inc_range(llvm::reverse(*loop.getBody())))
    if (isOpTriviallyDead(&bodyOp))
      rewriter.eraseOp(&bodyOp);
  return consumed.size();
}

/// Whether tessel-vectorize-matmul's model (the same function, on the
/// same sizes) reads the patches of `d` in place, i.e. through the input:
/// where it packs A instead (many filters), the patches are copied here,
/// with the copy's own chunking and one buffer for all chunks.
bool readsPatchesInPlace(const tessel::CPUModelParams &params,
                         const ConvDims &d, std::string &whyNot) {
  tessel::MatmulOperands operands;
  operands.aRowMajor = operands.bRowMajor = true;
  operands.convRowLength = d.ow;
  operands.convRows = d.oh;
  operands.convTapLength = d.c;
  tessel::MatmulTiling tiling;
  std::string why;
  if (!tessel::computeMatmulTiling(params, d.n * d.oh * d.ow, d.f,
                                   d.kh * d.kw * d.c, /*elementBytes=*/4,
                                   tessel::MatmulTiling(), tiling, why,
                                   operands)) {
    whyNot = why;
    return false;
  }
  return tessel::readsConvolutionInput(tiling, operands, &whyNot);
}

/// conv_2d_nhwc_hwcf -> [N*OH*OW, KH*KW*C] x [KH*KW*C, F].
///
/// Implicit GEMM (`implicitGemm`: the target's model parameters; where the
/// matmul model reads the patches through the input, readsPatchesInPlace):
/// the patch copy is left whole and untiled, and
/// tessel-vectorize-matmul reads A through it from the input where its
/// model reads A in place (no copy at all), or tiles and runs the copy.
/// The kernel's kc blocks then lie within one tap, so C is loaded and
/// stored once per tap: the batch is multiplied a chunk of images at a
/// time when the whole output would not stay in `outputChunkBytes`
/// (half the L2 of each core), so that it stays in cache across the taps.
///
/// Explicit im2col: the patches are copied (tiled and vectorized here)
/// and multiplied a chunk of images at a time when the whole batch's would
/// not fit in `patchChunkBytes`: the matmul then reads them back from the
/// cache they were just written to, and the buffer is allocated once per
/// call instead of a fresh ~60 MB for the ResNet-50 stem at batch 8 (page
/// faults on every call).
///
/// Chunks are whole images: an scf.for over them carries the output (and,
/// explicit, the chunk-sized patch buffer).
void rewriteNhwc(RewriterBase &rewriter, linalg::Conv2DNhwcHwcfOp op,
                 const ConvDims &d, int64_t maxIm2colBytes,
                 int64_t patchChunkBytes, int64_t outputChunkBytes,
                 const tessel::CPUModelParams *implicitGemm) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  int64_t m = d.n * d.oh * d.ow, k = d.kh * d.kw * d.c;
  rewriter.setInsertionPoint(op);
  auto filterMatrix = [&] {
    return collapse(rewriter, loc, filter, {{0, 1, 2}, {3}});
  };
  // Where the patches read zero padding (set below, once the input's
  // tensor.pad is known), recorded on each product.
  std::optional<tessel::PatchPadding> patchPadding;
  // a x b into the [images, OH, OW, F] output `out`, viewed as a matrix.
  auto product = [&](Value a, Value b, Value out, int64_t images) {
    Value cMat = collapse(rewriter, loc, out, {{0, 1, 2}, {3}});
    Value c = matmul(rewriter, loc, a, b, cMat);
    if (patchPadding)
      tessel::setPatchPadding(c.getDefiningOp(), *patchPadding);
    return expand(rewriter, loc, c, {images, d.oh, d.ow, d.f},
                  {{0, 1, 2}, {3}});
  };
  if (d.kh == 1 && d.kw == 1 && isUnitStrideAndDilation(d)) {
    Value a = collapse(rewriter, loc, input, {{0, 1, 2}, {3}});
    Value b = filterMatrix();
    op->emitRemark() << "conv_2d_nhwc_hwcf (" << describe(d)
                     << ") as linalg.matmul M=" << m << " N=" << d.f
                     << " K=" << k
                     << " on collapsed views of the input, filter and "
                        "output: no copy";
    rewriter.replaceOp(op, product(a, b, init, d.n));
    return;
  }

  int64_t patchBytesPerImage = d.oh * d.ow * k * 4;
  int64_t outputBytesPerImage = d.oh * d.ow * d.f * 4;
  std::string notThroughInput;
  bool implicit =
      implicitGemm && readsPatchesInPlace(*implicitGemm, d, notThroughInput);
  int64_t images =
      implicit
          ? imagesPerChunk(d.n, outputBytesPerImage, outputChunkBytes)
          : imagesPerChunk(d.n, patchBytesPerImage, patchChunkBytes);
  int64_t rows = images * d.oh * d.ow;
  if (im2colTooLarge(op, rows, k, maxIm2colBytes))
    return;
  InFlightDiagnostic remark = op->emitRemark();
  if (implicit)
    remark << "conv_2d_nhwc_hwcf (" << describe(d) << ") as linalg.matmul M="
           << rows << " N=" << d.f << " K=" << k
           << " on its im2col patches, left as one linalg.generic: "
              "tessel-vectorize-matmul reads A through it from the input "
              "(implicit GEMM, each kc block within one tap's "
           << d.c << " channels) or copies the patches ("
           << formatBytes(images * patchBytesPerImage)
           << "); the filter and output as collapsed views";
  else
    remark << "conv_2d_nhwc_hwcf (" << describe(d)
           << ") as im2col into tensor<" << rows << "x" << k << "xf32> ("
           << formatBytes(images * patchBytesPerImage)
           << ", a copy of the input patches, "
           << ratio(d.oh * d.ow * k, d.h * d.w * d.c)
           << "x the input) then linalg.matmul M=" << rows << " N=" << d.f
           << " K=" << k << " with the filter and output as collapsed views";
  if (!notThroughInput.empty())
    remark << " (not read through the input: " << notThroughInput << ")";
  tensor::PadOp pad = paddedAlongHW(input);
  if (pad && matchPattern(pad.getConstantPaddingValue(), m_AnyZeroFloat())) {
    ArrayRef<int64_t> src = pad.getSourceType().getShape();
    ArrayRef<int64_t> low = pad.getStaticLow();
    unsigned hDim = src.size() - 3, wDim = src.size() - 2;
    patchPadding = tessel::PatchPadding{
        d.oh, d.ow, d.kh,      d.kw,      d.c,       d.sh,     d.sw,
        d.dh, d.dw, low[hDim], low[wDim], src[hDim], src[wDim]};
  }
  if (pad) {
    // The convolution reads the pad itself, or the expand_shape of it.
    bool readsPad = input.getDefiningOp() == pad.getOperation();
    Value padded = padRowsInParallel(rewriter, pad);
    if (!padded)
      pad = {};
    else if (readsPad)
      input = padded;
  }
  auto notePadding = [&] {
    if (pad)
      remark << "; the input's padding copied over the cores row by row";
  };
  // The A matrix of `count` images of `source` (patches into `dest`, a new
  // tensor when null) and the patch tensor.
  auto patchesOf = [&](Value source, int64_t count,
                       Value dest) -> std::pair<Value, Value> {
    if (!implicit)
      return nhwcPatches(rewriter, loc, source, d, count, dest);
    linalg::GenericOp copy = tessel::createNhwcIm2col(
        rewriter, loc, source, {count, d.oh, d.ow, d.kh, d.kw, d.c}, d.sh,
        d.sw, d.dh, d.dw);
    return {collapse(rewriter, loc, copy.getResult(0), {{0, 1, 2}, {3, 4, 5}}),
            copy.getResult(0)};
  };
  rewriter.setInsertionPoint(op);
  if (images == d.n) {
    notePadding();
    Value a = patchesOf(input, d.n, Value()).first;
    rewriter.setInsertionPoint(op);
    Value b = filterMatrix();
    rewriter.replaceOp(op, product(a, b, init, d.n));
    return;
  }
  remark << ", " << d.n / images << " chunks of " << images
         << (images == 1 ? " image" : " images");
  if (implicit)
    remark << " (the whole batch's " << formatBytes(d.n * outputBytesPerImage)
           << " of output would not stay in half of each core's L2 across "
              "the taps)";
  else
    remark << " (the whole batch's " << formatBytes(d.n * patchBytesPerImage)
           << " of patches would not stay in a quarter of the last-level "
              "cache)";
  notePadding();

  // for chunk: patches of its images (copied into the buffer, or read
  // through), their product into the chunk's slice of the output.
  Value b = filterMatrix();
  SmallVector<Value> loopInits;
  Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value ub = arith::ConstantIndexOp::create(rewriter, loc, d.n);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, images);
  auto input4 = cast<RankedTensorType>(input.getType()).getShape();
  // A fill of a tensor.empty as the accumulator (what frontends emit) is
  // done a chunk at a time, on the chunk's slice, not as a separate pass
  // over the whole output; tessel-vectorize-matmul then folds each chunk's
  // fill into its first kc block (no fill pass at all).
  Value accumulator = init;
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && init.hasOneUse() &&
      fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    accumulator = fill.getDpsInits()[0];
  else
    fill = {};
  loopInits.push_back(accumulator);
  if (!implicit)
    loopInits.push_back(tensor::EmptyOp::create(
        rewriter, loc,
        ArrayRef<int64_t>{images, d.oh, d.ow, d.kh, d.kw, d.c},
        Float32Type::get(ctx)));
  // The loop is built first, then its body: tiling and vectorizing the
  // patch copy needs the copy inside a complete op.
  auto loop = scf::ForOp::create(rewriter, loc, lb, ub, step, loopInits);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    Value image0 = loop.getInductionVar();
    ValueRange iters = loop.getRegionIterArgs();
    OpFoldResult zero = rewriter.getIndexAttr(0);
    auto sizes = [&](ArrayRef<int64_t> shape) {
      SmallVector<OpFoldResult> r = {rewriter.getIndexAttr(images)};
      for (int64_t s : shape.drop_front())
        r.push_back(rewriter.getIndexAttr(s));
      return r;
    };
    SmallVector<OpFoldResult> offsets = {image0, zero, zero, zero};
    SmallVector<OpFoldResult> strides(4, rewriter.getIndexAttr(1));
    Value images4 = tensor::ExtractSliceOp::create(
        rewriter, loc, input, offsets, sizes(input4), strides);
    auto [a, patches] = patchesOf(images4, images,
                                  implicit ? Value() : iters[1]);
    SmallVector<OpFoldResult> outSizes = sizes({d.n, d.oh, d.ow, d.f});
    Value outChunk = tensor::ExtractSliceOp::create(
        rewriter, loc, iters[0], offsets, outSizes, strides);
    if (fill)
      outChunk = linalg::FillOp::create(rewriter, fill.getLoc(),
                                        fill.getDpsInputs(), outChunk)
                     .getResult(0);
    Value result = product(a, b, outChunk, images);
    Value out = tensor::InsertSliceOp::create(rewriter, loc, result, iters[0],
                                              offsets, outSizes, strides);
    SmallVector<Value> yields = {out};
    if (!implicit)
      yields.push_back(patches);
    scf::YieldOp::create(rewriter, loc, yields);
  }
  rewriter.replaceOp(op, loop.getResult(0));
  if (fill)
    rewriter.eraseOp(fill);
  if (unsigned fused = fuseConsumersIntoChunkLoop(rewriter, loop))
    remark << "; the " << fused << " elementwise op" << (fused > 1 ? "s" : "")
           << " consuming the output moved into the chunk loop";
}

/// conv_2d_nchw_fchw -> [F, C*KH*KW] x [C*KH*KW, N*OH*OW].
void rewriteNchw(RewriterBase &rewriter, linalg::Conv2DNchwFchwOp op,
                 const ConvDims &d, int64_t maxIm2colBytes) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  Value input = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  int64_t k = d.c * d.kh * d.kw, ncols = d.n * d.oh * d.ow;
  rewriter.setInsertionPoint(op);
  std::string what;
  llvm::raw_string_ostream os(what);
  os << "conv_2d_nchw_fchw (" << describe(d) << ") as linalg.matmul M=" << d.f
     << " N=" << ncols << " K=" << k
     << " (filter x patches, in the NCHW layout: no transpose to NHWC)";
  Value b;
  if (d.n == 1 && d.kh == 1 && d.kw == 1 && isUnitStrideAndDilation(d)) {
    b = collapse(rewriter, loc, input, {{0, 1}, {2, 3}});
    os << "; the input is a collapsed view: no copy";
  } else {
    int64_t bytes = k * ncols * 4;
    if (im2colTooLarge(op, k, ncols, maxIm2colBytes))
      return;
    AffineExpr c, kh, kw, n, oh, ow;
    bindDims(ctx, c, kh, kw, n, oh, ow);
    AffineMap map = AffineMap::get(
        6, 0, {n, c, oh * d.sh + kh * d.dh, ow * d.sw + kw * d.dw}, ctx);
    Value patches = tessel::createPatchCopy(rewriter, loc, input,
                                            {d.c, d.kh, d.kw, d.n, d.oh, d.ow},
                                            map)
                        .getResult(0);
    b = collapse(rewriter, loc, patches, {{0, 1, 2}, {3, 4, 5}});
    os << "; im2col into tensor<" << k << "x" << ncols << "xf32> ("
       << formatBytes(bytes) << ")";
  }
  Value a = collapse(rewriter, loc, filter, {{0}, {1, 2, 3}});
  Value result;
  if (d.n == 1) {
    // [1, F, OH, OW] is [F, OH*OW]: the product writes the output in place.
    Value cMat = collapse(rewriter, loc, init, {{0, 1}, {2, 3}});
    Value product = matmul(rewriter, loc, a, b, cMat);
    result = expand(rewriter, loc, product, {1, d.f, d.oh, d.ow},
                    {{0, 1}, {2, 3}});
    os << "; the output is a collapsed view (N=1)";
  } else {
    // NFHW <-> FNHW around the product.
    Value fnhwEmpty = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{d.f, d.n, d.oh, d.ow},
        Float32Type::get(ctx));
    Value fnhw = linalg::TransposeOp::create(rewriter, loc, init, fnhwEmpty,
                                             ArrayRef<int64_t>{1, 0, 2, 3})
                     .getResult()[0];
    Value cMat = collapse(rewriter, loc, fnhw, {{0}, {1, 2, 3}});
    Value product = matmul(rewriter, loc, a, b, cMat);
    Value productFnhw = expand(rewriter, loc, product, {d.f, d.n, d.oh, d.ow},
                               {{0}, {1, 2, 3}});
    result = linalg::TransposeOp::create(rewriter, loc, productFnhw, init,
                                         ArrayRef<int64_t>{1, 0, 2, 3})
                 .getResult()[0];
    os << "; N=" << d.n
       << ": the output (and its init) transposed between NFHW and FNHW ("
       << formatBytes(d.n * d.f * d.oh * d.ow * 4) << " each way)";
  }
  op->emitRemark() << what;
  rewriter.replaceOp(op, result);
}

int64_t attr(DenseIntElementsAttr a, int i) {
  return a.getValues<int64_t>()[i];
}

struct ConvertConvToMatmulPass
    : public tessel::impl::ConvertConvToMatmulPassBase<
          ConvertConvToMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> convs;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (linalg::isaConvolutionOpInterface(op))
        convs.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    int64_t maxBytes = maxIm2colMiB * (int64_t(1) << 20);
    // Patch chunks of at most a quarter of the target's last-level cache
    // (no chunks without a CPU target): measured on Zen 4 (32 MiB L3) at
    // batch 8, 1-image chunks of 7 MiB beat 2-image chunks of 14 MiB by
    // 10-20% (ResNet-50 stem and stage-1 3x3), and those beat one 55 MiB
    // buffer by 2.5x.
    // Read through (implicit GEMM), the output of a chunk stays in half of
    // the L2 of each core the kernel's parallel loop splits it over: its
    // C tiles are loaded and stored once per filter tap (measured at batch
    // 8, ResNet-50 stage-1 3x3: the whole 6.1 MiB output at once ran at
    // 0.80x oneDNN, below the 0.87x of the copied patches it replaced).
    int64_t chunkBytes = 0, outputChunkBytes = 0;
    tessel::CPUModelParams params;
    tessel::TargetAttr target = tessel::TargetAttr::lookup(getOperation());
    if (target && !target.isCPU())
      target = {};
    if (target) {
      params = tessel::cpuModelParams(target);
      chunkBytes = params.l3 / 4;
      outputChunkBytes = params.l2 / 2 * std::max<int64_t>(1, params.cores);
    }
    for (linalg::LinalgOp op : convs) {
      StringRef name = op->getName().getStringRef();
      if (name.starts_with("linalg.depthwise_") ||
          name.starts_with("linalg.pooling_")) {
        // No matmul (each channel is reduced on its own): as a
        // linalg.generic it is a window over the channels that the fusion
        // and stencil passes tile, parallelize and vectorize (along C in
        // NHWC); the named op has no path of its own after this pass.
        if (!generalizeWindows) {
          op->emitRemark() << "not converted: " << name
                           << " is not a matmul (generalize-windows=false)";
          continue;
        }
        if (!op.hasPureTensorSemantics()) {
          op->emitRemark() << "not converted: " << name
                           << " is not a matmul and works on buffers";
          continue;
        }
        rewriter.setInsertionPoint(op);
        std::string opName = name.str();
        Location loc = op.getLoc();
        // An NHWC window's padding (ResNet's max pool pads with -inf) is
        // built row by row over the cores, as before an im2col: bufferized,
        // tensor.pad is a serial fill of the whole tensor and a copy into
        // it, which took 70% of a batch-8 max pool.
        bool padded = false;
        if (name.contains("nhwc"))
          if (tensor::PadOp pad = paddedAlongHW(op->getOperand(0)))
            padded = static_cast<bool>(padRowsInParallel(rewriter, pad));
        if (failed(linalg::generalizeNamedOp(rewriter, op))) {
          op->emitRemark() << "not converted: " << opName
                           << " is not a matmul and could not be generalized";
          continue;
        }
        emitRemark(loc) << "not a matmul (each channel is reduced on its "
                        << "own): " << opName
                        << " generalized to a linalg.generic window"
                        << (padded ? "; its input's padding copied over the "
                                     "cores row by row"
                                   : "");
        continue;
      }
      auto nhwc = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation());
      auto nchw = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
      if (!nhwc && !nchw) {
        op->emitRemark() << "not converted: " << name
                         << " is not handled (only linalg.conv_2d_nhwc_hwcf "
                            "and linalg.conv_2d_nchw_fchw are)";
        continue;
      }
      if (nchw && !convertNchw) {
        op->emitRemark() << "not converted: conv_2d_nchw_fchw is left alone "
                            "(convert-nchw=false)";
        continue;
      }
      std::string reason = tessel::unsupportedKernelOperandsReason(op);
      if (!reason.empty()) {
        op->emitRemark() << "not converted: " << reason;
        continue;
      }
      auto shape = [&](int i) {
        return cast<RankedTensorType>(op->getOperand(i).getType()).getShape();
      };
      ArrayRef<int64_t> in = shape(0), fl = shape(1), out = shape(2);
      ConvDims d;
      if (nhwc) {
        d = {in[0], in[3], in[1], in[2], fl[3], fl[0], fl[1], out[1], out[2],
             attr(nhwc.getStrides(), 0), attr(nhwc.getStrides(), 1),
             attr(nhwc.getDilations(), 0), attr(nhwc.getDilations(), 1)};
        LLVM_DEBUG(llvm::dbgs() << "nhwc conv " << describe(d) << "\n");
        rewriteNhwc(rewriter, nhwc, d, maxBytes, chunkBytes,
                    outputChunkBytes,
                    implicitGemm && target ? &params : nullptr);
      } else {
        d = {in[0], in[1], in[2], in[3], fl[0], fl[2], fl[3], out[2], out[3],
             attr(nchw.getStrides(), 0), attr(nchw.getStrides(), 1),
             attr(nchw.getDilations(), 0), attr(nchw.getDilations(), 1)};
        LLVM_DEBUG(llvm::dbgs() << "nchw conv " << describe(d) << "\n");
        rewriteNchw(rewriter, nchw, d, maxBytes);
      }
    }
  }
};
} // namespace

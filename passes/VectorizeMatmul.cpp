//===- VectorizeMatmul.cpp - linalg.matmul to a packed, register-tiled kernel -===//
//
// The recipe of a BLIS-style GEMM: cache-block loops (nc, kc, mc) built
// here, in which the kc x nc block of B and the mc x kc block of A are
// packed into micro-panels (linalg.pack on slices, into block-sized buffers
// carried through the loops; then tiled and vectorized), and the product of
// the packed blocks as a linalg.generic that writes C in place; upstream
// transformations tile that for the registers (scf tiling), vectorize the
// register tile into a vector.contract whose accumulator is carried across
// the k loop, and lower it to vector.fma outer products. Tile sizes come
// from CostModel/MatmulTiling. A convolution's im2col matrix is read
// through the input instead of copied where A is read in place (implicit
// GEMM, implicitBlock).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/CostModel/MatmulTiling.h"
#include "passes/Utils/Im2col.h"
#include "passes/Utils/KernelSupport.h"
#include "passes/Utils/MatmulEpilogue.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#define DEBUG_TYPE "tessel-vectorize-matmul"

namespace mlir::tessel {
#define GEN_PASS_DEF_VECTORIZEMATMULPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Why `op` is outside what the recipe handles, or empty.
static std::string unsupportedReason(linalg::MatmulOp op) {
  std::string reason = unsupportedKernelOperandsReason(op);
  if (reason.empty() && op.hasUserDefinedMaps())
    reason = "it has user-defined indexing maps (transposed or broadcast "
             "operands)";
  if (reason.empty() && llvm::is_contained(op.getStaticLoopRanges(), 0))
    reason = "a dimension is 0 (nothing to multiply: its loops run no "
             "iterations)";
  return reason;
}

/// Tiles `op` by `sizes` (loops in `interchange` order); returns the tiled
/// op and the loops, outermost first.
/// With `parallel`, the loops are one scf.forall (which the CPU pipeline
/// turns into an OpenMP worksharing loop).
static FailureOr<scf::SCFTilingResult>
tile(RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> sizes,
     ArrayRef<int64_t> interchange, bool parallel = false) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  options.setInterchange(interchange);
  if (parallel)
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(result))
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return result;
}

/// Tiles `pack` into pieces of about `tileElems` elements (1 x T outer
/// tiles) and vectorizes each: a masked read of the source block, a
/// transpose in registers where the tile layout needs one, a write. With
/// `parallel`, the outermost packed dimension (micro-panels: disjoint
/// destinations) is an scf.forall around the loop of pieces.
static LogicalResult vectorizePack(RewriterBase &rewriter, linalg::PackOp pack,
                                   int64_t tileElems, bool parallel) {
  ArrayRef<int64_t> inner = pack.getStaticInnerTiles();
  int64_t innerElems = 1;
  for (int64_t t : inner)
    innerElems *= t;
  int64_t outerRank = pack.getDestType().getRank() - inner.size();
  SmallVector<int64_t> tileSizes(outerRank, 1);
  tileSizes.back() = std::max<int64_t>(1, tileElems / innerElems);
  SmallVector<int64_t> vectorSizes = tileSizes;
  llvm::append_range(vectorSizes, inner);
  Operation *op = pack;
  if (parallel && outerRank > 1) {
    SmallVector<int64_t> panels(outerRank, 0);
    panels.front() = 1;
    FailureOr<scf::SCFTilingResult> forall =
        tile(rewriter, op, panels, {}, /*parallel=*/true);
    if (failed(forall))
      return failure();
    op = forall->tiledOps.back();
    // Its outer dim is now 1: left untiled below.
    tileSizes.front() = 0;
  }
  FailureOr<scf::SCFTilingResult> tiled = tile(rewriter, op, tileSizes, {});
  if (failed(tiled))
    return failure();
  Operation *piece = tiled->tiledOps.back();
  rewriter.setInsertionPoint(piece);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, piece, vectorSizes);
  if (failed(vectorized))
    return failure();
  rewriter.replaceOp(piece, vectorized->replacements);
  return success();
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Replaces the static-shaped linalg `op` by its vector form (upstream
/// linalg::vectorize, vector sizes from its shapes).
static LogicalResult vectorizeOp(RewriterBase &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op);
  if (failed(vectorized))
    return failure();
  rewriter.replaceOp(op, vectorized->replacements);
  return success();
}

namespace {
/// One cache block of one dimension: its first register-tile panel, its
/// panel count, its first element and its element count (in the unpadded
/// operand). Static where the block index is, or where blocks divide the
/// dimension evenly.
struct CacheBlock {
  OpFoldResult panel0, panels, elem0, elems;
};

/// A loop-carried value's new contents: `tile` inserted at `offsets`/`sizes`
/// (unit strides) into iteration argument `iter`, or, with no offsets,
/// `tile` replacing it.
struct Update {
  Value tile;
  unsigned iter;
  SmallVector<OpFoldResult> offsets, sizes;
};
using BlockBody =
    function_ref<SmallVector<Update>(OpBuilder &, OpFoldResult, ValueRange)>;
} // namespace

/// Block `bi` of a dimension of `elems` elements cut into `panels` panels
/// of `panel` elements, `blockPanels` panels per block.
static CacheBlock block(OpBuilder &b, Location loc, OpFoldResult bi,
                        int64_t elems, int64_t panel, int64_t panels,
                        int64_t blockPanels) {
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx);
  CacheBlock r;
  r.panel0 =
      affine::makeComposedFoldedAffineApply(b, loc, d0 * blockPanels, {bi});
  r.elem0 = affine::makeComposedFoldedAffineApply(
      b, loc, d0 * (blockPanels * panel), {bi});
  if (panels % blockPanels == 0)
    r.panels = b.getIndexAttr(blockPanels);
  else
    r.panels = affine::makeComposedFoldedAffineMin(
        b, loc,
        AffineMap::get(1, 0,
                       {getAffineConstantExpr(blockPanels, ctx),
                        panels - d0 * blockPanels},
                       ctx),
        {bi});
  if (elems % (blockPanels * panel) == 0)
    r.elems = b.getIndexAttr(blockPanels * panel);
  else
    r.elems = affine::makeComposedFoldedAffineMin(
        b, loc,
        AffineMap::get(1, 0,
                       {getAffineConstantExpr(blockPanels * panel, ctx),
                        elems - d0 * (blockPanels * panel)},
                       ctx),
        {bi});
  return r;
}

/// `iters` with `updates` applied.
static SmallVector<Value> applyUpdates(OpBuilder &b, Location loc,
                                       ValueRange iters,
                                       ArrayRef<Update> updates) {
  SmallVector<Value> next(iters);
  for (const Update &u : updates) {
    if (u.offsets.empty()) {
      next[u.iter] = u.tile;
      continue;
    }
    SmallVector<OpFoldResult> strides(u.offsets.size(), b.getIndexAttr(1));
    next[u.iter] = tensor::InsertSliceOp::create(b, loc, u.tile, iters[u.iter],
                                                 u.offsets, u.sizes, strides);
  }
  return next;
}

/// A loop over blocks `begin` to `count` - 1 carrying `inits`: an
/// scf.forall (the inits its shared outputs, every update an insert of a
/// disjoint tile) with `parallel`, else an scf.for; no loop at all for a
/// single block. With `peelFirst` / `peelLast` (sequential loops only), the
/// first / last block is emitted before / after the loop, with a constant
/// index. Returns the final values.
static SmallVector<Value> blockLoop(OpBuilder &b, Location loc, int64_t count,
                                    bool parallel, ValueRange inits,
                                    BlockBody body, bool peelLast = false,
                                    bool peelFirst = false,
                                    int64_t begin = 0) {
  if (peelFirst && count - begin > 1) {
    assert(!parallel && "only sequential block loops are peeled");
    SmallVector<Value> first =
        applyUpdates(b, loc, inits, body(b, b.getIndexAttr(begin), inits));
    return blockLoop(b, loc, count, false, first, body, peelLast,
                     /*peelFirst=*/false, begin + 1);
  }
  if (peelLast && count - begin > 1) {
    assert(!parallel && "only sequential block loops are peeled");
    SmallVector<Value> head =
        blockLoop(b, loc, count - 1, false, inits, body, false, false, begin);
    return applyUpdates(b, loc, head, body(b, b.getIndexAttr(count - 1), head));
  }
  if (count - begin == 1)
    return applyUpdates(b, loc, inits, body(b, b.getIndexAttr(begin), inits));
  if (!parallel) {
    Value lb = arith::ConstantIndexOp::create(b, loc, begin);
    Value ub = arith::ConstantIndexOp::create(b, loc, count);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, lb, ub, step, inits,
        [&](OpBuilder &nb, Location, Value iv, ValueRange iters) {
          SmallVector<Value> next = applyUpdates(nb, loc, iters, body(nb, iv, iters));
          scf::YieldOp::create(nb, loc, next);
        });
    return loop.getResults();
  }
  assert(begin == 0 && "parallel block loops start at block 0");
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(count)}, inits,
      std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Update> updates =
      body(b, forall.getInductionVar(0), forall.getRegionIterArgs());
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  for (const Update &u : updates) {
    assert(!u.offsets.empty() && "a parallel loop only inserts tiles");
    SmallVector<OpFoldResult> strides(u.offsets.size(), b.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(b, loc, u.tile,
                                          forall.getRegionIterArgs()[u.iter],
                                          u.offsets, u.sizes, strides);
  }
  return forall.getResults();
}

/// The packed block of slot `slot` of `buffer` ([slots][P][Q][x][y]): its
/// first `p` x `q` panels, as a [p][q][x][y] tensor.
static Value bufferSlice(OpBuilder &b, Location loc, Value buffer,
                         OpFoldResult slot, OpFoldResult p, OpFoldResult q,
                         SmallVectorImpl<OpFoldResult> &offsets,
                         SmallVectorImpl<OpFoldResult> &sizes) {
  auto type = cast<RankedTensorType>(buffer.getType());
  offsets.assign({slot, b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(0),
                  b.getIndexAttr(0)});
  sizes.assign({b.getIndexAttr(1), p, q, b.getIndexAttr(type.getDimSize(3)),
                b.getIndexAttr(type.getDimSize(4))});
  SmallVector<OpFoldResult> strides(5, b.getIndexAttr(1));
  auto sliceType = tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(
      4, type, sizes);
  return tensor::ExtractSliceOp::create(b, loc, sliceType, buffer, offsets,
                                        sizes, strides);
}

/// Packs `source` into `dest` (tiles `innerTiles` of dims `innerDimsPos`,
/// outer dims permuted by `outerPerm`), zero padding partial tiles.
static linalg::PackOp pack(OpBuilder &b, Location loc, Value source, Value dest,
                           ArrayRef<int64_t> innerDimsPos,
                           ArrayRef<int64_t> innerTiles,
                           ArrayRef<int64_t> outerPerm) {
  auto type = cast<RankedTensorType>(source.getType());
  // Padding only where a tile may be partial (a dynamic or non-multiple
  // size): without it, the tiled pack reads static slices.
  bool padded = false;
  for (auto [pos, size] : llvm::zip(innerDimsPos, innerTiles))
    padded |= type.isDynamicDim(pos) || type.getDimSize(pos) % size != 0;
  std::optional<Value> zero;
  if (padded)
    zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return linalg::PackOp::create(
      b, loc, source, dest, innerDimsPos,
      getAsIndexOpFoldResult(b.getContext(), innerTiles), zero, outerPerm);
}

/// The [p][x][q][y] view of a 2-D block of `p` x `q` tiles of x by y
/// elements (an expand_shape: no copy).
static Value tileView(OpBuilder &b, Location loc, Value block, OpFoldResult p,
                      int64_t x, OpFoldResult q, int64_t y) {
  auto dim = [](OpFoldResult size) {
    std::optional<int64_t> c = getConstantIntValue(size);
    return c ? *c : ShapedType::kDynamic;
  };
  auto type = RankedTensorType::get(
      {dim(p), x, dim(q), y},
      cast<RankedTensorType>(block.getType()).getElementType());
  return tensor::ExpandShapeOp::create(
      b, loc, type, block, ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}},
      ArrayRef<OpFoldResult>{p, b.getIndexAttr(x), q, b.getIndexAttr(y)});
}

/// The source of `v` when `v` is a 2-D linalg.transpose (x @ W^T as the
/// frontends emit it), else null.
static Value transposeSource(Value v) {
  auto transpose = v.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return {};
  return transpose.getInput();
}

namespace {
/// One product of packed blocks: `last` when it is the last kc block (the
/// epilogue applies there); `row0`, `col0` the first row and column of its
/// C block in the padded C; `initValue`, when set, the scalar C starts
/// from: the product is the first kc block's, whose register tiles then
/// start from it instead of loading C.
struct KernelSite {
  linalg::GenericOp op;
  bool last;
  OpFoldResult row0, col0;
  Value initValue;
  /// The kc block's first k (a column of A).
  OpFoldResult k0;
};

/// The product's loops: `mDims` over register tiles of M (1: m1; 2 for an
/// implicit convolution: the output row in the block and the tile in the
/// row), then n1, k1, m0, n0, k0.
struct KernelLoops {
  unsigned mDims = 1;
  /// Tile sizes of `count` loops starting at `first` (others 0).
  SmallVector<int64_t> ones(unsigned first, unsigned count) const {
    SmallVector<int64_t> sizes(mDims + 5, 0);
    for (unsigned i = first; i < first + count; ++i)
      sizes[i] = 1;
    return sizes;
  }
};

/// C of a matmul as a linalg.fill of a scalar that nothing else reads,
/// possibly seen through one reshape (a convolution's collapsed output).
struct FilledInit {
  Value value;               // the scalar
  linalg::FillOp fill;
  Operation *reshape;        // between the fill and the matmul, or null
};
} // namespace

/// `c` as a fill of a scalar read by the matmul alone (directly or through
/// a collapse_shape / expand_shape read by it alone), or nothing. The
/// matmul's first kc block then writes every element of C from the scalar
/// plus its products, so the fill (a whole pass over C, on one thread) and
/// the first block's loads of C are not needed.
static std::optional<FilledInit> filledInit(Value c) {
  if (!c.hasOneUse())
    return std::nullopt;
  Operation *reshape = c.getDefiningOp();
  if (!isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
          reshape))
    reshape = nullptr;
  Value filled = reshape ? reshape->getOperand(0) : c;
  auto fill = filled.getDefiningOp<linalg::FillOp>();
  if (!fill || !filled.hasOneUse() || !fill.hasPureTensorSemantics())
    return std::nullopt;
  return FilledInit{fill.getInputs()[0], fill, reshape};
}

/// C without its fill: the fill's destination, reshaped like C (a new op).
static Value unfilledInit(RewriterBase &rewriter, const FilledInit &filled) {
  Value dest = linalg::FillOp(filled.fill).getDpsInits()[0];
  if (!filled.reshape)
    return dest;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(filled.reshape);
  Operation *unfilled = rewriter.clone(*filled.reshape);
  unfilled->setOperand(0, dest);
  return unfilled->getResult(0);
}

/// Applies `epilogue` to the register tile that `kernel` (a product tiled
/// to one mr x nr tile of C) computes: a copy of the epilogue's body on the
/// tile and on the matching slices of its other inputs (`inputs`, padded
/// like C; null where the epilogue reads the product), placed after the
/// kernel and replacing its result. Returns null when the kernel's C tile is
/// not the expected static slice.
static linalg::GenericOp applyEpilogueToTile(RewriterBase &rewriter,
                                             linalg::GenericOp epilogue,
                                             ArrayRef<Value> inputs,
                                             linalg::GenericOp kernel,
                                             OpFoldResult row0,
                                             OpFoldResult col0) {
  Location loc = kernel.getLoc();
  auto cSlice = kernel.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
  auto tileType = dyn_cast<RankedTensorType>(kernel.getResult(0).getType());
  if (!cSlice || !tileType || tileType.getRank() != 2 ||
      !tileType.hasStaticShape())
    return nullptr;
  SmallVector<OpFoldResult> offsets = cSlice.getMixedOffsets();
  rewriter.setInsertionPointAfter(kernel);
  AffineExpr d0, d1;
  bindDims(rewriter.getContext(), d0, d1);
  OpFoldResult row = affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0 + d1, {row0, offsets[0]});
  OpFoldResult col = affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0 + d1, {col0, offsets[1]});
  OpFoldResult tileOffset[2] = {row, col};
  OpFoldResult tileSize[2] = {rewriter.getIndexAttr(tileType.getDimSize(0)),
                              rewriter.getIndexAttr(tileType.getDimSize(1))};
  Value tile = kernel.getResult(0);
  SmallVector<Value> operands;
  for (auto [input, operand] : llvm::zip(inputs, epilogue.getDpsInputOperands())) {
    if (!input) {
      operands.push_back(tile);
      continue;
    }
    // The input's slice along the (m, n) dims its map follows.
    SmallVector<OpFoldResult> tileOffsets, tileSizes;
    for (AffineExpr e : epilogue.getMatchingIndexingMap(operand).getResults()) {
      unsigned dim = cast<AffineDimExpr>(e).getPosition();
      tileOffsets.push_back(tileOffset[dim]);
      tileSizes.push_back(tileSize[dim]);
    }
    if (tileOffsets.empty()) {
      operands.push_back(input);
      continue;
    }
    SmallVector<OpFoldResult> strides(tileOffsets.size(),
                                      rewriter.getIndexAttr(1));
    operands.push_back(tensor::ExtractSliceOp::create(
        rewriter, loc, input, tileOffsets, tileSizes, strides));
  }
  auto applied = linalg::GenericOp::create(
      rewriter, loc, TypeRange{tileType}, operands, ValueRange{tile},
      epilogue.getIndexingMapsArray(), epilogue.getIteratorTypesArray());
  rewriter.cloneRegionBefore(epilogue.getRegion(), applied.getRegion(),
                             applied.getRegion().end());
  rewriter.replaceAllUsesExcept(tile, applied.getResult(0), applied);
  return applied;
}

namespace {
/// Register tiles skipping the work of kc blocks that their pixels read
/// only as zero padding (planPaddingSkip).
struct PaddingSkip {
  PatchPadding padding;
  int64_t mr = 0;
  /// The kc block the block loop starts at (then wrapping around).
  int64_t kRotation = 0;
  /// Whether kc blocks lie within one tap, so that a tile may also leave
  /// out its pixels whose filter column reads padding; then the pixel
  /// ranges [lo, hi) of a tile that do read the input, other than all of
  /// it and none, over its positions in a row and the filter columns.
  bool columns = false;
  SmallVector<std::pair<int64_t, int64_t>> partialRanges;
};
} // namespace

/// The k tiling, unit-dim dropping and vectorization of one register tile
/// product: the k loop, kr at a time, around a (k0, m0, n0) contraction of
/// kr x mr and kr x nr slabs, the outer-product form.
static LogicalResult tileKAndVectorize(RewriterBase &rewriter,
                                       linalg::GenericOp tileKernel,
                                       const KernelLoops &loops) {
  unsigned md = loops.mDims;
  FailureOr<scf::SCFTilingResult> l3 =
      tile(rewriter, tileKernel, loops.ones(md + 1, 1), {});
  if (failed(l3))
    return failure();
  auto generic = dyn_cast<linalg::GenericOp>(l3->tiledOps.back());
  if (!generic)
    return failure();
  linalg::ControlDropUnitDims control;
  control.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  // Only the outer (m1 or r, owt; n1, k1) dims, which tiling made unit: k0
  // must stay even when kr = 1, or the vectorized op has no reduction to
  // become a contraction (and mr = 1 keeps its m0 dim likewise).
  control.controlFn = [md](Operation *) {
    SmallVector<unsigned> outer;
    for (unsigned i = 0; i < md + 2; ++i)
      outer.push_back(i);
    return outer;
  };
  Operation *kernelOp = generic;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (succeeded(dropped)) {
    rewriter.replaceOp(generic, dropped->replacements);
    kernelOp = dropped->resultOp;
  }
  return vectorizeOp(rewriter, kernelOp);
}

/// Replaces the register tile product `kernel` (its C a slice at C row
/// `row0` plus the slice's offset, one output row of pixels; its k from
/// `k0`, within one filter row, and one tap with `skip.columns`) by a
/// chain of scf.if: all of it when its row reads the input for the
/// block's filter row and all its pixels read input columns; the product
/// on pixels [lo, hi) only (a tile of the product, inserted into C) for
/// each of `skip.partialRanges`; else C unchanged. Returns the products
/// left to tile and vectorize (just `kernel` when C is not a slice; a
/// partial product upstream cannot tile computes the whole tile).
static SmallVector<linalg::GenericOp>
skipPaddingInTile(RewriterBase &rewriter, linalg::GenericOp kernel,
                  OpFoldResult row0, OpFoldResult k0, unsigned m0Dim,
                  const PaddingSkip &skip) {
  auto cSlice = kernel.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
  if (!cSlice)
    return SmallVector<linalg::GenericOp>{kernel};
  const PatchPadding &p = skip.padding;
  MLIRContext *ctx = rewriter.getContext();
  Location loc = kernel.getLoc();
  rewriter.setInsertionPoint(kernel);
  AffineExpr c0, tileOffset, k;
  bindDims(ctx, c0, tileOffset, k);
  AffineExpr pixel = c0 + tileOffset;
  SmallVector<OpFoldResult> operands = {row0, cSlice.getMixedOffsets()[0], k0};
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(rewriter, loc, predicate, a, b).getResult();
  };
  auto both = [&](Value a, Value b) {
    return arith::AndIOp::create(rewriter, loc, a, b).getResult();
  };
  // The input row the tile's pixels read for the block's filter row,
  // relative to the input proper.
  AffineExpr inRow = (pixel.floorDiv(p.ow) % p.oh) * p.sh +
                     k.floorDiv(p.kw * p.c) * p.dh - p.top;
  Value ih = getValueOrCreateConstantIndexOp(
      rewriter, loc,
      affine::makeComposedFoldedAffineApply(
          rewriter, loc, AffineMap::get(3, 0, inRow), operands));
  Value readsRow = both(cmp(arith::CmpIPredicate::sge, ih, index(0)),
                        cmp(arith::CmpIPredicate::slt, ih, index(p.h)));
  // The tile's pixels [lo, hi) whose input column for the block's filter
  // column lies in the input proper (lo >= hi: none).
  SmallVector<std::pair<Value, std::pair<int64_t, int64_t>>> cases;
  if (skip.columns && !skip.partialRanges.empty()) {
    AffineExpr firstColumn = pixel % p.ow;
    AffineExpr filterColumn = k.floorDiv(p.c) % p.kw;
    AffineExpr loExpr =
        (p.left - filterColumn * p.dw).ceilDiv(p.sw) - firstColumn;
    AffineExpr hiExpr =
        (p.w - 1 + p.left - filterColumn * p.dw).floorDiv(p.sw) - firstColumn +
        1;
    Value lo = getValueOrCreateConstantIndexOp(
        rewriter, loc,
        affine::makeComposedFoldedAffineMax(
            rewriter, loc,
            AffineMap::get(3, 0, {getAffineConstantExpr(0, ctx), loExpr}, ctx),
            operands));
    Value hi = getValueOrCreateConstantIndexOp(
        rewriter, loc,
        affine::makeComposedFoldedAffineMin(
            rewriter, loc,
            AffineMap::get(3, 0, {getAffineConstantExpr(skip.mr, ctx), hiExpr},
                           ctx),
            operands));
    auto range = [&](int64_t l, int64_t h) {
      return both(readsRow, both(cmp(arith::CmpIPredicate::eq, lo, index(l)),
                                 cmp(arith::CmpIPredicate::eq, hi, index(h))));
    };
    cases.push_back({range(0, skip.mr), {0, skip.mr}});
    for (auto [l, h] : skip.partialRanges)
      cases.push_back({range(l, h), {l, h}});
  } else {
    cases.push_back({readsRow, {0, skip.mr}});
  }

  // The chain, from its last case outwards: each scf.if computes its case
  // in the then block, the next case (or, after the last, C unchanged) in
  // the else block.
  SmallVector<linalg::GenericOp> products;
  Value init = kernel.getDpsInits()[0];
  SmallVector<Range> domain =
      cast<TilingInterface>(kernel.getOperation()).getIterationDomain(rewriter);
  std::function<Value(unsigned)> chain = [&](unsigned i) -> Value {
    auto branch = scf::IfOp::create(rewriter, loc, kernel.getResultTypes(),
                                    cases[i].first, /*addThenBlock=*/true,
                                    /*addElseBlock=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    auto copy = cast<linalg::GenericOp>(rewriter.clone(*kernel));
    auto [l, h] = cases[i].second;
    Value computed = copy.getResult(0);
    if (l != 0 || h != skip.mr) {
      SmallVector<OpFoldResult> offsets, sizes;
      for (const Range &r : domain) {
        offsets.push_back(r.offset);
        sizes.push_back(r.size);
      }
      offsets[m0Dim] = rewriter.getIndexAttr(l);
      sizes[m0Dim] = rewriter.getIndexAttr(h - l);
      auto tileable = cast<TilingInterface>(copy.getOperation());
      FailureOr<TilingResult> part =
          tileable.getTiledImplementation(rewriter, offsets, sizes);
      SmallVector<OpFoldResult> resultOffsets, resultSizes;
      linalg::GenericOp partKernel;
      if (succeeded(part) && part->tiledOps.size() == 1 &&
          succeeded(tileable.getResultTilePosition(rewriter, 0, offsets, sizes,
                                                   resultOffsets, resultSizes)))
        partKernel = dyn_cast<linalg::GenericOp>(part->tiledOps[0]);
      if (partKernel) {
        SmallVector<OpFoldResult> strides(resultOffsets.size(),
                                          rewriter.getIndexAttr(1));
        computed = tensor::InsertSliceOp::create(
            rewriter, loc, part->tiledValues[0], init, resultOffsets,
            resultSizes, strides);
        rewriter.eraseOp(copy);
        products.push_back(partKernel);
      } else {
        // The whole tile then: the padding's zeros add nothing.
        if (succeeded(part))
          for (Operation *op : llvm::reverse(part->tiledOps))
            if (op->use_empty())
              rewriter.eraseOp(op);
        products.push_back(copy);
      }
    } else {
      products.push_back(copy);
    }
    scf::YieldOp::create(rewriter, loc, computed);
    rewriter.setInsertionPointToStart(branch.elseBlock());
    Value otherwise = i + 1 < cases.size() ? chain(i + 1) : init;
    scf::YieldOp::create(rewriter, loc, otherwise);
    return branch.getResult(0);
  };
  rewriter.replaceOp(kernel, chain(0));
  return products;
}

/// Tiles one product of packed blocks for the registers and vectorizes the
/// register tile; on the last kc block, applies `epilogue` to each tile
/// first (the applied copies, still linalg, are appended to `applied`).
/// With `skipPadding`, a register tile leaves out its pixels that read only
/// zero padding for the block's tap, or skips its k loop (not in the first
/// block, which starts C from its fill, nor the last, which applies the
/// epilogue: those compute every tile).
static LogicalResult
tileAndVectorizeKernel(RewriterBase &rewriter, const KernelSite &site,
                       const KernelLoops &loops, linalg::GenericOp epilogue,
                       ArrayRef<Value> epilogueInputs,
                       SmallVectorImpl<linalg::GenericOp> &applied,
                       const PaddingSkip *skipPadding) {
  // Register tiles: the B micro-panel loop outside the A micro-panel loop(s),
  // so the kc x nr panel of B stays in L1 across the mc / mr tiles.
  unsigned md = loops.mDims;
  SmallVector<int64_t> interchange = {md};
  for (unsigned i = 0; i < md; ++i)
    interchange.push_back(i);
  FailureOr<scf::SCFTilingResult> l2 =
      tile(rewriter, site.op, loops.ones(0, md + 1), interchange);
  if (failed(l2))
    return failure();
  auto tileKernel = dyn_cast<linalg::GenericOp>(l2->tiledOps.back());
  if (!tileKernel)
    return failure();
  if (site.last && epilogue) {
    linalg::GenericOp onTile =
        applyEpilogueToTile(rewriter, epilogue, epilogueInputs, tileKernel,
                            site.row0, site.col0);
    if (!onTile)
      return failure();
    applied.push_back(onTile);
  }
  // The first kc block's register tile starts from C's fill value: the
  // tile is filled (a vector store of a splat) before the k loop, so once
  // the accumulator is hoisted its first load folds into the splat and the
  // store into the tile's final one.
  if (site.initValue) {
    rewriter.setInsertionPoint(tileKernel);
    auto fill = linalg::FillOp::create(rewriter, tileKernel.getLoc(),
                                       site.initValue,
                                       tileKernel.getDpsInits()[0]);
    rewriter.modifyOpInPlace(tileKernel, [&] {
      tileKernel.getDpsInitsMutable()[0].set(fill.getResult(0));
    });
    if (failed(vectorizeOp(rewriter, fill)))
      return failure();
  }
  // Where the tile's pixels read only zero padding for this block, it does
  // less or nothing (a chain of scf.if around copies of the product).
  SmallVector<linalg::GenericOp> products = {tileKernel};
  if (skipPadding && !site.initValue && !site.last)
    products = skipPaddingInTile(rewriter, tileKernel, site.row0, site.k0,
                                 /*m0Dim=*/md + 2, *skipPadding);
  for (linalg::GenericOp product : products)
    if (failed(tileKAndVectorize(rewriter, product, loops)))
      return failure();
  return success();
}

/// The mc x kc block of a convolution's im2col matrix A at rows `row0` and
/// column `col0`, read from the padded input instead of the patches
/// (implicit GEMM), as [R][OW/mr][mr][kc/kr][kr]: the block is R whole
/// output rows of one image and lies in one tap (kh, kw) (the model made
/// mc a multiple of OW dividing an image and kc a divisor of C), so it is
/// the strided slice input[img, oh0*sh + kh*dh + (0..R)*sh,
/// kw*dw + (0..OW)*sw, c0 + (0..kc)] of the input: no copy.
static Value implicitBlock(OpBuilder &b, Location loc, const NhwcIm2col &d,
                           const MatmulTiling &t, OpFoldResult row0,
                           OpFoldResult col0) {
  MLIRContext *ctx = b.getContext();
  AffineExpr e0, e1;
  bindDims(ctx, e0, e1);
  auto apply = [&](AffineExpr e, ArrayRef<OpFoldResult> operands) {
    return affine::makeComposedFoldedAffineApply(b, loc, e, operands);
  };
  int64_t image = d.oh * d.ow, rows = t.mc / d.ow;
  OpFoldResult img = apply(e0.floorDiv(image), {row0});
  OpFoldResult oh0 = apply((e0 % image).floorDiv(d.ow), {row0});
  OpFoldResult kh = apply(e0.floorDiv(d.kw * d.c), {col0});
  OpFoldResult kw = apply(e0.floorDiv(d.c) % d.kw, {col0});
  OpFoldResult c0 = apply(e0 % d.c, {col0});
  SmallVector<OpFoldResult> offsets = {
      img, apply(e0 * d.sh + e1 * d.dh, {oh0, kh}), apply(e0 * d.dw, {kw}),
      c0};
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(ctx, {1, rows, d.ow, t.kc});
  SmallVector<OpFoldResult> strides =
      getAsIndexOpFoldResult(ctx, {1, d.sh, d.sw, 1});
  auto sliceType = RankedTensorType::get({rows, d.ow, t.kc},
                                         Float32Type::get(ctx));
  Value block = tensor::ExtractSliceOp::create(b, loc, sliceType, d.input,
                                               offsets, sizes, strides);
  auto viewType = RankedTensorType::get(
      {rows, d.ow / t.mr, t.mr, t.kc / t.kr, t.kr}, Float32Type::get(ctx));
  return tensor::ExpandShapeOp::create(
      b, loc, viewType, block,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3, 4}});
}

/// A convolution's patches with zero padding (the 3x3 layers' borders):
/// where every kc block lies within one filter row and every register tile
/// within one output row, a tile whose row reads only padding for a
/// block's filter row skips that block (2 of the 21 (output row, filter
/// row) pairs of a 7x7 output and a 3x3 filter: a tenth of the FLOPs).
/// Where kc blocks lie within one tap, a tile whose first or last pixels
/// read only padding for the block's filter column computes the others
/// only (2 of 21 (output column, filter column) pairs likewise). The kc
/// blocks then run in rotated order, from a tap that every pixel reads
/// (the middle one), because the first and last blocks compute every tile
/// (C's fill, the epilogue): the first then wastes nothing, nor does the
/// last with several blocks per tap (it is the same tap's first block);
/// with one block per tap the last is the tap before (in the same filter
/// row, so only its border pixels' columns are computed for nothing).
/// Nothing when there is no such padding.
static std::optional<PaddingSkip> planPaddingSkip(linalg::MatmulOp matmul,
                                                  const MatmulTiling &t) {
  std::optional<PatchPadding> p = getPatchPadding(matmul);
  auto aType = cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1);
  if (!p || (p->kw * p->c) % t.kc != 0 || p->ow % t.mr != 0 || m % t.mr ||
      k / t.kc <= 2)
    return std::nullopt;
  PaddingSkip skip;
  skip.padding = *p;
  skip.mr = t.mr;
  skip.columns = p->c % t.kc == 0;
  if (!p->paddingOnlyRowPairs() &&
      !(skip.columns && p->paddingOnlyColumnPairs()))
    return std::nullopt;
  // The pixel ranges of a tile that read the input, per tile position in a
  // row and filter column.
  if (skip.columns) {
    for (int64_t first = 0; first < p->ow; first += t.mr)
      for (int64_t fw = 0; fw < p->kw; ++fw) {
        int64_t lo = 0, hi = t.mr;
        while (lo < t.mr && !p->columnReadsInput(first + lo, fw))
          ++lo;
        while (hi > lo && !p->columnReadsInput(first + hi - 1, fw))
          --hi;
        std::pair<int64_t, int64_t> range = {lo, hi};
        if (lo < hi && (lo != 0 || hi != t.mr) &&
            !llvm::is_contained(skip.partialRanges, range))
          skip.partialRanges.push_back(range);
      }
  }
  // The first block: the middle tap of a filter row every output row reads
  // (of a filter column every output column reads, where there is one).
  auto everyRow = [&](int64_t fh) {
    for (int64_t oh = 0; oh < p->oh; ++oh)
      if (!p->rowReadsInput(oh, fh))
        return false;
    return true;
  };
  auto everyColumn = [&](int64_t fw) {
    for (int64_t ow = 0; ow < p->ow; ++ow)
      if (!p->columnReadsInput(ow, fw))
        return false;
    return true;
  };
  int64_t fh = 0, fw = p->kw / 2;
  while (fh < p->kh && !everyRow(fh))
    ++fh;
  if (fh == p->kh)
    fh = p->kh / 2;
  if (!everyColumn(fw))
    for (int64_t c = 0; c < p->kw; ++c)
      if (everyColumn(c)) {
        fw = c;
        break;
      }
  int64_t kBlocks = k / t.kc;
  skip.kRotation = (fh * p->kw + fw) * p->c / t.kc;
  // With several blocks per tap, from the tap's second block, so that the
  // last block is its first.
  if (skip.columns && p->c / t.kc >= 2)
    skip.kRotation = (skip.kRotation + 1) % kBlocks;
  return skip;
}

/// The im2col copy `matmul`'s A is a collapsed view of, when both are read
/// by nothing else.
static std::optional<NhwcIm2col> convolutionPatches(linalg::MatmulOp matmul) {
  Value a = matmul.getDpsInputs()[0];
  auto collapsed = a.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapsed || !a.hasOneUse() || !collapsed.getSrc().hasOneUse() ||
      collapsed.getReassociationIndices() !=
          SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}})
    return std::nullopt;
  return matchNhwcIm2col(collapsed.getSrc());
}

/// Packs, tiles and vectorizes one matmul; on success the matmul is gone and
/// its register tile is a vector.contract inside the k loop. With an
/// `epilogue` (gatherMatmulEpilogue), the last kc block is peeled off the kc
/// loop and its register tiles apply the epilogue before they are stored;
/// the epilogue is gone too, its result replaced by the kernel's.
static LogicalResult
packTileAndVectorize(RewriterBase &rewriter, linalg::MatmulOp matmul,
                     const MatmulTiling &t, linalg::GenericOp epilogue,
                     const NhwcIm2col *implicitA, const PaddingSkip *skip) {
  MLIRContext *ctx = matmul.getContext();
  Location loc = matmul.getLoc();
  // After the epilogue's inputs (a bias may be defined after the matmul).
  if (epilogue)
    rewriter.setInsertionPoint(epilogue);
  else
    rewriter.setInsertionPoint(matmul);
  Value a = matmul.getDpsInputs()[0], b = matmul.getDpsInputs()[1];
  Value c = matmul.getDpsInits()[0];
  auto cType = cast<RankedTensorType>(c.getType());
  Type f32 = cType.getElementType();
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  int64_t k = cast<RankedTensorType>(a.getType()).getDimSize(1);
  // A transposed operand is packed straight from the transpose's source:
  // the packing copy reorders anyway, so the transposition costs nothing
  // there, while a separate transpose is a full strided copy of the operand
  // (a weight matrix, every call).
  Value aT = transposeSource(a), bT = transposeSource(b);
  // Register-tile panels of each dimension, cache blocks in panels, and
  // block counts.
  int64_t mp = ceilDiv(m, t.mr), np = ceilDiv(n, t.nr), kp = ceilDiv(k, t.kr);
  int64_t mcT = t.mc / t.mr, ncT = t.nc / t.nr, kcT = t.kc / t.kr;
  int64_t mBlocks = ceilDiv(mp, mcT), nBlocks = ceilDiv(np, ncT),
          kBlocks = ceilDiv(kp, kcT);

  int64_t kRotation = skip ? skip->kRotation : 0;

  // C keeps its layout; it is padded to whole register tiles only when its
  // sizes are not multiples of mr x nr.
  // A C that is a fill is not filled: the first kc block starts its
  // register tiles from the fill's value (and a padded C is then a fresh
  // tensor, every element of which that block writes).
  std::optional<FilledInit> filled = filledInit(c);
  bool padC = mp * t.mr != m || np * t.nr != n;
  Value unpaddedC = filled && !padC ? unfilledInit(rewriter, *filled) : c;
  Value paddedC = unpaddedC;
  if (padC) {
    auto paddedType = RankedTensorType::get({mp * t.mr, np * t.nr}, f32);
    if (filled) {
      paddedC = tensor::EmptyOp::create(rewriter, loc, paddedType.getShape(),
                                        f32);
    } else {
      Value zero =
          arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(f32));
      paddedC = tensor::createPadHighOp(paddedType, c, zero, /*nofold=*/false,
                                        loc, rewriter);
    }
  }
  // The epilogue's other inputs, padded like C along the dimensions they
  // follow (what the padding computes is sliced away with C's padding).
  SmallVector<Value> epilogueInputs;
  if (epilogue) {
    for (OpOperand *input : epilogue.getDpsInputOperands()) {
      Value v = input->get();
      if (v == matmul.getResult(0)) {
        epilogueInputs.push_back(Value());
        continue;
      }
      auto type = cast<RankedTensorType>(v.getType());
      const int64_t paddedDims[2] = {mp * t.mr, np * t.nr};
      SmallVector<int64_t> shape;
      for (AffineExpr e : epilogue.getMatchingIndexingMap(input).getResults())
        shape.push_back(paddedDims[cast<AffineDimExpr>(e).getPosition()]);
      if (ArrayRef<int64_t>(shape) != type.getShape()) {
        Value zero = arith::ConstantOp::create(
            rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
        v = tensor::createPadHighOp(
            RankedTensorType::get(shape, type.getElementType()), v, zero,
            /*nofold=*/false, loc, rewriter);
      }
      epilogueInputs.push_back(v);
    }
  }

  // Block-sized buffers for the packed operands, reused by every iteration
  // of the cache loops (one allocation each after bufferization):
  //  - B[kc x nc] -> [nc/nr][kc/kr][kr][nr], packed once per (nc, kc) block;
  //  - A[mc x kc] -> [mc/mr][kc/kr][kr][mr], packed once per mc block.
  // The register tile reads one kr x mr slab of A and one kr x nr slab of B
  // per k step, and consecutive k steps are adjacent. With the mc loop
  // parallel, A has one slot per mc block (each thread packs its own); with
  // the nc loop parallel, each of its iterations (one per core) creates its
  // own buffers, outside its kc and mc loops. Buffers are [slots][...].
  // An operand read in place (t.packA / t.packB false) has no buffer; the
  // lists below then hold only the other one.
  auto buffers = [&](OpBuilder &bb, int64_t aSlots) {
    SmallVector<Value> bufs;
    if (t.packA)
      bufs.push_back(tensor::EmptyOp::create(
          bb, loc, ArrayRef<int64_t>{aSlots, mcT, kcT, t.kr, t.mr}, f32));
    if (t.packB)
      bufs.push_back(tensor::EmptyOp::create(
          bb, loc, ArrayRef<int64_t>{1, ncT, kcT, t.kr, t.nr}, f32));
    return bufs;
  };
  // Positions of the buffers among the loop-carried values (C is 0).
  const unsigned aIter = 1, bIter = t.packA ? 2 : 1;
  SmallVector<Value> inits = {paddedC};
  if (t.parallel != 'n')
    llvm::append_range(inits,
                       buffers(rewriter, t.parallel == 'm' ? mBlocks : 1));

  // C[m1 * mr + m0][n1 * nr + n0] += A[m1][k1][k0][m0] * B[n1][k1][k0][n0]
  // over (m1, n1, k1, m0, n0, k0), on one block of each. An operand read
  // in place is its block viewed as [m1][m0][k1][k0] or [k1][k0][n1][n0]
  // (an expand_shape: no copy). A read through a convolution's input has
  // two M loops instead of m1, the output row r of the block and the
  // register tile t in that row: C[r * OW + t * mr + m0][..] +=
  // A[r][t][m0][k1][k0] * B[..], A being the block's rows of one tap of
  // the input (a strided slice, no copy either).
  KernelLoops loops;
  loops.mDims = implicitA ? 2 : 1;
  unsigned nLoops = loops.mDims + 5;
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr n1 = dim(loops.mDims), k1 = dim(loops.mDims + 1),
             m0 = dim(loops.mDims + 2), n0 = dim(loops.mDims + 3),
             k0 = dim(loops.mDims + 4);
  AffineMap aMap, cMap;
  if (implicitA) {
    AffineExpr r = dim(0), tile = dim(1);
    aMap = AffineMap::get(nLoops, 0, {r, tile, m0, k1, k0}, ctx);
    cMap = AffineMap::get(
        nLoops, 0, {r * implicitA->ow + tile * t.mr + m0, n1 * t.nr + n0},
        ctx);
  } else {
    AffineExpr m1 = dim(0);
    aMap = t.packA ? AffineMap::get(nLoops, 0, {m1, k1, k0, m0}, ctx)
                   : AffineMap::get(nLoops, 0, {m1, m0, k1, k0}, ctx);
    cMap = AffineMap::get(nLoops, 0, {m1 * t.mr + m0, n1 * t.nr + n0}, ctx);
  }
  SmallVector<AffineMap> maps = {
      aMap,
      t.packB ? AffineMap::get(nLoops, 0, {n1, k1, k0, n0}, ctx)
              : AffineMap::get(nLoops, 0, {k1, k0, n1, n0}, ctx),
      cMap};
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(loops.mDims, IteratorType::parallel);
  iterators.append({IteratorType::parallel, IteratorType::reduction,
                    IteratorType::parallel, IteratorType::parallel,
                    IteratorType::reduction});

  // Loops in BLIS order: nc (L3 block of B), kc, mc (L2 block of A). The
  // loop the model made parallel is an scf.forall: the mc loop (inside kc:
  // one parallel region per B block, which is packed before it) or the
  // outermost nc loop (each thread packs its own B and A blocks). Either
  // way the iterations write disjoint blocks of C and disjoint buffer slots,
  // and only read the shared packed B block.
  SmallVector<linalg::PackOp> packAs, packBs;
  SmallVector<KernelSite> sites;
  AffineExpr s0 = getAffineDimExpr(0, ctx);
  auto times = [&](OpBuilder &bb, OpFoldResult x, int64_t f) {
    return affine::makeComposedFoldedAffineApply(bb, loc, s0 * f, {x});
  };
  auto slice = [&](OpBuilder &bb, Value src, ArrayRef<OpFoldResult> offsets,
                   ArrayRef<OpFoldResult> sizes) -> Value {
    SmallVector<OpFoldResult> strides(offsets.size(), bb.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(bb, loc, src, offsets, sizes,
                                          strides);
  };
  OpFoldResult zeroIdx = rewriter.getIndexAttr(0);
  SmallVector<Value> results = blockLoop(
      rewriter, loc, nBlocks, t.parallel == 'n', inits,
      [&](OpBuilder &bb, OpFoldResult bn, ValueRange iters) {
        CacheBlock nb = block(bb, loc, bn, n, t.nr, np, ncT);
        // The nc column block of C, and this block's buffer slots.
        SmallVector<OpFoldResult> cOffsets = {zeroIdx,
                                              times(bb, nb.panel0, t.nr)};
        SmallVector<OpFoldResult> cSizes = {bb.getIndexAttr(mp * t.mr),
                                            times(bb, nb.panels, t.nr)};
        Value cBlock = slice(bb, iters[0], cOffsets, cSizes);
        SmallVector<Value> kInits = {cBlock};
        if (t.parallel == 'n')
          llvm::append_range(kInits, buffers(bb, 1));
        else
          llvm::append_range(kInits, iters.drop_front());
        SmallVector<Value> kResults = blockLoop(
            bb, loc, kBlocks, false, kInits,
            [&](OpBuilder &kb, OpFoldResult bk, ValueRange kIters) {
              OpFoldResult kBlock = bk;
              if (kRotation)
                kBlock = affine::makeComposedFoldedAffineApply(
                    kb, loc, (s0 + kRotation) % kBlocks, {bk});
              CacheBlock kbl = block(kb, loc, kBlock, k, t.kr, kp, kcT);
              SmallVector<OpFoldResult> bOffsets, bSizes;
              Value packedB;
              if (!t.packB) {
                // The kc x nc block of B where it is, as [k1][kr][n1][nr].
                packedB = tileView(kb, loc,
                                   slice(kb, b, {kbl.elem0, nb.elem0},
                                         {kbl.elems, nb.elems}),
                                   kbl.panels, t.kr, nb.panels, t.nr);
              } else {
                // The kc x nc block of B, packed once for every mc block:
                // [n1][k1][kr][nr] from B[K][N], or from B^T[N][K].
                Value bDest = bufferSlice(kb, loc, kIters[bIter], zeroIdx,
                                          nb.panels, kbl.panels, bOffsets,
                                          bSizes);
                linalg::PackOp packB =
                    bT ? pack(kb, loc,
                              slice(kb, bT, {nb.elem0, kbl.elem0},
                                    {nb.elems, kbl.elems}),
                              bDest, {1, 0}, {t.kr, t.nr}, {})
                       : pack(kb, loc,
                              slice(kb, b, {kbl.elem0, nb.elem0},
                                    {kbl.elems, nb.elems}),
                              bDest, {0, 1}, {t.kr, t.nr}, {1, 0});
                packedB = packB.getResult();
                packBs.push_back(packB);
              }
              SmallVector<Value> mInits = {kIters[0]};
              if (t.packA)
                mInits.push_back(kIters[aIter]);
              SmallVector<Value> mResults = blockLoop(
                  kb, loc, mBlocks, t.parallel == 'm', mInits,
                  [&](OpBuilder &mb, OpFoldResult bm, ValueRange mIters) {
                    CacheBlock mbl = block(mb, loc, bm, m, t.mr, mp, mcT);
                    Value aBlock;
                    SmallVector<OpFoldResult> aOffsets, aSizes;
                    if (implicitA) {
                      aBlock = implicitBlock(mb, loc, *implicitA, t,
                                             mbl.elem0, kbl.elem0);
                    } else if (!t.packA) {
                      // The mc x kc block of A where it is, as
                      // [m1][mr][k1][kr] (M and K are whole tiles).
                      aBlock = tileView(mb, loc,
                                        slice(mb, a, {mbl.elem0, kbl.elem0},
                                              {mbl.elems, kbl.elems}),
                                        mbl.panels, t.mr, kbl.panels, t.kr);
                    } else {
                      // The mc x kc block of A, packed into this thread's
                      // slot: [m1][k1][kr][mr] from A[M][K], or from
                      // A^T[K][M].
                      Value aDest = bufferSlice(
                          mb, loc, mIters[1], t.parallel == 'm' ? bm : zeroIdx,
                          mbl.panels, kbl.panels, aOffsets, aSizes);
                      linalg::PackOp packA = aT ? pack(mb, loc,
                                        slice(mb, aT, {kbl.elem0, mbl.elem0},
                                              {kbl.elems, mbl.elems}),
                                        aDest, {0, 1}, {t.kr, t.mr}, {1, 0})
                                 : pack(mb, loc,
                                        slice(mb, a, {mbl.elem0, kbl.elem0},
                                              {mbl.elems, kbl.elems}),
                                        aDest, {1, 0}, {t.kr, t.mr}, {});
                      aBlock = packA.getResult();
                      packAs.push_back(packA);
                    }
                    SmallVector<OpFoldResult> tOffsets = {
                        times(mb, mbl.panel0, t.mr), zeroIdx};
                    SmallVector<OpFoldResult> tSizes = {
                        times(mb, mbl.panels, t.mr), cSizes[1]};
                    Value cTile = slice(mb, mIters[0], tOffsets, tSizes);
                    auto kernel = linalg::GenericOp::create(
                        mb, loc, cTile.getType(),
                        ValueRange{aBlock, packedB},
                        ValueRange{cTile}, maps, iterators,
                        [](OpBuilder &builder, Location loc, ValueRange args) {
                          Value mul = arith::MulFOp::create(builder, loc,
                                                            args[0], args[1]);
                          Value add =
                              arith::AddFOp::create(builder, loc, args[2], mul);
                          linalg::YieldOp::create(builder, loc, add);
                        });
                    sites.push_back(
                        {kernel,
                         epilogue && isConstantIntValue(bk, kBlocks - 1),
                         tOffsets[0], cOffsets[1],
                         filled && isConstantIntValue(bk, 0) ? filled->value
                                                             : Value(),
                         kbl.elem0});
                    SmallVector<Update> mUpdates = {
                        {kernel.getResult(0), 0, tOffsets, tSizes}};
                    if (t.packA)
                      mUpdates.push_back({aBlock, 1, aOffsets, aSizes});
                    return mUpdates;
                  });
              SmallVector<Update> kUpdates = {{mResults[0], 0, {}, {}}};
              if (t.packA)
                kUpdates.push_back({mResults[1], aIter, {}, {}});
              if (t.packB)
                kUpdates.push_back({packedB, bIter, bOffsets, bSizes});
              return kUpdates;
            },
            /*peelLast=*/bool(epilogue), /*peelFirst=*/bool(filled));
        SmallVector<Update> updates = {{kResults[0], 0, cOffsets, cSizes}};
        if (t.parallel != 'n')
          for (unsigned i = 1; i < kResults.size(); ++i)
            updates.push_back({kResults[i], i, {}, {}});
        return updates;
      });
  Value result = results[0];
  if (paddedC != unpaddedC)
    result = tensor::ExtractSliceOp::create(
        rewriter, loc, cType, result,
        getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>{0, 0}),
        getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>{m, n}),
        getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>{1, 1}));
  if (epilogue)
    rewriter.replaceAllUsesWith(epilogue.getResult(0), result);
  else
    rewriter.replaceOp(matmul, result);

  SmallVector<linalg::GenericOp> tileEpilogues;
  for (KernelSite &site : sites)
    if (failed(tileAndVectorizeKernel(rewriter, site, loops, epilogue,
                                      epilogueInputs, tileEpilogues, skip)))
      return failure();
  // The epilogue on each register tile as vector ops; once the accumulators
  // are hoisted out of the k loop (finishKernels), their store and the
  // epilogue's load of the tile fold away, so it works on the registers.
  for (linalg::GenericOp applied : tileEpilogues)
    if (failed(vectorizeOp(rewriter, applied)))
      return failure();
  if (epilogue) {
    rewriter.eraseOp(epilogue);
    rewriter.eraseOp(matmul);
  }
  // The patches the kernel read through are not copied.
  if (implicitA) {
    auto collapsed = a.getDefiningOp<tensor::CollapseShapeOp>();
    if (collapsed && collapsed->use_empty()) {
      rewriter.eraseOp(collapsed);
      if (implicitA->copy->use_empty())
        rewriter.eraseOp(implicitA->copy);
    }
  }
  // Transposes packed through are dead now unless something else reads them.
  // (Once when both operands are the same transpose.)
  for (auto [operand, source] : {std::pair(a, aT), std::pair(b, bT)}) {
    if (source && operand.use_empty())
      rewriter.eraseOp(operand.getDefiningOp());
    if (a == b)
      break;
  }
  // The fill C was (and the reshape it was seen through), read by nothing.
  if (filled) {
    if (filled->reshape)
      rewriter.eraseOp(filled->reshape);
    rewriter.eraseOp(filled->fill);
  }

  // Packing as vector copies, each piece about one register tile. The B
  // block is packed over the cores (one forall iteration per micro-panel,
  // complete before the parallel mc loop starts) when the model says so;
  // A blocks are packed by the thread that uses them.
  for (linalg::PackOp packA : packAs)
    if (failed(vectorizePack(rewriter, packA, t.mr * t.nr,
                             /*parallel=*/false)))
      return failure();
  for (linalg::PackOp packB : packBs)
    if (failed(vectorizePack(rewriter, packB, t.mr * t.nr, t.parallelPackB)))
      return failure();
  return success();
}

/// Canonicalization patterns of every loaded dialect and registered op.
static void addCanonicalization(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
}

/// After every matmul of `func` went through packTileAndVectorize: forms the
/// contractions, hoists the accumulators out of the k loops and lowers the
/// contractions to vector.fma.
static LogicalResult finishKernels(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  IRRewriter rewriter(ctx);

  // Broadcasting reads and multi_reduction -> vector.contract on the kr x
  // mr and kr x nr slabs; unit dims cast away.
  {
    RewritePatternSet patterns(ctx);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    addCanonicalization(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return failure();
    DominanceInfo dom(func);
    eliminateCommonSubExpressions(rewriter, dom, func);
  }
  // The C tile's read and write move out of the k loop: the accumulator
  // becomes a loop-carried vector.
  SmallVector<scf::ForOp> kLoops;
  func.walk([&](vector::ContractionOp contract) {
    if (auto loop = dyn_cast<scf::ForOp>(contract->getParentOp()))
      kLoops.push_back(loop);
  });
  for (scf::ForOp loop : kLoops)
    hoistLoopInvariantSubsets(rewriter, loop);
  // vector.contract -> outer products -> vector.fma of a broadcast A
  // element and an nr-wide row of B.
  {
    RewritePatternSet patterns(ctx);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    addCanonicalization(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return failure();
  }
  // Masked transfers as transfers with mask operands (what the transfer
  // lowerings handle), A elements as scalar loads, then clean up.
  {
    RewritePatternSet patterns(ctx);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    // Each A element the outer products extract becomes a scalar load
    // (then one vbroadcastss from memory) instead of an element of a
    // vector load that LLVM splits with shuffles competing with the FMAs
    // (mr = 7). Upstream's patterns take only unmasked, in-bounds,
    // unpermuted reads all of whose users extract scalars, so the rest of
    // the function is unaffected.
    vector::populateScalarVectorTransferLoweringPatterns(
        patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
    addCanonicalization(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return failure();
  }
  return success();
}

namespace {
struct VectorizeMatmulPass
    : public tessel::impl::VectorizeMatmulPassBase<VectorizeMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    TargetAttr target = TargetAttr::lookup(func);
    SmallVector<linalg::MatmulOp> matmuls;
    func.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
    if (matmuls.empty())
      return;
    if (!target || !target.isCPU()) {
      for (linalg::MatmulOp op : matmuls)
        op->emitRemark() << "not vectorized: no #tessel.target of kind cpu "
                            "(run tessel-attach-target first)";
      return;
    }
    CPUModelParams params = cpuModelParams(target);
    MatmulTiling overrides;
    overrides.mr = mr, overrides.nr = nr, overrides.kr = kr;
    overrides.mc = mc, overrides.nc = nc, overrides.kc = kc;
    if (parallel == "m" || parallel == "n")
      overrides.parallel = parallel[0];
    else if (parallel == "none")
      overrides.parallel = 'x';
    else if (!parallel.empty()) {
      emitError(func.getLoc()) << "tessel-vectorize-matmul: parallel must be "
                                  "m, n or none, not '" << parallel << "'";
      return signalPassFailure();
    }

    for (auto [name, value] :
         {std::pair("mr", int64_t(mr)), std::pair("nr", int64_t(nr)),
          std::pair("kr", int64_t(kr)), std::pair("mc", int64_t(mc)),
          std::pair("nc", int64_t(nc)), std::pair("kc", int64_t(kc))}) {
      if (value < 0) {
        emitError(func.getLoc())
            << "tessel-vectorize-matmul: " << name << "=" << value
            << " must be 0 (the model's choice) or positive";
        return signalPassFailure();
      }
    }

    char packAOverride = 0, packBOverride = 0;
    for (auto [option, name, value] :
         {std::tuple(&packA, "pack-a", &packAOverride),
          std::tuple(&packB, "pack-b", &packBOverride)}) {
      if (*option == "always")
        *value = 'y';
      else if (*option == "never")
        *value = 'n';
      else if (!option->empty()) {
        emitError(func.getLoc())
            << "tessel-vectorize-matmul: " << name
            << " must be always or never, not '" << *option << "'";
        return signalPassFailure();
      }
    }

    IRRewriter rewriter(ctx);
    bool changed = false;
    for (linalg::MatmulOp op : matmuls) {
      std::string reason = unsupportedReason(op);
      if (!reason.empty()) {
        op->emitRemark() << "not vectorized: " << reason;
        continue;
      }
      ArrayRef<int64_t> a =
          cast<RankedTensorType>(op.getDpsInputs()[0].getType()).getShape();
      ArrayRef<int64_t> b =
          cast<RankedTensorType>(op.getDpsInputs()[1].getType()).getShape();
      MatmulTiling tiling;
      std::string why;
      MatmulOperands operands;
      operands.aRowMajor = !transposeSource(op.getDpsInputs()[0]);
      operands.bRowMajor = !transposeSource(op.getDpsInputs()[1]);
      operands.packA = packAOverride;
      operands.packB = packBOverride;
      // A convolution's patches (tessel-convert-conv-to-matmul left the
      // copy untiled): read through the input where the model reads A in
      // place, else copied (tiled and vectorized here) and then packed.
      std::optional<NhwcIm2col> im2col = convolutionPatches(op);
      if (im2col) {
        operands.convRowLength = im2col->ow;
        operands.convRows = im2col->oh;
        operands.convTapLength = im2col->c;
      }
      if (std::optional<PatchPadding> padding = getPatchPadding(op);
          padding && skipPadding) {
        operands.paddedRowLength = padding->ow;
        operands.paddedFilterRowLength = padding->kw * padding->c;
        operands.paddingOnlyShare = double(padding->paddingOnlyRowPairs()) /
                                    (padding->oh * padding->kh);
        operands.paddedTapLength = padding->c;
        operands.paddingOnlyColumnShare =
            double(padding->paddingOnlyColumnPairs()) /
            (padding->ow * padding->kw);
      }
      if (!computeMatmulTiling(params, a[0], b[1], a[1], /*elementBytes=*/4,
                               overrides, tiling, why, operands)) {
        op->emitRemark() << "not vectorized: " << why;
        continue;
      }
      std::string notThroughInput;
      bool implicit =
          im2col && readsConvolutionInput(tiling, operands, &notThroughInput);
      if (im2col && !implicit) {
        operands.convRowLength = operands.convRows = 0;
        operands.convTapLength = 0;
        tiling = MatmulTiling();
        if (!computeMatmulTiling(params, a[0], b[1], a[1],
                                 /*elementBytes=*/4, overrides, tiling, why,
                                 operands)) {
          op->emitRemark() << "not vectorized: " << why;
          continue;
        }
        if (failed(tileAndVectorizeIm2col(rewriter, *im2col)))
          im2col->copy->emitRemark()
              << "the im2col copy could not be tiled: it stays one loop nest";
      }
      InFlightDiagnostic remark = op->emitRemark();
      remark << "matmul M=" << a[0] << " N=" << b[1] << " K=" << a[1] << ": "
             << tiling.rationale;
      if (transposeSource(op.getDpsInputs()[0]))
        remark << "; A packed from its transpose's source";
      if (transposeSource(op.getDpsInputs()[1]))
        remark << "; B packed from its transpose's source";
      if (im2col && !implicit)
        remark << "; the convolution's patches copied first (not read "
                  "through the input: "
               << notThroughInput << ")";
      if (filledInit(op.getDpsInits()[0]))
        remark << "; C's fill folded into the first kc block (its register "
                  "tiles start from the fill value)";
      std::optional<PaddingSkip> skip;
      if (skipPadding)
        skip = planPaddingSkip(op, tiling);
      if (skip) {
        const PatchPadding &p = skip->padding;
        remark << "; register tiles skip the kc blocks of filter rows their "
                  "output row reads only as zero padding ("
               << p.paddingOnlyRowPairs() << " of " << p.oh * p.kh
               << " (output row, filter row) pairs)";
        if (skip->columns)
          remark << " and leave out their pixels whose filter column reads "
                    "only padding ("
                 << p.paddingOnlyColumnPairs() << " of " << p.ow * p.kw
                 << " (output column, filter column) pairs, "
                 << skip->partialRanges.size() << " partial tile(s))";
        remark << ", kc blocks from block " << skip->kRotation;
      }
      linalg::GenericOp epilogue;
      if (fuseEpilogue) {
        std::string whyNot;
        epilogue = gatherMatmulEpilogue(rewriter, op, whyNot);
        if (epilogue) {
          int64_t ops = llvm::count_if(
              epilogue.getBody()->without_terminator(), [](Operation &op) {
                return !op.hasTrait<OpTrait::ConstantLike>();
              });
          remark << "; epilogue of " << ops << " elementwise op(s) on "
                 << epilogue.getNumDpsInputs()
                 << " input(s) applied to each register tile of the last kc "
                    "block before it is stored";
        }
        if (epilogue && !whyNot.empty())
          remark << "; epilogue " << whyNot;
        else if (!whyNot.empty())
          remark << "; epilogue not fused: " << whyNot;
      }
      remark.report();
      if (failed(packTileAndVectorize(rewriter, op, tiling, epilogue,
                                      implicit ? &*im2col : nullptr,
                                      skip ? &*skip : nullptr))) {
        op->emitError() << "packing, tiling or vectorizing the matmul failed";
        return signalPassFailure();
      }
      changed = true;
    }
    if (changed && failed(finishKernels(func)))
      signalPassFailure();
  }
};
} // namespace

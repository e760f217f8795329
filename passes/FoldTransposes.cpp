//===- FoldTransposes.cpp - Cancel transposes through elementwise ops -----===//
//
// tessel-convert-conv-to-nhwc puts every NCHW convolution between
// transposes. Between two convolutions of a network the result's transpose
// back to NCHW and the next input's transpose to NHWC meet across the
// elementwise ops in between (bias, batch norm, ReLU, residual adds). This
// pass moves transposes into those ops' indexing maps so that such pairs
// cancel, and the elementwise ops run in NHWC, where they can be the
// convolution kernels' epilogues.
//
// Phases, each to a fixed point, in this order so that none undoes another:
//   1. transposes of transposes composed; a transpose moved above a
//      constant tensor.pad (it pads the transposed dims instead);
//   2. a transpose folded into its producer (a fill, or an elementwise
//      generic that then writes the transposed layout), readers of the
//      producer that want the same layout counted with it;
//   3. a convolution's result transpose moved below its one elementwise
//      reader when that reader narrows the elements (f32 -> f16): the
//      reader becomes the convolution's epilogue and the transpose moves
//      fewer bytes;
//   4. a transpose read only by linalg.generic ops folded into their maps.
// What stays gets a remark naming why.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Utils/TransposeFolding.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

#include <string>

#define DEBUG_TYPE "tessel-fold-transposes"

namespace mlir::tessel {
#define GEN_PASS_DEF_FOLDTRANSPOSESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

static std::string permutationName(ArrayRef<int64_t> permutation) {
  std::string s = "[";
  for (int64_t d : permutation)
    s += (s.size() > 1 ? ", " : "") + std::to_string(d);
  return s + "]";
}

static std::string describe(linalg::TransposeOp transpose) {
  return "transpose " + permutationName(transpose.getPermutation());
}

static bool isStatic(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape();
}

static bool isProductResult(Value v) {
  auto op = v.getDefiningOp<linalg::LinalgOp>();
  return op && (linalg::isaContractionOpInterface(op) ||
                isa<linalg::ConvolutionOpInterface>(op.getOperation()));
}

/// Whether `op` reads a contraction's or convolution's result in place: it
/// is (or may be) that product's GPU epilogue, which only an op in the
/// product's own layout can be.
static bool readsProductInPlace(linalg::GenericOp op) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    return isProductResult(input->get()) &&
           op.getMatchingIndexingMap(input).isIdentity();
  });
}

static void eraseIfUnusedEmpty(RewriterBase &rewriter, Value v) {
  if (auto empty = v.getDefiningOp<tensor::EmptyOp>();
      empty && empty->use_empty())
    rewriter.eraseOp(empty);
}

static void eraseTranspose(RewriterBase &rewriter,
                           linalg::TransposeOp transpose) {
  Value init = transpose.getInit();
  rewriter.eraseOp(transpose);
  eraseIfUnusedEmpty(rewriter, init);
}

//===----------------------------------------------------------------------===//
// Phase 1: transposes of transposes; transposes above pads.
//===----------------------------------------------------------------------===//

/// transpose(transpose(x)) as one transpose of x, or x.
static bool composeWithProducer(RewriterBase &rewriter,
                                linalg::TransposeOp outer) {
  auto inner = outer.getInput().getDefiningOp<linalg::TransposeOp>();
  if (!inner)
    return false;
  SmallVector<int64_t> composed;
  for (int64_t d : outer.getPermutation())
    composed.push_back(inner.getPermutation()[d]);
  Value source = inner.getInput();
  if (isIdentityPermutation(composed)) {
    Value init = outer.getInit();
    rewriter.replaceOp(outer, source);
    eraseIfUnusedEmpty(rewriter, init);
  } else {
    rewriter.setInsertionPoint(outer);
    auto single = linalg::TransposeOp::create(rewriter, outer.getLoc(), source,
                                              outer.getInit(), composed);
    rewriter.replaceOp(outer, single.getResult());
  }
  if (inner->use_empty())
    eraseTranspose(rewriter, inner);
  return true;
}

/// transpose(pad(x)) as pad(transpose(x)) when the pad pads with a constant
/// and only the transpose reads it: the transpose then meets x's producer.
static bool moveAbovePad(RewriterBase &rewriter,
                         linalg::TransposeOp transpose) {
  auto pad = transpose.getInput().getDefiningOp<tensor::PadOp>();
  if (!pad || !pad->hasOneUse() || !isStatic(pad.getSource()))
    return false;
  // A padding value defined in the pad's body would stay in the erased
  // pad's region.
  Value padding = pad.getConstantPaddingValue();
  if (!padding || pad.getRegion().isAncestor(padding.getParentRegion()))
    return false;
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  SmallVector<OpFoldResult> low, high;
  for (int64_t d : permutation) {
    low.push_back(pad.getMixedLowPad()[d]);
    high.push_back(pad.getMixedHighPad()[d]);
  }
  Location loc = transpose.getLoc();
  rewriter.setInsertionPoint(transpose);
  Value source = pad.getSource();
  Value init = permutedEmpty(
      rewriter, loc, cast<RankedTensorType>(source.getType()), permutation);
  Value moved =
      linalg::TransposeOp::create(rewriter, loc, source, init, permutation)
          .getResult()[0];
  auto padded = tensor::PadOp::create(rewriter, pad.getLoc(),
                                      transpose.getResult()[0].getType(), moved,
                                      low, high, padding, pad.getNofold());
  Value oldInit = transpose.getInit();
  rewriter.replaceOp(transpose, padded.getResult());
  eraseIfUnusedEmpty(rewriter, oldInit);
  rewriter.eraseOp(pad);
  return true;
}

//===----------------------------------------------------------------------===//
// Phase 2: transposes into their producers.
//===----------------------------------------------------------------------===//

/// The permutation that makes a read through `map` (a permutation) the
/// identity once the value read is transposed by it.
static SmallVector<int64_t> permutationUndoing(AffineMap map) {
  SmallVector<int64_t> permutation;
  for (AffineExpr e : inversePermutation(map).getResults())
    permutation.push_back(cast<AffineDimExpr>(e).getPosition());
  return permutation;
}

/// The layout `op`'s readers ask its result to be written in: the
/// permutation of the transposes that read it, or else the one every reader
/// reads it through. Empty, with `why` set, when there is none or a reader
/// could not follow the change.
static SmallVector<int64_t> wantedLayout(linalg::GenericOp op,
                                         std::string &why) {
  std::optional<SmallVector<int64_t>> byTransposes, byReaders;
  bool readersAgree = true;
  for (OpOperand &use : op->getResult(0).getUses()) {
    Operation *user = use.getOwner();
    if (auto transpose = dyn_cast<linalg::TransposeOp>(user);
        transpose && transpose.isDpsInput(&use)) {
      SmallVector<int64_t> p(transpose.getPermutation());
      if (byTransposes && *byTransposes != p) {
        why = "transposes with different permutations read its result";
        return {};
      }
      byTransposes = p;
      continue;
    }
    auto reader = dyn_cast<linalg::GenericOp>(user);
    if (!reader || !reader.isDpsInput(&use)) {
      why = "its result is also used by '" +
            user->getName().getStringRef().str() + "'";
      return {};
    }
    AffineMap map = reader.getMatchingIndexingMap(&use);
    if (!map.isPermutation() || map.isIdentity()) {
      readersAgree = false;
      continue;
    }
    SmallVector<int64_t> p = permutationUndoing(map);
    if (byReaders && *byReaders != p)
      readersAgree = false;
    byReaders = p;
  }
  if (byTransposes)
    return *byTransposes;
  if (byReaders && readersAgree)
    return *byReaders;
  why = "no transpose reads its result, nor do all its readers read it "
        "through one permutation";
  return {};
}

/// Rewrites `op` to write its result in the layout its readers want: the
/// transposes reading it disappear, the other readers read it through
/// their maps composed with the permutation.
static bool relayoutForReaders(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!whyNotRelayoutable(op).empty() || readsProductInPlace(op) ||
      !isStatic(op->getResult(0)))
    return false;
  std::string why;
  SmallVector<int64_t> permutation = wantedLayout(op, why);
  if (permutation.empty())
    return false;
  Value init = op.getDpsInitOperand(0)->get();
  rewriter.setInsertionPoint(op);
  Value empty =
      permutedEmpty(rewriter, op.getLoc(),
                    cast<RankedTensorType>(init.getType()), permutation);
  linalg::GenericOp relaid = relayoutGeneric(rewriter, op, permutation, empty);
  Value result = relaid->getResult(0);
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : op->getResult(0).getUses())
    uses.push_back(&use);
  for (OpOperand *use : uses) {
    if (auto transpose = dyn_cast<linalg::TransposeOp>(use->getOwner())) {
      transpose->emitRemark()
          << describe(transpose)
          << " folded into its producer, which writes the transposed layout";
      rewriter.replaceAllUsesWith(transpose.getResult()[0], result);
      eraseTranspose(rewriter, transpose);
      continue;
    }
    auto reader = cast<linalg::GenericOp>(use->getOwner());
    rereadOperand(
        rewriter, reader, *use, result,
        readTransposed(reader.getMatchingIndexingMap(use), permutation));
  }
  rewriter.eraseOp(op);
  eraseIfUnusedEmpty(rewriter, init);
  return true;
}

/// transpose(fill(v)) as a fill of the transposed tensor.
static bool refillTransposed(RewriterBase &rewriter,
                             linalg::TransposeOp transpose) {
  auto fill = transpose.getInput().getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics() || !fill->hasOneUse())
    return false;
  transpose->emitRemark() << describe(transpose)
                          << " folded into its producer, a fill";
  rewriter.setInsertionPoint(transpose);
  auto refill = linalg::FillOp::create(
      rewriter, fill.getLoc(), fill.getInputs()[0], transpose.getInit());
  rewriter.replaceOp(transpose, refill.getResult(0));
  Value init = fill.getOutputs()[0];
  rewriter.eraseOp(fill);
  eraseIfUnusedEmpty(rewriter, init);
  return true;
}

//===----------------------------------------------------------------------===//
// Phase 3: a product's transpose below its narrowing epilogue.
//===----------------------------------------------------------------------===//

/// Bits per element, 0 for elements without a width (index, complex).
static unsigned elementBits(Value v) {
  Type element = cast<ShapedType>(v.getType()).getElementType();
  return element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
}

/// Whether every dimension `map` reads is in increasing order (a broadcast
/// at most, not a transposed read).
static bool readsInOrder(AffineMap map) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
    return false;
  int64_t last = -1;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d)
      continue;
    if (int64_t(d.getPosition()) <= last)
      return false;
    last = d.getPosition();
  }
  return true;
}

/// transpose(product) read only by an elementwise op with narrower results:
/// that op in the product's layout, then the transpose of its result.
static bool sinkBelowEpilogue(RewriterBase &rewriter,
                              linalg::TransposeOp transpose) {
  Value product = transpose.getInput();
  Value transposed = transpose.getResult()[0];
  if (!isProductResult(product) || !product.hasOneUse() ||
      !transposed.hasOneUse() || !isStatic(product))
    return false;
  auto op = dyn_cast<linalg::GenericOp>(*transposed.getUsers().begin());
  if (!op || !whyNotRelayoutable(op).empty() ||
      elementBits(op->getResult(0)) == 0 ||
      elementBits(op->getResult(0)) >= elementBits(product))
    return false;
  OpOperand *read = nullptr;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == transposed)
      read = input;
  if (!read || !op.getMatchingIndexingMap(read).isIdentity() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return false;
  // In the product's layout the other inputs must still be read in order:
  // a transposed read would only move the transpose elsewhere.
  ArrayRef<int64_t> permutation = transpose.getPermutation();
  SmallVector<int64_t> back = invertPermutationVector(permutation);
  AffineMap oldLoops =
      AffineMap::getPermutationMap(permutation, op.getContext());
  for (OpOperand *input : op.getDpsInputOperands())
    if (input != read &&
        !readsInOrder(op.getMatchingIndexingMap(input).compose(oldLoops)))
      return false;

  transpose->emitRemark()
      << describe(transpose)
      << " moved below the elementwise op that reads it, which narrows the "
         "elements and now runs in the product's layout (its epilogue)";
  Location loc = op.getLoc();
  Value init = op.getDpsInitOperand(0)->get();
  rewriter.setInsertionPoint(op);
  Value empty = permutedEmpty(rewriter, loc,
                              cast<RankedTensorType>(init.getType()), back);
  linalg::GenericOp relaid = relayoutGeneric(rewriter, op, back, empty);
  OpOperand &relaidRead = relaid->getOpOperand(read->getOperandNumber());
  rereadOperand(rewriter, relaid, relaidRead, product,
                readThroughTranspose(relaid.getMatchingIndexingMap(&relaidRead),
                                     permutation));
  rewriter.setInsertionPointAfter(relaid);
  auto after = linalg::TransposeOp::create(
      rewriter, transpose.getLoc(), relaid->getResult(0), init, permutation);
  rewriter.replaceOp(op, after.getResult()[0]);
  eraseTranspose(rewriter, transpose);
  return true;
}

//===----------------------------------------------------------------------===//
// Phase 4: transposes into their readers' maps.
//===----------------------------------------------------------------------===//

/// Why `transpose`'s readers cannot take it into their maps, or empty.
static std::string whyReadersCannotFold(linalg::TransposeOp transpose) {
  Value result = transpose.getResult()[0];
  if (result.use_empty())
    return "nothing reads it";
  for (OpOperand &use : result.getUses()) {
    auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!reader)
      return "it is read by '" +
             use.getOwner()->getName().getStringRef().str() +
             "', which has no indexing maps";
    if (!reader.isDpsInput(&use))
      return "a linalg.generic writes into it";
  }
  return "";
}

static bool foldIntoReaders(RewriterBase &rewriter,
                            linalg::TransposeOp transpose) {
  if (!whyReadersCannotFold(transpose).empty())
    return false;
  transpose->emitRemark() << describe(transpose)
                          << " folded into the indexing maps of its readers";
  Value source = transpose.getInput();
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : transpose.getResult()[0].getUses())
    uses.push_back(&use);
  for (OpOperand *use : uses) {
    auto reader = cast<linalg::GenericOp>(use->getOwner());
    rereadOperand(rewriter, reader, *use, source,
                  readThroughTranspose(reader.getMatchingIndexingMap(use),
                                       transpose.getPermutation()));
  }
  eraseTranspose(rewriter, transpose);
  return true;
}

/// Why `transpose` stays, for its remark.
static std::string whyKept(linalg::TransposeOp transpose) {
  std::string producer;
  Value input = transpose.getInput();
  if (isa<BlockArgument>(input))
    producer = "its input is a block argument";
  else if (auto op = input.getDefiningOp<linalg::GenericOp>()) {
    std::string why = whyNotRelayoutable(op);
    if (why.empty() && readsProductInPlace(op))
      why = "it reads a product's result in place (its epilogue)";
    if (why.empty() && !isStatic(input))
      why = "it has dynamic sizes";
    if (why.empty())
      wantedLayout(op, why);
    producer = "its producer cannot write the transposed layout: " + why;
  } else {
    producer = "its producer is '" +
               input.getDefiningOp()->getName().getStringRef().str() + "'";
  }
  return producer + "; " + whyReadersCannotFold(transpose);
}

namespace {
struct FoldTransposesPass
    : public tessel::impl::FoldTransposesPassBase<FoldTransposesPass> {
  /// Applies `rewrite` to the function's transposes until none changes.
  template <typename Rewrite>
  bool eachTranspose(IRRewriter &rewriter, Rewrite rewrite) {
    bool any = false, changed = true;
    while (changed) {
      changed = false;
      SmallVector<linalg::TransposeOp> transposes;
      getOperation().walk([&](linalg::TransposeOp transpose) {
        if (transpose.hasPureTensorSemantics())
          transposes.push_back(transpose);
      });
      for (linalg::TransposeOp transpose : transposes)
        if (rewrite(rewriter, transpose)) {
          changed = any = true;
          break; // the walk's list may hold erased ops now
        }
    }
    return any;
  }

  bool relayoutGenerics(IRRewriter &rewriter) {
    bool any = false, changed = true;
    // Each rewrite either removes a transpose or moves a layout one op
    // upstream, so this ends; the bound only guards against a cycle this
    // reasoning missed (every intermediate state is valid IR).
    int64_t budget = -1;
    while (changed && budget != 0) {
      changed = false;
      SmallVector<linalg::GenericOp> generics;
      getOperation().walk(
          [&](linalg::GenericOp op) { generics.push_back(op); });
      if (budget < 0)
        budget = 4 * int64_t(generics.size()) + 4;
      for (linalg::GenericOp op : llvm::reverse(generics))
        if (relayoutForReaders(rewriter, op)) {
          changed = any = true;
          --budget;
          break;
        }
    }
    return any;
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    eachTranspose(rewriter, [](RewriterBase &r, linalg::TransposeOp t) {
      return composeWithProducer(r, t) || moveAbovePad(r, t);
    });
    relayoutGenerics(rewriter);
    eachTranspose(rewriter, refillTransposed);
    eachTranspose(rewriter, composeWithProducer);
    eachTranspose(rewriter, sinkBelowEpilogue);
    eachTranspose(rewriter, [](RewriterBase &r, linalg::TransposeOp t) {
      return composeWithProducer(r, t) || foldIntoReaders(r, t);
    });
    getOperation().walk([&](linalg::TransposeOp transpose) {
      if (transpose.hasPureTensorSemantics())
        transpose->emitRemark()
            << describe(transpose) << " kept: " << whyKept(transpose);
    });
  }
};
} // namespace

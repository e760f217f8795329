//===- UnrollReductions.cpp - Small reduction windows as shifted operands -===//
#include "passes/Utils/UnrollReductions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/IRMapping.h"

#include <map>

using namespace mlir;
using namespace mlir::tessel;

namespace {
/// One index of a substituted access: `stride` times new loop `dim` (or
/// -1) plus `offset`.
struct ShiftedIndex {
  int64_t dim = -1;
  int64_t offset = 0;
  int64_t stride = 1;
};
/// What replaces one (input, reduction point) pair in the unrolled body.
struct UnrolledOperand {
  /// Index of the new generic's input, or -1 for a scalar.
  int64_t input = -1;
  Value scalar;
};
} // namespace

/// `d * s` (s a positive constant) or `d` as (dim, stride).
static std::optional<std::pair<int64_t, int64_t>> asScaledDim(AffineExpr e) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return std::make_pair<int64_t, int64_t>(d.getPosition(), 1);
  auto mul = dyn_cast<AffineBinaryOpExpr>(e);
  if (!mul || mul.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  auto d = dyn_cast<AffineDimExpr>(mul.getLHS());
  auto c = dyn_cast<AffineConstantExpr>(mul.getRHS());
  if (!d || !c || c.getValue() < 1)
    return std::nullopt;
  return std::make_pair<int64_t, int64_t>(d.getPosition(), c.getValue());
}

/// `expr` as `d * s + c`, `d + c`, `d * s`, `d` or `c` (a strided window's
/// read, e.g. pooling's `oh * 2 + kh` at a fixed kh); std::nullopt for
/// anything else.
static std::optional<ShiftedIndex> asShiftedIndex(AffineExpr expr) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return ShiftedIndex{-1, c.getValue(), 1};
  if (auto scaled = asScaledDim(expr))
    return ShiftedIndex{scaled->first, 0, scaled->second};
  auto add = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!add || add.getKind() != AffineExprKind::Add)
    return std::nullopt;
  auto scaled = asScaledDim(add.getLHS());
  auto c = dyn_cast<AffineConstantExpr>(add.getRHS());
  if (!scaled || !c)
    return std::nullopt;
  return ShiftedIndex{scaled->first, c.getValue(), scaled->second};
}

FailureOr<linalg::GenericOp>
mlir::tessel::unrollSmallReductions(RewriterBase &rewriter, linalg::LinalgOp op,
                                    int64_t maxIterations, std::string &why) {
  if (!op.hasPureTensorSemantics()) {
    why = "it is not on tensors";
    return failure();
  }
  MLIRContext *ctx = op->getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> parallel, reduction;
  for (auto [d, it] : llvm::enumerate(iterators))
    (it == utils::IteratorType::parallel ? parallel : reduction).push_back(d);
  int64_t points = 1;
  for (unsigned d : reduction) {
    if (ShapedType::isDynamic(ranges[d])) {
      why = "a reduction loop has a dynamic extent";
      return failure();
    }
    points *= ranges[d];
  }
  if (points > maxIterations) {
    why = "its reduction loops run " + std::to_string(points) +
          " iterations (unrolled up to " + std::to_string(maxIterations) + ")";
    return failure();
  }

  // Dimension replacements: parallel loops renumbered, reduction loops
  // filled in per point below.
  SmallVector<AffineExpr> replacement(ranges.size());
  for (auto [i, d] : llvm::enumerate(parallel))
    replacement[d] = getAffineDimExpr(i, ctx);
  SmallVector<AffineMap> outputMaps;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    for (unsigned d : reduction)
      if (map.isFunctionOfDim(d)) {
        why = "an output is indexed by a reduction loop";
        return failure();
      }
    SmallVector<AffineExpr> r = replacement;
    for (unsigned d : reduction)
      r[d] = getAffineConstantExpr(0, ctx);
    outputMaps.push_back(map.replaceDimsAndSymbols(r, {}, parallel.size(), 0));
  }

  // Every reduction point, in lexicographic order.
  SmallVector<SmallVector<int64_t>> reductionPoints;
  SmallVector<int64_t> point(reduction.size(), 0);
  for (int64_t n = 0; n < points; ++n) {
    reductionPoints.push_back(point);
    for (int64_t j = static_cast<int64_t>(reduction.size()) - 1; j >= 0; --j) {
      if (++point[j] < ranges[reduction[j]])
        break;
      point[j] = 0;
    }
  }

  // The shifted accesses; equal ones share an operand.
  struct Access {
    Value source;
    SmallVector<ShiftedIndex> indices;
  };
  SmallVector<Access> accesses;
  std::map<std::pair<unsigned, std::vector<int64_t>>, int64_t> accessIndex;
  // operandFor[point][input] = index into `accesses`.
  SmallVector<SmallVector<int64_t>> operandFor;
  SmallVector<OpOperand *> inputs = op.getDpsInputOperands();
  for (ArrayRef<int64_t> p : reductionPoints) {
    SmallVector<AffineExpr> r = replacement;
    for (auto [j, d] : llvm::enumerate(reduction))
      r[d] = getAffineConstantExpr(p[j], ctx);
    SmallVector<int64_t> perInput;
    for (auto [k, input] : llvm::enumerate(inputs)) {
      // An input the body never reads (a pooling op's window-shape
      // operand) is dropped, not sliced.
      if (op.getMatchingBlockArgument(input).use_empty()) {
        perInput.push_back(-1);
        continue;
      }
      AffineMap map = simplifyAffineMap(op.getMatchingIndexingMap(input)
                                            .replaceDimsAndSymbols(
                                                r, {}, parallel.size(), 0));
      Access access{input->get(), {}};
      std::vector<int64_t> key;
      llvm::SmallDenseSet<int64_t> seen;
      for (AffineExpr e : map.getResults()) {
        std::optional<ShiftedIndex> idx = asShiftedIndex(e);
        if (!idx || (idx->dim >= 0 && !seen.insert(idx->dim).second)) {
          why = "input " + std::to_string(k) +
                " is not read at a constant shift of the parallel loops";
          return failure();
        }
        access.indices.push_back(*idx);
        key.push_back(idx->dim);
        key.push_back(idx->offset);
        key.push_back(idx->stride);
      }
      auto [it, inserted] = accessIndex.try_emplace(
          {static_cast<unsigned>(k), key}, accesses.size());
      if (inserted)
        accesses.push_back(access);
      perInput.push_back(it->second);
    }
    operandFor.push_back(perInput);
  }

  // Materialize the accesses: shifted slices (rank-reduced to the loops
  // they follow, so their maps are projected permutations) or scalars.
  rewriter.setInsertionPoint(op);
  // Parallel loop extents (dynamic inside partial tiles).
  SmallVector<Range> loopRanges = op.createLoopRanges(rewriter, loc);
  SmallVector<Value> newInputs;
  SmallVector<AffineMap> newMaps;
  SmallVector<UnrolledOperand> materialized;
  for (Access &access : accesses) {
    UnrolledOperand m;
    bool scalar = llvm::all_of(access.indices,
                               [](const ShiftedIndex &i) { return i.dim < 0; });
    // A scalar operand (a quantized op's zero point, map `() -> ()`) is
    // used as it is.
    if (!isa<RankedTensorType>(access.source.getType())) {
      m.scalar = access.source;
      materialized.push_back(m);
      continue;
    }
    if (scalar) {
      SmallVector<Value> indices;
      for (const ShiftedIndex &i : access.indices)
        indices.push_back(arith::ConstantIndexOp::create(rewriter, loc, i.offset));
      m.scalar = tensor::ExtractOp::create(rewriter, loc, access.source, indices);
      materialized.push_back(m);
      continue;
    }
    auto sourceType = cast<RankedTensorType>(access.source.getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<int64_t> shape;
    SmallVector<AffineExpr> results;
    for (const ShiftedIndex &i : access.indices) {
      offsets.push_back(rewriter.getIndexAttr(i.offset));
      strides.push_back(rewriter.getIndexAttr(i.stride));
      if (i.dim < 0) {
        sizes.push_back(rewriter.getIndexAttr(1));
        continue;
      }
      OpFoldResult extent = loopRanges[parallel[i.dim]].size;
      sizes.push_back(extent);
      shape.push_back(
          getConstantIntValue(extent).value_or(ShapedType::kDynamic));
      results.push_back(getAffineDimExpr(i.dim, ctx));
    }
    auto sliceType = RankedTensorType::get(shape, sourceType.getElementType());
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, loc, sliceType, access.source, offsets, sizes, strides);
    m.input = newInputs.size();
    newInputs.push_back(slice);
    newMaps.push_back(AffineMap::get(parallel.size(), 0, results, ctx));
    materialized.push_back(m);
  }
  llvm::append_range(newMaps, outputMaps);

  SmallVector<Value> inits = op.getDpsInits();
  auto unrolled = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(), newInputs, inits, newMaps,
      SmallVector<utils::IteratorType>(parallel.size(),
                                       utils::IteratorType::parallel));
  // The body: the original one per reduction point, the outputs carried.
  Block *body = rewriter.createBlock(&unrolled.getRegion());
  for (Value v : newInputs)
    body->addArgument(getElementTypeOrSelf(v.getType()), loc);
  for (Value v : inits)
    body->addArgument(getElementTypeOrSelf(v.getType()), loc);
  rewriter.setInsertionPointToStart(body);
  Block *original = op.getBlock();
  SmallVector<Value> carried(body->getArguments().drop_front(newInputs.size()));
  for (auto [p, perInput] : llvm::zip(reductionPoints, operandFor)) {
    IRMapping mapping;
    for (auto [k, accessId] : llvm::enumerate(perInput)) {
      if (accessId < 0)
        continue;
      const UnrolledOperand &m = materialized[accessId];
      mapping.map(original->getArgument(k),
                  m.scalar ? m.scalar : body->getArgument(m.input));
    }
    for (auto [k, v] : llvm::enumerate(carried))
      mapping.map(original->getArgument(inputs.size() + k), v);
    for (Operation &inner : original->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        uint64_t d = index.getDim();
        auto pos = llvm::find(reduction, d);
        Value v =
            pos != reduction.end()
                ? Value(arith::ConstantIndexOp::create(
                      rewriter, loc, p[pos - reduction.begin()]))
                : Value(linalg::IndexOp::create(
                      rewriter, loc, llvm::find(parallel, d) - parallel.begin()));
        mapping.map(index.getResult(), v);
        continue;
      }
      rewriter.clone(inner, mapping);
    }
    carried.clear();
    for (Value v : original->getTerminator()->getOperands())
      carried.push_back(mapping.lookupOrDefault(v));
  }
  linalg::YieldOp::create(rewriter, loc, carried);
  rewriter.replaceOp(op, unrolled->getResults());
  return unrolled;
}

bool mlir::tessel::foldFillIntoElementwise(RewriterBase &rewriter,
                                           linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics())
    return false;
  bool changed = false;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto fill = init.get().getDefiningOp<linalg::FillOp>();
    if (!fill || !op.getMatchingIndexingMap(&init).isPermutation())
      continue;
    BlockArgument arg = op.getMatchingBlockArgument(&init);
    Value value = fill.getInputs()[0];
    if (value.getType() != arg.getType())
      continue;
    // Every element is written once and its old value is the fill's.
    rewriter.modifyOpInPlace(op, [&] {
      arg.replaceAllUsesWith(value);
      init.set(fill.getOutputs()[0]);
    });
    // Shapes read off the fill's result (loop bounds of the unrolled
    // slices) read its destination instead, so the fill can die.
    rewriter.replaceUsesWithIf(fill.getResult(0), fill.getOutputs()[0],
                               [](OpOperand &use) {
                                 return isa<tensor::DimOp>(use.getOwner());
                               });
    changed = true;
  }
  return changed;
}

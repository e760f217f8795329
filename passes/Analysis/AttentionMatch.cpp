//===- AttentionMatch.cpp - Recognize softmax(Q K^T s) V in linalg --------===//
#include "passes/Analysis/AttentionMatch.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tessel;

/// `v` through expand/collapse_shape ops that only regroup dimensions in
/// front of the last two (heads and batch folded together or apart); the
/// ops passed are appended to `chain`.
static Value stripBatchReshapes(Value v, SmallVectorImpl<Operation *> &chain) {
  while (Operation *op = v.getDefiningOp()) {
    SmallVector<ReassociationIndices> groups;
    Value source;
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
      groups = expand.getReassociationIndices();
      source = expand.getSrc();
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      groups = collapse.getReassociationIndices();
      source = collapse.getSrc();
    } else {
      break;
    }
    if (groups.size() < 2 || groups[groups.size() - 1].size() != 1 ||
        groups[groups.size() - 2].size() != 1)
      break;
    chain.push_back(op);
    v = source;
  }
  return v;
}

/// The scalar a value holds when it is a float constant (a scalar, or a
/// splat tensor such as the 0-d tensors frontends pass to a generic).
static std::optional<double> constantValue(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
    if (dense.isSplat())
      return dense.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

/// The value `init` is filled with, when it is a linalg.fill of a constant.
static std::optional<double> fillValue(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  return constantValue(fill.getInputs()[0]);
}

/// The single non-terminator op of `op`'s body when the body is exactly
/// `yield(that op)`.
static Operation *singleBodyOp(linalg::GenericOp op) {
  Block *body = op.getBody();
  if (!llvm::hasSingleElement(body->without_terminator()))
    return nullptr;
  Operation *inner = &body->front();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() != 1 || yield.getOperand(0) != inner->getResult(0))
    return nullptr;
  return inner;
}

/// (d0, ..., d{r-1}) -> (d0, ..., d{r-2}): a per-row value.
static bool isRowMap(AffineMap map, unsigned rank) {
  return map.getNumDims() == rank && map.getNumResults() == rank - 1 &&
         llvm::all_of(llvm::enumerate(map.getResults()), [](auto e) {
           auto dim = dyn_cast<AffineDimExpr>(e.value());
           return dim && dim.getPosition() == e.index();
         });
}

/// A generic over rank-r tensors that reduces its one input along the last
/// loop into a per-row output, with `combine` in its body (either operand
/// order). Returns the reduced input.
template <typename... CombineOps>
static Value matchRowReduction(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1)
    return {};
  unsigned rank = generic.getNumLoops();
  if (rank < 2 || generic.getNumReductionLoops() != 1 ||
      generic.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return {};
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps[0].isIdentity() || !isRowMap(maps[1], rank))
    return {};
  Operation *inner = singleBodyOp(generic);
  if (!inner || !isa<CombineOps...>(inner))
    return {};
  Block *body = generic.getBody();
  Value a = inner->getOperand(0), b = inner->getOperand(1);
  if (!((a == body->getArgument(0) && b == body->getArgument(1)) ||
        (a == body->getArgument(1) && b == body->getArgument(0))))
    return {};
  return generic.getDpsInputs()[0];
}

/// An all-parallel generic `out = f(x, row)` with x read through the
/// identity and `row` per row; returns {x, row} when the body is exactly
/// `Inner(x, row)` or, with `Outer`, `Outer(Inner(x, row))`.
template <typename Inner, typename Outer = void>
static std::pair<Value, Value> matchRowBroadcast(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return {};
  unsigned rank = generic.getNumLoops();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (rank < 2 || !maps[0].isIdentity() || !isRowMap(maps[1], rank) ||
      !maps[2].isIdentity())
    return {};
  Block *body = generic.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() != 1)
    return {};
  Operation *last = yield.getOperand(0).getDefiningOp();
  Operation *inner = last;
  if constexpr (!std::is_void_v<Outer>) {
    if (!isa_and_nonnull<Outer>(last) || last->getOperand(0).getDefiningOp() == nullptr)
      return {};
    inner = last->getOperand(0).getDefiningOp();
  }
  if (!isa_and_nonnull<Inner>(inner) || inner->getBlock() != body ||
      inner->getOperand(0) != body->getArgument(0) ||
      inner->getOperand(1) != body->getArgument(1))
    return {};
  // Nothing else in the body.
  size_t expected = std::is_void_v<Outer> ? 1 : 2;
  if (static_cast<size_t>(std::distance(body->without_terminator().begin(),
                                        body->without_terminator().end())) !=
      expected)
    return {};
  return {generic.getDpsInputs()[0], generic.getDpsInputs()[1]};
}

/// `op` multiplies (or divides) its identity-mapped input by a constant:
/// returns the input and sets `scale`.
static Value matchScale(Operation *op, double &scale) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      generic.getNumDpsInputs() < 1 || generic.getNumDpsInputs() > 2)
    return {};
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps[0].isIdentity() || !maps.back().isIdentity())
    return {};
  Operation *inner = singleBodyOp(generic);
  if (!inner || !isa<arith::MulFOp, arith::DivFOp>(inner))
    return {};
  Block *body = generic.getBody();
  Value x = body->getArgument(0);
  // The other operand: the second input (a constant tensor) or a constant
  // defined outside the body.
  auto constantOperand = [&](Value v) -> std::optional<double> {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body || arg.getArgNumber() != 1 ||
          generic.getNumDpsInputs() != 2)
        return std::nullopt;
      return constantValue(generic.getDpsInputs()[1]);
    }
    return constantValue(v);
  };
  std::optional<double> c;
  if (inner->getOperand(0) == x)
    c = constantOperand(inner->getOperand(1));
  else if (isa<arith::MulFOp>(inner) && inner->getOperand(1) == x)
    c = constantOperand(inner->getOperand(0));
  if (!c || *c == 0.0 || !std::isfinite(*c))
    return {};
  scale = isa<arith::DivFOp>(inner) ? 1.0 / *c : *c;
  return generic.getDpsInputs()[0];
}

/// A plain (batch_)matmul on f32 tensors with the default maps.
static bool isPlainProduct(Operation *op) {
  if (auto mm = dyn_cast_or_null<linalg::MatmulOp>(op))
    return !mm.hasUserDefinedMaps();
  if (auto bmm = dyn_cast_or_null<linalg::BatchMatmulOp>(op))
    return !bmm.hasUserDefinedMaps();
  return false;
}

bool mlir::tessel::matchAttention(linalg::LinalgOp output,
                                  AttentionMatch &match, std::string &why) {
  why.clear();
  if (!isPlainProduct(output))
    return false;
  SmallVector<Operation *> chain;
  // P = E / L, L = sum(E), E = exp(X - M), M = max(X).
  Value p = stripBatchReshapes(output.getDpsInputs()[0], chain);
  Operation *divide = p.getDefiningOp();
  auto [e, l] = matchRowBroadcast<arith::DivFOp>(divide);
  if (!e)
    return false;
  Operation *sum = l.getDefiningOp();
  if (matchRowReduction<arith::AddFOp>(sum) != e)
    return false;
  Operation *exp = e.getDefiningOp();
  auto [x, m] = matchRowBroadcast<arith::SubFOp, math::ExpOp>(exp);
  if (!x)
    return false;
  Operation *max = m.getDefiningOp();
  if (matchRowReduction<arith::MaximumFOp, arith::MaxNumFOp>(max) != x)
    return false;
  // From here on it is a softmax feeding a product: say why it stays.
  chain.append({divide, sum, exp, max});
  if (std::optional<double> v = fillValue(cast<linalg::GenericOp>(sum).getDpsInits()[0]);
      !v || *v != 0.0) {
    why = "the row sum does not start from 0";
    return false;
  }
  if (std::optional<double> v = fillValue(cast<linalg::GenericOp>(max).getDpsInits()[0]);
      !v || !(std::isnan(*v) || *v == -INFINITY)) {
    why = "the row max does not start from -inf";
    return false;
  }
  Value s = x;
  if (Operation *scaleOp = x.getDefiningOp(); Value scaled = matchScale(scaleOp, match.scale)) {
    chain.push_back(scaleOp);
    s = scaled;
  }
  s = stripBatchReshapes(s, chain);
  Operation *scores = s.getDefiningOp();
  if (!isPlainProduct(scores)) {
    why = "the softmax's input is not a matmul (times a constant) of Q and "
          "K^T";
    return false;
  }
  chain.push_back(scores);
  auto scoresOp = cast<linalg::LinalgOp>(scores);
  if (std::optional<double> v = fillValue(scoresOp.getDpsInits()[0]);
      !v || *v != 0.0) {
    why = "the scores accumulate into a tensor that is not zero (an additive "
          "mask is not supported yet)";
    return false;
  }
  if (std::optional<double> v = fillValue(output.getDpsInits()[0]);
      !v || *v != 0.0) {
    why = "the output accumulates into a tensor that is not zero";
    return false;
  }
  // Every intermediate is used by the chain only: the weights P (or S) that
  // something else reads would have to be materialized anyway.
  llvm::SmallPtrSet<Operation *, 16> members(chain.begin(), chain.end());
  members.insert(output);
  for (Operation *op : chain)
    for (Operation *user : op->getUsers())
      if (!members.contains(user)) {
        why = "an intermediate of the softmax is also used by '" +
              user->getName().getStringRef().str() +
              "' (the S x S weights would have to be materialized)";
        return false;
      }

  Value q = scoresOp.getDpsInputs()[0], kt = scoresOp.getDpsInputs()[1];
  Value v = output.getDpsInputs()[1];
  // The scores and probabilities too: the kernel keeps them in f32.
  for (Value t : {q, kt, v, output.getDpsInits()[0], Value(scoresOp->getResult(0)),
                  output.getDpsInputs()[0]}) {
    auto type = dyn_cast<RankedTensorType>(t.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32()) {
      why = "Q, K, V and the output must be statically shaped f32 tensors";
      return false;
    }
  }
  ArrayRef<int64_t> qs = cast<RankedTensorType>(q.getType()).getShape();
  ArrayRef<int64_t> ks = cast<RankedTensorType>(kt.getType()).getShape();
  ArrayRef<int64_t> vs = cast<RankedTensorType>(v.getType()).getShape();
  match.batched = isa<linalg::BatchMatmulOp>(scores);
  if (match.batched != isa<linalg::BatchMatmulOp>(output)) {
    why = "one product is batched and the other is not";
    return false;
  }
  unsigned o = match.batched ? 1 : 0;
  match.batch = match.batched ? qs[0] : 1;
  if (match.batched && (ks[0] != match.batch || vs[0] != match.batch)) {
    why = "Q, K and V have different batch sizes";
    return false;
  }
  match.sq = qs[o];
  match.d = qs[o + 1];
  match.skv = ks[o + 1];
  match.dv = vs[o + 1];
  if (vs[o] != match.skv) {
    why = "K and V have different lengths";
    return false;
  }
  match.scores = scoresOp;
  match.output = output;
  match.q = q;
  match.kt = kt;
  match.v = v;
  match.outputInit = output.getDpsInits()[0].getDefiningOp<linalg::FillOp>()
                         .getOutputs()[0];
  return true;
}

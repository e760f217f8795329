//===- GPUThreadLoops.cpp - A linalg op run by a block's threads ----------===//
//
// Written here rather than through scf.parallel and upstream's
// convert-parallel-loops-to-gpu: that conversion maps one loop nest to a
// launch, not several nests in sequence within one block (a fused tile runs
// its ops one after the other, sharing shared-memory buffers), it cannot
// give a loop more iterations than the block has threads, and it runs a
// reduction in one thread. Upstream's gpu.all_reduce reduces over a whole
// block, not per output over a warp.
//
//===----------------------------------------------------------------------===//
#include "passes/Utils/GPUThreadLoops.h"
#include "passes/Analysis/Divisibility.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::tessel;

//===----------------------------------------------------------------------===//
// Matching and bounds
//===----------------------------------------------------------------------===//

GPUBlockLimits mlir::tessel::gpuBlockLimits(int64_t warpSize,
                                            int64_t maxThreadsPerBlock) {
  GPUBlockLimits limits;
  if (warpSize > 0)
    limits.warpSize = warpSize;
  if (maxThreadsPerBlock > 0)
    limits.maxThreadsPerBlock = maxThreadsPerBlock;
  return limits;
}

static std::optional<arith::AtomicRMWKind> combiningKind(Operation *op) {
  using K = arith::AtomicRMWKind;
  return TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([](arith::AddFOp) { return K::addf; })
      .Case([](arith::AddIOp) { return K::addi; })
      .Case([](arith::MulFOp) { return K::mulf; })
      .Case([](arith::MulIOp) { return K::muli; })
      .Case([](arith::MaximumFOp) { return K::maximumf; })
      .Case([](arith::MinimumFOp) { return K::minimumf; })
      .Case([](arith::MaxNumFOp) { return K::maxnumf; })
      .Case([](arith::MinNumFOp) { return K::minnumf; })
      .Case([](arith::MaxSIOp) { return K::maxs; })
      .Case([](arith::MinSIOp) { return K::mins; })
      .Case([](arith::MaxUIOp) { return K::maxu; })
      .Case([](arith::MinUIOp) { return K::minu; })
      .Case([](arith::AndIOp) { return K::andi; })
      .Case([](arith::OrIOp) { return K::ori; })
      .Case([](arith::XOrIOp) { return K::xori; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `value` is the reduction loop `r`'s index cast to an integer (an
/// argmax's position; matchArgPair checks that its type holds them all).
static bool isReductionIndex(Value value, unsigned r) {
  if (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    value = cast.getIn();
  else if (auto castUI = value.getDefiningOp<arith::IndexCastUIOp>())
    value = castUI.getIn();
  else
    return false;
  auto index = value.getDefiningOp<linalg::IndexOp>();
  return index && index.getDim() == r;
}

/// Whether `value`, used at the top level of `op`'s body, is computed
/// without the outputs' values (from the inputs, indices and constants
/// only). Written as a walk rather than with getBackwardSlice, which does
/// not follow values that regions use from above (an scf.if yielding an
/// output's value) and would climb from the body's arguments into the
/// ops that produce the linalg op's operands.
static bool independentOfOutputs(Value value, linalg::LinalgOp op) {
  Block *body = op.getBlock();
  DenseSet<Value> tainted;
  for (BlockArgument arg : op.getRegionOutputArgs())
    tainted.insert(arg);
  // Post-order: an op's nested ops come before it, and a nested op that
  // reads a tainted value taints the results of its ancestors in the body.
  body->walk([&](Operation *inner) {
    if (llvm::none_of(inner->getOperands(),
                      [&](Value v) { return tainted.contains(v); }))
      return;
    for (Operation *at = inner; at; at = at->getParentOp()) {
      tainted.insert(at->result_begin(), at->result_end());
      if (at->getBlock() == body)
        break;
    }
  });
  return !tainted.contains(value);
}

namespace {
/// An arg-reduction found in a body: output `value`, output `index`, the
/// comparison that replaces them.
struct ArgPair {
  unsigned value, index;
  bool isFloat;
  int64_t predicate;
  bool nanFirst = false;
};
} // namespace

/// `cond` as `x P m` with P ogt or olt (either operand order), or as
/// PyTorch's, NumPy's and JAX's argmax or argmin: `(x P m) or (x is NaN and
/// m is not)`, a NaN counting beyond every number (`nanFirst`).
static std::optional<std::pair<arith::CmpFPredicate, bool>>
matchFloatComparison(Value cond, Value x, Value m) {
  using P = arith::CmpFPredicate;
  auto strict = [&](Value c) -> std::optional<P> {
    auto cmp = c.getDefiningOp<arith::CmpFOp>();
    if (!cmp)
      return std::nullopt;
    P pred = cmp.getPredicate();
    if (cmp.getLhs() == m && cmp.getRhs() == x)
      pred = pred == P::OGT ? P::OLT : pred == P::OLT ? P::OGT : P::AlwaysFalse;
    else if (!(cmp.getLhs() == x && cmp.getRhs() == m))
      return std::nullopt;
    if (pred != P::OGT && pred != P::OLT)
      return std::nullopt;
    return pred;
  };
  if (std::optional<P> pred = strict(cond))
    return std::make_pair(*pred, false);
  auto either = cond.getDefiningOp<arith::OrIOp>();
  if (!either)
    return std::nullopt;
  auto isSelfCompare = [](Value c, P pred, Value v) {
    auto cmp = c.getDefiningOp<arith::CmpFOp>();
    return cmp && cmp.getPredicate() == pred && cmp.getLhs() == v &&
           cmp.getRhs() == v;
  };
  for (auto [compare, nan] :
       {std::make_pair(either.getLhs(), either.getRhs()),
        std::make_pair(either.getRhs(), either.getLhs())}) {
    std::optional<P> pred = strict(compare);
    auto both = nan.getDefiningOp<arith::AndIOp>();
    if (!pred || !both)
      continue;
    for (auto [xNaN, mNumber] : {std::make_pair(both.getLhs(), both.getRhs()),
                                 std::make_pair(both.getRhs(), both.getLhs())})
      if (isSelfCompare(xNaN, P::UNO, x) && isSelfCompare(mNumber, P::ORD, m))
        return std::make_pair(*pred, true);
  }
  return std::nullopt;
}

/// The arg-reduction whose value is output `v` of `op`, if its yields have
/// that form (matchSplittableReduction). The comparison is normalized to
/// `x P value`; only strict predicates, which keep the first occurrence.
static std::optional<ArgPair> matchArgPair(linalg::LinalgOp op, unsigned v) {
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  if (reductionDims.size() != 1)
    return std::nullopt;
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  SmallVector<BlockArgument> outputs(op.getRegionOutputArgs());
  auto select = yield.getOperand(v).getDefiningOp<arith::SelectOp>();
  if (!select || select.getFalseValue() != outputs[v] ||
      !independentOfOutputs(select.getTrueValue(), op))
    return std::nullopt;
  Value x = select.getTrueValue(), cond = select.getCondition();
  std::optional<ArgPair> pair;
  if (isa<FloatType>(x.getType())) {
    auto comparison = matchFloatComparison(cond, x, outputs[v]);
    if (!comparison)
      return std::nullopt;
    pair = ArgPair{v, 0, true, static_cast<int64_t>(comparison->first),
                   comparison->second};
  } else if (auto cmp = cond.getDefiningOp<arith::CmpIOp>()) {
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    // Operands swapped (value P x): x P' value with P' the mirror of P.
    if (cmp.getLhs() == outputs[v] && cmp.getRhs() == x)
      pred = pred == P::sgt   ? P::slt
             : pred == P::slt ? P::sgt
             : pred == P::ugt ? P::ult
             : pred == P::ult ? P::ugt
                              : P::eq;
    else if (!(cmp.getLhs() == x && cmp.getRhs() == outputs[v]))
      return std::nullopt;
    if (!llvm::is_contained({P::sgt, P::slt, P::ugt, P::ult}, pred))
      return std::nullopt;
    pair = ArgPair{v, 0, false, static_cast<int64_t>(pred)};
  } else {
    return std::nullopt;
  }
  // The index: another output that the same condition replaces by the
  // reduction loop's position. Its identity (the largest signed index) and
  // the tie-break (a signed comparison) need every position below that.
  int64_t positions = reductionIterationBound(op);
  auto holdsPositions = [&](IntegerType type) {
    if (type.getWidth() >= 64)
      return true;
    return type.getWidth() >= 32 && positions > 0 &&
           positions < (int64_t(1) << (type.getWidth() - 1)) - 1;
  };
  for (auto [i, operand] : llvm::enumerate(yield.getOperands())) {
    if (i == v)
      continue;
    auto other = operand.getDefiningOp<arith::SelectOp>();
    auto type = dyn_cast<IntegerType>(outputs[i].getType());
    if (other && type && holdsPositions(type) && other.getCondition() == cond &&
        other.getFalseValue() == outputs[i] &&
        isReductionIndex(other.getTrueValue(), reductionDims.front())) {
      pair->index = i;
      return pair;
    }
  }
  return std::nullopt;
}

std::optional<ReductionCombiner>
mlir::tessel::matchSplittableReduction(linalg::LinalgOp op, std::string &why) {
  if (op.getNumReductionLoops() == 0) {
    why = "it has no reduction loop";
    return std::nullopt;
  }
  if (!op.hasPureBufferSemantics() && !op.hasPureTensorSemantics()) {
    why = "it mixes tensors and memrefs";
    return std::nullopt;
  }
  Block *body = op.getBlock();
  SmallVector<BlockArgument> outputs(op.getRegionOutputArgs());
  // Arg-reductions first: their outputs are not combined by one op.
  DenseMap<unsigned, ArgPair> argOf;
  for (unsigned i = 0; i < outputs.size(); ++i) {
    if (argOf.count(i))
      continue;
    if (std::optional<ArgPair> pair = matchArgPair(op, i)) {
      if (argOf.count(pair->index))
        continue;
      argOf[pair->value] = *pair;
      argOf[pair->index] = *pair;
    }
  }
  ReductionCombiner combiner;
  for (auto [i, arg] : llvm::enumerate(outputs)) {
    Type type = arg.getType();
    // Floats: the formats tessel-validate-input admits. arith's identity
    // values are wrong for some 8-bit formats (a NaN as f8E4M3FN's max
    // identity), which every lane without a value would fold in.
    bool supported =
        isa<IntegerType>(type)
            ? llvm::is_contained({1u, 8u, 16u, 32u, 64u},
                                 type.getIntOrFloatBitWidth())
            : type.isF16() || type.isBF16() || type.isF32() || type.isF64();
    if (!supported) {
      why = "its output element type is not i1, i8, i16, i32, i64, f16, "
            "bf16, f32 or f64";
      return std::nullopt;
    }
    auto pair = argOf.find(i);
    if (pair != argOf.end()) {
      if (pair->second.value == i)
        combiner.addArgValue(pair->second.index, pair->second.isFloat,
                             pair->second.predicate, pair->second.nanFirst);
      else
        combiner.addArgIndex(pair->second.value);
      continue;
    }
    SmallVector<Operation *> combiners;
    if (!matchReduction(outputs, i, combiners) || combiners.size() != 1 ||
        combiners.front()->getBlock() != body) {
      why = "an output is not combined by one op with the value computed "
            "for it, nor an arg-reduction's";
      return std::nullopt;
    }
    std::optional<arith::AtomicRMWKind> kind =
        combiningKind(combiners.front());
    if (!kind) {
      why = ("'" + combiners.front()->getName().getStringRef() +
             "' is not an associative, commutative combiner")
                .str();
      return std::nullopt;
    }
    combiner.addKind(*kind);
  }
  return combiner;
}

//===----------------------------------------------------------------------===//
// Combining partial results
//===----------------------------------------------------------------------===//

void ReductionCombiner::addKind(arith::AtomicRMWKind kind) {
  Slot slot;
  slot.kind = kind;
  slots.push_back(slot);
}

void ReductionCombiner::addArgValue(unsigned index, bool isFloat,
                                    int64_t predicate, bool nanFirst) {
  Slot slot;
  slot.role = Slot::Role::ArgValue;
  slot.partner = index;
  slot.isFloat = isFloat;
  slot.predicate = predicate;
  slot.nanFirst = nanFirst;
  slots.push_back(slot);
}

void ReductionCombiner::addArgIndex(unsigned value) {
  Slot slot;
  slot.role = Slot::Role::ArgIndex;
  slot.partner = value;
  slots.push_back(slot);
}

ReductionCombiner ReductionCombiner::repeated(int64_t times) const {
  ReductionCombiner result;
  for (int64_t t = 0; t < times; ++t)
    for (Slot slot : slots) {
      if (slot.role != Slot::Role::Kind)
        slot.partner += t * slots.size();
      result.slots.push_back(slot);
    }
  return result;
}

/// Whether `value` is a NaN (`nan`) or a number.
static Value isNaN(OpBuilder &b, Location loc, Value value, bool nan) {
  return arith::CmpFOp::create(
      b, loc, nan ? arith::CmpFPredicate::UNO : arith::CmpFPredicate::ORD,
      value, value);
}

Value ReductionCombiner::replaces(OpBuilder &b, Location loc, const Slot &slot,
                                  Value newValue, Value oldValue) const {
  if (slot.isFloat) {
    Value better = arith::CmpFOp::create(
        b, loc, static_cast<arith::CmpFPredicate>(slot.predicate), newValue,
        oldValue);
    if (!slot.nanFirst)
      return better;
    return arith::OrIOp::create(
        b, loc, better,
        arith::AndIOp::create(b, loc, isNaN(b, loc, newValue, true),
                              isNaN(b, loc, oldValue, false)));
  }
  return arith::CmpIOp::create(
      b, loc, static_cast<arith::CmpIPredicate>(slot.predicate), newValue,
      oldValue);
}

SmallVector<Value> ReductionCombiner::identities(OpBuilder &b, Location loc,
                                                 TypeRange types) const {
  SmallVector<Value> values(slots.size());
  for (auto [i, slot] : llvm::enumerate(slots)) {
    Type type = types[i];
    switch (slot.role) {
    case Slot::Role::Kind:
      values[i] = arith::getIdentityValue(slot.kind, type, b, loc);
      break;
    case Slot::Role::ArgValue: {
      // The least value in the comparison's order: nothing loses to it.
      TypedAttr least;
      if (slot.isFloat) {
        bool max = static_cast<arith::CmpFPredicate>(slot.predicate) ==
                   arith::CmpFPredicate::OGT;
        least = b.getFloatAttr(
            type, APFloat::getInf(cast<FloatType>(type).getFloatSemantics(),
                                  /*Negative=*/max));
      } else {
        unsigned bits = type.getIntOrFloatBitWidth();
        APInt value;
        switch (static_cast<arith::CmpIPredicate>(slot.predicate)) {
        case arith::CmpIPredicate::sgt:
          value = APInt::getSignedMinValue(bits);
          break;
        case arith::CmpIPredicate::slt:
          value = APInt::getSignedMaxValue(bits);
          break;
        case arith::CmpIPredicate::ugt:
          value = APInt::getMinValue(bits);
          break;
        default:
          value = APInt::getMaxValue(bits);
          break;
        }
        least = b.getIntegerAttr(type, value);
      }
      values[i] = arith::ConstantOp::create(b, loc, least);
      break;
    }
    case Slot::Role::ArgIndex:
      values[i] = arith::ConstantOp::create(
          b, loc,
          b.getIntegerAttr(
              type, APInt::getSignedMaxValue(type.getIntOrFloatBitWidth())));
      break;
    }
  }
  return values;
}

/// An arg-reduction's value `i` and index `j` from `chosen` where `choose`
/// holds, else from `other`, into `results`.
static void selectPair(OpBuilder &b, Location loc, Value choose,
                       ValueRange chosen, ValueRange other, unsigned i,
                       unsigned j, SmallVectorImpl<Value> &results) {
  for (unsigned k : {i, j})
    results[k] = arith::SelectOp::create(b, loc, choose, chosen[k], other[k]);
}

SmallVector<Value> ReductionCombiner::combine(OpBuilder &b, Location loc,
                                              ValueRange lhs,
                                              ValueRange rhs) const {
  SmallVector<Value> results(slots.size());
  for (auto [i, slot] : llvm::enumerate(slots)) {
    switch (slot.role) {
    case Slot::Role::Kind:
      results[i] = arith::getReductionOp(slot.kind, b, loc, lhs[i], rhs[i]);
      break;
    case Slot::Role::ArgValue: {
      unsigned j = slot.partner;
      Value equal =
          slot.isFloat ? arith::CmpFOp::create(
                             b, loc, arith::CmpFPredicate::OEQ, rhs[i], lhs[i])
                             .getResult()
                       : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                               rhs[i], lhs[i])
                             .getResult();
      // Where NaNs count beyond every number, two NaNs tie too.
      if (slot.nanFirst)
        equal = arith::OrIOp::create(
            b, loc, equal,
            arith::AndIOp::create(b, loc, isNaN(b, loc, rhs[i], true),
                                  isNaN(b, loc, lhs[i], true)));
      Value earlier = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                            rhs[j], lhs[j]);
      Value rhsWins =
          arith::OrIOp::create(b, loc, replaces(b, loc, slot, rhs[i], lhs[i]),
                               arith::AndIOp::create(b, loc, equal, earlier));
      selectPair(b, loc, rhsWins, rhs, lhs, i, j, results);
      break;
    }
    case Slot::Role::ArgIndex:
      break; // with its value
    }
  }
  return results;
}

SmallVector<Value> ReductionCombiner::combineAfter(OpBuilder &b, Location loc,
                                                   ValueRange initial,
                                                   ValueRange totals) const {
  SmallVector<Value> results(slots.size());
  for (auto [i, slot] : llvm::enumerate(slots)) {
    switch (slot.role) {
    case Slot::Role::Kind:
      results[i] =
          arith::getReductionOp(slot.kind, b, loc, initial[i], totals[i]);
      break;
    case Slot::Role::ArgValue: {
      unsigned j = slot.partner;
      selectPair(b, loc, replaces(b, loc, slot, totals[i], initial[i]), totals,
                 initial, i, j, results);
      break;
    }
    case Slot::Role::ArgIndex:
      break;
    }
  }
  return results;
}

/// The static extent of loop `d` of `op`, or its upper bound where it is
/// dynamic (an edge tile's slice: the bound of an operand dimension the
/// loop indexes directly); 0 when unbounded.
static int64_t loopBound(linalg::LinalgOp op, unsigned d) {
  int64_t bound = op.getStaticLoopRanges()[d];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (OpOperand &operand : op->getOpOperands()) {
    if (!ShapedType::isDynamic(bound))
      break;
    if (!isa<ShapedType>(operand.get().getType()))
      continue;
    AffineMap map = maps[operand.getOperandNumber()];
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || dim.getPosition() != d)
        continue;
      FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB,
          ValueBoundsConstraintSet::Variable(operand.get(), i),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (succeeded(ub)) {
        bound = *ub;
        break;
      }
    }
  }
  return ShapedType::isDynamic(bound) ? 0 : bound;
}

static int64_t iterationBound(linalg::LinalgOp op, utils::IteratorType kind) {
  int64_t total = 1;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (type != kind)
      continue;
    int64_t bound = loopBound(op, d);
    if (bound == 0)
      return 0;
    total *= bound;
  }
  return total;
}

int64_t mlir::tessel::parallelIterationBound(linalg::LinalgOp op) {
  return iterationBound(op, utils::IteratorType::parallel);
}

int64_t mlir::tessel::reductionIterationBound(linalg::LinalgOp op) {
  return iterationBound(op, utils::IteratorType::reduction);
}

/// Most rows a thread takes at once: eight rows of a 5-tap stencil are 40
/// loads and 8 accumulators, well inside a thread's registers at 256
/// threads per block.
static constexpr int64_t kMaxRowsPerThread = 8;
/// Rows per thread for reuse along a reduction (vertical stencils).
static constexpr int64_t kReuseRowsPerThread = 4;
/// Most reduction iterations unrolled into a row group's copies (only then
/// do the copies' loads of one address become one load).
static constexpr int64_t kMaxUnrolledReduction = 16;

/// Whether `value` is (a view of) a tile buffer in shared memory: a
/// workgroup-space buffer cast to the generic address space, as
/// tessel-map-tiles-to-gpu makes them, or a buffer allocated inside a tile
/// loop, which that pass puts there (so the mapping chosen for a tile loop's
/// op before the kernel exists is the one its kernel gets).
static bool isSharedMemory(Value value) {
  while (true) {
    if (auto alloc = value.getDefiningOp<memref::AllocOp>())
      return isa_and_nonnull<scf::ForallOp>(alloc->getParentOp());
    auto type = dyn_cast<MemRefType>(value.getType());
    if (auto space = type ? dyn_cast_or_null<gpu::AddressSpaceAttr>(
                                type.getMemorySpace())
                          : gpu::AddressSpaceAttr())
      return space.getValue() == gpu::AddressSpace::Workgroup;
    if (auto cast = value.getDefiningOp<memref::MemorySpaceCastOp>()) {
      value = cast.getSource();
      continue;
    }
    auto view = value.getDefiningOp<ViewLikeOpInterface>();
    if (!view)
      return false;
    value = view.getViewSource();
  }
}

/// What chooseThreadMapping charges, in cycles of the busiest thread.
/// Global loads wait the target's latency (kDefaultGlobalLatency when it
/// does not say); shared-memory loads about 30 cycles. A fold iteration
/// issues about two instructions, a shuffle round trip and its combine
/// take about 30 cycles, a block-wide barrier about 100.
static constexpr int64_t kDefaultGlobalLatency = 600;
static constexpr int64_t kSharedLatency = 30;
static constexpr int64_t kIssueCycles = 2;
static constexpr int64_t kShuffleCycles = 30;
static constexpr int64_t kBarrierCycles = 100;
/// Most outputs a warp or a block folds at once: four chains each, so 16
/// loads in flight.
static constexpr int64_t kMaxOutputsPerGroup = 4;
/// 32-bit registers a thread may hold partial results in while folding a
/// group: the outputs folded at once × the op's results × the chains × the
/// registers a result takes. 32 is what a softmax's or a layernorm's two
/// f32 results at four outputs take, which ptxas keeps in registers under
/// the 64-register limit of a 256-thread streaming kernel; three f32
/// results at four outputs (48) spilled there, as did two f64 results (64).
static constexpr int64_t kPartialResultRegisters = 32;

/// Independent partial results per thread in a strided fold. A GPU thread
/// issues its loads in order and waits at the first use: with one chain of
/// partial results, each iteration's load waits for the previous combine,
/// one load in flight per thread. Four chains keep four loads in flight.
static constexpr int64_t kFoldChains = 4;

/// Whether `op` may reduce per warp at all, and its bounds.
static bool mayReducePerWarp(linalg::LinalgOp op, int64_t &parallel,
                             int64_t &reduction) {
  std::string why;
  parallel = parallelIterationBound(op);
  reduction = reductionIterationBound(op);
  return parallel > 0 && reduction > 1 && matchSplittableReduction(op, why);
}

/// The latency a load of `op`'s reduction waits: global memory's when an
/// input it streams (indexed by both the parallel and the reduction loops)
/// is not a tile buffer in shared memory, else shared memory's. A weight
/// indexed by the reduction alone (a stencil's taps) is the same for every
/// output and stays in cache.
static int64_t reductionLoadLatency(linalg::LinalgOp op,
                                    int64_t memoryLatency) {
  SmallVector<unsigned> reductionDims, parallelDims;
  op.getReductionDims(reductionDims);
  op.getParallelDims(parallelDims);
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType()) ||
        isSharedMemory(input->get()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    auto uses = [&](unsigned d) { return map.isFunctionOfDim(d); };
    if (llvm::any_of(reductionDims, uses) && llvm::any_of(parallelDims, uses))
      return memoryLatency > 0 ? memoryLatency : kDefaultGlobalLatency;
  }
  return kSharedLatency;
}

/// Cycles a thread waits folding `iterations` for each of `outputs`
/// outputs at once into `chains` partial results per output: one load
/// latency per trip of `chains` iterations, each trip issuing every
/// output's loads.
static int64_t foldCycles(int64_t iterations, int64_t outputs, int64_t latency,
                          int64_t chains = kFoldChains) {
  return llvm::divideCeil(iterations, chains) *
         (latency + outputs * chains * kIssueCycles);
}

/// Cycles of a butterfly over a warp's lanes for `outputs` outputs (their
/// shuffles independent, so they overlap).
static int64_t shuffleCycles(int64_t outputs, int64_t warpSize) {
  return llvm::Log2_64(warpSize) * (kShuffleCycles + outputs * kIssueCycles);
}

int64_t mlir::tessel::outputsPerGroup(linalg::LinalgOp op,
                                      ThreadMapping mapping, int64_t threads,
                                      int64_t warpSize) {
  int64_t p = parallelIterationBound(op);
  // Per output folded at once (non-scalar outputs are never grouped; they
  // count one register here so that a per-thread op asks nothing of them).
  int64_t registersPerOutput = 0;
  for (BlockArgument arg : op.getRegionOutputArgs()) {
    Type type = arg.getType();
    registersPerOutput +=
        kFoldChains * (type.isIntOrFloat()
                           ? llvm::divideCeil(type.getIntOrFloatBitWidth(), 32)
                           : 1);
  }
  int64_t most = std::clamp<int64_t>(
      kPartialResultRegisters / std::max<int64_t>(registersPerOutput, 1), 1,
      kMaxOutputsPerGroup);
  switch (mapping) {
  case ThreadMapping::PerThread:
    return 1;
  case ThreadMapping::PerWarp:
    return std::clamp<int64_t>(
        llvm::divideCeil(p, std::max<int64_t>(threads / warpSize, 1)), 1, most);
  case ThreadMapping::PerBlock:
    return std::clamp<int64_t>(p, 1, most);
  }
  return 1;
}

ThreadMapping mlir::tessel::chooseThreadMapping(linalg::LinalgOp op,
                                                int64_t threads,
                                                int64_t warpSize,
                                                int64_t memoryLatency,
                                                bool perBlockAllowed) {
  int64_t p, r;
  if (threads < warpSize || threads % warpSize != 0 ||
      !mayReducePerWarp(op, p, r))
    return ThreadMapping::PerThread;
  int64_t warps = threads / warpSize;
  int64_t latency = reductionLoadLatency(op, memoryLatency);
  // A thread's own reduction of at most 16 iterations is unrolled, its
  // loads independent: one wait. A longer one is a loop with one partial
  // result (emitRowCopies): a wait per iteration.
  int64_t perThread =
      llvm::divideCeil(p, threads) *
      (r <= kMaxUnrolledReduction ? latency + r * kIssueCycles
                                  : foldCycles(r, 1, latency, /*chains=*/1));
  int64_t warpJam =
      outputsPerGroup(op, ThreadMapping::PerWarp, threads, warpSize);
  int64_t perWarp =
      llvm::divideCeil(llvm::divideCeil(p, warps), warpJam) *
      (foldCycles(llvm::divideCeil(r, warpSize), warpJam, latency) +
       shuffleCycles(warpJam, warpSize));
  int64_t perBlock = std::numeric_limits<int64_t>::max();
  if (warps > 1 && perBlockAllowed) {
    int64_t blockJam =
        outputsPerGroup(op, ThreadMapping::PerBlock, threads, warpSize);
    perBlock = llvm::divideCeil(p, blockJam) *
               (foldCycles(llvm::divideCeil(r, threads), blockJam, latency) +
                2 * shuffleCycles(blockJam, warpSize) + 2 * kBarrierCycles);
  }
  if (perBlock < perWarp && perBlock < perThread)
    return ThreadMapping::PerBlock;
  return perWarp < perThread ? ThreadMapping::PerWarp
                             : ThreadMapping::PerThread;
}

int64_t mlir::tessel::wantedThreads(linalg::LinalgOp op, int64_t maxThreads,
                                    int64_t warpSize, int64_t memoryLatency) {
  int64_t p = parallelIterationBound(op);
  switch (chooseThreadMapping(op, maxThreads, warpSize, memoryLatency)) {
  case ThreadMapping::PerBlock:
    return maxThreads;
  case ThreadMapping::PerWarp:
    return p * warpSize;
  case ThreadMapping::PerThread:
    break;
  }
  return llvm::divideCeil(p, 4);
}

int64_t mlir::tessel::chooseRowsPerThread(linalg::LinalgOp op,
                                          const RowsPerThreadModel &model,
                                          int64_t warpSize,
                                          ArrayRef<Value> initialValues,
                                          int64_t columnsPerThread) {
  SmallVector<unsigned> parallel;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::parallel)
      parallel.push_back(d);
  if (parallel.size() < 2 || model.threads <= 0 ||
      chooseThreadMapping(op, model.threads, warpSize, model.memoryLatency) !=
          ThreadMapping::PerThread)
    return 1;
  unsigned rowDim = parallel[parallel.size() - 2];
  int64_t rows = loopBound(op, rowDim);
  int64_t outputs = parallelIterationBound(op);
  if (rows < 2 || outputs == 0)
    return 1;
  // Column groups per row: a thread's row reads columnsPerThread elements.
  columnsPerThread = std::max<int64_t>(columnsPerThread, 1);
  int64_t columns = llvm::divideCeil(outputs / rows, columnsPerThread);

  // Bytes each row of a thread reads from global memory (the operands
  // whose element changes with the parallel loops; a weight indexed by
  // the reduction alone stays in cache), and whether an input's row moves
  // with a reduction loop.
  int64_t globalBytes = 0;
  bool rowReuse = false;
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = maps[operand.getOperandNumber()];
    bool isInput = op.isDpsInput(&operand);
    if (!isInput) {
      // Written only (stores do not wait), or starting from a known value.
      unsigned slot = operand.getOperandNumber() - op.getNumDpsInputs();
      if ((op.getMatchingBlockArgument(&operand).use_empty() &&
           op.getNumReductionLoops() == 0) ||
          (slot < initialValues.size() && initialValues[slot]))
        continue;
    }
    bool varies = llvm::any_of(
        parallel, [&](unsigned d) { return map.isFunctionOfDim(d); });
    if (varies && !isSharedMemory(operand.get()))
      globalBytes +=
          std::max<int64_t>(
              1, llvm::divideCeil(
                     static_cast<int64_t>(type.getElementTypeBitWidth()), 8)) *
          (map.isFunctionOfDim(parallel.back()) ? columnsPerThread : 1);
    // Rows share loads only where the reduction is unrolled.
    int64_t reduction = reductionIterationBound(op);
    if (isInput && reduction > 0 && reduction <= kMaxUnrolledReduction)
      for (AffineExpr e : map.getResults())
        if (e.isFunctionOfDim(rowDim) &&
            llvm::any_of(reductionDims,
                         [&](unsigned r) { return e.isFunctionOfDim(r); }))
          rowReuse = true;
  }
  int64_t wanted = rowReuse ? kReuseRowsPerThread : 1;
  if (globalBytes > 0 && model.bytesInFlight > 0 && model.residentThreads > 0)
    wanted = std::max<int64_t>(
        wanted, llvm::divideCeil(model.bytesInFlight,
                                 model.residentThreads * globalBytes));
  int64_t perThread = std::min<int64_t>(
      llvm::PowerOf2Ceil(std::max<int64_t>(wanted, 1)), kMaxRowsPerThread);
  while (perThread > 1 &&
         (perThread > rows ||
          llvm::divideCeil(rows, perThread) * columns < model.threads))
    perThread /= 2;
  return perThread;
}

/// Bytes one thread's vector access moves at most: a 128-bit load or store
/// (ld.global.v4.f32), the widest a GPU thread issues.
static constexpr int64_t kVectorAccessBytes = 16;

/// `e` as sum(coeffs[d] * d) + constant, when it is linear in the dims
/// alone (no symbols, no mod or div).
static bool linearForm(AffineExpr e, int64_t scale,
                       SmallVectorImpl<int64_t> &coeffs, int64_t &constant) {
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    constant += scale * c.getValue();
    return true;
  }
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    coeffs[d.getPosition()] += scale;
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return linearForm(bin.getLHS(), scale, coeffs, constant) &&
           linearForm(bin.getRHS(), scale, coeffs, constant);
  if (bin.getKind() != AffineExprKind::Mul)
    return false;
  if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
    return linearForm(bin.getLHS(), scale * c.getValue(), coeffs, constant);
  if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
    return linearForm(bin.getRHS(), scale * c.getValue(), coeffs, constant);
  return false;
}

/// Whether `buffer` starts on a 16-byte boundary by the GPU ABI: an entry
/// point's memref argument or a device allocation (docs/ABI.md), at a
/// static offset that keeps the boundary.
static bool hasVectorAlignedStart(Value buffer) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0 ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      offset * (type.getElementTypeBitWidth() / 8) % kVectorAccessBytes != 0)
    return false;
  if (isa<BlockArgument>(buffer))
    return isa<FunctionOpInterface>(buffer.getParentRegion()->getParentOp());
  return isa_and_nonnull<memref::AllocOp, gpu::AllocOp>(
      buffer.getDefiningOp());
}

/// Bytes (a power of two, at most kVectorAccessBytes) the start of `base`,
/// a buffer accesses view (offsetFromBase), is known aligned to; 0 when
/// nothing is known. A tile buffer in the kernel's dynamic shared memory
/// is aligned as its byte shift is; an entry point's argument or a device
/// allocation as the GPU ABI says (docs/ABI.md, hasVectorAlignedStart).
static int64_t knownStartAlignment(Value base) {
  Value view = base;
  if (auto cast = base.getDefiningOp<memref::MemorySpaceCastOp>())
    view = cast.getSource();
  if (auto viewOp = view.getDefiningOp<memref::ViewOp>()) {
    std::optional<int64_t> shift = getConstantIntValue(viewOp.getByteShift());
    if (!viewOp.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>() ||
        !shift)
      return 0;
    return *shift % kVectorAccessBytes == 0
               ? kVectorAccessBytes
               : int64_t(1) << llvm::countr_zero(uint64_t(*shift));
  }
  return hasVectorAlignedStart(base) ? kVectorAccessBytes : 0;
}

/// Whether `operand` of `op` takes consecutive iterations of loop `dim`
/// as consecutive elements of its unit-stride innermost dimension, in runs
/// of `width` that start on a multiple of `width` elements from a 16-byte
/// aligned buffer (knownStartAlignment). Loops `mayShift` accepts may also
/// move its innermost index (a stencil's taps: a run starts at their first
/// iteration, 0); no other loop may.
static bool runsStartAligned(linalg::LinalgOp op, OpOperand &operand,
                             unsigned dim, int64_t width,
                             function_ref<bool(unsigned)> mayShift) {
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || map.getNumResults() == 0 ||
      failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return false;
  SmallVector<int64_t> divisors;
  unsigned last = map.getNumResults() - 1;
  for (auto [k, e] : llvm::enumerate(map.getResults())) {
    SmallVector<int64_t> coeffs(map.getNumDims(), 0);
    int64_t constant = 0;
    if (!linearForm(e, 1, coeffs, constant))
      return false;
    if (k != last) {
      if (coeffs[dim] != 0)
        return false;
      bool constantOnly =
          llvm::all_of(coeffs, [](int64_t c) { return c == 0; });
      divisors.push_back(!constantOnly   ? 1
                         : constant == 0 ? kDivisibleByAll
                                         : std::abs(constant));
      continue;
    }
    if (coeffs[dim] != 1)
      return false;
    for (auto [d, c] : llvm::enumerate(coeffs))
      if (d != dim && c != 0 && !mayShift(d))
        return false;
    divisors.push_back(constant == 0 ? width
                                     : std::gcd(width, std::abs(constant)));
  }
  std::optional<BaseOffset> base = offsetFromBase(operand.get(), divisors);
  return base && base->offsetDivisor % width == 0 &&
         knownStartAlignment(base->base) >= kVectorAccessBytes;
}

void mlir::tessel::annotateAccessAlignment(Operation *root) {
  root->walk([](Operation *op) {
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
    } else {
      return;
    }
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
      return;
    int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
    std::optional<BaseOffset> access = offsetFromBase(memref, indices);
    if (!access)
      return;
    int64_t alignment = knownStartAlignment(access->base);
    // The offset's bytes: a multiple of offsetDivisor elements.
    if (access->offsetDivisor < kDivisibleByAll)
      alignment = std::min<int64_t>(
          alignment,
          (int64_t(1) << llvm::countr_zero(uint64_t(access->offsetDivisor))) *
              elementBytes);
    if (alignment <= elementBytes)
      return;
    op->setAttr(
        "alignment",
        IntegerAttr::get(IntegerType::get(op->getContext(), 64), alignment));
  });
}

int64_t mlir::tessel::chooseColumnsPerThread(linalg::LinalgOp op,
                                             int64_t threads,
                                             int64_t warpSize,
                                             int64_t memoryLatency) {
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  if (parallel.empty() || threads <= 0 ||
      chooseThreadMapping(op, threads, warpSize, memoryLatency) !=
          ThreadMapping::PerThread)
    return 1;
  unsigned column = parallel.back();
  int64_t columns = loopBound(op, column);
  if (columns < 2)
    return 1;
  // The widest element among the operands a row of columns runs along sets
  // the width: each of them moves at most kVectorAccessBytes per thread.
  int64_t widest = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !op.getMatchingIndexingMap(&operand).isFunctionOfDim(column))
      continue;
    if (!type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0)
      return 1;
    widest = std::max<int64_t>(widest, type.getElementTypeBitWidth() / 8);
  }
  if (widest == 0)
    return 1;
  int64_t width = kVectorAccessBytes / widest;
  // Every such operand must take the columns as consecutive elements of
  // its innermost, unit-stride dimension, in runs that start on a
  // multiple of `width` from a 16-byte aligned buffer: LLVM's
  // load/store vectorizer then makes one vector access of each run. Where
  // it could not, the jammed columns would only cost coalescing (a warp's
  // scalar loads 16 bytes apart).
  auto runsAligned = [&](int64_t width) {
    for (OpOperand &operand : op->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()) &&
          op.getMatchingIndexingMap(&operand).isFunctionOfDim(column) &&
          !runsStartAligned(op, operand, column, width, [&](unsigned d) {
            return !llvm::is_contained(parallel, d);
          }))
        return false;
    return true;
  };
  // Every thread of the block keeps a column group (as for rows). Rows of
  // unknown count (dynamic sizes) are taken to be enough.
  int64_t bound = parallelIterationBound(op);
  int64_t rows = std::max<int64_t>(bound / columns, 1);
  while (width > 1 &&
         (width > columns ||
          (bound > 0 && llvm::divideCeil(columns, width) * rows < threads) ||
          !runsAligned(width)))
    width /= 2;
  return width;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// The indices `map` names at loop indices `ivs`.
static SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                                   ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults())
    indices.push_back(getValueOrCreateConstantIndexOp(
        b, loc,
        affine::makeComposedFoldedAffineApply(
            b, loc, AffineMap::get(map.getNumDims(), 0, e),
            getAsOpFoldResult(ivs))));
  return indices;
}

/// Sets ivs[d] for `dims` from their linearized index `linear`, the last of
/// `dims` fastest. The first is not reduced modulo its size: `linear` is
/// below the product of the sizes.
static void delinearizeInto(OpBuilder &b, Location loc, Value linear,
                        ArrayRef<unsigned> dims, ArrayRef<Value> sizes,
                        SmallVectorImpl<Value> &ivs) {
  Value rest = linear;
  for (auto [i, d] : llvm::enumerate(llvm::reverse(dims))) {
    bool outermost = i + 1 == dims.size();
    ivs[d] = outermost ? rest : arith::RemUIOp::create(b, loc, rest, sizes[d]);
    if (!outermost)
      rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
  }
}

static Value product(OpBuilder &b, Location loc, ArrayRef<unsigned> dims,
                     ArrayRef<Value> sizes) {
  Value total = arith::ConstantIndexOp::create(b, loc, 1);
  for (unsigned d : dims)
    total = arith::MulIOp::create(b, loc, total, sizes[d]);
  return total;
}

/// The body of `op` at loop indices `ivs`, the outputs' values being `accs`
/// (null where the body does not read the output): what it yields.
/// The values of `op`'s inputs at loop indices `ivs` (memrefs loaded).
static SmallVector<Value> loadInputs(OpBuilder &b, Location loc,
                                     linalg::GenericOp op,
                                     ArrayRef<Value> ivs) {
  SmallVector<Value> values;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (isa<MemRefType>(value.getType()))
      value = memref::LoadOp::create(
          b, loc, value,
          applyMap(b, loc, op.getMatchingIndexingMap(input), ivs));
    values.push_back(value);
  }
  return values;
}

/// The body of `op` on input values `inputs` (loadInputs) at loop indices
/// `ivs`, the outputs' values being `accs`: what it yields.
static SmallVector<Value> emitBodyOn(OpBuilder &b, linalg::GenericOp op,
                                     ArrayRef<Value> ivs, ValueRange inputs,
                                     ValueRange accs) {
  IRMapping map;
  for (auto [input, value] : llvm::zip(op.getDpsInputOperands(), inputs))
    map.map(op.getMatchingBlockArgument(input), value);
  for (auto [init, acc] : llvm::zip(op.getDpsInitsMutable(), accs))
    if (acc)
      map.map(op.getMatchingBlockArgument(&init), acc);
  Block *body = op.getBlock();
  for (Operation &o : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(o)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(o, map);
  }
  SmallVector<Value> yields;
  for (Value v : body->getTerminator()->getOperands())
    yields.push_back(map.lookupOrDefault(v));
  return yields;
}

static SmallVector<Value> emitBody(OpBuilder &b, Location loc,
                                   linalg::GenericOp op, ArrayRef<Value> ivs,
                                   ValueRange accs) {
  return emitBodyOn(b, op, ivs, loadInputs(b, loc, op, ivs), accs);
}

/// Each copy's body (loop indices `copyIvs[u]`, outputs `accs(u)`), every
/// copy's loads first: a GPU thread issues in order and stalls at the
/// first use of a load, so the copies' loads go out together.
static SmallVector<SmallVector<Value>>
emitBodies(OpBuilder &b, Location loc, linalg::GenericOp op,
           ArrayRef<SmallVector<Value>> copyIvs,
           function_ref<ValueRange(int64_t)> accs) {
  SmallVector<SmallVector<Value>> inputs;
  for (const SmallVector<Value> &ivs : copyIvs)
    inputs.push_back(loadInputs(b, loc, op, ivs));
  SmallVector<SmallVector<Value>> results;
  for (auto [u, ivs] : llvm::enumerate(copyIvs))
    results.push_back(emitBodyOn(b, op, ivs, inputs[u], accs(u)));
  return results;
}

/// `op`'s loop sizes and its parallel and reduction loops.
struct LoopStructure {
  SmallVector<Value> sizes;
  SmallVector<unsigned> parallel, reduction;
};

static LoopStructure loopStructure(OpBuilder &b, Location loc,
                                   linalg::GenericOp op) {
  LoopStructure s;
  for (Range range : cast<linalg::LinalgOp>(op.getOperation())
                         .createLoopRanges(b, loc))
    s.sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, range.size));
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    (type == utils::IteratorType::parallel ? s.parallel : s.reduction)
        .push_back(d);
  return s;
}

/// Constant upper bounds of `loops`' parallel sizes (an edge tile's
/// affine.min of the tile size), when each has one.
static std::optional<SmallVector<int64_t>>
staticParallelBounds(const LoopStructure &loops) {
  SmallVector<int64_t> bounds;
  for (unsigned d : loops.parallel) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, loops.sizes[d], /*stopCondition=*/nullptr,
        /*closedUB=*/true);
    if (failed(bound) || *bound <= 0)
      return std::nullopt;
    bounds.push_back(*bound);
  }
  return bounds;
}

/// The number of iterations start, start + stride, ... < end:
/// start < end ? ceil((end - start) / stride) : 0.
static Value emitStridedCount(OpBuilder &b, Location loc, Value start,
                              Value end, Value stride) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value before =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, start, end);
  Value span = arith::SubIOp::create(
      b, loc, arith::SelectOp::create(b, loc, before, end, start), start);
  return arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, span,
                            arith::SubIOp::create(b, loc, stride, one)),
      stride);
}

/// Folds iterations [0, end) in groups of `width` (end a multiple of it):
/// groups start, start + stride, ..., each group's iterations into
/// `width` partial results (one per position, combined at the end), so a
/// thread's loads of a group are adjacent and LLVM makes one vector load
/// of them where their alignment is known (reductionGroupWidth).
static SmallVector<Value> emitGroupedFold(OpBuilder &b, Location loc,
                                          const ReductionCombiner &combiner,
                                          TypeRange types, Value start,
                                          Value end, Value stride,
                                          int64_t width, ReductionStep step) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value widthValue = arith::ConstantIndexOp::create(b, loc, width);
  Value groups = arith::DivUIOp::create(b, loc, end, widthValue);
  Value count = emitStridedCount(b, loc, start, groups, stride);
  SmallVector<Value> initial;
  for (int64_t c = 0; c < width; ++c)
    llvm::append_range(initial, combiner.identities(b, loc, types));
  size_t n = combiner.size();
  auto loop = scf::ForOp::create(b, loc, zero, count, one, initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value group = arith::AddIOp::create(
        b, loc, start,
        arith::MulIOp::create(b, loc, loop.getInductionVar(), stride));
    Value first = arith::MulIOp::create(b, loc, group, widthValue);
    SmallVector<Value> next;
    ValueRange carried = loop.getRegionIterArgs();
    for (int64_t c = 0; c < width; ++c) {
      Value iteration =
          c == 0 ? first
                 : arith::AddIOp::create(
                       b, loc, first, arith::ConstantIndexOp::create(b, loc, c))
                       .getResult();
      llvm::append_range(next,
                         step(b, loc, iteration, carried.slice(c * n, n)));
    }
    scf::YieldOp::create(b, loc, next);
  }
  SmallVector<Value> partials(loop.getResults().take_front(n));
  for (int64_t c = 1; c < width; ++c)
    partials =
        combiner.combine(b, loc, partials, loop.getResults().slice(c * n, n));
  return partials;
}

/// Folds iterations start, start + stride, ... < end with `step` into
/// partial results that start from the combiners' identities; returns them.
/// The thread's iterations are counted first, and the main loop takes
/// kFoldChains of them per trip into separate partial results (combined at
/// the end), a remainder loop the rest. With `width` > 1, groups of that
/// many adjacent iterations instead (emitGroupedFold).
static SmallVector<Value>
emitStridedFold(OpBuilder &b, Location loc, const ReductionCombiner &combiner,
                TypeRange types, Value start, Value end, Value stride,
                ReductionStep step, int64_t width = 1) {
  if (width > 1)
    return emitGroupedFold(b, loc, combiner, types, start, end, stride, width,
                           step);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value chains = arith::ConstantIndexOp::create(b, loc, kFoldChains);
  Value count = emitStridedCount(b, loc, start, end, stride);
  Value mainCount = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, count, chains), chains);
  auto iterationAt = [&](OpBuilder &ib, Location l, Value j) -> Value {
    return arith::AddIOp::create(ib, l, start,
                                 arith::MulIOp::create(ib, l, j, stride));
  };
  SmallVector<Value> initial;
  for (int64_t c = 0; c < kFoldChains; ++c)
    llvm::append_range(initial, combiner.identities(b, loc, types));
  size_t n = combiner.size();
  auto main = scf::ForOp::create(b, loc, zero, mainCount, chains, initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(main.getBody());
    SmallVector<Value> next;
    ValueRange carried = main.getRegionIterArgs();
    for (int64_t c = 0; c < kFoldChains; ++c) {
      Value j = arith::AddIOp::create(
          b, loc, main.getInductionVar(),
          arith::ConstantIndexOp::create(b, loc, c));
      llvm::append_range(next, step(b, loc, iterationAt(b, loc, j),
                                    carried.slice(c * n, n)));
    }
    scf::YieldOp::create(b, loc, next);
  }
  SmallVector<Value> partials(main.getResults().take_front(n));
  for (int64_t c = 1; c < kFoldChains; ++c)
    partials =
        combiner.combine(b, loc, partials, main.getResults().slice(c * n, n));
  auto rest = scf::ForOp::create(b, loc, mainCount, count, one, partials);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rest.getBody());
  scf::YieldOp::create(b, loc,
                       step(b, loc, iterationAt(b, loc, rest.getInductionVar()),
                            rest.getRegionIterArgs()));
  return rest.getResults();
}

int64_t mlir::tessel::reductionSlotBytes(Type type) {
  return std::max<int64_t>(1,
                           llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
}

/// `value` from the lane `distance` away (xor). The NVVM lowering of
/// gpu.shuffle takes 32-bit and 64-bit values (the latter split in two) but
/// turns a narrower one into an invalid nvvm.shfl.sync, so an f16, bf16, i8
/// or i16 travels zero-extended in an i32. Its bits come back unchanged, so
/// the combine still works in the output's own type (an f16 sum adds in f16).
static Value shuffleXor(OpBuilder &b, Location loc, Value value, Value distance,
                        Value width) {
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits >= 32)
    return gpu::ShuffleOp::create(b, loc, value, distance, width,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  Type bitsType = b.getIntegerType(bits);
  Value word = isa<FloatType>(type)
                   ? arith::BitcastOp::create(b, loc, bitsType, value)
                   : value;
  word = arith::ExtUIOp::create(b, loc, b.getI32Type(), word);
  Value moved = arith::TruncIOp::create(
      b, loc, bitsType,
      gpu::ShuffleOp::create(b, loc, word, distance, width,
                             gpu::ShuffleMode::XOR)
          .getShuffleResult());
  return isa<FloatType>(type) ? arith::BitcastOp::create(b, loc, type, moved)
                              : moved;
}

SmallVector<Value>
mlir::tessel::emitWarpReduce(OpBuilder &b, Location loc,
                             const ReductionCombiner &combiner,
                             ValueRange values, int64_t warpSize) {
  SmallVector<Value> results(values);
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), warpSize);
  for (int64_t offset = warpSize / 2; offset >= 1; offset /= 2) {
    Value distance =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    SmallVector<Value> others;
    for (Value value : results)
      others.push_back(shuffleXor(b, loc, value, distance, width));
    // Symmetric: both lanes of a pair get the same result.
    results = combiner.combine(b, loc, results, others);
  }
  return results;
}

SmallVector<Value> mlir::tessel::emitBlockReduce(
    OpBuilder &b, Location loc, const ReductionCombiner &combiner,
    TypeRange types, Value tid, int64_t threads, int64_t warpSize, Value begin,
    Value end, ArrayRef<Value> scratch, ReductionStep step,
    int64_t groupWidth) {
  Value start = arith::AddIOp::create(b, loc, begin, tid);
  Value stride = arith::ConstantIndexOp::create(b, loc, threads);
  SmallVector<Value> warpResults =
      emitWarpReduce(b, loc, combiner,
                     emitStridedFold(b, loc, combiner, types, start, end,
                                     stride, step, groupWidth),
                     warpSize);
  int64_t warps = threads / warpSize;
  if (warps == 1)
    return warpResults;

  // Each warp's first lane publishes the warp's results; after the barrier
  // every warp combines them (all warps alike: no divergent shuffles).
  Value warpSizeValue = arith::ConstantIndexOp::create(b, loc, warpSize);
  Value warp = arith::DivUIOp::create(b, loc, tid, warpSizeValue);
  Value lane = arith::RemUIOp::create(b, loc, tid, warpSizeValue);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value firstLane =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  auto publish = scf::IfOp::create(b, loc, firstLane, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(publish.thenBlock());
    for (auto [value, buffer] : llvm::zip(warpResults, scratch))
      memref::StoreOp::create(b, loc, value, buffer, warp);
  }
  gpu::BarrierOp::create(b, loc);
  Value warpCount = arith::ConstantIndexOp::create(b, loc, warps);
  Value lastWarp = arith::ConstantIndexOp::create(b, loc, warps - 1);
  Value holds =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, warpCount);
  Value slot = arith::MinUIOp::create(b, loc, lane, lastWarp);
  SmallVector<Value> identity = combiner.identities(b, loc, types);
  SmallVector<Value> published;
  for (auto [buffer, neutral] : llvm::zip(scratch, identity))
    published.push_back(arith::SelectOp::create(
        b, loc, holds, memref::LoadOp::create(b, loc, buffer, slot), neutral));
  return emitWarpReduce(b, loc, combiner, published, warpSize);
}

FailureOr<linalg::GenericOp> mlir::tessel::asGeneric(RewriterBase &rewriter,
                                                     linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  rewriter.setInsertionPoint(op);
  return linalg::generalizeNamedOp(rewriter, op);
}

SmallVector<Type> mlir::tessel::outputElementTypes(linalg::LinalgOp op) {
  SmallVector<Type> types;
  for (BlockArgument arg : op.getRegionOutputArgs())
    types.push_back(arg.getType());
  return types;
}

void mlir::tessel::emitCombineIntoOutputs(OpBuilder &b, Location loc,
                                          linalg::GenericOp op,
                                          const ReductionCombiner &combiner,
                                          ValueRange totals,
                                          ArrayRef<Value> ivs, Value index,
                                          ArrayRef<Value> initialValues) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index, zero);
  auto store = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(store.thenBlock());
  SmallVector<SmallVector<Value>> indices;
  SmallVector<Value> initial;
  for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    indices.push_back(applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
    initial.push_back(
        i < initialValues.size() && initialValues[i]
            ? initialValues[i]
            : memref::LoadOp::create(b, loc, init.get(), indices.back())
                  .getResult());
  }
  for (auto [init, value, at] :
       llvm::zip(op.getDpsInitsMutable(),
                 combiner.combineAfter(b, loc, initial, totals), indices))
    memref::StoreOp::create(b, loc, value, init.get(), at);
}

SmallVector<Value> mlir::tessel::emitReductionBody(
    OpBuilder &b, Location loc, linalg::GenericOp op, ArrayRef<Value> sizes,
    Value iteration, ValueRange accs, ArrayRef<Value> outputIvs) {
  SmallVector<unsigned> reduction;
  op.getReductionDims(reduction);
  SmallVector<Value> ivs(op.getNumLoops());
  if (!outputIvs.empty())
    ivs.assign(outputIvs.begin(), outputIvs.end());
  delinearizeInto(b, loc, iteration, reduction, sizes, ivs);
  return emitBody(b, loc, op, ivs, accs);
}

SmallVector<Value> mlir::tessel::parallelLoopIndices(OpBuilder &b, Location loc,
                                                     linalg::LinalgOp op,
                                                     ArrayRef<Value> sizes,
                                                     Value output) {
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  SmallVector<Value> ivs(op.getNumLoops(),
                         arith::ConstantIndexOp::create(b, loc, 0));
  if (!parallel.empty())
    delinearizeInto(b, loc, output, parallel, sizes, ivs);
  return ivs;
}

bool mlir::tessel::ownsOutputsPerParallelIteration(linalg::LinalgOp op) {
  SmallVector<unsigned> parallelDims;
  op.getParallelDims(parallelDims);
  for (OpOperand &init : op.getDpsInitsMutable()) {
    llvm::SmallBitVector seen(op.getNumLoops());
    for (AffineExpr e : op.getMatchingIndexingMap(&init).getResults()) {
      if (isa<AffineConstantExpr>(e))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || seen.test(dim.getPosition()) ||
          !llvm::is_contained(parallelDims, dim.getPosition()))
        return false;
      seen.set(dim.getPosition());
    }
    if (seen.count() != parallelDims.size())
      return false;
  }
  return true;
}

bool mlir::tessel::prefersSplitOverBlocks(linalg::LinalgOp op, int64_t smCount,
                                          int64_t threadsPerBlock) {
  std::string why;
  if (op.getNumParallelLoops() == 0 || op.getNumReductionLoops() == 0 ||
      op.hasDynamicShape() || !matchSplittableReduction(op, why))
    return false;
  if (!ownsOutputsPerParallelIteration(op))
    return false;
  int64_t outputs = parallelIterationBound(op);
  int64_t iterations = reductionIterationBound(op);
  return outputs > 0 && outputs < 2 * std::max<int64_t>(smCount, 1) &&
         iterations >= threadsPerBlock;
}

static bool isShortReduction(const LoopStructure &loops) {
  int64_t iterations = 1;
  for (unsigned d : loops.reduction) {
    std::optional<int64_t> size = getConstantIntValue(loops.sizes[d]);
    if (!size)
      return false;
    iterations *= *size;
  }
  return iterations <= kMaxUnrolledReduction;
}

/// A loop along which a thread takes `count` consecutive iterations at once
/// (rows, or columns), each a copy of the body.
struct CopyDim {
  unsigned dim;
  int64_t count;
};

/// The body of `op` for every combination of consecutive iterations of
/// `copyDims` from `ivs` (the first copy's loop indices; no copyDims for one
/// copy), the last of copyDims fastest, jammed into the reduction loops, and
/// their stores. `clamped`: copies past an extent read its last iteration
/// again and store nothing.
static void emitRowCopies(RewriterBase &rewriter, Location loc,
                          linalg::GenericOp op, const LoopStructure &loops,
                          ArrayRef<Value> ivs, ArrayRef<CopyDim> copyDims,
                          bool clamped, ArrayRef<Value> initialValues) {
  int64_t copies = 1;
  for (const CopyDim &c : copyDims)
    copies *= c.count;
  SmallVector<SmallVector<Value>> copyIvs(copies, SmallVector<Value>(ivs));
  SmallVector<Value> copyInside(copies);
  SmallVector<Value> lastIndex;
  if (clamped)
    for (const CopyDim &c : copyDims)
      lastIndex.push_back(arith::SubIOp::create(
          rewriter, loc, loops.sizes[c.dim],
          arith::ConstantIndexOp::create(rewriter, loc, 1)));
  for (int64_t u = 1; u < copies; ++u) {
    int64_t rest = u;
    for (int64_t k = copyDims.size() - 1; k >= 0; --k) {
      const CopyDim &c = copyDims[k];
      int64_t offset = rest % c.count;
      rest /= c.count;
      if (offset == 0)
        continue;
      // An affine.apply, so each load's index folds to one expression of
      // the group (row copy u's tap t and copy u+1's tap t-1 are then the
      // same load to CSE).
      AffineExpr first = getAffineDimExpr(0, rewriter.getContext());
      Value index = getValueOrCreateConstantIndexOp(
          rewriter, loc,
          affine::makeComposedFoldedAffineApply(
              rewriter, loc, AffineMap::get(1, 0, first + offset),
              {OpFoldResult(ivs[c.dim])}));
      copyIvs[u][c.dim] = index;
      if (!clamped)
        continue;
      Value inside = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, index, loops.sizes[c.dim]);
      copyInside[u] =
          copyInside[u]
              ? arith::AndIOp::create(rewriter, loc, copyInside[u], inside)
                    .getResult()
              : inside;
      copyIvs[u][c.dim] =
          arith::MinUIOp::create(rewriter, loc, index, lastIndex[k]);
    }
  }

  SmallVector<OpOperand *> inits;
  for (OpOperand &init : op.getDpsInitsMutable())
    inits.push_back(&init);
  // An output's current value is read only when the body uses it (all
  // reductions do). Every copy reads its inputs and outputs before any
  // copy stores: a clamped copy then computes what its last row's copy
  // does, from the same values.
  SmallVector<SmallVector<Value>> accs(copies);
  for (int64_t u = 0; u < copies; ++u)
    for (auto [i, init] : llvm::enumerate(inits))
      accs[u].push_back(
          i < initialValues.size() && initialValues[i] ? initialValues[i]
          : !op.getMatchingBlockArgument(init).use_empty() ||
                  !loops.reduction.empty()
              ? memref::LoadOp::create(rewriter, loc, init->get(),
                                       applyMap(rewriter, loc,
                                                op.getMatchingIndexingMap(init),
                                                copyIvs[u]))
                    .getResult()
              : Value());
  SmallVector<SmallVector<Value>> results(copies);
  SmallVector<scf::ForOp> nest;
  if (loops.reduction.empty()) {
    results = emitBodies(rewriter, loc, op, copyIvs,
                         [&](int64_t u) { return ValueRange(accs[u]); });
  } else {
    // Reduction loops, outermost first, carrying every copy's outputs.
    SmallVector<Value> carriedInit;
    for (auto &copyAccs : accs)
      llvm::append_range(carriedInit, copyAccs);
    ValueRange carried = carriedInit;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (unsigned d : loops.reduction) {
      auto inner =
          scf::ForOp::create(rewriter, loc, zero, loops.sizes[d], one, carried);
      for (auto &copy : copyIvs)
        copy[d] = inner.getInductionVar();
      if (!nest.empty())
        scf::YieldOp::create(rewriter, loc, inner.getResults());
      rewriter.setInsertionPointToStart(inner.getBody());
      carried = inner.getRegionIterArgs();
      nest.push_back(inner);
    }
    size_t n = inits.size();
    SmallVector<Value> yields;
    for (SmallVector<Value> &copy :
         emitBodies(rewriter, loc, op, copyIvs,
                    [&](int64_t u) { return carried.slice(u * n, n); }))
      llvm::append_range(yields, copy);
    scf::YieldOp::create(rewriter, loc, yields);
    rewriter.setInsertionPointAfter(nest.front());
    ValueRange nestResults = nest.front().getResults();
    for (int64_t u = 0; u < copies; ++u)
      results[u] = SmallVector<Value>(nestResults.slice(u * n, n));
  }
  for (int64_t u = 0; u < copies; ++u) {
    OpBuilder::InsertionGuard storeGuard(rewriter);
    if (copyInside[u]) {
      auto store =
          scf::IfOp::create(rewriter, loc, copyInside[u], /*withElse=*/false);
      rewriter.setInsertionPointToStart(store.thenBlock());
    }
    for (auto [init, value] : llvm::zip(inits, results[u]))
      memref::StoreOp::create(
          rewriter, loc, value, init->get(),
          applyMap(rewriter, loc, op.getMatchingIndexingMap(init), copyIvs[u]));
  }
  // Short reductions unrolled (innermost first), so the copies' loads of
  // one address are one expression for CSE; LLVM's GVN alone misses those
  // whose row it has rewritten as an `or`.
  if (copies > 1 && isShortReduction(loops))
    for (scf::ForOp loop : llvm::reverse(nest))
      (void)loopUnrollFull(loop);
}

/// Per thread: a loop over the parallel iterations strided by `threads`,
/// the reduction loops inside it. With `rowsPerThread` U > 1, each
/// iteration of the loop takes U consecutive iterations of the
/// second-innermost parallel loop (rows) at the same column: the U copies
/// of the body are jammed into the reduction loops, so a thread issues the
/// loads of all U rows before it uses the first (U times the loads in
/// flight, per reduction iteration), and where short reductions are
/// unrolled, loads shared by neighbouring rows (a vertical stencil's taps)
/// are one load after CSE. With `columnsPerThread` V > 1, each takes V
/// consecutive columns (innermost parallel loop) of each of its rows the
/// same way: a row's V loads of an operand are adjacent, and LLVM makes
/// one vector load of them (chooseColumnsPerThread says when it can).
/// Consecutive threads stay on consecutive columns or column groups
/// (coalesced).
static void emitPerThread(RewriterBase &rewriter, Location loc,
                          linalg::GenericOp op, const LoopStructure &loops,
                          Value tid, int64_t threads,
                          ArrayRef<Value> initialValues,
                          int64_t rowsPerThread, int64_t columnsPerThread) {
  // Over a tile's static extent when its parallel sizes are dynamic (edge
  // tiles), with a guard: the loop index is split into loop indices by
  // constants (shifts and multiplications) instead of a 64-bit division per
  // index and element, which dominated stencil kernels.
  SmallVector<Value> sizes(loops.sizes);
  SmallVector<unsigned> guarded;
  if (std::optional<SmallVector<int64_t>> bounds = staticParallelBounds(loops))
    for (auto [d, bound] : llvm::zip(loops.parallel, *bounds))
      if (!getConstantIntValue(loops.sizes[d])) {
        sizes[d] = arith::ConstantIndexOp::create(rewriter, loc, bound);
        guarded.push_back(d);
      }
  // Rows (columns) per iteration: the row (column) loop runs over
  // ⌈rows / U⌉ row groups.
  SmallVector<CopyDim> copyDims;
  if (loops.parallel.size() >= 2 && rowsPerThread > 1)
    copyDims.push_back({loops.parallel[loops.parallel.size() - 2],
                        rowsPerThread});
  if (!loops.parallel.empty() && columnsPerThread > 1)
    copyDims.push_back({loops.parallel.back(), columnsPerThread});
  // Whether a group may reach past its extent: its loads then read the
  // last iteration again, its stores are skipped.
  bool partialGroups = false;
  for (const CopyDim &c : copyDims) {
    std::optional<int64_t> extent = getConstantIntValue(sizes[c.dim]);
    if (extent) {
      sizes[c.dim] = arith::ConstantIndexOp::create(
          rewriter, loc, llvm::divideCeil(*extent, c.count));
    } else {
      Value count = arith::ConstantIndexOp::create(rewriter, loc, c.count);
      sizes[c.dim] =
          arith::CeilDivUIOp::create(rewriter, loc, sizes[c.dim], count);
    }
    partialGroups |= !extent || *extent % c.count != 0 ||
                     !getConstantIntValue(loops.sizes[c.dim]);
  }
  Value total = product(rewriter, loc, loops.parallel, sizes);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, threads);
  auto loop = scf::ForOp::create(rewriter, loc, tid, total, step);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(op.getNumLoops());
  delinearizeInto(rewriter, loc, loop.getInductionVar(), loops.parallel,
                  sizes, ivs);
  for (const CopyDim &c : copyDims)
    ivs[c.dim] = getValueOrCreateConstantIndexOp(
        rewriter, loc,
        affine::makeComposedFoldedAffineApply(
            rewriter, loc,
            AffineMap::get(1, 0,
                           getAffineDimExpr(0, rewriter.getContext()) *
                               c.count),
            {OpFoldResult(ivs[c.dim])}));
  if (!guarded.empty()) {
    // Guards the group's first copy; its later ones are handled by the
    // split into whole and clamped groups below.
    Value inside;
    for (unsigned d : guarded) {
      Value below = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, ivs[d], loops.sizes[d]);
      inside = inside ? arith::AndIOp::create(rewriter, loc, inside, below)
                            .getResult()
                      : below;
    }
    auto within = scf::IfOp::create(rewriter, loc, inside, /*withElse=*/false);
    rewriter.setInsertionPointToStart(within.thenBlock());
  }
  if (!partialGroups) {
    emitRowCopies(rewriter, loc, op, loops, ivs, copyDims, /*clamped=*/false,
                  initialValues);
    return;
  }
  // Whole groups (all but an edge tile's last) take copies that index
  // their rows and columns directly: neighbouring copies' loads at the same
  // address are then one load after GVN, and adjacent ones one vector
  // load, which clamped indices would hide.
  Value whole;
  for (const CopyDim &c : copyDims) {
    Value end = arith::AddIOp::create(
        rewriter, loc, ivs[c.dim],
        arith::ConstantIndexOp::create(rewriter, loc, c.count));
    Value fits = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ule, end, loops.sizes[c.dim]);
    whole = whole ? arith::AndIOp::create(rewriter, loc, whole, fits).getResult()
                  : fits;
  }
  auto split = scf::IfOp::create(rewriter, loc, whole, /*withElse=*/true);
  rewriter.setInsertionPointToStart(split.thenBlock());
  emitRowCopies(rewriter, loc, op, loops, ivs, copyDims, /*clamped=*/false,
                initialValues);
  rewriter.setInsertionPointToStart(split.elseBlock());
  emitRowCopies(rewriter, loc, op, loops, ivs, copyDims, /*clamped=*/true,
                initialValues);
}

/// Adjacent iterations of its reduction a thread folds at once when `lanes`
/// threads share it (per warp or per block, emitGroupedFold): kFoldChains
/// of them, so each group is one vector load per operand (16 bytes of f32,
/// 8 of f16), where they fit in 16 bytes of the widest element the
/// innermost reduction loop runs along, every operand indexed by that loop
/// takes it as its unit-stride innermost index, shifted by no other loop,
/// in runs that start aligned (runsStartAligned), the loop's extent is a
/// multiple of the width, and each lane keeps a group of every row of it.
/// Otherwise 1: iterations one by one, consecutive lanes on consecutive
/// elements (f64: a group of 2 would halve the loads in flight).
static int64_t reductionGroupWidth(linalg::GenericOp op,
                                   const LoopStructure &loops, int64_t lanes) {
  if (loops.reduction.empty())
    return 1;
  unsigned inner = loops.reduction.back();
  std::optional<int64_t> extent = getConstantIntValue(loops.sizes[inner]);
  if (!extent)
    return 1;
  int64_t widest = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!op.getMatchingIndexingMap(&operand).isFunctionOfDim(inner))
      continue;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getElementType().isIntOrFloat() ||
        type.getElementTypeBitWidth() % 8 != 0)
      return 1;
    widest = std::max<int64_t>(widest, type.getElementTypeBitWidth() / 8);
  }
  if (widest == 0)
    return 1;
  auto runsAligned = [&](int64_t width) {
    for (OpOperand &operand : op->getOpOperands())
      if (op.getMatchingIndexingMap(&operand).isFunctionOfDim(inner) &&
          !runsStartAligned(op, operand, inner, width,
                            [](unsigned) { return false; }))
        return false;
    return true;
  };
  // As many as the ungrouped fold's chains, no more (each position of a
  // group is a chain: more would raise the registers the outputs folded
  // at once were chosen for, fewer the loads in flight per trip).
  int64_t width = kFoldChains;
  if (widest * width > kVectorAccessBytes || *extent % width != 0 ||
      *extent / width < lanes || !runsAligned(width))
    return 1;
  return width;
}

/// Per warp: warps take the parallel iterations (outputs) in turn, `jam`
/// at once; a warp's lanes fold strided shares of their reductions,
/// shuffles combine them, and the first lane combines each result with its
/// output's value and stores it. Per block (`scratch` given): the whole
/// block takes `jam` outputs at once, emitBlockReduce combines its warps,
/// thread 0 stores, and a barrier closes each group before `scratch` is
/// reused. Folding several outputs at once keeps each thread's loads for
/// all of them in flight together (a softmax tile's few rows), and a block
/// reduction's shuffles, shared-memory exchange and barriers are paid once
/// per group rather than per output. A group that reaches past the last
/// output reads that output again and stores nothing for it.
static void emitPerWarpOrBlock(RewriterBase &rewriter, Location loc,
                               linalg::GenericOp op, const LoopStructure &loops,
                               const ReductionCombiner &combiner, Value tid,
                               int64_t threads, int64_t warpSize, int64_t jam,
                               ArrayRef<Value> scratch,
                               ArrayRef<Value> initialValues) {
  bool wholeBlock = !scratch.empty();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value warpSizeValue = arith::ConstantIndexOp::create(rewriter, loc, warpSize);
  Value lane = arith::RemUIOp::create(rewriter, loc, tid, warpSizeValue);
  Value jamValue = arith::ConstantIndexOp::create(rewriter, loc, jam);
  Value first =
      wholeBlock ? zero
                 : arith::MulIOp::create(rewriter, loc,
                                         arith::DivUIOp::create(
                                             rewriter, loc, tid, warpSizeValue),
                                         jamValue)
                       .getResult();
  Value step = arith::ConstantIndexOp::create(
      rewriter, loc, wholeBlock ? jam : threads / warpSize * jam);
  Value outputs = product(rewriter, loc, loops.parallel, loops.sizes);
  std::optional<int64_t> staticOutputs = 1;
  for (unsigned d : loops.parallel) {
    std::optional<int64_t> size = getConstantIntValue(loops.sizes[d]);
    staticOutputs = size && staticOutputs
                        ? std::optional<int64_t>(*staticOutputs * *size)
                        : std::nullopt;
  }
  bool partialGroups = jam > 1 && (!staticOutputs || *staticOutputs % jam != 0);
  // The trip count is the same for every lane of a warp (every thread of
  // the block): its shuffles converge.
  auto loop = scf::ForOp::create(rewriter, loc, first, outputs, step);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  Value lastOutput = arith::SubIOp::create(rewriter, loc, outputs, one);
  SmallVector<SmallVector<Value>> outputIvs(jam);
  SmallVector<Value> exists(jam);
  for (int64_t j = 0; j < jam; ++j) {
    Value index = loop.getInductionVar();
    if (j > 0)
      index = arith::AddIOp::create(
          rewriter, loc, index,
          arith::ConstantIndexOp::create(rewriter, loc, j));
    if (j > 0 && partialGroups) {
      exists[j] = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, index, outputs);
      index = arith::MinUIOp::create(rewriter, loc, index, lastOutput);
    }
    outputIvs[j].assign(op.getNumLoops(), Value());
    delinearizeInto(rewriter, loc, index, loops.parallel, loops.sizes,
                    outputIvs[j]);
  }
  // The group's combiner and types: each output's, `jam` times.
  SmallVector<Type> types = outputElementTypes(op);
  size_t n = combiner.size();
  ReductionCombiner groupCombiner = combiner.repeated(jam);
  SmallVector<Type> groupTypes;
  for (int64_t j = 0; j < jam; ++j)
    llvm::append_range(groupTypes, types);
  Value iterations = product(rewriter, loc, loops.reduction, loops.sizes);
  auto foldIteration = [&](OpBuilder &b, Location l, Value r,
                           ValueRange partials) {
    SmallVector<Value> reductionIvs(op.getNumLoops());
    delinearizeInto(b, l, r, loops.reduction, loops.sizes, reductionIvs);
    SmallVector<SmallVector<Value>> at(outputIvs);
    for (SmallVector<Value> &ivs : at)
      for (unsigned d : loops.reduction)
        ivs[d] = reductionIvs[d];
    SmallVector<Value> next;
    for (SmallVector<Value> &values : emitBodies(
             b, l, op, at, [&](int64_t j) { return partials.slice(j * n, n); }))
      llvm::append_range(next, values);
    return next;
  };
  int64_t groupWidth =
      reductionGroupWidth(op, loops, wholeBlock ? threads : warpSize);
  SmallVector<Value> totals =
      wholeBlock ? emitBlockReduce(rewriter, loc, groupCombiner, groupTypes,
                                   tid, threads, warpSize, zero, iterations,
                                   scratch, foldIteration, groupWidth)
                 : emitWarpReduce(rewriter, loc, groupCombiner,
                                  emitStridedFold(rewriter, loc, groupCombiner,
                                                  groupTypes, lane, iterations,
                                                  warpSizeValue, foldIteration,
                                                  groupWidth),
                                  warpSize);
  for (int64_t j = 0; j < jam; ++j) {
    OpBuilder::InsertionGuard storeGuard(rewriter);
    if (exists[j]) {
      auto store =
          scf::IfOp::create(rewriter, loc, exists[j], /*withElse=*/false);
      rewriter.setInsertionPointToStart(store.thenBlock());
    }
    emitCombineIntoOutputs(rewriter, loc, op, combiner,
                           ValueRange(totals).slice(j * n, n), outputIvs[j],
                           wholeBlock ? tid : lane, initialValues);
  }
  if (wholeBlock)
    gpu::BarrierOp::create(rewriter, loc);
}

FailureOr<ThreadMapping> mlir::tessel::distributeOverThreads(
    RewriterBase &rewriter, linalg::LinalgOp linalgOp, Value tid,
    int64_t threads, int64_t warpSize, ArrayRef<Value> scratch,
    ArrayRef<Value> initialValues, int64_t rowsPerThread, int64_t memoryLatency,
    int64_t columnsPerThread, bool splitReductions) {
  Location loc = linalgOp.getLoc();
  bool scratchFits =
      static_cast<int64_t>(scratch.size()) ==
      outputsPerGroup(linalgOp, ThreadMapping::PerBlock, threads, warpSize) *
          linalgOp.getNumDpsInits();
  ThreadMapping mapping = splitReductions
                              ? chooseThreadMapping(linalgOp, threads, warpSize,
                                                    memoryLatency, scratchFits)
                              : ThreadMapping::PerThread;
  int64_t jam = outputsPerGroup(linalgOp, mapping, threads, warpSize);
  std::string why;
  std::optional<ReductionCombiner> combiner =
      matchSplittableReduction(linalgOp, why);
  FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, linalgOp);
  if (failed(generic))
    return failure();
  linalg::GenericOp op = *generic;
  rewriter.setInsertionPoint(op);
  LoopStructure loops = loopStructure(rewriter, loc, op);
  if (mapping != ThreadMapping::PerThread)
    emitPerWarpOrBlock(
        rewriter, loc, op, loops, *combiner, tid, threads, warpSize, jam,
        mapping == ThreadMapping::PerBlock ? scratch : ArrayRef<Value>(),
        initialValues);
  else
    emitPerThread(rewriter, loc, op, loops, tid, threads, initialValues,
                  rowsPerThread, columnsPerThread);
  rewriter.eraseOp(op);
  return mapping;
}

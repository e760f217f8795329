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

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/IR/IRMapping.h"
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

std::optional<SmallVector<arith::AtomicRMWKind>>
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
  SmallVector<arith::AtomicRMWKind> kinds;
  for (auto [i, arg] : llvm::enumerate(outputs)) {
    Type type = arg.getType();
    if (!(type.isF32() || type.isInteger(32))) {
      why = "its output element type is not 32-bit (f32 or i32)";
      return std::nullopt;
    }
    SmallVector<Operation *> combiners;
    if (!matchReduction(outputs, i, combiners) || combiners.size() != 1 ||
        combiners.front()->getBlock() != body) {
      why = "an output is not combined by one op with the value computed "
            "for it";
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
    kinds.push_back(*kind);
  }
  return kinds;
}

static int64_t iterationBound(linalg::LinalgOp op, utils::IteratorType kind) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t total = 1;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (type != kind)
      continue;
    int64_t bound = ranges[d];
    // A dynamic extent (an edge tile's slice): the upper bound of an
    // operand dimension the loop indexes directly.
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
    if (ShapedType::isDynamic(bound))
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

/// A block-wide barrier, in the sequential steps chooseThreadMapping counts.
static constexpr int64_t kBarrierSteps = 16;

/// Whether `op` may reduce per warp at all, and its bounds.
static bool mayReducePerWarp(linalg::LinalgOp op, int64_t &parallel,
                             int64_t &reduction) {
  std::string why;
  parallel = parallelIterationBound(op);
  reduction = reductionIterationBound(op);
  return parallel > 0 && reduction > 1 && matchSplittableReduction(op, why);
}

ThreadMapping mlir::tessel::chooseThreadMapping(linalg::LinalgOp op,
                                                int64_t threads,
                                                int64_t warpSize,
                                                bool perBlockAllowed) {
  int64_t p, r;
  if (threads < warpSize || threads % warpSize != 0 ||
      !mayReducePerWarp(op, p, r))
    return ThreadMapping::PerThread;
  int64_t warps = threads / warpSize;
  int64_t halvings = llvm::Log2_64(warpSize);
  int64_t perThread = llvm::divideCeil(p, threads) * r;
  int64_t perWarp =
      llvm::divideCeil(p, warps) * (llvm::divideCeil(r, warpSize) + 2 * halvings);
  int64_t perBlock = warps > 1 && perBlockAllowed
                         ? p * (llvm::divideCeil(r, threads) +
                                4 * halvings + 2 * kBarrierSteps)
                         : std::numeric_limits<int64_t>::max();
  if (perBlock < perWarp && perBlock < perThread)
    return ThreadMapping::PerBlock;
  return perWarp < perThread ? ThreadMapping::PerWarp
                             : ThreadMapping::PerThread;
}

int64_t mlir::tessel::wantedThreads(linalg::LinalgOp op, int64_t maxThreads,
                                    int64_t warpSize) {
  int64_t p = parallelIterationBound(op);
  switch (chooseThreadMapping(op, maxThreads, warpSize)) {
  case ThreadMapping::PerBlock:
    return maxThreads;
  case ThreadMapping::PerWarp:
    return p * warpSize;
  case ThreadMapping::PerThread:
    break;
  }
  return llvm::divideCeil(p, 4);
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
static SmallVector<Value> emitBody(OpBuilder &b, Location loc,
                                   linalg::GenericOp op, ArrayRef<Value> ivs,
                                   ValueRange accs) {
  IRMapping map;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (isa<MemRefType>(value.getType()))
      value = memref::LoadOp::create(
          b, loc, value,
          applyMap(b, loc, op.getMatchingIndexingMap(input), ivs));
    map.map(op.getMatchingBlockArgument(input), value);
  }
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

static SmallVector<Value> identities(OpBuilder &b, Location loc,
                                     ArrayRef<arith::AtomicRMWKind> kinds,
                                     TypeRange types) {
  SmallVector<Value> values;
  for (auto [kind, type] : llvm::zip(kinds, types))
    values.push_back(arith::getIdentityValue(kind, type, b, loc));
  return values;
}

/// Independent partial results per thread in a strided fold. A GPU thread
/// issues its loads in order and waits at the first use: with one chain of
/// partial results, each iteration's load waits for the previous combine,
/// one load in flight per thread. Four chains keep four loads in flight.
static constexpr int64_t kFoldChains = 4;

/// Folds iterations start, start + stride, ... < end with `step` into
/// partial results that start from the combiners' identities; returns them.
/// The thread's iterations are counted first, and the main loop takes
/// kFoldChains of them per trip into separate partial results (combined at
/// the end), a remainder loop the rest.
static SmallVector<Value> emitStridedFold(OpBuilder &b, Location loc,
                                          ArrayRef<arith::AtomicRMWKind> kinds,
                                          TypeRange types, Value start,
                                          Value end, Value stride,
                                          ReductionStep step) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value chains = arith::ConstantIndexOp::create(b, loc, kFoldChains);
  // count = start < end ? ceil((end - start) / stride) : 0.
  Value before =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, start, end);
  Value span = arith::SubIOp::create(
      b, loc, arith::SelectOp::create(b, loc, before, end, start), start);
  Value count = arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, span,
                            arith::SubIOp::create(b, loc, stride, one)),
      stride);
  Value mainCount = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, count, chains), chains);
  auto iterationAt = [&](OpBuilder &ib, Location l, Value j) -> Value {
    return arith::AddIOp::create(ib, l, start,
                                 arith::MulIOp::create(ib, l, j, stride));
  };
  SmallVector<Value> initial;
  for (int64_t c = 0; c < kFoldChains; ++c)
    llvm::append_range(initial, identities(b, loc, kinds, types));
  size_t n = kinds.size();
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
    for (size_t i = 0; i < n; ++i)
      partials[i] = arith::getReductionOp(kinds[i], b, loc, partials[i],
                                          main.getResult(c * n + i));
  auto rest = scf::ForOp::create(b, loc, mainCount, count, one, partials);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rest.getBody());
  scf::YieldOp::create(b, loc,
                       step(b, loc, iterationAt(b, loc, rest.getInductionVar()),
                            rest.getRegionIterArgs()));
  return rest.getResults();
}

SmallVector<Value> mlir::tessel::emitWarpReduce(
    OpBuilder &b, Location loc, ArrayRef<arith::AtomicRMWKind> kinds,
    ValueRange values, int64_t warpSize) {
  SmallVector<Value> results(values);
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), warpSize);
  for (int64_t offset = warpSize / 2; offset >= 1; offset /= 2) {
    Value distance =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    for (size_t i = 0; i < results.size(); ++i) {
      Value other = gpu::ShuffleOp::create(b, loc, results[i], distance, width,
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      results[i] = arith::getReductionOp(kinds[i], b, loc, results[i], other);
    }
  }
  return results;
}

SmallVector<Value> mlir::tessel::emitBlockReduce(
    OpBuilder &b, Location loc, ArrayRef<arith::AtomicRMWKind> kinds,
    TypeRange types, Value tid, int64_t threads, int64_t warpSize, Value begin,
    Value end, ArrayRef<Value> scratch, ReductionStep step) {
  Value start = arith::AddIOp::create(b, loc, begin, tid);
  Value stride = arith::ConstantIndexOp::create(b, loc, threads);
  SmallVector<Value> warpResults = emitWarpReduce(
      b, loc, kinds,
      emitStridedFold(b, loc, kinds, types, start, end, stride, step),
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
  SmallVector<Value> identity = identities(b, loc, kinds, types);
  SmallVector<Value> published;
  for (auto [buffer, neutral] : llvm::zip(scratch, identity))
    published.push_back(arith::SelectOp::create(
        b, loc, holds, memref::LoadOp::create(b, loc, buffer, slot), neutral));
  return emitWarpReduce(b, loc, kinds, published, warpSize);
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
                                          ArrayRef<arith::AtomicRMWKind> kinds,
                                          ValueRange totals,
                                          ArrayRef<Value> ivs, Value index,
                                          ArrayRef<Value> initialValues) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index, zero);
  auto store = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(store.thenBlock());
  for (auto [i, init, kind, total] :
       llvm::enumerate(op.getDpsInitsMutable(), kinds, totals)) {
    SmallVector<Value> indices =
        applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs);
    Value initial = i < initialValues.size() && initialValues[i]
                        ? initialValues[i]
                        : memref::LoadOp::create(b, loc, init.get(), indices)
                              .getResult();
    memref::StoreOp::create(b, loc,
                            arith::getReductionOp(kind, b, loc, initial, total),
                            init.get(), indices);
  }
}

SmallVector<Value> mlir::tessel::emitReductionBody(OpBuilder &b, Location loc,
                                                   linalg::GenericOp op,
                                                   ArrayRef<Value> sizes,
                                                   Value iteration,
                                                   ValueRange accs) {
  SmallVector<unsigned> reduction;
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction)
      reduction.push_back(d);
  SmallVector<Value> ivs(op.getNumLoops());
  delinearizeInto(b, loc, iteration, reduction, sizes, ivs);
  return emitBody(b, loc, op, ivs, accs);
}

/// Per thread: a loop over the parallel iterations strided by `threads`,
/// the reduction loops inside it.
static void emitPerThread(RewriterBase &rewriter, Location loc,
                          linalg::GenericOp op, const LoopStructure &loops,
                          Value tid, int64_t threads,
                          ArrayRef<Value> initialValues) {
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
  Value total = product(rewriter, loc, loops.parallel, sizes);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, threads);
  auto loop = scf::ForOp::create(rewriter, loc, tid, total, step);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(op.getNumLoops());
  delinearizeInto(rewriter, loc, loop.getInductionVar(), loops.parallel,
                  sizes, ivs);
  if (!guarded.empty()) {
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

  SmallVector<OpOperand *> inits;
  for (OpOperand &init : op.getDpsInitsMutable())
    inits.push_back(&init);
  // An output's current value is read only when the body uses it (all
  // reductions do).
  SmallVector<Value> accs;
  for (auto [i, init] : llvm::enumerate(inits))
    accs.push_back(i < initialValues.size() && initialValues[i]
                       ? initialValues[i]
                   : !op.getMatchingBlockArgument(init).use_empty() ||
                           !loops.reduction.empty()
                       ? memref::LoadOp::create(
                             rewriter, loc, init->get(),
                             applyMap(rewriter, loc,
                                      op.getMatchingIndexingMap(init), ivs))
                             .getResult()
                       : Value());
  SmallVector<Value> results;
  if (loops.reduction.empty()) {
    results = emitBody(rewriter, loc, op, ivs, accs);
  } else {
    // Reduction loops, outermost first, carrying the outputs' values.
    SmallVector<scf::ForOp> nest;
    ValueRange carried = accs;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (unsigned d : loops.reduction) {
      auto inner = scf::ForOp::create(rewriter, loc, zero, loops.sizes[d], one,
                                      carried);
      ivs[d] = inner.getInductionVar();
      if (!nest.empty())
        scf::YieldOp::create(rewriter, loc, inner.getResults());
      rewriter.setInsertionPointToStart(inner.getBody());
      carried = inner.getRegionIterArgs();
      nest.push_back(inner);
    }
    scf::YieldOp::create(rewriter, loc,
                         emitBody(rewriter, loc, op, ivs, carried));
    rewriter.setInsertionPointAfter(nest.front());
    results = nest.front().getResults();
  }
  for (auto [init, value] : llvm::zip(inits, results))
    memref::StoreOp::create(
        rewriter, loc, value, init->get(),
        applyMap(rewriter, loc, op.getMatchingIndexingMap(init), ivs));
}

/// Per warp: warps take the parallel iterations in turn; a warp's lanes
/// fold strided shares of the reduction, shuffles combine them, and the
/// first lane combines the result with the output's value and stores it.
/// Per block (`scratch` given): the whole block takes each parallel
/// iteration, emitBlockReduce combines its warps, thread 0 stores, and a
/// barrier closes each iteration before `scratch` is reused.
static void emitPerWarpOrBlock(RewriterBase &rewriter, Location loc,
                               linalg::GenericOp op, const LoopStructure &loops,
                               ArrayRef<arith::AtomicRMWKind> kinds, Value tid,
                               int64_t threads, int64_t warpSize,
                               ArrayRef<Value> scratch,
                               ArrayRef<Value> initialValues) {
  bool wholeBlock = !scratch.empty();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value warpSizeValue = arith::ConstantIndexOp::create(rewriter, loc, warpSize);
  Value lane = arith::RemUIOp::create(rewriter, loc, tid, warpSizeValue);
  Value first = wholeBlock
                    ? zero
                    : arith::DivUIOp::create(rewriter, loc, tid, warpSizeValue)
                          .getResult();
  Value step = arith::ConstantIndexOp::create(
      rewriter, loc, wholeBlock ? 1 : threads / warpSize);
  Value outputs = product(rewriter, loc, loops.parallel, loops.sizes);
  // The trip count is the same for every lane of a warp (every thread of
  // the block): its shuffles converge.
  auto loop = scf::ForOp::create(rewriter, loc, first, outputs, step);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs(op.getNumLoops());
  delinearizeInto(rewriter, loc, loop.getInductionVar(), loops.parallel,
                  loops.sizes, ivs);
  SmallVector<Type> types = outputElementTypes(op);
  Value iterations = product(rewriter, loc, loops.reduction, loops.sizes);
  auto foldIteration = [&](OpBuilder &b, Location l, Value r,
                           ValueRange partials) {
    SmallVector<Value> at(ivs);
    delinearizeInto(b, l, r, loops.reduction, loops.sizes, at);
    return emitBody(b, l, op, at, partials);
  };
  if (wholeBlock) {
    SmallVector<Value> totals =
        emitBlockReduce(rewriter, loc, kinds, types, tid, threads, warpSize,
                        zero, iterations, scratch, foldIteration);
    emitCombineIntoOutputs(rewriter, loc, op, kinds, totals, ivs, tid,
                           initialValues);
    gpu::BarrierOp::create(rewriter, loc);
    return;
  }
  SmallVector<Value> totals = emitWarpReduce(
      rewriter, loc, kinds,
      emitStridedFold(rewriter, loc, kinds, types, lane, iterations,
                      warpSizeValue, foldIteration),
      warpSize);
  emitCombineIntoOutputs(rewriter, loc, op, kinds, totals, ivs, lane,
                         initialValues);
}

FailureOr<ThreadMapping> mlir::tessel::distributeOverThreads(
    RewriterBase &rewriter, linalg::LinalgOp linalgOp, Value tid,
    int64_t threads, int64_t warpSize, ArrayRef<Value> scratch,
    ArrayRef<Value> initialValues) {
  Location loc = linalgOp.getLoc();
  ThreadMapping mapping =
      chooseThreadMapping(linalgOp, threads, warpSize,
                          scratch.size() == linalgOp.getNumDpsInits());
  std::string why;
  std::optional<SmallVector<arith::AtomicRMWKind>> kinds =
      matchSplittableReduction(linalgOp, why);
  FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, linalgOp);
  if (failed(generic))
    return failure();
  linalg::GenericOp op = *generic;
  rewriter.setInsertionPoint(op);
  LoopStructure loops = loopStructure(rewriter, loc, op);
  if (mapping != ThreadMapping::PerThread)
    emitPerWarpOrBlock(rewriter, loc, op, loops, *kinds, tid, threads,
                       warpSize,
                       mapping == ThreadMapping::PerBlock ? scratch
                                                          : ArrayRef<Value>(),
                       initialValues);
  else
    emitPerThread(rewriter, loc, op, loops, tid, threads, initialValues);
  rewriter.eraseOp(op);
  return mapping;
}

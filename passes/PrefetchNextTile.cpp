//===- PrefetchNextTile.cpp - Software prefetch of the next tile's input --===//
//
// A fused tile of a row reduction (softmax, layernorm) reads its rows of the
// input from memory in its first loop nest and then computes on them from
// L2 (exponentials, centring, sums) in the nests after it: memory is busy
// in the first nest and idle in the others. Prefetching, during a later
// nest that re-reads the same input, the lines the next tile will read
// keeps memory busy while the core computes, and the next tile's first
// nest then hits L2.
//
// The prefetched addresses are the re-reading nest's own, with the parallel
// loop's induction variable advanced by one step: each iteration touches
// the lines the same iteration of the next tile will read. OpenMP's static
// schedule gives each thread a contiguous range of iterations, so the next
// tile is usually the thread's own next one; at the end of a range it
// belongs to the neighbour, which only costs a useless prefetch.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Tessel/TesselDialect.h"
#include "passes/Analysis/Divisibility.h"
#include "passes/Utils/AddressRemap.h"
#include "passes/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"

#define DEBUG_TYPE "tessel-prefetch-next-tile"

namespace mlir::tessel {
#define GEN_PASS_DEF_PREFETCHNEXTTILEPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// The op of the parallel loop's body that contains `op` (its loop nest).
Operation *nestOf(Operation *op, Block *body) {
  while (op && op->getBlock() != body)
    op = op->getParentOp();
  return op;
}

/// How much arithmetic a nest does per element it reads: vector arithmetic
/// ops (math, arith, fma) in its loops, a proxy for the time the core
/// spends without touching memory.
int64_t arithmeticOps(Operation *nest) {
  int64_t count = 0;
  nest->walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (!dialect || op->getNumResults() != 1 ||
        !isa<VectorType>(op->getResult(0).getType()))
      return;
    StringRef ns = dialect->getNamespace();
    if (ns == "arith" || ns == "math")
      ++count;
  });
  return count;
}

/// Whether `nest` writes a buffer defined outside `parallel` (an output):
/// such a nest keeps memory busy itself.
bool writesOutside(Operation *nest, scf::ParallelOp parallel) {
  return nest
      ->walk([&](Operation *op) {
        auto effects = dyn_cast<MemoryEffectOpInterface>(op);
        if (!effects)
          return WalkResult::advance();
        SmallVector<MemoryEffects::EffectInstance> instances;
        effects.getEffects(instances);
        for (auto &effect : instances) {
          if (!isa<MemoryEffects::Write>(effect.getEffect()))
            continue;
          Value written = effect.getValue();
          // A view made in the tile (the output's subview) writes what it
          // views.
          while (written) {
            auto view = written.getDefiningOp<ViewLikeOpInterface>();
            if (!view || view.getViewDest() != written)
              break;
            written = view.getViewSource();
          }
          if (!written ||
              !parallel.getRegion().isAncestor(written.getParentRegion()))
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// How remarks name `input`: "input #N (size)" or "a buffer (size)".
std::string describeInput(Value input, int64_t bytes) {
  auto arg = dyn_cast<BlockArgument>(input);
  return (arg ? "input #" + std::to_string(arg.getArgNumber()) : "a buffer") +
         " (" + formatBytes(bytes) + ")";
}

/// Maps `parallel`'s innermost induction variable to the next tile's: iv +
/// step, or iv itself on the last iteration (stays in bounds). The index
/// is computed at `b`'s insertion point.
IRMapping nextTileMapping(OpBuilder &b, Location loc,
                          scf::ParallelOp parallel) {
  unsigned dim = parallel.getNumLoops() - 1;
  Value iv = parallel.getInductionVars()[dim];
  Value next = arith::AddIOp::create(b, loc, iv, parallel.getStep()[dim]);
  Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         next, parallel.getUpperBound()[dim]);
  IRMapping mapping;
  mapping.map(iv, arith::SelectOp::create(b, loc, inBounds, next, iv));
  return mapping;
}

struct PrefetchNextTilePass
    : public tessel::impl::PrefetchNextTilePassBase<PrefetchNextTilePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = TargetAttr::lookup(func);
    if (!target || !target.isCPU())
      return;
    SmallVector<scf::ParallelOp> loops;
    func.walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops)
      prefetchInto(loop, target);
  }

  void prefetchInto(scf::ParallelOp parallel, TargetAttr target) {
    int64_t line = target.getCacheLine() > 0 ? target.getCacheLine() : 64;
    int64_t threshold = target.getL3();
    Block *body = parallel.getBody();

    // Inputs read in the tile: buffers from outside the loop, by nest.
    llvm::MapVector<Value, llvm::MapVector<Operation *,
                                           SmallVector<vector::TransferReadOp>>>
        readers;
    parallel.walk([&](vector::TransferReadOp read) {
      std::optional<BaseOffset> offset =
          offsetFromBase(read.getBase(), read.getIndices());
      if (!offset ||
          parallel.getRegion().isAncestor(offset->base.getParentRegion()))
        return;
      readers[offset->base][nestOf(read, body)].push_back(read);
    });

    for (auto &[input, nests] : readers) {
      std::optional<int64_t> size = staticSizeInBytes(input.getType());
      // An input the last-level cache holds is not read from memory.
      if (!size || threshold <= 0 || *size <= threshold)
        continue;
      int64_t bytes = *size;
      std::string what = describeInput(input, bytes);
      // Read by one nest only: that nest is the memory phase itself; the
      // next tile's lines are fetched during the nests that compute on
      // tile buffers instead.
      if (nests.size() < 2) {
        prefetchDuringComputeNests(parallel, input, what, nests, target, line);
        continue;
      }
      // The nest to prefetch in: one that re-reads the input (not the
      // first, which is what reads it from memory), writes no output, and
      // does the most arithmetic.
      Operation *chosen = nullptr;
      int64_t chosenOps = -1;
      for (auto &[nest, reads] : llvm::drop_begin(nests)) {
        if (writesOutside(nest, parallel))
          continue;
        int64_t ops = arithmeticOps(nest);
        if (ops > chosenOps) {
          chosen = nest;
          chosenOps = ops;
        }
      }
      if (!chosen) {
        // The re-reading nests store outputs (memory is busy there); the
        // nests that only compute on tile buffers may take the prefetch.
        prefetchDuringComputeNests(parallel, input, what, nests, target, line);
        continue;
      }
      int64_t tileBytes = 0;
      std::string why;
      SmallVector<vector::TransferReadOp> &reads = nests[chosen];
      for (vector::TransferReadOp read : reads) {
        why = whyNotPrefetchable(read, line);
        if (!why.empty())
          break;
        tileBytes += readBytesPerTile(read, parallel);
      }
      if (why.empty() && 2 * tileBytes > target.getL2() / 2)
        why = "two tiles of it (" + std::to_string(2 * tileBytes) +
              " B) would take more than half of L2";
      if (!why.empty()) {
        chosen->emitRemark() << "next tile of " << what
                             << " not prefetched: " << why;
        continue;
      }
      int64_t lines = 0;
      for (vector::TransferReadOp read : reads)
        lines += insertPrefetches(read, parallel, line);
      if (lines == 0)
        continue;
      chosen->emitRemark()
          << "prefetching the next tile of " << what.substr(0, what.size() - 1)
          << "; " << formatBytes(tileBytes) << " per tile) into L2 during this nest, which re-reads it "
             "with "
          << chosenOps
          << " vector arithmetic ops and no output stores: " << lines
          << " line prefetch(es) per iteration";
    }
  }

  /// The largest view of `input` made directly in `body` before `before`
  /// (the tile's footprint of it) and its size in bytes, bounded
  /// statically.
  static memref::SubViewOp tileViewOf(Value input, Block *body,
                                      Operation *before, int64_t &bytes) {
    memref::SubViewOp best;
    bytes = 0;
    for (auto view : body->getOps<memref::SubViewOp>()) {
      if (view.getSource() != input || !view->isBeforeInBlock(before))
        continue;
      int64_t elements = 1;
      for (OpFoldResult size : view.getMixedSizes()) {
        FailureOr<int64_t> bound =
            ValueBoundsConstraintSet::computeConstantBound(
                presburger::BoundType::UB,
                ValueBoundsConstraintSet::Variable(size),
                /*stopCondition=*/nullptr, /*closedUB=*/true);
        if (failed(bound)) {
          elements = 0;
          break;
        }
        elements *= *bound;
      }
      int64_t viewBytes =
          elements * view.getType().getElementTypeBitWidth() / 8;
      if (viewBytes > bytes) {
        bytes = viewBytes;
        best = view;
      }
    }
    return best;
  }

  /// The distance in bytes between consecutive rows of `type` (its
  /// second-innermost stride), or 0 when not static or of rank below 2.
  static int64_t rowStrideBytes(MemRefType type) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (type.getRank() < 2 || failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(strides[type.getRank() - 2]))
      return 0;
    return strides[type.getRank() - 2] * type.getElementTypeBitWidth() / 8;
  }

  /// Second strategy, for an input that only the first of `readingNests`
  /// (the nests of the tile that read it, in order) reads from memory: the
  /// nests after that one that neither read the input nor store outputs
  /// (they compute on tile buffers while memory idles) prefetch, to L2, the
  /// rows of the next tile's view of the input, spread evenly over their
  /// outer iterations.
  static void prefetchDuringComputeNests(
      scf::ParallelOp parallel, Value input, StringRef what,
      const llvm::MapVector<Operation *, SmallVector<vector::TransferReadOp>>
          &readingNests,
      TargetAttr target, int64_t line) {
    Block *body = parallel.getBody();
    Operation *memoryNest = readingNests.front().first;
    SmallVector<scf::ForOp> computeNests;
    for (Operation &op : *body) {
      auto nest = dyn_cast<scf::ForOp>(op);
      if (nest && memoryNest->isBeforeInBlock(nest) &&
          !readingNests.contains(nest) && !writesOutside(nest, parallel) &&
          arithmeticOps(nest) > 0)
        computeNests.push_back(nest);
    }
    // The tile's view of the input, made before the first nest that will
    // prefetch it, and depending on the tile (else the "next" tile's view
    // would be this one's).
    int64_t tileBytes = 0;
    memref::SubViewOp view;
    if (!computeNests.empty())
      view = tileViewOf(input, body, computeNests.front(), tileBytes);
    Value nextView;
    std::string why;
    if (computeNests.empty())
      why = "no nest after the one that reads it computes without reading "
            "it or storing an output";
    else if (!view)
      why = "the tile reads it through no view with bounded sizes";
    else if (!view.getType().isLastDimUnitStride())
      why = "its rows are not contiguous";
    else if (int64_t stride = rowStrideBytes(view.getType());
             stride > 0 && stride <= target.getStridePrefetch())
      // The first nest's reads walk the tile's rows at this stride; a
      // hardware prefetcher that follows it keeps that nest fed, and
      // fetching the next tile as well only crowds L2, which holds the
      // tile buffers (measured on Zen 5, Harris: 5.9 -> 5.1 ms without).
      why = "its rows are " + std::to_string(stride) +
            " B apart, a stride the target's hardware prefetcher follows "
            "(stride_prefetch " +
            std::to_string(target.getStridePrefetch()) + " B)";
    else if (2 * tileBytes > target.getL2() / 2)
      why = "two tiles of it (" + std::to_string(2 * tileBytes) +
            " B) would take more than half of L2";
    else if (!isRemappable(view.getResult(), parallel))
      why = "its view in the tile is not recomputable for the next tile";
    if (!why.empty()) {
      memoryNest->emitRemark()
          << "next tile of " << what << " not prefetched: " << why;
      return;
    }

    Location loc = view.getLoc();
    OpBuilder b(computeNests.front());
    IRMapping mapping = nextTileMapping(b, loc, parallel);
    nextView = *remapAddress(b, view.getResult(), mapping, parallel);
    if (nextView == view.getResult()) {
      // The view does not move with the innermost tile index, so the
      // next tile's is this one's (the index ops made above are dead and
      // fold away).
      memoryNest->emitRemark() << "next tile of " << what
                               << " not prefetched: its view in the tile does "
                                  "not depend on the innermost tile index";
      return;
    }
    int64_t rank = view.getType().getRank();
    SmallVector<Value> extents;
    for (int64_t d = 0; d < rank; ++d)
      extents.push_back(memref::DimOp::create(b, loc, nextView, d));
    Value rows = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value extent : ArrayRef<Value>(extents).drop_back())
      rows = arith::MulIOp::create(b, loc, rows, extent);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value nestCount =
        arith::ConstantIndexOp::create(b, loc, computeNests.size());
    int64_t elementsPerLine =
        line / (view.getType().getElementTypeBitWidth() / 8);
    Value lineStep = arith::ConstantIndexOp::create(b, loc, elementsPerLine);

    for (auto [n, nest] : llvm::enumerate(computeNests)) {
      // Share n of the rows, spread over the nest's outer iterations:
      // iteration r of `trips` takes rows [(n trips + r) R / (N trips),
      // (n trips + r + 1) R / (N trips)).
      b.setInsertionPointToStart(nest.getBody());
      Value span = arith::SubIOp::create(b, loc, nest.getUpperBound(),
                                         nest.getLowerBound());
      Value trips = arith::CeilDivUIOp::create(b, loc, span, nest.getStep());
      Value r = arith::DivUIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, nest.getInductionVar(),
                                nest.getLowerBound()),
          nest.getStep());
      Value slots = arith::MulIOp::create(b, loc, nestCount, trips);
      Value slot = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, arith::ConstantIndexOp::create(b, loc, n), trips),
          r);
      auto rowBound = [&](Value s) -> Value {
        return arith::DivUIOp::create(
            b, loc, arith::MulIOp::create(b, loc, s, rows), slots);
      };
      Value lo = rowBound(slot);
      Value hi = rowBound(arith::AddIOp::create(b, loc, slot, one));
      Value width = extents.back();
      Value lastColumn = arith::SubIOp::create(b, loc, width, one);
      scf::ForOp::create(
          b, loc, lo, hi, one, ValueRange{},
          [&](OpBuilder &rb, Location rloc, Value row, ValueRange) {
            SmallVector<Value> indices(rank, zero);
            Value rest = row;
            for (int64_t d = rank - 2; d >= 0; --d) {
              indices[d] = arith::RemUIOp::create(rb, rloc, rest, extents[d]);
              rest = arith::DivUIOp::create(rb, rloc, rest, extents[d]);
            }
            auto prefetchAt = [&](OpBuilder &pb, Location ploc, Value col) {
              SmallVector<Value> at(indices);
              at.back() = col;
              // Locality 2: to L2 (the tile is too large for L1).
              memref::PrefetchOp::create(
                  pb, ploc, nextView, at, pb.getBoolAttr(false),
                  pb.getI32IntegerAttr(2), pb.getBoolAttr(true));
            };
            scf::ForOp::create(
                rb, rloc, zero, width, lineStep, ValueRange{},
                [&](OpBuilder &cb, Location cloc, Value col, ValueRange) {
                  prefetchAt(cb, cloc, col);
                  scf::YieldOp::create(cb, cloc);
                });
            // The row's last line, when its start is not line-aligned.
            prefetchAt(rb, rloc, lastColumn);
            scf::YieldOp::create(rb, rloc);
          });
    }
    computeNests.front()->emitRemark()
        << "prefetching the next tile of " << what.substr(0, what.size() - 1)
        << "; " << formatBytes(tileBytes) << " per tile) into L2, its rows "
        << "spread over the outer iterations of " << computeNests.size()
        << " nest(s) that compute on tile buffers without reading it or "
           "storing an output";
  }

  /// Why `read`'s lines cannot be prefetched one prefetch per line.
  static std::string whyNotPrefetchable(vector::TransferReadOp read,
                                        int64_t line) {
    VectorType vectorType = read.getVectorType();
    if (vectorType.getRank() == 0)
      return "a read is of a single element (0-d vector)";
    if (read.getMask() || !read.getPermutationMap().isMinorIdentity())
      return "a read is masked or permuted";
    if (llvm::any_of(vectorType.getShape().drop_back(),
                     [](int64_t size) { return size != 1; }))
      return "a read spans more than one row";
    int64_t elementBytes = vectorType.getElementTypeBitWidth() / 8;
    int64_t bytes = vectorType.getShape().back() * elementBytes;
    if (elementBytes == 0 || bytes % line != 0)
      return "a read covers part of a cache line";
    auto memrefType = cast<MemRefType>(read.getBase().getType());
    if (!memrefType.isLastDimUnitStride())
      return "a read is not contiguous";
    std::optional<BaseOffset> offset =
        offsetFromBase(read.getBase(), read.getIndices());
    if (!offset || (offset->offsetDivisor < kDivisibleByAll &&
                    (offset->offsetDivisor * elementBytes) % line != 0))
      return "a read does not start at a multiple of the cache line";
    return "";
  }

  /// Bytes `read` touches in one iteration of `parallel`: its vector times
  /// the trip counts of the loops around it (static ones only).
  static int64_t readBytesPerTile(vector::TransferReadOp read,
                                  scf::ParallelOp parallel) {
    VectorType type = read.getVectorType();
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    for (Operation *op = read->getParentOp(); op && op != parallel;
         op = op->getParentOp())
      if (auto forOp = dyn_cast<scf::ForOp>(op))
        if (std::optional<APInt> trips = forOp.getStaticTripCount())
          bytes *= trips->getSExtValue();
    return bytes;
  }

  /// Prefetches, before `read`, the lines it will read in the next
  /// iteration of `parallel`'s innermost dimension; returns how many.
  static int64_t insertPrefetches(vector::TransferReadOp read,
                                  scf::ParallelOp parallel, int64_t line) {
    // Only pure, region-free ops may be recomputed for the next tile.
    if (!isRemappable(read.getBase(), parallel) ||
        !llvm::all_of(read.getIndices(), [&](Value index) {
          return isRemappable(index, parallel);
        }))
      return 0;
    OpBuilder b = OpBuilder::atBlockBegin(parallel.getBody());
    Location loc = read.getLoc();
    IRMapping mapping = nextTileMapping(b, loc, parallel);
    b.setInsertionPoint(read);
    Value memref = *remapAddress(b, read.getBase(), mapping, parallel);
    SmallVector<Value> indices;
    for (Value index : read.getIndices())
      indices.push_back(*remapAddress(b, index, mapping, parallel));
    VectorType type = read.getVectorType();
    int64_t elementsPerLine = line / (type.getElementTypeBitWidth() / 8);
    int64_t lines = type.getShape().back() / elementsPerLine;
    for (int64_t l = 0; l < lines; ++l) {
      SmallVector<Value> lineIndices(indices);
      if (l > 0)
        lineIndices.back() = arith::AddIOp::create(
            b, loc, indices.back(),
            arith::ConstantIndexOp::create(b, loc, l * elementsPerLine));
      // Locality 2: to L2 (the tile is too large for L1).
      memref::PrefetchOp::create(b, loc, memref, lineIndices,
                                 b.getBoolAttr(false), b.getI32IntegerAttr(2),
                                 b.getBoolAttr(true));
    }
    return lines;
  }
};
} // namespace

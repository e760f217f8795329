//===- PrefetchKernelRows.cpp - Prefetch strided rows a kernel streams ----===//
//
// The matmul kernel reads an operand in place when packing it would not pay
// (tessel-vectorize-matmul: B with few register tiles of M, the 7x7 layers
// of ResNet-50). Each k step then loads one nr-wide row of B, and
// consecutive rows lie a whole row of the matrix apart (2 KiB for 512
// columns): they map to a few L1 sets, so the register tiles that re-read a
// micro-panel find it in L2, and the hardware prefetcher does not follow
// 2-line streams at that stride. The k loop stalls after its B loads
// (perf: about a quarter of the samples there).
//
// This pass prefetches, in such a k loop, the rows `distance` k steps
// ahead: the read's address with the loop's induction variable advanced
// (clamped to the last iteration, so every address stays in bounds),
// recomputed by the utility tessel-prefetch-next-tile uses too
// (Utils/AddressRemap).
// Reads of contiguous rows (a packed micro-panel) are left to the hardware,
// and so are rows no farther apart than the target's `stride_prefetch`:
// where the hardware follows such streams itself (Zen 5), the prefetches
// only take load slots from the kernel (measured there: 6-24% slower).
//
//===----------------------------------------------------------------------===//
#include "dialects/Tessel/TesselDialect.h"
#include "passes/Passes.h"
#include "passes/Utils/AddressRemap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#define DEBUG_TYPE "tessel-prefetch-kernel-rows"

namespace mlir::tessel {
#define GEN_PASS_DEF_PREFETCHKERNELROWSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

namespace {

/// Whether the computation of `value` inside `loop` uses `iv`.
bool dependsOn(Value value, Value iv, Operation *loop) {
  if (value == iv)
    return true;
  Operation *def = value.getDefiningOp();
  if (!def || !loop->isProperAncestor(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value operand) {
    return dependsOn(operand, iv, loop);
  });
}

struct PrefetchKernelRowsPass
    : public tessel::impl::PrefetchKernelRowsPassBase<PrefetchKernelRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t rows = 0, loops = 0;
    rowsLeftToHardware = hardwareStride = 0;
    if (auto target = tessel::TargetAttr::lookup(getOperation()))
      hardwareStride = target.getStridePrefetch();
    getOperation().walk([&](scf::ForOp loop) {
      // A kernel's k loop: vector FMAs directly in its body.
      if (llvm::none_of(loop.getBody()->getOperations(), [](Operation &op) {
            return isa<vector::FMAOp>(op);
          }))
        return;
      int64_t prefetched = 0;
      for (Operation &op : llvm::make_early_inc_range(*loop.getBody()))
        if (auto read = dyn_cast<vector::TransferReadOp>(op))
          prefetched += prefetchAhead(read, loop);
      if (prefetched) {
        rows += prefetched;
        ++loops;
      }
    });
    if (rows)
      getOperation().emitRemark()
          << "prefetching " << rows << " strided row(s) "
          << static_cast<int64_t>(distance)
          << " k steps ahead in " << loops << " kernel loop(s)";
    if (rowsLeftToHardware)
      getOperation().emitRemark()
          << "not prefetching " << rowsLeftToHardware
          << " strided row(s) at most " << hardwareStride
          << " B apart: the target's hardware prefetcher follows them "
             "(stride_prefetch)";
  }

  /// The target's stride_prefetch (0: unknown).
  int64_t hardwareStride = 0;
  /// Rows a kernel loop streams that are left to the hardware prefetcher.
  int64_t rowsLeftToHardware = 0;

  /// Prefetches the rows `read` (a 2-D read of rows at least
  /// min-row-stride-bytes apart, through subviews indexed by the loop's
  /// induction variable) will read `distance` iterations later. Returns
  /// the number of rows.
  int64_t prefetchAhead(vector::TransferReadOp read, scf::ForOp loop) {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vector = read.getVectorType();
    if (!type || type.getRank() != 2 || vector.getRank() != 2 ||
        !read.getPermutationMap().isMinorIdentity() ||
        !llvm::all_of(read.getIndices(), [](Value index) {
          return getConstantIntValue(index) == 0;
        }))
      return 0;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(strides[0]) || strides[1] != 1)
      return 0;
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    if (strides[0] * elementBytes < minRowStrideBytes)
      return 0;
    // The rows must move with k (a stream), and their address be
    // recomputable for a later iteration.
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (!step || *step <= 0 || !tessel::isRemappable(read.getBase(), loop) ||
        !dependsOn(read.getBase(), loop.getInductionVar(), loop))
      return 0;

    if (strides[0] * elementBytes <= hardwareStride) {
      rowsLeftToHardware += vector.getShape()[0];
      return 0;
    }

    // ahead = min(iv + distance * step, last iteration's iv).
    OpBuilder b(read);
    Location loc = read.getLoc();
    Value iv = loop.getInductionVar();
    Value ahead = arith::AddIOp::create(
        b, loc, iv,
        arith::ConstantIndexOp::create(b, loc, distance * *step));
    Value last = arith::SubIOp::create(
        b, loc, loop.getUpperBound(),
        arith::ConstantIndexOp::create(b, loc, *step));
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          ahead, loop.getUpperBound());
    ahead = arith::SelectOp::create(b, loc, inRange, ahead,
                                    arith::MaxSIOp::create(b, loc, last, iv));
    IRMapping mapping;
    mapping.map(iv, ahead);
    // Cannot fail: the address is remappable.
    FailureOr<Value> aheadView =
        tessel::remapAddress(b, read.getBase(), mapping, loop);

    // One prefetch per cache line of each row (64-byte lines).
    int64_t lineElems = 64 / elementBytes;
    int64_t cols = vector.getShape()[1];
    for (int64_t r = 0; r < vector.getShape()[0]; ++r)
      for (int64_t c = 0; c < cols; c += lineElems)
        memref::PrefetchOp::create(
            b, loc, *aheadView,
            ValueRange{arith::ConstantIndexOp::create(b, loc, r),
                       arith::ConstantIndexOp::create(b, loc, c)},
            /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
    return vector.getShape()[0];
  }
};
} // namespace

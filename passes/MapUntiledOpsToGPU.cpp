//===- MapUntiledOpsToGPU.cpp - Untiled linalg ops as grid-wide kernels ---===//
//
// Ops that tessel-fuse-producers leaves untiled (too little work to tile, a
// contraction's epilogue the contraction's kernel did not take) and every
// op on the AMD pipeline, which does not tile, reached the
// GPU through upstream's parallel-loop mapping: tiles of 16 x 16 over the
// first two loops, the first loop on threadIdx.x. Upstream is too weak here
// in three ways: a warp's 32 threads walk the outermost dimension, so each
// touches its own row (uncoalesced); a 1-D op gets 16-thread blocks; and
// loops past the second run sequentially inside each thread (an NCHW
// elementwise op looped over whole images per thread).
//
// This pass makes each such op one kernel whose threads share all of its
// parallel iterations as one linear index space, consecutive threads on
// consecutive iterations of the innermost loop (Utils/GPUThreadLoops, as a
// tile kernel's block does, over the whole grid instead), a thread taking
// adjacent columns as one 16-byte access where they start aligned, and a
// grid-stride loop past one resident wave of blocks.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Utils/GPUThreadLoops.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tessel-map-untiled-ops-to-gpu"

namespace mlir::tessel {
#define GEN_PASS_DEF_MAPUNTILEDOPSTOGPUPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Threads per block: eight warps (four AMD wavefronts) hide the loads'
/// latency while several blocks share a multiprocessor.
static constexpr int64_t kDefaultThreads = 256;
/// Threads one multiprocessor holds at once (NVIDIA sm_80 and sm_90; the
/// target description does not carry it).
static constexpr int64_t kMaxThreadsPerSM = 2048;
/// The grid when the target does not give its multiprocessors.
static constexpr int64_t kFallbackBlocks = 65535;
/// Most columns per thread the option may force: a 16-byte vector of i8.
static constexpr int64_t kMaxColumnsPerThreadOverride = 16;

namespace {
/// How one untiled op runs: a grid of at most `maxBlocks` blocks of
/// `threads`, the threads strided over the op's work by
/// maxBlocks × threads.
struct GridPlan {
  int64_t threads = kDefaultThreads;
  int64_t maxBlocks = 1;
  ThreadMapping mapping = ThreadMapping::PerThread;
  int64_t columnsPerThread = 1;
  /// Whether a warp may share a reduction (see lanesReadContiguously).
  bool splitReductions = true;
};
} // namespace

/// Whether the lanes of a warp that share `op`'s reduction (consecutive
/// lanes on consecutive iterations of its innermost reduction loop) read
/// consecutive addresses of every input the reduction streams from global
/// memory. chooseThreadMapping charges latency only; it does not see that
/// a matmul's B or a column sum read this way costs a memory transaction
/// per lane, where per thread consecutive threads take consecutive columns
/// and read them as one. An input indexed by the reduction alone (a
/// stencil's taps) is the same for every output and stays in cache.
static bool lanesReadContiguously(linalg::LinalgOp op) {
  SmallVector<unsigned> reductionDims, parallelDims;
  op.getReductionDims(reductionDims);
  op.getParallelDims(parallelDims);
  if (reductionDims.empty())
    return true;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto uses = [&](unsigned d) { return map.isFunctionOfDim(d); };
    if (!llvm::any_of(reductionDims, uses) || !llvm::any_of(parallelDims, uses))
      continue;
    auto innermost = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!innermost || innermost.getPosition() != reductionDims.back())
      return false;
  }
  return true;
}

static GridPlan planGrid(linalg::LinalgOp op, TargetAttr target,
                         int64_t threads, int64_t columnsOverride) {
  GridPlan plan;
  int64_t warp = std::max<int64_t>(target.getWarpSize(), 1);
  plan.threads = threads;
  // One resident wave: more blocks would only queue, and the grid-stride
  // loop gives the threads of one wave the rest.
  plan.maxBlocks = target.getSmCount() > 0
                       ? target.getSmCount() *
                             std::max<int64_t>(kMaxThreadsPerSM / threads, 1)
                       : kFallbackBlocks;
  int64_t stride = plan.maxBlocks * threads;
  // The mapping distributeOverThreads takes for this stride (no scratch:
  // blocks do not combine).
  plan.splitReductions = lanesReadContiguously(op);
  plan.mapping =
      plan.splitReductions
          ? chooseThreadMapping(op, stride, warp, target.getMemoryLatency(),
                                /*perBlockAllowed=*/false)
          : ThreadMapping::PerThread;
  if (plan.mapping != ThreadMapping::PerThread)
    return plan;
  // Adjacent columns per thread where every block of one per
  // multiprocessor still gets a column group: fewer threads with wider
  // accesses move the same bytes.
  plan.columnsPerThread =
      columnsOverride > 0
          ? columnsOverride
          : chooseColumnsPerThread(
                op, threads * std::max<int64_t>(target.getSmCount(), 1), warp,
                target.getMemoryLatency());
  return plan;
}

/// The threads `plan` needs for `op`: per thread, one per column group of
/// each row; per warp, a warp per output (more are idle).
static Value neededThreads(OpBuilder &b, Location loc, linalg::LinalgOp op,
                           const GridPlan &plan, int64_t warp) {
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  SmallVector<Range> ranges = op.createLoopRanges(b, loc);
  Value needed = arith::ConstantIndexOp::create(b, loc, 1);
  for (unsigned d : parallel) {
    Value size = getValueOrCreateConstantIndexOp(b, loc, ranges[d].size);
    if (d == parallel.back() && plan.columnsPerThread > 1)
      size = b.createOrFold<arith::CeilDivUIOp>(
          loc, size,
          arith::ConstantIndexOp::create(b, loc, plan.columnsPerThread));
    needed = b.createOrFold<arith::MulIOp>(loc, needed, size);
  }
  if (plan.mapping == ThreadMapping::PerWarp)
    needed = b.createOrFold<arith::MulIOp>(
        loc, needed, arith::ConstantIndexOp::create(b, loc, warp));
  return needed;
}

static LogicalResult mapToKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                                 TargetAttr target, int64_t threads,
                                 int64_t columnsOverride) {
  int64_t warp = std::max<int64_t>(target.getWarpSize(), 1);
  GridPlan plan = planGrid(op, target, threads, columnsOverride);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value needed = neededThreads(rewriter, loc, op, plan, warp);
  // Blocks: as many as the work needs, at most one wave. The stride stays
  // the wave's threads: a grid smaller than that already covers the work
  // in one pass of the loop.
  Value blockThreads = arith::ConstantIndexOp::create(rewriter, loc, threads);
  Value blocks = rewriter.createOrFold<arith::MinUIOp>(
      loc, rewriter.createOrFold<arith::CeilDivUIOp>(loc, needed, blockThreads),
      arith::ConstantIndexOp::create(rewriter, loc, plan.maxBlocks));
  std::optional<int64_t> staticBlocks = getConstantIntValue(blocks);
  if (staticBlocks && *staticBlocks == 0) {
    // Nothing to compute (a zero extent).
    rewriter.eraseOp(op);
    return success();
  }
  OpBuilder::InsertionGuard guard(rewriter);
  Operation *kernel = nullptr; // the launch, or the scf.if around it
  if (!staticBlocks) {
    // An empty grid is an invalid launch: no kernel for empty shapes.
    Value any =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, blocks,
                              arith::ConstantIndexOp::create(rewriter, loc, 0));
    auto ifAny = scf::IfOp::create(rewriter, loc, any, /*withElse=*/false);
    kernel = ifAny;
    rewriter.setInsertionPointToStart(ifAny.thenBlock());
  }
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, blocks, one, one,
                                      blockThreads, one, one);
  if (!kernel)
    kernel = launch;
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Value tid = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, launch.getBlockIds().x,
                            blockThreads),
      launch.getThreadIds().x);
  auto clone = cast<linalg::LinalgOp>(rewriter.clone(*op));
  FailureOr<ThreadMapping> mapping = distributeOverThreads(
      rewriter, clone, tid, plan.maxBlocks * threads, warp, /*scratch=*/{},
      /*initialValues=*/{}, /*rowsPerThread=*/1, target.getMemoryLatency(),
      plan.columnsPerThread, plan.splitReductions);
  if (failed(mapping)) {
    // distributeOverThreads left the clone as it was: drop the kernel, and
    // the parallel-loop mapping after this pass takes the op.
    rewriter.eraseOp(kernel);
    op->emitRemark() << "not mapped to a grid-wide GPU kernel: it cannot be "
                        "generalized";
    return success();
  }
  // neededThreads sized the grid for the mapping planGrid predicted.
  if (*mapping != plan.mapping)
    return op->emitError("the thread mapping changed while distributing "
                         "this op over the grid");
  // As in tile kernels: LLVM joins a thread's adjacent accesses into one
  // vector access only where it knows their alignment.
  annotateAccessAlignment(launch);
  InFlightDiagnostic remark = op->emitRemark();
  remark << "mapped to one GPU kernel over all of its parallel iterations: "
         << threads << " threads per block, ";
  if (staticBlocks)
    remark << *staticBlocks << " block(s)";
  else
    remark << "up to " << plan.maxBlocks << " blocks (sized at run time)";
  if (plan.mapping == ThreadMapping::PerWarp)
    remark << ", reduced per warp by shuffles";
  else
    remark << ", columns per thread " << plan.columnsPerThread;
  remark.report();
  rewriter.eraseOp(op);
  return success();
}

/// Why `op` is not this pass's to map, or empty.
static std::string unsupportedReason(linalg::LinalgOp op) {
  if (op.getNumParallelLoops() == 0)
    return "it has no parallel loops";
  for (Value operand : op->getOperands())
    if (auto type = dyn_cast<MemRefType>(operand.getType());
        type && type.getMemorySpace())
      return "an operand is not in global memory";
  return "";
}

namespace {
struct MapUntiledOpsToGPUPass
    : public tessel::impl::MapUntiledOpsToGPUPassBase<MapUntiledOpsToGPUPass> {
  using MapUntiledOpsToGPUPassBase::MapUntiledOpsToGPUPassBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = TargetAttr::lookup(func);
    if (!target ||
        (target.getKind() != "nvgpu" && target.getKind() != "amdgpu"))
      return;
    int64_t warp = std::max<int64_t>(target.getWarpSize(), 1);
    int64_t threads = threadsOverride > 0 ? threadsOverride : kDefaultThreads;
    if (threads % warp != 0 || threads > 1024) {
      func.emitError() << "threads=" << threads << " must be a multiple of "
                       << "the warp size " << warp << " and at most 1024";
      return signalPassFailure();
    }
    if (columnsPerThreadOverride < 0 ||
        columnsPerThreadOverride > kMaxColumnsPerThreadOverride) {
      func.emitError() << "columns-per-thread="
                       << static_cast<int64_t>(columnsPerThreadOverride)
                       << " must be between 0 and "
                       << kMaxColumnsPerThreadOverride;
      return signalPassFailure();
    }
    // Ops in kernels or tile loops are mapped with those; the rest (on the
    // host, also inside its scf.for loops) become kernels here.
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (!op.hasPureBufferSemantics() ||
          op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<scf::ForallOp>() ||
          op->getParentOfType<scf::ParallelOp>())
        return;
      std::string why = unsupportedReason(op);
      if (!why.empty()) {
        op->emitRemark() << "not mapped to a grid-wide GPU kernel: " << why;
        return;
      }
      ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      if (failed(mapToKernel(rewriter, op, target, threads,
                             columnsPerThreadOverride)))
        return signalPassFailure();
  }
};
} // namespace

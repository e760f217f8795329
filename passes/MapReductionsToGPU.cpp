//===- MapReductionsToGPU.cpp - Ops without parallel loops as GPU kernels -===//
//
// convert-linalg-to-parallel-loops gives a linalg op without parallel loops
// (a sum of all elements, a fill of a 0-d buffer) no scf.parallel, so
// nothing maps it to the GPU and it would run on the host, reading memory
// that may be device-only. This pass makes each such op a kernel:
//
//   - a reduction whose outputs combine by one associative op (add, mul,
//     min, max, and, or, xor) on i1 to i64, f16, bf16, f32 or f64 is
//     split over threads:
//     each thread folds a strided share, warps combine by shuffles and the
//     block through shared memory (Utils/GPUThreadLoops). Past one block's
//     worth of iterations it runs in two kernels: blocks reduce chunks into
//     partial results in a device buffer, one block combines them with the
//     outputs' values;
//   - anything else runs in one thread (with a remark when it reduces).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Utils/GPUThreadLoops.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tessel-map-reductions-to-gpu"

namespace mlir::tessel {
#define GEN_PASS_DEF_MAPREDUCTIONSTOGPUPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Threads per block: enough warps to keep an SM's loads in flight with a
/// few blocks resident.
static constexpr int64_t kMaxThreads = 256;
/// Iterations each thread folds before a second block pays off.
static constexpr int64_t kIterationsPerThread = 16;
/// First-stage blocks per SM at most: with 256 threads, 8 fill an sm_80 or
/// sm_90 SM (2048 threads); more would only lengthen the second stage.
static constexpr int64_t kBlocksPerSM = 8;

namespace {
/// How an op without parallel loops runs.
struct ReductionPlan {
  bool split = false;   // over threads (else one thread runs it all)
  int64_t threads = 1;  // per block
  int64_t blocks = 1;   // in the first stage (1: a single stage)
  SmallVector<arith::AtomicRMWKind> kinds;
  std::string why;      // why not split, for the remark
};
} // namespace

static ReductionPlan planReduction(linalg::LinalgOp op, TargetAttr target,
                                   int64_t maxThreads, int64_t warp) {
  ReductionPlan plan;
  if (op.getNumReductionLoops() == 0)
    return plan;
  std::optional<SmallVector<arith::AtomicRMWKind>> kinds =
      matchSplittableReduction(op, plan.why);
  if (!kinds)
    return plan;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!llvm::all_of(op.getMatchingIndexingMap(&init).getResults(),
                      [](AffineExpr e) { return isa<AffineConstantExpr>(e); })) {
      plan.why = "an output is indexed by a loop";
      return plan;
    }
  int64_t iterations = reductionIterationBound(op);
  plan.split = true;
  plan.kinds = std::move(*kinds);
  plan.threads = iterations
                     ? std::clamp<int64_t>(llvm::alignTo(iterations, warp),
                                           warp, maxThreads)
                     : maxThreads;
  int64_t perBlock = plan.threads * kIterationsPerThread;
  int64_t most = std::max<int64_t>(1, target.getSmCount()) * kBlocksPerSM;
  plan.blocks = iterations ? std::clamp<int64_t>(
                                 llvm::divideCeil(iterations, perBlock), 1, most)
                           : most;
  return plan;
}

/// A launch of `blocks` x `threads` with `sharedBytes` of dynamic shared
/// memory; the builder is left at the start of its body.
static gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t blocks,
                                  int64_t threads, int64_t sharedBytes) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value smem = sharedBytes ? arith::ConstantIntOp::create(
                                 b, loc, b.getI32Type(), sharedBytes)
                                 .getResult()
                           : Value();
  auto launch = gpu::LaunchOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, blocks), one, one,
      arith::ConstantIndexOp::create(b, loc, threads), one, one, smem);
  b.setInsertionPointToStart(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  return launch;
}

/// Where each output's slots start in shared memory (each aligned to its
/// element), and in the last element the bytes they take together.
static SmallVector<int64_t> scratchOffsets(TypeRange types, int64_t warps) {
  SmallVector<int64_t> offsets;
  int64_t end = 0;
  for (Type type : types) {
    int64_t bytes = reductionSlotBytes(type);
    end = llvm::alignTo(end, bytes);
    offsets.push_back(end);
    end += warps * bytes;
  }
  offsets.push_back(end);
  return offsets;
}

/// Per output, a shared memref of one element per warp.
static SmallVector<Value> scratchBuffers(OpBuilder &b, Location loc,
                                         TypeRange types, int64_t warps) {
  SmallVector<Value> buffers;
  if (warps <= 1)
    return buffers;
  MLIRContext *ctx = b.getContext();
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value shared = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      space));
  for (auto [type, offset] : llvm::zip(types, scratchOffsets(types, warps)))
    buffers.push_back(memref::ViewOp::create(
        b, loc, MemRefType::get({warps}, type, AffineMap(), space), shared,
        arith::ConstantIndexOp::create(b, loc, offset), ValueRange()));
  return buffers;
}

/// The split reduction: one or two kernels.
static void emitSplitReduction(RewriterBase &rewriter, linalg::GenericOp op,
                               const ReductionPlan &plan, int64_t warp) {
  Location loc = op.getLoc();
  SmallVector<Type> types = outputElementTypes(op);
  int64_t warps = plan.threads / warp;
  int64_t scratchBytes = warps > 1 ? scratchOffsets(types, warps).back() : 0;
  SmallVector<Value> sizes;
  for (Range range :
       cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  Value iterations = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (Value size : sizes)
    iterations = arith::MulIOp::create(rewriter, loc, iterations, size);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // Outputs have constant indices (no parallel loops): any loop indices do.
  SmallVector<Value> ivs(op.getNumLoops(), zero);
  auto bodyStep = [&](OpBuilder &b, Location l, Value r, ValueRange partials) {
    return emitReductionBody(b, l, op, sizes, r, partials);
  };
  // A kernel of `blocks` blocks, each folding [begin(block), end(block)) by
  // `step`; `finish` gets thread and block index and the block's totals.
  auto emitKernel =
      [&](int64_t blocks, function_ref<Value(Value)> begin,
          function_ref<Value(Value, Value)> end, ReductionStep step,
          function_ref<void(Value, Value, ValueRange)> finish) {
        OpBuilder::InsertionGuard guard(rewriter);
        gpu::LaunchOp launch =
            createLaunch(rewriter, loc, blocks, plan.threads, scratchBytes);
        Value tid = launch.getThreadIds().x;
        Value block = launch.getBlockIds().x;
        SmallVector<Value> scratch =
            scratchBuffers(rewriter, loc, types, warps);
        Value first = begin(block);
        SmallVector<Value> totals =
            emitBlockReduce(rewriter, loc, plan.kinds, types, tid,
                            plan.threads, warp, first, end(block, first),
                            scratch, step);
        finish(tid, block, totals);
      };
  auto fromZero = [&](Value) { return zero; };
  auto intoOutputs = [&](Value tid, Value, ValueRange totals) {
    emitCombineIntoOutputs(rewriter, loc, op, plan.kinds, totals, ivs, tid);
  };

  if (plan.blocks == 1) {
    emitKernel(1, fromZero, [&](Value, Value) { return iterations; },
               bodyStep, intoOutputs);
    return;
  }

  // Stage 1: block b folds iterations [b * chunk, min((b + 1) * chunk, R))
  // into partials[b], one buffer per output.
  SmallVector<Value> partials;
  for (Type type : types)
    partials.push_back(memref::AllocOp::create(
        rewriter, loc, MemRefType::get({plan.blocks}, type)));
  Value blocks = arith::ConstantIndexOp::create(rewriter, loc, plan.blocks);
  Value chunk = arith::CeilDivUIOp::create(rewriter, loc, iterations, blocks);
  emitKernel(
      plan.blocks,
      [&](Value block) {
        return arith::MulIOp::create(rewriter, loc, block, chunk).getResult();
      },
      [&](Value, Value begin) {
        return arith::MinUIOp::create(
                   rewriter, loc,
                   arith::AddIOp::create(rewriter, loc, begin, chunk),
                   iterations)
            .getResult();
      },
      bodyStep,
      [&](Value tid, Value block, ValueRange totals) {
        Value first = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, tid, zero);
        auto store =
            scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(store.thenBlock());
        for (auto [total, buffer] : llvm::zip(totals, partials))
          memref::StoreOp::create(rewriter, loc, total, buffer, block);
      });
  // Stage 2: one block combines the partials with the outputs' values.
  emitKernel(
      1, fromZero, [&](Value, Value) { return blocks; },
      [&](OpBuilder &b, Location l, Value r, ValueRange folded) {
        SmallVector<Value> next;
        for (auto [kind, value, buffer] :
             llvm::zip(plan.kinds, folded, partials))
          next.push_back(arith::getReductionOp(
              kind, b, l, value, memref::LoadOp::create(b, l, buffer, r)));
        return next;
      },
      intoOutputs);
  for (Value buffer : partials)
    memref::DeallocOp::create(rewriter, loc, buffer);
}

/// Maps `linalgOp` (buffer semantics, no parallel loops) to kernels.
static LogicalResult mapToKernels(RewriterBase &rewriter,
                                  linalg::LinalgOp linalgOp,
                                  TargetAttr target) {
  Location loc = linalgOp.getLoc();
  GPUBlockLimits limits =
      gpuBlockLimits(target.getWarpSize(), target.getMaxThreadsPerBlock());
  int64_t warp = limits.warpSize;
  int64_t maxThreads = llvm::alignDown(
      std::min<int64_t>(kMaxThreads, limits.maxThreadsPerBlock), warp);
  if (maxThreads < warp)
    return linalgOp.emitError("cannot map this op to a GPU kernel: the "
                              "target's blocks hold less than a warp");
  ReductionPlan plan = planReduction(linalgOp, target, maxThreads, warp);
  FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, linalgOp);
  if (failed(generic))
    return linalgOp.emitError("cannot map this op to a GPU kernel: it "
                              "cannot be written as a linalg.generic");
  linalg::GenericOp op = *generic;
  rewriter.setInsertionPoint(op);
  if (plan.split) {
    emitSplitReduction(rewriter, op, plan, warp);
    op->emitRemark() << "reduction of " << reductionIterationBound(op)
                     << " iterations mapped to the GPU: "
                     << (plan.blocks > 1
                             ? std::to_string(plan.blocks) +
                                   " blocks fold chunks into partial "
                                   "results, then one block combines them, "
                             : std::string("one block, "))
                     << plan.threads << " threads per block, warps combined "
                                        "by shuffles";
  } else {
    if (op.getNumReductionLoops() > 0)
      op->emitRemark() << "reduction run by one GPU thread: " << plan.why;
    OpBuilder::InsertionGuard guard(rewriter);
    gpu::LaunchOp launch = createLaunch(rewriter, loc, 1, 1, 0);
    if (failed(distributeOverThreads(
            rewriter, cast<linalg::LinalgOp>(rewriter.clone(*op)),
            launch.getThreadIds().x, /*threads=*/1, warp)))
      return op.emitError("cannot map this op to a GPU kernel");
  }
  rewriter.eraseOp(op);
  return success();
}

namespace {
struct MapReductionsToGPUPass
    : public tessel::impl::MapReductionsToGPUPassBase<MapReductionsToGPUPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = TargetAttr::lookup(func);
    if (!target || (target.getKind() != "nvgpu" && target.getKind() != "amdgpu"))
      return;
    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (op.getNumParallelLoops() == 0 && op.hasPureBufferSemantics() &&
          !op->getParentOfType<gpu::LaunchOp>())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      if (failed(mapToKernels(rewriter, op, target)))
        return signalPassFailure();
  }
};
} // namespace

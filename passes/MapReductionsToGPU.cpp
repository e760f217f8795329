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
#include "mlir/Dialect/SCF/IR/SCF.h"
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
/// How an op without parallel loops, or with few outputs over long
/// reductions, runs.
struct ReductionPlan {
  bool split = false;   // over threads (else one thread runs it all)
  int64_t threads = 1;  // per block
  int64_t outputs = 1;  // parallel iterations: each has its own blocks
  int64_t blocks = 1;   // per output in the first stage (1: a single stage)
  ReductionCombiner combiner;
  std::string why;      // why not split, for the remark
};
} // namespace

static ReductionPlan planReduction(linalg::LinalgOp op, TargetAttr target,
                                   int64_t maxThreads, int64_t warp) {
  ReductionPlan plan;
  if (op.getNumReductionLoops() == 0)
    return plan;
  std::optional<ReductionCombiner> combiner =
      matchSplittableReduction(op, plan.why);
  if (!combiner)
    return plan;
  if (!ownsOutputsPerParallelIteration(op)) {
    plan.why = "an output is indexed by a reduction loop";
    return plan;
  }
  int64_t iterations = reductionIterationBound(op);
  plan.split = true;
  plan.combiner = std::move(*combiner);
  plan.outputs = std::max<int64_t>(1, parallelIterationBound(op));
  plan.threads = iterations
                     ? std::clamp<int64_t>(llvm::alignTo(iterations, warp),
                                           warp, maxThreads)
                     : maxThreads;
  int64_t perBlock = plan.threads * kIterationsPerThread;
  // The first stage's blocks, shared among the outputs.
  int64_t most =
      std::max<int64_t>(1, std::max<int64_t>(1, target.getSmCount()) *
                               kBlocksPerSM / plan.outputs);
  plan.blocks = iterations ? std::clamp<int64_t>(
                                 llvm::divideCeil(iterations, perBlock), 1, most)
                           : most;
  return plan;
}

/// A launch of `blocks` x `outputs` blocks of `threads` threads with
/// `sharedBytes` of dynamic shared memory; the builder is left at the start
/// of its body.
static gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t blocks,
                                  int64_t threads, int64_t sharedBytes,
                                  int64_t outputs = 1) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value smem = sharedBytes ? arith::ConstantIntOp::create(
                                 b, loc, b.getI32Type(), sharedBytes)
                                 .getResult()
                           : Value();
  auto launch = gpu::LaunchOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, blocks),
      arith::ConstantIndexOp::create(b, loc, outputs), one,
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

/// The split reduction: one or two kernels, each with a row of blocks per
/// output (blockIdx.y: the output's linearized parallel iteration).
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
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  Value iterations = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (unsigned d : reductionDims)
    iterations = arith::MulIOp::create(rewriter, loc, iterations, sizes[d]);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  /// What a block folds, for the output at loop indices `ivs` (linearized:
  /// `output`): iteration `r` into `folded`.
  using Step = function_ref<SmallVector<Value>(
      OpBuilder &, Location, ArrayRef<Value> ivs, Value output, Value r,
      ValueRange folded)>;
  auto bodyStep = [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, Value,
                      Value r, ValueRange partials) {
    return emitReductionBody(b, l, op, sizes, r, partials, ivs);
  };
  // A kernel of `blocks` blocks per output, block (x, y) folding
  // [begin(x), end(x)) of output y by `step`; `finish` gets the thread
  // index, x, the output's loop indices and y, and the block's totals.
  auto emitKernel =
      [&](int64_t blocks, function_ref<Value(Value)> begin,
          function_ref<Value(Value, Value)> end, Step step,
          function_ref<void(Value, Value, ArrayRef<Value>, Value, ValueRange)>
              finish) {
        OpBuilder::InsertionGuard guard(rewriter);
        gpu::LaunchOp launch = createLaunch(rewriter, loc, blocks, plan.threads,
                                            scratchBytes, plan.outputs);
        Value tid = launch.getThreadIds().x;
        Value block = launch.getBlockIds().x;
        Value output = launch.getBlockIds().y;
        SmallVector<Value> ivs =
            parallelLoopIndices(rewriter, loc, op, sizes, output);
        SmallVector<Value> scratch =
            scratchBuffers(rewriter, loc, types, warps);
        Value first = begin(block);
        SmallVector<Value> totals = emitBlockReduce(
            rewriter, loc, plan.combiner, types, tid, plan.threads, warp, first,
            end(block, first), scratch,
            [&](OpBuilder &b, Location l, Value r, ValueRange folded) {
              return step(b, l, ivs, output, r, folded);
            });
        finish(tid, block, ivs, output, totals);
      };
  auto fromZero = [&](Value) { return zero; };
  auto intoOutputs = [&](Value tid, Value, ArrayRef<Value> ivs, Value,
                         ValueRange totals) {
    emitCombineIntoOutputs(rewriter, loc, op, plan.combiner, totals, ivs, tid);
  };

  if (plan.blocks == 1) {
    emitKernel(1, fromZero, [&](Value, Value) { return iterations; },
               bodyStep, intoOutputs);
    return;
  }

  // Stage 1: block (x, y) folds iterations [x * chunk, min((x + 1) * chunk,
  // R)) of output y into partials[y * blocks + x], one buffer per result.
  SmallVector<Value> partials;
  for (Type type : types)
    partials.push_back(memref::AllocOp::create(
        rewriter, loc, MemRefType::get({plan.outputs * plan.blocks}, type)));
  Value blocks = arith::ConstantIndexOp::create(rewriter, loc, plan.blocks);
  Value chunk = arith::CeilDivUIOp::create(rewriter, loc, iterations, blocks);
  auto partialIndex = [&](OpBuilder &b, Location l, Value output, Value x) {
    return arith::AddIOp::create(b, l,
                                 arith::MulIOp::create(b, l, output, blocks), x)
        .getResult();
  };
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
      [&](Value tid, Value block, ArrayRef<Value>, Value output,
          ValueRange totals) {
        Value first = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, tid, zero);
        auto store =
            scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(store.thenBlock());
        Value slot = partialIndex(rewriter, loc, output, block);
        for (auto [total, buffer] : llvm::zip(totals, partials))
          memref::StoreOp::create(rewriter, loc, total, buffer, slot);
      });
  // Stage 2: a block per output combines its partials with the output's
  // value.
  emitKernel(
      1, fromZero, [&](Value, Value) { return blocks; },
      [&](OpBuilder &b, Location l, ArrayRef<Value>, Value output, Value r,
          ValueRange folded) {
        Value slot = partialIndex(b, l, output, r);
        SmallVector<Value> loaded;
        for (Value buffer : partials)
          loaded.push_back(memref::LoadOp::create(b, l, buffer, slot));
        return plan.combiner.combine(b, l, folded, loaded);
      },
      intoOutputs);
  for (Value buffer : partials)
    memref::DeallocOp::create(rewriter, loc, buffer);
}

/// Maps `linalgOp` (buffer semantics, no parallel loops or few outputs over
/// long reductions) to kernels.
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
    InFlightDiagnostic remark = op->emitRemark();
    remark << "reduction of " << reductionIterationBound(op) << " iterations";
    if (op.getNumParallelLoops() > 0)
      remark << " for each of " << plan.outputs << " parallel iterations";
    std::string each =
        op.getNumParallelLoops() > 0 ? " per parallel iteration" : "";
    remark << " mapped to the GPU: "
           << (plan.blocks > 1
                   ? std::to_string(plan.blocks) + " blocks" + each +
                         " fold chunks into partial results, then one "
                         "block" +
                         each + " combines them, "
                   : "one block" + each + ", ")
           << plan.threads << " threads per block, warps combined by shuffles";
    remark.report();
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
      if (!op.hasPureBufferSemantics() ||
          op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<scf::ForallOp>())
        return;
      if (op.getNumParallelLoops() == 0 ||
          prefersSplitOverBlocks(op, target.getSmCount()))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      if (failed(mapToKernels(rewriter, op, target)))
        return signalPassFailure();
  }
};
} // namespace

//===- MapTilesToGPU.cpp - Fused tile loops as one GPU kernel -------------===//
//
// tessel-fuse-producers leaves each fused group as an scf.forall over its
// tiles, each tile computing its producers' slices (halos included) into
// tile buffers and then its root; bufferized, the body is subviews, static
// tile buffers, and linalg ops one after the other. This pass makes each
// such loop one gpu.launch: a block per tile, the tile buffers in shared
// memory, each linalg op shared by the block's threads
// (Utils/GPUThreadLoops), a barrier between ops.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel/KernelRegisterLimit.h"
#include "passes/Passes.h"
#include "passes/Utils/GPUThreadLoops.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tessel-map-tiles-to-gpu"

namespace mlir::tessel {
#define GEN_PASS_DEF_MAPTILESTOGPUPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Threads per block: a quarter of the largest op's iterations per tile,
/// in whole warps, between one warp and kMaxThreads. Eight warps hide the
/// latency of the global loads while several blocks share an SM. Larger
/// blocks failed to launch on an H100 (softmax: 141 registers at 1024
/// threads, docs/benchmarks.md) until tessel-attach-gpu-target gave each
/// kernel the register limit of its block size; with that limit they have
/// not been timed yet, so the cap stays here.
static constexpr int64_t kMaxThreads = 256;
/// Threads one multiprocessor holds at once (NVIDIA sm_80 and sm_90; the
/// target description does not carry it).
static constexpr int64_t kMaxThreadsPerSM = 2048;
/// Most rows per thread the option may force (each row is a copy of the
/// op's body, unrolled reductions included).
static constexpr int64_t kMaxRowsPerThreadOverride = 16;
/// Most columns per thread the option may force: a 16-byte vector of i8.
static constexpr int64_t kMaxColumnsPerThreadOverride = 16;
/// Alignment of each tile buffer in shared memory.
static constexpr int64_t kBufferAlignment = 16;
/// CUDA's grid limits: x, and y and z.
static constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
static constexpr int64_t kMaxGridYZ = 65535;

/// Why `forall`'s body cannot be a kernel, or empty.
static std::string unsupportedReason(scf::ForallOp forall) {
  if (!forall.getOutputs().empty())
    return "it still has shared outputs (bufferize first)";
  if (forall.getRank() == 0)
    return "it has no loops";
  std::string why;
  forall.getBody()->walk([&](Operation *op) {
    if (!why.empty() || op->getParentOp() != forall)
      return;
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape() ||
          !alloc.getType().getLayout().isIdentity())
        why = "a tile buffer has no static identity-layout shape";
      return;
    }
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (!linalgOp.hasPureBufferSemantics())
        why = "a linalg op is not on memrefs";
      return;
    }
    // Index arithmetic only: anything with regions or side effects (an
    // affine.for around a linalg op, a store) would run unshared in every
    // thread.
    if (isa<memref::DeallocOp, memref::SubViewOp, memref::CastOp,
            memref::ExpandShapeOp, memref::CollapseShapeOp,
            memref::GetGlobalOp, scf::InParallelOp, affine::AffineApplyOp,
            affine::AffineMinOp, affine::AffineMaxOp>(op) ||
        (isa<arith::ArithDialect>(op->getDialect()) &&
         op->getNumRegions() == 0))
      return;
    why = ("'" + op->getName().getStringRef() + "' in the tile").str();
  });
  return why;
}

/// Bytes of one element of `type` in memory (i1 takes a byte, index the
/// pointer width).
static int64_t elementBytes(MemRefType type, const DataLayout &layout) {
  return std::max<int64_t>(
      1, static_cast<int64_t>(layout.getTypeSize(type.getElementType())));
}

/// The buffer a view (subview, reshape, cast) is of. A memref.view is a
/// tile buffer of its own (each at its own offset of the block's shared
/// memory), not a view of the others.
static Value rootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
    if (isa<memref::ViewOp>(view))
      break;
    value = view.getViewSource();
  }
  return value;
}

static bool touches(linalg::LinalgOp op, Value root) {
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return isa<MemRefType>(operand.getType()) && rootBuffer(operand) == root;
  });
}

/// Fills that only set the starting value of the next op on their buffer
/// (a reduction's init, or an output the op overwrites): erased from `ops`
/// (and `scratch`, kept parallel to it), their value handed to that op as
/// the output's initial value instead. Otherwise every element is stored
/// once, a barrier is taken and the element loaded back: for an output in
/// global memory (blur_x_blur_y's), that is a whole extra write and read of
/// the result. Returns, per remaining op, its outputs' initial values (null
/// where loaded).
static SmallVector<SmallVector<Value>>
foldFillsIntoConsumers(RewriterBase &rewriter,
                       SmallVectorImpl<linalg::LinalgOp> &ops,
                       SmallVectorImpl<SmallVector<Value>> &scratch) {
  SmallVector<SmallVector<Value>> initial(ops.size());
  for (auto [i, op] : llvm::enumerate(ops))
    initial[i].assign(op.getNumDpsInits(), Value());
  SmallVector<bool> folded(ops.size(), false);
  for (size_t i = 0; i < ops.size(); ++i) {
    auto fill = dyn_cast<linalg::FillOp>(ops[i].getOperation());
    if (!fill)
      continue;
    Value buffer = fill.getDpsInits()[0];
    Value root = rootBuffer(buffer);
    size_t j = i + 1;
    while (j < ops.size() && !touches(ops[j], root))
      ++j;
    if (j == ops.size())
      continue;
    linalg::LinalgOp consumer = ops[j];
    // The consumer reads the buffer only as one of its outputs, through the
    // same view, and visits every element exactly once: its output map is
    // a permutation of all its parallel loops (the loop sizes come from
    // the operands' shapes, so the whole buffer is covered).
    std::optional<unsigned> slot;
    bool ok = true;
    for (OpOperand &operand : consumer->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()) ||
          rootBuffer(operand.get()) != root)
        continue;
      if (!consumer.isDpsInit(&operand) || operand.get() != buffer || slot) {
        ok = false;
        break;
      }
      slot = operand.getOperandNumber() - consumer.getNumDpsInputs();
    }
    if (!ok || !slot)
      continue;
    AffineMap map = consumer.getIndexingMapsArray()[consumer.getNumDpsInputs() +
                                                    *slot];
    if (!map.isProjectedPermutation() ||
        map.getNumResults() != consumer.getNumParallelLoops() ||
        llvm::any_of(map.getResults(), [&](AffineExpr e) {
          return consumer.getIteratorTypesArray()[cast<AffineDimExpr>(e)
                                                       .getPosition()] !=
                 utils::IteratorType::parallel;
        }))
      continue;
    initial[j][*slot] = fill.getDpsInputs()[0];
    folded[i] = true;
  }
  SmallVector<linalg::LinalgOp> keptOps;
  SmallVector<SmallVector<Value>> keptScratch, keptInitial;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (folded[i]) {
      rewriter.eraseOp(ops[i]);
      continue;
    }
    keptOps.push_back(ops[i]);
    keptScratch.push_back(std::move(scratch[i]));
    keptInitial.push_back(std::move(initial[i]));
  }
  ops.assign(keptOps.begin(), keptOps.end());
  scratch.assign(keptScratch.begin(), keptScratch.end());
  return keptInitial;
}

/// Maps `forall` to a kernel; a remark says how, or why not (then the IR is
/// unchanged). Fails only on an op that linalg cannot generalize.
static LogicalResult mapTileLoop(RewriterBase &rewriter, scf::ForallOp forall,
                                 TargetAttr target, int64_t threadsOverride,
                                 int64_t rowsPerThreadOverride,
                                 int64_t columnsPerThreadOverride) {
  Location loc = forall.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Block *body = forall.getBody();

  // Threads: as many as the most demanding op asks for, in whole warps.
  auto decline = [&](const Twine &why) {
    forall.emitRemark() << "tile loop not mapped to a GPU kernel: " << why;
    return success();
  };
  GPUBlockLimits limits =
      gpuBlockLimits(target.getWarpSize(), target.getMaxThreadsPerBlock());
  int64_t warp = limits.warpSize;
  int64_t maxThreads = llvm::alignDown(
      std::min<int64_t>(kMaxThreads, limits.maxThreadsPerBlock), warp);
  if (maxThreads < warp)
    return decline("the target's blocks hold less than a warp");
  int64_t largest = 0;
  for (auto op : body->getOps<linalg::LinalgOp>()) {
    if (!parallelIterationBound(op))
      return decline("an op in its tile has unbounded extents");
    largest = std::max(largest, wantedThreads(op, maxThreads, warp,
                                              target.getMemoryLatency()));
  }
  int64_t threads =
      std::clamp<int64_t>(llvm::alignTo(largest, warp), warp, maxThreads);
  if (rowsPerThreadOverride > kMaxRowsPerThreadOverride)
    return decline("rows-per-thread=" + Twine(rowsPerThreadOverride) +
                   " is more than " + Twine(kMaxRowsPerThreadOverride));
  if (columnsPerThreadOverride > kMaxColumnsPerThreadOverride)
    return decline("columns-per-thread=" + Twine(columnsPerThreadOverride) +
                   " is more than " + Twine(kMaxColumnsPerThreadOverride));
  if (threadsOverride > 0) {
    // Block reductions combine one partial result per warp in one warp's
    // lanes: at most warp-size warps.
    if (threadsOverride % warp != 0 ||
        threadsOverride > limits.maxThreadsPerBlock ||
        threadsOverride / warp > warp)
      return decline("threads=" + Twine(threadsOverride) +
                     " is not a multiple of the warp size within the "
                     "target's block limit and warp-size warps");
    threads = threadsOverride;
  }

  // Tile buffers: one shared buffer, each at a 16-byte aligned offset.
  DataLayout layout = DataLayout::closest(forall);
  SmallVector<memref::AllocOp> buffers(body->getOps<memref::AllocOp>());
  SmallVector<int64_t> offsets;
  int64_t sharedBytes = 0;
  for (memref::AllocOp alloc : buffers) {
    sharedBytes = llvm::alignTo(sharedBytes, kBufferAlignment);
    offsets.push_back(sharedBytes);
    sharedBytes += alloc.getType().getNumElements() *
                   elementBytes(alloc.getType(), layout);
  }
  // For an op reduced by the whole block, a slot per warp for each output
  // of each group of outputs folded at once.
  SmallVector<SmallVector<std::pair<int64_t, Type>>> scratchSlots;
  for (auto op : body->getOps<linalg::LinalgOp>()) {
    SmallVector<std::pair<int64_t, Type>> slots;
    if (chooseThreadMapping(op, threads, warp, target.getMemoryLatency()) ==
        ThreadMapping::PerBlock) {
      int64_t group =
          outputsPerGroup(op, ThreadMapping::PerBlock, threads, warp);
      for (int64_t j = 0; j < group; ++j)
        for (BlockArgument arg : op.getRegionOutputArgs()) {
          sharedBytes = llvm::alignTo(sharedBytes, kBufferAlignment);
          slots.push_back({sharedBytes, arg.getType()});
          sharedBytes += threads / warp * reductionSlotBytes(arg.getType());
        }
    }
    scratchSlots.push_back(std::move(slots));
  }
  if (sharedBytes > target.getSmemPerBlock())
    return decline("its tile buffers take " + Twine(sharedBytes) +
                   " bytes of shared memory, more than the block's " +
                   Twine(target.getSmemPerBlock()));

  // The grid: the innermost loop on x (its tiles are adjacent in memory),
  // the next on y, all others on z; all on x where y or z would exceed
  // their 65535 blocks or a count is not static.
  int64_t rank = forall.getRank();
  SmallVector<int64_t> staticCounts;
  for (auto [lb, ub, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           st = getConstantIntValue(step);
    if (l && u && st && *st > 0)
      staticCounts.push_back(std::max<int64_t>(0, llvm::divideCeil(*u - *l, *st)));
  }
  bool allStatic = static_cast<int64_t>(staticCounts.size()) == rank;
  bool linear = !allStatic;
  if (allStatic) {
    int64_t y = rank > 1 ? staticCounts[rank - 2] : 1, z = 1, total = 1;
    for (int64_t d = 0; d + 2 < rank; ++d)
      z *= staticCounts[d];
    for (int64_t c : staticCounts)
      total = total > kMaxGridX ? total : total * c;
    linear = y > kMaxGridYZ || z > kMaxGridYZ;
    if (linear && total > kMaxGridX)
      return decline("its tiles exceed a grid's " + Twine(kMaxGridX) +
                     " blocks");
  }
  rewriter.setInsertionPoint(forall);
  SmallVector<Value> counts;
  for (auto [lb, ub, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    AffineExpr l, u, s;
    bindSymbols(ctx, l, u, s);
    counts.push_back(getValueOrCreateConstantIndexOp(
        rewriter, loc,
        affine::makeComposedFoldedAffineApply(
            rewriter, loc, AffineMap::get(0, 3, (u - l).ceilDiv(s)),
            {lb, ub, step})));
  }
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value gridX = counts[rank - 1];
  Value gridY = rank > 1 && !linear ? counts[rank - 2] : one;
  Value gridZ = one;
  for (int64_t d = 0; d + 2 < rank; ++d)
    gridZ = arith::MulIOp::create(rewriter, loc, gridZ, counts[d]);
  if (linear) {
    for (int64_t d = rank - 2; d >= 0; --d)
      gridX = arith::MulIOp::create(rewriter, loc, gridX, counts[d]);
    gridZ = one;
  }
  Value smem = sharedBytes
                   ? arith::ConstantIntOp::create(rewriter, loc,
                                                  rewriter.getI32Type(),
                                                  sharedBytes)
                         .getResult()
                   : Value();
  auto launch = gpu::LaunchOp::create(
      rewriter, loc, gridX, gridY, gridZ,
      arith::ConstantIndexOp::create(rewriter, loc, threads), one, one, smem);

  OpBuilder::InsertionGuard guard(rewriter);
  Block &kernel = launch.getBody().front();
  rewriter.setInsertionPointToStart(&kernel);
  IRMapping map;
  // Loop indices from the block's position.
  SmallVector<Value> blockIndex(rank);
  // Delinearizes `rest` over loops `last` down to 0, `last` fastest.
  auto decode = [&](Value rest, int64_t last) {
    for (int64_t d = last; d >= 0; --d) {
      blockIndex[d] = d == 0 ? rest
                             : arith::RemUIOp::create(rewriter, loc, rest,
                                                      counts[d]);
      if (d > 0)
        rest = arith::DivUIOp::create(rewriter, loc, rest, counts[d]);
    }
  };
  if (linear) {
    decode(launch.getBlockIds().x, rank - 1);
  } else {
    blockIndex[rank - 1] = launch.getBlockIds().x;
    if (rank > 1)
      blockIndex[rank - 2] = launch.getBlockIds().y;
    decode(launch.getBlockIds().z, rank - 3);
  }
  for (auto [iv, index, lb, step] :
       llvm::zip(forall.getInductionVars(), blockIndex,
                 forall.getMixedLowerBound(), forall.getMixedStep())) {
    AffineExpr i, l, s;
    bindSymbols(ctx, i, l, s);
    map.map(iv, getValueOrCreateConstantIndexOp(
                    rewriter, loc,
                    affine::makeComposedFoldedAffineApply(
                        rewriter, loc, AffineMap::get(0, 3, l + i * s),
                        {index, lb, step})));
  }
  // Globals the tile reads (constant weights) in the kernel itself, so
  // outlining copies them to the device module.
  forall.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (auto global = operand.getDefiningOp<memref::GetGlobalOp>();
          global && !forall->isAncestor(global) && !map.contains(operand))
        map.map(operand, rewriter.clone(*global)->getResult(0));
  });

  // Tile buffers: views of the shared buffer, cast to the generic address
  // space so their users keep their types (NVPTX infers the shared space
  // of the accesses back).
  Value shared;
  if (sharedBytes)
    shared = gpu::DynamicSharedMemoryOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                        AffineMap(),
                        gpu::AddressSpaceAttr::get(
                            ctx, gpu::AddressSpace::Workgroup)));
  for (auto [alloc, offset] : llvm::zip(buffers, offsets)) {
    MemRefType type = alloc.getType();
    auto sharedType = MemRefType::get(
        type.getShape(), type.getElementType(), AffineMap(),
        cast<MemRefType>(shared.getType()).getMemorySpace());
    Value view = memref::ViewOp::create(
        rewriter, loc, sharedType, shared,
        arith::ConstantIndexOp::create(rewriter, loc, offset), ValueRange());
    map.map(alloc.getResult(),
            memref::MemorySpaceCastOp::create(rewriter, loc, type, view));
  }

  Value tid = launch.getThreadIds().x;
  SmallVector<SmallVector<Value>> scratch;
  for (auto &slots : scratchSlots) {
    SmallVector<Value> views;
    for (auto [offset, type] : slots)
      views.push_back(memref::ViewOp::create(
          rewriter, loc,
          MemRefType::get({threads / warp}, type, AffineMap(),
                          cast<MemRefType>(shared.getType()).getMemorySpace()),
          shared, arith::ConstantIndexOp::create(rewriter, loc, offset),
          ValueRange()));
    scratch.push_back(std::move(views));
  }
  SmallVector<linalg::LinalgOp> linalgOps;
  for (Operation &op : body->without_terminator()) {
    if (isa<memref::AllocOp, memref::DeallocOp>(op))
      continue;
    Operation *clone = rewriter.clone(op, map);
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(clone))
      linalgOps.push_back(linalgOp);
  }
  gpu::TerminatorOp::create(rewriter, loc);
  SmallVector<SmallVector<Value>> initialValues =
      foldFillsIntoConsumers(rewriter, linalgOps, scratch);
  // Rows per thread: the blocks that fit on a multiprocessor by their
  // shared memory and threads keep the memory latency times the SM's share
  // of the bandwidth in flight.
  RowsPerThreadModel rowsModel;
  rowsModel.threads = threads;
  // The occupancy count tessel-attach-gpu-target's register limit uses,
  // with the SM's thread limit as the goal: registers are left out.
  KernelResources resources;
  resources.threads = threads;
  resources.sharedBytes = sharedBytes;
  resources.streaming = true;
  rowsModel.residentThreads =
      residentBlocksAimedAt(resources, target, kMaxThreadsPerSM) * threads;
  // Streaming ops read device memory, so its bandwidth is what the loads
  // in flight must cover; a description without it falls back to L2's,
  // the most an SM can be fed.
  int64_t bandwidth = target.getDramBytesPerCycle() > 0
                          ? target.getDramBytesPerCycle()
                          : target.getL2BytesPerCycle();
  rowsModel.bytesInFlight = target.getMemoryLatency() * bandwidth;
  rowsModel.memoryLatency = target.getMemoryLatency();
  // Each op reads what the ones before it wrote: a barrier between them.
  int64_t perWarp = 0, perBlock = 0;
  SmallVector<std::string> rowsPerOp, columnsPerOp;
  for (auto [i, op] : llvm::enumerate(linalgOps)) {
    if (i + 1 < linalgOps.size()) {
      rewriter.setInsertionPointAfter(op);
      gpu::BarrierOp::create(rewriter, op.getLoc());
    }
    int64_t columns =
        columnsPerThreadOverride > 0
            ? columnsPerThreadOverride
            : chooseColumnsPerThread(op, threads, warp,
                                     target.getMemoryLatency());
    int64_t rows = op.getNumParallelLoops() < 2 ? 1
                   : rowsPerThreadOverride > 0
                       ? rowsPerThreadOverride
                       : chooseRowsPerThread(op, rowsModel, warp,
                                             initialValues[i], columns);
    FailureOr<ThreadMapping> mapping = distributeOverThreads(
        rewriter, op, tid, threads, warp, scratch[i], initialValues[i], rows,
        target.getMemoryLatency(), columns);
    if (failed(mapping))
      return op->emitError("cannot distribute this op over a block's threads");
    perWarp += *mapping == ThreadMapping::PerWarp;
    perBlock += *mapping == ThreadMapping::PerBlock;
    bool perThread = *mapping == ThreadMapping::PerThread;
    rowsPerOp.push_back(perThread ? std::to_string(rows) : std::string("-"));
    columnsPerOp.push_back(perThread ? std::to_string(columns)
                                     : std::string("-"));
  }
  // A thread's adjacent accesses (columns per thread, a reduction's
  // groups) become one vector access in LLVM only where it knows their
  // alignment, which kernel arguments do not carry.
  annotateAccessAlignment(launch);
  forall->emitRemark() << "tile loop mapped to one GPU kernel: a block of "
                       << threads << " threads per tile, " << linalgOps.size()
                       << " op(s) per tile with barriers "
                          "between them ("
                       << perWarp << " reduced per warp, " << perBlock
                       << " per block, by shuffles), " << sharedBytes
                       << " bytes of tile buffers in shared "
                          "memory, rows per thread "
                       << llvm::join(rowsPerOp, "/") << ", columns per thread "
                       << llvm::join(columnsPerOp, "/");
  rewriter.eraseOp(forall);
  return success();
}

namespace {
struct MapTilesToGPUPass
    : public tessel::impl::MapTilesToGPUPassBase<MapTilesToGPUPass> {
  using MapTilesToGPUPassBase::MapTilesToGPUPassBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = TargetAttr::lookup(func);
    if (!target || target.getKind() != "nvgpu")
      return;
    SmallVector<scf::ForallOp> loops;
    for (auto forall : func.getBody().getOps<scf::ForallOp>())
      loops.push_back(forall);
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp forall : loops) {
      // A loop fusion did not build (a user's own forall) stays as it is:
      // the parallel-loop mapping after this pass takes it.
      std::string why = unsupportedReason(forall);
      if (!why.empty()) {
        forall.emitRemark() << "tile loop not mapped to a GPU kernel: "
                            << why;
        continue;
      }
      if (failed(mapTileLoop(rewriter, forall, target, threadsOverride,
                             rowsPerThreadOverride, columnsPerThreadOverride)))
        return signalPassFailure();
    }
  }
};
} // namespace

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
#include "passes/Passes.h"
#include "passes/Utils/GPUThreadLoops.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/IRMapping.h"
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
/// latency of the global loads while several blocks share an SM.
static constexpr int64_t kMaxThreads = 256;
/// Alignment of each tile buffer in shared memory.
static constexpr int64_t kBufferAlignment = 16;

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
    if (isa<memref::DeallocOp, memref::SubViewOp, memref::CastOp,
            memref::ExpandShapeOp, memref::CollapseShapeOp,
            memref::GetGlobalOp, scf::InParallelOp>(op) ||
        isa<affine::AffineDialect, arith::ArithDialect>(op->getDialect()))
      return;
    why = ("'" + op->getName().getStringRef() + "' in the tile").str();
  });
  return why;
}

/// Maps `forall` to a kernel; a remark says how.
static LogicalResult mapTileLoop(RewriterBase &rewriter, scf::ForallOp forall,
                                 TargetAttr target) {
  Location loc = forall.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Block *body = forall.getBody();

  // Threads: enough for the largest op (a quarter of its iterations each
  // at least), in whole warps.
  int64_t largest = 0;
  for (auto op : body->getOps<linalg::LinalgOp>()) {
    int64_t bound = parallelIterationBound(op);
    if (!bound)
      return forall.emitError("cannot map this tile loop to a GPU kernel: "
                              "an op in its tile has unbounded extents");
    largest = std::max(largest, bound);
  }
  int64_t warp = target.getWarpSize();
  int64_t threads = std::clamp<int64_t>(
      llvm::alignTo(llvm::divideCeil(largest, 4), warp), warp,
      std::min<int64_t>(kMaxThreads, target.getMaxThreadsPerBlock()));

  // Tile buffers: one shared buffer, each at a 16-byte aligned offset.
  SmallVector<memref::AllocOp> buffers(body->getOps<memref::AllocOp>());
  SmallVector<int64_t> offsets;
  int64_t sharedBytes = 0;
  for (memref::AllocOp alloc : buffers) {
    sharedBytes = llvm::alignTo(sharedBytes, kBufferAlignment);
    offsets.push_back(sharedBytes);
    sharedBytes += alloc.getType().getNumElements() *
                   alloc.getType().getElementTypeBitWidth() / 8;
  }
  if (sharedBytes > target.getSmemPerBlock())
    return forall.emitError() << "cannot map this tile loop to a GPU kernel: "
                                 "its tile buffers take "
                              << sharedBytes << " bytes of shared memory, "
                              << "more than the block's "
                              << target.getSmemPerBlock();

  // The grid: the innermost loop on x (its tiles are adjacent in memory),
  // the next on y, all others on z.
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
  int64_t rank = forall.getRank();
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value gridX = counts[rank - 1];
  Value gridY = rank > 1 ? counts[rank - 2] : one;
  Value gridZ = one;
  for (int64_t d = 0; d + 2 < rank; ++d)
    gridZ = arith::MulIOp::create(rewriter, loc, gridZ, counts[d]);
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
  blockIndex[rank - 1] = launch.getBlockIds().x;
  if (rank > 1)
    blockIndex[rank - 2] = launch.getBlockIds().y;
  Value rest = launch.getBlockIds().z;
  for (int64_t d = rank - 3; d >= 0; --d) {
    blockIndex[d] = d == 0 ? rest : arith::RemUIOp::create(rewriter, loc, rest,
                                                            counts[d]);
    if (d > 0)
      rest = arith::DivUIOp::create(rewriter, loc, rest, counts[d]);
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
  SmallVector<linalg::LinalgOp> linalgOps;
  for (Operation &op : body->without_terminator()) {
    if (isa<memref::AllocOp, memref::DeallocOp>(op))
      continue;
    Operation *clone = rewriter.clone(op, map);
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(clone))
      linalgOps.push_back(linalgOp);
  }
  gpu::TerminatorOp::create(rewriter, loc);
  // Each op reads what the ones before it wrote: a barrier between them.
  for (auto [i, op] : llvm::enumerate(linalgOps)) {
    if (i + 1 < linalgOps.size()) {
      rewriter.setInsertionPointAfter(op);
      gpu::BarrierOp::create(rewriter, op.getLoc());
    }
    if (failed(distributeOverThreads(rewriter, op, tid, threads)))
      return op->emitError("cannot distribute this op over a block's threads");
  }
  forall->emitRemark() << "tile loop mapped to one GPU kernel: a block of "
                       << threads << " threads per tile, "
                       << linalgOps.size() << " op(s) per tile with barriers "
                          "between them, "
                       << sharedBytes << " bytes of tile buffers in shared "
                                         "memory";
  rewriter.eraseOp(forall);
  return success();
}

namespace {
struct MapTilesToGPUPass
    : public tessel::impl::MapTilesToGPUPassBase<MapTilesToGPUPass> {
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
      std::string why = unsupportedReason(forall);
      if (!why.empty()) {
        forall.emitError() << "cannot map this tile loop to a GPU kernel: "
                           << why;
        return signalPassFailure();
      }
      if (failed(mapTileLoop(rewriter, forall, target)))
        return signalPassFailure();
    }
  }
};
} // namespace

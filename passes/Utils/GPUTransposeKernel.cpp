//===- GPUTransposeKernel.cpp - A matrix transposed by one gpu.launch -----===//
#include "passes/Utils/GPUTransposeKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tessel;

/// The tile a block transposes (elements per side), its threads, and the
/// bytes every global access moves (one 16-byte vector: the widest access a
/// thread makes, and what keeps each warp's accesses whole 32-byte sectors).
static constexpr int64_t kTile = 64;
static constexpr int64_t kThreads = 256;
static constexpr int64_t kPieceBytes = 16;
/// The grid's y extent (row tiles) is limited to 65535.
static constexpr int64_t kMaxGridY = 65535;

std::string mlir::tessel::checkGPUTransposable(MemRefType src) {
  if (src.getRank() != 2)
    return "it is not a 2-D memref (rank " + std::to_string(src.getRank()) +
           ")";
  if (!src.hasStaticShape())
    return "it has dynamic sizes";
  Type element = src.getElementType();
  // The kernel is written for 2-byte elements too (8-element pieces, two
  // per thread), but nothing uses or tests that yet.
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() != 8)
    return "its elements are not 1 byte";
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t piece = kPieceBytes / bytes;
  if (src.getDimSize(0) % piece != 0 || src.getDimSize(1) % piece != 0)
    return "its sizes are not multiples of " + std::to_string(piece) +
           " (16-byte pieces of the rows of it and of its transpose)";
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(src.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic) || strides[1] != 1 ||
      (strides[0] * bytes) % kPieceBytes != 0 ||
      (offset * bytes) % kPieceBytes != 0)
    return "its rows are not contiguous and 16-byte aligned";
  if ((src.getDimSize(0) + kTile - 1) / kTile > kMaxGridY)
    return "it has more than " + std::to_string(kMaxGridY * kTile) + " rows";
  return {};
}

gpu::LaunchOp mlir::tessel::buildGPUTransposeKernel(RewriterBase &rewriter,
                                                    Location loc, Value src,
                                                    Value dst) {
  OpBuilder &b = rewriter;
  MLIRContext *ctx = b.getContext();
  auto srcType = cast<MemRefType>(src.getType());
  assert(checkGPUTransposable(srcType).empty() && "checked by the caller");
  Type element = srcType.getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t rows = srcType.getDimSize(0), cols = srcType.getDimSize(1);
  int64_t piece = kPieceBytes / bytes;
  int64_t piecesPerRow = kTile / piece;
  int64_t piecesPerThread = kTile * piecesPerRow / kThreads;
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, c(y));
  };
  auto div = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(b, loc, x, c(y));
  };
  auto rem = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(b, loc, x, c(y));
  };
  auto lt = [&](Value x, int64_t y) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(y));
  };
  auto both = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, loc, x, y);
  };

  Value one = c(1);
  Value smemBytes = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                 kTile * kTile * bytes);
  auto launch = gpu::LaunchOp::create(b, loc, c((cols + kTile - 1) / kTile),
                                      c((rows + kTile - 1) / kTile), one,
                                      c(kThreads), one, one, smemBytes);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  Value col0 = mul(launch.getBlockIds().x, kTile);
  Value row0 = mul(launch.getBlockIds().y, kTile);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      workgroup));
  Value tile = memref::ViewOp::create(
      b, loc, MemRefType::get({kTile, kTile}, element, AffineMap(), workgroup),
      smem, c(0), ValueRange());
  auto vectorType = VectorType::get({piece}, element);
  // Without the alignment the backend splits each vector into single-byte
  // accesses.
  llvm::MaybeAlign align(kPieceBytes);
  auto guarded = [&](Value inside, function_ref<void()> body) {
    auto ifInside = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifInside.thenBlock());
    body();
  };

  // Rows of the tile into shared memory. Sizes are whole pieces, so a
  // piece is entirely inside the matrix or entirely outside.
  for (int64_t i = 0; i < piecesPerThread; ++i) {
    Value p = add(tid, c(i * kThreads));
    Value r = div(p, piecesPerRow);
    Value col = mul(rem(p, piecesPerRow), piece);
    Value row = add(row0, r), globalCol = add(col0, col);
    guarded(both(lt(row, rows), lt(globalCol, cols)), [&] {
      Value v = vector::LoadOp::create(
          b, loc, vectorType, src, ValueRange{row, globalCol}, false, align);
      vector::StoreOp::create(b, loc, v, tile, ValueRange{r, col}, false,
                              align);
    });
  }
  gpu::BarrierOp::create(b, loc);
  // Columns of the tile out as rows of dst: a warp reads consecutive
  // elements of one tile row (no bank conflicts) and writes the same piece
  // of 32 rows of dst (half sectors; the block's other warps write the
  // rest of those rows' 64 bytes).
  for (int64_t i = 0; i < piecesPerThread; ++i) {
    Value p = add(tid, c(i * kThreads));
    Value n = rem(p, kTile);
    Value k = mul(div(p, kTile), piece);
    Value dstRow = add(col0, n), dstCol = add(row0, k);
    guarded(both(lt(dstRow, cols), lt(dstCol, rows)), [&] {
      SmallVector<Value> elements;
      for (int64_t j = 0; j < piece; ++j)
        elements.push_back(
            memref::LoadOp::create(b, loc, tile, ValueRange{add(k, c(j)), n}));
      Value v = vector::FromElementsOp::create(b, loc, vectorType, elements);
      vector::StoreOp::create(b, loc, v, dst, ValueRange{dstRow, dstCol}, false,
                              align);
    });
  }
  gpu::TerminatorOp::create(b, loc);
  launch->setAttr(kGPUTransposeKernelAttr, b.getUnitAttr());
  return launch;
}

std::optional<std::pair<Value, Value>>
mlir::tessel::matchGPUTransposeKernel(gpu::LaunchOp launch) {
  if (!launch->hasAttr(kGPUTransposeKernelAttr))
    return std::nullopt;
  // What the kernel does to memory defined outside it: vector loads of src
  // and vector stores to dst, nothing else (the shared tile is defined
  // inside; barriers order it).
  Region &body = launch.getBody();
  auto outside = [&](Value memref) {
    return !body.isAncestor(memref.getParentRegion());
  };
  Value src, dst;
  bool unexpected = false;
  auto record = [&](Value &slot, Value memref) {
    unexpected |= slot && slot != memref;
    slot = memref;
  };
  body.walk([&](Operation *op) {
    if (auto load = dyn_cast<vector::LoadOp>(op)) {
      if (outside(load.getBase()))
        record(src, load.getBase());
      return;
    }
    if (auto store = dyn_cast<vector::StoreOp>(op)) {
      if (outside(store.getBase()))
        record(dst, store.getBase());
      return;
    }
    if (isa<gpu::BarrierOp>(op) ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      unexpected = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> all;
    effects.getEffects(all);
    for (const MemoryEffects::EffectInstance &effect : all) {
      Value memref = effect.getValue();
      // Allocation results and reads of the shared tile are the kernel's
      // own; anything else touching outer memory is not this kernel.
      if (!isa<MemoryEffects::Allocate>(effect.getEffect()) &&
          (!memref || outside(memref)))
        unexpected = true;
    }
  });
  if (unexpected || !src || !dst || src == dst)
    return std::nullopt;
  return std::make_pair(src, dst);
}

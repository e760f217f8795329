//===- GPUMatmulKernel.cpp - A tensor-core matmul as one gpu.launch -------===//
//
// Written as gpu/nvgpu/vector ops rather than through upstream's
// vector-to-gpu conversion and loop pipelining: the shapes are fixed by the
// model, and emitting the pipelined loop directly keeps the copy schedule
// (which stage a k tile lands in, when each group is waited for) in one
// place that the tests can read.
//
// Synchronization per k tile (the CUTLASS "multistage" order):
//   wait until at most stages - 2 copy groups are pending (tile kt landed),
//   barrier (every thread's copies of tile kt are visible, and every warp
//   has finished with the stage the next copy overwrites),
//   copy tile kt + stages - 1 into that stage, commit the group,
//   multiply tile kt.
// Copies past the last k tile still run, with zero source bytes, so every
// iteration commits one group and the wait count stays the same.
//
//===----------------------------------------------------------------------===//
#include "passes/Utils/GPUMatmulKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tessel;

/// Whether vectors of `element` are laid out differently from its memrefs:
/// LLVM packs a vector of i1 into bits, a memref holds a byte per i1.
static bool packedInVectors(Type element) {
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 != 0;
}

/// A `type` vector of consecutive elements of `memref` from `indices`
/// along its last dimension: one vector load, or element loads where
/// vectors of the element type are bit-packed.
static Value loadElements(OpBuilder &b, Location loc, VectorType type,
                          Value memref, ValueRange indices,
                          llvm::MaybeAlign align = {}) {
  if (!packedInVectors(type.getElementType()))
    return vector::LoadOp::create(b, loc, type, memref, indices, false, align);
  SmallVector<Value> elements;
  for (int64_t e = 0; e < type.getNumElements(); ++e) {
    SmallVector<Value> at(indices);
    at.back() = arith::AddIOp::create(
        b, loc, at.back(), arith::ConstantIndexOp::create(b, loc, e));
    elements.push_back(memref::LoadOp::create(b, loc, memref, at));
  }
  return vector::FromElementsOp::create(b, loc, type, elements);
}

/// Stores `value`, a vector, at consecutive elements of `memref` from
/// `indices`, as loadElements reads them.
static void storeElements(OpBuilder &b, Location loc, Value value, Value memref,
                          ValueRange indices, llvm::MaybeAlign align = {}) {
  auto type = cast<VectorType>(value.getType());
  if (!packedInVectors(type.getElementType())) {
    vector::StoreOp::create(b, loc, value, memref, indices, false, align);
    return;
  }
  for (int64_t e = 0; e < type.getNumElements(); ++e) {
    SmallVector<Value> at(indices);
    at.back() = arith::AddIOp::create(
        b, loc, at.back(), arith::ConstantIndexOp::create(b, loc, e));
    memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, value, e),
                            memref, at);
  }
}

namespace {
/// Index arithmetic at the builder's insertion point.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, c(y)) : x; }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) {
    return y == 1 ? x : arith::MulIOp::create(b, loc, x, c(y)).getResult();
  }
  Value div(Value x, int64_t y) {
    return y == 1 ? x : arith::DivUIOp::create(b, loc, x, c(y)).getResult();
  }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, c(y)); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value lt(Value x, int64_t y) { return lt(x, c(y)); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Value le(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, x, c(y));
  }
  Value gt(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, c(y));
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
};

/// How one operand's tile is copied: the shared tile (rows x cols of the
/// global layout) and where it sits in the global matrix.
struct OperandCopy {
  Value global;       // the operand memref
  bool batched;       // indexed by the batch first
  Value stages;       // stages x rows x stride, workgroup memory
  int64_t tileRows, tileCols;
  int64_t rows, cols; // the global matrix
  int64_t copyElements;
  int64_t elementBytes;
  /// The convolution A's patches come from; pieces of copyElements along a
  /// row never cross a tap (the channel count is a multiple of them).
  const GPUConvolution *conv = nullptr;
};

/// Everything the kernel body needs while it is being built.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;
  const GPUMatmulOperands &ops;
  const GPUMatmulTiling &t;
  const MmaInstruction &mma;
  int64_t threads;
  IndexMath ix;
  Value tid, batchIndex, m0, n0;
  /// C's batch index where it differs from A's and B's (split-k: the
  /// block's partial C), null otherwise.
  Value cBatchIndex;
  /// Split-k: the block's k tiles, [kTileBegin, kTileEnd); null: all.
  Value kTileBegin, kTileEnd;
  Type tokenType;
  /// Synchronous copies in the k loop (no cp.async): each piece's shared
  /// store waits until flushStores, after the tile's multiply-adds, so
  /// that the loads' latency overlaps them (the stage being filled is not
  /// read in that iteration). Pieces under a guard store at once.
  bool deferStores = false, inGuard = false;
  struct PendingStore {
    Value value, stages, stage, row, col;
  };
  SmallVector<PendingStore> pendingStores;

  void storePiece(Value value, Value stages, Value stage, Value row,
                  Value col) {
    if (deferStores && !inGuard) {
      pendingStores.push_back({value, stages, stage, row, col});
      return;
    }
    // Stage rows are padded to 16-byte multiples, pieces start on them.
    vector::StoreOp::create(b, loc, value, stages, ValueRange{stage, row, col},
                            /*nontemporal=*/false, llvm::MaybeAlign(16));
  }

  void flushStores() {
    for (const PendingStore &s : pendingStores)
      vector::StoreOp::create(b, loc, s.value, s.stages,
                              ValueRange{s.stage, s.row, s.col},
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
    pendingStores.clear();
  }

  KernelBuilder(OpBuilder &b, Location loc, const GPUMatmulOperands &ops,
                const GPUMatmulTiling &t, const MmaInstruction &mma,
                int64_t threads)
      : b(b), loc(loc), ops(ops), t(t), mma(mma), threads(threads),
        ix{b, loc} {
    tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  }

  SmallVector<Value> globalIndices(bool batched, Value row, Value col) {
    SmallVector<Value> indices;
    if (batched)
      indices.push_back(batchIndex);
    indices.push_back(row);
    indices.push_back(col);
    return indices;
  }

  /// Element (row, col) of C.
  SmallVector<Value> cIndices(Value row, Value col) {
    SmallVector<Value> indices = globalIndices(ops.cBatched, row, col);
    if (ops.cBatched && cBatchIndex)
      indices.front() = cBatchIndex;
    return indices;
  }

  /// The absolute index of the block's k tile `relative`.
  Value kTileAt(Value relative) {
    return kTileBegin ? ix.add(kTileBegin, relative) : relative;
  }

  /// Split `split` of `splits` takes ceil(kTiles / splits) k tiles from
  /// split x that; the last ones fewer, or none (an override may ask for
  /// more splits than there are k tiles).
  void setKTileRange(Value split, int64_t kTiles, int64_t splits) {
    int64_t perSplit = (kTiles + splits - 1) / splits;
    kTileBegin = ix.mul(split, perSplit);
    kTileEnd =
        ix.max(kTileBegin, ix.min(ix.add(kTileBegin, perSplit), ix.c(kTiles)));
  }

  /// How many k tiles the block sums (kTileBegin set).
  Value kTileCount() { return ix.sub(kTileEnd, kTileBegin); }

  /// Where element (row, col) of the operand is in its memref: the matrix
  /// itself, or for a convolution's patches the input element the im2col
  /// map names.
  SmallVector<Value> operandIndices(const OperandCopy &op, Value row,
                                    Value col) {
    if (!op.conv)
      return globalIndices(op.batched, row, col);
    const GPUConvolution &cv = *op.conv;
    Value ow = ix.rem(row, cv.outW);
    Value oh = ix.rem(ix.div(row, cv.outW), cv.outH);
    Value image = ix.div(row, cv.outH * cv.outW);
    Value channel = ix.rem(col, cv.c);
    Value kw = ix.rem(ix.div(col, cv.c), cv.kernelW);
    Value kh = ix.div(col, cv.c * cv.kernelW);
    Value ih = ix.add(ix.mul(oh, cv.strideH), ix.mul(kh, cv.dilationH));
    Value iw = ix.add(ix.mul(ow, cv.strideW), ix.mul(kw, cv.dilationW));
    return {image, ih, iw, channel};
  }

  /// Runs `body(row, col)` for each 16-byte piece (`v` elements) of a
  /// rows x (chunksPerRow * v) tile that this thread handles when the
  /// block's threads share the pieces round-robin. Tile and thread counts
  /// are powers of two, so a thread's pieces sit at constant offsets from
  /// its first one: rows apart when a pass of the threads covers whole rows,
  /// along one row otherwise; the addresses then share one base register.
  void forEachPiece(int64_t rows, int64_t chunksPerRow, int64_t v,
                    function_ref<void(Value, Value)> body) {
    int64_t chunks = rows * chunksPerRow;
    if (chunks % threads == 0 && threads % chunksPerRow == 0) {
      Value r0 = ix.div(tid, chunksPerRow);
      Value c0 = ix.mul(ix.rem(tid, chunksPerRow), v);
      for (int64_t i = 0; i < chunks / threads; ++i)
        body(ix.add(r0, i * (threads / chunksPerRow)), c0);
      return;
    }
    if (chunks % threads == 0 && chunksPerRow % threads == 0) {
      Value c0 = ix.mul(tid, v);
      for (int64_t i = 0; i < chunks / threads; ++i) {
        int64_t first = i * threads;
        body(ix.c(first / chunksPerRow),
             ix.add(c0, (first % chunksPerRow) * v));
      }
      return;
    }
    // Fewer pieces than threads, or counts that share no power of two.
    for (int64_t base = 0; base < chunks; base += threads) {
      Value id = ix.add(tid, base);
      auto piece = [&] {
        body(ix.div(id, chunksPerRow), ix.mul(ix.rem(id, chunksPerRow), v));
      };
      if (base + threads <= chunks) {
        piece();
        continue;
      }
      auto guard = scf::IfOp::create(b, loc, ix.lt(id, chunks),
                                     /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(guard.thenBlock());
      inGuard = true;
      piece();
      inGuard = false;
    }
  }

  /// Copies the tile at (rowOffset, colOffset) of `op`'s global matrix into
  /// `stage`: asynchronously, or element by element where the rows are not
  /// aligned for cp.async; `inRange` false zero-fills the whole tile (whose
  /// offsets must still address the matrix). Bounds are checked only along
  /// dimensions that have partial tiles.
  void copyTile(const OperandCopy &op, Value stage, Value rowOffset,
                Value colOffset, Value inRange,
                SmallVectorImpl<Value> &tokens) {
    if (op.copyElements == 0)
      return copyTileByElements(op, stage, rowOffset, colOffset, inRange);
    if (!ops.asyncCopies)
      return copyTileSynchronously(op, stage, rowOffset, colOffset, inRange);
    int64_t v = op.copyElements;
    bool rowEdge = op.rows % op.tileRows != 0;
    bool colEdge = op.cols % op.tileCols != 0;
    bool bypassL1 = v * op.elementBytes == 16;
    forEachPiece(op.tileRows, op.tileCols / v, v, [&](Value r, Value c) {
      Value gr = ix.add(rowOffset, r), gc = ix.add(colOffset, c);
      // Elements of this piece inside the matrix: the rest is zero-filled.
      Value valid = colEdge ? ix.max(ix.min(ix.sub(ix.c(op.cols), gc), ix.c(v)),
                                     ix.c(0))
                            : ix.c(v);
      Value inside = rowEdge ? ix.andi(inRange, ix.lt(gr, op.rows)) : inRange;
      valid = ix.select(inside, valid, ix.c(0));
      // A piece past an edge reads nothing, but needs an address inside.
      if (rowEdge || colEdge) {
        Value reads = ix.gt(valid, 0);
        gr = ix.select(reads, gr, ix.c(0));
        gc = ix.select(reads, gc, ix.c(0));
      }
      Value token = nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokenType, op.stages, ValueRange{stage, r, c}, op.global,
          operandIndices(op, gr, gc), b.getIndexAttr(v), valid,
          bypassL1 ? b.getUnitAttr() : UnitAttr());
      tokens.push_back(token);
    });
  }

  /// Synchronous copies: each thread fills 16 bytes of a shared row from
  /// guarded scalar loads (zero outside the matrix) and stores them at once.
  void copyTileByElements(const OperandCopy &op, Value stage, Value rowOffset,
                          Value colOffset, Value inRange) {
    int64_t v = 16 / op.elementBytes;
    int64_t chunksPerRow = op.tileCols / v;
    forEachPiece(op.tileRows, chunksPerRow, v, [&](Value r, Value c) {
      Value gr = ix.add(rowOffset, r), gc = ix.add(colOffset, c);
      storePiece(loadPieceByElements(op, gr, gc, inRange), op.stages, stage, r,
                 c);
    });
  }

  /// The 16 bytes of `op`'s matrix from (gr, gc) along its rows, by guarded
  /// scalar loads: zero outside the matrix or where `inRange` is false.
  Value loadPieceByElements(const OperandCopy &op, Value gr, Value gc,
                            Value inRange) {
    int64_t v = 16 / op.elementBytes;
    Type element = cast<MemRefType>(op.global.getType()).getElementType();
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    Value rowIn = ix.andi(inRange, ix.lt(gr, op.rows));
    SmallVector<Value> elements;
    for (int64_t e = 0; e < v; ++e) {
      Value col = ix.add(gc, e);
      Value inside = ix.andi(rowIn, ix.lt(col, op.cols));
      Value loaded = memref::LoadOp::create(
          b, loc, op.global,
          operandIndices(op, ix.select(inside, gr, ix.c(0)),
                         ix.select(inside, col, ix.c(0))));
      elements.push_back(ix.select(inside, loaded, zero));
    }
    return vector::FromElementsOp::create(b, loc, VectorType::get({v}, element),
                                          elements);
  }

  /// Synchronous copies where the rows are aligned for them (no cp.async on
  /// the target): a piece inside the matrix is one 16-byte load (smaller
  /// aligned pieces, 8 or 4 bytes, load by elements); a piece across an
  /// edge, or past the block's k tiles, by guarded elements. Without
  /// partial tiles along the operand, only `inRange` is tested.
  void copyTileSynchronously(const OperandCopy &op, Value stage,
                             Value rowOffset, Value colOffset, Value inRange) {
    int64_t v = 16 / op.elementBytes;
    if (op.copyElements != v)
      return copyTileByElements(op, stage, rowOffset, colOffset, inRange);
    bool rowEdge = op.rows % op.tileRows != 0;
    bool colEdge = op.cols % op.tileCols != 0;
    Type element = cast<MemRefType>(op.global.getType()).getElementType();
    auto pieceType = VectorType::get({v}, element);
    forEachPiece(op.tileRows, op.tileCols / v, v, [&](Value r, Value c) {
      Value gr = ix.add(rowOffset, r), gc = ix.add(colOffset, c);
      Value whole = inRange;
      if (rowEdge)
        whole = ix.andi(whole, ix.lt(gr, op.rows));
      if (colEdge)
        whole = ix.andi(whole, ix.lt(ix.add(gc, v - 1), op.cols));
      auto ifOp = scf::IfOp::create(b, loc, pieceType, whole,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        // copyElements == v: the rows are 16-byte aligned (as cp.async
        // needs), and pieces start on multiples of v.
        Value piece = vector::LoadOp::create(
            b, loc, pieceType, op.global, operandIndices(op, gr, gc),
            /*nontemporal=*/false, llvm::MaybeAlign(16));
        scf::YieldOp::create(b, loc, piece);
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, loc, loadPieceByElements(op, gr, gc, inRange));
      }
      storePiece(ifOp.getResult(0), op.stages, stage, r, c);
    });
  }

  /// Copies k tile `kTile` of A and B into `stage`; the asynchronous copies
  /// among them are committed as one group, returned (null if none).
  Value copyKTile(const OperandCopy &a, const OperandCopy &bOp, Value stage,
                  Value kTile, int64_t kTiles) {
    // Past the block's last k tile the copies read nothing, from that
    // tile's addresses.
    Value inRange = kTileEnd ? ix.lt(kTile, kTileEnd) : ix.lt(kTile, kTiles);
    Value last = kTileEnd ? ix.add(kTileEnd, -1) : ix.c(kTiles - 1);
    Value k0 = ix.mul(ix.min(kTile, last), t.blockK);
    SmallVector<Value> tokens;
    if (ops.aTransposed)
      copyTile(a, stage, k0, m0, inRange, tokens);
    else
      copyTile(a, stage, m0, k0, inRange, tokens);
    if (ops.bTransposed)
      copyTile(bOp, stage, n0, k0, inRange, tokens);
    else
      copyTile(bOp, stage, k0, n0, inRange, tokens);
    if (tokens.empty())
      return Value();
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokenType, tokens);
  }

  /// Runs the epilogue's body at the builder's insertion point on `args`
  /// (one value per block argument): `width`-lane vectors, or scalars when
  /// `width` is 0. Scalars the body uses (constants, captured values) are
  /// broadcast where a vector op needs them. Returns the yielded value.
  Value applyEpilogueBody(ArrayRef<Value> args, int64_t width) {
    linalg::GenericOp op = ops.epilogue.op;
    IRMapping map;
    for (auto [arg, value] : llvm::zip(op.getBlock()->getArguments(), args))
      map.map(arg, value);
    auto asVector = [&](Value v) -> Value {
      if (!width || isa<VectorType>(v.getType()))
        return v;
      return vector::BroadcastOp::create(
          b, loc, VectorType::get({width}, v.getType()), v);
    };
    for (Operation &o : op.getBlock()->without_terminator()) {
      if (!width || isa<arith::ConstantOp>(o)) {
        b.clone(o, map);
        continue;
      }
      SmallVector<Value> operands;
      for (Value v : o.getOperands())
        operands.push_back(asVector(map.lookupOrDefault(v)));
      SmallVector<Type> types;
      for (Type t : o.getResultTypes())
        types.push_back(VectorType::get({width}, t));
      OperationState state(loc, o.getName(), operands, types, o.getAttrs());
      Operation *vectorOp = b.create(state);
      map.map(o.getResults(), vectorOp->getResults());
    }
    return asVector(
        map.lookupOrDefault(op.getBlock()->getTerminator()->getOperand(0)));
  }

  /// The epilogue's block arguments for the piece of `width` elements (0:
  /// one element) at row `gr`, column `gc` of C: `acc` for C, the other
  /// inputs read at the same position, the output's current value if the
  /// body reads it.
  /// The epilogue's loop indices at row `gr`, column `gc` of C: (m, n),
  /// (batch, m, n), or for a convolution (image, oh, ow, f). They index its
  /// output too (identity map).
  SmallVector<Value> epiloguePosition(Value gr, Value gc) {
    if (ops.conv) {
      const GPUConvolution &cv = *ops.conv;
      return {ix.div(gr, cv.outH * cv.outW), ix.rem(ix.div(gr, cv.outW), cv.outH),
              ix.rem(gr, cv.outW), gc};
    }
    SmallVector<Value> position;
    linalg::GenericOp op = ops.epilogue.op;
    if (op.getNumLoops() == 3)
      position.push_back(batchIndex);
    position.push_back(gr);
    position.push_back(gc);
    return position;
  }

  SmallVector<Value> epilogueArgs(Value acc, Value gr, Value gc,
                                  int64_t width) {
    linalg::GenericOp op = ops.epilogue.op;
    unsigned loops = op.getNumLoops();
    SmallVector<Value> position = epiloguePosition(gr, gc);
    auto read = [&](Value memref, AffineMap map) -> Value {
      // A scalar operand (a rank-0 map over a non-shaped value) is used as
      // it is; the launch captures it.
      if (!isa<MemRefType>(memref.getType()))
        return width ? vector::BroadcastOp::create(
                           b, loc, VectorType::get({width}, memref.getType()),
                           memref)
                           .getResult()
                     : memref;
      SmallVector<Value> indices;
      // The result that indexes along n, if any.
      std::optional<unsigned> alongN;
      for (auto [i, e] : llvm::enumerate(map.getResults())) {
        // findEpilogue admits loop dims and index 0 of broadcast dims.
        auto dim = dyn_cast<AffineDimExpr>(e);
        indices.push_back(dim ? position[dim.getPosition()] : ix.c(0));
        if (dim && dim.getPosition() == loops - 1)
          alongN = i;
      }
      Type element = cast<MemRefType>(memref.getType()).getElementType();
      auto vectorType = VectorType::get({width}, element);
      if (width && alongN == map.getNumResults() - 1)
        return loadElements(b, loc, vectorType, memref, indices);
      if (width && alongN) {
        // n indexes a dim followed by broadcast ones (C x 1 x 1): the
        // piece's elements one by one.
        SmallVector<Value> elements;
        for (int64_t k = 0; k < width; ++k) {
          SmallVector<Value> at = indices;
          at[*alongN] = ix.add(at[*alongN], k);
          elements.push_back(memref::LoadOp::create(b, loc, memref, at));
        }
        return vector::FromElementsOp::create(b, loc, vectorType, elements);
      }
      Value scalar = memref::LoadOp::create(b, loc, memref, indices);
      return width ? vector::BroadcastOp::create(b, loc, vectorType, scalar)
                         .getResult()
                   : scalar;
    };
    SmallVector<Value> args;
    for (OpOperand &input : op->getOpOperands()) {
      unsigned i = input.getOperandNumber();
      if (i == ops.epilogue.cInput) {
        args.push_back(acc);
      } else if (op.isDpsInit(&input)) {
        BlockArgument out = op.getMatchingBlockArgument(&input);
        args.push_back(out.use_empty()
                           ? acc
                           : read(input.get(), op.getMatchingIndexingMap(&input)));
      } else {
        args.push_back(read(input.get(), op.getMatchingIndexingMap(&input)));
      }
    }
    return args;
  }

  /// Writes (`toShared` false: reads) the C tile between `cStage` and C
  /// with one 16-byte vector per thread and chunk, element by element where
  /// the vector crosses the matrix edge; rows past M are skipped on writes
  /// and read as zeros.
  void moveCTile(Value cStage, bool toGlobal) {
    Type accType = cast<MemRefType>(ops.c.getType()).getElementType();
    int64_t accBytes = accType.getIntOrFloatBitWidth() / 8;
    int64_t v = 16 / accBytes;
    auto vecType = VectorType::get({v}, accType);
    int64_t chunksPerRow = t.blockN / v;
    bool edges = ops.m % t.blockM != 0 || ops.n % t.blockN != 0;
    llvm::MaybeAlign align =
        ops.cRowsAligned ? llvm::MaybeAlign(16) : llvm::MaybeAlign();
    forEachPiece(t.blockM, chunksPerRow, v, [&](Value r, Value c) {
      Value gr = ix.add(m0, r), gc = ix.add(n0, c);
      SmallVector<Value> global = cIndices(gr, gc);
      auto wholeVector = [&](OpBuilder &bb, Location l) {
        if (toGlobal) {
          Value val = vector::LoadOp::create(bb, l, vecType, cStage,
                                             ValueRange{r, c});
          if (!ops.epilogue.op) {
            vector::StoreOp::create(bb, l, val, ops.c, global, false, align);
            return;
          }
          Value result = applyEpilogueBody(epilogueArgs(val, gr, gc, v), v);
          auto resultType = cast<VectorType>(result.getType());
          int64_t bytes =
              v * resultType.getElementType().getIntOrFloatBitWidth() / 8;
          storeElements(
              bb, l, result, ops.epilogue.output, epiloguePosition(gr, gc),
              ops.epilogue.outputRowAlignment >= bytes ? llvm::MaybeAlign(bytes)
                                                       : llvm::MaybeAlign());
        } else {
          Value val =
              vector::LoadOp::create(bb, l, vecType, ops.c, global, false, align);
          vector::StoreOp::create(bb, l, val, cStage, ValueRange{r, c});
        }
      };
      if (!edges) {
        wholeVector(b, loc);
        return;
      }
      Value rowIn = ix.lt(gr, ops.m);
      Value whole = ix.andi(rowIn, ix.le(ix.add(gc, v), ops.n));
      auto ifWhole = scf::IfOp::create(b, loc, whole, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(ifWhole.thenBlock());
        wholeVector(b, loc);
        // Element by element: columns inside the matrix, rows inside it (on
        // reads, the others are zero).
        b.setInsertionPointToStart(ifWhole.elseBlock());
        Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(accType));
        for (int64_t e = 0; e < v; ++e) {
          Value col = ix.add(gc, e);
          Value inside = ix.andi(rowIn, ix.lt(col, ops.n));
          SmallVector<Value> at = cIndices(gr, col);
          Value sharedCol = ix.add(c, e);
          if (toGlobal) {
            auto guard = scf::IfOp::create(b, loc, inside, false);
            OpBuilder::InsertionGuard g2(b);
            b.setInsertionPointToStart(guard.thenBlock());
            Value val = memref::LoadOp::create(b, loc, cStage,
                                               ValueRange{r, sharedCol});
            if (ops.epilogue.op)
              memref::StoreOp::create(
                  b, loc, applyEpilogueBody(epilogueArgs(val, gr, col, 0), 0),
                  ops.epilogue.output, epiloguePosition(gr, col));
            else
              memref::StoreOp::create(b, loc, val, ops.c, at);
          } else {
            auto guard = scf::IfOp::create(b, loc, TypeRange{accType}, inside,
                                           /*withElseRegion=*/true);
            {
              OpBuilder::InsertionGuard g2(b);
              b.setInsertionPointToStart(guard.thenBlock());
              Value val = memref::LoadOp::create(b, loc, ops.c, at);
              scf::YieldOp::create(b, loc, val);
              b.setInsertionPointToStart(guard.elseBlock());
              scf::YieldOp::create(b, loc, zero);
            }
            memref::StoreOp::create(b, loc, guard.getResult(0), cStage,
                                    ValueRange{r, sharedCol});
          }
        }
      }
    });
  }
};
} // namespace

namespace {
/// What every form of the kernel shares: the launch, the views of the
/// dynamic shared buffer (A's stages, then B's; the epilogue's C tile reuses
/// it from the start once the k loop is done) and how each operand's tiles
/// are copied.
struct KernelFrame {
  gpu::LaunchOp launch;
  Value aStages, bStages, cStage;
  OperandCopy aCopy, bCopy;
};
} // namespace

/// Creates the launch of `threads`-thread blocks, one per C tile, and
/// leaves the rewriter at the start of its body with `kb`'s thread, batch
/// and tile offsets set.
static KernelFrame beginKernel(RewriterBase &rewriter, Location loc,
                               const GPUMatmulOperands &ops,
                               const GPUMatmulTiling &t, int64_t threads,
                               KernelBuilder &kb) {
  MLIRContext *ctx = rewriter.getContext();
  IndexMath host{rewriter, loc};
  int64_t numM = (ops.m + t.blockM - 1) / t.blockM;
  int64_t numN = (ops.n + t.blockN - 1) / t.blockN;
  Value one = host.c(1);
  Value smemBytes = arith::ConstantIntOp::create(rewriter, loc,
                                                 rewriter.getI32Type(),
                                                 t.smemBytes);
  KernelFrame f;
  // Split-k: the split along y (the batch keeps z and its grid limit); the
  // block writes partial C split * batch + batch index.
  f.launch = gpu::LaunchOp::create(rewriter, loc, host.c(numM * numN),
                                   host.c(t.kSplits), host.c(ops.batch),
                                   host.c(threads), one, one, smemBytes);
  rewriter.setInsertionPointToStart(&f.launch.getBody().front());
  IndexMath &ix = kb.ix;
  OpBuilder &b = rewriter;
  kb.tid = f.launch.getThreadIds().x;
  kb.batchIndex = f.launch.getBlockIds().z;
  if (t.kSplits > 1) {
    Value split = f.launch.getBlockIds().y;
    kb.cBatchIndex = ix.add(ix.mul(split, ops.batch), kb.batchIndex);
    int64_t kTiles = (ops.k + t.blockK - 1) / t.blockK;
    kb.setKTileRange(split, kTiles, t.kSplits);
  }

  // Block -> C tile, groupM block rows at a time (the blocks running
  // together share A rows and B columns in L2).
  Value pid = f.launch.getBlockIds().x;
  int64_t width = t.groupM * numN;
  Value firstM = ix.mul(ix.div(pid, width), t.groupM);
  Value rowsInGroup = ix.min(ix.sub(ix.c(numM), firstM), ix.c(t.groupM));
  Value inGroup = ix.rem(pid, width);
  Value tileM = ix.add(firstM, ix.rem(inGroup, rowsInGroup));
  Value tileN = ix.div(inGroup, rowsInGroup);
  kb.m0 = ix.mul(tileM, t.blockM);
  kb.n0 = ix.mul(tileN, t.blockN);

  // Every offset into the buffer is a multiple of 32 bytes, so fragments
  // are aligned when the buffer is: the lowering declares its symbol
  // 16-byte aligned (the NVPTX backend emits it as the kernel's only shared
  // variable, which ptxas places at the start of the block's window);
  // test/driver/gpu_ptxas.test checks that no other shared variable comes
  // before it.
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Type inputType = cast<MemRefType>(ops.a.getType()).getElementType();
  Type accType = cast<MemRefType>(ops.c.getType()).getElementType();
  int64_t inputBytes = inputType.getIntOrFloatBitWidth() / 8;
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      workgroup));
  auto stagesType = [&](const SharedTile &tile, Type element) {
    return MemRefType::get({t.stages, tile.rows, tile.stride}, element,
                           AffineMap(), workgroup);
  };
  f.aStages = memref::ViewOp::create(b, loc, stagesType(t.aTile, inputType),
                                     smem, ix.c(0), ValueRange());
  f.bStages =
      memref::ViewOp::create(b, loc, stagesType(t.bTile, inputType), smem,
                             ix.c(t.bStagesOffset(inputBytes)), ValueRange());
  f.cStage =
      memref::ViewOp::create(b, loc,
                             MemRefType::get({t.cTile.rows, t.cTile.stride},
                                             accType, AffineMap(), workgroup),
                             smem, ix.c(0), ValueRange());

  // A tile keeps its operand's global layout: a transposed operand's rows
  // run along its inner dimension.
  auto operandCopy = [&](Value global, bool batched, Value stages,
                         const SharedTile &tile, bool transposed,
                         int64_t outer, int64_t inner, int64_t copyElements) {
    return OperandCopy{global,
                       batched,
                       stages,
                       tile.rows,
                       tile.cols,
                       transposed ? inner : outer,
                       transposed ? outer : inner,
                       copyElements,
                       inputBytes};
  };
  f.aCopy = operandCopy(ops.a, ops.aBatched, f.aStages, t.aTile,
                        ops.aTransposed, ops.m, ops.k, ops.aCopyElements);
  if (ops.conv)
    f.aCopy.conv = &*ops.conv;
  f.bCopy = operandCopy(ops.b, ops.bBatched, f.bStages, t.bTile,
                        ops.bTransposed, ops.k, ops.n, ops.bCopyElements);
  return f;
}

/// The pipelined loop over k tiles, carrying `acc`: `multiply(stage, sums)`
/// adds the product of the tiles in `stage` to `sums`. Returns the final
/// values once every copy has landed and every thread is done with the
/// shared buffer (the epilogue may reuse it).
static SmallVector<Value>
buildKLoop(KernelBuilder &kb, const KernelFrame &f, ValueRange acc,
           function_ref<void(Value, SmallVectorImpl<Value> &)> multiply) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  IndexMath &ix = kb.ix;
  const GPUMatmulTiling &t = kb.t;
  // Prologue: k tiles 0 .. stages-2 into stages 0 .. stages-2.
  int64_t kTiles = (kb.ops.k + t.blockK - 1) / t.blockK;
  Value lastGroup;
  for (int64_t s = 0; s + 1 < t.stages; ++s)
    lastGroup =
        kb.copyKTile(f.aCopy, f.bCopy, ix.c(s), kb.kTileAt(ix.c(s)), kTiles);

  // The loop also carries the stage of k tile kt (kt mod stages), stepped
  // with a compare instead of a division per iteration.
  SmallVector<Value> carried(acc);
  carried.push_back(ix.c(0));
  Value count = kb.kTileBegin ? kb.kTileCount() : ix.c(kTiles);
  auto loop = scf::ForOp::create(b, loc, ix.c(0), count, ix.c(1), carried);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value stage = loop.getRegionIterArgs().back();
    if (lastGroup)
      nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup,
                                       b.getI32IntegerAttr(t.stages - 2));
    gpu::BarrierOp::create(b, loc);
    // Tile kt + stages - 1 goes to the stage tile kt - 1 used.
    Value previous = ix.select(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, stage,
                              ix.c(0)),
        ix.c(t.stages - 1), ix.add(stage, -1));
    kb.deferStores = !kb.ops.asyncCopies;
    kb.copyKTile(f.aCopy, f.bCopy, previous,
                 kb.kTileAt(ix.add(kt, t.stages - 1)), kTiles);
    kb.deferStores = false;
    SmallVector<Value> sums(loop.getRegionIterArgs().drop_back());
    multiply(stage, sums);
    kb.flushStores();
    Value following = ix.add(stage, 1);
    following = ix.select(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, following,
                              ix.c(t.stages)),
        ix.c(0), following);
    sums.push_back(following);
    scf::YieldOp::create(b, loc, sums);
  }

  // Only zero-source copies can still be pending; wait for them before the
  // C tile reuses their bytes, and for every thread to finish its last k
  // tile.
  if (lastGroup)
    nvgpu::DeviceAsyncWaitOp::create(b, loc, lastGroup,
                                     b.getI32IntegerAttr(0));
  gpu::BarrierOp::create(b, loc);
  return SmallVector<Value>(loop.getResults().drop_back());
}

/// The operands the product kernel works on. Split-k: C is the partial
/// C's (`partials`), each block's from zero, without the epilogue; the
/// reduction kernel applies the start value, C's contents and the epilogue.
static GPUMatmulOperands kernelOperands(OpBuilder &b, Location loc,
                                        const GPUMatmulOperands &given,
                                        int64_t kSplits) {
  GPUMatmulOperands ops = given;
  if (kSplits <= 1)
    return ops;
  auto type = cast<MemRefType>(given.partials.getType());
  ops.c = given.partials;
  ops.cBatched = true;
  ops.init =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  ops.epilogue = GPUMatmulEpilogue();
  ops.cRowsAligned = given.n * type.getElementTypeBitWidth() / 8 % 16 == 0;
  return ops;
}

gpu::LaunchOp mlir::tessel::buildGPUMatmulKernel(
    RewriterBase &rewriter, Location loc, const GPUMatmulOperands &given,
    const GPUMatmulTiling &t, const MmaInstruction &mma, int64_t warpSize) {
  MLIRContext *ctx = rewriter.getContext();
  int64_t threads = t.warps() * warpSize;
  OpBuilder::InsertionGuard guard(rewriter);
  GPUMatmulOperands ops = kernelOperands(rewriter, loc, given, t.kSplits);
  KernelBuilder kb(rewriter, loc, ops, t, mma, threads);
  KernelFrame f = beginKernel(rewriter, loc, ops, t, threads, kb);
  IndexMath &ix = kb.ix;
  OpBuilder &b = rewriter;
  Type inputType = cast<MemRefType>(ops.a.getType()).getElementType();
  Type accType = cast<MemRefType>(ops.c.getType()).getElementType();

  // The warp's place in the block tile.
  Value warp = ix.div(kb.tid, warpSize);
  int64_t fm = t.fragmentsM(mma), fn = t.fragmentsN(mma);
  Value warpRow = ix.mul(ix.div(warp, t.warpsN), fm * mma.m);
  Value warpCol = ix.mul(ix.rem(warp, t.warpsN), fn * mma.n);

  Type abElement = inputType;
  if (inputType.isInteger(8))
    abElement = IntegerType::get(ctx, 8, IntegerType::Signed);
  auto aFragType = gpu::MMAMatrixType::get({mma.m, mma.k}, abElement, "AOp");
  auto bFragType = gpu::MMAMatrixType::get({mma.k, mma.n}, abElement, "BOp");
  auto cFragType = gpu::MMAMatrixType::get({mma.m, mma.n}, accType, "COp");
  auto fragmentAt = [&](Value rowBase, int64_t i, Value colBase, int64_t j) {
    return SmallVector<Value>{ix.add(rowBase, i), ix.add(colBase, j)};
  };

  // Accumulators: the fill's value, or C's tile through shared memory.
  // gpu.subgroup_mma_constant_matrix takes no f64 (MLIR 22), so f64 fills
  // go through shared memory too: each thread stores the value to its
  // share of the C tile.
  SmallVector<Value> acc;
  if (ops.init && !accType.isF64()) {
    Value splat =
        gpu::SubgroupMmaConstantMatrixOp::create(b, loc, cFragType, ops.init);
    acc.assign(fm * fn, splat);
  } else {
    if (ops.init) {
      auto loop = scf::ForOp::create(b, loc, kb.tid, ix.c(t.blockM * t.blockN),
                                     ix.c(threads));
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(loop.getBody());
      Value e = loop.getInductionVar();
      memref::StoreOp::create(
          b, loc, ops.init, f.cStage,
          ValueRange{ix.div(e, t.blockN), ix.rem(e, t.blockN)});
    } else {
      kb.moveCTile(f.cStage, /*toGlobal=*/false);
    }
    gpu::BarrierOp::create(b, loc);
    for (int64_t i = 0; i < fm; ++i)
      for (int64_t j = 0; j < fn; ++j)
        acc.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
            b, loc, cFragType, f.cStage,
            fragmentAt(warpRow, i * mma.m, warpCol, j * mma.n),
            b.getIndexAttr(t.cTile.stride), UnitAttr()));
    // The first copies overwrite the C tile.
    gpu::BarrierOp::create(b, loc);
  }

  SmallVector<Value> result =
      buildKLoop(kb, f, acc, [&](Value stage, SmallVectorImpl<Value> &sums) {
        UnitAttr aCol = ops.aTransposed ? b.getUnitAttr() : UnitAttr();
        UnitAttr bCol = ops.bTransposed ? b.getUnitAttr() : UnitAttr();
        Value zero = ix.c(0);
        for (int64_t kk = 0; kk < t.blockK; kk += mma.k) {
          SmallVector<Value> aFrags, bFrags;
          for (int64_t i = 0; i < fm; ++i) {
            SmallVector<Value> at =
                ops.aTransposed ? fragmentAt(zero, kk, warpRow, i * mma.m)
                                : fragmentAt(warpRow, i * mma.m, zero, kk);
            at.insert(at.begin(), stage);
            aFrags.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
                b, loc, aFragType, f.aStages, at,
                b.getIndexAttr(t.aTile.stride), aCol));
          }
          for (int64_t j = 0; j < fn; ++j) {
            SmallVector<Value> at =
                ops.bTransposed ? fragmentAt(warpCol, j * mma.n, zero, kk)
                                : fragmentAt(zero, kk, warpCol, j * mma.n);
            at.insert(at.begin(), stage);
            bFrags.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
                b, loc, bFragType, f.bStages, at,
                b.getIndexAttr(t.bTile.stride), bCol));
          }
          for (int64_t i = 0; i < fm; ++i)
            for (int64_t j = 0; j < fn; ++j)
              sums[i * fn + j] = gpu::SubgroupMmaComputeOp::create(
                  b, loc, cFragType, aFrags[i], bFrags[j], sums[i * fn + j],
                  aCol, bCol);
        }
      });

  for (int64_t i = 0; i < fm; ++i)
    for (int64_t j = 0; j < fn; ++j)
      gpu::SubgroupMmaStoreMatrixOp::create(
          b, loc, result[i * fn + j], f.cStage,
          fragmentAt(warpRow, i * mma.m, warpCol, j * mma.n),
          b.getIndexAttr(t.cTile.stride), UnitAttr());
  gpu::BarrierOp::create(b, loc);
  kb.moveCTile(f.cStage, /*toGlobal=*/true);
  gpu::TerminatorOp::create(b, loc);
  return f.launch;
}

//===----------------------------------------------------------------------===//
// f32 and f64 on the SIMT cores
//===----------------------------------------------------------------------===//
//
// Thread (ty, tx) = (tid / threadsN, tid mod threadsN) holds accumulators
// for threadM rows and threadN columns of the block's tile. Per L k steps
// (L = 16 bytes / element: 4 f32, 2 f64) it reads 16 bytes at a time from
// the shared tiles:
// - a tile whose rows run along m or n (A given as (k, m), B as (k, n))
//   gives L adjacent rows (columns) of C at one k: the thread's rows are
//   groups of L, threadsM x L apart, so that the threads of a warp read
//   consecutive 16-byte pieces;
// - a tile whose rows run along k (A as (m, k), B as (n, k)) gives L k
//   of one row: the thread's rows are threadsM apart, so that the rows a
//   warp reads together are consecutive and, with the 16-byte padding the
//   model gives such tiles, in distinct bank groups.
// Each k step is then threadM x threadN multiply-adds, marked `contract`:
// one fma.rn.f32 (fma.rn.f64) each, a single rounding per product and sum.

gpu::LaunchOp
mlir::tessel::buildGPUSimtMatmulKernel(RewriterBase &rewriter, Location loc,
                                       const GPUMatmulOperands &given,
                                       const GPUSimtMatmulTiling &t) {
  int64_t threads = t.threads();
  OpBuilder::InsertionGuard guard(rewriter);
  GPUMatmulOperands ops = kernelOperands(rewriter, loc, given, t.kSplits);
  static const MmaInstruction kNoMma;
  KernelBuilder kb(rewriter, loc, ops, t, kNoMma, threads);
  KernelFrame f = beginKernel(rewriter, loc, ops, t, threads, kb);
  IndexMath &ix = kb.ix;
  OpBuilder &b = rewriter;
  Type element = cast<MemRefType>(ops.a.getType()).getElementType();
  // Elements per 16-byte read; the model's thread tiles and k tiles are
  // multiples of it.
  int64_t lanes = 128 / element.getIntOrFloatBitWidth();
  auto readType = VectorType::get({lanes}, element);

  Value ty = ix.div(kb.tid, t.threadsN);
  Value tx = ix.rem(kb.tid, t.threadsN);
  bool aAlongK = !ops.aTransposed, bAlongK = ops.bTransposed;
  // Row r of the thread's accumulators (column c likewise).
  auto place = [&](int64_t r, Value thread, int64_t threadsAlong, bool alongK) {
    if (alongK)
      return ix.add(thread, r * threadsAlong);
    return ix.add(ix.mul(thread, lanes),
                  (r / lanes) * threadsAlong * lanes + r % lanes);
  };
  SmallVector<Value> rows, cols;
  for (int64_t r = 0; r < t.threadM; ++r)
    rows.push_back(place(r, ty, t.threadsM, aAlongK));
  for (int64_t c = 0; c < t.threadN; ++c)
    cols.push_back(place(c, tx, t.threadsN, bAlongK));

  // Accumulators: the fill's value, or C's tile through shared memory.
  SmallVector<Value> acc;
  if (ops.init) {
    acc.assign(t.threadM * t.threadN, ops.init);
  } else {
    kb.moveCTile(f.cStage, /*toGlobal=*/false);
    gpu::BarrierOp::create(b, loc);
    for (int64_t r = 0; r < t.threadM; ++r)
      for (int64_t c = 0; c < t.threadN; ++c)
        acc.push_back(memref::LoadOp::create(b, loc, f.cStage,
                                             ValueRange{rows[r], cols[c]}));
    gpu::BarrierOp::create(b, loc);
  }

  // The values of `count` accumulator rows (columns) at k steps
  // kk .. kk + lanes - 1 of a stage: values[i][q] for row i, step kk + q.
  auto readOperand = [&](Value stages, Value stage, bool alongK,
                         ArrayRef<Value> places, int64_t kk) {
    int64_t count = places.size();
    SmallVector<SmallVector<Value, 4>> values(count);
    auto load = [&](Value row, Value col) {
      return vector::LoadOp::create(b, loc, readType, stages,
                                    ValueRange{stage, row, col},
                                    /*nontemporal=*/false, llvm::MaybeAlign(16))
          .getResult();
    };
    if (alongK) {
      for (int64_t i = 0; i < count; ++i) {
        Value v = load(places[i], ix.c(kk));
        for (int64_t q = 0; q < lanes; ++q)
          values[i].push_back(vector::ExtractOp::create(b, loc, v, q));
      }
      return values;
    }
    for (int64_t i = 0; i < count; ++i)
      values[i].resize(lanes);
    for (int64_t q = 0; q < lanes; ++q)
      for (int64_t g = 0; g < count; g += lanes) {
        Value v = load(ix.c(kk + q), places[g]);
        for (int64_t e = 0; e < lanes; ++e)
          values[g + e][q] = vector::ExtractOp::create(b, loc, v, e);
      }
    return values;
  };

  // Multiply-adds marked `contract` become fma.rn.f32 or .f64 (math.fma
  // would be a libdevice call, __nv_fmaf or __nv_fma: see
  // Utils/MultiplyAdds.h).
  auto contract = arith::FastMathFlagsAttr::get(b.getContext(),
                                                arith::FastMathFlags::contract);
  SmallVector<Value> result =
      buildKLoop(kb, f, acc, [&](Value stage, SmallVectorImpl<Value> &sums) {
        for (int64_t kk = 0; kk < t.blockK; kk += lanes) {
          auto aValues = readOperand(f.aStages, stage, aAlongK, rows, kk);
          auto bValues = readOperand(f.bStages, stage, bAlongK, cols, kk);
          for (int64_t q = 0; q < lanes; ++q)
            for (int64_t r = 0; r < t.threadM; ++r)
              for (int64_t c = 0; c < t.threadN; ++c) {
                Value &sum = sums[r * t.threadN + c];
                Value product = arith::MulFOp::create(b, loc, aValues[r][q],
                                                      bValues[c][q], contract);
                sum = arith::AddFOp::create(b, loc, sum, product, contract);
              }
        }
      });

  for (int64_t r = 0; r < t.threadM; ++r)
    for (int64_t c = 0; c < t.threadN; ++c)
      memref::StoreOp::create(b, loc, result[r * t.threadN + c], f.cStage,
                              ValueRange{rows[r], cols[c]});
  gpu::BarrierOp::create(b, loc);
  kb.moveCTile(f.cStage, /*toGlobal=*/true);
  gpu::TerminatorOp::create(b, loc);
  return f.launch;
}

//===----------------------------------------------------------------------===//
// Split-k: the partial C's added up
//===----------------------------------------------------------------------===//
//
// One thread per 16 bytes of C (one element where a row is not a multiple
// of 16 bytes): consecutive threads take consecutive pieces of a row, so a
// warp's loads of each partial C are whole 128-byte lines. The splits are
// added in order, from the fill's value or C's contents, and the epilogue
// is applied before the store, as the product kernel would have.

gpu::LaunchOp
mlir::tessel::buildGPUSplitKReduction(RewriterBase &rewriter, Location loc,
                                      const GPUMatmulOperands &ops,
                                      int64_t kSplits) {
  // Enough threads per block to keep loads in flight; the kernel is bound
  // by memory, not by the block's size.
  constexpr int64_t kThreads = 256;
  OpBuilder::InsertionGuard guard(rewriter);
  OpBuilder &b = rewriter;
  IndexMath host{rewriter, loc};
  auto partialsType = cast<MemRefType>(ops.partials.getType());
  Type accType = partialsType.getElementType();
  int64_t accBytes = accType.getIntOrFloatBitWidth() / 8;
  int64_t width = ops.n * accBytes % 16 == 0 ? 16 / accBytes : 0;
  int64_t perRow = width ? ops.n / width : ops.n;
  int64_t pieces = ops.batch * ops.m * perRow;
  Value one = host.c(1);
  auto launch = gpu::LaunchOp::create(
      rewriter, loc, host.c((pieces + kThreads - 1) / kThreads), one, one,
      host.c(kThreads), one, one);
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  GPUMatmulTiling unusedTiling;
  MmaInstruction unusedMma;
  KernelBuilder kb(rewriter, loc, ops, unusedTiling, unusedMma, kThreads);
  IndexMath &ix = kb.ix;
  Value id =
      ix.add(ix.mul(launch.getBlockIds().x, kThreads), launch.getThreadIds().x);
  auto inside = scf::IfOp::create(b, loc, ix.lt(id, pieces),
                                  /*withElseRegion=*/false);
  b.setInsertionPointToStart(inside.thenBlock());
  Value col = ix.mul(ix.rem(id, perRow), width ? width : 1);
  Value row = ix.rem(ix.div(id, perRow), ops.m);
  kb.batchIndex = ix.div(id, perRow * ops.m);

  auto vectorType = VectorType::get({width}, accType);
  auto load = [&](Value memref, ValueRange indices,
                  llvm::MaybeAlign align) -> Value {
    if (!width)
      return memref::LoadOp::create(b, loc, memref, indices).getResult();
    return vector::LoadOp::create(b, loc, vectorType, memref, indices, false,
                                  align)
        .getResult();
  };
  bool isFloat = isa<FloatType>(accType);
  auto add = [&](Value x, Value y) -> Value {
    if (isFloat)
      return arith::AddFOp::create(b, loc, x, y);
    return arith::AddIOp::create(b, loc, x, y);
  };
  llvm::MaybeAlign cAlign =
      ops.cRowsAligned ? llvm::MaybeAlign(16) : llvm::MaybeAlign();
  Value sum;
  if (ops.init)
    sum = width ? vector::BroadcastOp::create(b, loc, vectorType, ops.init)
                      .getResult()
                : ops.init;
  else
    sum = load(ops.c, kb.globalIndices(ops.cBatched, row, col), cAlign);
  for (int64_t split = 0; split < kSplits; ++split) {
    Value partial = ix.add(kb.batchIndex, split * ops.batch);
    sum = add(sum, load(ops.partials, ValueRange{partial, row, col},
                        llvm::MaybeAlign(16)));
  }

  if (!ops.epilogue.op) {
    SmallVector<Value> at = kb.globalIndices(ops.cBatched, row, col);
    if (width)
      vector::StoreOp::create(b, loc, sum, ops.c, at, false, cAlign);
    else
      memref::StoreOp::create(b, loc, sum, ops.c, at);
  } else {
    Value result =
        kb.applyEpilogueBody(kb.epilogueArgs(sum, row, col, width), width);
    SmallVector<Value> at = kb.epiloguePosition(row, col);
    if (width) {
      int64_t bytes =
          width * cast<VectorType>(result.getType()).getElementTypeBitWidth() /
          8;
      storeElements(b, loc, result, ops.epilogue.output, at,
                    ops.epilogue.outputRowAlignment >= bytes
                        ? llvm::MaybeAlign(bytes)
                        : llvm::MaybeAlign());
    } else {
      memref::StoreOp::create(b, loc, result, ops.epilogue.output, at);
    }
  }
  b.setInsertionPointAfter(inside);
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

//===----------------------------------------------------------------------===//
// Hopper: wgmma on TMA-loaded, 128-byte-swizzled tiles
//===----------------------------------------------------------------------===//
//
// Synchronization per k tile kt (stage s = kt mod stages):
//   every thread waits for phase (kt / stages) mod 2 of mbarrier s (thread
//   0 armed it with the tile's byte count; TMA completes it);
//   each warpgroup issues its wgmma group on stage s and waits until at
//   most that group is pending, so its group of tile kt - 1 is done;
//   block barrier: no warpgroup still reads stage (kt - 1) mod stages;
//   thread 0 loads tile kt + stages - 1 into that stage.
// Every tile row is 128 bytes (64 f16 or 128 i8 k elements), the width of
// the swizzle. Two forms:
// - B given as (k, n), f16 only: upstream's nvgpu.warpgroup.mma, with the
//   layouts its descriptors assume (its integration tests under
//   test/Integration/GPU/CUDA/sm90): A tiles of 64 rows, row-major; B
//   tiles of 64 k rows as boxes of 64 columns, 8 KiB apart, read
//   transposed (MN-major).
// - B given as (n, k), f16 or i8: both operands K-major, B's tile n rows of
//   128 bytes laid out like A's, and the kernel issues
//   nvvm.wgmma.mma_async itself on descriptors it encodes. Upstream's
//   nvgpu.warpgroup.mma cannot take this B (its MLIR 22 lowering steps
//   descriptors through row-major B only) nor 8-bit inputs (its verifier
//   rejects them); 8-bit wgmma reads only K-major operands, so i8 always
//   takes this form.

namespace {
/// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
/// Format") of a K-major tile with the 128-byte swizzle at `address` (a
/// shared-memory address): bits 0-13 the address / 16; 16-29 the leading
/// byte offset / 16, which K-major swizzled layouts do not use (1, as
/// CUTLASS writes it); 32-45 the stride byte offset / 16, 1024 bytes
/// between groups of 8 rows; 62-63 the swizzle mode, 1 for 128 bytes. The
/// base offset (bits 49-51) is 0: the ring starts on a 1024-byte boundary.
Value encodeKMajorDescriptor(OpBuilder &b, Location loc, Value address) {
  auto i64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  };
  Value x = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  x = arith::ShRUIOp::create(
      b, loc, arith::AndIOp::create(b, loc, x, i64(0x3FFFF)), i64(4));
  constexpr uint64_t kFixed =
      (uint64_t(1) << 16) | (uint64_t(1024 / 16) << 32) | (uint64_t(1) << 62);
  return arith::OrIOp::create(b, loc, x, i64(int64_t(kFixed)));
}
} // namespace

gpu::LaunchOp
mlir::tessel::buildGPUWgmmaMatmulKernel(RewriterBase &rewriter, Location loc,
                                        const GPUMatmulOperands &given,
                                        const GPUWgmmaTiling &w) {
  MLIRContext *ctx = rewriter.getContext();
  OpBuilder &b = rewriter;
  IndexMath host{rewriter, loc};
  GPUMatmulOperands ops = kernelOperands(rewriter, loc, given, w.kSplits);
  Type inputType = cast<MemRefType>(ops.a.getType()).getElementType();
  Type accType = cast<MemRefType>(ops.c.getType()).getElementType();
  bool integer = inputType.isInteger(8);
  int64_t elementBytes = integer ? 1 : 2;
  // B given as (n, k): both operands K-major, and the kernel issues the
  // NVVM instructions on descriptors it encodes (always so for i8);
  // otherwise upstream's nvgpu.warpgroup.mma on B read transposed.
  bool kMajorB = ops.bTransposed;
  assert((kMajorB || !integer) && "8-bit wgmma reads B K-major only");
  constexpr int64_t kRowBytes = 128; // one swizzled row
  constexpr int64_t kBoxRows = 64;   // rows of one TMA box
  constexpr int64_t kBoxBytes = kBoxRows * kRowBytes;
  constexpr int64_t kSwizzlePeriod = 1024;
  int64_t boxCols = kRowBytes / elementBytes;
  assert(w.blockK == boxCols && "one swizzled row per k tile");
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto sharedMatrix = [&](int64_t rows, int64_t cols, Type element) {
    return MemRefType::get({rows, cols}, element, AffineMap(), workgroup);
  };

  // Host: one descriptor per operand, boxes of 64 rows of 128 bytes.
  MemRefType boxType = sharedMatrix(kBoxRows, boxCols, inputType);
  auto mapType = nvgpu::TensorMapDescriptorType::get(
      ctx, boxType, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  auto describe = [&](Value matrix) -> Value {
    Value unranked = memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(inputType, Attribute()), matrix);
    return nvgpu::TmaCreateDescriptorOp::create(
        b, loc, mapType, unranked,
        ValueRange{host.c(kBoxRows), host.c(boxCols)});
  };
  Value aMap = describe(ops.a);
  Value bMap = describe(ops.b);

  int64_t numM = (ops.m + w.blockM - 1) / w.blockM;
  int64_t numN = (ops.n + w.blockN - 1) / w.blockN;
  Value one = host.c(1);
  Value smemBytes =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), w.smemBytes);
  // Split-k: one block per split along y, as in beginKernel.
  auto launch =
      gpu::LaunchOp::create(b, loc, host.c(numM * numN), host.c(w.kSplits), one,
                            host.c(w.threads()), one, one, smemBytes);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&launch.getBody().front());

  // The WMMA kernel's epilogue reads only these sizes of its tiling.
  GPUMatmulTiling shim;
  shim.blockM = w.blockM;
  shim.blockN = w.blockN;
  shim.blockK = w.blockK;
  shim.cTile = w.cTile;
  MmaInstruction unusedMma;
  KernelBuilder kb(rewriter, loc, ops, shim, unusedMma, w.threads());
  IndexMath &ix = kb.ix;
  kb.tid = launch.getThreadIds().x;
  kb.batchIndex = ix.c(0);
  int64_t kTiles = (ops.k + w.blockK - 1) / w.blockK;
  // The block's k tiles: all of them, or its split's [first, first +
  // count) (count may be below the ring's depth, or none).
  Value firstKTile, kTileCount;
  if (w.kSplits > 1) {
    Value split = launch.getBlockIds().y;
    kb.cBatchIndex = split;
    kb.setKTileRange(split, kTiles, w.kSplits);
    firstKTile = kb.kTileBegin;
    kTileCount = kb.kTileCount();
  }
  Value pid = launch.getBlockIds().x;
  int64_t width = w.groupM * numN;
  Value firstM = ix.mul(ix.div(pid, width), w.groupM);
  Value rowsInGroup = ix.min(ix.sub(ix.c(numM), firstM), ix.c(w.groupM));
  Value inGroup = ix.rem(pid, width);
  kb.m0 = ix.mul(ix.add(firstM, ix.rem(inGroup, rowsInGroup)), w.blockM);
  kb.n0 = ix.mul(ix.div(inGroup, rowsInGroup), w.blockN);

  // The ring starts at the first 1024-byte boundary of the dynamic buffer:
  // TMA's swizzle and the wgmma descriptors (base offset 0) both take the
  // pattern from the address bits, and the mbarriers are static shared
  // memory placed before the buffer (which is why the buffer must be the
  // extern array tessel-externalize-dynamic-shared-memory makes of it:
  // upstream's 1-byte static variable lets ptxas put them inside it).
  Value smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                      workgroup));
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem);
  Value ring =
      ix.rem(ix.sub(ix.c(kSwizzlePeriod), ix.rem(address, kSwizzlePeriod)),
             kSwizzlePeriod);
  auto view = [&](Value byteOffset, MemRefType type) -> Value {
    return memref::ViewOp::create(b, loc, type, smem, byteOffset, ValueRange());
  };
  int64_t bRingOffset = w.stages * w.aStageBytes;
  auto aOffset = [&](Value stage) {
    return ix.add(ring, ix.mul(stage, w.aStageBytes));
  };
  auto bOffset = [&](Value stage) {
    return ix.add(ix.add(ring, ix.mul(stage, w.bStageBytes)), bRingOffset);
  };

  // One mbarrier per stage, one arrival each (thread 0's expect_tx).
  Value leader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, kb.tid, ix.c(0));
  auto barriersType = nvgpu::MBarrierGroupType::get(ctx, workgroup, w.stages);
  Value barriers = nvgpu::MBarrierCreateOp::create(b, loc, barriersType);
  for (int64_t s = 0; s < w.stages; ++s)
    nvgpu::MBarrierInitOp::create(b, loc, barriers, ix.c(1), ix.c(s), leader);
  NVVM::FenceMbarrierInitOp::create(b, loc);
  gpu::BarrierOp::create(b, loc);
  // The maps are in global memory, written by the host, possibly over an
  // older map at the same address (the runtime's map cache reuses its
  // slots): the thread that issues the loads acquires them for the tensor-
  // map proxy first, or TMA may use a stale copy (CUDA C++ Programming
  // Guide, tensor maps passed in global memory).
  {
    auto ifLeader = scf::IfOp::create(b, loc, leader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifLeader.thenBlock());
    nvgpu::TmaFenceOp::create(b, loc, aMap);
    nvgpu::TmaFenceOp::create(b, loc, bMap);
  }
  nvgpu::TmaPrefetchOp::create(b, loc, aMap, leader);
  nvgpu::TmaPrefetchOp::create(b, loc, bMap, leader);

  int64_t txBytes = (w.blockM + w.blockN) * kRowBytes;
  // TMA coordinates run innermost first: (column, row). B's boxes land
  // 8 KiB apart either way: 64 k rows of 64 columns (B as (k, n)), or 64 n
  // rows of 128 bytes of k (B as (n, k)).
  auto loadKTile = [&](Value stage, Value kTile, Value predicate) {
    nvgpu::MBarrierArriveExpectTxOp::create(b, loc, barriers, ix.c(txBytes),
                                            stage, predicate);
    Value k0 = ix.mul(kTile, w.blockK);
    for (int64_t r = 0; r < w.blockM; r += kBoxRows)
      nvgpu::TmaAsyncLoadOp::create(
          b, loc, view(ix.add(aOffset(stage), r * kRowBytes), boxType),
          barriers, aMap, ValueRange{k0, ix.add(kb.m0, r)}, stage, Value(),
          predicate);
    for (int64_t c = 0; c < w.blockN; c += kBoxRows) {
      Value n = ix.add(kb.n0, c);
      nvgpu::TmaAsyncLoadOp::create(
          b, loc,
          view(ix.add(bOffset(stage), (c / kBoxRows) * kBoxBytes), boxType),
          barriers, bMap, kMajorB ? ValueRange{k0, n} : ValueRange{n, k0},
          stage, Value(), predicate);
    }
  };
  for (int64_t s = 0; s + 1 < w.stages && s < kTiles; ++s) {
    if (firstKTile)
      loadKTile(ix.c(s), ix.add(firstKTile, s),
                ix.andi(leader, ix.lt(ix.c(s), kTileCount)));
    else
      loadKTile(ix.c(s), ix.c(s), leader);
  }

  // Each warpgroup's rows of A, and all of B.
  int64_t rows = w.rowsPerWarpgroup();
  int64_t slabs = rows / 64;
  Value warpgroup = ix.div(kb.tid, 128);
  // Upstream's accumulator, or for the NVVM instructions one LLVM struct
  // of the thread's registers per 64-row slab, as nvvm.wgmma.mma_async
  // takes them.
  Type slabType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(w.blockN / 2, accType));
  nvgpu::WarpgroupAccumulatorType accumulatorType;
  SmallVector<Value> carried;
  if (kMajorB) {
    for (int64_t s = 0; s < slabs; ++s)
      carried.push_back(LLVM::ZeroOp::create(b, loc, slabType));
  } else {
    accumulatorType = nvgpu::WarpgroupAccumulatorType::get(
        ctx, VectorType::get({rows, w.blockN}, accType));
    carried.push_back(
        nvgpu::WarpgroupMmaInitAccumulatorOp::create(b, loc, accumulatorType));
  }
  int64_t numAccumulators = carried.size();
  carried.push_back(ix.c(0));
  carried.push_back(arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
  auto loop = scf::ForOp::create(b, loc, ix.c(0),
                                 firstKTile ? kTileCount : ix.c(kTiles),
                                 ix.c(1), carried);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    SmallVector<Value> sums(
        loop.getRegionIterArgs().take_front(numAccumulators));
    Value stage = loop.getRegionIterArgs()[numAccumulators];
    Value phase = loop.getRegionIterArgs()[numAccumulators + 1];
    // A bound on the spin, as upstream's tests use; the wait loops until
    // the phase completes either way.
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, barriers, phase,
                                           ix.c(10000000), stage);
    Value aStart = ix.add(aOffset(stage), ix.mul(warpgroup, rows * kRowBytes));
    if (kMajorB) {
      // Four k steps of 32 bytes (m64nNk32 s8, m64nNk16 f16) along the
      // swizzled rows, the slabs of a step back to back (independent
      // accumulators); one group.
      NVVM::WgmmaFenceAlignedOp::create(b, loc);
      auto shape =
          NVVM::MMAShapeAttr::get(ctx, 64, w.blockN, 32 / elementBytes);
      auto inputs = NVVM::WGMMATypesAttr::get(
          ctx, integer ? NVVM::WGMMATypes::s8 : NVVM::WGMMATypes::f16);
      auto accumulators = NVVM::WGMMATypesAttr::get(
          ctx, integer ? NVVM::WGMMATypes::s32 : NVVM::WGMMATypes::f32);
      auto scaleOne = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
      for (int64_t kk = 0; kk < kRowBytes; kk += 32) {
        Value bDescriptor = encodeKMajorDescriptor(
            b, loc, ix.add(address, ix.add(bOffset(stage), kk)));
        for (int64_t s = 0; s < slabs; ++s) {
          Value aDescriptor = encodeKMajorDescriptor(
              b, loc, ix.add(address, ix.add(aStart, s * 64 * kRowBytes + kk)));
          sums[s] = NVVM::WgmmaMmaAsyncOp::create(
              b, loc, slabType, sums[s], aDescriptor, bDescriptor, shape,
              inputs, inputs, accumulators,
              NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
              scaleOne, scaleOne,
              NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
              NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col),
              NVVM::MMAIntOverflowAttr());
        }
      }
      NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(1));
    } else {
      Value aTile = view(aStart, sharedMatrix(rows, w.blockK, inputType));
      Value bTile =
          view(bOffset(stage), sharedMatrix(w.blockK, w.blockN, inputType));
      auto aDescriptorType = nvgpu::WarpgroupMatrixDescriptorType::get(
          ctx, sharedMatrix(rows, w.blockK, inputType));
      auto bDescriptorType = nvgpu::WarpgroupMatrixDescriptorType::get(
          ctx, sharedMatrix(w.blockK, w.blockN, inputType));
      Value aDescriptor = nvgpu::WarpgroupGenerateDescriptorOp::create(
          b, loc, aDescriptorType, aTile, aMap);
      Value bDescriptor = nvgpu::WarpgroupGenerateDescriptorOp::create(
          b, loc, bDescriptorType, bTile, bMap);
      sums[0] = nvgpu::WarpgroupMmaOp::create(
          b, loc, accumulatorType, aDescriptor, bDescriptor,
          b.getI64IntegerAttr(1), UnitAttr(), b.getUnitAttr(), sums[0]);
    }
    gpu::BarrierOp::create(b, loc);
    // A branch rather than the ops' predicate operand: where the loop is
    // unrolled the condition folds to a constant, which upstream's inline
    // PTX would print as an invalid "@0" guard.
    if (kTiles > w.stages - 1) {
      Value ahead = ix.add(kt, w.stages - 1);
      Value inRange =
          firstKTile ? ix.lt(ahead, kTileCount) : ix.lt(ahead, kTiles);
      auto ifLoad = scf::IfOp::create(b, loc, ix.andi(leader, inRange),
                                      /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(ifLoad.thenBlock());
      Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            stage, ix.c(0));
      Value previous =
          ix.select(isFirst, ix.c(w.stages - 1), ix.add(stage, -1));
      loadKTile(previous, firstKTile ? ix.add(firstKTile, ahead) : ahead,
                Value());
    }
    Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         stage, ix.c(w.stages - 1));
    Value following = ix.select(isLast, ix.c(0), ix.add(stage, 1));
    Value flipped = arith::XOrIOp::create(
        b, loc, phase, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    Value nextPhase = ix.select(isLast, flipped, phase);
    sums.push_back(following);
    sums.push_back(nextPhase);
    scf::YieldOp::create(b, loc, sums);
  }

  // Epilogue: the last groups done in every warpgroup before the C tile
  // overwrites the ring (every issued TMA load was waited for).
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, b.getI64IntegerAttr(0));
  gpu::BarrierOp::create(b, loc);
  Value cStage = view(ring, sharedMatrix(w.blockM, w.cTile.stride, accType));
  if (kMajorB) {
    // The D fragment of m64nNk32 and m64nNk16 (PTX ISA, "Register
    // Fragments and Shared Memory Matrix Layouts" for wgmma): register
    // 4 i + 2 h + e of lane l in warp q of the warpgroup holds row
    // 16 q + l / 4 + 8 h, column 8 i + 2 (l % 4) + e of the slab. Pairs go
    // out as 8-byte stores.
    Value threadInGroup = ix.rem(kb.tid, 128);
    Value lane = ix.rem(threadInGroup, 32);
    Value rowBase =
        ix.add(ix.mul(warpgroup, rows),
               ix.add(ix.mul(ix.div(threadInGroup, 32), 16), ix.div(lane, 4)));
    Value colBase = ix.mul(ix.rem(lane, 4), 2);
    auto pairType = VectorType::get({2}, accType);
    for (int64_t s = 0; s < slabs; ++s)
      for (int64_t i = 0; i < w.blockN / 8; ++i)
        for (int64_t h = 0; h < 2; ++h) {
          int64_t r = 4 * i + 2 * h;
          Value pair = vector::FromElementsOp::create(
              b, loc, pairType,
              ValueRange{
                  LLVM::ExtractValueOp::create(b, loc, loop.getResult(s), r),
                  LLVM::ExtractValueOp::create(b, loc, loop.getResult(s),
                                               r + 1)});
          vector::StoreOp::create(b, loc, pair, cStage,
                                  ValueRange{ix.add(rowBase, s * 64 + 8 * h),
                                             ix.add(colBase, 8 * i)});
        }
  } else {
    // The store's destination has the accumulator's shape. Upstream's
    // lowering places each thread's values by its thread id (warp w of the
    // block at rows 16 w + ...), so the second warpgroup's 64 rows land at
    // rows 64..127 of the same view: every warpgroup gets the tile's start.
    // Rows beyond the view's 64 are still inside the C tile (its stride is
    // the C tile's), which is why the view is a subview of it.
    Value accView = memref::SubViewOp::create(
        b, loc, cStage,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(w.blockN)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    nvgpu::WarpgroupMmaStoreOp::create(b, loc, loop.getResult(0), accView);
  }
  gpu::BarrierOp::create(b, loc);
  kb.moveCTile(cStage, /*toGlobal=*/true);
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

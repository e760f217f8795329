//===- StreamStores.cpp - Non-temporal stores for large outputs -----------===//
//
// An output that is larger than the last-level cache and only written by the
// function gains nothing from being cached: its lines are evicted before
// anyone reads them, and every regular store of a line that misses first
// reads the line from memory (read-for-ownership). Non-temporal stores skip
// both, so a memory-bound kernel's output costs one transfer per line
// instead of two (tessel-image-bench's softmax / layernorm).
//
// They need cache-line-aligned full lines (x86's vmovntps faults on a
// misaligned address): the access offsets are checked statically
// (Analysis/Divisibility), the buffer's own alignment is not known until run
// time, so each loop nest that writes the output is versioned on it.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Tessel/TesselDialect.h"
#include "passes/Analysis/Divisibility.h"
#include "passes/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/TargetParser/Triple.h"

#define DEBUG_TYPE "tessel-stream-stores"

namespace mlir::tessel {
#define GEN_PASS_DEF_STREAMSTORESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {

/// The vector.transfer_writes into `output` (directly or through subviews
/// and casts), or the first other use, which keeps the output cached.
struct OutputWrites {
  SmallVector<vector::TransferWriteOp> writes;
  Operation *otherUse = nullptr;
};

OutputWrites collectWrites(Value output) {
  OutputWrites result;
  SmallVector<Value> worklist{output};
  while (!worklist.empty() && !result.otherUse) {
    Value view = worklist.pop_back_val();
    for (OpOperand &use : view.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::SubViewOp, memref::CastOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      auto write = dyn_cast<vector::TransferWriteOp>(user);
      if (write && use.get() == write.getBase()) {
        result.writes.push_back(write);
        continue;
      }
      result.otherUse = user;
      break;
    }
  }
  return result;
}

/// Why `write` cannot become a non-temporal store of whole `line`-byte
/// lines at `line`-aligned offsets from `output`, or empty.
std::string whyNotStreamable(vector::TransferWriteOp write, Value output,
                             int64_t line) {
  VectorType vectorType = write.getVectorType();
  if (vectorType.getRank() == 0)
    return "the written vector is 0-d (one element)";
  if (write.getMask() || !write.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }))
    return "the write is masked, permuted or may run out of bounds";
  if (llvm::any_of(vectorType.getShape().drop_back(),
                   [](int64_t size) { return size != 1; }))
    return "the written vector has more than one non-unit dimension";
  int64_t bytes = vectorType.getNumElements() *
                  vectorType.getElementTypeBitWidth() / 8;
  if (vectorType.getElementTypeBitWidth() % 8 != 0 || bytes % line != 0)
    return "the written vector (" + std::to_string(bytes) +
           " B) is not a whole number of " + std::to_string(line) +
           "-byte cache lines";
  auto memrefType = cast<MemRefType>(write.getBase().getType());
  if (!memrefType.isLastDimUnitStride())
    return "the innermost written dimension is not contiguous";
  std::optional<BaseOffset> offset =
      offsetFromBase(write.getBase(), write.getIndices());
  if (!offset || offset->base != output)
    return "the address is not an affine offset from the output buffer";
  int64_t elementBytes = vectorType.getElementTypeBitWidth() / 8;
  if (offset->offsetDivisor < kDivisibleByAll &&
      (offset->offsetDivisor * elementBytes) % line != 0)
    return "its offset is known to be a multiple of " +
           std::to_string(offset->offsetDivisor * elementBytes) +
           " B only, not of the " + std::to_string(line) + "-byte line";
  return "";
}

/// The op to version for `write`: its outermost enclosing scf.for below the
/// parallel loop or function body, so the alignment test runs once per nest.
Operation *versioningRoot(Operation *write) {
  Operation *root = write;
  while (auto parent = dyn_cast_or_null<scf::ForOp>(root->getParentOp()))
    root = parent;
  return root;
}

/// Rewrites `write` (in the aligned version of its nest) as a non-temporal
/// vector.store of a 1-D vector claiming `line`-byte alignment.
void makeNonTemporal(vector::TransferWriteOp write, int64_t line) {
  OpBuilder b(write);
  Value value = write.getVector();
  VectorType type = write.getVectorType();
  if (type.getRank() != 1)
    value = vector::ShapeCastOp::create(
        b, write.getLoc(),
        VectorType::get({type.getNumElements()}, type.getElementType()),
        value);
  vector::StoreOp::create(b, write.getLoc(), value, write.getBase(),
                          write.getIndices(), /*nontemporal=*/true,
                          llvm::MaybeAlign(line));
  write.erase();
}

/// if (aligned) { root with `writes` non-temporal; sfence } else { root }.
void versionNest(Operation *root, ArrayRef<vector::TransferWriteOp> writes,
                 Value aligned, int64_t line) {
  OpBuilder b(root);
  Location loc = root->getLoc();
  auto ifOp = scf::IfOp::create(b, loc, root->getResultTypes(), aligned,
                                /*withElseRegion=*/true);
  // Uses outside the new if see its results.
  root->replaceAllUsesWith(ifOp.getResults());

  // Built without results the if has yields already; rebuilt below.
  for (Block *block : {ifOp.thenBlock(), ifOp.elseBlock()})
    if (block->mightHaveTerminator())
      block->getTerminator()->erase();

  b.setInsertionPointToEnd(ifOp.thenBlock());
  IRMapping mapping;
  Operation *streaming = b.clone(*root, mapping);
  // Non-temporal stores are weakly ordered: fence them before whatever
  // publishes the results (the end of the parallel loop, the return).
  // Here the fence runs once per tile; tessel-sink-stream-fences moves it
  // to once per thread after OpenMP conversion.
  LLVM::CallIntrinsicOp::create(b, loc, b.getStringAttr("llvm.x86.sse.sfence"),
                                ValueRange{});
  scf::YieldOp::create(b, loc, streaming->getResults());

  root->moveBefore(ifOp.elseBlock(), ifOp.elseBlock()->end());
  b.setInsertionPointToEnd(ifOp.elseBlock());
  scf::YieldOp::create(b, loc, root->getResults());

  for (vector::TransferWriteOp write : writes)
    makeNonTemporal(
        cast<vector::TransferWriteOp>(mapping.lookup(write.getOperation())),
        line);
}

struct StreamStoresPass
    : public tessel::impl::StreamStoresPassBase<StreamStoresPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    tessel::TargetAttr target = tessel::TargetAttr::lookup(func);
    if (!target || !target.isCPU())
      return;
    int64_t line = target.getCacheLine() > 0 ? target.getCacheLine() : 64;
    int64_t threshold = minBytes > 0 ? int64_t(minBytes) : target.getL3();
    bool x86 = llvm::Triple(target.getTriple()).isX86();

    for (BlockArgument arg : func.getArguments()) {
      std::optional<int64_t> size = staticSizeInBytes(arg.getType());
      if (!size || threshold <= 0 || *size <= threshold)
        continue;
      int64_t bytes = *size;
      OutputWrites uses = collectWrites(arg);
      if (uses.writes.empty())
        continue;
      std::string what = "output #" + std::to_string(arg.getArgNumber()) +
                         " (" + formatBytes(bytes) + ")";
      if (uses.otherUse) {
        uses.otherUse->emitRemark()
            << "cached stores kept for " << what << ": it is also used by "
            << uses.otherUse->getName() << ", not only written";
        continue;
      }
      if (!x86) {
        func.emitRemark() << "cached stores kept for " << what
                          << ": non-temporal stores are emitted for x86 only";
        continue;
      }
      llvm::MapVector<Operation *, SmallVector<vector::TransferWriteOp>> nests;
      for (vector::TransferWriteOp write : uses.writes) {
        std::string why = whyNotStreamable(write, arg, line);
        if (!why.empty()) {
          write->emitRemark()
              << "cached store kept for " << what << ": " << why;
          continue;
        }
        nests[versioningRoot(write)].push_back(write);
      }
      if (nests.empty())
        continue;

      OpBuilder b(func.getBody());
      Location loc = arg.getLoc();
      Value pointer =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, arg);
      Value misalignment = arith::RemUIOp::create(
          b, loc, pointer, arith::ConstantIndexOp::create(b, loc, line));
      Value aligned = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, misalignment,
          arith::ConstantIndexOp::create(b, loc, 0));
      for (auto &[root, writes] : nests)
        versionNest(root, writes, aligned, line);
      func.emitRemark() << what << " is larger than the "
                        << formatBytes(threshold)
                        << (minBytes > 0 ? " threshold" : " last-level cache")
                        << " and only written: " << nests.size()
                        << " loop nest(s) write it with non-temporal "
                           "stores of whole "
                        << line << "-byte lines when the buffer is " << line
                        << "-byte aligned (checked at run time; cached "
                           "stores otherwise)";
    }
  }
};
} // namespace

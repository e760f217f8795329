//===- CheckAllocations.cpp - Fail loudly when a heap buffer is missing ---===//
//
// memref.alloc lowers to malloc, whose result nothing checks: a temporary
// larger than the machine's memory (a PyTorch expand(2^20, 2^20).sum(0)
// materializes 4 TiB) made the compiled function segfault on its first
// store. A null pointer now stops the program with a message naming the
// function and the buffer. The check is a compare and a branch per heap
// allocation, none per element.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Tessel/TargetDescription.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#define DEBUG_TYPE "tessel-check-allocations"

namespace mlir::tessel {
#define GEN_PASS_DEF_CHECKALLOCATIONSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

/// The message of the check after `alloc` in `func`.
static std::string outOfMemoryMessage(func::FuncOp func,
                                      memref::AllocOp alloc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  MemRefType type = alloc.getType();
  os << "tessel: out of memory: @" << func.getSymName()
     << " could not allocate a " << type;
  if (int64_t bytes = tessel::storageBytes(type.getElementType());
      bytes && type.hasStaticShape())
    os << " (" << type.getNumElements() * bytes << " bytes)";
  return text;
}

namespace {
struct CheckAllocationsPass
    : public tessel::impl::CheckAllocationsPassBase<CheckAllocationsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp alloc) {
      // An empty buffer may legitimately come back null.
      if (!alloc.getType().hasStaticShape() ||
          alloc.getType().getNumElements() > 0)
        allocs.push_back(alloc);
    });
    OpBuilder b(&getContext());
    for (memref::AllocOp alloc : allocs) {
      Location loc = alloc.getLoc();
      b.setInsertionPointAfter(alloc);
      Value pointer =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, alloc);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value allocated = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                              pointer, zero);
      cf::AssertOp::create(b, loc, allocated, outOfMemoryMessage(func, alloc));
    }
  }
};
} // namespace

//===- ValidateInput.cpp - Check the input contract ----------------------===//
//
// Rejects what later passes would mishandle (dynamic shapes, exotic element
// types, foreign ops, non-identity ABI layouts) with a diagnostic at the op.
//
//===----------------------------------------------------------------------===//
#include "dialects/Tessel/TargetDescription.h"
#include "passes/Passes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tessel-validate-input"

namespace mlir::tessel {
#define GEN_PASS_DEF_VALIDATEINPUTPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Dialects a frontend may hand us. Everything else (gpu, llvm, vector, ...)
/// is what Tessel produces, not what it consumes.
static const llvm::StringSet<> kInputDialects = {
    "builtin", "func",   "linalg", "tensor", "arith", "math",
    "memref",  "bufferization", "tosa", "scf", "affine", "ml_program"};

/// No buffer may exceed what an x86-64/GPU virtual address space can map
/// (2^47 bytes); anything larger is a frontend bug or an overflow waiting.
static constexpr int64_t kMaxBufferBytes = int64_t(1) << 47;

static bool isSupportedElementType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, intType.getWidth());
  return isa<IndexType, Float16Type, BFloat16Type, Float32Type, Float64Type>(
      type);
}

/// Checks one type; on failure returns the reason (empty means fine).
static std::string checkType(Type type) {
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasRank()) {
      os << "has unranked type " << type << ": Tessel needs static shapes";
      return reason;
    }
    if (!shaped.hasStaticShape()) {
      os << "has dynamic shape " << type << ": Tessel needs static shapes";
      return reason;
    }
    Type element = shaped.getElementType();
    if (!isSupportedElementType(element)) {
      os << "has element type " << element << " in " << type
         << ", which Tessel does not support (supported: i1, i8, i16, i32, "
            "i64, index, f16, bf16, f32, f64)";
      return reason;
    }
    int64_t bytes = storageBytes(element);
    for (int64_t dim : shaped.getShape()) {
      if (dim != 0 && bytes > kMaxBufferBytes / dim) {
        os << "has type " << type
           << " larger than the 2^47-byte address space Tessel targets";
        return reason;
      }
      bytes *= dim;
    }
    return reason;
  }
  if (type.isIntOrIndexOrFloat() && !isSupportedElementType(type))
    os << "has type " << type
       << ", which Tessel does not support (supported: i1, i8, i16, i32, "
          "i64, index, f16, bf16, f32, f64)";
  else if (isa<ComplexType, UnrankedTensorType, UnrankedMemRefType>(type))
    os << "has type " << type << ", which Tessel does not support";
  return reason;
}

namespace {
struct ValidateInputPass
    : public tessel::impl::ValidateInputPassBase<ValidateInputPass> {
  void runOnOperation() override {
    bool valid = true;
    auto check = [&](Operation *op, Type type, StringRef what, unsigned index) {
      std::string reason = checkType(type);
      if (reason.empty())
        return;
      op->emitOpError() << what << " #" << index << " " << reason;
      valid = false;
    };

    getOperation()->walk([&](Operation *op) {
      if (op == getOperation())
        return;
      Dialect *dialect = op->getDialect();
      if (!dialect) {
        op->emitOpError() << "is unregistered; Tessel cannot compile it";
        valid = false;
        return;
      }
      if (!kInputDialects.contains(dialect->getNamespace())) {
        op->emitOpError() << "is from dialect '" << dialect->getNamespace()
                          << "', which Tessel does not accept as input "
                             "(accepted: linalg, tensor, arith, math, "
                             "memref, bufferization, tosa, scf, affine, "
                             "func, ml_program)";
        valid = false;
        return;
      }
      if (isa<ModuleOp>(op)) {
        op->emitOpError() << "is nested in the input module; Tessel compiles "
                             "the functions of one module (move them to the "
                             "top level)";
        valid = false;
        return;
      }
      if (isa<memref::DeallocOp>(op)) {
        op->emitOpError() << "frees a buffer in the input; Tessel places "
                             "deallocations itself, so remove explicit "
                             "memref.dealloc ops";
        valid = false;
        return;
      }
      for (OpResult result : op->getResults())
        check(op, result.getType(), "result", result.getResultNumber());
      for (Region &region : op->getRegions())
        for (Block &block : region) {
          bool isSignature = isa<func::FuncOp>(op) && &block == &region.front();
          for (BlockArgument arg : block.getArguments())
            check(op, arg.getType(), isSignature ? "argument" : "block argument",
                  arg.getArgNumber());
        }

      auto func = dyn_cast<func::FuncOp>(op);
      if (!func)
        return;
      if (!func.isExternal() &&
          func.getSymName().starts_with("_mlir_ciface_")) {
        op->emitOpError() << "is named '" << func.getSymName()
                          << "': the prefix _mlir_ciface_ is reserved for "
                             "the C entry points Tessel generates";
        valid = false;
      }
      FunctionType type = func.getFunctionType();
      if (func.isExternal())
        for (auto [index, input] : llvm::enumerate(type.getInputs()))
          check(op, input, "argument", index);
      for (auto [index, result] : llvm::enumerate(type.getResults()))
        check(op, result, "result", index);
      if (!func.isPublic())
        return;
      // The C ABI passes dense row-major descriptors; other layouts would
      // need the caller to know our stride conventions.
      for (auto [index, input] : llvm::enumerate(type.getInputs())) {
        auto memref = dyn_cast<MemRefType>(input);
        if (memref && !memref.getLayout().isIdentity()) {
          op->emitOpError() << "argument #" << index << " has type " << memref
                          << " with a non-identity layout; public functions "
                             "take identity-layout memrefs";
          valid = false;
        }
      }
    });
    if (!valid)
      signalPassFailure();
  }
};
} // namespace

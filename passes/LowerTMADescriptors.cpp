//===- LowerTMADescriptors.cpp - Host TMA descriptors to runtime calls ----===//
//
// nvgpu.tma.create.descriptor runs on the host, and kernels read the
// descriptor through a pointer. Upstream lowers it inside
// convert-nvgpu-to-nvvm, which has to run on the whole module before
// outlining for the kernels to receive plain pointers; but that conversion
// also rewrites every other nvgpu op in the launch bodies, and fails on the
// WMMA kernels, whose loops carry gpu.mma_matrix values its type converter
// does not know. This pass converts only the descriptor ops (with
// upstream's pattern: the same runtime call, mgpuTensorMapEncodeTiledMemref)
// and hands each kernel the pointer, cast back to the descriptor type inside
// the launch body, so outlining passes a pointer.
//
// A descriptor of a constant global's view (a weight compiled into the
// program) would record the constant's host address, which TMA cannot
// read. Its call goes to the runtime's tesselTensorMapEncodeTiledConstant,
// which describes a device copy of the constant, uploaded once.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Utils/GlobalViews.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "tessel-lower-tma-descriptors"

namespace mlir::tessel {
#define GEN_PASS_DEF_LOWERTMADESCRIPTORSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

/// The memref that upstream's lowering of a descriptor op passes as the
/// call's descriptor argument: `llvm.extractvalue %s[1]` of the cast of an
/// unranked memref to its LLVM struct; null if the argument is not that.
static Value describedMemref(LLVM::CallOp call) {
  if (call.getArgOperands().size() < 2)
    return {};
  auto extract = call.getArgOperands()[1].getDefiningOp<LLVM::ExtractValueOp>();
  if (!extract || extract.getPosition() != ArrayRef<int64_t>{1})
    return {};
  auto cast =
      extract.getContainer().getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast || cast->getNumOperands() != 1 ||
      !isa<UnrankedMemRefType>(cast.getOperand(0).getType()))
    return {};
  return cast.getOperand(0);
}

/// The module's zeroed 8-byte slot for `global`'s device copies, which the
/// runtime numbers on first use (one per constant, shared by its views).
static LLVM::GlobalOp deviceCopySlot(ModuleOp module, memref::GlobalOp global,
                                     SymbolTable &symbols) {
  std::string name = ("__tessel_device_copy_of_" + global.getSymName()).str();
  if (auto existing = symbols.lookup<LLVM::GlobalOp>(name))
    return existing;
  OpBuilder b(module.getBodyRegion());
  Type i64 = b.getI64Type();
  auto slot =
      LLVM::GlobalOp::create(b, global.getLoc(), i64,
                             /*isConstant=*/false, LLVM::Linkage::Internal,
                             name, b.getIntegerAttr(i64, 0));
  symbols.insert(slot);
  return slot;
}

/// Sends the descriptors of constant globals' views to
/// tesselTensorMapEncodeTiledConstant(slot, constant, bytes, <the memref
/// call's arguments>). A mutable global has no copy that would stay
/// right: an error.
static LogicalResult redirectConstantDescriptors(ModuleOp module) {
  SmallVector<std::pair<LLVM::CallOp, memref::GetGlobalOp>> calls;
  bool ok = true;
  module.walk([&](LLVM::CallOp call) {
    if (call.getCallee() != "mgpuTensorMapEncodeTiledMemref")
      return;
    Value described = describedMemref(call);
    SmallVector<Operation *> chain = described
                                         ? tessel::globalViewChain(described)
                                         : SmallVector<Operation *>();
    if (chain.empty())
      return;
    auto getGlobal = cast<memref::GetGlobalOp>(chain.front());
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        getGlobal, getGlobal.getNameAttr());
    if (!global || !global.getConstant()) {
      getGlobal->emitOpError()
          << "reads a mutable global that a TMA descriptor describes; TMA "
             "reaches only constant globals (copied to the device once)";
      ok = false;
      return;
    }
    calls.emplace_back(call, getGlobal);
  });
  if (!ok || calls.empty())
    return success(ok);

  MLIRContext *ctx = module.getContext();
  SymbolTable symbols(module);
  OpBuilder b(ctx);
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  for (auto [call, getGlobal] : calls) {
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        getGlobal, getGlobal.getNameAttr());
    MemRefType type = global.getType();
    int64_t bits = type.getElementTypeBitWidth();
    if (!type.hasStaticShape() || bits % 8 != 0) {
      getGlobal->emitOpError()
          << "is described by a TMA descriptor, but its global's type " << type
          << " has no static size in bytes";
      return failure();
    }
    int64_t bytes = type.getNumElements() * (bits / 8);
    LLVM::GlobalOp slot = deviceCopySlot(module, global, symbols);

    Location loc = call.getLoc();
    b.setInsertionPoint(call);
    Value slotAddress = LLVM::AddressOfOp::create(b, loc, slot);
    Value hostIndex = memref::ExtractAlignedPointerAsIndexOp::create(
        b, loc, getGlobal.getResult());
    Value hostInteger = arith::IndexCastOp::create(b, loc, i64, hostIndex);
    Value hostAddress =
        LLVM::IntToPtrOp::create(b, loc, ptrType, ValueRange{hostInteger});
    Value byteCount =
        LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(bytes));
    SmallVector<Value> arguments = {slotAddress, hostAddress, byteCount};
    llvm::append_range(arguments, call.getArgOperands());
    SmallVector<Type> argumentTypes = llvm::to_vector(
        llvm::map_range(arguments, [](Value v) { return v.getType(); }));
    FailureOr<LLVM::LLVMFuncOp> callee = LLVM::lookupOrCreateFn(
        b, module, "tesselTensorMapEncodeTiledConstant", argumentTypes, ptrType,
        /*isVarArg=*/false, /*isReserved=*/false);
    if (failed(callee))
      return call->emitOpError(
          "cannot declare tesselTensorMapEncodeTiledConstant");
    b.setInsertionPoint(call);
    auto constantCall = LLVM::CallOp::create(b, loc, *callee, arguments);
    call.getResult().replaceAllUsesWith(constantCall.getResult());
    call->erase();
  }
  // Upstream's declaration, if no call is left to it.
  if (auto unused =
          symbols.lookup<LLVM::LLVMFuncOp>("mgpuTensorMapEncodeTiledMemref");
      unused && SymbolTable::symbolKnownUseEmpty(unused, module))
    unused->erase();
  return success();
}

namespace {
struct LowerTMADescriptorsPass
    : public tessel::impl::LowerTMADescriptorsPassBase<
          LowerTMADescriptorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](nvgpu::TmaCreateDescriptorOp op) {
      if (op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<gpu::GPUModuleOp>()) {
        op->emitError("a TMA descriptor is created on the host; this one is "
                      "inside a kernel");
        signalPassFailure();
        return;
      }
      any = true;
    });
    if (!any)
      return;
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.addIllegalOp<nvgpu::TmaCreateDescriptorOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))) ||
        failed(redirectConstantDescriptors(module)))
      return signalPassFailure();

    // The conversion leaves pointer -> descriptor casts after the calls.
    // Uses inside a launch get a cast of their own at the body's start, so
    // the launch captures the pointer.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp cast) {
      if (cast->getNumOperands() == 1 && cast->getNumResults() == 1 &&
          isa<LLVM::LLVMPointerType>(cast.getOperand(0).getType()) &&
          isa<nvgpu::TensorMapDescriptorType>(cast.getResult(0).getType()) &&
          !cast->getParentOfType<gpu::LaunchOp>())
        casts.push_back(cast);
    });
    OpBuilder b(ctx);
    for (UnrealizedConversionCastOp cast : casts) {
      DenseMap<Operation *, Value> perLaunch;
      for (OpOperand &use : llvm::make_early_inc_range(cast->getUses())) {
        auto launch = use.getOwner()->getParentOfType<gpu::LaunchOp>();
        if (!launch)
          continue;
        Value &inside = perLaunch[launch];
        if (!inside) {
          b.setInsertionPointToStart(&launch.getBody().front());
          inside = UnrealizedConversionCastOp::create(
                       b, cast.getLoc(), cast.getResult(0).getType(),
                       cast.getOperand(0))
                       .getResult(0);
        }
        use.set(inside);
      }
      if (cast->use_empty())
        cast->erase();
    }
  }
};
} // namespace

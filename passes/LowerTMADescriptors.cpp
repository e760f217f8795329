//===- LowerTMADescriptors.cpp - Host TMA descriptors to runtime calls ----===//
//
// nvgpu.tma.create.descriptor runs on the host, and kernels read the
// descriptor through a pointer. Upstream lowers it inside
// convert-nvgpu-to-nvvm, which has to run on the whole module before
// outlining for the kernels to receive plain pointers; but that conversion
// also rewrites every other nvgpu op in the launch bodies, and fails on the
// WMMA kernels, whose loops carry gpu.mma_matrix values its type converter
// does not know. This pass converts only the descriptor ops, to upstream's
// runtime call (mgpuTensorMapEncodeTiledMemref), and hands each kernel the
// pointer, cast back to the descriptor type inside the launch body, so
// outlining passes a pointer.
//
// The conversion is this file's own, not upstream's pattern, which is too
// weak here in two ways: its element-type switch has no signless 8-bit
// integers (it reaches llvm_unreachable, in a release build the BFLOAT16
// code, which doubles every size the driver computes), and a descriptor of a
// constant global's view (a weight compiled into the program) would record the
// constant's host address, which TMA cannot read. Such a descriptor calls
// the runtime's tesselTensorMapEncodeTiledConstant, which describes a
// device copy of the constant, uploaded once.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Utils/GlobalViews.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "tessel-lower-tma-descriptors"

namespace mlir::tessel {
#define GEN_PASS_DEF_LOWERTMADESCRIPTORSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;

/// CUtensorMapDataType for `element`, the type TMA copies, as cuda.h numbers
/// it; none for types TMA has no code for. Signedness does not matter to a
/// copy.
static std::optional<int64_t> tensorMapDataType(Type element) {
  if (auto integer = dyn_cast<IntegerType>(element)) {
    switch (integer.getWidth()) {
    case 8:
      return 0; // UINT8
    case 16:
      return 1; // UINT16
    case 32:
      return integer.isUnsigned() ? 2 : 3; // UINT32, INT32
    case 64:
      return integer.isUnsigned() ? 4 : 5; // UINT64, INT64
    default:
      return std::nullopt;
    }
  }
  if (element.isF16())
    return 6;
  if (element.isF32())
    return 7;
  if (element.isF64())
    return 8;
  if (element.isBF16())
    return 9;
  return std::nullopt;
}

namespace {
/// nvgpu.tma.create.descriptor -> mgpuTensorMapEncodeTiledMemref(rank,
/// descriptor, data type, interleave, swizzle, L2 promotion, OOB fill, box
/// sizes), the runtime's device copy of the encoded map; for a view of a
/// constant global, tesselTensorMapEncodeTiledConstant(slot, constant,
/// bytes, <the same>), with the module's zeroed 8-byte slot for the
/// constant's device copies (one per constant, shared by its views, numbered
/// by the runtime on first use).
struct LowerTmaCreateDescriptor
    : public ConvertOpToLLVMPattern<nvgpu::TmaCreateDescriptorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(nvgpu::TmaCreateDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tensorType = cast<UnrankedMemRefType>(op.getTensor().getType());
    std::optional<int64_t> dataType =
        tensorMapDataType(tensorType.getElementType());
    if (!dataType) // checked before the conversion
      return rewriter.notifyMatchFailure(op, "no TMA data type");
    Type i64 = rewriter.getI64Type();
    auto ptrType = LLVM::LLVMPointerType::get(getContext());
    auto constant = [&](int64_t value) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64,
                                      rewriter.getI64IntegerAttr(value));
    };

    UnrankedMemRefDescriptor tensor(adaptor.getTensor());
    Value boxSizes =
        LLVM::AllocaOp::create(rewriter, loc, ptrType, i64, constant(5));
    for (auto [index, size] : llvm::enumerate(adaptor.getBoxDimensions())) {
      Value slot = LLVM::GEPOp::create(rewriter, loc, ptrType, i64, boxSizes,
                                       ArrayRef<LLVM::GEPArg>{(int32_t)index});
      LLVM::StoreOp::create(rewriter, loc, size, slot);
    }
    nvgpu::TensorMapDescriptorType map = op.getTensorMap().getType();
    SmallVector<Value> arguments = {
        tensor.rank(rewriter, loc),
        tensor.memRefDescPtr(rewriter, loc),
        constant(*dataType),
        constant(static_cast<int64_t>(map.getInterleave())),
        constant(static_cast<int64_t>(map.getSwizzle())),
        constant(static_cast<int64_t>(map.getL2promo())),
        constant(static_cast<int64_t>(map.getOob())),
        boxSizes};
    StringRef callee = "mgpuTensorMapEncodeTiledMemref";

    SmallVector<Operation *> chain = tessel::globalViewChain(op.getTensor());
    if (!chain.empty()) {
      auto getGlobal = cast<memref::GetGlobalOp>(chain.front());
      memref::GlobalOp global = tessel::lookupGlobal(getGlobal);
      MemRefType globalType = global.getType();
      int64_t bytes = globalType.getNumElements() *
                      (globalType.getElementTypeBitWidth() / 8);
      Value hostIndex = memref::ExtractAlignedPointerAsIndexOp::create(
          rewriter, loc, getGlobal.getResult());
      Value host =
          LLVM::IntToPtrOp::create(rewriter, loc, ptrType,
                                   ValueRange{arith::IndexCastOp::create(
                                       rewriter, loc, i64, hostIndex)});
      LLVM::GlobalOp slot = deviceCopySlot(rewriter, op, global);
      Value slotAddress = LLVM::AddressOfOp::create(rewriter, loc, slot);
      arguments.insert(arguments.begin(), {slotAddress, host, constant(bytes)});
      callee = "tesselTensorMapEncodeTiledConstant";
    }

    SmallVector<Type> argumentTypes = llvm::to_vector(
        llvm::map_range(arguments, [](Value v) { return v.getType(); }));
    FailureOr<LLVM::LLVMFuncOp> function =
        LLVM::lookupOrCreateFn(rewriter, op->getParentOfType<ModuleOp>(),
                               callee, argumentTypes, ptrType);
    if (failed(function))
      return rewriter.notifyMatchFailure(op, "cannot declare the runtime call");
    auto call = LLVM::CallOp::create(rewriter, loc, *function, arguments);
    rewriter.replaceOp(op, call.getResult());
    return success();
  }

  /// The slot of the module around `op` for `global`'s device copies,
  /// marked with the global's name (`tessel.device_copy_of`), so that a
  /// symbol of the input that happens to have the slot's name is neither
  /// taken for it nor clashed with: the slot's name gets a suffix then.
  static LLVM::GlobalOp deviceCopySlot(ConversionPatternRewriter &rewriter,
                                       Operation *op, memref::GlobalOp global) {
    auto module = op->getParentOfType<ModuleOp>();
    StringAttr marker = rewriter.getStringAttr("tessel.device_copy_of");
    std::string base = ("__tessel_device_copy_of_" + global.getSymName()).str();
    std::string name = base;
    for (int suffix = 1;; ++suffix) {
      Operation *existing =
          SymbolTable::lookupSymbolIn(module, rewriter.getStringAttr(name));
      if (!existing)
        break;
      if (auto slot = dyn_cast<LLVM::GlobalOp>(existing);
          slot && slot->getAttr(marker) == global.getSymNameAttr())
        return slot;
      name = base + "_" + std::to_string(suffix);
    }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    Type i64 = rewriter.getI64Type();
    auto slot =
        LLVM::GlobalOp::create(rewriter, global.getLoc(), i64,
                               /*isConstant=*/false, LLVM::Linkage::Internal,
                               name, rewriter.getIntegerAttr(i64, 0));
    slot->setAttr(marker, global.getSymNameAttr());
    return slot;
  }
};
} // namespace

/// What the conversion cannot take, as errors at the op: descriptors made
/// inside kernels, element types TMA has no code for, and views of mutable
/// globals (whose device copy, made once, would go stale). A constant's
/// size in bytes always exists then: memref.global is statically shaped,
/// and its element type is the descriptor's, of whole bytes.
static LogicalResult checkDescriptors(ModuleOp module, bool &any) {
  bool ok = true;
  module.walk([&](nvgpu::TmaCreateDescriptorOp op) {
    any = true;
    if (op->getParentOfType<gpu::LaunchOp>() ||
        op->getParentOfType<gpu::GPUModuleOp>()) {
      op->emitError("a TMA descriptor is created on the host; this one is "
                    "inside a kernel");
      ok = false;
      return;
    }
    Type element =
        cast<UnrankedMemRefType>(op.getTensor().getType()).getElementType();
    if (!tensorMapDataType(element)) {
      op->emitOpError() << "describes " << element
                        << " elements, which TMA has no data type for";
      ok = false;
      return;
    }
    SmallVector<Operation *> chain = tessel::globalViewChain(op.getTensor());
    if (chain.empty())
      return;
    auto getGlobal = cast<memref::GetGlobalOp>(chain.front());
    memref::GlobalOp global = tessel::lookupGlobal(getGlobal);
    if (!global || !global.getConstant()) {
      getGlobal->emitOpError()
          << "reads a mutable global that a TMA descriptor describes; TMA "
             "reaches only constant globals (copied to the device once)";
      ok = false;
    }
  });
  return success(ok);
}

/// Each launch that uses a descriptor gets a copy of its create op right
/// before it. The runtime may overwrite a descriptor's device copy once the
/// thread that was handed it has waited after it (generated code waits
/// after every launch), so a descriptor must be asked for again before
/// each launch that reads it; a repeat is a hit in the runtime's table.
static void createDescriptorsPerLaunch(ModuleOp module) {
  SmallVector<nvgpu::TmaCreateDescriptorOp> creates;
  module.walk([&](nvgpu::TmaCreateDescriptorOp op) { creates.push_back(op); });
  OpBuilder b(module.getContext());
  for (nvgpu::TmaCreateDescriptorOp create : creates) {
    DenseMap<Operation *, Value> perLaunch;
    for (OpOperand &use :
         llvm::make_early_inc_range(create.getResult().getUses())) {
      auto launch = use.getOwner()->getParentOfType<gpu::LaunchOp>();
      if (!launch)
        continue;
      Value &made = perLaunch[launch];
      if (!made) {
        b.setInsertionPoint(launch);
        made = b.clone(*create)->getResult(0);
      }
      use.set(made);
    }
    if (create->use_empty())
      create->erase();
  }
}

namespace {
struct LowerTMADescriptorsPass
    : public tessel::impl::LowerTMADescriptorsPassBase<
          LowerTMADescriptorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    if (failed(checkDescriptors(module, any)))
      return signalPassFailure();
    if (!any)
      return;
    createDescriptorsPerLaunch(module);
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    patterns.add<LowerTmaCreateDescriptor>(converter);
    ConversionTarget target(*ctx);
    target.addIllegalOp<nvgpu::TmaCreateDescriptorOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
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

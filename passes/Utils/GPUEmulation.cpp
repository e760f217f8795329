//===- GPUEmulation.cpp - Helpers of tessel-emulate-gpu-on-cpu ------------===//
//
// The Hopper part runs the kernels tessel-map-matmul-to-gpu{wgmma=true}
// builds (TMA loads completing mbarrier phases, wgmma groups on shared
// memory) on the CPU, with libtessel_runtime's helpers doing what the
// hardware does. The operand layouts and descriptor strides are the ones
// upstream's NVGPUToNVVM lowering encodes, so the emulation reads shared
// memory where the GPU would, given that lowering; how a thread's
// accumulator registers are stored is upstream's lowering too, which the
// kernels depend on (see tessel_emu_wgmma_store).
//
//===----------------------------------------------------------------------===//
#include "passes/Utils/GPUEmulation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tessel;

void mlir::tessel::declareRuntimeFunction(ModuleOp module, StringRef name,
                                          FunctionType type) {
  if (module.lookupSymbol<func::FuncOp>(name))
    return;
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  auto func = func::FuncOp::create(b, module.getLoc(), name, type);
  func.setPrivate();
}

Value mlir::tessel::callRuntime(OpBuilder &b, Location loc, StringRef name,
                                Type result, ValueRange args) {
  auto op = func::CallOp::create(
      b, loc, name, result ? TypeRange{result} : TypeRange{}, args);
  return result ? op.getResult(0) : Value();
}

Value mlir::tessel::elementAddress(OpBuilder &b, Location loc, Value memref,
                                   ValueRange indices) {
  auto type = cast<MemRefType>(memref.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value linear = meta.getOffset();
  for (auto [index, stride] : llvm::zip(indices, meta.getStrides()))
    linear = arith::AddIOp::create(
        b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value size = arith::ConstantIndexOp::create(b, loc, bytes);
  return arith::AddIOp::create(b, loc, base,
                               arith::MulIOp::create(b, loc, linear, size));
}

//===----------------------------------------------------------------------===//
// Hopper
//===----------------------------------------------------------------------===//

namespace {
constexpr StringLiteral kMBarriersCreate = "tessel_emu_mbarriers_create";
constexpr StringLiteral kMBarriersDestroy = "tessel_emu_mbarriers_destroy";
constexpr StringLiteral kMBarrierInit = "tessel_emu_mbarrier_init";
constexpr StringLiteral kMBarrierArriveExpectTx =
    "tessel_emu_mbarrier_arrive_expect_tx";
constexpr StringLiteral kMBarrierTryWait =
    "tessel_emu_mbarrier_try_wait_parity";
constexpr StringLiteral kTmaLoad = "tessel_emu_tma_load_2d";
constexpr StringLiteral kWgmmaZero = "tessel_emu_wgmma_zero";
constexpr StringLiteral kWgmma = "tessel_emu_wgmma";
constexpr StringLiteral kWgmmaWait = "tessel_emu_wgmma_wait";
constexpr StringLiteral kWgmmaStore = "tessel_emu_wgmma_store";
constexpr StringLiteral kWgmmaKMajor = "tessel_emu_wgmma_k_major";
constexpr StringLiteral kWgmmaCommit = "tessel_emu_wgmma_commit";
constexpr StringLiteral kThreadNum = "omp_get_thread_num";

/// The words of a tensor map in host memory, in runtime/lib/gpu_emulation.c's
/// order: base address, rows, columns, row stride, column stride (elements),
/// element bytes, box rows, box columns, swizzle bytes.
constexpr int64_t kMapWords = 9;
constexpr int64_t kWarpgroupThreads = 128;

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

/// An optional i1 predicate as the runtime's int32_t (absent: true).
Value predicateArg(OpBuilder &b, Location loc, Value predicate) {
  if (!predicate)
    return i32Constant(b, loc, 1);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), predicate);
}

/// The calling OpenMP thread, i.e. the GPU thread's index in its block.
Value threadIndex(OpBuilder &b, Location loc) {
  return callRuntime(b, loc, kThreadNum, b.getI32Type(), {});
}

Value addressOf(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<Value> zeros(type.getRank(), indexConstant(b, loc, 0));
  return elementAddress(b, loc, memref, zeros);
}

int64_t swizzleBytes(nvgpu::TensorMapSwizzleKind kind) {
  switch (kind) {
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
    return 128;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
    return 64;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
    return 32;
  default:
    return 0;
  }
}

/// A stack buffer of `type` at the start of `op`'s allocation scope (the
/// host function, or the OpenMP region of an emulated thread), so that ops
/// inside loops do not grow the stack.
Value scopeAlloca(OpBuilder &b, Operation *op, MemRefType type) {
  Operation *scope =
      op->getParentWithTrait<OpTrait::AutomaticAllocationScope>();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&scope->getRegion(0).front());
  return memref::AllocaOp::create(b, op->getLoc(), type);
}

struct TmaCreateDescriptorPattern
    : OpConversionPattern<nvgpu::TmaCreateDescriptorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::TmaCreateDescriptorOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    nvgpu::TensorMapDescriptorType mapType = op.getTensorMap().getType();
    MemRefType box = mapType.getTensor();
    auto ranked = op.getTensor().getDefiningOp<memref::CastOp>();
    if (!ranked)
      return failure();
    auto source = cast<MemRefType>(ranked.getSource().getType());

    Value words = scopeAlloca(
        rewriter, op, MemRefType::get({kMapWords}, rewriter.getIndexType()));
    Value matrix = ranked.getSource();
    auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, matrix);
    Value fields[kMapWords] = {
        addressOf(rewriter, loc, matrix),
        meta.getSizes()[0],
        meta.getSizes()[1],
        meta.getStrides()[0],
        meta.getStrides()[1],
        indexConstant(rewriter, loc, source.getElementTypeBitWidth() / 8),
        indexConstant(rewriter, loc, box.getDimSize(0)),
        indexConstant(rewriter, loc, box.getDimSize(1)),
        indexConstant(rewriter, loc, swizzleBytes(mapType.getSwizzle()))};
    for (auto [i, field] : llvm::enumerate(fields))
      memref::StoreOp::create(rewriter, loc, field, words,
                              indexConstant(rewriter, loc, i));
    rewriter.replaceOp(op, memref::ExtractAlignedPointerAsIndexOp::create(
                               rewriter, loc, words));
    return success();
  }
};

/// Prefetches and fences of tensor maps: the emulation reads the map's
/// memory directly, so they have nothing to do.
template <typename OpTy>
struct EraseTensorMapHintPattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierInitPattern : OpConversionPattern<nvgpu::MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    callRuntime(rewriter, loc, kMBarrierInit, Type(),
                {adaptor.getBarriers(), adaptor.getMbarId(), adaptor.getCount(),
                 predicateArg(rewriter, loc, adaptor.getPredicate())});
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveExpectTxPattern
    : OpConversionPattern<nvgpu::MBarrierArriveExpectTxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierArriveExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    callRuntime(rewriter, loc, kMBarrierArriveExpectTx, Type(),
                {adaptor.getBarriers(), adaptor.getMbarId(),
                 adaptor.getTxcount(),
                 predicateArg(rewriter, loc, adaptor.getPredicate())});
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierTryWaitParityPattern
    : OpConversionPattern<nvgpu::MBarrierTryWaitParityOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::MBarrierTryWaitParityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Upstream's lowering retries until the phase completes; so does the
    // runtime, which bounds the wait instead of the tick count.
    Location loc = op.getLoc();
    Value parity = arith::ExtUIOp::create(rewriter, loc, rewriter.getI32Type(),
                                          adaptor.getPhaseParity());
    callRuntime(rewriter, loc, kMBarrierTryWait, Type(),
                {adaptor.getBarriers(), adaptor.getMbarId(), parity});
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaAsyncLoadPattern : OpConversionPattern<nvgpu::TmaAsyncLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::TmaAsyncLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // TMA coordinates run innermost first: (column, row).
    callRuntime(rewriter, loc, kTmaLoad, Type(),
                {adaptor.getTensorMapDescriptor(),
                 addressOf(rewriter, loc, adaptor.getDst()),
                 adaptor.getCoordinates()[0], adaptor.getCoordinates()[1],
                 adaptor.getBarriers(), adaptor.getMbarId(),
                 predicateArg(rewriter, loc, adaptor.getPredicate())});
    rewriter.eraseOp(op);
    return success();
  }
};

struct GenerateDescriptorPattern
    : OpConversionPattern<nvgpu::WarpgroupGenerateDescriptorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupGenerateDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    nvgpu::TensorMapDescriptorType mapType = op.getTensorMap().getType();
    int64_t swizzle = swizzleBytes(mapType.getSwizzle());
    // The byte offsets upstream's lowering (NVGPUToNVVM) writes into the
    // descriptor: leading = the map's box rows times the swizzle width
    // (where one 64-column chunk of an MN-major operand follows the
    // previous), stride = 8 rows of the swizzle width.
    int64_t boxRows = mapType.getTensor().getDimSize(0);
    Location loc = op.getLoc();
    Value fields[] = {addressOf(rewriter, loc, adaptor.getTensor()),
                      indexConstant(rewriter, loc, boxRows * swizzle),
                      indexConstant(rewriter, loc, 8 * swizzle),
                      indexConstant(rewriter, loc, swizzle)};
    rewriter.replaceOp(op, vector::FromElementsOp::create(
                               rewriter, loc,
                               VectorType::get({4}, rewriter.getIndexType()),
                               fields));
    return success();
  }
};

/// Replaces `op`, whose one result is a warpgroup accumulator, by the
/// thread's registers of it (the type converter's buffer), zeroed.
LogicalResult replaceWithZeroRegisters(Operation *op,
                                       const TypeConverter &converter,
                                       ConversionPatternRewriter &rewriter) {
  auto type = dyn_cast_or_null<MemRefType>(
      converter.convertType(op->getResult(0).getType()));
  if (!type)
    return failure();
  Location loc = op->getLoc();
  Value registers = scopeAlloca(rewriter, op, type);
  callRuntime(
      rewriter, loc, kWgmmaZero, Type(),
      {memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, registers),
       indexConstant(rewriter, loc, type.getNumElements())});
  rewriter.replaceOp(op, registers);
  return success();
}

struct InitAccumulatorPattern
    : OpConversionPattern<nvgpu::WarpgroupMmaInitAccumulatorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaInitAccumulatorOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return replaceWithZeroRegisters(op, *getTypeConverter(), rewriter);
  }
};

struct WarpgroupMmaPattern : OpConversionPattern<nvgpu::WarpgroupMmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType a = op.getDescriptorA().getType().getTensor();
    MemRefType b = op.getDescriptorB().getType().getTensor();
    int64_t m = a.getDimSize(0), k = a.getDimSize(1), n = b.getDimSize(1);
    Location loc = op.getLoc();
    const int64_t bytes = 2;
    // Where instruction (i, kk) of the group starts, as upstream's lowering
    // advances the descriptors (iterateDescriptorA/B): A by k * A's columns
    // per 64-row slab, B by B's rows per 16-deep step.
    int64_t aSlabStep = k * a.getDimSize(1) * bytes;
    int64_t aKStep = 16 * bytes;
    int64_t bKStep = b.getDimSize(0) * 16 * bytes;
    auto field = [&](Value descriptor, int64_t i) -> Value {
      return vector::ExtractOp::create(rewriter, loc, descriptor, i);
    };
    Value descA = adaptor.getDescriptorA(), descB = adaptor.getDescriptorB();
    Value registers = memref::ExtractAlignedPointerAsIndexOp::create(
        rewriter, loc, adaptor.getMatrixC());
    callRuntime(rewriter, loc, kWgmma, Type(),
                {registers, field(descA, 0), field(descB, 0),
                 threadIndex(rewriter, loc), i32Constant(rewriter, loc, m / 64),
                 i32Constant(rewriter, loc, n),
                 i32Constant(rewriter, loc, k / 16),
                 indexConstant(rewriter, loc, aSlabStep),
                 indexConstant(rewriter, loc, aKStep), field(descA, 2),
                 field(descA, 3), indexConstant(rewriter, loc, bKStep),
                 field(descB, 1), field(descB, 2), field(descB, 3)});
    // Upstream's lowering commits the group and waits for all but
    // `waitGroup` groups.
    callRuntime(rewriter, loc, kWgmmaWait, Type(),
                i32Constant(rewriter, loc, op.getWaitGroup()));
    rewriter.replaceOp(op, adaptor.getMatrixC());
    return success();
  }
};

struct WarpgroupMmaStorePattern
    : OpConversionPattern<nvgpu::WarpgroupMmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(nvgpu::WarpgroupMmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    VectorType fragmented = op.getMatrixD().getType().getFragmented();
    Location loc = op.getLoc();
    Value dst = adaptor.getDstMemref();
    auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, dst);
    callRuntime(rewriter, loc, kWgmmaStore, Type(),
                {memref::ExtractAlignedPointerAsIndexOp::create(
                     rewriter, loc, adaptor.getMatrixD()),
                 threadIndex(rewriter, loc),
                 i32Constant(rewriter, loc, fragmented.getDimSize(0) / 64),
                 i32Constant(rewriter, loc, fragmented.getDimSize(1)),
                 addressOf(rewriter, loc, dst), meta.getStrides()[0],
                 meta.getStrides()[1]});
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitGroupPattern : OpConversionPattern<NVVM::WgmmaWaitGroupSyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NVVM::WgmmaWaitGroupSyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callRuntime(rewriter, op.getLoc(), kWgmmaWait, Type(),
                i32Constant(rewriter, op.getLoc(), op.getGroup()));
    rewriter.eraseOp(op);
    return success();
  }
};

/// mbarrier.init's fence orders the init before other threads' use; the
/// runtime's mutex does that here.
struct FenceMBarrierInitPattern
    : OpConversionPattern<NVVM::FenceMbarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NVVM::FenceMbarrierInitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// The accumulator of an instruction the kernel issues itself
/// (nvvm.wgmma.mma_async): an LLVM struct of the thread's registers, all of
/// one 32-bit type. Here: those registers in memory, updated when the
/// instruction's group completes.
std::optional<MemRefType> registersOf(Type type) {
  auto structType = dyn_cast<LLVM::LLVMStructType>(type);
  if (!structType || structType.isIdentified() || structType.getBody().empty())
    return std::nullopt;
  Type element = structType.getBody().front();
  if (!(element.isInteger(32) || element.isF32()) ||
      !llvm::all_equal(structType.getBody()))
    return std::nullopt;
  return MemRefType::get({int64_t(structType.getBody().size())}, element);
}

struct ZeroRegistersPattern : OpConversionPattern<LLVM::ZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LLVM::ZeroOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return replaceWithZeroRegisters(op, *getTypeConverter(), rewriter);
  }
};

/// Reading a register: after the waits that completed its groups, which
/// is when a GPU kernel may read it too.
struct ExtractRegisterPattern : OpConversionPattern<LLVM::ExtractValueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LLVM::ExtractValueOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<MemRefType>(adaptor.getContainer().getType()) ||
        op.getPosition().size() != 1)
      return failure();
    rewriter.replaceOpWithNewOp<memref::LoadOp>(
        op, adaptor.getContainer(),
        ValueRange{indexConstant(rewriter, op.getLoc(), op.getPosition()[0])});
    return success();
  }
};

struct WgmmaKMajorPattern : OpConversionPattern<NVVM::WgmmaMmaAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NVVM::WgmmaMmaAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value registers = memref::ExtractAlignedPointerAsIndexOp::create(
        rewriter, loc, adaptor.getInouts());
    // The runtime's kinds: 0 f16 x f16 -> f32, 1 s8 x s8 -> s32.
    int64_t kind = op.getTypeA() == NVVM::WGMMATypes::s8 ? 1 : 0;
    callRuntime(rewriter, loc, kWgmmaKMajor, Type(),
                {registers, adaptor.getDescriptorA(), adaptor.getDescriptorB(),
                 threadIndex(rewriter, loc),
                 i32Constant(rewriter, loc, op.getShape().getN()),
                 i32Constant(rewriter, loc, kind)});
    rewriter.replaceOp(op, adaptor.getInouts());
    return success();
  }
};

struct WgmmaCommitPattern : OpConversionPattern<NVVM::WgmmaGroupSyncAlignedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NVVM::WgmmaGroupSyncAlignedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callRuntime(rewriter, op.getLoc(), kWgmmaCommit, Type(), {});
    rewriter.eraseOp(op);
    return success();
  }
};

/// wgmma.fence orders register accesses before the instructions; the
/// emulated registers are memory the runtime reads when a group completes.
struct WgmmaFencePattern : OpConversionPattern<NVVM::WgmmaFenceAlignedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NVVM::WgmmaFenceAlignedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

/// What the runtime's wgmma emulates: f32 accumulators of whole 64-row
/// slabs and 8-column steps.
static bool emulatedAccumulator(nvgpu::WarpgroupAccumulatorType type) {
  VectorType fragmented = type.getFragmented();
  return fragmented.getElementType().isF32() && fragmented.getRank() == 2 &&
         fragmented.getDimSize(0) % 64 == 0 &&
         fragmented.getDimSize(1) % 8 == 0;
}

static LogicalResult checkHopperOp(Operation *op) {
  auto fail = [&](const Twine &what) {
    return op->emitError("cannot emulate: ") << what;
  };
  if (auto create = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op)) {
    nvgpu::TensorMapDescriptorType mapType = create.getTensorMap().getType();
    MemRefType box = mapType.getTensor();
    auto cast = create.getTensor().getDefiningOp<memref::CastOp>();
    auto source =
        cast ? dyn_cast<MemRefType>(cast.getSource().getType()) : MemRefType();
    if (!source || source.getRank() != 2 || box.getRank() != 2)
      return fail("a tensor map of other than a 2-D memref cast to "
                  "unranked, with a 2-D box");
    if (mapType.getInterleave() !=
            nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE ||
        mapType.getOob() != nvgpu::TensorMapOOBKind::OOB_ZERO)
      return fail("a tensor map with interleave or NaN fill (only zero "
                  "fill is emulated)");
    for (auto [i, size] : llvm::enumerate(create.getBoxDimensions()))
      if (getConstantIntValue(size) != box.getDimSize(i))
        return fail("box dimensions other than the tensor map's tile shape");
  } else if (auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op)) {
    if (load.getMulticastMask())
      return fail("a multicast TMA load");
    MemRefType box = load.getTensorMapDescriptor().getType().getTensor();
    if (load.getCoordinates().size() != 2 ||
        load.getDst().getType().getShape() != box.getShape())
      return fail("a TMA load of other than a 2-D box into a buffer of its "
                  "shape");
  } else if (auto describe =
                 dyn_cast<nvgpu::WarpgroupGenerateDescriptorOp>(op)) {
    if (!swizzleBytes(describe.getTensorMap().getType().getSwizzle()))
      return fail("a wgmma descriptor of an unswizzled tile");
  } else if (auto init = dyn_cast<nvgpu::WarpgroupMmaInitAccumulatorOp>(op)) {
    if (!emulatedAccumulator(init.getMatrixC().getType()))
      return fail("a warpgroup accumulator other than f32 in 64-row slabs "
                  "and 8-column steps");
  } else if (auto mma = dyn_cast<nvgpu::WarpgroupMmaOp>(op)) {
    MemRefType a = mma.getDescriptorA().getType().getTensor();
    MemRefType b = mma.getDescriptorB().getType().getTensor();
    if (!emulatedAccumulator(mma.getMatrixC().getType()))
      return fail("a warpgroup accumulator other than f32 in 64-row slabs "
                  "and 8-column steps");
    if (!a.getElementType().isF16() || !b.getElementType().isF16() ||
        mma.getTransposeA().value_or(false) ||
        !mma.getTransposeB().value_or(false))
      return fail("a wgmma other than f16 with A K-major and B transposed "
                  "(MN-major), the layouts upstream's lowering supports");
    if (a.getDimSize(0) % 64 || a.getDimSize(1) % 16)
      return fail("a wgmma group of other than 64-row, 16-deep steps");
  } else if (auto mma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
    NVVM::MMAShapeAttr shape = mma.getShape();
    bool s8 = mma.getTypeA() == NVVM::WGMMATypes::s8 &&
              mma.getTypeB() == NVVM::WGMMATypes::s8 &&
              mma.getTypeD() == NVVM::WGMMATypes::s32 && shape.getK() == 32;
    bool f16 = mma.getTypeA() == NVVM::WGMMATypes::f16 &&
               mma.getTypeB() == NVVM::WGMMATypes::f16 &&
               mma.getTypeD() == NVVM::WGMMATypes::f32 && shape.getK() == 16;
    if (!(s8 || f16) || mma.getLayoutA() != NVVM::MMALayout::row ||
        mma.getLayoutB() != NVVM::MMALayout::col || shape.getM() != 64 ||
        mma.getScaleD() != NVVM::WGMMAScaleOut::one ||
        mma.getScaleA() != NVVM::WGMMAScaleIn::one ||
        mma.getScaleB() != NVVM::WGMMAScaleIn::one ||
        mma.getSatfinite() == NVVM::MMAIntOverflow::satfinite)
      return fail("an nvvm.wgmma.mma_async other than m64nNk32 s8 x s8 -> "
                  "s32 or m64nNk16 f16 x f16 -> f32 with both operands "
                  "K-major, accumulating, unscaled, without saturation");
    std::optional<MemRefType> registers = registersOf(mma.getType());
    if (!registers || registers->getNumElements() != shape.getN() / 2)
      return fail("an nvvm.wgmma.mma_async whose accumulator is not one "
                  "struct of N / 2 registers");
  } else if (auto store = dyn_cast<nvgpu::WarpgroupMmaStoreOp>(op)) {
    auto dstType = cast<MemRefType>(store.getDstMemref().getType());
    if (!emulatedAccumulator(store.getMatrixD().getType()) ||
        dstType.getRank() != 2 || !dstType.getElementType().isF32())
      return fail("a warpgroup store of other than f32 accumulators to a "
                  "2-D f32 memref");
  }
  return success();
}

/// An accumulator's registers are one buffer updated in place from its
/// init through loops and products to its store, so each of its values
/// must be used once: a second use would see later updates. Reading a
/// register of an LLVM struct accumulator (llvm.extractvalue) updates
/// nothing, so those reads are not counted.
static LogicalResult checkAccumulatorUses(Value value, Operation *at,
                                          const WgmmaRegisterTypes &types) {
  bool registers = isa<nvgpu::WarpgroupAccumulatorType>(value.getType()) ||
                   types.contains(value.getType());
  if (!registers)
    return success();
  int64_t updates = llvm::count_if(value.getUsers(), [](Operation *user) {
    return !isa<LLVM::ExtractValueOp>(user);
  });
  if (updates <= 1)
    return success();
  return at->emitError("cannot emulate: a warpgroup accumulator used more "
                       "than once (its registers are updated in place)");
}

WgmmaRegisterTypes mlir::tessel::collectWgmmaRegisterTypes(Operation *root) {
  WgmmaRegisterTypes types;
  root->walk([&](NVVM::WgmmaMmaAsyncOp op) {
    if (registersOf(op.getType()))
      types.insert(op.getType());
  });
  return types;
}

void mlir::tessel::separateRegisterInits(Operation *root,
                                         const WgmmaRegisterTypes &types) {
  // Canonicalization hoists the zero structs of a kernel's accumulators
  // (constants) out of its gpu.launch, where the pipeline sinks them back
  // only later, and CSE merges those of several accumulators. Here each
  // use gets a zero of its own right before its user, inside the kernel:
  // one buffer per accumulator and emulated thread.
  SmallVector<LLVM::ZeroOp> zeros;
  root->walk([&](LLVM::ZeroOp op) {
    if (types.contains(op.getType()))
      zeros.push_back(op);
  });
  OpBuilder b(root->getContext());
  for (LLVM::ZeroOp zero : zeros) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : zero->getUses())
      uses.push_back(&use);
    for (OpOperand *use : uses) {
      b.setInsertionPoint(use->getOwner());
      use->set(b.clone(*zero)->getResult(0));
    }
    zero->erase();
  }
}

LogicalResult
mlir::tessel::checkHopperEmulation(Operation *root,
                                   const WgmmaRegisterTypes &types) {
  WalkResult result = root->walk([&](Operation *op) {
    if (failed(checkHopperOp(op)))
      return WalkResult::interrupt();
    for (Value result : op->getResults())
      if (failed(checkAccumulatorUses(result, op, types)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkAccumulatorUses(arg, op, types)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

bool mlir::tessel::isEmulatedHopperOp(Operation *op) {
  return isa<nvgpu::MBarrierCreateOp, nvgpu::MBarrierInitOp,
             nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierTryWaitParityOp,
             nvgpu::TmaAsyncLoadOp, nvgpu::TmaPrefetchOp, nvgpu::TmaFenceOp,
             nvgpu::TmaCreateDescriptorOp, nvgpu::WarpgroupGenerateDescriptorOp,
             nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaInitAccumulatorOp,
             nvgpu::WarpgroupMmaStoreOp, NVVM::FenceMbarrierInitOp,
             NVVM::WgmmaWaitGroupSyncOp, NVVM::WgmmaMmaAsyncOp,
             NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp>(op);
}

void mlir::tessel::hoistHopperMBarrierGroups(OpBuilder &b, Region &body,
                                             SmallVectorImpl<Value> &groups) {
  SmallVector<nvgpu::MBarrierCreateOp> creates;
  body.walk([&](nvgpu::MBarrierCreateOp op) { creates.push_back(op); });
  for (nvgpu::MBarrierCreateOp create : creates) {
    Location loc = create.getLoc();
    nvgpu::MBarrierGroupType type = create.getBarriers().getType();
    Value handle = callRuntime(b, loc, kMBarriersCreate, b.getIndexType(),
                               i32Constant(b, loc, type.getNumBarriers()));
    Value group =
        UnrealizedConversionCastOp::create(b, loc, type, handle).getResult(0);
    create.getBarriers().replaceAllUsesWith(group);
    create.erase();
    groups.push_back(handle);
  }
}

void mlir::tessel::destroyHopperMBarrierGroups(OpBuilder &b, Location loc,
                                               ValueRange groups) {
  for (Value group : groups)
    callRuntime(b, loc, kMBarriersDestroy, Type(), group);
}

void mlir::tessel::declareHopperEmulationFunctions(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type i32 = IntegerType::get(ctx, 32), index = IndexType::get(ctx);
  auto fn = [&](StringRef name, ArrayRef<Type> args, ArrayRef<Type> results) {
    declareRuntimeFunction(module, name, FunctionType::get(ctx, args, results));
  };
  fn(kMBarriersCreate, {i32}, {index});
  fn(kMBarriersDestroy, {index}, {});
  fn(kMBarrierInit, {index, index, index, i32}, {});
  fn(kMBarrierArriveExpectTx, {index, index, index, i32}, {});
  fn(kMBarrierTryWait, {index, index, i32}, {});
  fn(kTmaLoad, {index, index, index, index, index, index, i32}, {});
  fn(kWgmmaZero, {index, index}, {});
  fn(kWgmma,
     {index, index, index, i32, i32, i32, i32, index, index, index, index,
      index, index, index, index},
     {});
  fn(kWgmmaWait, {i32}, {});
  fn(kWgmmaStore, {index, i32, i32, i32, index, index, index}, {});
  Type i64 = IntegerType::get(ctx, 64);
  fn(kWgmmaKMajor, {index, i64, i64, i32, i32, i32}, {});
  fn(kWgmmaCommit, {}, {});
  fn(kThreadNum, {}, {i32});
}

void mlir::tessel::addHopperEmulationTypeConversions(
    TypeConverter &converter, const WgmmaRegisterTypes &types) {
  converter.addConversion([](nvgpu::TensorMapDescriptorType type) -> Type {
    return IndexType::get(type.getContext());
  });
  converter.addConversion([](nvgpu::MBarrierGroupType type) -> Type {
    return IndexType::get(type.getContext());
  });
  converter.addConversion(
      [](nvgpu::WarpgroupMatrixDescriptorType type) -> Type {
        return VectorType::get({4}, IndexType::get(type.getContext()));
      });
  converter.addConversion(
      [](nvgpu::WarpgroupAccumulatorType type) -> std::optional<Type> {
        VectorType fragmented = type.getFragmented();
        if (fragmented.getNumElements() % kWarpgroupThreads)
          return std::nullopt;
        return MemRefType::get(
            {fragmented.getNumElements() / kWarpgroupThreads},
            fragmented.getElementType());
      });
  converter.addConversion(
      [types](LLVM::LLVMStructType type) -> std::optional<Type> {
        if (!types.contains(type))
          return std::nullopt;
        return *registersOf(type);
      });
}

void mlir::tessel::populateHopperEmulationPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    ConversionTarget &target, const WgmmaRegisterTypes &types) {
  target.addDynamicallyLegalDialect<nvgpu::NVGPUDialect>(
      [](Operation *op) { return !isEmulatedHopperOp(op); });
  target.addIllegalOp<NVVM::FenceMbarrierInitOp, NVVM::WgmmaWaitGroupSyncOp,
                      NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaFenceAlignedOp,
                      NVVM::WgmmaGroupSyncAlignedOp>();
  target.addDynamicallyLegalOp<LLVM::ZeroOp>(
      [types](LLVM::ZeroOp op) { return !types.contains(op.getType()); });
  target.addDynamicallyLegalOp<LLVM::ExtractValueOp>(
      [types](LLVM::ExtractValueOp op) {
        return !types.contains(op.getContainer().getType());
      });
  patterns.add<
      TmaCreateDescriptorPattern,
      EraseTensorMapHintPattern<nvgpu::TmaPrefetchOp>,
      EraseTensorMapHintPattern<nvgpu::TmaFenceOp>, MBarrierInitPattern,
      MBarrierArriveExpectTxPattern, MBarrierTryWaitParityPattern,
      TmaAsyncLoadPattern, GenerateDescriptorPattern, InitAccumulatorPattern,
      WarpgroupMmaPattern, WarpgroupMmaStorePattern, WaitGroupPattern,
      FenceMBarrierInitPattern, ZeroRegistersPattern, ExtractRegisterPattern,
      WgmmaKMajorPattern, WgmmaCommitPattern, WgmmaFencePattern>(
      converter, patterns.getContext());
}

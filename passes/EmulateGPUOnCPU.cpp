//===- EmulateGPUOnCPU.cpp - Run gpu.launch kernels on the host CPU -------===//
//
// A test tool: Tessel's GPU kernels are checked numerically on machines
// without a GPU (CI, most sessions) by running the IR the nvgpu pipeline
// builds, before outlining, on the CPU. Each gpu.launch becomes loops over
// its blocks; a block's threads are an OpenMP team of exactly that many
// threads, so gpu.barrier is omp.barrier and shared memory one buffer per
// block. What the GPU does per warp, every thread does whole:
//
//   - a gpu.subgroup_mma fragment is a 16x16 vector each thread holds and
//     computes in full (identical in every lane of a warp, as the fragment's
//     matrix is);
//   - nvgpu.device_async_copy is queued per thread and performed only when
//     a nvgpu.device_async_wait lets its group be pending no longer (the
//     latest a GPU may complete it), so a missing or short wait reads stale
//     shared memory here too; with TESSEL_EMU_ASYNC_COPIES=eager at run
//     time it is performed when issued (the earliest), so a copy into
//     memory other threads still read corrupts it here too;
//   - Hopper kernels (mbarriers, TMA loads, wgmma groups) run as the
//     hardware runs them, with the layouts of upstream's lowering
//     (passes/Utils/GPUEmulation, tessel_emu_mbarrier_*/tma_*/wgmma_*);
//     the wgmma instructions a kernel issues itself (nvvm.wgmma.mma_async,
//     8-bit) read shared memory where their encoded descriptors point;
//   - AMD matrix instructions (amdgpu.mfma, amdgpu.wmma 16x16x16, as
//     tessel-lower-mma-to-amdgpu emits them) are exchanges among a
//     wavefront's 64 (MFMA) or 32 (RDNA3 WMMA) threads, each lane giving
//     its values in the ISA's lane layout (tessel_emu_matrix_op);
//   - gpu.shuffle is an exchange among the warp's threads (32, or the
//     target's warp size: 64 on CDNA)
//     (tessel_emu_shuffle: every lane waits for the others, so a shuffle
//     reached by part of a warp aborts with a message after a timeout);
//   - the addresses the GPU requires aligned are checked at run time
//     (copies, fragment rows, vector accesses declared aligned), and a
//     fragment's transposition must agree between its load and its use.
//
// Not emulated: warp-level timing and divergence (a kernel whose result
// depends on lockstep execution), and memory ordering between blocks.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Tessel/TargetDescription.h"
#include "passes/Utils/GPUEmulation.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tessel-emulate-gpu-on-cpu"

namespace mlir::tessel {
#define GEN_PASS_DEF_EMULATEGPUONCPUPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// The runtime functions the emulation calls (libtessel_runtime and libomp).
static constexpr StringLiteral kAsyncCopy = "tessel_emu_async_copy";
static constexpr StringLiteral kAsyncCommit = "tessel_emu_async_commit";
static constexpr StringLiteral kAsyncWait = "tessel_emu_async_wait";
static constexpr StringLiteral kAsyncFlush = "tessel_emu_async_flush";
static constexpr StringLiteral kCheckTeam = "tessel_emu_check_team";
static constexpr StringLiteral kSharedWindow = "tessel_emu_shared_window";
static constexpr StringLiteral kCheckAligned = "tessel_emu_check_aligned";
static constexpr StringLiteral kWarpsDestroy = "tessel_emu_warps_destroy";
static constexpr StringLiteral kShuffle = "tessel_emu_shuffle";
static constexpr StringLiteral kShuffleValid = "tessel_emu_shuffle_valid";
static constexpr StringLiteral kWavesCreate = "tessel_emu_waves_create";
static constexpr StringLiteral kMatrixOp = "tessel_emu_matrix_op";
static constexpr StringLiteral kThreadNum = "omp_get_thread_num";
static constexpr StringLiteral kNumThreads = "omp_get_num_threads";

/// Rewrites the asynchronous copies, their groups and waits into calls.
/// Tokens only order these ops, so they go with them.
static LogicalResult emulateAsyncCopies(Operation *root) {
  IRRewriter rewriter(root->getContext());
  SmallVector<nvgpu::DeviceAsyncWaitOp> waits;
  SmallVector<nvgpu::DeviceAsyncCreateGroupOp> groups;
  SmallVector<nvgpu::DeviceAsyncCopyOp> copies;
  root->walk([&](Operation *op) {
    if (auto w = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op))
      waits.push_back(w);
    else if (auto g = dyn_cast<nvgpu::DeviceAsyncCreateGroupOp>(op))
      groups.push_back(g);
    else if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
      copies.push_back(c);
  });
  for (nvgpu::DeviceAsyncWaitOp wait : waits) {
    rewriter.setInsertionPoint(wait);
    int32_t pending = wait.getNumGroups() ? *wait.getNumGroups() : 0;
    Value n = arith::ConstantIntOp::create(rewriter, wait.getLoc(),
                                           rewriter.getI32Type(), pending);
    callRuntime(rewriter, wait.getLoc(), kAsyncWait, Type(), n);
    rewriter.eraseOp(wait);
  }
  for (nvgpu::DeviceAsyncCreateGroupOp group : groups) {
    if (!group->use_empty())
      return group.emitError("cannot emulate: its token is used other than "
                             "by nvgpu.device_async_wait");
    rewriter.setInsertionPoint(group);
    callRuntime(rewriter, group.getLoc(), kAsyncCommit, Type(), {});
    rewriter.eraseOp(group);
  }
  for (nvgpu::DeviceAsyncCopyOp copy : copies) {
    if (!copy->use_empty())
      return copy.emitError("cannot emulate: its token is used other than "
                            "by nvgpu.device_async_create_group");
    Location loc = copy.getLoc();
    rewriter.setInsertionPoint(copy);
    int64_t bytes =
        cast<MemRefType>(copy.getDst().getType()).getElementTypeBitWidth() / 8;
    Value size = arith::ConstantIndexOp::create(rewriter, loc, bytes);
    Value dstBytes = arith::ConstantIndexOp::create(
        rewriter, loc, copy.getDstElements().getZExtValue() * bytes);
    Value srcBytes =
        copy.getSrcElements()
            ? arith::MulIOp::create(rewriter, loc, copy.getSrcElements(), size)
                  .getResult()
            : dstBytes;
    callRuntime(
        rewriter, loc, kAsyncCopy, Type(),
        {elementAddress(rewriter, loc, copy.getDst(), copy.getDstIndices()),
         elementAddress(rewriter, loc, copy.getSrc(), copy.getSrcIndices()),
         dstBytes, srcBytes});
    rewriter.eraseOp(copy);
  }
  return success();
}

namespace {
/// A fragment as the 16x16 (or m x n) vector of its matrix, row-major.
struct FragmentTypeConverter : TypeConverter {
  FragmentTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion([](gpu::MMAMatrixType type) -> Type {
      Type element = type.getElementType();
      if (auto integer = dyn_cast<IntegerType>(element))
        element = IntegerType::get(type.getContext(), integer.getWidth());
      return VectorType::get(type.getShape(), element);
    });
  }
};

/// Rows of a fragment at `indices` of `memref`, `lead` elements apart.
/// The memref's rows must be that far apart, so that row r of the fragment
/// is memref[..., i + r, j].
LogicalResult checkLeadDimension(Operation *op, Value memref, int64_t lead) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() < 2 ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || strides[strides.size() - 2] != lead)
    return op->emitError("cannot emulate: the fragment's leading dimension "
                         "is not the memref's row stride");
  return success();
}

/// Bytes the start of every row a WMMA fragment touches must be aligned to:
/// the thread's share of the fragment (PTX ISA, "Matrix Storage for WMMA").
int64_t fragmentAlignment(gpu::MMAMatrixType type) {
  int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  if (type.getOperand() == "COp")
    return bytes == 4 ? 32 : 16;
  return bytes == 1 ? 8 : type.getElementType().isF16() ? 32 : 16;
}

/// Checks at compile time that `lead` elements keep rows aligned, and emits
/// the run-time check of the first row's address.
LogicalResult checkFragmentAlignment(Operation *op, OpBuilder &b,
                                     Value memref, ValueRange indices,
                                     int64_t lead, gpu::MMAMatrixType type,
                                     int32_t what) {
  int64_t align = fragmentAlignment(type);
  int64_t bytes = cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8;
  if ((lead * bytes) % align != 0)
    return op->emitError() << "cannot emulate: fragment rows " << lead * bytes
                           << " bytes apart are not " << align
                           << "-byte aligned, as the GPU requires";
  Location loc = op->getLoc();
  callRuntime(b, loc, kCheckAligned, Type(),
              {elementAddress(b, loc, memref, indices),
               arith::ConstantIndexOp::create(b, loc, align),
               arith::ConstantIntOp::create(b, loc, b.getI32Type(), what)});
  return success();
}

SmallVector<Value> rowIndices(OpBuilder &b, Location loc, ValueRange indices,
                              int64_t r) {
  SmallVector<Value> at(indices);
  at[at.size() - 2] = arith::AddIOp::create(
      b, loc, at[at.size() - 2], arith::ConstantIndexOp::create(b, loc, r));
  return at;
}

struct LoadMatrixPattern
    : OpConversionPattern<gpu::SubgroupMmaLoadMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaLoadMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkLeadDimension(op, adaptor.getSrcMemref(),
                                  op.getLeadDimension().getSExtValue())) ||
        failed(checkFragmentAlignment(
            op, rewriter, adaptor.getSrcMemref(), adaptor.getIndices(),
            op.getLeadDimension().getSExtValue(),
            cast<gpu::MMAMatrixType>(op.getType()), /*what=*/0)))
      return failure();
    auto type = cast<VectorType>(getTypeConverter()->convertType(op.getType()));
    bool transposed = op.getTranspose().has_value();
    // Stored column-major, the memory rows are the matrix's columns.
    int64_t rows = type.getDimSize(transposed ? 1 : 0);
    int64_t cols = type.getDimSize(transposed ? 0 : 1);
    auto storedType = VectorType::get({rows, cols}, type.getElementType());
    Location loc = op.getLoc();
    Value stored = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(storedType));
    for (int64_t r = 0; r < rows; ++r) {
      Value row = vector::LoadOp::create(
          rewriter, loc, VectorType::get({cols}, type.getElementType()),
          adaptor.getSrcMemref(),
          rowIndices(rewriter, loc, adaptor.getIndices(), r));
      stored = vector::InsertOp::create(rewriter, loc, row, stored, r);
    }
    if (transposed)
      stored = vector::TransposeOp::create(rewriter, loc, stored,
                                           ArrayRef<int64_t>{1, 0});
    rewriter.replaceOp(op, stored);
    return success();
  }
};

struct StoreMatrixPattern
    : OpConversionPattern<gpu::SubgroupMmaStoreMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaStoreMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkLeadDimension(op, adaptor.getDstMemref(),
                                  op.getLeadDimension().getSExtValue())) ||
        failed(checkFragmentAlignment(
            op, rewriter, adaptor.getDstMemref(), adaptor.getIndices(),
            op.getLeadDimension().getSExtValue(),
            cast<gpu::MMAMatrixType>(op.getSrc().getType()), /*what=*/1)))
      return failure();
    Location loc = op.getLoc();
    Value matrix = adaptor.getSrc();
    if (op.getTranspose())
      matrix = vector::TransposeOp::create(rewriter, loc, matrix,
                                           ArrayRef<int64_t>{1, 0});
    auto type = cast<VectorType>(matrix.getType());
    for (int64_t r = 0; r < type.getDimSize(0); ++r) {
      Value row = vector::ExtractOp::create(rewriter, loc, matrix, r);
      vector::StoreOp::create(rewriter, loc, row, adaptor.getDstMemref(),
                              rowIndices(rewriter, loc, adaptor.getIndices(), r));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConstantMatrixPattern
    : OpConversionPattern<gpu::SubgroupMmaConstantMatrixOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaConstantMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     adaptor.getValue());
    return success();
  }
};

/// D = A * B + C with the products and sums in the accumulator's type (f32
/// for f16 accumulators: rounded once per instruction, as tensor cores do).
struct ComputePattern : OpConversionPattern<gpu::SubgroupMmaComputeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaComputeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto accType = cast<VectorType>(adaptor.getOpC().getType());
    Type acc = accType.getElementType();
    Type work = acc.isF16() ? rewriter.getF32Type() : acc;
    auto widen = [&](Value v) -> Value {
      auto type = cast<VectorType>(v.getType());
      Type element = type.getElementType();
      if (element == work)
        return v;
      auto wide = VectorType::get(type.getShape(), work);
      if (isa<FloatType>(element))
        return arith::ExtFOp::create(rewriter, loc, wide, v);
      return arith::ExtSIOp::create(rewriter, loc, wide, v);
    };
    Value a = widen(adaptor.getOpA()), b = widen(adaptor.getOpB()),
          c = widen(adaptor.getOpC());
    MLIRContext *ctx = rewriter.getContext();
    AffineExpr i, j, k;
    bindDims(ctx, i, j, k);
    SmallVector<AffineMap> maps = AffineMap::inferFromExprList(
        ArrayRef<ArrayRef<AffineExpr>>{{i, k}, {k, j}, {i, j}}, ctx);
    auto parallel = vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel);
    auto reduction =
        vector::IteratorTypeAttr::get(ctx, vector::IteratorType::reduction);
    Value d = vector::ContractionOp::create(
        rewriter, loc, a, b, c, rewriter.getAffineMapArrayAttr(maps),
        rewriter.getArrayAttr({parallel, parallel, reduction}));
    if (work != acc)
      d = arith::TruncFOp::create(rewriter, loc, accType, d);
    rewriter.replaceOp(op, d);
    return success();
  }
};
} // namespace

/// The layout flags of every product must be those its operands were loaded
/// with: the GPU reads the registers in that layout, the emulation works on
/// whole matrices and would not notice.
static LogicalResult checkFragmentLayouts(Operation *root) {
  auto loadedTransposed = [](Value v) -> std::optional<bool> {
    if (auto load = v.getDefiningOp<gpu::SubgroupMmaLoadMatrixOp>())
      return load.getTranspose().has_value();
    return std::nullopt;
  };
  WalkResult result = root->walk([&](gpu::SubgroupMmaComputeOp op) {
    std::optional<bool> a = loadedTransposed(op.getOpA()),
                        b = loadedTransposed(op.getOpB());
    if ((a && *a != op.getATranspose().has_value()) ||
        (b && *b != op.getBTranspose().has_value())) {
      op.emitError("cannot emulate: its a_transpose/b_transpose do not match "
                   "how its operands were loaded (the GPU would read them in "
                   "the wrong layout)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Emits run-time checks of the vector accesses in `region` that declare an
/// alignment.
static void checkDeclaredAlignments(Region &region) {
  SmallVector<Operation *> accesses;
  region.walk([&](Operation *op) {
    if (auto load = dyn_cast<vector::LoadOp>(op); load && load.getAlignment())
      accesses.push_back(op);
    if (auto store = dyn_cast<vector::StoreOp>(op);
        store && store.getAlignment())
      accesses.push_back(op);
  });
  for (Operation *op : accesses) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value base;
    ValueRange indices;
    uint64_t align;
    if (auto load = dyn_cast<vector::LoadOp>(op)) {
      base = load.getBase();
      indices = load.getIndices();
      align = *load.getAlignment();
    } else {
      auto store = cast<vector::StoreOp>(op);
      base = store.getBase();
      indices = store.getIndices();
      align = *store.getAlignment();
    }
    callRuntime(b, loc, kCheckAligned, Type(),
                {elementAddress(b, loc, base, indices),
                 arith::ConstantIndexOp::create(b, loc, int64_t(align)),
                 arith::ConstantIntOp::create(b, loc, b.getI32Type(), 2)});
  }
}

/// Replaces `shuffle` by the runtime's exchange among the warp's threads,
/// its value moved as the 64 bits of an i64.
/// The runtime's kind of an AMD matrix op (tessel_emu_matrix_op), or -1.
static int32_t matrixOpKind(Operation *op) {
  Value a;
  bool mfma = false;
  if (auto m = dyn_cast<amdgpu::MFMAOp>(op)) {
    if (m.getM() != 16 || m.getN() != 16 || m.getK() != 16 ||
        m.getBlocks() != 1 || m.getCbsz() || m.getAbid() ||
        m.getBlgp() != amdgpu::MFMAPermB::none || m.getReducePrecision() ||
        m.getNegateA() || m.getNegateB() || m.getNegateC())
      return -1;
    a = m.getSourceA();
    mfma = true;
  } else if (auto w = dyn_cast<amdgpu::WMMAOp>(op)) {
    if (w.getM() != 16 || w.getN() != 16 || w.getK() != 16 ||
        w.getUnsignedA() || w.getUnsignedB() || w.getClamp())
      return -1;
    a = w.getSourceA();
  } else {
    return -1;
  }
  auto type = dyn_cast<VectorType>(a.getType());
  if (!type || type.getNumElements() != (mfma ? 4 : 16))
    return -1;
  Type e = type.getElementType();
  if (e.isF16())
    return mfma ? 0 : 2;
  if (e.isInteger(8))
    return mfma ? 1 : 3;
  return -1;
}

/// One AMD matrix op: the lane's A and B widened to f32 (i32) and its C
/// stored to per-thread scratch, tessel_emu_matrix_op, D loaded back.
static void emulateMatrixOp(IRRewriter &b, Operation *op, Value waves,
                            Value threadIndex,
                            DenseMap<Type, SmallVector<Value>> &scratch) {
  Location loc = op->getLoc();
  int32_t kind = matrixOpKind(op);
  bool integer = kind == 1 || kind == 3;
  Type wide = integer ? Type(b.getI32Type()) : Type(b.getF32Type());
  SmallVector<Value> &buffers = scratch[wide];
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto toScratch = [&](Value v, Value buffer) {
    auto type = cast<VectorType>(v.getType());
    auto wideType = VectorType::get(type.getShape(), wide);
    if (type.getElementType() != wide)
      v = integer ? Value(arith::ExtSIOp::create(b, loc, wideType, v))
                  : Value(arith::ExtFOp::create(b, loc, wideType, v));
    vector::StoreOp::create(b, loc, v, buffer, ValueRange{zero});
  };
  toScratch(op->getOperand(0), buffers[0]);
  toScratch(op->getOperand(1), buffers[1]);
  toScratch(op->getOperand(2), buffers[2]);
  auto address = [&](Value buffer) -> Value {
    return memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  };
  Value thread =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), threadIndex);
  callRuntime(b, loc, kMatrixOp, Type(),
              {waves, thread,
               arith::ConstantIntOp::create(b, loc, b.getI32Type(), kind),
               address(buffers[0]), address(buffers[1]), address(buffers[2]),
               address(buffers[3])});
  Type result = op->getResult(0).getType();
  b.replaceOpWithNewOp<vector::LoadOp>(op, result, buffers[3],
                                       ValueRange{zero});
}

static void emulateShuffle(IRRewriter &b, gpu::ShuffleOp shuffle, Value warps,
                           Value threadIndex) {
  Location loc = shuffle.getLoc();
  Type type = shuffle.getValue().getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type bitsType = b.getIntegerType(bits);
  Value value = shuffle.getValue();
  if (isa<FloatType>(type))
    value = arith::BitcastOp::create(b, loc, bitsType, value);
  if (bits < 64)
    value = arith::ExtUIOp::create(b, loc, i64, value);
  Value thread = arith::IndexCastOp::create(b, loc, i32, threadIndex);
  Value mode = arith::ConstantIntOp::create(
      b, loc, i32, static_cast<int64_t>(shuffle.getMode()));
  Value result = callRuntime(
      b, loc, kShuffle, i64,
      {warps, thread, value, shuffle.getOffset(), shuffle.getWidth(), mode});
  if (bits < 64)
    result = arith::TruncIOp::create(b, loc, bitsType, result);
  if (isa<FloatType>(type))
    result = arith::BitcastOp::create(b, loc, type, result);
  Value valid;
  if (!shuffle.getValid().use_empty()) {
    Value flag = callRuntime(
        b, loc, kShuffleValid, i32,
        {warps, thread, shuffle.getOffset(), shuffle.getWidth(), mode});
    valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, flag,
                                  arith::ConstantIntOp::create(b, loc, i32, 0));
  } else {
    valid = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  }
  b.replaceOp(shuffle, {result, valid});
}

/// Replaces `launch` by loops over its blocks, each running an OpenMP team of
/// the block's threads over a copy of the body.
static LogicalResult emulateLaunch(gpu::LaunchOp launch, int64_t warpSize) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError("cannot emulate an asynchronous gpu.launch");
  if (launch.hasClusterSize())
    return launch.emitError("cannot emulate a gpu.launch with clusters");
  if (!launch.getWorkgroupAttributions().empty() ||
      !launch.getPrivateAttributions().empty())
    return launch.emitError(
        "cannot emulate a gpu.launch with memory attributions");
  Operation *unsupported = nullptr;
  launch.getBody().walk([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      if (auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
              alloc.getType().getMemorySpace());
          space && space.getValue() == gpu::AddressSpace::Workgroup)
        unsupported = op;
    if (isa<gpu::SubgroupReduceOp, gpu::AllReduceOp,
            gpu::SubgroupMmaElementwiseOp>(op))
      unsupported = op;
    // Of the nvgpu and NVVM ops, those the emulation rewrites.
    if (isa_and_nonnull<nvgpu::NVGPUDialect, NVVM::NVVMDialect>(
            op->getDialect()) &&
        !isEmulatedHopperOp(op) &&
        !isa<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
             nvgpu::DeviceAsyncWaitOp>(op))
      unsupported = op;
    if (isa_and_nonnull<amdgpu::AMDGPUDialect>(op->getDialect()) &&
        matrixOpKind(op) < 0)
      unsupported = op;
    if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op);
        shuffle && (!shuffle.getValue().getType().isIntOrFloat() ||
                    shuffle.getValue().getType().getIntOrFloatBitWidth() > 64))
      unsupported = op;
  });
  if (unsupported)
    return unsupported->emitError("cannot emulate this op on the CPU");
  // A warpgroup's fragments are laid out by thread id x (upstream's
  // lowering reads only that), in warpgroups of 128 threads.
  bool warpgroups = false;
  launch.getBody().walk([&](Operation *op) {
    if (isa<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupMmaStoreOp,
            NVVM::WgmmaMmaAsyncOp>(op))
      warpgroups = true;
  });
  if (warpgroups) {
    gpu::KernelDim3 sizes = launch.getBlockSizeOperandValues();
    std::optional<int64_t> x = getConstantIntValue(sizes.x);
    if (!x || *x % 128 || getConstantIntValue(sizes.y) != 1 ||
        getConstantIntValue(sizes.z) != 1)
      return launch.emitError("cannot emulate warpgroup ops in a block other "
                              "than a constant multiple of 128 threads in x");
  }

  IRRewriter b(launch.getContext());
  Location loc = launch.getLoc();
  b.setInsertionPoint(launch);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();

  // Blocks one after the other, z outermost.
  SmallVector<Value> blockIds(3);
  Value gridDims[3] = {grid.x, grid.y, grid.z};
  for (int d = 2; d >= 0; --d) {
    auto loop = scf::ForOp::create(b, loc, zero, gridDims[d], one);
    blockIds[d] = loop.getInductionVar();
    b.setInsertionPointToStart(loop.getBody());
  }

  // The block's shared memory, which its whole team sees.
  Value sharedBuffer, sharedBytes;
  if (Value bytes = launch.getDynamicSharedMemorySize()) {
    Value size = arith::IndexCastOp::create(b, loc, b.getIndexType(), bytes);
    sharedBytes = size;
    auto type = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
    sharedBuffer = memref::AllocOp::create(b, loc, type, ValueRange{size},
                                           b.getI64IntegerAttr(64));
  }
  Value threads = arith::MulIOp::create(
      b, loc, block.x, arith::MulIOp::create(b, loc, block.y, block.z));
  Value threadsI32 =
      arith::IndexCastOp::create(b, loc, b.getI32Type(), threads);
  // The warps' exchange state, where the block shuffles.
  bool shuffles = false;
  launch.getBody().walk([&](gpu::ShuffleOp) { shuffles = true; });
  // Warps of the target's size (32 on NVIDIA, 64 on CDNA).
  Value warps =
      shuffles
          ? callRuntime(b, loc, kWavesCreate, b.getIndexType(),
                        {threadsI32, arith::ConstantIntOp::create(
                                         b, loc, b.getI32Type(), warpSize)})
          : Value();
  // The wavefronts' exchange state, where the block runs AMD matrix ops:
  // 64 lanes for MFMA, 32 for RDNA3 WMMA (one kind per kernel).
  int64_t waveSize = 0;
  Operation *otherWave = nullptr;
  launch.getBody().walk([&](Operation *op) {
    int64_t size = isa<amdgpu::MFMAOp>(op)   ? 64
                   : isa<amdgpu::WMMAOp>(op) ? 32
                                             : 0;
    if (size && waveSize && size != waveSize)
      otherWave = op;
    if (size)
      waveSize = size;
  });
  if (otherWave)
    return otherWave->emitError(
        "cannot emulate MFMA and WMMA ops in one kernel");
  Value waves =
      waveSize
          ? callRuntime(b, loc, kWavesCreate, b.getIndexType(),
                        {threadsI32, arith::ConstantIntOp::create(
                                         b, loc, b.getI32Type(), waveSize)})
          : Value();
  // The block's mbarriers, which its whole team sees.
  SmallVector<Value> mbarrierGroups;
  hoistHopperMBarrierGroups(b, launch.getBody(), mbarrierGroups);
  auto team = omp::ParallelOp::create(b, loc);
  team.getNumThreadsMutable().assign(threadsI32);
  if (sharedBuffer)
    memref::DeallocOp::create(b, loc, sharedBuffer);
  if (warps)
    callRuntime(b, loc, kWarpsDestroy, Type(), {warps});
  if (waves)
    callRuntime(b, loc, kWarpsDestroy, Type(), {waves});
  destroyHopperMBarrierGroups(b, loc, mbarrierGroups);

  // The body, moved into the team's region.
  Region &region = team.getRegion();
  b.inlineRegionBefore(launch.getBody(), region, region.end());
  Block &entry = region.front();
  b.setInsertionPointToStart(&entry);
  Value teamSize = callRuntime(b, loc, kNumThreads, b.getI32Type(), {});
  callRuntime(b, loc, kCheckTeam, Type(), {teamSize, threadsI32});
  // Where the shared-memory addresses in wgmma descriptors point.
  if (sharedBuffer)
    callRuntime(
        b, loc, kSharedWindow, Type(),
        {memref::ExtractAlignedPointerAsIndexOp::create(b, loc, sharedBuffer),
         sharedBytes});
  Value t = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      callRuntime(b, loc, kThreadNum, b.getI32Type(), {}));
  Value tx = arith::RemUIOp::create(b, loc, t, block.x);
  Value rest = arith::DivUIOp::create(b, loc, t, block.x);
  Value ty = arith::RemUIOp::create(b, loc, rest, block.y);
  Value tz = arith::DivUIOp::create(b, loc, rest, block.y);
  Value replacements[] = {blockIds[0], blockIds[1], blockIds[2], tx, ty, tz,
                          grid.x,      grid.y,      grid.z,      block.x,
                          block.y,     block.z};
  for (auto [arg, value] : llvm::zip(entry.getArguments(), replacements))
    arg.replaceAllUsesWith(value);
  entry.eraseArguments(0, entry.getNumArguments());

  // Per thread: scratch for the AMD matrix ops' operands (A, B, C, D),
  // made once at the team's start rather than on the stack in the loops.
  DenseMap<Type, SmallVector<Value>> matrixScratch;
  if (waves)
    for (Type wide : {Type(b.getF32Type()), Type(b.getI32Type())})
      for (int i = 0; i < 4; ++i)
        matrixScratch[wide].push_back(memref::AllocaOp::create(
            b, loc, MemRefType::get({16}, wide), b.getI64IntegerAttr(64)));

  // Ids read through ops rather than the region's arguments.
  SmallVector<Operation *> toRewrite;
  region.walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
            gpu::BarrierOp, gpu::DynamicSharedMemoryOp, gpu::TerminatorOp,
            gpu::ShuffleOp, amdgpu::MFMAOp, amdgpu::WMMAOp>(op))
      toRewrite.push_back(op);
  });
  for (Operation *op : toRewrite) {
    b.setInsertionPoint(op);
    auto pick = [](gpu::Dimension d, Value x, Value y, Value z) {
      return d == gpu::Dimension::x ? x : d == gpu::Dimension::y ? y : z;
    };
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      b.replaceOp(op, pick(id.getDimension(), tx, ty, tz));
    else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      b.replaceOp(op, pick(id.getDimension(), blockIds[0], blockIds[1],
                           blockIds[2]));
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      b.replaceOp(op, pick(dim.getDimension(), block.x, block.y, block.z));
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      b.replaceOp(op, pick(dim.getDimension(), grid.x, grid.y, grid.z));
    else if (isa<gpu::BarrierOp>(op))
      b.replaceOpWithNewOp<omp::BarrierOp>(op);
    else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op))
      emulateShuffle(b, shuffle, warps, t);
    else if (isa<amdgpu::MFMAOp, amdgpu::WMMAOp>(op))
      emulateMatrixOp(b, op, waves, t, matrixScratch);
    else if (isa<gpu::DynamicSharedMemoryOp>(op)) {
      if (!sharedBuffer)
        return op->emitError(
            "cannot emulate: dynamic shared memory without a size");
      b.replaceOp(op, sharedBuffer);
    } else {
      // Copies still queued complete when the thread finishes.
      callRuntime(b, loc, kAsyncFlush, Type(), {});
      b.replaceOpWithNewOp<omp::TerminatorOp>(op);
    }
  }
  b.eraseOp(launch);
  checkDeclaredAlignments(region);
  return success();
}

namespace {
struct EmulateGPUOnCPUPass
    : public tessel::impl::EmulateGPUOnCPUPassBase<EmulateGPUOnCPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (!module.getOps<gpu::GPUModuleOp>().empty()) {
      module.emitError("cannot emulate outlined kernels: run "
                       "tessel-emulate-gpu-on-cpu before gpu-kernel-outlining");
      return signalPassFailure();
    }
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    if (launches.empty())
      return;
    WgmmaRegisterTypes registerTypes = collectWgmmaRegisterTypes(module);
    separateRegisterInits(module, registerTypes);
    if (failed(checkFragmentLayouts(module)) ||
        failed(checkHopperEmulation(module, registerTypes)))
      return signalPassFailure();

    Type i32 = IntegerType::get(ctx, 32);
    Type index = IndexType::get(ctx);
    declareRuntimeFunction(module, kThreadNum,
                           FunctionType::get(ctx, {}, {i32}));
    declareRuntimeFunction(module, kNumThreads,
                           FunctionType::get(ctx, {}, {i32}));
    declareRuntimeFunction(module, kCheckTeam,
                           FunctionType::get(ctx, {i32, i32}, {}));
    declareRuntimeFunction(module, kSharedWindow,
                           FunctionType::get(ctx, {index, index}, {}));
    declareRuntimeFunction(module, kCheckAligned,
                           FunctionType::get(ctx, {index, index, i32}, {}));
    declareRuntimeFunction(
        module, kAsyncCopy,
        FunctionType::get(ctx, {index, index, index, index}, {}));
    declareRuntimeFunction(module, kAsyncCommit,
                           FunctionType::get(ctx, {}, {}));
    declareRuntimeFunction(module, kAsyncWait,
                           FunctionType::get(ctx, {i32}, {}));
    declareRuntimeFunction(module, kAsyncFlush, FunctionType::get(ctx, {}, {}));
    Type i64 = IntegerType::get(ctx, 64);
    declareRuntimeFunction(module, kWarpsDestroy,
                           FunctionType::get(ctx, {index}, {}));
    declareRuntimeFunction(
        module, kShuffle,
        FunctionType::get(ctx, {index, i32, i64, i32, i32, i32}, {i64}));
    declareRuntimeFunction(
        module, kShuffleValid,
        FunctionType::get(ctx, {index, i32, i32, i32, i32}, {i32}));
    declareRuntimeFunction(module, kWavesCreate,
                           FunctionType::get(ctx, {i32, i32}, {index}));
    declareRuntimeFunction(
        module, kMatrixOp,
        FunctionType::get(ctx, {index, i32, i32, index, index, index, index},
                          {}));

    declareHopperEmulationFunctions(module);
    WalkResult strayBarriers = module.walk([](nvgpu::MBarrierCreateOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return WalkResult::advance();
      op.emitError("cannot emulate: mbarriers created outside a gpu.launch");
      return WalkResult::interrupt();
    });
    if (strayBarriers.wasInterrupted())
      return signalPassFailure();

    // Shuffles exchange among warps of the target's size.
    TargetAttr gpuTarget = TargetAttr::lookup(module);
    int64_t warpSize =
        gpuTarget && gpuTarget.getWarpSize() > 0 ? gpuTarget.getWarpSize() : 32;
    if (warpSize > 64) {
      module.emitError() << "cannot emulate warps of " << warpSize
                         << " threads (at most 64)";
      return signalPassFailure();
    }
    for (gpu::LaunchOp launch : launches)
      if (failed(emulateLaunch(launch, warpSize)))
        return signalPassFailure();
    if (failed(emulateAsyncCopies(module)))
      return signalPassFailure();

    // Fragments to vectors and Hopper ops to runtime calls, also where scf
    // loops carry their values.
    FragmentTypeConverter converter;
    addHopperEmulationTypeConversions(converter, registerTypes);
    ConversionTarget target(*ctx);
    target.addIllegalOp<gpu::SubgroupMmaLoadMatrixOp,
                        gpu::SubgroupMmaStoreMatrixOp,
                        gpu::SubgroupMmaConstantMatrixOp,
                        gpu::SubgroupMmaComputeOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    patterns.add<LoadMatrixPattern, StoreMatrixPattern, ConstantMatrixPattern,
                 ComputePattern>(converter, ctx);
    populateHopperEmulationPatterns(converter, patterns, target, registerTypes);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // The casts the conversion left between handles and the Hopper types
    // (the hoisted mbarrier groups') cancel out.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk([&](UnrealizedConversionCastOp op) { casts.push_back(op); });
    reconcileUnrealizedCasts(casts);

    // The products as outer products, so the CPU lowering sees plain
    // vector arithmetic.
    RewritePatternSet lowering(ctx);
    vector::populateVectorContractLoweringPatterns(
        lowering, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(lowering);
    vector::populateVectorTransposeLoweringPatterns(
        lowering, vector::VectorTransposeLowering::EltWise);
    if (failed(applyPatternsGreedily(module, std::move(lowering))))
      return signalPassFailure();

    // Shared memory is host memory now.
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](MemRefType type) -> std::optional<Type> {
      if (!isa_and_nonnull<gpu::AddressSpaceAttr>(type.getMemorySpace()))
        return std::nullopt;
      return MemRefType::get(type.getShape(), type.getElementType(),
                             type.getLayout());
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);

    // The module is host code now: describe the host, so the rest of the
    // lowering compiles for it.
    std::string error;
    FailureOr<TargetDescription> host = getTargetPreset("cpu", "", error);
    if (failed(host)) {
      module.emitError(error);
      return signalPassFailure();
    }
    TargetAttr hostTarget =
        host->toAttr(ctx, [&] { return module.emitError(); });
    if (!hostTarget)
      return signalPassFailure();
    module->setAttr(TesselDialect::getTargetAttrName(), hostTarget);
  }
};
} // namespace

//===- LowerMMAToAMDGPU.cpp - WMMA fragments onto AMD matrix instructions -===//
//
// tessel-map-matmul-to-gpu builds one tensor-core kernel for NVIDIA and AMD
// GPUs, on gpu.subgroup_mma ops, whose fragments are opaque: each lane holds
// what the hardware says. Upstream lowers those ops to NVVM only (MLIR 22
// has no gpu.subgroup_mma -> ROCDL path), so this pass gives the fragments
// the lane layouts of AMD's instructions (Utils/AMDMatrixFragments):
// a fragment becomes a small vector per lane, a fragment load or store the
// lane's element accesses (one vector access where the lane's values are
// consecutive in memory), and the product amdgpu.mfma (CDNA, 64-lane
// wavefronts) or amdgpu.wmma (RDNA3, 32 lanes), which
// tessel-convert-amdgpu-to-rocdl turns into the chip's intrinsic.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Tessel/TesselDialect.h"
#include "passes/Utils/AMDMatrixFragments.h"
#include "passes/Utils/GPUTensorCores.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "tessel-lower-mma-to-amdgpu"

namespace mlir::tessel {
#define GEN_PASS_DEF_LOWERMMATOAMDGPUPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {
/// What the patterns share: the instruction and its lane count.
struct AMDMatrixTarget {
  MmaInstruction::Unit unit;
  int64_t lanes;
};

/// Fragment types as the lanes hold them: vector<values x element>, with
/// integer elements signless (gpu.mma_matrix's si8 is the memory's i8).
class FragmentTypeConverter : public TypeConverter {
public:
  explicit FragmentTypeConverter(MmaInstruction::Unit unit) {
    addConversion([](Type type) { return type; });
    addConversion([unit](gpu::MMAMatrixType type) -> std::optional<Type> {
      AMDFragmentLayout layout = amdFragmentLayout(unit, type.getOperand());
      if (!layout.values)
        return std::nullopt;
      Type element = type.getElementType();
      if (auto integer = dyn_cast<IntegerType>(element))
        element = IntegerType::get(type.getContext(), integer.getWidth());
      return VectorType::get({layout.values}, element);
    });
  }
};
} // namespace

static Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The lane of the current thread in its wavefront: the linear thread id
/// modulo `lanes` (the x id alone in a launch whose blocks are 1-D).
static Value laneId(OpBuilder &b, Location loc, Operation *at, int64_t lanes) {
  Value tid;
  auto launch = at->getParentOfType<gpu::LaunchOp>();
  auto isOne = [](Value v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    return c && *c == 1;
  };
  if (launch && isOne(launch.getBlockSizeY()) &&
      isOne(launch.getBlockSizeZ())) {
    tid = launch.getThreadIds().x;
  } else {
    Value x = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value y = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
    Value z = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
    Value bx = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
    Value by = gpu::BlockDimOp::create(b, loc, gpu::Dimension::y);
    Value yz =
        arith::AddIOp::create(b, loc, y, arith::MulIOp::create(b, loc, by, z));
    tid =
        arith::AddIOp::create(b, loc, x, arith::MulIOp::create(b, loc, bx, yz));
  }
  return arith::RemUIOp::create(b, loc, tid, indexConstant(b, loc, lanes));
}

namespace {
/// The memory positions of a lane's values: the fragment's origin in the
/// memref (its last two indices are the row and column of the fragment's
/// element (0, 0); `transpose`: the fragment is stored column-major), and
/// the lane's share.
struct LaneAccess {
  SmallVector<Value> origin;
  AMDFragmentLayout layout;
  bool transpose = false;
  Value laneLow, laneHigh;

  LaneAccess(OpBuilder &b, Location loc, Operation *op, ValueRange indices,
             AMDFragmentLayout layout, bool transpose, int64_t lanes)
      : origin(indices), layout(layout), transpose(transpose) {
    Value lane = laneId(b, loc, op, lanes);
    laneLow = arith::RemUIOp::create(b, loc, lane, indexConstant(b, loc, 16));
    laneHigh = arith::DivUIOp::create(b, loc, lane, indexConstant(b, loc, 16));
  }

  Value coordinate(OpBuilder &b, Location loc, const FragmentAxis &axis,
                   int64_t e) const {
    Value v = indexConstant(b, loc, axis.value * e);
    if (axis.low)
      v = arith::AddIOp::create(
          b, loc, v,
          arith::MulIOp::create(b, loc, laneLow,
                                indexConstant(b, loc, axis.low)));
    if (axis.high)
      v = arith::AddIOp::create(
          b, loc, v,
          arith::MulIOp::create(b, loc, laneHigh,
                                indexConstant(b, loc, axis.high)));
    return v;
  }

  /// The memref indices of value e.
  SmallVector<Value> indices(OpBuilder &b, Location loc, int64_t e) const {
    Value row = coordinate(b, loc, layout.row, e);
    Value col = coordinate(b, loc, layout.col, e);
    if (transpose)
      std::swap(row, col);
    SmallVector<Value> at(origin);
    size_t n = at.size();
    at[n - 2] = arith::AddIOp::create(b, loc, at[n - 2], row);
    at[n - 1] = arith::AddIOp::create(b, loc, at[n - 1], col);
    return at;
  }

  /// The lane's values are consecutive along the memref's innermost
  /// dimension: one vector access reads or writes them.
  bool contiguous() const {
    const FragmentAxis &inner = transpose ? layout.row : layout.col;
    const FragmentAxis &outer = transpose ? layout.col : layout.row;
    return inner.value == 1 && outer.value == 0;
  }
};

struct LoadPattern : OpConversionPattern<gpu::SubgroupMmaLoadMatrixOp> {
  LoadPattern(const TypeConverter &converter, MLIRContext *ctx,
              AMDMatrixTarget target)
      : OpConversionPattern(converter, ctx), target(target) {}

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaLoadMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = cast<gpu::MMAMatrixType>(op.getRes().getType());
    auto vectorType =
        dyn_cast_or_null<VectorType>(getTypeConverter()->convertType(fragment));
    if (!vectorType)
      return rewriter.notifyMatchFailure(op, "no lane layout");
    Location loc = op.getLoc();
    LaneAccess access(rewriter, loc, op, adaptor.getIndices(),
                      amdFragmentLayout(target.unit, fragment.getOperand()),
                      op.getTranspose().value_or(false), target.lanes);
    Value memref = adaptor.getSrcMemref();
    if (access.contiguous()) {
      rewriter.replaceOpWithNewOp<vector::LoadOp>(
          op, vectorType, memref, access.indices(rewriter, loc, 0));
      return success();
    }
    SmallVector<Value> values;
    for (int64_t e = 0; e < vectorType.getNumElements(); ++e)
      values.push_back(memref::LoadOp::create(
          rewriter, loc, memref, access.indices(rewriter, loc, e)));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vectorType, values);
    return success();
  }

  AMDMatrixTarget target;
};

struct StorePattern : OpConversionPattern<gpu::SubgroupMmaStoreMatrixOp> {
  StorePattern(const TypeConverter &converter, MLIRContext *ctx,
               AMDMatrixTarget target)
      : OpConversionPattern(converter, ctx), target(target) {}

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaStoreMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = op.getSrc().getType();
    Location loc = op.getLoc();
    LaneAccess access(rewriter, loc, op, adaptor.getIndices(),
                      amdFragmentLayout(target.unit, fragment.getOperand()),
                      op.getTranspose().value_or(false), target.lanes);
    Value values = adaptor.getSrc();
    Value memref = adaptor.getDstMemref();
    if (access.contiguous()) {
      rewriter.replaceOpWithNewOp<vector::StoreOp>(
          op, values, memref, access.indices(rewriter, loc, 0));
      return success();
    }
    int64_t count = cast<VectorType>(values.getType()).getNumElements();
    for (int64_t e = 0; e < count; ++e)
      memref::StoreOp::create(rewriter, loc,
                              vector::ExtractOp::create(rewriter, loc, values,
                                                        ArrayRef<int64_t>{e}),
                              memref, access.indices(rewriter, loc, e));
    rewriter.eraseOp(op);
    return success();
  }

  AMDMatrixTarget target;
};

struct ComputePattern : OpConversionPattern<gpu::SubgroupMmaComputeOp> {
  ComputePattern(const TypeConverter &converter, MLIRContext *ctx,
                 AMDMatrixTarget target)
      : OpConversionPattern(converter, ctx), target(target) {}

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaComputeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // The fragments' transposition was applied by their loads: the lanes
    // hold the logical matrices, whatever the operands' memory order.
    Type result = getTypeConverter()->convertType(op.getRes().getType());
    if (!result)
      return rewriter.notifyMatchFailure(op, "no lane layout");
    Builder &b = rewriter;
    if (target.unit == MmaInstruction::Unit::AmdMfma)
      rewriter.replaceOpWithNewOp<amdgpu::MFMAOp>(
          op, result, b.getI32IntegerAttr(16), b.getI32IntegerAttr(16),
          b.getI32IntegerAttr(16), b.getI32IntegerAttr(1), adaptor.getOpA(),
          adaptor.getOpB(), adaptor.getOpC());
    else
      rewriter.replaceOpWithNewOp<amdgpu::WMMAOp>(
          op, result, b.getI32IntegerAttr(16), b.getI32IntegerAttr(16),
          b.getI32IntegerAttr(16), adaptor.getOpA(), adaptor.getOpB(),
          adaptor.getOpC());
    return success();
  }

  AMDMatrixTarget target;
};

struct ConstantPattern : OpConversionPattern<gpu::SubgroupMmaConstantMatrixOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaConstantMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<VectorType>(
        getTypeConverter()->convertType(op.getRes().getType()));
    if (!type)
      return rewriter.notifyMatchFailure(op, "no lane layout");
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, type,
                                                     adaptor.getValue());
    return success();
  }
};

/// Elementwise ops on fragments act on each lane's values: every operand
/// has the same layout (the op's verifier asks for equal fragment types).
struct ElementwisePattern : OpConversionPattern<gpu::SubgroupMmaElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(gpu::SubgroupMmaElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getRes().getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "no lane layout");
    ValueRange args = adaptor.getArgs();
    Location loc = op.getLoc();
    Value r;
    switch (op.getOpType()) {
    case gpu::MMAElementwiseOp::ADDF:
      r = arith::AddFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MULF:
      r = arith::MulFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::SUBF:
      r = arith::SubFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::DIVF:
      r = arith::DivFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MAXF:
      r = arith::MaximumFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MINF:
      r = arith::MinimumFOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::NEGATEF:
      r = arith::NegFOp::create(rewriter, loc, args[0]);
      break;
    case gpu::MMAElementwiseOp::ADDI:
      r = arith::AddIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::MULI:
      r = arith::MulIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::SUBI:
      r = arith::SubIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::DIVS:
      r = arith::DivSIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::DIVU:
      r = arith::DivUIOp::create(rewriter, loc, args[0], args[1]);
      break;
    case gpu::MMAElementwiseOp::NEGATES:
      r = arith::SubIOp::create(
          rewriter, loc,
          arith::ConstantOp::create(rewriter, loc, type,
                                    rewriter.getZeroAttr(type)),
          args[0]);
      break;
    case gpu::MMAElementwiseOp::EXTF:
      r = arith::ExtFOp::create(rewriter, loc, type, args[0]);
      break;
    }
    rewriter.replaceOp(op, r);
    return success();
  }
};
} // namespace

static bool isFragmentOp(Operation *op) {
  return isa<gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
             gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
             gpu::SubgroupMmaElementwiseOp>(op);
}

/// The lane accesses index the memref with the fragment's rows and columns
/// added to its last two indices: that is the op's leadDimension only
/// where the memref's rows are leadDimension elements apart and its
/// innermost stride is 1.
static LogicalResult checkFragmentMemref(Operation *op, MemRefType type,
                                         int64_t leadDimension) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() < 2 || failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || strides[strides.size() - 2] != leadDimension)
    return op->emitError()
           << "cannot lower to AMD matrix instructions: the fragment's "
              "memref needs rank 2 or more, a unit innermost stride and "
              "rows leadDimension ("
           << leadDimension << ") elements apart; it is " << type;
  return success();
}

/// What the lane layouts are for: 16x16 fragments, A and B of f16 or
/// signed i8, C of f32 or i32.
static LogicalResult checkFragmentType(Operation *op, Type type) {
  auto fragment = dyn_cast<gpu::MMAMatrixType>(type);
  if (!fragment)
    return success();
  Type e = fragment.getElementType();
  bool ab = fragment.getOperand() != "COp";
  bool ok =
      fragment.getShape()[0] == 16 && fragment.getShape()[1] == 16 &&
      (ab ? e.isF16() || e.isSignedInteger(8)
          : e.isF32() || e.isSignlessInteger(32) || e.isSignedInteger(32));
  if (ok)
    return success();
  return op->emitError()
         << "cannot lower to AMD matrix instructions: fragments are 16x16, "
            "A and B of f16 or si8, C of f32 or i32; this one is "
         << type;
}

/// A product the chip's instruction computes, on fragments loaded with
/// the transposition the product names (the lanes hold the logical
/// matrices; a mismatch would compute something else than NVVM's WMMA).
static LogicalResult checkCompute(gpu::SubgroupMmaComputeOp op,
                                  StringRef chip) {
  Type a = op.getOpA().getType().getElementType();
  Type b = op.getOpB().getType().getElementType();
  Type c = op.getOpC().getType().getElementType();
  StringRef family;
  std::string why = a != b ? std::string("A and B differ in element type")
                           : whyNoAmdMatrixInstruction(chip, a, c, family);
  if (!why.empty())
    return op.emitError() << "cannot lower to AMD matrix instructions: " << why;
  auto agrees = [&](Value operand, bool transposed,
                    StringRef name) -> LogicalResult {
    auto load = operand.getDefiningOp<gpu::SubgroupMmaLoadMatrixOp>();
    if (!load || load.getTranspose().value_or(false) == transposed)
      return success();
    return op.emitError() << "cannot lower to AMD matrix instructions: " << name
                          << "'s transposition differs between its "
                             "load and this product";
  };
  return success(
      succeeded(agrees(op.getOpA(), op.getATranspose().value_or(false), "A")) &&
      succeeded(agrees(op.getOpB(), op.getBTranspose().value_or(false), "B")));
}

namespace {
struct LowerMMAToAMDGPUPass
    : public tessel::impl::LowerMMAToAMDGPUPassBase<LowerMMAToAMDGPUPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    Operation *first = nullptr;
    root->walk([&](Operation *op) {
      if (!first && isFragmentOp(op))
        first = op;
    });
    if (!first)
      return;
    TargetAttr target = TargetAttr::lookup(root);
    StringRef family = target && target.getKind() == "amdgpu"
                           ? amdMatrixFamily(target.getChip())
                           : StringRef();
    if (family.empty()) {
      first->emitError()
          << "cannot lower gpu.subgroup_mma ops for "
          << (target ? (target.getKind() + " " + target.getChip()).str()
                     : std::string("a module without "
                                   "#tessel.target"))
          << ": AMD matrix instructions are built for gfx908, "
             "gfx90a, gfx94x, gfx950 (MFMA) and gfx11 (WMMA)";
      return signalPassFailure();
    }
    AMDMatrixTarget amd;
    amd.unit = family == "mfma" ? MmaInstruction::Unit::AmdMfma
                                : MmaInstruction::Unit::AmdWmma;
    amd.lanes = amd.unit == MmaInstruction::Unit::AmdMfma ? 64 : 32;
    if (target.getWarpSize() != amd.lanes) {
      first->emitError() << "cannot lower gpu.subgroup_mma ops: "
                         << target.getChip() << "'s " << family
                         << " instructions run on " << amd.lanes
                         << "-lane wavefronts; the target says warp_size = "
                         << target.getWarpSize();
      return signalPassFailure();
    }
    bool broken = false;
    root->walk([&](Operation *op) {
      if (!isFragmentOp(op))
        return;
      for (Type t : op->getOperandTypes())
        broken |= failed(checkFragmentType(op, t));
      for (Type t : op->getResultTypes())
        broken |= failed(checkFragmentType(op, t));
      if (auto load = dyn_cast<gpu::SubgroupMmaLoadMatrixOp>(op))
        broken |=
            failed(checkFragmentMemref(op, load.getSrcMemref().getType(),
                                       load.getLeadDimension().getSExtValue()));
      if (auto store = dyn_cast<gpu::SubgroupMmaStoreMatrixOp>(op))
        broken |= failed(
            checkFragmentMemref(op, store.getDstMemref().getType(),
                                store.getLeadDimension().getSExtValue()));
      if (auto compute = dyn_cast<gpu::SubgroupMmaComputeOp>(op))
        broken |= failed(checkCompute(compute, target.getChip()));
    });
    if (broken)
      return signalPassFailure();

    FragmentTypeConverter converter(amd.unit);
    ConversionTarget legal(*ctx);
    legal.addLegalDialect<amdgpu::AMDGPUDialect, arith::ArithDialect,
                          memref::MemRefDialect, vector::VectorDialect>();
    legal.addIllegalOp<gpu::SubgroupMmaLoadMatrixOp,
                       gpu::SubgroupMmaStoreMatrixOp, gpu::SubgroupMmaComputeOp,
                       gpu::SubgroupMmaConstantMatrixOp,
                       gpu::SubgroupMmaElementwiseOp>();
    legal.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    patterns.add<LoadPattern, StorePattern, ComputePattern>(converter, ctx,
                                                            amd);
    patterns.add<ConstantPattern, ElementwisePattern>(converter, ctx);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         legal);
    if (failed(applyPartialConversion(root, legal, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

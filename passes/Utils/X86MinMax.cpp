//===- X86MinMax.cpp - IEEE-754 maximum / minimum on AVX-512DQ ------------===//
#include "passes/Utils/X86MinMax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// vrangeps / vrangepd immediate: bits 1:0 select min (00) or max (01),
/// bits 3:2 = 01 take the sign from the comparison result, which orders
/// -0 below +0 (checked on Zen 5 against IEEE maximum / minimum for zeros,
/// infinities, denormals and both kinds of NaN).
constexpr int32_t kRangeMin = 0x4;
constexpr int32_t kRangeMax = 0x5;
/// Widest vector a rewrite splits (as upstream's unrolling limits).
constexpr int64_t kMaxLanes = 1024;

template <typename OpTy>
struct AVX512DQRange : public OpRewritePattern<OpTy> {
  AVX512DQRange(MLIRContext *ctx, int32_t immediate)
      : OpRewritePattern<OpTy>(ctx), immediate(immediate) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed-size vector");
    Type element = type.getElementType();
    if (!element.isF32() && !element.isF64())
      return rewriter.notifyMatchFailure(op, "not f32 or f64");
    int64_t sliceLanes = element.isF32() ? 16 : 8;
    int64_t lanes = type.getNumElements();
    if (lanes % sliceLanes != 0 || lanes > kMaxLanes)
      return rewriter.notifyMatchFailure(op, "not whole 512-bit vectors");

    Location loc = op.getLoc();
    auto flatType = VectorType::get({lanes}, element);
    auto sliceType = VectorType::get({sliceLanes}, element);
    Value a = op.getLhs(), b = op.getRhs();
    if (type.getRank() != 1) {
      a = vector::ShapeCastOp::create(rewriter, loc, flatType, a);
      b = vector::ShapeCastOp::create(rewriter, loc, flatType, b);
    }
    StringRef intrinsic = element.isF32() ? "llvm.x86.avx512.mask.range.ps.512"
                                          : "llvm.x86.avx512.mask.range.pd.512";
    Value imm = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getI32IntegerAttr(immediate));
    // All lanes (i16 for 16 floats, i8 for 8 doubles); rounding 4 is the
    // current direction (vrange does not round).
    Value allLanes =
        element.isF32()
            ? arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getI16IntegerAttr(-1))
                  .getResult()
            : arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getI8IntegerAttr(-1))
                  .getResult();
    Value rounding =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(4));
    auto range = [&](Value x, Value y) -> Value {
      return LLVM::CallIntrinsicOp::create(
                 rewriter, loc, sliceType, rewriter.getStringAttr(intrinsic),
                 ValueRange{x, y, imm, x, allLanes, rounding})
          .getResult(0);
    };
    Value result;
    if (lanes == sliceLanes) {
      result = range(a, b);
    } else {
      result = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(flatType, rewriter.getZeroAttr(element)));
      for (int64_t offset = 0; offset < lanes; offset += sliceLanes) {
        auto slice = [&](Value v) -> Value {
          return vector::ExtractStridedSliceOp::create(
              rewriter, loc, v, ArrayRef<int64_t>{offset},
              ArrayRef<int64_t>{sliceLanes}, ArrayRef<int64_t>{1});
        };
        result = vector::InsertStridedSliceOp::create(
            rewriter, loc, range(slice(a), slice(b)), result,
            ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{1});
      }
    }
    // vrange returns the number beside a quiet NaN; IEEE maximum returns
    // NaN. a + b is NaN exactly where the comparison is unordered.
    if (!arith::bitEnumContainsAll(op.getFastmath(),
                                   arith::FastMathFlags::nnan)) {
      Value unordered = arith::CmpFOp::create(
          rewriter, loc, arith::CmpFPredicate::UNO, a, b);
      Value nan = arith::AddFOp::create(rewriter, loc, a, b);
      result = arith::SelectOp::create(rewriter, loc, unordered, nan, result);
    }
    if (type.getRank() != 1)
      result = vector::ShapeCastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }

  int32_t immediate;
};

} // namespace

void mlir::tessel::populateAVX512DQMinMaxPatterns(RewritePatternSet &patterns) {
  patterns.add<AVX512DQRange<arith::MaximumFOp>>(patterns.getContext(),
                                                 kRangeMax);
  patterns.add<AVX512DQRange<arith::MinimumFOp>>(patterns.getContext(),
                                                 kRangeMin);
}

//===- X86MathApproximations.cpp - Shorter math on AVX-512 ----------------===//
#include "passes/Utils/X86MathApproximations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"

using namespace mlir;

namespace {

// Lanes of one vscalefps on f32.
constexpr int64_t kScalefLanes = 16;
// Wider vectors than this go to upstream's pattern: one scalef per 16 lanes
// would unroll into an unreasonable number of ops.
constexpr int64_t kMaxLanes = 1024;

// Range of x kept apart by the clamps: above ln(FLT_MAX) ~ 88.72 the result
// must be +inf, below ln(2^-150) ~ -103.97 it must be +0. Clamping to just
// outside gives vscalefps an exponent that overflows or underflows on its
// own, and turns the infinities into finite inputs (inf - k ln2 would be
// NaN). The clamps are cmpf uge/ule + select, true on NaN, so NaN passes
// through (and LLVM emits one vmaxps / vminps each).
constexpr float kClampLow = -104.0f;
constexpr float kClampHigh = 89.0f;

// Cody-Waite split of ln 2: ln2Hi has 9 significant bits, so k * ln2Hi is
// exact for every k the clamps allow; ln2Hi + ln2Lo is ln 2 to f32 precision.
constexpr float kLog2E = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;

// exp(r) = 1 + r + r^2 p(r) on |r| <= ln2/2 with p of degree 4, highest
// degree first: a minimax fit of the relative error (Lawson-weighted least
// squares on Chebyshev nodes, coefficients rounded to f32), 3.1e-9 from
// exp at most. Upstream's (Cephes') p has degree 5 for an error far below
// f32 rounding; one fma less here, and the whole sequence, simulated in
// f32 with fma over [-87, 88.7], stays within 0.89 ulp of exp as Cephes'
// does.
constexpr float kPolynomial[] = {1.381461159e-3f, 8.368710056e-3f,
                                 4.166838899e-2f, 1.666652113e-1f,
                                 4.999999404e-1f};

struct AVX512ExpApproximation : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32() || type.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed-size f32 vector");
    int64_t lanes = type.getNumElements();
    if (lanes % kScalefLanes != 0 || lanes > kMaxLanes)
      return rewriter.notifyMatchFailure(
          op, "element count not a multiple of 16 up to 1024");

    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto flatType = VectorType::get({lanes}, f32);
    auto splat = [&](float value) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(flatType,
                                 ArrayRef<Attribute>{
                                     rewriter.getF32FloatAttr(value)}));
    };
    auto fma = [&](Value a, Value b, Value c) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, c);
    };
    auto clamp = [&](Value x, arith::CmpFPredicate keepIf, float bound) {
      Value limit = splat(bound);
      Value keep = arith::CmpFOp::create(rewriter, loc, keepIf, x, limit);
      return arith::SelectOp::create(rewriter, loc, keep, x, limit)
          .getResult();
    };

    Value x = op.getOperand();
    if (type.getRank() != 1)
      x = vector::ShapeCastOp::create(rewriter, loc, flatType, x);
    x = clamp(x, arith::CmpFPredicate::UGE, kClampLow);
    x = clamp(x, arith::CmpFPredicate::ULE, kClampHigh);

    // exp(x) = 2^k exp(r), k = round(x / ln2), |r| <= ln2 / 2.
    Value k = math::RoundEvenOp::create(
        rewriter, loc, arith::MulFOp::create(rewriter, loc, x, splat(kLog2E)));
    Value r = fma(k, splat(-kLn2Hi), x);
    r = fma(k, splat(-kLn2Lo), r);
    Value p = splat(kPolynomial[0]);
    for (float coefficient : ArrayRef(kPolynomial).drop_front())
      p = fma(p, r, splat(coefficient));
    // 1 + r (1 + r p): Horner's form of 1 + r + r^2 p, two fma.
    Value one = splat(1.0f);
    Value y = fma(fma(p, r, one), r, one);

    // y * 2^k, 16 lanes at a time. The op's description names its operands
    // (src, a, b) as (pass-through, value, exponent), but its lowering
    // hands them in order to llvm.x86.avx512.mask.scalef.ps.512, whose
    // operands are (value, exponent, pass-through): what counts is the
    // lowering (test/driver/target_options.test pins the order in the
    // translated call). The all-ones mask makes the pass-through
    // irrelevant; rounding 4 is "current direction" (k is integral).
    auto sliceType = VectorType::get({kScalefLanes}, f32);
    Value allLanes =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI16IntegerAttr(-1));
    Value rounding =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(4));
    auto scale = [&](Value value, Value exponent) -> Value {
      return x86vector::MaskScaleFOp::create(rewriter, loc, sliceType, value,
                                             exponent, value, allLanes,
                                             rounding);
    };
    Value result;
    if (lanes == kScalefLanes) {
      result = scale(y, k);
    } else {
      result = splat(0.0f);
      for (int64_t offset = 0; offset < lanes; offset += kScalefLanes) {
        auto slice = [&](Value v) -> Value {
          return vector::ExtractStridedSliceOp::create(
              rewriter, loc, v, ArrayRef<int64_t>{offset},
              ArrayRef<int64_t>{kScalefLanes}, ArrayRef<int64_t>{1});
        };
        result = vector::InsertStridedSliceOp::create(
            rewriter, loc, scale(slice(y), slice(k)), result,
            ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{1});
      }
    }
    if (type.getRank() != 1)
      result = vector::ShapeCastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tessel::populateAVX512ExpApproximationPatterns(
    RewritePatternSet &patterns, PatternBenefit benefit) {
  patterns.add<AVX512ExpApproximation>(patterns.getContext(), benefit);
}

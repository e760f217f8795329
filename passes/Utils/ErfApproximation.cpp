//===- ErfApproximation.cpp - A shorter f32 erf ---------------------------===//
#include "passes/Utils/ErfApproximation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace {

// erf(4) is 1 - 1.5e-8, which rounds to 1.0f: beyond the clamp the
// function is flat. The clamps are IEEE maximum / minimum, so NaN passes
// through and +-inf become +-4 (then +-1).
constexpr float kClamp = 4.0f;

// erf(x) ~ x P(x^2) / Q(x^2), coefficients lowest degree first: our own fit
// (least squares on the relative error over [0, 4], reweighted towards the
// worst points, Lawson style), rounded to f32. Compiled for Zen 4 and run
// on every f32 in [1e-30, 4.5], the sequence stays within 7.2 ulp of erf
// (the largest errors near x = 3.86, where one ulp of erf is 6e-8, so 4e-7
// absolute) and never exceeds 1; it is odd in x, so negative arguments
// behave alike.
constexpr float kNumerator[] = {1.1283791065216064f,    0.2071271687746048f,
                                0.051525138318538666f,  0.003990655764937401f,
                                0.00014728867972735316f, -1.9423250705585815e-06f,
                                1.911091551676236e-08f};
constexpr float kDenominator[] = {1.0f, 0.5168929100036621f,
                                  0.11797153949737549f, 0.014958235435187817f,
                                  0.0010211336193606257f};

struct RationalErfApproximation : public OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    auto vectorType = dyn_cast<VectorType>(type);
    if (!getElementTypeOrSelf(type).isF32() ||
        (vectorType && vectorType.isScalable()) ||
        (!vectorType && !type.isF32()))
      return rewriter.notifyMatchFailure(op,
                                         "not an f32 scalar or fixed vector");
    Location loc = op.getLoc();
    auto constant = [&](float value) -> Value {
      auto scalar = rewriter.getF32FloatAttr(value);
      if (!vectorType)
        return arith::ConstantOp::create(rewriter, loc, scalar);
      return arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(vectorType, scalar.getValue()));
    };
    auto horner = [&](Value t, ArrayRef<float> coefficients) {
      Value acc = constant(coefficients.back());
      for (float c : llvm::reverse(coefficients.drop_back()))
        acc = math::FmaOp::create(rewriter, loc, acc, t, constant(c));
      return acc;
    };
    Value x = arith::MinimumFOp::create(
        rewriter, loc,
        arith::MaximumFOp::create(rewriter, loc, op.getOperand(),
                                  constant(-kClamp)),
        constant(kClamp));
    Value t = arith::MulFOp::create(rewriter, loc, x, x);
    Value numerator = arith::MulFOp::create(rewriter, loc, x,
                                            horner(t, kNumerator));
    Value ratio = arith::DivFOp::create(rewriter, loc, numerator,
                                        horner(t, kDenominator));
    // Near the clamp the ratio overshoots 1 by up to 2 ulp; erf never does.
    rewriter.replaceOpWithNewOp<arith::MinimumFOp>(
        op, arith::MaximumFOp::create(rewriter, loc, ratio, constant(-1.0f)),
        constant(1.0f));
    return success();
  }
};

} // namespace

void mlir::tessel::populateRationalErfApproximationPatterns(
    RewritePatternSet &patterns, PatternBenefit benefit) {
  patterns.add<RationalErfApproximation>(patterns.getContext(), benefit);
}

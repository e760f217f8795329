//===- Divisibility.cpp - Known divisors of index values ------------------===//
#include "passes/Analysis/Divisibility.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tessel;

// kDivisibleByAll is a power of two, so std::gcd would turn "anything" into
// a power of two: it is the identity of gcd instead.
static int64_t gcdOf(int64_t a, int64_t b) {
  if (a >= kDivisibleByAll)
    return b;
  if (b >= kDivisibleByAll)
    return a;
  return std::gcd(a, b);
}

// The power-of-two part of a divisor, below the sentinel: a sound (smaller)
// divisor where the exact one does not fit.
static int64_t powerOfTwoPart(uint64_t value, unsigned extraShift = 0) {
  unsigned shift = llvm::countr_zero(value) + extraShift;
  return int64_t(1) << std::min(shift, 39u);
}

static int64_t productOf(int64_t a, int64_t b) {
  // A factor known to be 0 makes the product 0.
  if (a >= kDivisibleByAll || b >= kDivisibleByAll)
    return kDivisibleByAll;
  if (a > (kDivisibleByAll - 1) / b)
    return powerOfTwoPart(uint64_t(a), llvm::countr_zero(uint64_t(b)));
  return a * b;
}

static int64_t divisorOfConstant(int64_t c) {
  if (c == 0)
    return kDivisibleByAll;
  uint64_t magnitude = c < 0 ? uint64_t(0) - uint64_t(c) : uint64_t(c);
  if (magnitude >= uint64_t(kDivisibleByAll))
    return powerOfTwoPart(magnitude);
  return int64_t(magnitude);
}

static int64_t divisorOf(Value value, unsigned depth);

/// `value` when it is an index or integer constant, or arithmetic of them
/// (a fully unrolled loop's indices, `0 + 1 * 2`, until canonicalization
/// folds them).
static std::optional<int64_t> foldedConstant(Value value, unsigned depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(value))
    return c;
  Operation *op = value.getDefiningOp();
  if (!op || ++depth > 8 ||
      !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op))
    return std::nullopt;
  std::optional<int64_t> lhs = foldedConstant(op->getOperand(0), depth);
  std::optional<int64_t> rhs = foldedConstant(op->getOperand(1), depth);
  if (!lhs || !rhs)
    return std::nullopt;
  int64_t result;
  bool overflow = isa<arith::AddIOp>(op) ? llvm::AddOverflow(*lhs, *rhs, result)
                  : isa<arith::SubIOp>(op)
                      ? llvm::SubOverflow(*lhs, *rhs, result)
                      : llvm::MulOverflow(*lhs, *rhs, result);
  if (overflow)
    return std::nullopt;
  return result;
}

static int64_t divisorOf(OpFoldResult ofr, unsigned depth) {
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return divisorOfConstant(*c);
  return divisorOf(cast<Value>(ofr), depth);
}

static int64_t divisorOfExpr(AffineExpr expr, ValueRange dims,
                             ValueRange symbols, unsigned depth) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    return divisorOfConstant(cast<AffineConstantExpr>(expr).getValue());
  case AffineExprKind::DimId:
    return divisorOf(dims[cast<AffineDimExpr>(expr).getPosition()], depth);
  case AffineExprKind::SymbolId:
    return divisorOf(symbols[cast<AffineSymbolExpr>(expr).getPosition()],
                     depth);
  case AffineExprKind::Add: {
    auto bin = cast<AffineBinaryOpExpr>(expr);
    return gcdOf(divisorOfExpr(bin.getLHS(), dims, symbols, depth),
                 divisorOfExpr(bin.getRHS(), dims, symbols, depth));
  }
  case AffineExprKind::Mul: {
    auto bin = cast<AffineBinaryOpExpr>(expr);
    return productOf(divisorOfExpr(bin.getLHS(), dims, symbols, depth),
                     divisorOfExpr(bin.getRHS(), dims, symbols, depth));
  }
  default:
    // floordiv, ceildiv, mod: what survives them depends on values, not
    // only on divisors; the expression's own structure may still know.
    return std::max<int64_t>(1, expr.getLargestKnownDivisor());
  }
}

static int64_t divisorOfLoopIV(OpFoldResult lb, OpFoldResult step,
                               unsigned depth) {
  return gcdOf(divisorOf(lb, depth), divisorOf(step, depth));
}

static int64_t divisorOf(Value value, unsigned depth) {
  if (++depth > 16)
    return 1;
  if (std::optional<int64_t> c = foldedConstant(value))
    return divisorOfConstant(*c);

  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(owner)) {
      if (arg == forOp.getInductionVar())
        return divisorOfLoopIV(forOp.getLowerBound(), forOp.getStep(), depth);
      return 1;
    }
    if (auto parallel = dyn_cast<scf::ParallelOp>(owner)) {
      unsigned d = arg.getArgNumber();
      if (d < parallel.getNumLoops())
        return divisorOfLoopIV(parallel.getLowerBound()[d],
                               parallel.getStep()[d], depth);
      return 1;
    }
    if (auto forall = dyn_cast<scf::ForallOp>(owner)) {
      unsigned d = arg.getArgNumber();
      if (d < forall.getRank())
        return divisorOfLoopIV(forall.getMixedLowerBound()[d],
                               forall.getMixedStep()[d], depth);
      return 1;
    }
    if (auto affineFor = dyn_cast<affine::AffineForOp>(owner)) {
      if (arg == affineFor.getInductionVar() &&
          affineFor.hasConstantLowerBound())
        return gcdOf(divisorOfConstant(affineFor.getConstantLowerBound()),
                     divisorOfConstant(affineFor.getStepAsInt()));
      return 1;
    }
    return 1;
  }

  Operation *op = value.getDefiningOp();
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    ValueRange operands = apply.getMapOperands();
    // Constant operands folded in first: d0 * 4 + d1 + 1 at d1 = 1 is a
    // multiple of 2, which the sum's divisors alone (4, 1, 1) do not show
    // (a fully unrolled loop leaves such applies until canonicalization).
    MLIRContext *ctx = apply.getContext();
    SmallVector<AffineExpr> dimReplacements, symbolReplacements;
    for (auto [i, operand] : llvm::enumerate(operands)) {
      bool isDim = i < map.getNumDims();
      std::optional<int64_t> c = foldedConstant(operand);
      AffineExpr replacement =
          c       ? getAffineConstantExpr(*c, ctx)
          : isDim ? getAffineDimExpr(i, ctx)
                  : getAffineSymbolExpr(i - map.getNumDims(), ctx);
      (isDim ? dimReplacements : symbolReplacements).push_back(replacement);
    }
    AffineExpr folded =
        simplifyAffineExpr(map.getResult(0).replaceDimsAndSymbols(
                               dimReplacements, symbolReplacements),
                           map.getNumDims(), map.getNumSymbols());
    return divisorOfExpr(folded, operands.take_front(map.getNumDims()),
                         operands.drop_front(map.getNumDims()), depth);
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MinSIOp, arith::MinUIOp,
          arith::MaxSIOp, arith::MaxUIOp>(op))
    return gcdOf(divisorOf(op->getOperand(0), depth),
                 divisorOf(op->getOperand(1), depth));
  if (isa<arith::MulIOp>(op))
    return productOf(divisorOf(op->getOperand(0), depth),
                     divisorOf(op->getOperand(1), depth));
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return divisorOf(op->getOperand(0), depth);
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return gcdOf(divisorOf(select.getTrueValue(), depth),
                 divisorOf(select.getFalseValue(), depth));
  return 1;
}

int64_t mlir::tessel::largestKnownDivisor(Value value) {
  return divisorOf(value, 0);
}

std::optional<BaseOffset> mlir::tessel::offsetFromBase(Value memref,
                                                       ValueRange indices) {
  SmallVector<int64_t> indexDivisors;
  for (Value index : indices)
    indexDivisors.push_back(largestKnownDivisor(index));
  return offsetFromBase(memref, indexDivisors);
}

std::optional<BaseOffset>
mlir::tessel::offsetFromBase(Value memref, ArrayRef<int64_t> divisors) {
  // Divisors of the access's indices in the coordinates of `current`.
  SmallVector<int64_t> indexDivisors(divisors);

  Value current = memref;
  while (true) {
    if (auto castOp = current.getDefiningOp<memref::CastOp>()) {
      current = castOp.getSource();
      continue;
    }
    auto subview = current.getDefiningOp<memref::SubViewOp>();
    if (!subview)
      break;
    // Source index d = offset_d + index_d * stride_d; dims the subview drops
    // sit at their offset.
    llvm::SmallBitVector dropped = subview.getDroppedDims();
    SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
    SmallVector<OpFoldResult> strides = subview.getMixedStrides();
    SmallVector<int64_t> sourceDivisors;
    unsigned resultDim = 0;
    for (unsigned d = 0, e = offsets.size(); d < e; ++d) {
      int64_t offsetDivisor = divisorOf(offsets[d], 0);
      if (dropped.test(d)) {
        sourceDivisors.push_back(offsetDivisor);
        continue;
      }
      if (resultDim >= indexDivisors.size())
        return std::nullopt;
      sourceDivisors.push_back(
          gcdOf(offsetDivisor, productOf(indexDivisors[resultDim++],
                                         divisorOf(strides[d], 0))));
    }
    indexDivisors = std::move(sourceDivisors);
    current = subview.getSource();
  }

  auto type = dyn_cast<MemRefType>(current.getType());
  if (!type || indexDivisors.size() != static_cast<size_t>(type.getRank()))
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  int64_t divisor = divisorOfConstant(offset);
  for (auto [index, stride] : llvm::zip(indexDivisors, strides)) {
    if (ShapedType::isDynamic(stride))
      return std::nullopt;
    divisor = gcdOf(divisor, productOf(index, divisorOfConstant(stride)));
  }
  return BaseOffset{current, divisor};
}

std::optional<int64_t> mlir::tessel::staticSizeInBytes(Type type) {
  auto memrefType = dyn_cast<MemRefType>(type);
  if (!memrefType || !memrefType.hasStaticShape() ||
      !memrefType.getElementType().isIntOrFloat() ||
      memrefType.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  return memrefType.getNumElements() *
         (memrefType.getElementTypeBitWidth() / 8);
}

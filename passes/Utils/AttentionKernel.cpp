//===- AttentionKernel.cpp - Online-softmax attention as vector code ------===//
//
// Written as vector ops rather than as tiled linalg ops handed to the
// matmul and generic vectorizers: the loop over key blocks carries the
// running max and sum between the two products, which neither upstream's
// tiling nor tessel-vectorize-matmul (one matmul, its own cache blocking)
// can express. The register tiles follow the matmul kernel's recipe
// (broadcast one element, FMA into whole-vector accumulators carried by the
// reduction loop).
//
// Every tensor written in a loop is carried by it and always read at its
// latest value, so one-shot bufferization updates the scratch buffers in
// place (no copies).
//
//===----------------------------------------------------------------------===//
#include "passes/Utils/AttentionKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tessel;

namespace {
/// Builds the kernel's ops; holds the types and constants every part uses.
class KernelBuilder {
public:
  KernelBuilder(ImplicitLocOpBuilder &b, const AttentionMatch &m,
                const AttentionTiling &t)
      : b(b), m(m), t(t), f32(b.getF32Type()),
        vec(VectorType::get({t.lanes}, f32)) {}

  Value build();

private:
  using Body = function_ref<SmallVector<Value>(Value iv, ValueRange iters)>;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value add(Value a, int64_t c) {
    return c == 0 ? a : arith::AddIOp::create(b, a, index(c)).getResult();
  }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, a, c); }
  Value mul(Value a, int64_t c) { return arith::MulIOp::create(b, a, index(c)); }

  /// An scf.for from lb to ub by step carrying `inits`; `body` returns the
  /// values to yield.
  ValueRange loop(int64_t lb, int64_t ub, int64_t step, ValueRange inits,
                  Body body) {
    auto forOp = scf::ForOp::create(b, index(lb), index(ub), index(step), inits);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    SmallVector<Value> next =
        body(forOp.getInductionVar(), forOp.getRegionIterArgs());
    scf::YieldOp::create(b, next);
    return forOp.getResults();
  }

  /// Indices into Q, Kt or V: the batch index first when batched.
  SmallVector<Value> at(Value row, Value col) {
    if (m.batched)
      return {batchIndex, row, col};
    return {row, col};
  }
  Value read(Value tensor, ArrayRef<Value> indices) {
    return vector::TransferReadOp::create(b, vec, tensor, indices,
                                          std::optional<Value>(zero),
                                          ArrayRef<bool>{true});
  }
  Value write(Value v, Value tensor, ArrayRef<Value> indices) {
    return vector::TransferWriteOp::create(b, v, tensor, indices,
                                           ArrayRef<bool>{true})
        .getResult();
  }
  Value splat(Value scalar) { return vector::BroadcastOp::create(b, vec, scalar); }
  Value empty(ArrayRef<int64_t> shape) {
    return tensor::EmptyOp::create(b, shape, f32);
  }

  SmallVector<Value> initialState(Value acc, Value rowMax, Value rowSum);
  Value scores(Value keyBlock, Value scoreBuffer);
  SmallVector<Value> softmaxRows(Value scoreBlock, Value rowMax, Value rowSum,
                                 Value rescale);
  Value accumulateOutput(Value keyBlock, Value probabilities, Value rescale,
                         Value acc);
  Value normalize(Value acc, Value rowSum);

  ImplicitLocOpBuilder &b;
  const AttentionMatch &m;
  const AttentionTiling &t;
  Type f32;
  VectorType vec;
  Value zero, zeroVec;
  Value batchIndex, firstRow; // of the current parallel iteration
};
} // namespace

/// O_acc = 0, running max = -inf, running sum = 0.
SmallVector<Value> KernelBuilder::initialState(Value acc, Value rowMax,
                                               Value rowSum) {
  Value minusInf =
      arith::ConstantOp::create(b, b.getF32FloatAttr(-INFINITY));
  int64_t vectors = m.dv / t.lanes;
  return SmallVector<Value>(loop(
      0, t.blockRows, 1, {acc, rowMax, rowSum},
      [&](Value r, ValueRange it) -> SmallVector<Value> {
        Value o = it[0];
        for (int64_t v = 0; v < vectors; ++v)
          o = write(zeroVec, o, {r, index(v * t.lanes)});
        Value mx = tensor::InsertOp::create(b, minusInf, it[1], r);
        Value sm = tensor::InsertOp::create(b, zero, it[2], r);
        return {o, mx, sm};
      }));
}

/// S[r][c] = scale * sum_d Q[row0 + r][d] Kt[d][key0 + c] for the block, in
/// scoreRows x scoreCols register tiles.
Value KernelBuilder::scores(Value keyBlock, Value scoreBuffer) {
  int64_t vectors = t.scoreCols / t.lanes;
  Value scale;
  if (m.scale != 1.0)
    scale = arith::ConstantOp::create(
        b, DenseElementsAttr::get(vec, b.getF32FloatAttr(m.scale)));
  return loop(0, t.blockRows, t.scoreRows, {scoreBuffer},
              [&](Value r0, ValueRange rowIt) -> SmallVector<Value> {
    return SmallVector<Value>(loop(
        0, t.blockCols, t.scoreCols, {rowIt[0]},
        [&](Value c0, ValueRange colIt) -> SmallVector<Value> {
          SmallVector<Value> inits(t.scoreRows * vectors, zeroVec);
          Value key = add(keyBlock, c0);
          Value row = add(firstRow, r0);
          ValueRange acc = loop(
              0, m.d, t.unrollHead, inits,
              [&](Value d0, ValueRange accIt) -> SmallVector<Value> {
                SmallVector<Value> next(accIt);
                for (int64_t u = 0; u < t.unrollHead; ++u) {
                  Value d = add(d0, u);
                  SmallVector<Value> keys;
                  for (int64_t v = 0; v < vectors; ++v)
                    keys.push_back(read(m.kt, at(d, add(key, v * t.lanes))));
                  for (int64_t i = 0; i < t.scoreRows; ++i) {
                    Value qi = splat(tensor::ExtractOp::create(
                        b, m.q, at(add(row, i), d)));
                    for (int64_t v = 0; v < vectors; ++v)
                      next[i * vectors + v] = vector::FMAOp::create(
                          b, qi, keys[v], next[i * vectors + v]);
                  }
                }
                return next;
              });
          Value block = colIt[0];
          for (int64_t i = 0; i < t.scoreRows; ++i)
            for (int64_t v = 0; v < vectors; ++v) {
              Value s = acc[i * vectors + v];
              if (scale)
                s = arith::MulFOp::create(b, s, scale);
              block = write(s, block, {add(r0, i), add(c0, v * t.lanes)});
            }
          return {block};
        }));
  })[0];
}

/// Per row of the score block: the new running max m', the factor
/// alpha = exp(m - m') for what was accumulated so far, P = exp(S - m') in
/// place of S and l = alpha l + sum P. Returns {P, m', l, alpha}.
SmallVector<Value> KernelBuilder::softmaxRows(Value scoreBlock, Value rowMax,
                                              Value rowSum, Value rescale) {
  int64_t vectors = t.blockCols / t.lanes;
  return SmallVector<Value>(loop(
      0, t.blockRows, 1, {scoreBlock, rowMax, rowSum, rescale},
      [&](Value r, ValueRange it) -> SmallVector<Value> {
        Value block = it[0];
        Value vmax = read(block, {r, index(0)});
        for (int64_t v = 1; v < vectors; ++v)
          vmax = arith::MaxNumFOp::create(b, vmax,
                                          read(block, {r, index(v * t.lanes)}));
        Value blockMax =
            vector::ReductionOp::create(b, vector::CombiningKind::MAXNUMF, vmax);
        Value oldMax = tensor::ExtractOp::create(b, it[1], r);
        Value newMax = arith::MaxNumFOp::create(b, oldMax, blockMax);
        Value newMaxVec = splat(newMax);
        // exp on a vector: the polynomial tessel-approximate-math emits,
        // not a libm call per row and step.
        Value alphaVec = math::ExpOp::create(
            b, arith::SubFOp::create(b, splat(oldMax), newMaxVec));
        Value alpha = vector::ExtractOp::create(b, alphaVec, ArrayRef<int64_t>{0});
        Value sum = zeroVec;
        for (int64_t v = 0; v < vectors; ++v) {
          Value col = index(v * t.lanes);
          Value p = math::ExpOp::create(
              b, arith::SubFOp::create(b, read(block, {r, col}), newMaxVec));
          block = write(p, block, {r, col});
          sum = arith::AddFOp::create(b, sum, p);
        }
        Value blockSum =
            vector::ReductionOp::create(b, vector::CombiningKind::ADD, sum);
        Value oldSum = tensor::ExtractOp::create(b, it[2], r);
        Value newSum = arith::AddFOp::create(
            b, arith::MulFOp::create(b, oldSum, alpha), blockSum);
        return {block,
                tensor::InsertOp::create(b, newMax, it[1], r),
                tensor::InsertOp::create(b, newSum, it[2], r),
                tensor::InsertOp::create(b, alpha, it[3], r)};
      }));
}

/// O_acc[r] = alpha[r] O_acc[r] + sum_c P[r][c] V[key0 + c] in outputRows x
/// Dv register tiles.
Value KernelBuilder::accumulateOutput(Value keyBlock, Value probabilities,
                                      Value rescale, Value acc) {
  int64_t vectors = m.dv / t.lanes;
  return loop(0, t.blockRows, t.outputRows, {acc},
              [&](Value r0, ValueRange rowIt) -> SmallVector<Value> {
    Value block = rowIt[0];
    SmallVector<Value> inits;
    for (int64_t i = 0; i < t.outputRows; ++i) {
      Value alpha = splat(tensor::ExtractOp::create(b, rescale, add(r0, i)));
      for (int64_t v = 0; v < vectors; ++v)
        inits.push_back(arith::MulFOp::create(
            b, read(block, {add(r0, i), index(v * t.lanes)}), alpha));
    }
    ValueRange sums = loop(
        0, t.blockCols, t.unrollKeys, inits,
        [&](Value c0, ValueRange accIt) -> SmallVector<Value> {
          SmallVector<Value> next(accIt);
          for (int64_t u = 0; u < t.unrollKeys; ++u) {
            Value c = add(c0, u);
            Value key = add(keyBlock, c);
            SmallVector<Value> values;
            for (int64_t v = 0; v < vectors; ++v)
              values.push_back(read(m.v, at(key, index(v * t.lanes))));
            for (int64_t i = 0; i < t.outputRows; ++i) {
              Value p = splat(
                  tensor::ExtractOp::create(b, probabilities, {add(r0, i), c}));
              for (int64_t v = 0; v < vectors; ++v)
                next[i * vectors + v] = vector::FMAOp::create(
                    b, p, values[v], next[i * vectors + v]);
            }
          }
          return next;
        });
    for (int64_t i = 0; i < t.outputRows; ++i)
      for (int64_t v = 0; v < vectors; ++v)
        block = write(sums[i * vectors + v], block,
                      {add(r0, i), index(v * t.lanes)});
    return {block};
  })[0];
}

/// O_acc[r] / l[r].
Value KernelBuilder::normalize(Value acc, Value rowSum) {
  int64_t vectors = m.dv / t.lanes;
  Value one = arith::ConstantOp::create(b, b.getF32FloatAttr(1.0f));
  return loop(0, t.blockRows, 1, {acc},
              [&](Value r, ValueRange it) -> SmallVector<Value> {
    Value inverse = splat(arith::DivFOp::create(
        b, one, tensor::ExtractOp::create(b, rowSum, r)));
    Value block = it[0];
    for (int64_t v = 0; v < vectors; ++v) {
      Value col = index(v * t.lanes);
      block = write(arith::MulFOp::create(b, read(block, {r, col}), inverse),
                    block, {r, col});
    }
    return {block};
  })[0];
}

Value KernelBuilder::build() {
  SmallVector<OpFoldResult> counts;
  if (m.batched)
    counts.push_back(b.getIndexAttr(m.batch));
  counts.push_back(b.getIndexAttr(m.sq / t.blockRows));
  auto forall = scf::ForallOp::create(b, b.getLoc(), counts,
                                      ValueRange{m.outputInit}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  zero = arith::ConstantOp::create(b, b.getF32FloatAttr(0.0f));
  zeroVec = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vec, b.getF32FloatAttr(0.0f)));
  SmallVector<Value> ivs(forall.getInductionVars());
  batchIndex = m.batched ? ivs[0] : Value();
  firstRow = mul(ivs.back(), t.blockRows);

  SmallVector<Value> state = initialState(empty({t.blockRows, m.dv}),
                                          empty({t.blockRows}),
                                          empty({t.blockRows}));
  Value scoreBuffer = empty({t.blockRows, t.blockCols});
  Value rescaleBuffer = empty({t.blockRows});
  ValueRange final = loop(
      0, m.skv, t.blockCols,
      {state[0], state[1], state[2], scoreBuffer, rescaleBuffer},
      [&](Value key0, ValueRange it) -> SmallVector<Value> {
        Value s = scores(key0, it[3]);
        SmallVector<Value> soft = softmaxRows(s, it[1], it[2], it[4]);
        Value acc = accumulateOutput(key0, soft[0], soft[3], it[0]);
        return {acc, soft[1], soft[2], soft[0], soft[3]};
      });
  Value out = normalize(final[0], final[2]);

  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  if (m.batched) {
    offsets.push_back(batchIndex);
    sizes.push_back(b.getIndexAttr(1));
  }
  offsets.append({firstRow, b.getIndexAttr(0)});
  sizes.append({b.getIndexAttr(t.blockRows), b.getIndexAttr(m.dv)});
  strides.assign(offsets.size(), b.getIndexAttr(1));
  tensor::ParallelInsertSliceOp::create(b, out, forall.getRegionIterArgs()[0],
                                        offsets, sizes, strides);
  return forall.getResult(0);
}

Value mlir::tessel::buildOnlineSoftmaxAttention(RewriterBase &rewriter,
                                                const AttentionMatch &match,
                                                const AttentionTiling &tiling) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(match.output);
  ImplicitLocOpBuilder b(match.output->getLoc(), rewriter);
  KernelBuilder kernel(b, match, tiling);
  return kernel.build();
}

//===- ConvertConvToNHWC.cpp - NCHW convolutions between transposes -------===//
//
// PyTorch emits convolutions as linalg.conv_2d_nchw_fchw; the GPU's tensor
// cores (and, for f32, its SIMT kernel) take convolutions as NHWC implicit
// GEMMs (tessel-map-matmul-to-gpu), whose 16-byte copies run along the
// channels. This pass puts such a convolution between transposes, on
// tensors, so that it reaches that kernel instead of the plain loop nest,
// where CostModel/GPUConvLayout estimates that this pays for the
// transposes.
//
// Upstream's linalg::transposeConv2D only turns FHWC filters into HWCF ones;
// it has no NCHW form, hence this pass.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel/GPUConvLayout.h"
#include "passes/Passes.h"
#include "passes/Utils/GPUTensorCores.h"
#include "passes/Utils/TransposeFolding.h"

#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tessel-convert-conv-to-nhwc"

namespace mlir::tessel {
#define GEN_PASS_DEF_CONVERTCONVTONHWCPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

static std::string shapeName(ShapedType type) {
  std::string s;
  for (int64_t d : type.getShape())
    s += (s.empty() ? "" : "x") +
         (ShapedType::isDynamic(d) ? "?" : std::to_string(d));
  return s;
}

/// `value` (a ranked tensor) with its dimensions permuted: result dimension
/// i is `value`'s dimension permutation[i].
static Value transposed(OpBuilder &b, Location loc, Value value,
                        ArrayRef<int64_t> permutation) {
  Value init = permutedEmpty(b, loc, cast<RankedTensorType>(value.getType()),
                             permutation);
  return linalg::TransposeOp::create(b, loc, value, init, permutation)
      .getResult()[0];
}

/// The fill that starts `conv`'s output, if it is one on tensors: it is
/// made on the NHWC tensor instead of being transposed.
static linalg::FillOp initialFill(linalg::Conv2DNchwFchwOp conv) {
  auto fill = conv.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  return fill && fill.hasPureTensorSemantics() ? fill : linalg::FillOp();
}

/// Bytes the transposes read and write: the input, the filter, the result
/// and, unless a fill starts it, the output's initial value.
static int64_t transposedBytes(linalg::Conv2DNchwFchwOp conv) {
  auto bytes = [](Value v) {
    auto type = cast<ShapedType>(v.getType());
    return type.getNumElements() * type.getElementTypeBitWidth() / 8;
  };
  Value init = conv.getDpsInitOperand(0)->get();
  return 2 * (bytes(conv.getDpsInputOperand(0)->get()) +
              bytes(conv.getDpsInputOperand(1)->get()) + bytes(init) +
              (initialFill(conv) ? 0 : bytes(init)));
}

namespace {
/// The model's reading of one NCHW convolution.
struct LayoutEstimate {
  GPUProductKernel kernel;
  int64_t transposedBytes = 0;
  double transposeCycles = 0, directCycles = 0;
  double nhwcCycles() const { return kernel.estimatedCycles + transposeCycles; }
};
} // namespace

static std::string cycles(double c) {
  return "~" + std::to_string(int64_t(c)) + " cycles";
}

/// What the NHWC form costs, in the remarks.
static std::string nhwcCosts(const LayoutEstimate &e) {
  return "the transposes read and write " + std::to_string(e.transposedBytes) +
         " bytes (" + cycles(e.transposeCycles) + ") and the kernel takes " +
         cycles(e.kernel.estimatedCycles) + ", against at least " +
         cycles(e.directCycles) + " for the direct loop nest";
}

/// Why `conv` stays as it is, or empty when it may be rewritten (with
/// `estimate` filled).
static std::string whyNotConverted(linalg::Conv2DNchwFchwOp conv,
                                   TargetAttr target,
                                   LayoutEstimate &estimate) {
  if (!conv.hasPureTensorSemantics())
    return "it is not on tensors";
  auto input = cast<ShapedType>(conv.getDpsInputOperand(0)->get().getType());
  auto filter = cast<ShapedType>(conv.getDpsInputOperand(1)->get().getType());
  auto output = cast<ShapedType>(conv.getDpsInitOperand(0)->get().getType());
  if (!input.hasStaticShape() || !filter.hasStaticShape() ||
      !output.hasStaticShape())
    return "it has dynamic sizes";
  for (ShapedType type : {input, filter, output})
    if (auto tensor = dyn_cast<RankedTensorType>(type);
        tensor && tensor.getEncoding())
      return "an operand has a tensor encoding";
  if (input.getElementType() != filter.getElementType())
    return "the input and the filter have different element types";
  // The implicit GEMM tessel-map-matmul-to-gpu would map it as.
  ArrayRef<int64_t> f = filter.getShape(), out = output.getShape();
  int64_t m = out[0] * out[2] * out[3], n = f[0], k = f[1] * f[2] * f[3];
  // NHWC rows run along the channels (A) and the filters (B); cp.async
  // copies at least 4 bytes.
  int64_t bytes = input.getElementTypeBitWidth() / 8;
  std::string why = whyNoGPUProductKernel(
      target, input.getElementType(), output.getElementType(), m, n, k,
      /*aSynchronous=*/(f[1] * bytes) % 4 != 0,
      /*bSynchronous=*/(f[0] * bytes) % 4 != 0, estimate.kernel);
  if (!why.empty())
    return why + ", so an NHWC form would not be faster";
  GPUModelParams params = gpuModelParams(target);
  estimate.transposedBytes = transposedBytes(conv);
  estimate.transposeCycles =
      estimateGPUTransposeTrafficCycles(params, estimate.transposedBytes);
  // The SIMT rates are f32's and f64's; f16 and i8 loop nests may use
  // packed forms (HFMA2, DP4A) faster than f32's, so no rate bounds them.
  Type element = input.getElementType();
  int64_t fmaPerCycle = element.isF64()   ? params.simtF64FmaPerCycle
                        : element.isF32() ? params.simtFmaPerCycle
                                          : 0;
  estimate.directCycles =
      lowerBoundGPUDirectConvCycles(params, m * n, k, fmaPerCycle);
  if (estimate.nhwcCycles() >= estimate.directCycles)
    return "an NHWC form on " + estimate.kernel.unit +
           " is estimated no faster: " + nhwcCosts(estimate);
  return {};
}

/// Replaces `conv` by transposes of its operands to NHWC/HWCF, the NHWC
/// convolution, and a transpose of its result back to NCHW. A fill of the
/// output is made on the NHWC tensor instead of being transposed.
static void convertToNHWC(RewriterBase &rewriter,
                          linalg::Conv2DNchwFchwOp conv) {
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Value input = conv.getDpsInputOperand(0)->get();
  Value filter = conv.getDpsInputOperand(1)->get();
  Value init = conv.getDpsInitOperand(0)->get();
  // NCHW -> NHWC, FCHW -> HWCF, and back: NHWC -> NCHW.
  const int64_t toNHWC[] = {0, 2, 3, 1};
  const int64_t toHWCF[] = {2, 3, 1, 0};
  const int64_t toNCHW[] = {0, 3, 1, 2};
  Value nhwcInput = transposed(rewriter, loc, input, toNHWC);
  Value hwcfFilter = transposed(rewriter, loc, filter, toHWCF);
  linalg::FillOp fill = initialFill(conv);
  Value nhwcInit =
      fill ? linalg::FillOp::create(
                 rewriter, loc, fill.getInputs()[0],
                 permutedEmpty(rewriter, loc,
                               cast<RankedTensorType>(init.getType()), toNHWC))
                 .getResult(0)
           : transposed(rewriter, loc, init, toNHWC);
  auto nhwc = linalg::Conv2DNhwcHwcfOp::create(
      rewriter, loc, nhwcInit.getType(), ValueRange{nhwcInput, hwcfFilter},
      ValueRange{nhwcInit}, conv.getStrides(), conv.getDilations());
  Value result = transposed(rewriter, loc, nhwc.getResult(0), toNCHW);
  rewriter.replaceOp(conv, result);
  if (fill && fill->use_empty())
    rewriter.eraseOp(fill);
}

namespace {
struct ConvertConvToNHWCPass
    : public tessel::impl::ConvertConvToNHWCPassBase<ConvertConvToNHWCPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = TargetAttr::lookup(func);
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    func.walk([&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
    IRRewriter rewriter(&getContext());
    for (linalg::Conv2DNchwFchwOp conv : convs) {
      auto input =
          cast<ShapedType>(conv.getDpsInputOperand(0)->get().getType());
      auto filter =
          cast<ShapedType>(conv.getDpsInputOperand(1)->get().getType());
      std::string what =
          "conv_2d_nchw_fchw " + shapeName(input) + " * " + shapeName(filter);
      LayoutEstimate estimate;
      if (std::string why = whyNotConverted(conv, target, estimate);
          !why.empty()) {
        conv->emitRemark() << what << " left in NCHW: " << why;
        continue;
      }
      conv->emitRemark() << what << " as conv_2d_nhwc_hwcf between transposes ("
                         << estimate.kernel.unit
                         << " take NHWC implicit GEMMs): "
                         << nhwcCosts(estimate);
      convertToNHWC(rewriter, conv);
    }
  }
};
} // namespace

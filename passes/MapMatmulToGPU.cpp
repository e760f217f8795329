//===- MapMatmulToGPU.cpp - Matmuls to tensor-core GPU kernels ------------===//
//
// Recognizes matmul-like contractions on memrefs (linalg.matmul,
// batch_matmul, or a generic with their maps, transposed operands
// included), asks CostModel/GPUMatmulTiling for block, warp and pipeline
// sizes, and replaces each with the kernel Utils/GPUMatmulKernel builds.
// A linalg.fill of C right before it becomes the accumulators' start value.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel/GPUMatmulTiling.h"
#include "passes/Passes.h"
#include "passes/Utils/GPUMatmulKernel.h"
#include "passes/Utils/GPUTensorCores.h"
#include "passes/Utils/GPUTransposeKernel.h"
#include "passes/Utils/GlobalViews.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "tessel-map-matmul-to-gpu"

namespace mlir::tessel {
#define GEN_PASS_DEF_MAPMATMULTOGPUPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {
/// A contraction recognized as a (batched) matmul, before the layout checks.
struct MatmulMatch {
  GPUMatmulOperands operands;
  Type inputType, accType;
  /// A and C lead with a dimension B lacks (a batch of rows sharing B):
  /// the pass collapses it into their rows.
  bool foldRows = false;
};
} // namespace

/// Where `map`'s results sit among (batch, first, second) loop dimensions:
/// true with `swapped` set when the results are [batch?] (second, first),
/// and `batched` when the batch dimension leads them.
static bool matchOperandMap(AffineMap map, std::optional<unsigned> batch,
                            unsigned first, unsigned second, bool &batched,
                            bool &swapped) {
  SmallVector<unsigned> dims;
  for (AffineExpr e : map.getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d)
      return false;
    dims.push_back(d.getPosition());
  }
  batched = batch && !dims.empty() && dims.front() == *batch;
  ArrayRef<unsigned> rest = ArrayRef(dims).drop_front(batched ? 1 : 0);
  if (rest.size() != 2)
    return false;
  swapped = rest[0] == second && rest[1] == first;
  return swapped || (rest[0] == first && rest[1] == second);
}

/// `v` is the block argument `arg`, or extended from it to `type`
/// (arith.extf / arith.extsi, the casts tensor cores apply).
static bool isArgumentOrExtended(Value v, BlockArgument arg, Type type) {
  if (v == arg)
    return true;
  Operation *cast = v.getDefiningOp();
  return cast && isa<arith::ExtFOp, arith::ExtSIOp>(cast) &&
         cast->getOperand(0) == arg && v.getType() == type;
}

/// The body is exactly `yield acc + a * b` (either operand order), a and b
/// at most extended to the accumulator's type: upstream's contraction check
/// also lets unary ops (negf, exp, a product rounded before it is
/// extended) through, which tensor cores would silently drop.
static bool isPlainMultiplyAccumulate(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getNumArguments() != 3)
    return false;
  BlockArgument a = body->getArgument(0), b = body->getArgument(1),
                acc = body->getArgument(2);
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield->getNumOperands() != 1)
    return false;
  Operation *add = yield->getOperand(0).getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add) ||
      add->getBlock() != body)
    return false;
  Value product = add->getOperand(0) == acc ? add->getOperand(1)
                  : add->getOperand(1) == acc ? add->getOperand(0)
                                              : Value();
  Operation *mul = product ? product.getDefiningOp() : nullptr;
  if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul) ||
      mul->getBlock() != body)
    return false;
  Type type = acc.getType();
  Value x = mul->getOperand(0), y = mul->getOperand(1);
  bool direct = isArgumentOrExtended(x, a, type) &&
                isArgumentOrExtended(y, b, type);
  bool swapped = isArgumentOrExtended(x, b, type) &&
                 isArgumentOrExtended(y, a, type);
  // Only the casts, the product and the sum: nothing else may run.
  int64_t extra = llvm::count_if(body->without_terminator(), [&](Operation &o) {
    return &o != add && &o != mul && !isa<arith::ExtFOp, arith::ExtSIOp>(o);
  });
  return (direct || swapped) && extra == 0 &&
         llvm::all_of(body->without_terminator(), [](Operation &o) {
           return o.getNumResults() == 1 && !o.getResult(0).use_empty();
         });
}

/// Recognizes `op`; empty reason on success.
static std::string matchMatmul(linalg::LinalgOp op, MatmulMatch &match) {
  if (!op.hasPureBufferSemantics())
    return "it is not on memrefs (bufferize first)";
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return "it does not have two inputs and one output";
  if (!linalg::isaContractionOpInterface(op))
    return "it is not a multiply-accumulate contraction";
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  // A batch only two operands have, leading C: upstream counts it as a
  // second m (n) dimension. A batch of A's rows that share B folds into M:
  // (b, m) x (k, n) is one (b * m) x k x n matmul; a batch of B's that
  // share A is the grid's batch with A read by every block.
  std::optional<unsigned> rowBatch, colBatch;
  auto leadingDim = [&]() -> std::optional<unsigned> {
    AffineMap cMap = op.getIndexingMapsArray()[2];
    if (cMap.getNumResults() == 0)
      return std::nullopt;
    if (auto d = dyn_cast<AffineDimExpr>(cMap.getResult(0)))
      return d.getPosition();
    return std::nullopt;
  };
  auto takeBatch = [&](SmallVectorImpl<unsigned> &group)
      -> std::optional<unsigned> {
    std::optional<unsigned> lead = leadingDim();
    auto it = lead ? llvm::find(group, *lead) : group.end();
    if (it == group.end())
      return std::nullopt;
    group.erase(it);
    return lead;
  };
  if (succeeded(dims) && dims->batch.empty() && dims->m.size() == 2)
    rowBatch = takeBatch(dims->m);
  else if (succeeded(dims) && dims->batch.empty() && dims->n.size() == 2)
    colBatch = takeBatch(dims->n);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return "it is not a matmul with at most one batch dimension";
  std::optional<unsigned> batch = rowBatch ? rowBatch : colBatch;
  if (!dims->batch.empty())
    batch = dims->batch.front();
  unsigned m = dims->m.front(), n = dims->n.front(), k = dims->k.front();

  GPUMatmulOperands &ops = match.operands;
  ops.a = op.getDpsInputOperand(0)->get();
  ops.b = op.getDpsInputOperand(1)->get();
  ops.c = op.getDpsInitOperand(0)->get();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool cSwapped = false;
  if (!matchOperandMap(maps[0], batch, m, k, ops.aBatched, ops.aTransposed) ||
      !matchOperandMap(maps[1], batch, k, n, ops.bBatched, ops.bTransposed) ||
      !matchOperandMap(maps[2], batch, m, n, ops.cBatched, cSwapped) ||
      cSwapped || (batch && !ops.cBatched))
    return "its operands are not [batch] x row-major or transposed matrices "
           "and a [batch] x (m, n) result";
  if (rowBatch && (!ops.aBatched || ops.aTransposed || ops.bBatched))
    return "a dimension of A and C that B lacks is not a batch of A's rows";
  if (colBatch && (ops.aBatched || !ops.bBatched))
    return "a dimension of B and C that A lacks is not a batch of B";

  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return "it has dynamic sizes";
  if (rowBatch) {
    match.foldRows = true;
    ops.aBatched = ops.cBatched = false;
    batch.reset();
    ranges[m] *= ranges[*rowBatch];
  }
  ops.m = ranges[m];
  ops.n = ranges[n];
  ops.k = ranges[k];
  ops.batch = batch ? ranges[*batch] : 1;
  if (ops.batch > 65535)
    return "its batch exceeds the grid's z limit (65535)";

  match.inputType = getElementTypeOrSelf(ops.a.getType());
  match.accType = getElementTypeOrSelf(ops.c.getType());
  if (match.inputType != getElementTypeOrSelf(ops.b.getType()))
    return "A and B have different element types";
  bool unsignedCast = false;
  op.getBlock()->walk([&](arith::ExtUIOp) { unsignedCast = true; });
  if (unsignedCast)
    return "it zero-extends its integer inputs (only signed i8 maps to "
           "tensor cores)";
  if (!isPlainMultiplyAccumulate(op))
    return "its body is not acc + a * b with a and b at most extended to "
           "the accumulator's type (tensor cores compute exactly that)";
  if (ops.m == 0 || ops.n == 0 || ops.k == 0 || ops.batch == 0)
    return "it has an empty dimension";
  return {};
}

/// Recognizes an NHWC/HWCF convolution as an implicit GEMM: A the input's
/// patches ([N*OH*OW, KH*KW*C], read through the input), B the filter
/// collapsed to [KH*KW*C, F], C the output collapsed to [N*OH*OW, F] (the
/// pass collapses both). Empty reason on success.
static std::string matchConvolution(linalg::Conv2DNhwcHwcfOp conv,
                                    MatmulMatch &match) {
  if (!conv.hasPureBufferSemantics())
    return "it is not on memrefs (bufferize first)";
  auto inputType = cast<MemRefType>(conv.getDpsInputOperand(0)->get().getType());
  auto filterType =
      cast<MemRefType>(conv.getDpsInputOperand(1)->get().getType());
  auto outputType = cast<MemRefType>(conv.getDpsInitOperand(0)->get().getType());
  if (!inputType.hasStaticShape() || !filterType.hasStaticShape() ||
      !outputType.hasStaticShape())
    return "it has dynamic sizes";
  if (!isPlainMultiplyAccumulate(conv))
    return "its body is not acc + a * b with a and b at most extended to "
           "the accumulator's type (tensor cores compute exactly that)";
  ArrayRef<int64_t> in = inputType.getShape(), f = filterType.getShape(),
                    out = outputType.getShape();
  GPUConvolution cv;
  cv.input = conv.getDpsInputOperand(0)->get();
  cv.c = in[3];
  cv.outH = out[1];
  cv.outW = out[2];
  cv.kernelW = f[1];
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  cv.strideH = strides[0];
  cv.strideW = strides[1];
  cv.dilationH = dilations[0];
  cv.dilationW = dilations[1];
  GPUMatmulOperands &ops = match.operands;
  ops.a = cv.input;
  ops.b = conv.getDpsInputOperand(1)->get();
  ops.c = conv.getDpsInitOperand(0)->get();
  ops.m = out[0] * out[1] * out[2];
  ops.n = out[3];
  ops.k = f[0] * f[1] * f[2];
  ops.conv = cv;
  match.inputType = inputType.getElementType();
  match.accType = outputType.getElementType();
  if (match.inputType != filterType.getElementType())
    return "the input and the filter have different element types";
  if (ops.m == 0 || ops.n == 0 || ops.k == 0)
    return "it has an empty dimension";
  return {};
}

/// The widest copy (16, 8 or 4 bytes) whose every global address is aligned,
/// given the memref's strides and offset (buffers themselves are at least
/// 16-byte aligned: docs/ABI.md); 0 when none is; -1 when the memref has no
/// static strides with a unit innermost one.
static int64_t widestAlignedBytes(MemRefType type, int64_t elementBytes) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 || ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return -1;
  for (int64_t bytes : {16, 8, 4}) {
    bool aligned = (offset * elementBytes) % bytes == 0;
    for (int64_t stride : ArrayRef(strides).drop_back())
      aligned &= (stride * elementBytes) % bytes == 0;
    if (aligned)
      return bytes;
  }
  return 0;
}

/// The linalg.fill of `c` right before `op` (only memory-effect-free ops
/// between them), or null.
static linalg::FillOp precedingFill(Operation *op, Value c) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev))
      return fill.getDpsInitOperand(0)->get() == c &&
                     fill.value().getType() == getElementTypeOrSelf(c.getType())
                 ? fill
                 : linalg::FillOp();
    if (!isMemoryEffectFree(prev))
      return {};
  }
  return {};
}

/// An allocation without operands: it can move anywhere in its block.
static bool isStaticAlloc(Operation *op) {
  auto alloc = dyn_cast<memref::AllocOp>(op);
  return alloc && alloc->getNumOperands() == 0;
}

/// The epilogue's kernel is built where the product is: an output allocated
/// between the two (findEpilogue) moves above the product.
static void moveEpilogueOutputBefore(RewriterBase &rewriter,
                                     linalg::LinalgOp matmul, Value output) {
  Operation *alloc = output.getDefiningOp();
  if (alloc && isStaticAlloc(alloc) &&
      alloc->getBlock() == matmul->getBlock() && matmul->isBeforeInBlock(alloc))
    rewriter.moveOpBefore(alloc, matmul);
}

/// The elementwise op to apply to the product before it is stored: the op
/// right after `matmul` (memory-effect-free ops between them) when it reads
/// C, a buffer of the function's own that nothing else reads, through an
/// identity map and writes another buffer of C's shape through one, reads
/// its other inputs in loop order (bias, scale, residual, scalar) and has
/// an elementwise body. Null with `why` set when that op exists but does not
/// qualify; null with `why` empty when there is none.
///
/// Bufferization puts the allocation of the op's output between the two
/// when the output is a temporary; static allocations are skipped too, and
/// moveEpilogueOutputBefore hoists that one above the product.
static linalg::GenericOp findEpilogue(linalg::LinalgOp matmul, Value c,
                                      linalg::FillOp fill,
                                      std::string &why) {
  Operation *next = matmul->getNextNode();
  while (next && (isMemoryEffectFree(next) || isStaticAlloc(next)))
    next = next->getNextNode();
  auto op = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!op || !llvm::is_contained(op.getDpsInputs(), c))
    return {};
  auto reject = [&](const Twine &reason) {
    why = reason.str();
    return linalg::GenericOp();
  };
  // C must be the function's own temporary: otherwise someone may read it.
  if (!c.getDefiningOp<memref::AllocOp>())
    return reject("C is not a temporary of the function");
  for (Operation *user : c.getUsers())
    if (user != matmul && user != op && user != fill &&
        !isa<memref::DeallocOp>(user))
      return reject("C has another user ('" + user->getName().getStringRef() +
                    "')");
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return reject("the op after the matmul is not an elementwise op with one "
                  "output");
  auto cType = cast<MemRefType>(c.getType());
  Value output = op.getDpsInitOperand(0)->get();
  if (output == c || cast<MemRefType>(output.getType()).getShape() !=
                         cType.getShape() ||
      op.getNumLoops() != unsigned(cType.getRank()))
    return reject("its output is not another buffer of C's shape");
  if (llvm::count(op.getDpsInputs(), c) != 1)
    return reject("it reads C twice");
  // The kernel is built where the product is: what the epilogue reads must
  // exist there (the output's allocation is moved up separately).
  for (Value input : op.getDpsInputs()) {
    Operation *def = input.getDefiningOp();
    if (input != c && def && def->getBlock() == matmul->getBlock() &&
        matmul->isBeforeInBlock(def))
      return reject("an operand of it is computed after the product");
  }
  // Sequentially, the op may write a buffer the product has finished
  // reading (bufferization reuses a dead operand's buffer). Fused, blocks
  // that are done store into it while others still read it.
  for (Value input : matmul.getDpsInputs())
    if (auto buffer = dyn_cast<MemrefValue>(input);
        buffer && memref::skipViewLikeOps(buffer) ==
                      memref::skipViewLikeOps(cast<MemrefValue>(output)))
      return reject("its output shares a buffer with an operand of the "
                    "product, which the kernel's other blocks still read");
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool identity = map.isIdentity();
    if ((operand.get() == c || op.isDpsInit(&operand)) && !identity)
      return reject("it reads C or writes its output through a non-identity "
                    "map");
    // Loop dims in order, or index 0 of a dim the op broadcasts (a bias
    // reshaped to C x 1 x 1, as the PyTorch frontend writes it).
    int64_t previous = -1;
    for (AffineExpr e : map.getResults()) {
      if (auto zero = dyn_cast<AffineConstantExpr>(e);
          zero && zero.getValue() == 0)
        continue;
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d || int64_t(d.getPosition()) <= previous)
        return reject("an input is read transposed or through an expression");
      previous = d.getPosition();
    }
  }
  for (Operation &o : op.getBlock()->without_terminator())
    if (!OpTrait::hasElementwiseMappableTraits(&o) &&
        !isa<arith::ConstantOp>(o))
      return reject("its body has a non-elementwise op ('" +
                    o.getName().getStringRef() + "')");
  return op;
}

namespace {
/// The PTX ISA version a target's feature string asks for ("+ptx83" is
/// 83), or 0 when it names none.
static int64_t ptxVersion(StringRef features) {
  int64_t version = 0;
  SmallVector<StringRef> parts;
  features.split(parts, ',');
  for (StringRef part : parts) {
    StringRef feature = part.trim();
    int64_t v;
    if (feature.consume_front("+ptx") && !feature.getAsInteger(10, v))
      version = std::max(version, v);
  }
  return version;
}

struct MapMatmulToGPUPass
    : public tessel::impl::MapMatmulToGPUPassBase<MapMatmulToGPUPass> {
  using Base::Base;

  /// Whether the wgmma kernel takes this product (its sizes in `t`), or
  /// why not. With B given as (k, n), f16 x f16 -> f32 goes through
  /// upstream's nvgpu.warpgroup.mma (its MLIR 22 lowering reads B that way
  /// only); with B given as (n, k), f16 -> f32 and i8 -> i32 go through the
  /// NVVM instructions the kernel issues itself (8-bit wgmma reads both
  /// operands K-major, so an i8 B given as (k, n) is transposed first:
  /// `transposeB`). A is read K-major: (m, k). TMA needs 16-byte aligned
  /// rows.
  bool chooseWgmma(const MatmulMatch &match, ArrayAttr shapes,
                   StringRef features, const GPUModelParams &params,
                   const GPUMatmulProblem &problem,
                   const GPUMatmulOverrides &overrides, GPUWgmmaTiling &t,
                   bool &transposeB, std::string &why) {
    const GPUMatmulOperands &ops = match.operands;
    bool integer = match.inputType.isInteger(8);
    if (!(match.inputType.isF16() && match.accType.isF32()) &&
        !(integer && match.accType.isInteger(32))) {
      why = "only f16 x f16 -> f32 and i8 x i8 -> i32 have a wgmma kernel "
            "here";
      return false;
    }
    StringRef shape =
        integer ? "wgmma.m64nNk32:i8xi8->i32" : "wgmma.m64nNk16:f16xf16->f32";
    if (!shapes || !llvm::any_of(shapes, [&](Attribute s) {
          return cast<StringAttr>(s).getValue() == shape;
        })) {
      why = ("the target lists no '" + shape + "' shape").str();
      return false;
    }
    // The kernel acquires its tensor maps with fence.proxy.tensormap, which
    // PTX ISA 8.3 introduced; LLVM cannot select it for an older one.
    if (int64_t ptx = ptxVersion(features); ptx < 83) {
      why = "the target's PTX ISA (" +
            (ptx ? std::to_string(ptx / 10) + "." + std::to_string(ptx % 10)
                 : std::string("the chip's default")) +
            ") is older than 8.3, which the kernel's tensor-map fence needs";
      return false;
    }
    if (ops.conv) {
      why = "convolutions read A through the im2col map, which plain TMA "
            "boxes cannot";
      return false;
    }
    if (ops.aTransposed) {
      why = "A is transposed (the wgmma kernel reads A K-major, as (m, k))";
      return false;
    }
    if (ops.batch > 1) {
      why = "batched products are not done yet";
      return false;
    }
    // 8-bit wgmma reads B K-major only: an i8 B given as (k, n) is first
    // transposed into an (n, k) temporary by a kernel of its own, whose
    // cost mapMatmul weighs against WMMA's.
    transposeB = integer && !ops.bTransposed;
    if (transposeB) {
      std::string untransposable =
          checkGPUTransposable(cast<MemRefType>(ops.b.getType()));
      if (!untransposable.empty()) {
        why = "B is given as (k, n), which 8-bit wgmma cannot read, and it "
              "cannot be transposed first: " +
              untransposable;
        return false;
      }
    }
    // Constant operands (memref.get_global) are fine: TMA reads a device
    // copy of them that the runtime uploads once (tessel-lower-tma-
    // descriptors, which also reports a mutable one: no kernel can reach
    // those, WMMA's included).
    int64_t elementBytes = integer ? 1 : 2;
    if (ops.aCopyElements * elementBytes != 16 ||
        (!transposeB && ops.bCopyElements * elementBytes != 16)) {
      why = "TMA needs 16-byte aligned rows of A and B";
      return false;
    }
    if (!ops.init || !(integer ? matchPattern(ops.init, m_Zero())
                               : matchPattern(ops.init, m_AnyZeroFloat()))) {
      why = "C does not start from a fill with zero";
      return false;
    }
    GPUMatmulProblem read = problem;
    read.bTransposed |= transposeB;
    return computeGPUWgmmaTiling(params, read, overrides, t, why);
  }

  /// Maps `op`; a remark says what was done or why not.
  LogicalResult mapMatmul(linalg::LinalgOp op, TargetAttr target) {
    MatmulMatch match;
    auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation());
    if (!conv && isa<linalg::ConvolutionOpInterface>(op.getOperation())) {
      op->emitRemark() << "not mapped to tensor cores: only "
                          "linalg.conv_2d_nhwc_hwcf convolutions are (as "
                          "implicit GEMMs)";
      return success();
    }
    std::string why = conv ? matchConvolution(conv, match)
                           : matchMatmul(op, match);
    if (!why.empty()) {
      op->emitRemark() << "not mapped to tensor cores: " << why;
      return success();
    }
    GPUMatmulOperands &ops = match.operands;
    IRRewriter rewriter(op->getContext());
    rewriter.setInsertionPoint(op);
    if (match.foldRows) {
      // (b, m, x) as (b * m, x): only for layouts where the rows of
      // consecutive batches follow one another.
      SmallVector<ReassociationIndices> rows = {{0, 1}, {2}};
      auto aType = cast<MemRefType>(ops.a.getType());
      auto cType = cast<MemRefType>(ops.c.getType());
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(aType, rows) ||
          !memref::CollapseShapeOp::isGuaranteedCollapsible(cType, rows)) {
        op->emitRemark() << "not mapped to tensor cores: the rows of A or C "
                            "in consecutive batches are not contiguous";
        return success();
      }
    }
    std::string shape = std::to_string(ops.m) + "x" + std::to_string(ops.n) +
                        "x" + std::to_string(ops.k);
    if (ops.batch > 1)
      shape = std::to_string(ops.batch) + "x" + shape;
    // What the remark calls the op: "matmul MxNxK", or for a convolution
    // the implicit GEMM it becomes.
    std::string what = "matmul " + shape;
    if (conv) {
      auto dims = [](Value v) {
        std::string s;
        for (int64_t d : cast<MemRefType>(v.getType()).getShape())
          s += (s.empty() ? "" : "x") + std::to_string(d);
        return s;
      };
      what = "conv_2d_nhwc_hwcf " + dims(ops.a) + " * " + dims(ops.b) +
             " as implicit GEMM " + shape;
    }
    std::string types = typeName(match.inputType) + " x " +
                        typeName(match.inputType) + " -> " +
                        typeName(match.accType);
    auto decline = [&](const Twine &reason) {
      op->emitRemark() << what << " (" << types
                       << ") not mapped to tensor cores: " << reason;
      return success();
    };

    int64_t inputBytes = match.inputType.getIntOrFloatBitWidth() / 8;
    int64_t accBytes = match.accType.getIntOrFloatBitWidth() / 8;
    // f32 products run on the SIMT cores: tensor cores would round the
    // inputs to TF32, which the program did not ask for. f64 ones too,
    // unless the f64 tensor cores (DMMA, exact) are estimated faster:
    // chosen below, once the SIMT estimate is known.
    bool f64 = match.inputType.isF64() && match.accType.isF64();
    bool simt = (match.inputType.isF32() && match.accType.isF32()) || f64;
    // AMD: synchronous copies (no cp.async). f16 and i8 products take the
    // WMMA kernel's structure with the matrix instruction of the chip's
    // family (MFMA on CDNA, WMMA on RDNA3), which
    // tessel-lower-mma-to-amdgpu substitutes for its fragment ops.
    bool amd = target.getKind() == "amdgpu";
    if (match.inputType.isBF16())
      return decline("gpu.subgroup_mma (WMMA) has no bf16 fragments in MLIR "
                     "22");
    ArrayAttr shapes = target.getMma();
    MmaInstruction mma;
    if (!simt) {
      std::string shapeName;
      std::string noInstruction = whyNoMatrixInstruction(
          target, match.inputType, match.accType, mma, shapeName);
      if (!noInstruction.empty())
        return decline(noInstruction);
    }

    int64_t aAligned =
        widestAlignedBytes(cast<MemRefType>(ops.a.getType()), inputBytes);
    int64_t bAligned =
        widestAlignedBytes(cast<MemRefType>(ops.b.getType()), inputBytes);
    int64_t cAligned =
        widestAlignedBytes(cast<MemRefType>(ops.c.getType()), accBytes);
    if (aAligned < 0 || bAligned < 0 || cAligned < 0)
      return decline("an operand is not a memref with static strides and a "
                     "unit innermost stride");
    ops.aCopyElements = aAligned / inputBytes;
    ops.bCopyElements = bAligned / inputBytes;
    ops.cRowsAligned = cAligned == 16;

    GPUModelParams params = gpuModelParams(target);
    GPUMatmulProblem problem;
    problem.batch = ops.batch;
    problem.m = ops.m;
    problem.n = ops.n;
    problem.k = ops.k;
    problem.inputBytes = inputBytes;
    problem.accBytes = accBytes;
    problem.aTransposed = ops.aTransposed;
    problem.bTransposed = ops.bTransposed;
    ops.asyncCopies = asyncCopies && !amd;
    problem.aSynchronous = !ops.asyncCopies || ops.aCopyElements == 0;
    problem.bSynchronous = !ops.asyncCopies || ops.bCopyElements == 0;
    GPUMatmulOverrides overrides{blockM, blockN, blockK, warpsM,
                                 warpsN, stages, splitK};
    linalg::FillOp fill =
        foldFill ? precedingFill(op, ops.c) : linalg::FillOp();
    if (fill)
      ops.init = fill.value();
    problem.accumulatesOntoC = !fill;
    // Hopper: wgmma on TMA-loaded tiles where the product has its form. It
    // is chosen first so that the overrides size the kernel that is built.
    GPUWgmmaTiling wgmmaTiling;
    std::string wgmmaWhy;
    bool transposeB = false;
    // Why wgmma was not used is only worth a word on targets that have it
    // (sm_90a): everywhere else WMMA is the only form.
    bool wgmmaTarget =
        !simt && useWgmma && shapes && llvm::any_of(shapes, [](Attribute s) {
          return cast<StringAttr>(s).getValue().starts_with("wgmma.");
        });
    bool wgmma = wgmmaTarget && chooseWgmma(match, shapes, target.getFeatures(),
                                            params, problem, overrides,
                                            wgmmaTiling, transposeB, wgmmaWhy);
    GPUMatmulTiling tiling;
    GPUSimtMatmulTiling simtTiling;
    // f64: the f64 tensor cores (NVIDIA, where listed with a rate) or the
    // SIMT kernel, whichever is estimated faster.
    std::string f64Choice;
    if (f64) {
      F64KernelChoice choice = chooseF64Kernel(
          shapes, target.getWarpSize(), params, problem, overrides,
          amd               ? "no f64 MFMA kernel is built for AMD GPUs"
          : !f64TensorCores ? "turned off (f64-tensor-cores=false)"
                            : "");
      if (!choice.any())
        return decline("f64 tensor cores not used: " + choice.noTensorCores +
                       ", and no SIMT kernel fits: " + choice.noSimt);
      simt = !choice.tensorCores;
      mma = choice.mma;
      simtTiling = choice.simt;
      if (!amd)
        f64Choice = choice.remarkNote();
    } else if (simt && !computeGPUSimtMatmulTiling(params, problem, overrides,
                                                   simtTiling, why)) {
      return decline(Twine(kNoTF32Reason) +
                     ", and no SIMT kernel fits: " + why);
    }
    bool wmma =
        !simt && (!wgmma || transposeB) &&
        computeGPUMatmulTiling(params, mma, problem, overrides, tiling, why);
    // wgmma after a transpose of B against WMMA on B as it is.
    std::string transposeNote;
    if (wgmma && transposeB) {
      // A constant B is transposed once, at compile time, by
      // tessel-fold-constant-transposes (next in the pipeline).
      // (The fold's own test of B, so that the estimate holds.)
      std::string notFoldable;
      bool constantB = bool(transposableConstantOf(ops.b, notFoldable));
      double transposeCycles =
          constantB
              ? 0.0
              : estimateGPUTransposeCycles(params, ops.k, ops.n, inputBytes);
      double total = transposeCycles + wgmmaTiling.estimatedCycles;
      std::string estimates =
          (constantB
               ? std::string("transposing it at compile time (a "
                             "constant)")
               : "transposing it (~" +
                     std::to_string(int64_t(transposeCycles)) + " cycles)") +
          " and wgmma (~" +
          std::to_string(int64_t(wgmmaTiling.estimatedCycles)) +
          " cycles) against WMMA (~" +
          std::to_string(int64_t(tiling.estimatedCycles)) + " cycles)";
      if (wmma && total >= tiling.estimatedCycles) {
        wgmma = false;
        wgmmaWhy = "B is given as (k, n), which 8-bit wgmma cannot read; " +
                   estimates + " is estimated no faster";
      } else {
        transposeNote =
            std::string("; B given as (k, n), which 8-bit wgmma cannot "
                        "read, is transposed into an (n, k) temporary "
                        "first") +
            (constantB ? " (a constant, which tessel-fold-constant-"
                         "transposes computes at compile time)"
                       : "") +
            ": " + (wmma ? estimates : "WMMA does not fit: " + why);
      }
    }
    if (!simt && !wgmma && !wmma)
      return decline(wgmmaTarget ? why + "; wgmma not used: " + wgmmaWhy : why);
    std::string epilogueWhy;
    linalg::GenericOp epilogue;
    if (fuseEpilogue && !match.foldRows)
      epilogue = findEpilogue(op, ops.c, fill, epilogueWhy);
    if (epilogue) {
      ops.epilogue.op = epilogue;
      ops.epilogue.output = epilogue.getDpsInitOperand(0)->get();
      moveEpilogueOutputBefore(rewriter, op, ops.epilogue.output);
      for (OpOperand *input : epilogue.getDpsInputOperands())
        if (input->get() == ops.c)
          ops.epilogue.cInput = input->getOperandNumber();
      auto outputType = cast<MemRefType>(ops.epilogue.output.getType());
      ops.epilogue.outputRowAlignment = std::max<int64_t>(
          0, widestAlignedBytes(outputType,
                                outputType.getElementTypeBitWidth() / 8));
    }
    if (match.foldRows) {
      SmallVector<ReassociationIndices> rows = {{0, 1}, {2}};
      ops.a = memref::CollapseShapeOp::create(rewriter, op->getLoc(), ops.a,
                                              rows);
      ops.c = memref::CollapseShapeOp::create(rewriter, op->getLoc(), ops.c,
                                              rows);
    }
    if (conv) {
      // The filter as [KH*KW*C, F] and the output as [N*OH*OW, F]; the
      // input stays as it is, A's patches are read through it.
      SmallVector<ReassociationIndices> matrix = {{0, 1, 2}, {3}};
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
              cast<MemRefType>(ops.b.getType()), matrix) ||
          !memref::CollapseShapeOp::isGuaranteedCollapsible(
              cast<MemRefType>(ops.c.getType()), matrix)) {
        op->emitRemark() << "not mapped to tensor cores: the filter or the "
                            "output is not contiguous";
        return success();
      }
      ops.b = memref::CollapseShapeOp::create(rewriter, op->getLoc(), ops.b,
                                              matrix);
      ops.c = memref::CollapseShapeOp::create(rewriter, op->getLoc(), ops.c,
                                              matrix);
    }
    std::string mmaName = "WMMA m" + std::to_string(mma.m) + "n" +
                          std::to_string(mma.n) + "k" + std::to_string(mma.k) +
                          (mma.f64 ? ", f64 DMMA" : "");
    if (mma.amd())
      mmaName = mma.unit == MmaInstruction::Unit::AmdMfma
                    ? "MFMA 16x16x16, 64-lane wavefronts"
                    : "RDNA3 WMMA 16x16x16, 32-lane wavefronts";
    std::string rationale = tiling.rationale;
    std::string unit = mma.amd() ? "matrix cores" : "tensor cores";
    if (simt) {
      unit = "SIMT cores";
      mmaName = f64 ? "f64 FMAs" : "f32 FMAs, no TF32 rounding";
      rationale = simtTiling.rationale;
    }
    if (wgmma) {
      mmaName = "wgmma m64n" + std::to_string(wgmmaTiling.blockN) +
                (match.inputType.isInteger(8) ? "k32" : "k16") +
                " on TMA-loaded tiles";
      rationale = wgmmaTiling.rationale;
    }
    int64_t kSplits = wgmma  ? wgmmaTiling.kSplits
                      : simt ? simtTiling.kSplits
                             : tiling.kSplits;
    op->emitRemark()
        << what << " (" << types << ") mapped to " << unit << " (" << mmaName
        << "): " << rationale
        << (wgmmaTarget && !wgmma ? "; wgmma not used: " + wgmmaWhy : "")
        << transposeNote << f64Choice
        << (kSplits > 1 ? (fill ? "; C's fill added by the reduction"
                                : "; the reduction accumulates onto C")
            : fill      ? "; C's fill folded into the accumulators"
                        : "; accumulates onto C")
        << (epilogue ? "; the elementwise op after it applied "
                       "to the accumulators before the store"
                     : "")
        << (epilogueWhy.empty() ? "" : "; epilogue not fused: " + epilogueWhy)
        << (ops.aCopyElements ? ""
                              : "; A's rows are not 4-byte "
                                "aligned: copied synchronously")
        << (ops.bCopyElements ? ""
                              : "; B's rows are not 4-byte "
                                "aligned: copied synchronously")
        << (amd ? "; copies are synchronous loads (no cp.async on AMD)"
            : !ops.asyncCopies && !wgmma ? "; copies are synchronous loads"
                                         : "");
    if (kSplits > 1) {
      // The partial C's: contiguous, 16-byte aligned (the reduction's
      // vector loads); tessel-allocate-device-buffers places them in device
      // memory.
      auto partialsType =
          MemRefType::get({kSplits * ops.batch, ops.m, ops.n}, match.accType);
      ops.partials = memref::AllocOp::create(
          rewriter, op->getLoc(), partialsType, rewriter.getI64IntegerAttr(64));
    }
    Value transposedB;
    if (wgmma && transposeB) {
      // The temporary is contiguous and 16-byte aligned (TMA's
      // requirement); tessel-allocate-device-buffers places it in device
      // memory.
      auto bType = cast<MemRefType>(ops.b.getType());
      auto tempType = MemRefType::get({ops.n, ops.k}, bType.getElementType());
      transposedB = memref::AllocOp::create(rewriter, op->getLoc(), tempType,
                                            rewriter.getI64IntegerAttr(64));
      buildGPUTransposeKernel(rewriter, op->getLoc(), ops.b, transposedB);
      ops.b = transposedB;
      ops.bTransposed = true;
      ops.bCopyElements = 16 / inputBytes;
    }
    if (wgmma)
      buildGPUWgmmaMatmulKernel(rewriter, op->getLoc(), ops, wgmmaTiling);
    else if (simt)
      buildGPUSimtMatmulKernel(rewriter, op->getLoc(), ops, simtTiling);
    else
      buildGPUMatmulKernel(rewriter, op->getLoc(), ops, tiling, mma,
                           target.getWarpSize());
    if (transposedB)
      memref::DeallocOp::create(rewriter, op->getLoc(), transposedB);
    if (kSplits > 1) {
      buildGPUSplitKReduction(rewriter, op->getLoc(), ops, kSplits);
      memref::DeallocOp::create(rewriter, op->getLoc(), ops.partials);
    }
    Value c = match.foldRows ? Value()
              : conv         ? conv.getDpsInitOperand(0)->get()
                             : ops.c;
    // The collapsed view of a convolution's output, unused when the
    // epilogue writes elsewhere and nothing loads C.
    if (auto view = ops.c.getDefiningOp<memref::CollapseShapeOp>();
        view && view->use_empty())
      rewriter.eraseOp(view);
    rewriter.eraseOp(op);
    if (fill)
      rewriter.eraseOp(fill);
    if (epilogue) {
      rewriter.eraseOp(epilogue);
      // C only lived to be read by the epilogue: nothing reads it now.
      if (c && llvm::all_of(c.getUsers(), [](Operation *user) {
            return isa<memref::DeallocOp>(user);
          })) {
        for (Operation *user : llvm::make_early_inc_range(c.getUsers()))
          rewriter.eraseOp(user);
        rewriter.eraseOp(c.getDefiningOp());
      }
    }
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = TargetAttr::lookup(func);
    // NVIDIA targets get every kernel; AMD ones the SIMT kernel for f32
    // and f64 and the matrix-core one for f16 and i8 (mapMatmul says why
    // for the rest).
    if (!target ||
        (target.getKind() != "nvgpu" && target.getKind() != "amdgpu"))
      return;
    // Only contractions: mapping one erases the fill before it and the
    // epilogue after it, which are not, so no candidate is erased before
    // its turn.
    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>() &&
          (linalg::isaContractionOpInterface(op) ||
           isa<linalg::ConvolutionOpInterface>(op.getOperation())))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates)
      if (failed(mapMatmul(op, target)))
        return signalPassFailure();
  }
};
} // namespace

//===- FusionGroup.cpp - Producers fused into a consumer's tiles ----------===//
#include "passes/Analysis/FusionGroup.h"
#include "dialects/Tessel/TargetDescription.h"
#include "passes/Analysis/TileFootprint.h"
#include "passes/Utils/TileAndFuse.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

using namespace mlir;
using namespace mlir::tessel;

/// Iterations of the reduction loops of `op` (1 when it has none).
static int64_t reductionVolume(linalg::LinalgOp op) {
  int64_t v = 1;
  for (auto [range, it] : llvm::zip(op.getStaticLoopRanges(),
                                    op.getIteratorTypesArray()))
    if (it == utils::IteratorType::reduction)
      v *= range;
  return v;
}

std::string mlir::tessel::unfusableReason(linalg::LinalgOp op) {
  if (!isa_and_nonnull<func::FuncOp>(op->getParentOp()))
    return "it is inside a loop already";
  if (!op.hasPureTensorSemantics())
    return "it works on buffers, not tensors";
  if (op.hasDynamicShape())
    return "it has dynamic shapes";
  if (isa<linalg::FillOp>(op))
    return "it is a fill (re-created in each consumer tile instead)";
  if (linalg::isaContractionOpInterface(op))
    return "it is a contraction (a kernel of its own)";
  // Named convolutions become matmul kernels; a generic one with a small
  // window (a stencil: blur taps, Sobel) is cheap to recompute.
  if (linalg::isaConvolutionOpInterface(op) &&
      (!isa<linalg::GenericOp>(op) ||
       reductionVolume(op) > kMaxStencilWindow))
    return "it is a convolution (a kernel of its own)";
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isProjectedPermutation())
      return "an output is not written through a projected permutation";
  return untileableAccessReason(op);
}

std::string mlir::tessel::untileableAccessReason(linalg::LinalgOp op) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<ShapedType>(operand.get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (isNonDecreasingAccess(map))
      continue;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "operand " << operand.getOperandNumber() << " is accessed through "
       << map
       << ", which decreases or wraps (tiling slices operands only through "
          "non-decreasing maps)";
    return text;
  }
  return {};
}

SmallVector<linalg::GenericOp> mlir::tessel::fusableGenerics(func::FuncOp func) {
  SmallVector<linalg::GenericOp> generics;
  for (Operation &op : func.getBody().getOps())
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      if (unfusableReason(generic).empty())
        generics.push_back(generic);
  return generics;
}

bool FusionGroup::contains(Operation *op) const {
  return op == const_cast<linalg::LinalgOp &>(root).getOperation() ||
         llvm::any_of(producers,
                      [&](linalg::LinalgOp p) { return p.getOperation() == op; });
}

FusionGroup mlir::tessel::collectFusionGroup(linalg::LinalgOp root) {
  FusionGroup group;
  group.root = root;
  llvm::DenseMap<Operation *, std::string> rejected;
  // Fixpoint: a producer with several consumers joins once all of them have.
  bool grew = true;
  while (grew) {
    grew = false;
    SmallVector<Operation *> members{root};
    for (linalg::LinalgOp p : group.producers)
      members.push_back(p);
    for (Operation *member : members) {
      for (Value operand : cast<linalg::LinalgOp>(member).getDpsInputs()) {
        auto producer = operand.getDefiningOp<linalg::LinalgOp>();
        if (!producer || group.contains(producer))
          continue;
        std::string why = unfusableReason(producer);
        if (why.empty()) {
          for (Operation *user : producer->getUsers())
            if (!group.contains(user)) {
              why = "its result is also used by '" +
                    user->getName().getStringRef().str() +
                    "' outside the fused nest";
              break;
            }
        }
        if (!why.empty()) {
          rejected[producer] = why;
          continue;
        }
        rejected.erase(producer);
        group.producers.push_back(producer);
        grew = true;
      }
    }
  }
  llvm::sort(group.producers, [](linalg::LinalgOp a, linalg::LinalgOp b) {
    return a->isBeforeInBlock(b);
  });
  for (auto &[op, why] : rejected)
    group.materialized.emplace_back(op, why);
  llvm::sort(group.materialized, [](auto &a, auto &b) {
    return a.first->isBeforeInBlock(b.first);
  });
  return group;
}

int64_t mlir::tessel::workPerIteration(linalg::LinalgOp op) {
  int64_t n = 0;
  for (Operation &inner : op.getBlock()->without_terminator())
    if (!isa<linalg::IndexOp>(inner))
      ++n;
  return std::max<int64_t>(1, n);
}

static int64_t volume(ArrayRef<int64_t> extents) {
  int64_t v = 1;
  for (int64_t e : extents)
    v *= e;
  return v;
}

static int64_t elementBytes(Value v) {
  int64_t bytes = storageBytes(getElementTypeOrSelf(v.getType()));
  return bytes ? bytes : 8;
}

static int64_t volume(const IndexBox &box) { return volume(box.extents); }

/// The contiguous pieces a slice of a row-major tensor of `type` makes:
/// trailing dimensions the slice covers whole merge with the first one it
/// does not; every other element of the slice starts a new piece.
/// Elements in each of those pieces.
static double contiguousRunElements(const IndexBox &slice, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || slice.extents.empty())
    return static_cast<double>(volume(slice));
  double run = 1;
  for (int64_t d = slice.extents.size() - 1; d >= 0; --d) {
    run *= slice.extents[d];
    if (slice.extents[d] != tensor.getDimSize(d))
      break;
  }
  return run;
}

static double contiguousRuns(const IndexBox &slice, Type type) {
  return std::max(1.0, static_cast<double>(volume(slice)) /
                           std::max(1.0, contiguousRunElements(slice, type)));
}

namespace {
/// A slice of a fused op's result that a copy of a consumer in the tile
/// reads. `key` tells apart the copies of ops that are fused once per slice
/// (CSE merges identical ones): the chain of read maps from the root.
struct TileInstance {
  std::string key;
  IndexBox resultBox;
};
} // namespace

std::optional<GroupTileCost>
mlir::tessel::evaluateGroupTile(const FusionGroup &group,
                                ArrayRef<int64_t> rootBox,
                                bool oncePerTile) {
  GroupTileCost cost;
  llvm::DenseMap<Value, SmallVector<TileInstance>> needed;
  llvm::DenseMap<Value, int64_t> distinctInputs;
  SmallVector<linalg::LinalgOp> order(group.producers.rbegin(),
                                      group.producers.rend());
  order.insert(order.begin(), group.root);
  for (linalg::LinalgOp op : order) {
    // (iteration box, instance key) of every copy of `op` in the tile.
    SmallVector<std::pair<IndexBox, std::string>> copies;
    if (op == group.root) {
      IndexBox box;
      box.offsets.assign(rootBox.size(), 0);
      box.extents.assign(rootBox.begin(), rootBox.end());
      copies.emplace_back(box, "");
      for (OpOperand &init : op.getDpsInitsMutable())
        if (std::optional<IndexBox> slice =
                tiledSliceOfAccess(op.getMatchingIndexingMap(&init), box))
          cost.outputBytes +=
              static_cast<double>(volume(*slice)) * elementBytes(init.get());
    } else {
      SmallVector<int64_t> full = op.getStaticLoopRanges();
      bool once = oncePerTile && writesResultsThroughOneMap(op);
      std::optional<IndexBox> merged;
      for (OpResult result : op->getResults()) {
        for (const TileInstance &inst : needed.lookup(result)) {
          std::optional<IndexBox> box = iterationBoxForResult(
              op.getIndexingMapMatchingResult(result), inst.resultBox, full);
          if (!box)
            return std::nullopt;
          if (once) {
            merged = merged ? boundingBox(*merged, *box) : *box;
            continue;
          }
          // Results of one op read through the same slice (the three box
          // sums of a merged op) come from one tiled copy of it.
          if (!llvm::is_contained(copies, std::make_pair(*box, inst.key)))
            copies.emplace_back(*box, inst.key);
          cost.intermediateBytes +=
              volume(inst.resultBox) * elementBytes(result);
        }
      }
      if (merged) {
        copies.emplace_back(*merged, "");
        // One buffer per result that the tile reads, each the whole box.
        AffineMap outputMap = op.getIndexingMapMatchingResult(op->getResult(0));
        int64_t resultVolume = 1;
        for (AffineExpr e : outputMap.getResults())
          resultVolume *= merged->extents[cast<AffineDimExpr>(e).getPosition()];
        for (OpResult result : op->getResults())
          if (needed.count(result))
            cost.intermediateBytes += resultVolume * elementBytes(result);
      }
      if (copies.empty())
        return std::nullopt;
    }
    for (auto &[box, key] : copies) {
      cost.work += static_cast<double>(workPerIteration(op)) * volume(box);
      for (OpOperand *input : op.getDpsInputOperands()) {
        AffineMap map = op.getMatchingIndexingMap(input);
        std::optional<IndexBox> slice = tiledSliceOfAccess(map, box);
        if (!slice)
          return std::nullopt;
        // A slice never exceeds the operand (tiling trims the last one).
        if (auto type = dyn_cast<RankedTensorType>(input->get().getType()))
          for (auto [e, sz] : llvm::zip(slice->extents, type.getShape()))
            e = std::min(e, sz);
        Operation *def = input->get().getDefiningOp();
        if (def && group.contains(def)) {
          std::string mapText;
          llvm::raw_string_ostream os(mapText);
          os << key << "/" << map;
          SmallVector<TileInstance> &insts = needed[input->get()];
          if (llvm::none_of(insts, [&](const TileInstance &i) {
                return i.key == mapText && i.resultBox == *slice;
              }))
            insts.push_back({mapText, *slice});
          continue;
        }
        int64_t sliceBytes = volume(*slice) * elementBytes(input->get());
        cost.inputBytes += static_cast<double>(sliceBytes);
        cost.inputRuns += contiguousRuns(*slice, input->get().getType());
        cost.inputReads.emplace_back(
            static_cast<double>(sliceBytes),
            contiguousRunElements(*slice, input->get().getType()) *
                elementBytes(input->get()));
        // Ops that read one input read (about) one slice of it: the
        // largest stands for their union.
        int64_t &distinct = distinctInputs[input->get()];
        distinct = std::max(distinct, sliceBytes);
      }
    }
  }
  for (auto &entry : distinctInputs)
    cost.distinctInputBytes += entry.second;
  return cost;
}

FusionProblem mlir::tessel::describeFusionProblem(const FusionGroup &group,
                                                  bool oncePerTile) {
  FusionProblem problem;
  linalg::LinalgOp root = group.root;
  problem.extents = root.getStaticLoopRanges();
  for (utils::IteratorType it : root.getIteratorTypesArray())
    problem.tileable.push_back(it == utils::IteratorType::parallel);
  double rootVolume = static_cast<double>(volume(problem.extents));
  problem.unfusedWork = workPerIteration(root);
  for (linalg::LinalgOp p : group.producers)
    problem.unfusedWork += static_cast<double>(workPerIteration(p)) *
                           volume(p.getStaticLoopRanges()) / rootVolume;
  if (root->getNumResults() > 0)
    problem.elementBytes = elementBytes(root->getResult(0));
  problem.costOf = [&group, oncePerTile](ArrayRef<int64_t> box) {
    return evaluateGroupTile(group, box, oncePerTile);
  };
  return problem;
}

//===- FusionGroup.cpp - Producers fused into a consumer's tiles ----------===//
#include "passes/Analysis/FusionGroup.h"
#include "passes/Analysis/TileFootprint.h"

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
  Type t = getElementTypeOrSelf(v.getType());
  return std::max<int64_t>(1, (t.getIntOrFloatBitWidth() + 7) / 8);
}

namespace {
/// One copy of a fused op in a tile: fusion tiles a producer once per
/// distinct slice its consumers read (CSE merges identical slices), so a
/// value read through two different maps is computed twice, each over the
/// footprint of its read. `key` tells copies apart as CSE would: the chain
/// of read maps from the root.
struct TileInstance {
  std::string key;
  SmallVector<int64_t> resultExtents;
};
} // namespace

std::optional<GroupTileCost>
mlir::tessel::evaluateGroupTile(const FusionGroup &group,
                                ArrayRef<int64_t> rootBox) {
  GroupTileCost cost;
  llvm::DenseMap<Value, SmallVector<TileInstance>> needed;
  SmallVector<linalg::LinalgOp> order(group.producers.rbegin(),
                                      group.producers.rend());
  order.insert(order.begin(), group.root);
  for (linalg::LinalgOp op : order) {
    // (iteration box, instance key) of every copy of `op` in the tile.
    SmallVector<std::pair<SmallVector<int64_t>, std::string>> copies;
    if (op == group.root) {
      copies.emplace_back(SmallVector<int64_t>(rootBox), "");
    } else {
      SmallVector<int64_t> full = op.getStaticLoopRanges();
      for (OpResult result : op->getResults()) {
        for (const TileInstance &inst : needed.lookup(result)) {
          std::optional<SmallVector<int64_t>> box = iterationBoxForResult(
              op.getIndexingMapMatchingResult(result), inst.resultExtents,
              full);
          if (!box)
            return std::nullopt;
          // Results of one op read through the same slice (the three box
          // sums of a merged op) come from one tiled copy of it.
          if (!llvm::is_contained(copies, std::make_pair(*box, inst.key)))
            copies.emplace_back(*box, inst.key);
          cost.intermediateBytes +=
              volume(inst.resultExtents) * elementBytes(result);
        }
      }
      if (copies.empty())
        return std::nullopt;
    }
    for (auto &[box, key] : copies) {
      cost.work += static_cast<double>(workPerIteration(op)) * volume(box);
      for (OpOperand *input : op.getDpsInputOperands()) {
        AffineMap map = op.getMatchingIndexingMap(input);
        std::optional<SmallVector<int64_t>> footprint =
            accessFootprint(map, box);
        if (!footprint)
          return std::nullopt;
        // A footprint never exceeds the operand.
        if (auto type = dyn_cast<RankedTensorType>(input->get().getType()))
          for (auto [f, sz] : llvm::zip(*footprint, type.getShape()))
            f = std::min(f, sz);
        Operation *def = input->get().getDefiningOp();
        if (def && group.contains(def)) {
          std::string mapText;
          llvm::raw_string_ostream os(mapText);
          os << key << "/" << map;
          SmallVector<TileInstance> &insts = needed[input->get()];
          if (llvm::none_of(insts, [&](const TileInstance &i) {
                return i.key == mapText && i.resultExtents == *footprint;
              }))
            insts.push_back({mapText, *footprint});
          continue;
        }
        cost.inputBytes += static_cast<double>(volume(*footprint)) *
                           elementBytes(input->get());
      }
    }
  }
  return cost;
}

FusionProblem mlir::tessel::describeFusionProblem(const FusionGroup &group) {
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
  problem.costOf = [&group](ArrayRef<int64_t> box) {
    return evaluateGroupTile(group, box);
  };
  return problem;
}

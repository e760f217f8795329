//===- FoldConstantTransposes.cpp - Transposes of constants, at compile time //
//
// 8-bit wgmma reads B K-major only, so tessel-map-matmul-to-gpu transposes
// an i8 B given as (k, n) into an (n, k) temporary with a kernel of its own,
// on every call. When B is a view of a constant global (a weight compiled
// into the program: x @ w with w stored (in, out), as JAX and TensorFlow
// keep dense layers' kernels), its transpose is a constant too. This pass
// computes it once, as a new constant global, and removes the kernel, the
// temporary and its deallocation; the product's kernel then reads the new
// constant, which tessel-lower-tma-descriptors has the runtime upload once.
//
// The kernels are found by the attribute buildGPUTransposeKernel puts on
// them; a temporary that anything else writes is left alone, with a remark.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/Utils/GPUTransposeKernel.h"
#include "passes/Utils/GlobalViews.h"
#include "passes/Utils/Remarks.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tessel-fold-constant-transposes"

namespace mlir::tessel {
#define GEN_PASS_DEF_FOLDCONSTANTTRANSPOSESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

/// Why something other than `launch` may write `memref`, or hand it on to
/// code that might, or empty when only reads and deallocations remain.
/// An allow-list: views (followed), TMA descriptors (read by TMA), and ops
/// whose effects say they at most read it and that give no memref back (an
/// arith.select or scf.if result would alias it); terminators (yield,
/// return) and ops without declared effects (calls) are refused.
static std::string otherWriter(Value memref, gpu::LaunchOp launch,
                               SmallVectorImpl<Operation *> &deallocs) {
  for (OpOperand &use : memref.getUses()) {
    Operation *user = use.getOwner();
    auto refuse = [&](StringRef why) {
      return ("'" + user->getName().getStringRef() + "' " + why).str();
    };
    if (launch->isAncestor(user))
      continue;
    if (isa<memref::DeallocOp>(user)) {
      deallocs.push_back(user);
      continue;
    }
    if (isa<nvgpu::TmaCreateDescriptorOp>(user))
      continue;
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (view && view.getViewSource() == memref) {
      std::string why = otherWriter(view.getViewDest(), launch, deallocs);
      if (!why.empty())
        return why;
      continue;
    }
    if (user->hasTrait<OpTrait::IsTerminator>())
      return refuse("hands the temporary on");
    if (llvm::any_of(user->getResultTypes(), llvm::IsaPred<BaseMemRefType>))
      return refuse("gives back a memref that may alias the temporary");
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects)
      return refuse("may write the temporary (no declared memory effects)");
    SmallVector<MemoryEffects::EffectInstance> all;
    effects.getEffects(all);
    for (const MemoryEffects::EffectInstance &effect : all)
      if (!isa<MemoryEffects::Read>(effect.getEffect()) &&
          (!effect.getValue() || effect.getValue() == memref))
        return refuse("may write the temporary");
  }
  return {};
}

namespace {
/// A transposed constant already made, by source global and view type.
using TransposeCache = DenseMap<std::pair<Operation *, Type>, memref::GlobalOp>;

struct FoldConstantTransposesPass
    : public tessel::impl::FoldConstantTransposesPassBase<
          FoldConstantTransposesPass> {
  using Base::Base;

  /// The constant global holding `view` of `global` transposed, made next
  /// to `global` on first use (renamed if its name is taken).
  memref::GlobalOp transposedGlobal(memref::GlobalOp global, MemRefType view,
                                    TransposeCache &cache,
                                    SymbolTableCollection &symbolTables) {
    auto key = std::make_pair(global.getOperation(), Type(view));
    if (memref::GlobalOp made = cache.lookup(key))
      return made;
    auto type = MemRefType::get({view.getDimSize(1), view.getDimSize(0)},
                                view.getElementType());
    OpBuilder b(global->getContext());
    // 64-byte aligned, as the temporary was: TMA needs 16.
    auto made = memref::GlobalOp::create(
        b, global.getLoc(),
        ("__tessel_transpose_of_" + global.getSymName()).str(),
        b.getStringAttr("private"), type, transposeConstantView(global, view),
        /*constant=*/true, b.getI64IntegerAttr(64));
    symbolTables.getSymbolTable(global->getParentOp())
        .insert(made, std::next(global->getIterator()));
    cache[key] = made;
    return made;
  }

  /// Folds `launch` when it transposes a constant into a temporary that
  /// nothing else writes.
  void fold(gpu::LaunchOp launch, TransposeCache &cache,
            SymbolTableCollection &symbolTables) {
    std::optional<std::pair<Value, Value>> match =
        matchGPUTransposeKernel(launch);
    if (!match) {
      launch->emitRemark() << "transpose not folded: the kernel is no longer "
                              "the one tessel-map-matmul-to-gpu built";
      return;
    }
    auto [src, dst] = *match;
    memref::GlobalOp global = constantGlobalOf(src);
    if (!global)
      return; // B is not a constant: the transpose runs on every call.
    auto remark = [&](const Twine &why) {
      launch->emitRemark() << "transpose of constant @" << global.getSymName()
                           << " not folded: " << why;
    };
    std::string why;
    if (!transposableConstantOf(src, why))
      return remark(why);
    auto view = cast<MemRefType>(src.getType());
    auto alloc = dst.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != launch->getBlock())
      return remark("its destination is not a temporary of the launch's "
                    "block");
    if (alloc.getType() !=
        MemRefType::get({view.getDimSize(1), view.getDimSize(0)},
                        view.getElementType()))
      return remark("its destination is not a contiguous (cols x rows) "
                    "matrix");
    SmallVector<Operation *> deallocs;
    why = otherWriter(dst, launch, deallocs);
    if (!why.empty())
      return remark(why);
    memref::GlobalOp transposed =
        transposedGlobal(global, view, cache, symbolTables);
    SmallVector<Operation *> chain = globalViewChain(src);

    launch->emitRemark() << "transpose of constant @" << global.getSymName()
                         << " (" << view.getDimSize(0) << "x"
                         << view.getDimSize(1) << ", "
                         << formatBytes(view.getNumElements() *
                                        view.getElementTypeBitWidth() / 8)
                         << ") computed at compile time as @"
                         << transposed.getSymName()
                         << ": its kernel and temporary removed";
    OpBuilder b(alloc);
    Value replacement = memref::GetGlobalOp::create(
        b, alloc.getLoc(), transposed.getType(), transposed.getSymName());
    launch->erase();
    for (Operation *dealloc : deallocs)
      dealloc->erase();
    alloc.getResult().replaceAllUsesWith(replacement);
    alloc->erase();
    // The views of the source that only the kernel read.
    for (Operation *op : llvm::reverse(chain))
      if (op->use_empty())
        op->erase();
  }

  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp launch) {
      if (launch->hasAttr(kGPUTransposeKernelAttr))
        launches.push_back(launch);
    });
    TransposeCache cache;
    SymbolTableCollection symbolTables;
    for (gpu::LaunchOp launch : launches)
      fold(launch, cache, symbolTables);
    // Sources that only the folded kernels read.
    llvm::SetVector<Operation *> sources;
    for (auto &entry : cache)
      sources.insert(entry.first.first);
    for (Operation *op : sources) {
      auto source = cast<memref::GlobalOp>(op);
      if (source.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(source, source->getParentOp()))
        source->erase();
    }
  }
};
} // namespace

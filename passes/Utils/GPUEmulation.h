//===- GPUEmulation.h - Helpers of tessel-emulate-gpu-on-cpu --------------===//
//
// What tessel-emulate-gpu-on-cpu's rewrites share: calls into
// libtessel_runtime's tessel_emu_* helpers, element addresses, and the
// emulation of Hopper kernels (mbarriers, TMA loads, wgmma), which the
// pass applies as a dialect conversion because wgmma accumulators are
// carried by loops.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GPUEMULATION_H
#define TESSEL_PASSES_UTILS_GPUEMULATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tessel {

/// Declares `name` (private) in `module` unless it exists.
void declareRuntimeFunction(ModuleOp module, StringRef name, FunctionType type);

/// Calls `name`; its result, or a null value when `result` is null.
Value callRuntime(OpBuilder &b, Location loc, StringRef name, Type result,
                  ValueRange args);

/// The byte address of `memref[indices]` as an index.
Value elementAddress(OpBuilder &b, Location loc, Value memref,
                     ValueRange indices);

/// True for the Hopper ops the emulation runs: mbarriers, TMA loads and
/// prefetches, and the warpgroup (wgmma) ops.
bool isEmulatedHopperOp(Operation *op);

/// The accumulator types of the wgmma instructions kernels issue themselves
/// (nvvm.wgmma.mma_async): LLVM structs of a thread's registers. Only these
/// structs become register buffers, so no other LLVM struct at that stage
/// of the pipeline is touched.
using WgmmaRegisterTypes = llvm::SmallDenseSet<Type, 4>;
WgmmaRegisterTypes collectWgmmaRegisterTypes(Operation *root);

/// Emits an error at the first Hopper op under `root` in a form the
/// emulation does not run (multicast loads, other layouts or types).
LogicalResult checkHopperEmulation(Operation *root,
                                   const WgmmaRegisterTypes &types);

/// Gives each use of a zero-initialized LLVM struct accumulator (the
/// registers of an nvvm.wgmma.mma_async) a zero op of its own, right
/// before its user: the emulation keeps each accumulator's registers in a
/// buffer updated in place, per thread, and canonicalization may have
/// hoisted the zeros out of their kernel and CSE merged them.
void separateRegisterInits(Operation *root, const WgmmaRegisterTypes &types);

/// Replaces the mbarrier groups created in `body` (one per block on a GPU,
/// so one per block here too) by groups made at `b`'s insertion point,
/// outside the block's team; appends their handles to `groups` for
/// destroyHopperMBarrierGroups.
void hoistHopperMBarrierGroups(OpBuilder &b, Region &body,
                               SmallVectorImpl<Value> &groups);
void destroyHopperMBarrierGroups(OpBuilder &b, Location loc, ValueRange groups);

/// Declares the runtime helpers the Hopper patterns call.
void declareHopperEmulationFunctions(ModuleOp module);

/// Tensor maps and mbarrier groups become handles (index), wgmma
/// descriptors vector<4xindex> (address, leading and stride byte offsets,
/// swizzle width), accumulators each thread's registers in memory.
void addHopperEmulationTypeConversions(TypeConverter &converter,
                                       const WgmmaRegisterTypes &types);

/// Marks the Hopper ops illegal and adds the patterns that rewrite them
/// into runtime calls.
void populateHopperEmulationPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     ConversionTarget &target,
                                     const WgmmaRegisterTypes &types);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GPUEMULATION_H

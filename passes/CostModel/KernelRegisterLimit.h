//===- KernelRegisterLimit.h - Registers per thread of a GPU kernel -*- C++
//-*-===//
//
// The register limit (.maxnreg) tessel-attach-gpu-target gives an NVIDIA
// kernel. Two cases:
//
//  - every kernel: one block of its size must fit the register file. ptxas
//    does not lower a stated limit to fit the block, and without one it
//    applies its own occupancy heuristic, which spills rather than exceed
//    128 registers (a ResNet-50 stage-4 implicit GEMM: 12 bytes of spills
//    at 128, none at 116 with the block's limit);
//  - streaming kernels (no tensor-core op: tessel-map-tiles-to-gpu's fused
//    tiles, tessel-map-reductions-to-gpu's reductions): they are bound by
//    memory latency, which more resident warps hide. Their limit also lets
//    as many blocks share an SM as its shared memory allows, up to
//    `goalThreads` resident threads. A 4096-column softmax tile
//    (about 64 KiB of shared memory, 256 threads) took 141 registers on
//    sm_90a: one block, 8 warps per SM, where shared memory holds three.
//    Tensor-core kernels are left at the block's limit: their registers
//    are accumulators their own tiling model budgets (GPUMatmulTiling).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_KERNELREGISTERLIMIT_H
#define TESSEL_PASSES_COSTMODEL_KERNELREGISTERLIMIT_H

#include "dialects/Tessel/TesselDialect.h"

#include <cstdint>
#include <optional>

namespace mlir::tessel {

/// What the register limit knows of one kernel.
struct KernelResources {
  /// Threads per block (known_block_size); 0 when not known.
  int64_t threads = 0;
  /// Shared memory per block, static and dynamic, in bytes; std::nullopt
  /// when a launch gives it at run time.
  std::optional<int64_t> sharedBytes = 0;
  /// Whether the kernel streams (no tensor-core op).
  bool streaming = false;
};

/// The registers per thread `kernel` may take on `target`: the register
/// file (64K when the description does not say) over the resident threads
/// aimed at, in steps of 8, at most the PTX limit of 255. Resident threads:
/// one block of `threads`; for a streaming kernel with `goalThreads` > 0
/// and known shared memory, as many blocks as fit the SM's shared memory
/// (the block's share plus the 1 KiB the driver reserves per block) and
/// its threads, up to `goalThreads`. 255 when the block size is not known.
int64_t kernelRegisterLimit(const KernelResources &kernel, TargetAttr target,
                            int64_t goalThreads);

/// Blocks of `kernel` that `kernelRegisterLimit` lets share one SM.
int64_t residentBlocksAimedAt(const KernelResources &kernel, TargetAttr target,
                              int64_t goalThreads);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_KERNELREGISTERLIMIT_H

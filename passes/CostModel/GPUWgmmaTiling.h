//===- GPUWgmmaTiling.h - Sizes for the Hopper (wgmma + TMA) matmul --------===//
//
// The model behind tessel-map-matmul-to-gpu's sm_90a kernel: each block
// computes a blockM x blockN tile of C with one or two warpgroups (128
// threads each, wgmma.mma_async m64nNk16 for f16, m64nNk32 for i8),
// reading k tiles of A and B that the tensor memory accelerator (TMA)
// copies into a ring of `stages` shared-memory buffers. The k tile is fixed
// at one 128-byte row (64 f16 or 128 i8 elements), the width of the
// 128-byte swizzle that both TMA and wgmma's shared-memory descriptors use.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_GPUWGMMATILING_H
#define TESSEL_PASSES_COSTMODEL_GPUWGMMATILING_H

#include "passes/CostModel/GPUMatmulTiling.h"

namespace mlir::tessel {

struct GPUWgmmaTiling {
  int64_t blockM = 0, blockN = 0, blockK = 64;
  /// Warpgroups per block; warpgroup w computes rows [w * blockM / W,
  /// (w + 1) * blockM / W) of the block's tile.
  int64_t warpgroups = 1;
  int64_t stages = 0;
  int64_t groupM = 1;
  /// The C tile the epilogue stages the accumulators through (it reuses
  /// the ring's bytes).
  SharedTile cTile;
  /// Bytes of one stage's A tile and B tile, the ring, and the dynamic
  /// shared memory requested: the ring plus the slack that lets the kernel
  /// start it on a 1024-byte boundary (the 128-byte swizzle's period).
  int64_t aStageBytes = 0, bStageBytes = 0, smemBytes = 0;
  int64_t accRegisters = 0, blocksPerSM = 0;
  double estimatedCycles = 0;
  /// Split-k, as for the WMMA kernel (GPUMatmulTiling::kSplits).
  int64_t kSplits = 1;
  double reductionCycles = 0;
  std::string rationale;

  int64_t threads() const { return warpgroups * 128; }
  int64_t rowsPerWarpgroup() const { return blockM / warpgroups; }
};

/// The tie-break among equal estimates: fewer splits, the larger tile,
/// then the residency, then the deepest ring that keeps it. The estimate
/// sees latency only as an average; deeper rings absorb its spread, which
/// TMA loads competing in L2 have.
bool preferredOnTie(const GPUWgmmaTiling &candidate,
                    const GPUWgmmaTiling &best);

/// Chooses the sizes for an f16 x f16 -> f32 or i8 x i8 -> i32 product; `o`
/// fixes blockM, blockN, stages and the split of k where non-zero
/// (warps-m fixes the warpgroups). False with `why` set when the target lacks a
/// figure or nothing fits.
bool computeGPUWgmmaTiling(const GPUModelParams &target,
                           const GPUMatmulProblem &problem,
                           const GPUMatmulOverrides &o, GPUWgmmaTiling &t,
                           std::string &why);

/// Cycles of the kernel that transposes a rows x cols matrix of
/// `elementBytes`-byte elements (Utils/GPUTransposeKernel.h) before a
/// product whose layout wgmma cannot read: its bytes read once and written
/// once at the device-memory rate of all SMs, one memory latency, and the
/// launch and temporary buffer it adds.
double estimateGPUTransposeCycles(const GPUModelParams &target, int64_t rows,
                                  int64_t cols, int64_t elementBytes);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_GPUWGMMATILING_H

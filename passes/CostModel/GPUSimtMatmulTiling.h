//===- GPUSimtMatmulTiling.h - Sizes for f32/f64 matmul on SIMT cores -*- C++
//-*-===//
//
// The model behind tessel-map-matmul-to-gpu's f32 kernel, which tensor cores
// cannot run without rounding the inputs to TF32, and its f64 form (taken
// where the f64 tensor-core kernel, DMMA, is absent or estimated slower):
// each block computes a
// blockM x blockN tile of C with threadsM x threadsN threads, each thread a
// threadM x threadN tile of scalar accumulators fed by f32 (f64) FMAs from
// shared-memory copies of A and B (the same cp.async ring as the tensor-core
// kernel). Every size follows from the target description (SMs, shared
// memory, registers, f32 or f64 FMA, shared-memory and L2 throughputs,
// latency).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_GPUSIMTMATMULTILING_H
#define TESSEL_PASSES_COSTMODEL_GPUSIMTMATMULTILING_H

#include "passes/CostModel/GPUMatmulTiling.h"

namespace mlir::tessel {

/// The SIMT kernel's sizes. The inherited fields mean what they mean for
/// the tensor-core kernel (warpsM x warpsN is the block's warps, warpsN 1);
/// the shared tiles are padded against the bank conflicts of this kernel's
/// reads (rows along k: 16 bytes, so that the rows threads read together
/// start in distinct 16-byte bank groups).
struct GPUSimtMatmulTiling : GPUMatmulTiling {
  /// Threads along the block's rows and columns (threadsN consecutive
  /// threads share a row of threads).
  int64_t threadsM = 0, threadsN = 0;
  /// Accumulators per thread along m and n, 4 or 8 (one 16-byte
  /// shared-memory read gives 4 f32 or 2 f64 of them).
  int64_t threadM = 0, threadN = 0;

  int64_t threads() const { return threadsM * threadsN; }
};

/// Chooses the sizes for C(batch x m x n) += A * B in f32 or f64
/// (problem.inputBytes 4 or 8). `o` fixes
/// blockM, blockN, blockK and stages where non-zero, and the block's warps
/// where warpsM or warpsN is (their product, a missing one counting 1).
/// False with `why` set when the target lacks a figure (simt_fma_per_cycle,
/// or simt_f64_fma_per_cycle for f64, among them) or nothing fits.
bool computeGPUSimtMatmulTiling(const GPUModelParams &target,
                                const GPUMatmulProblem &problem,
                                const GPUMatmulOverrides &o,
                                GPUSimtMatmulTiling &tiling, std::string &why);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_GPUSIMTMATMULTILING_H

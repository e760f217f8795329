//===- GPUConvLayout.h - Whether NCHW convolutions pay for NHWC -*- C++ -*-===//
//
// tessel-convert-conv-to-nhwc's model. An NCHW convolution either stays as
// it is, and tessel-map-untiled-ops-to-gpu runs it as the direct loop nest
// (one output per thread, every multiply-add reading its operands through
// L1), or goes between transposes to NHWC, where tessel-map-matmul-to-gpu
// runs it as an implicit-GEMM kernel (tensor cores, or the SIMT cores for
// f32) that stages its operands through shared memory. The transposes are
// memory-bound copies; the question is whether they cost less than the
// kernel they enable saves.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_GPUCONVLAYOUT_H
#define TESSEL_PASSES_COSTMODEL_GPUCONVLAYOUT_H

#include "passes/CostModel/GPUMatmulTiling.h"

namespace mlir::tessel {

/// A lower bound on the cycles of the direct loop nest for `outputs`
/// outputs of a `reduction`-long sum each (the implicit GEMM's m x n and
/// k): the larger of L1's bound (a warp's multiply-add reads a 128-byte
/// wavefront of the input at least) and the chains of dependent
/// multiply-adds, per wave of resident threads, and the multiply-adds
/// themselves at `fmaPerCycle` per SM (the SIMT cores' rate for the
/// element type; 0 when unknown), plus one memory latency. The chains hold for
/// any number of outputs per thread (the untiled path may give a thread several
/// adjacent columns). A bound, not an estimate: the loop nest only does worse,
/// so the conversion is never chosen on an optimistic reading of the NHWC side
/// alone.
double lowerBoundGPUDirectConvCycles(const GPUModelParams &target,
                                     int64_t outputs, int64_t reduction,
                                     int64_t fmaPerCycle);

/// Cycles transposes take to move `bytes` (reads and writes together) at
/// the device-memory rate (L2's without it); estimateGPUTransposeCycles
/// adds a launch to it. For the transposes to and from NHWC, launches are
/// not counted: tessel-fold-transposes often removes the
/// output's (into an elementwise op after it, or against the next
/// convolution's input transpose), and launches queued on one stream
/// overlap the previous kernel.
double estimateGPUTransposeTrafficCycles(const GPUModelParams &target,
                                         int64_t bytes);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_GPUCONVLAYOUT_H

//===- GPUConvLayout.cpp - Whether an NCHW convolution pays for NHWC ------===//
#include "passes/CostModel/GPUConvLayout.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::tessel;

/// Cycles between two dependent f32/f16 multiply-adds in one thread (4 on
/// sm_80 and sm_90: "Dissecting the Ampere GPU architecture", Jia et al.).
static constexpr int64_t kDependentFmaCycles = 4;
/// Threads one SM holds at once, as a multiple of the largest block (2048
/// on sm_80/sm_90, the target's 1024-thread block twice).
static constexpr int64_t kResidentBlocksOfMaxSize = 2;

double mlir::tessel::lowerBoundGPUDirectConvCycles(const GPUModelParams &g,
                                                   int64_t outputs,
                                                   int64_t reduction,
                                                   int64_t fmaPerCycle) {
  int64_t sms = std::max<int64_t>(1, g.smCount);
  int64_t warp = std::max<int64_t>(1, g.warpSize);
  // Each warp-wide multiply-add reads at least one wavefront of the input
  // (the filter's value is a broadcast, at best cached).
  double wavefrontsPerCycle = std::max<double>(
      1.0, double(g.smemBytesPerCycle) / double(kGPUWavefrontBytes));
  double l1Cycles = double(outputs) * double(reduction) /
                    (double(warp) * double(sms) * wavefrontsPerCycle);
  int64_t resident = sms * kResidentBlocksOfMaxSize *
                     std::max<int64_t>(1, g.maxThreadsPerBlock);
  // With c outputs per thread: ceil(outputs / (c x resident)) waves, each
  // of reduction steps of at least max(kDependentFmaCycles, c) cycles (the
  // chain's latency, or issuing c multiply-adds). Whatever c, that is at
  // least reduction x max(kDependentFmaCycles, ceil(outputs / resident)).
  double chainCycles =
      double(reduction) *
      double(std::max<int64_t>(
          kDependentFmaCycles,
          llvm::divideCeilSigned(std::max<int64_t>(outputs, 1), resident)));
  // Where the element type's multiply-adds are slower than L1's bound
  // (f64 on GPUs without full-rate f64: 2 per cycle and SM on sm_86).
  double fmaCycles = fmaPerCycle > 0 ? double(outputs) * double(reduction) /
                                           (double(fmaPerCycle) * double(sms))
                                     : 0.0;
  return std::max({l1Cycles, chainCycles, fmaCycles}) + double(g.memoryLatency);
}

double mlir::tessel::estimateGPUTransposeTrafficCycles(const GPUModelParams &g,
                                                       int64_t bytes) {
  // Without the device-memory figure, L2's rate bounds what an SM can move.
  int64_t perSM =
      g.dramBytesPerCycle > 0 ? g.dramBytesPerCycle : g.l2BytesPerCycle;
  return double(bytes) / double(std::max<int64_t>(1, perSM * g.smCount));
}

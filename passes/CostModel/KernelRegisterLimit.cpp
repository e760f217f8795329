//===- KernelRegisterLimit.cpp - Registers per thread of a GPU kernel -----===//
#include "passes/CostModel/KernelRegisterLimit.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tessel;

/// The PTX limit on registers per thread.
static constexpr int64_t kMaxRegistersPerThread = 255;
/// Registers are allocated to whole warps in units of 8 per thread.
static constexpr int64_t kRegisterGranule = 8;
static constexpr int64_t kDefaultRegisterFile = 64 * 1024;
/// Shared memory the driver reserves per block (sm_80 and later); an SM's
/// shared memory is one block's most plus this reserve.
static constexpr int64_t kSharedReservePerBlock = 1024;
/// Blocks one SM holds at most (sm_80, sm_90; sm_86 and sm_89 hold 16 and
/// 24, which only blocks under 64 threads reach at 1024 threads).
static constexpr int64_t kMaxBlocksPerSM = 32;
/// Registers are allocated to whole warps.
static constexpr int64_t kWarpSize = 32;

int64_t mlir::tessel::residentBlocksAimedAt(const KernelResources &kernel,
                                            TargetAttr target,
                                            int64_t goalThreads) {
  if (kernel.threads <= 0 || !kernel.streaming || goalThreads <= 0 ||
      !kernel.sharedBytes)
    return 1;
  int64_t blocks =
      std::clamp<int64_t>(goalThreads / kernel.threads, 1, kMaxBlocksPerSM);
  if (*kernel.sharedBytes > 0 && target.getSmemPerBlock() > 0)
    blocks = std::min<int64_t>(
        blocks, (target.getSmemPerBlock() + kSharedReservePerBlock) /
                    (*kernel.sharedBytes + kSharedReservePerBlock));
  return std::max<int64_t>(blocks, 1);
}

int64_t mlir::tessel::kernelRegisterLimit(const KernelResources &kernel,
                                          TargetAttr target,
                                          int64_t goalThreads) {
  if (kernel.threads <= 0)
    return kMaxRegistersPerThread;
  int64_t registerFile = target.getRegistersPerBlock() > 0
                             ? target.getRegistersPerBlock()
                             : kDefaultRegisterFile;
  int64_t resident = llvm::alignTo(kernel.threads, kWarpSize) *
                     residentBlocksAimedAt(kernel, target, goalThreads);
  int64_t limit = llvm::alignDown(registerFile / resident, kRegisterGranule);
  return std::clamp<int64_t>(limit, kRegisterGranule, kMaxRegistersPerThread);
}

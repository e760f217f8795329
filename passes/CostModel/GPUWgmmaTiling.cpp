//===- GPUWgmmaTiling.cpp - Sizes for the Hopper (wgmma + TMA) matmul -----===//
//
// The estimate has the shape of GPUMatmulTiling's (per k tile the slowest of
// tensor cores, shared memory and L2, at least the memory latency spread
// over the tiles in flight; waves of resident blocks), with wgmma's costs:
//
// - every warpgroup spreads over the SM's four tensor cores, so one block
//   can keep them busy: no occupancy factor;
// - each instruction (m64nNk16 f16, m64nNk32 i8: 32 bytes of k) reads its
//   A (64 rows) and B (N rows or columns) pieces from shared memory itself:
//   a wider N reuses A, more rows per warpgroup re-read B;
// - i8 products run at twice the target's 16-bit tensor-core rate;
// - TMA writes each k tile into shared memory once, and reads it from L2
//   once per block: blockM x blockN tiles trade L2 traffic against
//   registers (the accumulators: blockM x blockN / threads per thread).
//
// No figure here is measured on a GPU yet: the tile shapes it picks on an
// H100 (128x256 with two warpgroups for large products) are the ones
// Hopper GEMMs commonly use, which is the only check so far.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel/GPUWgmmaTiling.h"
#include "passes/CostModel/GPUConvLayout.h"

#include "passes/Utils/Remarks.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace mlir::tessel;

/// Registers a thread needs besides the accumulators: descriptors, loop
/// state, addresses (an assumption; ptxas's counts in gpu_ptxas.test are
/// the check).
static constexpr int64_t kOtherRegisters = 40;
/// Fixed cycles per k tile: the barrier wait, the block-wide barrier before
/// the next copy is issued.
static constexpr int64_t kTileOverheadCycles = 64;
/// The 128-byte swizzle repeats every 1024 bytes; the ring starts on such a
/// boundary, found at run time.
static constexpr int64_t kSwizzlePeriod = 1024;
/// Static shared memory besides the ring: the mbarriers and the backend's
/// dynamic-memory symbol.
static constexpr int64_t kStaticSharedBytes = 256;

double mlir::tessel::estimateGPUTransposeCycles(const GPUModelParams &g,
                                                int64_t rows, int64_t cols,
                                                int64_t elementBytes) {
  return estimateGPUTransposeTrafficCycles(g, 2 * rows * cols * elementBytes) +
         double(g.memoryLatency) + kGPUExtraKernelCycles;
}

namespace {
struct Estimate {
  double cycles = 0, mmaCycles = 0, smemCycles = 0, l2Cycles = 0,
         reductionCycles = 0;
  int64_t blocks = 0, waves = 0, resident = 0, blocksPerSM = 0;
};
} // namespace

static Estimate estimate(const GPUModelParams &g, const GPUMatmulProblem &p,
                         const GPUWgmmaTiling &t) {
  Estimate e;
  e.blocksPerSM = std::min(
      {g.smemPerBlock / (t.smemBytes + kStaticSharedBytes),
       g.registersPerBlock / (t.threads() * (t.accRegisters + kOtherRegisters)),
       2 * g.maxThreadsPerBlock / t.threads()});
  e.blocks = llvm::divideCeilSigned(p.m, t.blockM) *
             llvm::divideCeilSigned(p.n, t.blockN) * t.kSplits;
  if (e.blocksPerSM < 1)
    return e;
  e.resident =
      std::min(e.blocksPerSM, llvm::divideCeilSigned(e.blocks, g.smCount));
  e.waves = llvm::divideCeilSigned(e.blocks, g.smCount * e.blocksPerSM);
  double r = double(e.resident);
  int64_t eb = p.inputBytes;
  // Per k tile (128 bytes deep = 4 instruction k steps of 32 bytes: 16 f16
  // or 32 i8 elements).
  int64_t kStep = 32 / eb;
  double instructions = double(t.warpgroups * (t.rowsPerWarpgroup() / 64));
  double operandReads =
      4 * instructions * double((64 * kStep + kStep * t.blockN) * eb);
  double tileBytes = double((t.blockM + t.blockN) * t.blockK * eb);
  // 8-bit inputs run at twice the 16-bit rate (the target's figure).
  int64_t rate = eb == 1 ? 2 : 1;
  e.mmaCycles = r * double(t.blockM * t.blockN * t.blockK) /
                double(g.mmaFmaPerCycle * rate);
  e.smemCycles = r * (operandReads + tileBytes) / double(g.smemBytesPerCycle);
  e.l2Cycles = r * tileBytes / double(g.l2BytesPerCycle);
  double tile = std::max({e.mmaCycles, e.smemCycles, e.l2Cycles,
                          double(g.memoryLatency) / double(t.stages - 1)}) +
                double(kTileOverheadCycles);
  double cBytes = double(t.blockM * t.blockN * p.accBytes);
  double epilogue = r * (2 * cBytes / double(g.smemBytesPerCycle) +
                         cBytes / double(g.l2BytesPerCycle));
  int64_t kTiles =
      llvm::divideCeilSigned(llvm::divideCeilSigned(p.k, t.blockK), t.kSplits);
  e.reductionCycles =
      t.kSplits > 1 ? estimateSplitKReductionCycles(g, p, t.kSplits) : 0;
  e.cycles = double(e.waves) *
                 (double(kTiles) * tile + double(g.memoryLatency) + epilogue) +
             e.reductionCycles;
  return e;
}

bool mlir::tessel::preferredOnTie(const GPUWgmmaTiling &candidate,
                                  const GPUWgmmaTiling &best) {
  auto key = [](const GPUWgmmaTiling &x) {
    return std::make_tuple(x.kSplits, -x.blockM * x.blockN, -x.blocksPerSM,
                           -x.stages);
  };
  return key(candidate) < key(best);
}

bool mlir::tessel::computeGPUWgmmaTiling(const GPUModelParams &g,
                                         const GPUMatmulProblem &p,
                                         const GPUMatmulOverrides &o,
                                         GPUWgmmaTiling &tiling,
                                         std::string &why) {
  if (!hasGPUModelFigures(g, why) || !hasTensorCoreRate(g, why))
    return false;
  if (o.kSplits && !whyNoKSplit(p, o.kSplits).empty()) {
    why = whyNoKSplit(p, o.kSplits);
    return false;
  }
  // One 128-byte swizzled row of k: 64 f16 or 128 i8 elements.
  int64_t blockK = 128 / p.inputBytes;
  if (o.blockK && o.blockK != blockK) {
    why = "the wgmma kernel's k tile is " + std::to_string(blockK) +
          " (one 128-byte swizzled row)";
    return false;
  }

  // Warpgroup rows are whole m64 instructions; B is loaded in boxes of 64
  // columns or rows (128 bytes, the swizzle's width); wgmma's N is at most
  // 256. With B given as (k, n) the kernel stores through upstream's
  // nvgpu.warpgroup.mma.store, which places a warpgroup's rows by its
  // thread ids (warp w at row 16 w), so with two warpgroups each takes 64
  // rows; and it puts a 128-row accumulator's second half at row N / 2 (its
  // register count), which is right only for N = 128: no 128x64 block of
  // one warpgroup then. With B as (n, k) the kernel stores its registers
  // itself, by the PTX fragment layout.
  struct Shape {
    int64_t warpgroups, blockM, blockN;
  };
  const Shape shapes[] = {{1, 64, 64},  {1, 64, 128},  {1, 64, 256},
                          {1, 128, 64}, {1, 128, 128}, {2, 128, 128},
                          {2, 128, 256}};
  bool ownStore = p.bTransposed;
  bool found = false;
  GPUWgmmaTiling best;
  Estimate bestEstimate;
  for (const Shape &s : shapes)
    for (int64_t stages = 2; stages <= 6; ++stages) {
      GPUWgmmaTiling t;
      t.warpgroups = s.warpgroups;
      t.blockM = s.blockM;
      t.blockN = s.blockN;
      t.blockK = blockK;
      t.stages = stages;
      if (s.warpgroups == 1 && s.blockM == 128 && s.blockN == 64 && !ownStore)
        continue;
      if ((o.blockM && o.blockM != t.blockM) ||
          (o.blockN && o.blockN != t.blockN) ||
          (o.warpsM && o.warpsM != t.warpgroups) ||
          (o.stages && o.stages != stages))
        continue;
      // Tiles far larger than the problem only add padding work.
      if (!o.blockM && t.blockM > 64 && t.blockM / 2 >= p.m)
        continue;
      if (!o.blockN && t.blockN > 64 && t.blockN / 2 >= p.n)
        continue;
      if (t.threads() > g.maxThreadsPerBlock)
        continue;
      t.accRegisters = t.blockM * t.blockN / t.threads() * p.accBytes / 4;
      int64_t registerLimit = std::min(kPTXMaxRegistersPerThread,
                                       g.registersPerBlock / t.threads());
      if (t.accRegisters + kOtherRegisters > registerLimit)
        continue;
      t.aStageBytes = t.blockM * t.blockK * p.inputBytes;
      t.bStageBytes = t.blockK * t.blockN * p.inputBytes;
      t.cTile = planSharedTile(t.blockM, t.blockN, p.accBytes, 16);
      int64_t ring = stages * (t.aStageBytes + t.bStageBytes);
      t.smemBytes =
          std::max(ring, t.cTile.elements() * p.accBytes) + kSwizzlePeriod;
      if (t.smemBytes + kStaticSharedBytes > g.smemPerBlock)
        continue;
      // Residency does not depend on the split (preferredOnTie reads it).
      t.blocksPerSM = estimate(g, p, t).blocksPerSM;
      keepBestOverKSplits(
          p, llvm::divideCeilSigned(p.k, blockK), o.kSplits, t,
          [&](const GPUWgmmaTiling &c) { return estimate(g, p, c); }, found,
          best, bestEstimate);
    }
  if (!found) {
    why = "no wgmma block and stage sizes fit the target's shared memory, "
          "registers and threads";
    if (o.blockM || o.blockN || o.warpsM || o.stages || o.kSplits)
      why += " with the given overrides";
    return false;
  }
  int64_t running = g.smCount * bestEstimate.blocksPerSM;
  best.groupM = std::clamp<int64_t>(int64_t(std::sqrt(double(running))), 1,
                                    llvm::divideCeilSigned(p.m, best.blockM));
  best.blocksPerSM = bestEstimate.blocksPerSM;
  best.estimatedCycles = bestEstimate.cycles;
  best.reductionCycles = bestEstimate.reductionCycles;
  llvm::raw_string_ostream os(best.rationale);
  os << "block " << best.blockM << "x" << best.blockN << "x" << best.blockK
     << " with " << best.warpgroups << " warpgroup(s) of "
     << best.rowsPerWarpgroup() << "x" << best.blockN << " (~"
     << best.accRegisters << " accumulator registers/thread); " << best.stages
     << " TMA stages (" << g.memoryLatency << " cycles of latency over "
     << best.stages - 1 << " k tiles); " << formatBytes(best.smemBytes)
     << " shared memory, " << bestEstimate.blocksPerSM << " block(s)/SM; "
     << bestEstimate.blocks << " blocks in " << bestEstimate.waves
     << " wave(s) over " << g.smCount << " SMs, in groups of " << best.groupM
     << " block rows"
     << describeKSplit(best.kSplits, best.reductionCycles, best.blockK, p)
     << "; per k tile and SM: tensor cores " << int64_t(bestEstimate.mmaCycles)
     << ", shared memory " << int64_t(bestEstimate.smemCycles) << ", L2 "
     << int64_t(bestEstimate.l2Cycles) << " cycles; estimated "
     << int64_t(bestEstimate.cycles) << " cycles";
  tiling = best;
  return true;
}

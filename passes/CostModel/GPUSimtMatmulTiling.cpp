//===- GPUSimtMatmulTiling.cpp - Sizes for f32/f64 matmul on SIMT cores ---===//
//
// The same shape of estimate as GPUMatmulTiling's, with the tensor cores
// replaced by the SM's f32 (or f64) lanes:
//
//   per k tile and SM: max(FMA cycles, shared-memory cycles, L2 cycles),
//   at least memoryLatency / (stages - 1);
//   block: k tiles x that + one latency + the epilogue;
//   kernel: waves of (SMs x resident blocks) x block.
//
// What decides such a kernel is how many shared-memory reads feed each
// FMA. A thread reads its threadM values of A and threadN of B for L k
// steps at a time (L = 16 bytes / element: 4 f32, 2 f64), 16 bytes per
// read, and does threadM x threadN FMAs per k step; a warp's read costs one
// 128-byte wavefront per 128 distinct bytes (threads of one row of threads
// read the same A address: a broadcast). Larger thread tiles mean fewer
// reads per FMA but more registers: the estimate is the accumulators, the
// values of four k steps of each row and column (two registers per f64
// value), two registers per copy a thread issues per k tile and
// kAddressRegisters, kept kGPURegisterHeadroom below the PTX limit.
//
// f64 products use the same kernel at the target's simt_f64_fma_per_cycle
// where it is estimated faster than the f64 tensor cores (DMMA, the WMMA
// model with m8n8k4 fragments; tessel-map-matmul-to-gpu compares the two).
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel/GPUSimtMatmulTiling.h"

#include "passes/Utils/Remarks.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir::tessel;

/// Registers besides accumulators and operands: tile indices, shared and
/// global addresses, loop counters. An assumption, checked against ptxas's
/// counts (docs/CostModels.md).
static constexpr int64_t kAddressRegisters = 40;
/// Bytes one thread reads from shared memory at once.
static constexpr int64_t kReadBytes = 16;

using llvm::divideCeilSigned;

namespace {
struct Estimate {
  double cycles = 0, fmaCycles = 0, smemCycles = 0, l2Cycles = 0,
         reductionCycles = 0;
  int64_t blocks = 0, waves = 0, blocksPerSM = 0;
};
} // namespace

/// A shared tile of `rows` x `cols` elements. A tile read across its rows
/// (`readAcrossRows`: the rows run along k, and the threads of a warp read
/// 16 bytes of consecutive rows at once) is padded by 16 bytes: with k
/// tiles a multiple of 8, the stride is then an odd number of 16-byte units
/// and eight consecutive rows start in eight distinct bank groups. A tile
/// whose rows consecutive threads read along needs no padding.
static SharedTile simtSharedTile(int64_t rows, int64_t cols,
                                 bool readAcrossRows, int64_t elementBytes) {
  SharedTile tile;
  tile.rows = rows;
  tile.cols = cols;
  tile.stride = readAcrossRows ? cols + kReadBytes / elementBytes : cols;
  return tile;
}

/// The SM's FMAs per cycle for the product's element type.
static int64_t simtFmaRate(const GPUModelParams &g, const GPUMatmulProblem &p) {
  return p.inputBytes == 8 ? g.simtF64FmaPerCycle : g.simtFmaPerCycle;
}

static void planResources(const GPUModelParams &g, const GPUMatmulProblem &p,
                          GPUSimtMatmulTiling &t) {
  int64_t eb = p.inputBytes;
  // A given as (m, k) and B given as (n, k) are read across rows.
  t.aTile = p.aTransposed ? simtSharedTile(t.blockK, t.blockM, false, eb)
                          : simtSharedTile(t.blockM, t.blockK, true, eb);
  t.bTile = p.bTransposed ? simtSharedTile(t.blockN, t.blockK, true, eb)
                          : simtSharedTile(t.blockK, t.blockN, false, eb);
  t.cTile = simtSharedTile(t.blockM, t.blockN, true, eb);
  int64_t pipeline = t.stages * (t.aTile.elements() + t.bTile.elements()) * eb;
  t.smemBytes = std::max(pipeline, t.cTile.elements() * eb);
  int64_t threads = t.threads();
  int64_t aCopies = divideCeilSigned(t.blockM * t.blockK * eb, 16 * threads);
  int64_t bCopies = divideCeilSigned(t.blockN * t.blockK * eb, 16 * threads);
  // 32-bit registers per value: 1 (f32) or 2 (f64). Operand values of
  // four k steps per row and column are counted live for f64 too, though
  // a read gives two: ptxas hoists the next read's loads above the FMAs,
  // and with two per read it used 224 and 244 registers where counting
  // two k steps said 184 and 218 (sm_80 and sm_90a, 4x8 per thread).
  int64_t perValue = eb / 4;
  // Synchronous copies (no cp.async) also hold their 16 bytes across the
  // tile's multiply-adds.
  t.registersPerThread =
      perValue * (t.threadM * t.threadN + 4 * (t.threadM + t.threadN)) +
      aCopies * (p.aSynchronous ? 6 : 2) + bCopies * (p.bSynchronous ? 6 : 2) +
      kAddressRegisters;
}

static Estimate estimate(const GPUModelParams &g, const GPUMatmulProblem &p,
                         const GPUSimtMatmulTiling &t) {
  Estimate e;
  int64_t threads = t.threads();
  int64_t warps = divideCeilSigned(threads, g.warpSize);
  e.blocksPerSM =
      std::min({g.smemPerBlock / (t.smemBytes + kGPUStaticSharedBytes),
                g.registersPerBlock / (threads * t.registersPerThread),
                2 * g.maxThreadsPerBlock / threads, int64_t(32)});
  e.blocks = p.batch * divideCeilSigned(p.m, t.blockM) *
             divideCeilSigned(p.n, t.blockN) * t.kSplits;
  int64_t resident =
      std::min(e.blocksPerSM, divideCeilSigned(e.blocks, g.smCount));
  e.waves = divideCeilSigned(e.blocks,
                             g.smCount * std::max<int64_t>(e.blocksPerSM, 1));
  double r = double(resident);

  // Wavefronts of one warp's 16-byte read: distinct rows of threads (A) or
  // columns of threads (B) in the warp, 16 bytes each.
  int64_t rowsPerWarp = std::max<int64_t>(1, g.warpSize / t.threadsN);
  int64_t colsPerWarp = std::min(t.threadsN, g.warpSize);
  auto wavefronts = [](int64_t distinct) {
    return double(divideCeilSigned(distinct * kReadBytes, kGPUWavefrontBytes));
  };
  // Per L k steps a thread issues threadM reads of A: one per row when
  // the tile's rows run along k, threadM / L per k step when they run
  // along m. Likewise threadN reads of B.
  int64_t eb = p.inputBytes, lanes = kReadBytes / eb;
  double reads = double(warps) * double(t.blockK / lanes) *
                 (double(t.threadM) * wavefronts(rowsPerWarp) +
                  double(t.threadN) * wavefronts(colsPerWarp)) *
                 double(kGPUWavefrontBytes);
  double copyBytes = double((t.blockM + t.blockN) * t.blockK * eb);
  double share = std::min(1.0, r * double(warps) / double(kGPUSubPartitions));
  e.fmaCycles = r * double(t.blockM * t.blockN * t.blockK) /
                (double(simtFmaRate(g, p)) * share);
  e.smemCycles = r * (reads + copyBytes) / double(g.smemBytesPerCycle);
  e.l2Cycles = r * copyBytes / double(g.l2BytesPerCycle);
  double tile = std::max({e.fmaCycles, e.smemCycles, e.l2Cycles,
                          double(g.memoryLatency) / double(t.stages - 1)}) +
                double(kGPUTileOverheadCycles);
  // Accumulators to shared memory, back, and out to C.
  double cBytes = double(t.blockM * t.blockN * eb);
  double epilogue = r * (2 * cBytes / double(g.smemBytesPerCycle) +
                         cBytes / double(g.l2BytesPerCycle));
  int64_t kTiles = divideCeilSigned(divideCeilSigned(p.k, t.blockK), t.kSplits);
  e.reductionCycles =
      t.kSplits > 1 ? estimateSplitKReductionCycles(g, p, t.kSplits) : 0;
  e.cycles = double(e.waves) *
                 (double(kTiles) * tile + double(g.memoryLatency) + epilogue) +
             e.reductionCycles;
  return e;
}

bool mlir::tessel::computeGPUSimtMatmulTiling(const GPUModelParams &g,
                                              const GPUMatmulProblem &p,
                                              const GPUMatmulOverrides &o,
                                              GPUSimtMatmulTiling &tiling,
                                              std::string &why) {
  if (!hasGPUModelFigures(g, why))
    return false;
  if (p.inputBytes != 4 && p.inputBytes != 8) {
    why = "the SIMT kernel takes f32 or f64 elements";
    return false;
  }
  if (simtFmaRate(g, p) <= 0) {
    why = p.inputBytes == 8
              ? "the target description has no simt_f64_fma_per_cycle"
              : "the target description has no simt_fma_per_cycle";
    return false;
  }
  if (o.kSplits && !whyNoKSplit(p, o.kSplits).empty()) {
    why = whyNoKSplit(p, o.kSplits);
    return false;
  }
  int64_t overrideWarps =
      (o.warpsM || o.warpsN)
          ? std::max<int64_t>(o.warpsM, 1) * std::max<int64_t>(o.warpsN, 1)
          : 0;
  // Tiles much larger than the problem only add padding work.
  auto limit = [](int64_t size, int64_t least) {
    return int64_t(llvm::PowerOf2Ceil(uint64_t(std::max(size, least))));
  };
  int64_t mLimit = limit(p.m, 16), nLimit = limit(p.n, 16),
          kLimit = limit(p.k, 8);

  bool found = false, anyMatchesOverrides = false, anyWithinProblem = false;
  GPUSimtMatmulTiling best;
  Estimate bestEstimate;
  auto search = [&](llvm::ArrayRef<int64_t> threadCounts) {
    for (int64_t threads : threadCounts)
      for (int64_t threadsN : {4, 8, 16, 32})
        for (int64_t threadM : {4, 8})
          for (int64_t threadN : {4, 8})
            for (int64_t blockK : {8, 16, 32})
              for (int64_t stages = 2; stages <= 4; ++stages) {
                if (threadsN > threads || threads > g.maxThreadsPerBlock ||
                    threads % g.warpSize != 0)
                  continue;
                GPUSimtMatmulTiling t;
                t.threadsN = threadsN;
                t.threadsM = threads / threadsN;
                t.threadM = threadM;
                t.threadN = threadN;
                t.blockM = t.threadsM * threadM;
                t.blockN = threadsN * threadN;
                t.blockK = blockK;
                t.stages = stages;
                t.warpsM = threads / g.warpSize;
                t.warpsN = 1;
                if ((o.blockM && o.blockM != t.blockM) ||
                    (o.blockN && o.blockN != t.blockN) ||
                    (o.blockK && o.blockK != t.blockK) ||
                    (o.stages && o.stages != stages) ||
                    (overrideWarps && overrideWarps * g.warpSize != threads))
                  continue;
                anyMatchesOverrides = true;
                if ((!o.blockM && t.blockM > mLimit) ||
                    (!o.blockN && t.blockN > nLimit) ||
                    (!o.blockK && t.blockK > kLimit))
                  continue;
                anyWithinProblem = true;
                // Every thread issues the same number of copies of each
                // operand (their tokens are grouped without a branch).
                int64_t aPieces = t.blockM * t.blockK * p.inputBytes / 16;
                int64_t bPieces = t.blockN * t.blockK * p.inputBytes / 16;
                if (aPieces % threads != 0 || bPieces % threads != 0)
                  continue;
                planResources(g, p, t);
                if (t.smemBytes + kGPUStaticSharedBytes > g.smemPerBlock ||
                    t.registersPerThread >
                        std::min(kPTXMaxRegistersPerThread -
                                     kGPURegisterHeadroom,
                                 g.registersPerBlock / threads))
                  continue;
                keepBestOverKSplits(
                    p, divideCeilSigned(p.k, blockK), o.kSplits, t,
                    [&](const GPUSimtMatmulTiling &c) {
                      return estimate(g, p, c);
                    },
                    found, best, bestEstimate);
              }
  };
  search({64, 128, 256});
  // A block of one warp only where no larger block fits (a 7 x 32
  // product): alone, a warp hides latency by its own accumulators, which
  // the estimate does not weigh against more warps per block.
  if (!found)
    search({32});
  if (!found && !anyMatchesOverrides) {
    why = "no SIMT block has the given overrides (its blocks have 32 to 256 "
          "threads of 4x4 to 8x8 accumulators, k tiles of 8, 16 or 32 and 2 "
          "to 4 stages)";
    return false;
  }
  if (!found && !anyWithinProblem) {
    why = "the product is smaller than every SIMT block (at least 32 "
          "threads of 4x4 accumulators), which would mostly compute padding";
    return false;
  }
  if (!found) {
    why = "no block, thread and stage sizes fit the target's shared memory, "
          "registers and threads";
    if (o.any())
      why += " with the given overrides";
    return false;
  }

  int64_t running = g.smCount * bestEstimate.blocksPerSM;
  best.groupM = std::clamp<int64_t>(int64_t(std::sqrt(double(running))), 1,
                                    divideCeilSigned(p.m, best.blockM));
  best.blocksPerSM = bestEstimate.blocksPerSM;
  best.estimatedCycles = bestEstimate.cycles;
  best.reductionCycles = bestEstimate.reductionCycles;

  llvm::raw_string_ostream os(best.rationale);
  os << "block " << best.blockM << "x" << best.blockN << "x" << best.blockK
     << " with " << best.threadsM << "x" << best.threadsN << " threads of "
     << best.threadM << "x" << best.threadN << " accumulators (~"
     << best.registersPerThread << " registers/thread); " << best.stages
     << " stages (" << g.memoryLatency << " cycles of latency over "
     << best.stages - 1 << " k tiles); " << formatBytes(best.smemBytes)
     << " shared memory, " << bestEstimate.blocksPerSM << " block(s)/SM; "
     << bestEstimate.blocks << " blocks in " << bestEstimate.waves
     << " wave(s) over " << g.smCount << " SMs, in groups of " << best.groupM
     << " block rows"
     << describeKSplit(best.kSplits, best.reductionCycles, best.blockK, p)
     << "; per k tile and SM: FMA " << int64_t(bestEstimate.fmaCycles)
     << ", shared memory " << int64_t(bestEstimate.smemCycles) << ", L2 "
     << int64_t(bestEstimate.l2Cycles) << " cycles; estimated "
     << int64_t(bestEstimate.cycles) << " cycles";
  tiling = best;
  return true;
}

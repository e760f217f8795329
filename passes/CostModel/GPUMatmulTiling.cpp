//===- GPUMatmulTiling.cpp - Block, warp and pipeline sizes for GPU matmul ===//
//
// The estimate, per candidate, of one block's time on an SM it shares with
// the other blocks resident there:
//
//   per k tile: max(tensor-core cycles, shared-memory cycles, L2 cycles),
//   at least memoryLatency / (stages - 1) (a copy is issued stages - 1 k
//   tiles before its data is used);
//   block: k tiles x that + one latency to fill the pipeline + the epilogue;
//   kernel: waves of (SMs x resident blocks) x block.
//
// Shared-memory cycles count the fragment loads (with the bank conflicts of
// the tile's padding) and the copies' writes; L2 cycles the copies' reads.
// Tensor cores: an SM has kSubPartitions of them, one per warp scheduler, so
// fewer resident warps than that leave some idle. The register estimate is
// the accumulators plus one A and one B fragment row of the warp tile, two
// registers of address per copy a thread issues per k tile (LLVM keeps them
// across the loop; a synchronous copy holds kSyncCopyRegisters while its
// element loads are in flight), plus kAddressRegisters; it must stay
// kRegisterHeadroom below the PTX limit, which ptxas needs to schedule the
// unrolled k step without spilling. The figures are fitted to ptxas 13.0's
// register counts for sm_80 over warp tiles of 1x1 to 4x4 fragments, 1 to 8
// warps and k tiles of 16 and 32 (utils/bench/gpu-register-sweep.sh): the
// estimate is at or above the count, within about 40 registers, for f16
// and i8. Each thread issues the same number of
// copies of each operand (their completion tokens are grouped without a
// branch), so tiles have at least as many 16-byte pieces as the block has
// threads.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel/GPUMatmulTiling.h"

#include "passes/Utils/Remarks.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <tuple>

using namespace mlir::tessel;

/// Registers a thread needs besides fragments: tile indices, shared and
/// global addresses, loop counters (fitted: see the file comment).
static constexpr int64_t kAddressRegisters = 52;
/// The PTX register limit per thread, and what the estimate leaves ptxas.
static constexpr int64_t kMaxRegistersPerThread = kPTXMaxRegistersPerThread;
static constexpr int64_t kRegisterHeadroom = kGPURegisterHeadroom;
static constexpr int64_t kSubPartitions = kGPUSubPartitions;
/// A synchronous 16-byte copy: the data and one address per element load.
static constexpr int64_t kSyncCopyRegisters = 12;
static constexpr int64_t kTileOverheadCycles = kGPUTileOverheadCycles;
/// Bytes one thread moves with one asynchronous copy (cp.async.cg).
static constexpr int64_t kCopyBytes = 16;
static constexpr int64_t kWavefrontBytes = kGPUWavefrontBytes;
static constexpr int64_t kStaticSharedBytes = kGPUStaticSharedBytes;

bool mlir::tessel::getWmmaInstruction(int64_t inputBytes, int64_t accBytes,
                                      MmaInstruction &mma) {
  mma = MmaInstruction();
  if (inputBytes == 2 && (accBytes == 4 || accBytes == 2)) {
    mma.abRegisters = 8; // eight .f16x2
    mma.abAlignment = 32;
    mma.cRegisters = accBytes == 4 ? 8 : 4;
    mma.cAlignment = accBytes == 4 ? 32 : 16;
    return true;
  }
  if (inputBytes == 8 && accBytes == 8) {
    // m8n8k4: one f64 of A and of B, two of C per thread. Rows aligned to
    // 16 bytes, more than the thread's share of A or B (8 bytes) asks for,
    // as every shared row is for the 16-byte copies anyway.
    mma.m = mma.n = 8;
    mma.k = 4;
    mma.abRegisters = 2;
    mma.cRegisters = 4;
    mma.abAlignment = mma.cAlignment = 16;
    mma.f64 = true;
    mma.maxFragmentsPerWarp = 8;
    mma.maxKSteps = 4;
    return true;
  }
  if (inputBytes == 1 && accBytes == 4) {
    // Two .b32 of four s8 in PTX, but ptxas expands s8 WMMA into several
    // IMMA instructions whose operands take about as many registers as
    // f16's (ptxas 13.0: a 4x4 grid of s8 accumulators uses 253 registers
    // where 2 per fragment predicts 192).
    mma.abRegisters = 8;
    mma.abAlignment = 8;
    mma.rateFactor = 2;
    return true;
  }
  return false;
}

bool mlir::tessel::getAmdMatrixInstruction(llvm::StringRef family,
                                           int64_t inputBytes, int64_t accBytes,
                                           MmaInstruction &mma) {
  mma = MmaInstruction();
  if (accBytes != 4 || (inputBytes != 2 && inputBytes != 1))
    return false;
  if (family == "mfma") {
    // v_mfma_f32_16x16x16f16 / v_mfma_i32_16x16x16i8 over 64 lanes: four
    // inputs of A and of B and four accumulators per lane (CDNA ISA,
    // "Matrix fused multiply-add"). A lane's A values are four consecutive
    // k of one row: 8 (f16) or 4 (i8) bytes, the row alignment asked.
    mma.unit = MmaInstruction::Unit::AmdMfma;
    mma.lanes = 64;
    mma.abRegisters = inputBytes == 2 ? 2 : 1;
    mma.cRegisters = 4;
    mma.abAlignment = 4 * inputBytes;
    mma.cAlignment = 4;
    return true;
  }
  if (family == "wmma") {
    // v_wmma_f32_16x16x16_f16 / v_wmma_i32_16x16x16_iu8 over 32 lanes: a
    // lane holds a whole row of A (column of B), 16 values, duplicated in
    // lanes 16-31, and 8 accumulators (RDNA3 ISA, "Wave Matrix
    // Multiply-Accumulate").
    mma.unit = MmaInstruction::Unit::AmdWmma;
    mma.lanes = 32;
    mma.abRegisters = inputBytes == 2 ? 8 : 4;
    mma.cRegisters = 8;
    mma.abAlignment = 16;
    mma.cAlignment = 4;
    return true;
  }
  return false;
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t mlir::tessel::tensorCoreRate(const GPUModelParams &g,
                                     const MmaInstruction &mma) {
  return mma.f64 ? g.mmaF64FmaPerCycle : g.mmaFmaPerCycle * mma.rateFactor;
}

SharedTile mlir::tessel::planSharedTile(int64_t rows, int64_t cols,
                                        int64_t elementBytes, int64_t alignment,
                                        int64_t readRows,
                                        int64_t readRowBytes) {
  int64_t align = std::max(alignment, kCopyBytes);
  int64_t rowBytes = cols * elementBytes;
  SharedTile best;
  best.rows = rows;
  best.cols = cols;
  int64_t bestWays = INT64_MAX;
  for (int64_t pad = 0; pad <= kWavefrontBytes; pad += kCopyBytes) {
    int64_t stride = rowBytes + pad;
    if (stride % align != 0)
      continue;
    // The read's rows, each readRowBytes from its start; ways: the busiest
    // bank group's hits over the fewest wavefronts the read needs.
    int64_t hits[kWavefrontBytes / kCopyBytes] = {};
    int64_t busiest = 0;
    for (int64_t r = 0; r < readRows; ++r)
      for (int64_t b = 0; b < readRowBytes; b += kCopyBytes)
        busiest = std::max(
            busiest, ++hits[((r * stride + b) % kWavefrontBytes) / kCopyBytes]);
    int64_t ways =
        ceilDiv(busiest, std::max<int64_t>(1, ceilDiv(readRows * readRowBytes,
                                                      kWavefrontBytes)));
    if (ways < bestWays) {
      bestWays = ways;
      best.stride = stride / elementBytes;
      best.conflictWays = ways;
    }
  }
  return best;
}

std::string mlir::tessel::whyNoKSplit(const GPUMatmulProblem &p,
                                      int64_t splits) {
  if (splits < 1)
    return "split-k must be at least 1";
  // The split is the grid's y dimension.
  if (splits > kGPUMaxGridY)
    return "split-k must be at most " + std::to_string(kGPUMaxGridY) +
           " (the grid's y limit)";
  if (splits > 1 && p.accBytes < 4)
    return "split-k needs accumulators of 4 bytes or more (f32, i32, f64): "
           "partial sums of " +
           std::to_string(p.accBytes) + "-byte ones would be rounded";
  return {};
}

llvm::SmallVector<int64_t>
mlir::tessel::kSplitCandidates(const GPUMatmulProblem &p, int64_t kTiles,
                               int64_t overrideSplits) {
  // An override is taken as given, even where some splits get no k tiles
  // (they write zeros): it is a knob for tests and experiments.
  if (overrideSplits)
    return whyNoKSplit(p, overrideSplits).empty()
               ? llvm::SmallVector<int64_t>{overrideSplits}
               : llvm::SmallVector<int64_t>{};
  llvm::SmallVector<int64_t> splits = {1};
  if (p.accBytes < 4)
    return splits;
  for (int64_t s = 2; s <= std::min(kGPUMaxKSplits, kTiles); ++s)
    if (ceilDiv(kTiles, s) * (s - 1) < kTiles)
      splits.push_back(s);
  return splits;
}

double mlir::tessel::estimateSplitKReductionCycles(const GPUModelParams &g,
                                                   const GPUMatmulProblem &p,
                                                   int64_t splits) {
  double cBytes =
      double(p.batch) * double(p.m) * double(p.n) * double(p.accBytes);
  double partials = double(splits) * cBytes;
  bool inL2 = g.l2Bytes > 0 && partials <= double(g.l2Bytes) / 2;
  int64_t perSM = !inL2 && g.dramBytesPerCycle > 0 ? g.dramBytesPerCycle
                                                   : g.l2BytesPerCycle;
  double cPasses = p.accumulatesOntoC ? 2 : 1;
  return (partials + cPasses * cBytes) /
             double(std::max<int64_t>(1, perSM * g.smCount)) +
         double(g.memoryLatency) + kGPUExtraKernelCycles;
}

namespace {
/// One candidate's estimate.
struct Estimate {
  double cycles = 0, mmaCycles = 0, smemCycles = 0, l2Cycles = 0,
         tileCycles = 0, reductionCycles = 0;
  int64_t blocks = 0, waves = 0, resident = 0, blocksPerSM = 0;
};
} // namespace

/// Fills the shared-memory plan and register estimate of `t`.
static void planResources(const GPUModelParams &g, const MmaInstruction &mma,
                          const GPUMatmulProblem &p, GPUMatmulTiling &t) {
  int64_t eb = p.inputBytes;
  // What one fragment load reads: for m16n16k16, modelled as ldmatrix
  // phases of eight 16-byte row pieces (the planner's default); for m8n8k4
  // (f64), whole fragment rows: A's 8x4 as 8 rows of 4 values (4 rows of 8
  // stored k-major), B's 4x8 as 4 rows of 8 (8 rows of 4 stored n-major),
  // C's as 8 rows of 8.
  // AMD's matrix instructions read fragments lane by lane (no ldmatrix):
  // modelled like m8n8k4's, as whole fragment rows.
  auto plan = [&](int64_t rows, int64_t cols, int64_t bytes, int64_t align,
                  int64_t fragRows, int64_t fragCols) {
    if (!mma.f64 && !mma.amd())
      return planSharedTile(rows, cols, bytes, align);
    return planSharedTile(rows, cols, bytes, align, fragRows, fragCols * bytes);
  };
  t.aTile = p.aTransposed
                ? plan(t.blockK, t.blockM, eb, mma.abAlignment, mma.k, mma.m)
                : plan(t.blockM, t.blockK, eb, mma.abAlignment, mma.m, mma.k);
  t.bTile = p.bTransposed
                ? plan(t.blockN, t.blockK, eb, mma.abAlignment, mma.n, mma.k)
                : plan(t.blockK, t.blockN, eb, mma.abAlignment, mma.k, mma.n);
  t.cTile = plan(t.blockM, t.blockN, p.accBytes, mma.cAlignment, mma.m, mma.n);
  int64_t pipeline =
      t.stages * (t.aTile.elements() + t.bTile.elements()) * eb;
  t.smemBytes = std::max(pipeline, t.cTile.elements() * p.accBytes);
  int64_t fm = t.fragmentsM(mma), fn = t.fragmentsN(mma);
  int64_t threads = t.warps() * g.warpSize;
  int64_t aCopies = ceilDiv(t.blockM * t.blockK * eb / kCopyBytes, threads);
  int64_t bCopies = ceilDiv(t.blockN * t.blockK * eb / kCopyBytes, threads);
  t.registersPerThread =
      fm * fn * mma.cRegisters + (fm + fn) * mma.abRegisters +
      aCopies * (p.aSynchronous ? kSyncCopyRegisters : 2) +
      bCopies * (p.bSynchronous ? kSyncCopyRegisters : 2) + kAddressRegisters;
}

static Estimate estimate(const GPUModelParams &g, const MmaInstruction &mma,
                         const GPUMatmulProblem &p, const GPUMatmulTiling &t) {
  Estimate e;
  int64_t threads = t.warps() * g.warpSize;
  // Per SM: shared memory and registers as one block may have them; threads
  // at twice a block's limit (2048 on sm_80 and sm_90).
  e.blocksPerSM =
      std::min({g.smemPerBlock / t.smemBytes,
                g.registersPerBlock / (threads * t.registersPerThread),
                2 * g.maxThreadsPerBlock / threads, int64_t(32)});
  e.blocks =
      p.batch * ceilDiv(p.m, t.blockM) * ceilDiv(p.n, t.blockN) * t.kSplits;
  e.resident = std::min(e.blocksPerSM, ceilDiv(e.blocks, g.smCount));
  e.waves = ceilDiv(e.blocks, g.smCount * e.blocksPerSM);

  int64_t eb = p.inputBytes;
  double r = double(e.resident);
  double fragBytes = double(mma.m * mma.k * eb);
  double fragmentReads =
      double(t.blockK / mma.k) * double(t.warps()) *
      (double(t.fragmentsM(mma)) * fragBytes * double(t.aTile.conflictWays) +
       double(t.fragmentsN(mma)) * fragBytes * double(t.bTile.conflictWays));
  double copyBytes = double((t.blockM + t.blockN) * t.blockK * eb);
  double tensorShare =
      std::min(1.0, r * double(t.warps()) / double(kSubPartitions));
  e.mmaCycles = r * double(t.blockM * t.blockN * t.blockK) /
                (double(tensorCoreRate(g, mma)) * tensorShare);
  e.smemCycles = r * (fragmentReads + copyBytes) / double(g.smemBytesPerCycle);
  e.l2Cycles = r * copyBytes / double(g.l2BytesPerCycle);
  e.tileCycles = std::max({e.mmaCycles, e.smemCycles, e.l2Cycles,
                           double(g.memoryLatency) / double(t.stages - 1)}) +
                 double(kTileOverheadCycles);
  // The epilogue stores the accumulators to shared memory, reads them back
  // and writes C.
  double cBytes = double(t.blockM * t.blockN * p.accBytes);
  double epilogue = r * (2 * cBytes / double(g.smemBytesPerCycle) +
                         cBytes / double(g.l2BytesPerCycle));
  double block =
      double(ceilDiv(ceilDiv(p.k, t.blockK), t.kSplits)) * e.tileCycles +
      double(g.memoryLatency) + epilogue;
  e.reductionCycles =
      t.kSplits > 1 ? estimateSplitKReductionCycles(g, p, t.kSplits) : 0;
  e.cycles = double(e.waves) * block + e.reductionCycles;
  return e;
}

std::string mlir::tessel::describeKSplit(int64_t kSplits,
                                         double reductionCycles, int64_t blockK,
                                         const GPUMatmulProblem &p) {
  if (kSplits <= 1)
    return {};
  int64_t kTiles = ceilDiv(p.k, blockK);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "; k split " << kSplits << " ways (" << ceilDiv(kTiles, kSplits)
     << " of " << kTiles << " k tiles per block; "
     << formatBytes(kSplits * p.batch * p.m * p.n * p.accBytes)
     << " of partial sums, added by a second kernel, ~"
     << int64_t(reductionCycles) << " cycles)";
  return s;
}

bool mlir::tessel::preferredOnTie(const GPUMatmulTiling &candidate,
                                  const GPUMatmulTiling &best) {
  auto key = [](const GPUMatmulTiling &x) {
    return std::make_tuple(x.kSplits, -x.blockM * x.blockN, x.smemBytes,
                           -x.stages);
  };
  return key(candidate) < key(best);
}

bool mlir::tessel::hasGPUModelFigures(const GPUModelParams &g,
                                      std::string &why) {
  std::pair<const char *, int64_t> needed[] = {
      {"sm_count", g.smCount},
      {"smem_per_block", g.smemPerBlock},
      {"registers_per_block", g.registersPerBlock},
      {"warp_size", g.warpSize},
      {"max_threads_per_block", g.maxThreadsPerBlock},
      {"smem_bytes_per_cycle", g.smemBytesPerCycle},
      {"l2_bytes_per_cycle", g.l2BytesPerCycle},
      {"memory_latency", g.memoryLatency}};
  for (auto [name, value] : needed)
    if (value <= 0) {
      why = std::string("the target description has no ") + name;
      return false;
    }
  return true;
}

bool mlir::tessel::hasTensorCoreRate(const GPUModelParams &g, std::string &why,
                                     const MmaInstruction &mma) {
  if (tensorCoreRate(g, mma) > 0)
    return true;
  why = mma.f64 ? "the target description has no mma_f64_fma_per_cycle"
                : "the target description has no mma_fma_per_cycle";
  return false;
}

bool mlir::tessel::computeGPUMatmulTiling(const GPUModelParams &g,
                                          const MmaInstruction &mma,
                                          const GPUMatmulProblem &p,
                                          const GPUMatmulOverrides &o,
                                          GPUMatmulTiling &tiling,
                                          std::string &why) {
  if (!hasGPUModelFigures(g, why) || !hasTensorCoreRate(g, why, mma))
    return false;
  if (o.kSplits && !whyNoKSplit(p, o.kSplits).empty()) {
    why = whyNoKSplit(p, o.kSplits);
    return false;
  }

  // One or two instruction k steps per k tile for m16n16k16: ptxas hoists
  // all fragment loads of an unrolled k tile, and at four or more steps
  // their registers spill (ptxas 13.0 on sm_80: 254 registers for a 64x32
  // warp tile with four steps, 166 with two); the stages hide latency
  // instead. m8n8k4's fragments are a quarter the size: up to four steps
  // (16 f64, 128 bytes of a row); one step's fragments are counted, as for
  // m16n16k16 (ptxas 13.0: 126-134 registers for 2x8 fragments of four
  // steps, where one step's count gives 148 and four steps' 208).
  llvm::SmallVector<int64_t> kSteps, fragments;
  for (int64_t s = 1; s <= mma.maxKSteps; s *= 2)
    kSteps.push_back(s * mma.k);
  for (int64_t c = 1; c <= mma.maxFragmentsPerWarp; c *= 2)
    fragments.push_back(c);
  int64_t warpCounts[] = {1, 2, 4};
  // Tiles much larger than the problem only add padding work.
  int64_t mLimit = int64_t(llvm::PowerOf2Ceil(uint64_t(
      std::max<int64_t>(mma.m, llvm::alignTo(p.m, mma.m)))));
  int64_t nLimit = int64_t(llvm::PowerOf2Ceil(uint64_t(
      std::max<int64_t>(mma.n, llvm::alignTo(p.n, mma.n)))));
  int64_t kLimit = int64_t(llvm::PowerOf2Ceil(uint64_t(
      std::max<int64_t>(mma.k, llvm::alignTo(p.k, mma.k)))));

  bool found = false;
  GPUMatmulTiling best;
  Estimate bestEstimate;
  for (int64_t fm : fragments)
    for (int64_t fn : fragments)
      for (int64_t wm : warpCounts)
        for (int64_t wn : warpCounts)
          for (int64_t bk : kSteps)
            for (int64_t stages = 2; stages <= 5; ++stages) {
              GPUMatmulTiling t;
              t.blockM = fm * wm * mma.m;
              t.blockN = fn * wn * mma.n;
              t.blockK = std::max(bk, mma.k);
              t.warpsM = wm;
              t.warpsN = wn;
              t.stages = stages;
              if ((o.blockM && o.blockM != t.blockM) ||
                  (o.blockN && o.blockN != t.blockN) ||
                  (o.blockK && o.blockK != t.blockK) ||
                  (o.warpsM && o.warpsM != wm) ||
                  (o.warpsN && o.warpsN != wn) ||
                  (o.stages && o.stages != stages))
                continue;
              if (!o.blockM && t.blockM > mLimit)
                continue;
              if (!o.blockN && t.blockN > nLimit)
                continue;
              if (!o.blockK && t.blockK > kLimit)
                continue;
              int64_t threads = t.warps() * g.warpSize;
              if (threads > g.maxThreadsPerBlock ||
                  t.blockM * t.blockK * p.inputBytes < kCopyBytes * threads ||
                  t.blockN * t.blockK * p.inputBytes < kCopyBytes * threads)
                continue;
              planResources(g, mma, p, t);
              if (t.smemBytes + kStaticSharedBytes > g.smemPerBlock ||
                  t.registersPerThread >
                      std::min(kMaxRegistersPerThread - kRegisterHeadroom,
                               g.registersPerBlock / threads))
                continue;
              keepBestOverKSplits(
                  p, ceilDiv(p.k, t.blockK), o.kSplits, t,
                  [&](const GPUMatmulTiling &c) {
                    return estimate(g, mma, p, c);
                  },
                  found, best, bestEstimate);
            }
  if (!found) {
    why = "no block, warp and stage sizes fit the target's shared memory, "
          "registers and threads";
    if (o.any())
      why += " with the given overrides";
    return false;
  }

  // Blocks resident at once cover a near-square region of C when they are
  // launched groupM block rows at a time.
  int64_t running = g.smCount * bestEstimate.blocksPerSM;
  int64_t blockRows = ceilDiv(p.m, best.blockM);
  best.groupM = std::clamp<int64_t>(
      int64_t(std::sqrt(double(running))), 1, blockRows);
  best.blocksPerSM = bestEstimate.blocksPerSM;
  best.estimatedCycles = bestEstimate.cycles;
  best.reductionCycles = bestEstimate.reductionCycles;

  llvm::raw_string_ostream os(best.rationale);
  os << "block " << best.blockM << "x" << best.blockN << "x" << best.blockK
     << " with " << best.warpsM << "x" << best.warpsN << " warps of "
     << best.blockM / best.warpsM << "x" << best.blockN / best.warpsN << " ("
     << best.fragmentsM(mma) << "x" << best.fragmentsN(mma) << " " << mma.m
     << "x" << mma.n << " accumulators, ~" << best.registersPerThread
     << " registers/thread); " << best.stages << " stages (" << g.memoryLatency
     << " cycles of latency over " << best.stages - 1 << " k tiles); "
     << formatBytes(best.smemBytes) << " shared memory, "
     << bestEstimate.blocksPerSM << " block(s)/SM; " << bestEstimate.blocks
     << " blocks in " << bestEstimate.waves << " wave(s) over " << g.smCount
     << " SMs, in groups of " << best.groupM << " block rows"
     << describeKSplit(best.kSplits, best.reductionCycles, best.blockK, p)
     << "; per k tile and SM: tensor cores " << int64_t(bestEstimate.mmaCycles)
     << ", shared memory " << int64_t(bestEstimate.smemCycles) << " ("
     << best.aTile.conflictWays << "/" << best.bTile.conflictWays
     << "-way A/B bank conflicts), L2 " << int64_t(bestEstimate.l2Cycles)
     << " cycles; estimated " << int64_t(bestEstimate.cycles) << " cycles";
  tiling = best;
  return true;
}

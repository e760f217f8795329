//===- FusionTiling.cpp - Tile sizes for fused producer-consumer groups ---===//
//
// Cost of a candidate tile T of the root, summed over all ceil(N/T) tiles:
//
//   tiles(T) * (work(T) + beta * (inputBytes(T) + line * runs(T))
//               + perTileOverhead)
//
// where work(T) counts the arithmetic of every fused op over the part of
// its domain the tile needs (halos make it exceed the tile's share: that
// excess is the recomputation), inputBytes(T) the bytes read from outside
// the group (halos again re-read), and beta converts bytes into the
// arithmetic the core could have done while waiting for them. runs(T)
// counts the contiguous pieces those reads make (one per row of a slice
// narrower than its tensor): a CPU's stream prefetcher misses about a line
// of each before it follows it, so short rows cost more than their bytes
// (measured on Zen 5, unsharp's 3x2048x2048 planes: 128x128 tiles, 528-byte
// row pieces, 6.2 ms; 32x512 and 64x256, 2 KiB and 1 KiB, 5.1-5.3 ms at
// one thread, though they recompute more halo). Candidates
// whose intermediate buffers exceed half of L2 are rejected: those buffers
// are written and re-read within the tile and must not be evicted by the
// streams of inputs and outputs that share the cache. On a CPU, for tiles
// of whole rows, the intermediates' own traffic (each written and read
// back once) is costed too, cheaper when the tile's working set
// (intermediates plus input slices) fits L1 than when it lives in L2: a
// row reduction recomputes nothing whatever its tile, and without this
// term the per-tile overhead alone would pick the largest tile the budget
// allows (measured on Zen 5, softmax 4096x4096 at one thread: 16-row
// tiles, 518 KiB of working set, 3.94 ms; 1-row tiles, 32 KiB, 3.51 ms).
// Narrower tiles would trade that saving against short rows, whose cost
// the run term above underestimates (Harris: 16x64 tiles within L1, 6.2
// ms; 64x256, 4.7 ms), so they are not offered it. The cost is then
// scaled by the load imbalance over the cores (the last wave of tiles may
// leave cores idle).
//
// Candidate shapes: the innermost tileable loop (contiguous in the
// row-major tensors linalg produces) takes whole multiples of four vectors
// or its full extent; the next one powers of two or its full extent; outer
// tileable loops 1 or their full extent (channels that share a computed
// plane, e.g. unsharp's gray image, must not recompute it per channel). This is
// a fixed family enumerated exhaustively (a few dozen shapes), not a
// search over measurements.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel/FusionTiling.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tessel;

/// Arithmetic the core could do per byte it waits for from memory. The
/// target description has no memory bandwidth; 4 corresponds to a core
/// that does 64 flop/cycle (two 16-lane FMA pipes) fed at about 16 B/cycle,
/// the order of one core's DRAM share on current server and desktop parts.
static constexpr double kCPUWorkPerByte = 4.0;
/// The same for bytes a tile writes and re-reads in its own cache: about
/// 32 B/cycle of mixed loads and write-backs between L1 and L2, and 128
/// B/cycle (two 64-byte loads and a store) within L1.
static constexpr double kCPUL2WorkPerByte = 2.0;
static constexpr double kCPUL1WorkPerByte = 0.5;
/// Likewise for a GPU SM: 64 f32 FMAs (128 flop) per cycle on sm_80 and
/// sm_90 against about 10-20 B/cycle of its DRAM share (A100: 1.6 TB/s
/// over 108 SMs at 1.41 GHz is 10; H100: 3.3 TB/s over 132 at 1.83 is 14).
static constexpr double kGPUWorkPerByte = 8.0;
/// Thread blocks of a fused group one GPU SM runs at once: their shared
/// memory is budgeted so that two fit.
static constexpr int64_t kGPUBlocksPerSM = 2;
/// Shared memory the CUDA driver reserves per resident block (1 KiB on
/// sm_80 and sm_90), and room for tessel-map-tiles-to-gpu's 16-byte
/// alignment of each tile buffer.
static constexpr int64_t kGPUReservedSharedBytes = 1024;
static constexpr int64_t kGPUBufferPaddingBytes = 512;

FusionTarget mlir::tessel::cpuFusionTarget(const CPUModelParams &params) {
  FusionTarget t;
  t.quantumBytes = 4 * std::max<int64_t>(8, params.vectorBits / 8);
  t.bufferBudget = (params.l2 > 0 ? params.l2 : 512 * 1024) / 2;
  t.parallelUnits = std::max<int64_t>(1, params.cores);
  t.workPerByte = kCPUWorkPerByte;
  t.runStartBytes = params.cacheLine > 0 ? params.cacheLine : 64;
  t.budgetName = "L2/2";
  t.unitName = "cores";
  t.fastCacheBytes = params.l1;
  t.reuseWorkPerByteFast = kCPUL1WorkPerByte;
  t.reuseWorkPerByteSlow = kCPUL2WorkPerByte;
  t.fastCacheName = "L1";
  return t;
}

FusionTarget mlir::tessel::gpuFusionTarget(int64_t smCount,
                                           int64_t smemPerBlock,
                                           int64_t warpSize) {
  FusionTarget t;
  t.quantumBytes = 4 * std::max<int64_t>(1, warpSize);
  // A block's limit stands for the SM's, which is 1 KiB more on sm_80 and
  // sm_90 (A100: 163 and 164 KiB): two blocks of this budget plus the
  // driver's reserve fit.
  t.bufferBudget = std::max<int64_t>(
      0, smemPerBlock / kGPUBlocksPerSM - kGPUReservedSharedBytes -
             kGPUBufferPaddingBytes);
  t.parallelUnits = std::max<int64_t>(1, smCount) * kGPUBlocksPerSM;
  t.workPerByte = kGPUWorkPerByte;
  t.budgetName = "shared memory/2 - reserve";
  t.unitName = "block slots (2 per SM)";
  return t;
}
/// Loop, slice and buffer set-up per tile, in arithmetic-op equivalents.
static constexpr double kPerTileOverhead = 2000.0;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Bytes a tile keeps in cache while it runs.
static int64_t workingSet(const GroupTileCost &cost) {
  return cost.intermediateBytes + cost.distinctInputBytes;
}

static SmallVector<int64_t> candidatesFor(int64_t extent, int64_t quantum) {
  SmallVector<int64_t> sizes;
  for (int64_t s = quantum; s < extent; s *= 2)
    sizes.push_back(s);
  sizes.push_back(extent);
  return sizes;
}

bool mlir::tessel::computeFusionTiling(const FusionTarget &target,
                                       const FusionProblem &problem,
                                       FusionTiling &result,
                                       std::string &why) {
  size_t rank = problem.extents.size();
  SmallVector<size_t> tileable;
  for (size_t d = 0; d < rank; ++d)
    if (problem.tileable[d] && problem.extents[d] > 1)
      tileable.push_back(d);
  if (tileable.empty()) {
    why = "no parallel loop of extent > 1 to tile";
    return false;
  }
  int64_t quantum = std::max<int64_t>(
      1, target.quantumBytes / std::max<int64_t>(1, problem.elementBytes));
  int64_t budget = target.bufferBudget;
  int64_t cores = target.parallelUnits;

  size_t inner = tileable.back();
  std::optional<size_t> second;
  if (tileable.size() > 1)
    second = tileable[tileable.size() - 2];
  // The quantum keeps the accesses along the innermost tileable loop whole
  // vectors (coalesced on a GPU). Where a tile of one iteration of every
  // tileable loop already reads nearly all its bytes in runs that long,
  // the traffic runs along other loops (a logsumexp's 1-D root: its
  // producers reduce rows of 4096), and the quantum would only cap the
  // tiles (32 rows: 32 tiles of 1024 rows, for 216 block slots). Writes and
  // shorter reads may then cost up to a quantum's worth each, so together
  // they must stay within 1/quantum of the long reads (a logsumexp's
  // result and a per-row bias do; an elementwise root's never).
  SmallVector<int64_t> unitBox(problem.extents);
  for (size_t d : tileable)
    unitBox[d] = 1;
  if (std::optional<GroupTileCost> unit = problem.costOf(unitBox)) {
    double longReads = 0, shortBytes = unit->outputBytes;
    for (auto [bytes, runBytes] : unit->inputReads)
      (runBytes >= static_cast<double>(target.quantumBytes) ? longReads
                                                            : shortBytes) +=
          bytes;
    if (longReads > 0 && shortBytes * static_cast<double>(quantum) <= longReads)
      quantum = 1;
  }
  SmallVector<int64_t> innerSizes =
      candidatesFor(problem.extents[inner], quantum);
  SmallVector<int64_t> secondSizes =
      second ? candidatesFor(problem.extents[*second], 1)
             : SmallVector<int64_t>{0};

  double total = 1;
  for (int64_t e : problem.extents)
    total *= e;

  // Outer tileable loops: 1 or whole (whole avoids recomputing per
  // channel what the channels share); at most 3 of them are varied.
  SmallVector<size_t> outer(tileable.begin(),
                            tileable.end() - (second ? 2 : 1));
  size_t varied = std::min<size_t>(outer.size(), 3);
  bool found = false;
  double bestCost = 0;
  for (unsigned mask = 0; mask < (1u << varied); ++mask)
  for (int64_t si : secondSizes) {
    for (int64_t sj : innerSizes) {
      SmallVector<int64_t> tile(rank, 0), box(problem.extents);
      for (size_t d : tileable)
        tile[d] = box[d] = 1;
      for (size_t o = 0; o < varied; ++o)
        if (mask & (1u << o))
          tile[outer[o]] = box[outer[o]] = problem.extents[outer[o]];
      tile[inner] = box[inner] = sj;
      if (second)
        tile[*second] = box[*second] = si;
      std::optional<GroupTileCost> cost = problem.costOf(box);
      if (!cost || cost->intermediateBytes > budget)
        continue;
      int64_t tiles = 1;
      for (size_t d : tileable)
        tiles *= ceilDiv(problem.extents[d], box[d]);
      double waves = static_cast<double>(ceilDiv(tiles, cores) * cores);
      double reuse = 0;
      if (target.fastCacheBytes > 0 && sj == problem.extents[inner])
        reuse = 2.0 * static_cast<double>(cost->intermediateBytes) *
                (workingSet(*cost) <= target.fastCacheBytes
                     ? target.reuseWorkPerByteFast
                     : target.reuseWorkPerByteSlow);
      double c = waves * (cost->work +
                          target.workPerByte *
                              (cost->inputBytes +
                               target.runStartBytes * cost->inputRuns) +
                          reuse + kPerTileOverhead);
      if (found && c >= bestCost)
        continue;
      found = true;
      bestCost = c;
      result.tileSizes = tile;
      result.perTile = *cost;
      result.tiles = tiles;
      result.recomputedFraction =
          problem.unfusedWork > 0
              ? tiles * cost->work / (problem.unfusedWork * total) - 1
              : 0;
    }
  }
  if (found && result.tiles <= 1) {
    why = "one tile covers the whole op (nothing to fuse across tiles or "
          "spread over cores)";
    return false;
  }
  if (!found) {
    why = "no tile shape keeps the intermediates within " +
          target.budgetName + " (" + std::to_string(budget / 1024) + " KiB)";
    return false;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tile ";
  llvm::interleave(
      result.tileSizes, os,
      [&](int64_t s) {
        if (s == 0)
          os << "-";
        else
          os << s;
      },
      "x");
  os << " (" << result.tiles << " tiles over " << cores << " "
     << target.unitName << "), "
     << "intermediates " << result.perTile.intermediateBytes << " B per tile "
     << "(budget " << target.budgetName << " = " << budget << " B)";
  if (target.fastCacheBytes > 0) {
    int64_t set = workingSet(result.perTile);
    os << ", working set " << set << " B "
       << (set <= target.fastCacheBytes ? "within " : "beyond ")
       << target.fastCacheName;
  }
  os << ", recomputed "
     << llvm::format("%.1f", 100 * std::max(0.0, result.recomputedFraction))
     << "% of the unfused work";
  result.rationale = text;
  return true;
}

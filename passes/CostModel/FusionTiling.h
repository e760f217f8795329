//===- FusionTiling.h - Tile sizes for fused producer-consumer groups -*- C++ -*-===//
//
// The model behind overlapped-tile fusion: a group of linalg ops (one root
// consumer and the producers fused into its tiles) runs tile by tile; each
// tile recomputes the part of every producer its consumers read, halo
// included, into tile-sized buffers. Larger tiles recompute less halo and
// re-read less input but need larger buffers; the model picks, among a
// small family of candidate shapes, the cheapest whose intermediates fit
// the cache budget and that leaves work for every core.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_FUSIONTILING_H
#define TESSEL_PASSES_COSTMODEL_FUSIONTILING_H

#include "passes/CostModel/MatmulTiling.h"

#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mlir::tessel {

/// What one tile of a fused group costs, as the group's analysis reports it
/// for a candidate tile of the root's loops.
struct GroupTileCost {
  /// Arithmetic ops executed for the tile, halo recomputation included.
  double work = 0;
  /// Bytes read from tensors produced outside the group (halos included).
  double inputBytes = 0;
  /// Contiguous runs those reads make (a tile's slice of a row-major
  /// tensor is one run per row it does not cover whole).
  double inputRuns = 0;
  /// Each such read: its bytes and the bytes of each of its runs.
  SmallVector<std::pair<double, double>> inputReads;
  /// Bytes of the root's results the tile writes.
  double outputBytes = 0;
  /// Bytes of the tile-sized buffers holding the producers' results.
  int64_t intermediateBytes = 0;
  /// Bytes of the distinct input slices the tile reads (each input once,
  /// however many ops read it): with the intermediates, the tile's working
  /// set.
  int64_t distinctInputBytes = 0;
};

/// The root's loop nest as the model sees it.
struct FusionProblem {
  /// Extent of every root loop.
  SmallVector<int64_t> extents;
  /// Which root loops may be tiled (the parallel ones).
  SmallVector<bool> tileable;
  /// Arithmetic ops per root iteration of the whole group without fusion
  /// (each op once over its own domain), the baseline for "recomputed".
  double unfusedWork = 0;
  /// Bytes of one element of the vector unit (to keep the innermost tile a
  /// whole number of vectors).
  int64_t elementBytes = 4;
  /// Cost of a candidate tile; std::nullopt when it cannot be evaluated.
  std::function<std::optional<GroupTileCost>(ArrayRef<int64_t>)> costOf;
};

struct FusionTiling {
  /// Tile size per root loop (0: not tiled).
  SmallVector<int64_t> tileSizes;
  GroupTileCost perTile;
  int64_t tiles = 0;
  /// Work of all tiles over the unfused work, minus one.
  double recomputedFraction = 0;
  std::string rationale;
};

/// What the model reads of the machine that runs the tiles: a CPU's cores
/// (each tile's intermediates in its L2) or a GPU's thread blocks (each in
/// shared memory).
struct FusionTarget {
  /// The innermost tile is a multiple of this many bytes of elements: four
  /// CPU vectors, or one 4-byte access per lane of a GPU warp (coalesced).
  /// Not where a tile of one iteration of each tileable loop reads almost
  /// all its bytes in runs at least this long (its writes and shorter reads
  /// at most 1/quantum of them): then the traffic does not run along the
  /// innermost tileable loop (a logsumexp's 1-D root, whose rows the
  /// producers' reductions read).
  int64_t quantumBytes = 0;
  /// Bytes a tile's intermediates may take.
  int64_t bufferBudget = 0;
  /// Tiles that run at once: cores, or SMs x resident blocks.
  int64_t parallelUnits = 1;
  /// Arithmetic the machine could do per byte it waits for from memory.
  double workPerByte = 4.0;
  /// Bytes each contiguous run of input costs on top of its own: the line
  /// a hardware stream prefetcher misses before it follows a new stream.
  /// 0: runs are free (a GPU's coalesced loads have no such training).
  int64_t runStartBytes = 0;
  /// The cache a tile's working set (intermediates and input slices)
  /// should fit for the intermediates' writes and re-reads to be cheapest
  /// (a CPU's L1), and the arithmetic each byte of that traffic costs in it
  /// and beyond it (in L2). fastCacheBytes 0: the traffic is not costed
  /// (a GPU's intermediates live in shared memory whatever the tile).
  int64_t fastCacheBytes = 0;
  double reuseWorkPerByteFast = 0, reuseWorkPerByteSlow = 0;
  std::string fastCacheName;
  /// How remarks name the budget and the parallel units.
  std::string budgetName, unitName;
};

FusionTarget cpuFusionTarget(const CPUModelParams &params);
/// A GPU: tiles are thread blocks, their intermediates in shared memory.
FusionTarget gpuFusionTarget(int64_t smCount, int64_t smemPerBlock,
                             int64_t warpSize);

/// Picks the root's tile sizes. Returns false with `why` set when no
/// candidate fits (then the group should not be fused).
bool computeFusionTiling(const FusionTarget &target,
                         const FusionProblem &problem, FusionTiling &result,
                         std::string &why);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_FUSIONTILING_H

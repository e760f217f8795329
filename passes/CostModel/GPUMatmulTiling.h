//===- GPUMatmulTiling.h - Block, warp and pipeline sizes for GPU matmul --===//
//
// The analytical model behind tessel-map-matmul-to-gpu: a tensor-core matmul
// kernel is a grid of blocks, each computing a blockM x blockN tile of C
// with warpsM x warpsN warps, each warp a grid of 16x16 accumulator
// fragments, reading blockK-deep slices of A and B that `stages` shared-
// memory buffers keep in flight. Every size follows from the target
// description (SMs, shared memory, registers, tensor-core and memory
// throughputs); candidates are scored by an estimate of the kernel's cycles,
// not by running them.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_GPUMATMULTILING_H
#define TESSEL_PASSES_COSTMODEL_GPUMATMULTILING_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::tessel {

/// The PTX limit on registers per thread.
inline constexpr int64_t kPTXMaxRegistersPerThread = 255;

/// Facts shared by the models of the kernels built on
/// Utils/GPUMatmulKernel's launch and cp.async ring (tensor-core and SIMT):
/// registers the estimate leaves ptxas below the PTX limit (to schedule the
/// unrolled k step without spilling); warp schedulers per SM (sm_70 to
/// sm_90), each with its own tensor core and f32 lanes; fixed cycles per k
/// tile for the wait, the barrier (and the warps' skew at it) and issuing
/// the copies (an assumption, not a measurement; it makes deeper k tiles
/// win where everything else is equal); the 128-byte wavefronts in which
/// shared memory serves a warp; and the static shared memory the lowering
/// adds before the dynamic buffer (the NVPTX backend turns
/// gpu.dynamic_shared_memory's symbol into a small static variable; ptxas
/// reports 1 byte, aligned to 16), kept free so a block's total stays
/// within the limit.
inline constexpr int64_t kGPURegisterHeadroom = 24;
inline constexpr int64_t kGPUSubPartitions = 4;
inline constexpr int64_t kGPUTileOverheadCycles = 64;
inline constexpr int64_t kGPUWavefrontBytes = 128;
inline constexpr int64_t kGPUStaticSharedBytes = 128;

/// What the model reads from #tessel.target.
struct GPUModelParams {
  int64_t smCount = 0, smemPerBlock = 0, registersPerBlock = 0, warpSize = 0,
          maxThreadsPerBlock = 0;
  /// Per SM and cycle.
  int64_t mmaFmaPerCycle = 0, mmaF64FmaPerCycle = 0, simtFmaPerCycle = 0,
          simtF64FmaPerCycle = 0, smemBytesPerCycle = 0, l2BytesPerCycle = 0;
  /// The SM's share of device-memory bandwidth; 0 when the target lacks it.
  int64_t dramBytesPerCycle = 0;
  int64_t memoryLatency = 0;
  /// The device's L2 cache, bytes (0: unknown).
  int64_t l2Bytes = 0;
};

/// What one more kernel launch on the stream costs a product (the split-k
/// reduction, a transpose before wgmma): launch and the gap between two
/// kernels, a few microseconds (about 10000 cycles at 1.7-2 GHz; device
/// temporaries come from the runtime's cache, not cuMemAlloc). An
/// assumption, not measured yet.
inline constexpr double kGPUExtraKernelCycles = 10000;

/// Split-k: a C tile's k tiles shared out among `kSplits` blocks, each
/// writing its partial sums to a workspace that a second kernel adds up
/// (and applies the start value, C's contents and the epilogue to). Only
/// for accumulators of 4 bytes or more (f32, i32, f64): the partials keep
/// the accumulators' precision, where f16 partials would round each sum. The
/// models try 1 to kGPUMaxKSplits ways.
inline constexpr int64_t kGPUMaxKSplits = 16;
/// The largest grid y (CUDA, and HIP's limit is larger).
inline constexpr int64_t kGPUMaxGridY = 65535;

/// One warp-wide matrix instruction (gpu.subgroup_mma_*): WMMA m16n16k16
/// for f16 and i8, m8n8k4 for f64 (DMMA).
struct MmaInstruction {
  int64_t m = 16, n = 16, k = 16;
  /// 32-bit registers one thread holds of an A (or B) fragment, and of an
  /// accumulator fragment (PTX ISA, "Matrix Fragments for WMMA").
  int64_t abRegisters = 8, cRegisters = 8;
  /// Bytes every row a fragment load or store touches must be aligned to:
  /// the thread's fragment size (PTX ISA, "Matrix Storage for WMMA").
  int64_t abAlignment = 32, cAlignment = 32;
  /// Tensor-core rate relative to 16-bit inputs (8-bit inputs: 2).
  int64_t rateFactor = 1;
  /// f64 (m8n8k4): the rate is the target's mma_f64_fma_per_cycle instead.
  bool f64 = false;
  /// Candidate fragments per warp along each of m and n go up to this (the
  /// warps per block side stay 1, 2 or 4), and k tiles up to maxKSteps
  /// instruction steps deep: an m8n8k4 fragment holds a quarter of an
  /// m16n16k16 one's elements, so its warp tiles take more (8x4 at most:
  /// 8x8 would need 256 accumulator registers).
  int64_t maxFragmentsPerWarp = 4, maxKSteps = 2;
  /// Which hardware runs it: NVIDIA's WMMA (gpu.subgroup_mma lowered by
  /// upstream to NVVM), or an AMD matrix instruction that
  /// tessel-lower-mma-to-amdgpu substitutes for the same ops: CDNA's MFMA
  /// (64-lane wavefronts) or RDNA3's WMMA (32 lanes).
  enum class Unit { NvidiaWmma, AmdMfma, AmdWmma } unit = Unit::NvidiaWmma;
  /// Lanes that execute one instruction together.
  int64_t lanes = 32;
  bool amd() const { return unit != Unit::NvidiaWmma; }
};

/// The WMMA instruction for f16 (2-byte) or i8 (1-byte) inputs and 4- or
/// 2-byte accumulators, or f64 (8-byte) inputs and accumulators; false when
/// there is none.
bool getWmmaInstruction(int64_t inputBytes, int64_t accBytes,
                        MmaInstruction &mma);

/// The AMD matrix instruction of `family` ("mfma": CDNA, gfx9; "wmma":
/// RDNA3, gfx11) for f16 x f16 -> f32 or i8 x i8 -> i32 (inputBytes 2 or
/// 1, accBytes 4), 16x16x16 in either case; false when there is none.
bool getAmdMatrixInstruction(llvm::StringRef family, int64_t inputBytes,
                             int64_t accBytes, MmaInstruction &mma);

/// The tensor-core multiply-adds per SM and cycle for `mma`'s inputs (0:
/// the target gives no rate for them).
int64_t tensorCoreRate(const GPUModelParams &target, const MmaInstruction &mma);

/// C(batch x m x n) += A(batch x m x k) * B(batch x k x n).
struct GPUMatmulProblem {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t inputBytes = 2, accBytes = 4;
  /// A is stored k-major (its rows run along m) and B n-major (rows along
  /// k): the shared-memory tiles keep the global layout.
  bool aTransposed = false, bTransposed = false;
  /// A's (B's) rows are not aligned for cp.async: each thread loads its
  /// 16-byte pieces element by element.
  bool aSynchronous = false, bSynchronous = false;
  /// The product adds onto C's contents (no fill to start from): a split-k
  /// reduction reads C once more.
  bool accumulatesOntoC = false;
};

/// A shared-memory tile: `rows` rows of `cols` elements, each row padded to
/// `stride` elements so that fragment rows stay aligned and successive rows
/// start in different banks.
struct SharedTile {
  int64_t rows = 0, cols = 0, stride = 0;
  /// How many times more often a fragment read (by default eight 16-byte
  /// row pieces, one ldmatrix phase) hits its busiest 16-byte bank group
  /// than the fewest 128-byte wavefronts it needs would: 1 is
  /// conflict-free.
  int64_t conflictWays = 1;
  int64_t elements() const { return rows * stride; }
};

/// The row stride (elements) for rows of `cols` elements of `elementBytes`
/// bytes whose starts must be aligned to `alignment` bytes (at least 16, the
/// width of one asynchronous copy): the padding that spreads one fragment
/// read, `readRows` successive rows of `readRowBytes` bytes each (by
/// default eight rows of 16 bytes, an ldmatrix phase), over the 16-byte
/// bank groups most evenly, the least padding among equals.
SharedTile planSharedTile(int64_t rows, int64_t cols, int64_t elementBytes,
                          int64_t alignment, int64_t readRows = 8,
                          int64_t readRowBytes = 16);

struct GPUMatmulTiling {
  int64_t blockM = 0, blockN = 0, blockK = 0;
  int64_t warpsM = 0, warpsN = 0;
  int64_t stages = 0;
  /// Blocks are launched in groups of `groupM` block rows, so that the
  /// blocks running at once share A rows and B columns in L2.
  int64_t groupM = 1;
  /// One pipeline stage's A and B tiles, and the accumulator tile the
  /// epilogue stages C through (it reuses the pipeline's bytes).
  SharedTile aTile, bTile, cTile;
  int64_t smemBytes = 0;
  int64_t registersPerThread = 0;
  int64_t blocksPerSM = 0;
  double estimatedCycles = 0;
  /// Blocks per C tile, each summing ceil(k tiles / kSplits) of the k
  /// tiles (1: no split-k).
  int64_t kSplits = 1;
  /// The split-k reduction kernel's share of estimatedCycles.
  double reductionCycles = 0;
  /// Why each size, for the remark.
  std::string rationale;

  int64_t warps() const { return warpsM * warpsN; }
  int64_t fragmentsM(const MmaInstruction &mma) const {
    return blockM / warpsM / mma.m;
  }
  int64_t fragmentsN(const MmaInstruction &mma) const {
    return blockN / warpsN / mma.n;
  }
  /// Bytes from the start of the shared buffer to B's stages.
  int64_t bStagesOffset(int64_t inputBytes) const {
    return stages * aTile.elements() * inputBytes;
  }
};

/// Non-zero fields replace the model's choice.
struct GPUMatmulOverrides {
  int64_t blockM = 0, blockN = 0, blockK = 0, warpsM = 0, warpsN = 0,
          stages = 0;
  /// 1: no split-k.
  int64_t kSplits = 0;

  bool any() const {
    return blockM || blockN || blockK || warpsM || warpsN || stages || kSplits;
  }
};

/// The split counts to try for `kTiles` k tiles: the override alone (where
/// whyNoKSplit allows it), or 1 to kGPUMaxKSplits, leaving out counts that
/// would give a split no k tiles (ceil(kTiles / splits) each) and any
/// above 1 unless the accumulators are 4 bytes.
llvm::SmallVector<int64_t> kSplitCandidates(const GPUMatmulProblem &problem,
                                            int64_t kTiles,
                                            int64_t overrideSplits);

/// Why `problem` cannot be split `splits` ways (below 1, above the grid's
/// y limit, or above 1 with accumulators other than 4 bytes); empty when it
/// can.
std::string whyNoKSplit(const GPUMatmulProblem &problem, int64_t splits);

/// The split-k reduction kernel: it reads `splits` partial C's (and C, when
/// the product accumulates onto it) and writes C once, at L2's rate where the
/// partials fit in half of L2 (they were just written), at the device-memory
/// rate otherwise; plus one memory latency and kGPUExtraKernelCycles for its
/// launch.
double estimateSplitKReductionCycles(const GPUModelParams &target,
                                     const GPUMatmulProblem &problem,
                                     int64_t splits);

/// The remark's words on a split of k tiles of `blockK` into `kSplits`
/// ("; k split 4 ways (...)"), empty without one.
std::string describeKSplit(int64_t kSplits, double reductionCycles,
                           int64_t blockK, const GPUMatmulProblem &problem);

struct GPUMatmulTiling;
/// The tie-break among equal estimates: fewer splits of k, the larger
/// block tile (fewer blocks, less traffic), then the smaller shared-memory
/// footprint, then more stages (free where the epilogue's C tile sets the
/// footprint; they absorb latency the estimate does not see).
bool preferredOnTie(const GPUMatmulTiling &candidate,
                    const GPUMatmulTiling &best);

/// Whether a candidate estimated at `cycles` replaces the best so far
/// (`bestCycles`; none when `!found`): fewer cycles, or as many within
/// rounding and `preferredOnTie` by the model's tie-break.
inline bool beatsBestEstimate(bool found, double cycles, double bestCycles,
                              bool preferredOnTie) {
  return !found || cycles < bestCycles * (1 - 1e-9) ||
         (cycles <= bestCycles * (1 + 1e-9) && preferredOnTie);
}

/// Every figure the GPU matmul models share is in the target description;
/// false with `why` naming the first one missing. Each model checks its
/// own arithmetic rate (the SIMT kernel's needs no tensor cores).
bool hasGPUModelFigures(const GPUModelParams &target, std::string &why);

/// The tensor cores' rate (mma_fma_per_cycle, or mma_f64_fma_per_cycle for
/// an f64 instruction) is in the target description; false with `why`
/// saying it is not.
bool hasTensorCoreRate(const GPUModelParams &target, std::string &why,
                       const MmaInstruction &mma = MmaInstruction());

/// Chooses the sizes. False with `why` set when the target lacks a figure
/// the model needs or no candidate fits the overrides and the limits.
bool computeGPUMatmulTiling(const GPUModelParams &target,
                            const MmaInstruction &mma,
                            const GPUMatmulProblem &problem,
                            const GPUMatmulOverrides &overrides,
                            GPUMatmulTiling &tiling, std::string &why);

/// Scores `candidate` at each split count kSplitCandidates gives for
/// `kTiles` k tiles, and keeps the ones that beat the best so far (`best`,
/// its estimate `bestEstimate`; `found` once there is one). Shared by the
/// WMMA, SIMT and wgmma models, whose estimates differ but rank alike.
template <typename Tiling, typename Estimate, typename EstimateFn>
void keepBestOverKSplits(const GPUMatmulProblem &problem, int64_t kTiles,
                         int64_t overrideSplits, Tiling candidate,
                         EstimateFn estimate, bool &found, Tiling &best,
                         Estimate &bestEstimate) {
  for (int64_t splits : kSplitCandidates(problem, kTiles, overrideSplits)) {
    candidate.kSplits = splits;
    Estimate e = estimate(candidate);
    if (e.blocksPerSM < 1)
      continue;
    if (beatsBestEstimate(found, e.cycles, bestEstimate.cycles,
                          preferredOnTie(candidate, best))) {
      found = true;
      best = candidate;
      bestEstimate = e;
    }
  }
}

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_GPUMATMULTILING_H

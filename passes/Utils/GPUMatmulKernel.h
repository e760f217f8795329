//===- GPUMatmulKernel.h - A tensor-core matmul as one gpu.launch -*- C++
//-*-===//
//
// Builds the kernel that tessel-map-matmul-to-gpu substitutes for a matmul on
// memrefs, from the sizes GPUMatmulTiling chose:
//
//   gpu.launch (blocks of C tiles, warpsM x warpsN warps per block; with
//   split-k, kSplits blocks per tile, each over a share of the k tiles,
//   writing partial C's that a second, elementwise kernel adds up)
//     ring of `stages` shared-memory buffers of A and B tiles, filled with
//     asynchronous copies (nvgpu.device_async_copy, cp.async) issued
//     stages - 1 k tiles ahead and zero-filled past the matrix edges;
//     scf.for over k tiles carrying the warp's 16x16 accumulators
//     (gpu.subgroup_mma_*: WMMA);
//     epilogue: accumulators staged through shared memory, then written to
//     C with 16-byte stores, guarded at the edges.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GPUMATMULKERNEL_H
#define TESSEL_PASSES_UTILS_GPUMATMULKERNEL_H

#include "passes/CostModel/GPUMatmulTiling.h"
#include "passes/CostModel/GPUSimtMatmulTiling.h"
#include "passes/CostModel/GPUWgmmaTiling.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tessel {

/// An elementwise op applied to C's tile before it is stored, instead of a
/// separate pass over C: its body runs on the accumulators (block argument
/// `cInput`) and on its other inputs read at the same positions; its result
/// goes to `output`, which has C's shape and dimensions (a convolution's:
/// its loops are the output's (image, oh, ow, f)). Its maps are
/// identities for C and the output, and, for the other inputs, results
/// that are loop dimensions in increasing order (a bias over n, a scale
/// over m, a residual over (m, n), a scalar).
struct GPUMatmulEpilogue {
  linalg::GenericOp op;
  unsigned cInput = 0;
  Value output;
  /// Bytes the output's rows are aligned to (16, 8, 4, or 0).
  int64_t outputRowAlignment = 0;
};

/// A convolution whose A is read through its input (implicit GEMM): an NHWC
/// input [n, h, w, c] and an HWCF filter. Row r of A is the output pixel
/// (image, oh, ow) = (r / (oh·ow), r / ow mod oh, r mod ow), column k the
/// tap and channel (kh, kw, ch) = (k / (kw·c), k / c mod kw, k mod c), and
/// A(r, k) = input[image, oh·sh + kh·dh, ow·sw + kw·dw, ch]; no patch is
/// ever copied.
struct GPUConvolution {
  Value input;
  int64_t c = 0, outH = 0, outW = 0, kernelW = 0;
  int64_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
};

/// A matmul's operands as the kernel reads them. A is [batch?] x (m, k), or
/// (k, m) when `aTransposed`; B is [batch?] x (k, n), or (n, k) when
/// `bTransposed`; C is [batch?] x (m, n). An operand without the batch
/// dimension is shared by every batch. Each memref has static sizes, a
/// static unit innermost stride and static row strides.
struct GPUMatmulOperands {
  Value a, b, c;
  bool aTransposed = false, bTransposed = false;
  bool aBatched = false, bBatched = false, cBatched = false;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// Elements per asynchronous copy of A and of B (16, 8 or 4 bytes'
  /// worth): the widest that keeps every copy's global address aligned; 0:
  /// rows are not 4-byte aligned, so copies are synchronous loads.
  int64_t aCopyElements = 0, bCopyElements = 0;
  /// C's rows are 16-byte aligned, so 16-byte stores may write them.
  bool cRowsAligned = false;
  /// False on targets without cp.async (AMD): every copy is a synchronous
  /// load, 16 bytes at once where `aCopyElements` (`bCopyElements`) says
  /// the rows allow it and the piece lies inside the matrix.
  bool asyncCopies = true;
  /// The scalar C starts from (a folded linalg.fill); null: accumulate onto
  /// C's contents.
  Value init;
  /// Applied to the result before it is stored; null op: C is stored.
  GPUMatmulEpilogue epilogue;
  /// Set: A is a convolution's patches, read through its input (`a` is
  /// then that input).
  std::optional<GPUConvolution> conv;
  /// Split-k (the tiling's kSplits > 1): the partial C's, [kSplits * batch,
  /// m, n] of the accumulator type, contiguous and 16-byte aligned; block
  /// (batch b, split s) writes partial s * batch + b.
  Value partials;
};

/// Replaces nothing: inserts the kernel at the rewriter's insertion point
/// and returns it.
gpu::LaunchOp buildGPUMatmulKernel(RewriterBase &rewriter, Location loc,
                                   const GPUMatmulOperands &operands,
                                   const GPUMatmulTiling &tiling,
                                   const MmaInstruction &mma, int64_t warpSize);

/// Split-k's second kernel: C (or the epilogue's output) = the start value
/// (the fill's, or C's contents) + the sum of the `kSplits` partial C's in
/// `operands.partials`, through the epilogue. Inserted at the rewriter's
/// insertion point, after the product kernel.
gpu::LaunchOp buildGPUSplitKReduction(RewriterBase &rewriter, Location loc,
                                      const GPUMatmulOperands &operands,
                                      int64_t kSplits);

/// The f32 form, on the SIMT cores (tensor cores would round f32 inputs to
/// TF32): the same launch, copy ring and epilogue, with each thread
/// accumulating a threadM x threadN tile of C in registers by scalar FMAs
/// from 16-byte shared-memory reads.
gpu::LaunchOp buildGPUSimtMatmulKernel(RewriterBase &rewriter, Location loc,
                                       const GPUMatmulOperands &operands,
                                       const GPUSimtMatmulTiling &tiling);

/// The Hopper (sm_90a) form of the same kernel, unbatched, C starting from
/// zero, A given as (m, k): f16 x f16 -> f32 with B given as (k, n) or
/// (n, k), or i8 x i8 -> i32 with B given as (n, k) (8-bit wgmma reads both
/// operands K-major):
///
///   host: TMA descriptors of A and B (boxes of 64 rows of 128 bytes,
///     128-byte swizzle, zero fill past the edges: partial tiles need no
///     guards);
///   gpu.launch (blocks of C tiles, `warpgroups` x 128 threads)
///     a ring of `stages` A and B tiles in shared memory, started on a
///     1024-byte boundary, one mbarrier per stage; thread 0 issues the TMA
///     loads of k tile kt + stages - 1 once every warpgroup has finished
///     reading the stage they overwrite;
///     scf.for over k tiles: wait for the stage's mbarrier phase, then one
///     wgmma group (B as (k, n): nvgpu.warpgroup.mma; B as (n, k): four
///     nvvm.wgmma.mma_async per 64-row slab, m64nNk16 f16 or m64nNk32 s8,
///     on descriptors the kernel encodes), at most one group left in
///     flight;
///     epilogue: the accumulators staged through shared memory, then the
///     WMMA kernel's guarded 16-byte stores and fused epilogue.
gpu::LaunchOp buildGPUWgmmaMatmulKernel(RewriterBase &rewriter, Location loc,
                                        const GPUMatmulOperands &operands,
                                        const GPUWgmmaTiling &tiling);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GPUMATMULKERNEL_H

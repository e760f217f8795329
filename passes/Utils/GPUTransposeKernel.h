//===- GPUTransposeKernel.h - A transpose as one gpu.launch ---*- C++ -*-===//
//
// Builds a kernel that writes dst = transpose(src) for 2-D memrefs, used
// where an operand's layout is not one a tensor-core instruction reads
// (8-bit wgmma reads B only K-major, so an i8 B given as (k, n) is
// transposed to (n, k) first):
//
//   gpu.launch (one block of 256 threads per 64x64 tile of src)
//     each thread loads a 16-byte piece of one of the tile's rows into
//     shared memory (a warp reads 8 whole 64-byte row pieces), then
//     gathers 16 bytes of one column of it and stores them as a 16-byte
//     piece of a row of dst (a warp writes the same piece of 32 rows: half
//     sectors, which the other three warps complete in L2).
//
// Neither pass over shared memory has bank conflicts: the stores are whole
// rows, and the reads of a warp are consecutive bytes of one row. Only
// 1-byte elements (what 8-bit wgmma needs) are taken so far.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GPUTRANSPOSEKERNEL_H
#define TESSEL_PASSES_UTILS_GPUTRANSPOSEKERNEL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::tessel {

/// Why `src` (rows x cols) cannot be transposed into a contiguous (cols x
/// rows) buffer by buildGPUTransposeKernel, or empty when it can: a 2-D
/// memref of 1-byte elements with static sizes, rows of both matrices
/// whole 16-byte pieces, src's rows 16-byte aligned, and at most 65535 row
/// tiles (the grid's y limit).
std::string checkGPUTransposable(MemRefType src);

/// Inserts the kernel at the rewriter's insertion point and returns it.
/// `dst` is a contiguous (cols x rows) memref with src's element type,
/// 16-byte aligned; checkGPUTransposable(src) must have returned empty.
/// The launch carries the unit attribute kGPUTransposeKernelAttr, so that
/// later passes (tessel-fold-constant-transposes) can find it.
gpu::LaunchOp buildGPUTransposeKernel(RewriterBase &rewriter, Location loc,
                                      Value src, Value dst);

/// Marks the launches buildGPUTransposeKernel makes.
inline constexpr llvm::StringLiteral kGPUTransposeKernelAttr =
    "tessel.transpose_kernel";

/// The (src, dst) that `launch`, made by buildGPUTransposeKernel and not
/// changed since, transposes; nullopt for any other launch.
std::optional<std::pair<Value, Value>>
matchGPUTransposeKernel(gpu::LaunchOp launch);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GPUTRANSPOSEKERNEL_H

//===- GPUTransposeKernel.h - A transpose as one gpu.launch ---*- C++ -*-===//
//
// Builds a kernel that writes dst = transpose(src) for 2-D memrefs, used
// where an operand's layout is not one a tensor-core instruction reads
// (8-bit wgmma reads B only K-major, so an i8 B given as (k, n) is
// transposed to (n, k) first):
//
//   gpu.launch (one block of 256 threads per 64x64 tile of src)
//     each thread loads 16-byte pieces of the tile's rows (coalesced) into
//     shared memory, then gathers 16 bytes of one column of it and stores
//     them as a piece of a row of dst (coalesced per 64-byte row piece).
//
// Both passes over shared memory are free of bank conflicts: the stores
// are whole rows, and the reads of a warp are consecutive bytes of one row.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GPUTRANSPOSEKERNEL_H
#define TESSEL_PASSES_UTILS_GPUTRANSPOSEKERNEL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"

#include <string>

namespace mlir::tessel {

/// Why `src` (rows x cols) cannot be transposed into a contiguous (cols x
/// rows) buffer by buildGPUTransposeKernel, or empty when it can: elements
/// of 1 or 2 bytes, static sizes, rows of both matrices whole 16-byte
/// pieces and src's rows 16-byte aligned, and at most 65535 row tiles (the
/// grid's y limit).
std::string checkGPUTransposable(MemRefType src);

/// Inserts the kernel at the rewriter's insertion point and returns it.
/// `dst` is a contiguous (cols x rows) memref with src's element type,
/// 16-byte aligned; checkGPUTransposable(src) must have returned empty.
gpu::LaunchOp buildGPUTransposeKernel(RewriterBase &rewriter, Location loc,
                                      Value src, Value dst);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GPUTRANSPOSEKERNEL_H

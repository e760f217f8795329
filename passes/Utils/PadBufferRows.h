//===- PadBufferRows.h - Line-aligned rows for local buffers -*- C++ -*-===//
//
// A tile buffer whose rows are not a whole number of cache lines long
// (a fused stencil's 20x2044 f32 buffer: 8176-byte rows) starts most rows
// in the middle of a line, so almost every full-vector load and store of
// those rows touches two lines. Allocating each row a few elements longer
// (2048) puts every row at a line boundary; the buffer is then used
// through a subview of the original sizes, whose strided type is
// propagated to the subviews that read it.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_PADBUFFERROWS_H
#define TESSEL_PASSES_UTILS_PADBUFFERROWS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir::tessel {

/// The innermost extent `alloc`'s rows get so that each is a whole number
/// of `lineBytes`, or std::nullopt with `why` set when the buffer is left as
/// it is: not a static identity-layout buffer of rank >= 2 with an
/// int/float element of a whole number of bytes, rows already whole lines
/// (`why` empty), rows shorter than `minRowLines` lines (padding would
/// waste more than one line in that many), or a use that needs the
/// buffer's contiguous layout (anything but subviews, loads, stores,
/// vector transfers, memref.dim/copy/dealloc and linalg ops).
std::optional<int64_t> paddedRowExtent(Operation *alloc, int64_t lineBytes,
                                       int64_t minRowLines, std::string &why);

/// Re-allocates `alloc` (memref.alloc or memref.alloca) with innermost
/// extent `paddedExtent` and at least `lineBytes` alignment, replaces it
/// by a subview of its original shape, and rebuilds the subviews that
/// used it with the strided types this implies. Check with
/// paddedRowExtent first.
void padBufferRows(RewriterBase &rewriter, Operation *alloc,
                   int64_t paddedExtent, int64_t lineBytes);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_PADBUFFERROWS_H

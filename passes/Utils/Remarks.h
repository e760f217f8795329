//===- Remarks.h - Shared wording of optimization remarks ------*- C++ -*-===//
#ifndef TESSEL_PASSES_UTILS_REMARKS_H
#define TESSEL_PASSES_UTILS_REMARKS_H

#include <cstdint>
#include <string>

namespace mlir::tessel {

/// `bytes` as a remark shows a size: "64 MiB", "96 KiB", "250 KiB", or
/// "4000 B" below a KiB (whole units when exact, else one decimal).
std::string formatBytes(int64_t bytes);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_REMARKS_H

//===- Remarks.cpp - Shared wording of optimization remarks ---------------===//
#include "passes/Utils/Remarks.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

std::string mlir::tessel::formatBytes(int64_t bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto unit = [&](int64_t size, const char *name) {
    if (bytes % size == 0)
      os << bytes / size << " " << name;
    else
      os << llvm::format("%.1f ", double(bytes) / double(size)) << name;
  };
  if (bytes >= (int64_t(1) << 20))
    unit(int64_t(1) << 20, "MiB");
  else if (bytes >= 1024)
    unit(1024, "KiB");
  else
    os << bytes << " B";
  return text;
}

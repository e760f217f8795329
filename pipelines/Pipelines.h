//===- Pipelines.h - Tessel's named per-target pipelines -------*- C++ -*-===//
#ifndef TESSEL_PIPELINES_PIPELINES_H
#define TESSEL_PIPELINES_PIPELINES_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::tessel {

/// The embedded pipeline for `target` ("cpu", "nvgpu", "amdgpu") as one
/// anchored `builtin.module(...)` string; empty for an unknown target.
StringRef getPipelineText(StringRef target);

/// The targets that have a pipeline.
ArrayRef<StringRef> getPipelineTargets();

/// The top-level elements of an anchored pipeline, each re-anchored as
/// `builtin.module(<element>)` so it can run on its own.
SmallVector<std::string> splitPipelineStages(StringRef pipeline);

/// Registers tessel-<target>-pipeline for every target. Idempotent.
void registerPipelines();

} // namespace mlir::tessel

#endif // TESSEL_PIPELINES_PIPELINES_H

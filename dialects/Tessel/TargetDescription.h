//===- TargetDescription.h - Building #tessel.target -----------*- C++ -*-===//
//
// Where a target description comes from: the host (detected when the
// compiler runs) or a preset for a named GPU chip. Passes then override
// single fields from their options.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_DIALECT_TARGETDESCRIPTION_H
#define TESSEL_DIALECT_TARGETDESCRIPTION_H

#include "dialects/Tessel/TesselDialect.h"

#include <string>

namespace mlir::tessel {

/// A mutable mirror of TargetAttr's fields, so presets and overrides compose
/// before the (immutable, uniqued) attribute is built.
struct TargetDescription {
  std::string kind, triple, chip, features;
  int64_t vectorBits = 0, vectorRegisters = 0, cacheLine = 0;
  int64_t l1 = 0, l2 = 0, l3 = 0, cores = 0;
  int64_t smCount = 0, smemPerBlock = 0, registersPerBlock = 0, warpSize = 0,
          maxThreadsPerBlock = 0;
  int64_t mmaFmaPerCycle = 0, mmaF64FmaPerCycle = 0, simtFmaPerCycle = 0,
          simtF64FmaPerCycle = 0, smemBytesPerCycle = 0, l2BytesPerCycle = 0,
          dramBytesPerCycle = 0, memoryLatency = 0;
  /// CPU: the largest row stride (bytes) the hardware prefetcher follows
  /// for streams of short rows; 0: unknown.
  int64_t stridePrefetch = 0;
  SmallVector<std::string> mma;

  /// Builds the attribute; null (after reporting through `emitError`) when
  /// a field is out of range.
  TargetAttr toAttr(MLIRContext *ctx,
                    function_ref<InFlightDiagnostic()> emitError) const;
};

/// Describes the CPU this compiler runs on: triple, CPU name and features
/// from LLVM's host queries, vector width and register count from the
/// features, cache geometry from sysfs (with conservative fallbacks when it
/// is unreadable, e.g. in containers), cores from the affinity mask.
TargetDescription detectHostCPU();

/// The preset for `kind`/`chip`; an empty chip picks the kind's default
/// (the host for cpu, sm_80 for nvgpu, gfx90a for amdgpu). Fails with a
/// message naming the chip when it is unknown.
FailureOr<TargetDescription> getTargetPreset(StringRef kind, StringRef chip,
                                             std::string &error);

/// Bytes one `element` takes in memory on Tessel's targets: index as i64
/// (they are 64-bit), i1 a whole byte, complex<T> two T; 0 for types
/// without a memory layout here.
int64_t storageBytes(Type element);

} // namespace mlir::tessel

#endif // TESSEL_DIALECT_TARGETDESCRIPTION_H

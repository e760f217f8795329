//===- TesselDialect.cpp - Tessel dialect ---------------------------------===//
#include "dialects/Tessel/TesselDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tessel;

#include "dialects/Tessel/TesselDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Tessel/TesselAttrs.cpp.inc"

void TesselDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Tessel/TesselAttrs.cpp.inc"
      >();
}

LogicalResult TargetAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef kind,
    StringRef triple, StringRef chip, StringRef features, int64_t vectorBits,
    int64_t vectorRegisters, int64_t cacheLine, int64_t l1, int64_t l2,
    int64_t l3, int64_t cores, int64_t smCount, int64_t smemPerBlock,
    int64_t registersPerBlock, int64_t warpSize, int64_t maxThreadsPerBlock,
    int64_t mmaFmaPerCycle, int64_t mmaF64FmaPerCycle, int64_t simtFmaPerCycle,
    int64_t simtF64FmaPerCycle, int64_t smemBytesPerCycle,
    int64_t l2BytesPerCycle, int64_t dramBytesPerCycle, int64_t memoryLatency,
    int64_t stridePrefetch, ArrayAttr mma) {
  if (kind != "cpu" && kind != "nvgpu" && kind != "amdgpu")
    return emitError() << "unknown target kind '" << kind
                       << "' (expected cpu, nvgpu or amdgpu)";
  std::pair<StringRef, int64_t> sizes[] = {
      {"vector_bits", vectorBits},
      {"vector_registers", vectorRegisters},
      {"cache_line", cacheLine},
      {"l1", l1},
      {"l2", l2},
      {"l3", l3},
      {"cores", cores},
      {"sm_count", smCount},
      {"smem_per_block", smemPerBlock},
      {"registers_per_block", registersPerBlock},
      {"warp_size", warpSize},
      {"max_threads_per_block", maxThreadsPerBlock},
      {"mma_fma_per_cycle", mmaFmaPerCycle},
      {"mma_f64_fma_per_cycle", mmaF64FmaPerCycle},
      {"simt_fma_per_cycle", simtFmaPerCycle},
      {"simt_f64_fma_per_cycle", simtF64FmaPerCycle},
      {"smem_bytes_per_cycle", smemBytesPerCycle},
      {"l2_bytes_per_cycle", l2BytesPerCycle},
      {"dram_bytes_per_cycle", dramBytesPerCycle},
      {"memory_latency", memoryLatency},
      {"stride_prefetch", stridePrefetch}};
  for (auto [name, value] : sizes)
    if (value < 0)
      return emitError() << "target field '" << name
                         << "' must be non-negative, got " << value;
  if (vectorBits % 8 != 0)
    return emitError() << "vector_bits must be a multiple of 8, got "
                       << vectorBits;
  if (cacheLine && !llvm::isPowerOf2_64(cacheLine))
    return emitError() << "cache_line must be a power of two, got "
                       << cacheLine;
  if (mma)
    for (Attribute shape : mma)
      if (!isa<StringAttr>(shape))
        return emitError() << "mma entries must be strings, got " << shape;
  return success();
}

TargetAttr TargetAttr::lookup(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto module = dyn_cast<ModuleOp>(cur))
      if (auto target = module->getAttrOfType<TargetAttr>(
              TesselDialect::getTargetAttrName()))
        return target;
  return {};
}

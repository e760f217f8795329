//===- TesselCAPI.cpp - The C API of libTessel.so -------------------------===//
#include "tessel-c/Tessel.h"
#include "tessel-c/Passes.h"

#include "plugin/Registration.h"
#include "passes/Passes.h"
#include "pipelines/Pipelines.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "llvm/ADT/StringSwitch.h"

#include <deque>
#include <mutex>
#include <string>

using namespace mlir;
using namespace mlir::tessel;

// Per-pass mlirCreateTessel<Pass>/mlirRegisterTessel<Pass>.
#include "passes/Passes.capi.cpp.inc"

void tesselRegisterDialect(MlirDialectRegistry registry) {
  tessel::registerDialect(*unwrap(registry));
}

void tesselRegisterPassesAndPipelines(void) {
  tessel::registerPassesAndPipelines();
}

const char *tesselGetPipeline(const char *target) {
  if (!target)
    return nullptr;
  StringRef text = tessel::getPipelineText(target);
  // Embedded texts are NUL-terminated string literals.
  return text.empty() ? nullptr : text.data();
}

int tesselGetPipelineTargetCount(void) {
  return static_cast<int>(tessel::getPipelineTargets().size());
}

const char *tesselGetPipelineTarget(int index) {
  ArrayRef<StringRef> targets = tessel::getPipelineTargets();
  if (index < 0 || index >= static_cast<int>(targets.size()))
    return nullptr;
  return targets[index].data(); // NUL-terminated literals
}

/// Stage strings are built once per target and kept for the process, so the
/// C caller gets stable pointers.
static const SmallVector<std::string> *getStages(const char *target) {
  static std::mutex mutex;
  static std::deque<std::pair<std::string, SmallVector<std::string>>> cache;
  if (!target || tessel::getPipelineText(target).empty())
    return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &entry : cache)
    if (entry.first == target)
      return &entry.second;
  cache.emplace_back(target,
                     tessel::splitPipelineStages(tessel::getPipelineText(target)));
  return &cache.back().second;
}

int tesselGetPipelineStageCount(const char *target) {
  const SmallVector<std::string> *stages = getStages(target);
  return stages ? static_cast<int>(stages->size()) : 0;
}

const char *tesselGetPipelineStage(const char *target, int index) {
  const SmallVector<std::string> *stages = getStages(target);
  if (!stages || index < 0 || index >= static_cast<int>(stages->size()))
    return nullptr;
  return (*stages)[index].c_str();
}

MlirAttribute tesselModuleGetTarget(MlirModule module) {
  if (mlirModuleIsNull(module))
    return wrap(Attribute());
  return wrap(Attribute(TargetAttr::lookup(unwrap(module))));
}

bool tesselAttributeIsATarget(MlirAttribute attr) {
  return isa_and_nonnull<TargetAttr>(unwrap(attr));
}

MlirStringRef tesselTargetGetKind(MlirAttribute target) {
  auto t = dyn_cast_or_null<TargetAttr>(unwrap(target));
  return t ? wrap(t.getKind()) : MlirStringRef{"", 0};
}

MlirStringRef tesselTargetGetTriple(MlirAttribute target) {
  auto t = dyn_cast_or_null<TargetAttr>(unwrap(target));
  return t ? wrap(t.getTriple()) : MlirStringRef{"", 0};
}

MlirStringRef tesselTargetGetChip(MlirAttribute target) {
  auto t = dyn_cast_or_null<TargetAttr>(unwrap(target));
  return t ? wrap(t.getChip()) : MlirStringRef{"", 0};
}

MlirStringRef tesselTargetGetFeatures(MlirAttribute target) {
  auto t = dyn_cast_or_null<TargetAttr>(unwrap(target));
  return t ? wrap(t.getFeatures()) : MlirStringRef{"", 0};
}

int64_t tesselTargetGetInt(MlirAttribute attr, const char *field) {
  auto target = dyn_cast_or_null<TargetAttr>(unwrap(attr));
  if (!target || !field)
    return -1;
  return llvm::StringSwitch<int64_t>(field)
      .Case("vector_bits", target.getVectorBits())
      .Case("vector_registers", target.getVectorRegisters())
      .Case("cache_line", target.getCacheLine())
      .Case("l1", target.getL1())
      .Case("l2", target.getL2())
      .Case("l3", target.getL3())
      .Case("cores", target.getCores())
      .Case("sm_count", target.getSmCount())
      .Case("smem_per_block", target.getSmemPerBlock())
      .Case("registers_per_block", target.getRegistersPerBlock())
      .Case("warp_size", target.getWarpSize())
      .Case("max_threads_per_block", target.getMaxThreadsPerBlock())
      .Default(-1);
}

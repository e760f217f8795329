//===- TesselPlugin.cpp - Entry points for mlir-opt's plugin loaders ------===//
//
// The same shared library is both a pass plugin and a dialect plugin. Either
// way it registers every pass and the named pipelines (once); the dialect
// plugin entry also adds the tessel dialect, which parsing #tessel.target in
// input needs. Passes that create the attribute load the dialect themselves.
//
//===----------------------------------------------------------------------===//
#include "plugin/Registration.h"

#include "dialects/Tessel/TesselDialect.h"
#include "passes/Passes.h"
#include "pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

#include <mutex>

using namespace mlir;

void tessel::registerPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTesselPasses();
    registerPipelines();
  });
}

void tessel::registerDialect(DialectRegistry &registry) {
  registry.insert<TesselDialect>();
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Tessel", LLVM_VERSION_STRING,
          [] { tessel::registerPassesAndPipelines(); }};
}

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Tessel", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            tessel::registerDialect(*registry);
            tessel::registerPassesAndPipelines();
          }};
}

//===- Registration.h - Everything Tessel registers ------------*- C++ -*-===//
#ifndef TESSEL_PLUGIN_REGISTRATION_H
#define TESSEL_PLUGIN_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace tessel {
/// Registers every Tessel pass and named pipeline with the global registries.
/// Safe to call any number of times (mlir-opt calls it once per way the
/// plugin is loaded).
void registerPassesAndPipelines();
/// Adds the Tessel dialect to `registry`.
void registerDialect(DialectRegistry &registry);
} // namespace tessel
} // namespace mlir

#endif // TESSEL_PLUGIN_REGISTRATION_H

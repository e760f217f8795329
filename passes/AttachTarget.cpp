//===- AttachTarget.cpp - Attach #tessel.target to the module -------------===//
#include "dialects/Tessel/TargetDescription.h"
#include "passes/Passes.h"

#include "llvm/TargetParser/Triple.h"
#include "llvm/TargetParser/X86TargetParser.h"

#define DEBUG_TYPE "tessel-attach-target"

namespace mlir::tessel {
#define GEN_PASS_DEF_ATTACHTARGETPASS
#include "passes/Passes.h.inc"
} // namespace mlir::tessel

using namespace mlir;
using namespace mlir::tessel;

namespace {
struct AttachTargetPass
    : public tessel::impl::AttachTargetPassBase<AttachTargetPass> {
  using Base::Base;

  /// Applies every option the user set on top of the preset.
  void applyOverrides(TargetDescription &desc) const {
    if (!triple.empty())
      desc.triple = triple;
    if (!features.empty())
      desc.features = features;
    auto override = [](int64_t &field, int64_t value) {
      if (value > 0)
        field = value;
    };
    override(desc.vectorBits, vectorBits);
    override(desc.vectorRegisters, vectorRegisters);
    override(desc.cacheLine, cacheLine);
    override(desc.l1, l1);
    override(desc.l2, l2);
    override(desc.l3, l3);
    override(desc.cores, cores);
    override(desc.smCount, smCount);
    override(desc.smemPerBlock, smemPerBlock);
    override(desc.registersPerBlock, registersPerBlock);
    override(desc.warpSize, warpSize);
    override(desc.maxThreadsPerBlock, maxThreadsPerBlock);
    override(desc.mmaFmaPerCycle, mmaFmaPerCycle);
    override(desc.mmaF64FmaPerCycle, mmaF64FmaPerCycle);
    override(desc.simtFmaPerCycle, simtFmaPerCycle);
    override(desc.simtF64FmaPerCycle, simtF64FmaPerCycle);
    override(desc.smemBytesPerCycle, smemBytesPerCycle);
    override(desc.l2BytesPerCycle, l2BytesPerCycle);
    override(desc.dramBytesPerCycle, dramBytesPerCycle);
    override(desc.memoryLatency, memoryLatency);
    override(desc.stridePrefetch, stridePrefetch);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef attrName = TesselDialect::getTargetAttrName();

    if (Attribute existing = module->getAttr(attrName); existing && !force) {
      auto target = dyn_cast<TargetAttr>(existing);
      if (!target) {
        module.emitError() << "'" << attrName
                           << "' must be a #tessel.target, got " << existing;
        return signalPassFailure();
      }
      if (target.getKind() != kind) {
        module.emitError() << "module targets '" << target.getKind()
                           << "' but this pipeline compiles for '" << kind
                           << "'";
        return signalPassFailure();
      }
      return; // The user's own description wins.
    }

    std::pair<StringRef, int64_t> sizes[] = {
        {"vector-bits", vectorBits},
        {"vector-registers", vectorRegisters},
        {"cache-line", cacheLine},
        {"l1", l1},
        {"l2", l2},
        {"l3", l3},
        {"cores", cores},
        {"sm-count", smCount},
        {"smem-per-block", smemPerBlock},
        {"registers-per-block", registersPerBlock},
        {"warp-size", warpSize},
        {"max-threads-per-block", maxThreadsPerBlock},
        {"mma-fma-per-cycle", mmaFmaPerCycle},
        {"mma-f64-fma-per-cycle", mmaF64FmaPerCycle},
        {"simt-fma-per-cycle", simtFmaPerCycle},
        {"simt-f64-fma-per-cycle", simtF64FmaPerCycle},
        {"smem-bytes-per-cycle", smemBytesPerCycle},
        {"l2-bytes-per-cycle", l2BytesPerCycle},
        {"dram-bytes-per-cycle", dramBytesPerCycle},
        {"memory-latency", memoryLatency},
        {"stride-prefetch", stridePrefetch}};
    for (auto [name, value] : sizes)
      if (value < 0) {
        module.emitOpError() << "option '" << name
                             << "' must be positive (0 keeps the preset), got "
                             << value;
        return signalPassFailure();
      }

    std::string error;
    FailureOr<TargetDescription> desc = getTargetPreset(kind, chip, error);
    if (failed(desc)) {
      module.emitError() << error;
      return signalPassFailure();
    }
    applyOverrides(*desc);
    // LLVM would only warn ("not a recognized processor") and schedule for
    // a generic CPU: a misspelt or GPU chip name is an error here.
    // "generic" is what LLVM names a host CPU it does not know.
    llvm::Triple triple(desc->triple);
    if (desc->kind == "cpu" && triple.isX86() && desc->chip != "generic" &&
        llvm::X86::parseArchX86(desc->chip, triple.isArch64Bit()) ==
            llvm::X86::CK_None) {
      module.emitError() << "unknown x86 cpu chip '" << desc->chip
                         << "' (LLVM's names: znver4, sapphirerapids, "
                            "skylake-avx512, x86-64-v4, ...)";
      return signalPassFailure();
    }
    TargetAttr target =
        desc->toAttr(&getContext(), [&] { return module.emitError(); });
    if (!target)
      return signalPassFailure();
    module->setAttr(attrName, target);
  }
};
} // namespace

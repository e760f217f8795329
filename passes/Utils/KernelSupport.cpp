//===- KernelSupport.cpp - What Tessel's CPU kernels accept ---------------===//
#include "passes/Utils/KernelSupport.h"

#include "llvm/TargetParser/Triple.h"

using namespace mlir;

std::string tessel::unsupportedKernelOperandsReason(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return "it does not operate on tensors";
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape())
      return "its shapes are not static";
    if (!type.getElementType().isF32())
      return "its element type is not f32";
  }
  return "";
}

mlir::tessel::CPUModelParams mlir::tessel::cpuModelParams(TargetAttr target) {
  return CPUModelParams{target.getVectorBits(), target.getVectorRegisters(),
                        target.getL1(),         target.getL2(),
                        target.getL3(),         target.getCacheLine(),
                        target.getCores()};
}

bool mlir::tessel::targetEnablesFeature(TargetAttr target, StringRef feature) {
  if (!target)
    return false;
  SmallVector<StringRef> features;
  target.getFeatures().split(features, ',');
  bool enabled = false;
  for (StringRef f : features) {
    f = f.trim();
    if ((f.starts_with("+") || f.starts_with("-")) && f.drop_front() == feature)
      enabled = f.starts_with("+");
  }
  return enabled;
}

bool mlir::tessel::targetHasAVX512Feature(TargetAttr target,
                                          StringRef feature) {
  return target && target.isCPU() && llvm::Triple(target.getTriple()).isX86() &&
         target.getVectorBits() >= 512 && targetEnablesFeature(target, feature);
}

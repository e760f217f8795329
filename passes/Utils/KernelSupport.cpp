//===- KernelSupport.cpp - What Tessel's CPU kernels accept ---------------===//
#include "passes/Utils/KernelSupport.h"

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

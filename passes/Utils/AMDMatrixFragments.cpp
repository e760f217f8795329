//===- AMDMatrixFragments.cpp - Lane layouts of AMD matrix instructions ---===//
#include "passes/Utils/AMDMatrixFragments.h"

using namespace mlir::tessel;

AMDFragmentLayout mlir::tessel::amdFragmentLayout(MmaInstruction::Unit unit,
                                                  llvm::StringRef operand) {
  AMDFragmentLayout l;
  FragmentAxis laneLow{1, 0, 0};
  if (unit == MmaInstruction::Unit::AmdMfma) {
    l.values = 4;
    FragmentAxis quad{0, 4, 1}; // 4 (l / 16) + e
    if (operand == "AOp") {
      l.row = laneLow;
      l.col = quad;
    } else if (operand == "BOp" || operand == "COp") {
      l.row = quad;
      l.col = laneLow;
    } else {
      l.values = 0;
    }
    return l;
  }
  if (unit == MmaInstruction::Unit::AmdWmma) {
    FragmentAxis value{0, 0, 1};
    if (operand == "AOp") {
      l = {16, laneLow, value};
    } else if (operand == "BOp") {
      l = {16, value, laneLow};
    } else if (operand == "COp") {
      l = {8, FragmentAxis{0, 1, 2}, laneLow};
    }
    return l;
  }
  return l;
}

//===- GPUTensorCores.cpp - What tessel-map-matmul-to-gpu can map ---------===//
#include "passes/Utils/GPUTensorCores.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessel;

GPUModelParams mlir::tessel::gpuModelParams(TargetAttr target) {
  GPUModelParams params;
  params.smCount = target.getSmCount();
  params.smemPerBlock = target.getSmemPerBlock();
  params.registersPerBlock = target.getRegistersPerBlock();
  params.warpSize = target.getWarpSize();
  params.maxThreadsPerBlock = target.getMaxThreadsPerBlock();
  params.mmaFmaPerCycle = target.getMmaFmaPerCycle();
  params.simtFmaPerCycle = target.getSimtFmaPerCycle();
  params.smemBytesPerCycle = target.getSmemBytesPerCycle();
  params.l2BytesPerCycle = target.getL2BytesPerCycle();
  params.dramBytesPerCycle = target.getDramBytesPerCycle();
  params.memoryLatency = target.getMemoryLatency();
  return params;
}

std::string mlir::tessel::typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string mlir::tessel::whyNoTensorCoreProduct(TargetAttr target, Type input,
                                                 Type acc, int64_t m, int64_t n,
                                                 int64_t k) {
  if (!target)
    return "the module has no #tessel.target";
  if (target.getKind() != "nvgpu")
    return "the target is '" + target.getKind().str() +
           "', not nvgpu (WMMA tensor cores)";
  // WMMA fragments: no bf16 in MLIR 22, and f32 would round to TF32.
  if (!(input.isF16() && (acc.isF32() || acc.isF16())) &&
      !(input.isInteger(8) && acc.isInteger(32)))
    return "tensor cores take f16 x f16 -> f32 or f16 and i8 x i8 -> i32, "
           "not " +
           typeName(input) + " -> " + typeName(acc);
  std::string shape = "m16n16k16:" + typeName(input) + "x" + typeName(input) +
                      "->" + typeName(acc);
  ArrayAttr shapes = target.getMma();
  if (!shapes || !llvm::any_of(shapes, [&](Attribute s) {
        auto name = dyn_cast<StringAttr>(s);
        return name && name.getValue() == shape;
      }))
    return "the target lists no '" + shape + "' tensor-core shape";
  if (target.getWarpSize() != 32)
    return "WMMA needs 32-lane warps; the target says " +
           std::to_string(target.getWarpSize());
  MmaInstruction mma;
  int64_t inputBytes = input.getIntOrFloatBitWidth() / 8;
  int64_t accBytes = acc.getIntOrFloatBitWidth() / 8;
  if (!getWmmaInstruction(inputBytes, accBytes, mma))
    return "WMMA has no form for these element types";
  GPUMatmulProblem problem;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.inputBytes = inputBytes;
  problem.accBytes = accBytes;
  GPUMatmulTiling tiling;
  std::string why;
  if (!computeGPUMatmulTiling(gpuModelParams(target), mma, problem,
                              GPUMatmulOverrides{}, tiling, why))
    return why;
  return {};
}

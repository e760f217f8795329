//===- GPUTensorCores.cpp - What tessel-map-matmul-to-gpu can map ---------===//
#include "passes/Utils/GPUTensorCores.h"

#include "passes/CostModel/GPUSimtMatmulTiling.h"

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
  params.mmaF64FmaPerCycle = target.getMmaF64FmaPerCycle();
  params.simtFmaPerCycle = target.getSimtFmaPerCycle();
  params.simtF64FmaPerCycle = target.getSimtF64FmaPerCycle();
  params.smemBytesPerCycle = target.getSmemBytesPerCycle();
  params.l2BytesPerCycle = target.getL2BytesPerCycle();
  params.dramBytesPerCycle = target.getDramBytesPerCycle();
  params.memoryLatency = target.getMemoryLatency();
  params.l2Bytes = target.getL2();
  return params;
}

static bool listsShape(ArrayAttr shapes, StringRef shape) {
  return shapes && llvm::any_of(shapes, [&](Attribute s) {
           auto name = dyn_cast<StringAttr>(s);
           return name && name.getValue() == shape;
         });
}

bool mlir::tessel::planF64TensorCoreKernel(
    ArrayAttr shapes, int64_t warpSize, const GPUModelParams &params,
    const GPUMatmulProblem &problem, const GPUMatmulOverrides &overrides,
    MmaInstruction &mma, GPUMatmulTiling &tiling, std::string &why) {
  if (!listsShape(shapes, "m8n8k4:f64xf64->f64")) {
    why = "the target lists no 'm8n8k4:f64xf64->f64' tensor-core shape";
    return false;
  }
  if (warpSize != 32) {
    why =
        "WMMA needs 32-lane warps; the target says " + std::to_string(warpSize);
    return false;
  }
  getWmmaInstruction(8, 8, mma);
  return computeGPUMatmulTiling(params, mma, problem, overrides, tiling, why);
}

std::string mlir::tessel::typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string mlir::tessel::whyNoGPUProductKernel(TargetAttr target, Type input,
                                                Type acc, int64_t m, int64_t n,
                                                int64_t k, bool aSynchronous,
                                                bool bSynchronous,
                                                GPUProductKernel &kernel) {
  if (!target)
    return "the module has no #tessel.target";
  if (target.getKind() != "nvgpu")
    return "the target is '" + target.getKind().str() +
           "', not nvgpu (tessel-map-matmul-to-gpu's kernels)";
  GPUMatmulProblem problem;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  problem.aSynchronous = aSynchronous;
  problem.bSynchronous = bSynchronous;
  std::string why;
  // f32 stays f32: tensor cores would round the inputs to TF32. f64 takes
  // the faster of its tensor-core and SIMT kernels.
  bool f64 = input.isF64() && acc.isF64();
  if ((input.isF32() && acc.isF32()) || f64) {
    problem.inputBytes = problem.accBytes = f64 ? 8 : 4;
    GPUModelParams params = gpuModelParams(target);
    MmaInstruction mma;
    GPUMatmulTiling dmma;
    std::string noDmma;
    bool dmmaFits =
        f64 && planF64TensorCoreKernel(target.getMma(), target.getWarpSize(),
                                       params, problem, GPUMatmulOverrides{},
                                       mma, dmma, noDmma);
    GPUSimtMatmulTiling tiling;
    bool simtFits = computeGPUSimtMatmulTiling(
        params, problem, GPUMatmulOverrides{}, tiling, why);
    if (dmmaFits &&
        (!simtFits || dmma.estimatedCycles < tiling.estimatedCycles)) {
      kernel.unit = "tensor cores";
      kernel.estimatedCycles = dmma.estimatedCycles;
      return {};
    }
    if (!simtFits)
      return (f64 ? "f64 tensor cores not used: " + noDmma
                  : std::string(kNoTF32Reason)) +
             ", and no SIMT kernel fits: " + why;
    kernel.unit = "SIMT cores";
    kernel.estimatedCycles = tiling.estimatedCycles;
    return {};
  }
  // WMMA fragments: no bf16 in MLIR 22.
  if (!(input.isF16() && (acc.isF32() || acc.isF16())) &&
      !(input.isInteger(8) && acc.isInteger(32)))
    return "tensor cores take f16 x f16 -> f32 or f16 and i8 x i8 -> i32, "
           "and the SIMT kernel f32 -> f32 and f64 -> f64, not " +
           typeName(input) + " -> " + typeName(acc);
  std::string shape = "m16n16k16:" + typeName(input) + "x" + typeName(input) +
                      "->" + typeName(acc);
  if (!listsShape(target.getMma(), shape))
    return "the target lists no '" + shape + "' tensor-core shape";
  if (target.getWarpSize() != 32)
    return "WMMA needs 32-lane warps; the target says " +
           std::to_string(target.getWarpSize());
  MmaInstruction mma;
  problem.inputBytes = input.getIntOrFloatBitWidth() / 8;
  problem.accBytes = acc.getIntOrFloatBitWidth() / 8;
  if (!getWmmaInstruction(problem.inputBytes, problem.accBytes, mma))
    return "WMMA has no form for these element types";
  GPUMatmulTiling tiling;
  if (!computeGPUMatmulTiling(gpuModelParams(target), mma, problem,
                              GPUMatmulOverrides{}, tiling, why))
    return why;
  kernel.unit = "tensor cores";
  kernel.estimatedCycles = tiling.estimatedCycles;
  return {};
}

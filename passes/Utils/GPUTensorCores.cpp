//===- GPUTensorCores.cpp - What tessel-map-matmul-to-gpu can map ---------===//
#include "passes/Utils/GPUTensorCores.h"

#include "passes/CostModel/GPUSimtMatmulTiling.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessel;

llvm::StringRef mlir::tessel::amdMatrixFamily(llvm::StringRef chip) {
  if (chip == "gfx908" || chip == "gfx90a" || chip.starts_with("gfx94") ||
      chip == "gfx950")
    return "mfma";
  if (chip.starts_with("gfx11"))
    return "wmma";
  return {};
}

std::string mlir::tessel::whyNoAmdMatrixInstruction(llvm::StringRef chip,
                                                    Type input, Type acc,
                                                    llvm::StringRef &family) {
  family = amdMatrixFamily(chip);
  if (family.empty())
    return ("no matrix-core kernel is built for " + chip +
            " (MFMA for gfx908, gfx90a, gfx94x and gfx950, WMMA for gfx11)")
        .str();
  if (input.isF16() && acc.isF32())
    return {};
  if (input.isInteger(8) && acc.isInteger(32)) {
    if (family == "wmma" || chip == "gfx908" || chip == "gfx90a")
      return {};
    return (chip + " has no 16x16x16 i8 MFMA (its i8 instructions are "
                   "16x16x32 and 32x32x16, which no kernel here uses)")
        .str();
  }
  return "AMD matrix kernels take f16 x f16 -> f32 and i8 x i8 -> i32 (MFMA "
         "has no f16 accumulator)";
}

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

F64KernelChoice mlir::tessel::chooseF64Kernel(
    ArrayAttr shapes, int64_t warpSize, const GPUModelParams &params,
    const GPUMatmulProblem &problem, const GPUMatmulOverrides &overrides,
    StringRef skipTensorCores) {
  F64KernelChoice c;
  bool dmmaFits = false;
  if (!skipTensorCores.empty()) {
    c.noTensorCores = skipTensorCores.str();
  } else if (!listsShape(shapes, "m8n8k4:f64xf64->f64")) {
    c.noTensorCores =
        "the target lists no 'm8n8k4:f64xf64->f64' tensor-core shape";
  } else if (warpSize != 32) {
    c.noTensorCores =
        "WMMA needs 32-lane warps; the target says " + std::to_string(warpSize);
  } else {
    getWmmaInstruction(8, 8, c.mma);
    dmmaFits = computeGPUMatmulTiling(params, c.mma, problem, overrides, c.dmma,
                                      c.noTensorCores);
  }
  c.simtFits =
      computeGPUSimtMatmulTiling(params, problem, overrides, c.simt, c.noSimt);
  c.tensorCores = dmmaFits && (!c.simtFits ||
                               c.dmma.estimatedCycles < c.simt.estimatedCycles);
  if (dmmaFits && !c.tensorCores)
    c.noTensorCores = "estimated at ~" +
                      std::to_string(int64_t(c.dmma.estimatedCycles)) +
                      " cycles, no faster";
  return c;
}

std::string F64KernelChoice::remarkNote() const {
  if (!tensorCores)
    return "; f64 tensor cores not used: " + noTensorCores;
  if (!simtFits)
    return "; no SIMT kernel fits: " + noSimt;
  return "; the SIMT kernel is estimated at ~" +
         std::to_string(int64_t(simt.estimatedCycles)) + " cycles";
}

std::string mlir::tessel::typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

std::string mlir::tessel::whyNoMatrixInstruction(TargetAttr target, Type input,
                                                 Type acc, MmaInstruction &mma,
                                                 std::string &shape) {
  bool amd = target.getKind() == "amdgpu";
  int64_t inputBytes = input.getIntOrFloatBitWidth() / 8;
  int64_t accBytes = acc.getIntOrFloatBitWidth() / 8;
  std::string types =
      typeName(input) + "x" + typeName(input) + "->" + typeName(acc);
  if (amd) {
    StringRef family;
    std::string noInstruction =
        whyNoAmdMatrixInstruction(target.getChip(), input, acc, family);
    if (!noInstruction.empty())
      return noInstruction;
    if (!getAmdMatrixInstruction(family, inputBytes, accBytes, mma))
      return "no AMD matrix instruction for these element types";
    shape = (family + ".16x16x16:").str() + types;
  } else {
    bool wmmaTypes = (input.isF16() && (acc.isF32() || acc.isF16())) ||
                     (input.isInteger(8) && acc.isInteger(32));
    if (!wmmaTypes || !getWmmaInstruction(inputBytes, accBytes, mma))
      return "WMMA has no form for these element types (f16 x f16 -> f32 or "
             "f16, i8 x i8 -> i32)";
    shape = "m16n16k16:" + types;
  }
  if (!listsShape(target.getMma(), shape))
    return "the target lists no '" + shape + "' " +
           (amd ? "matrix-core" : "tensor-core") + " shape";
  if (target.getWarpSize() != mma.lanes)
    return std::string(amd ? "the matrix instruction" : "WMMA") + " needs " +
           std::to_string(mma.lanes) + "-lane warps; the target says " +
           std::to_string(target.getWarpSize());
  return {};
}

std::string mlir::tessel::whyNoGPUProductKernel(TargetAttr target, Type input,
                                                Type acc, int64_t m, int64_t n,
                                                int64_t k, bool aSynchronous,
                                                bool bSynchronous,
                                                GPUProductKernel &kernel) {
  if (!target)
    return "the module has no #tessel.target";
  bool amd = target.getKind() == "amdgpu";
  if (target.getKind() != "nvgpu" && !amd)
    return "the target is '" + target.getKind().str() +
           "', not nvgpu or amdgpu (tessel-map-matmul-to-gpu's kernels)";
  GPUMatmulProblem problem;
  problem.m = m;
  problem.n = n;
  problem.k = k;
  // AMD has no cp.async: every copy is a synchronous load.
  problem.aSynchronous = aSynchronous || amd;
  problem.bSynchronous = bSynchronous || amd;
  std::string why;
  // f32 stays f32: tensor cores would round the inputs to TF32. f64 takes
  // the faster of its tensor-core and SIMT kernels.
  bool f64 = input.isF64() && acc.isF64();
  if ((input.isF32() && acc.isF32()) || f64) {
    problem.inputBytes = problem.accBytes = f64 ? 8 : 4;
    GPUModelParams params = gpuModelParams(target);
    if (f64) {
      F64KernelChoice choice = chooseF64Kernel(
          target.getMma(), target.getWarpSize(), params, problem,
          GPUMatmulOverrides{},
          amd ? "no f64 MFMA kernel is built for AMD GPUs" : "");
      if (!choice.any())
        return "f64 tensor cores not used: " + choice.noTensorCores +
               ", and no SIMT kernel fits: " + choice.noSimt;
      kernel.unit = choice.tensorCores ? "tensor cores" : "SIMT cores";
      kernel.estimatedCycles = choice.tensorCores ? choice.dmma.estimatedCycles
                                                  : choice.simt.estimatedCycles;
      return {};
    }
    GPUSimtMatmulTiling tiling;
    if (!computeGPUSimtMatmulTiling(params, problem, GPUMatmulOverrides{},
                                    tiling, why))
      return std::string(kNoTF32Reason) + ", and no SIMT kernel fits: " + why;
    kernel.unit = "SIMT cores";
    kernel.estimatedCycles = tiling.estimatedCycles;
    return {};
  }
  // WMMA fragments: no bf16 in MLIR 22.
  if (!amd && !(input.isF16() && (acc.isF32() || acc.isF16())) &&
      !(input.isInteger(8) && acc.isInteger(32)))
    return "tensor cores take f16 x f16 -> f32 or f16 and i8 x i8 -> i32, "
           "and the SIMT kernel f32 -> f32 and f64 -> f64, not " +
           typeName(input) + " -> " + typeName(acc);
  problem.inputBytes = input.getIntOrFloatBitWidth() / 8;
  problem.accBytes = acc.getIntOrFloatBitWidth() / 8;
  MmaInstruction mma;
  std::string shape;
  std::string noInstruction =
      whyNoMatrixInstruction(target, input, acc, mma, shape);
  if (!noInstruction.empty())
    return noInstruction;
  GPUMatmulTiling tiling;
  if (!computeGPUMatmulTiling(gpuModelParams(target), mma, problem,
                              GPUMatmulOverrides{}, tiling, why))
    return why;
  kernel.unit = amd ? "matrix cores" : "tensor cores";
  kernel.estimatedCycles = tiling.estimatedCycles;
  return {};
}

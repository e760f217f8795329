//===- GPUTensorCores.h - What tessel-map-matmul-to-gpu can map -*- C++ -*-===//
//
// The target-side conditions under which tessel-map-matmul-to-gpu builds a
// kernel for a product (WMMA tensor cores, or the SIMT cores for f32), for
// passes that prepare work for it (e.g. tessel-convert-conv-to-nhwc) and
// must not pay for a rewrite that the mapping then declines.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GPUTENSORCORES_H
#define TESSEL_PASSES_UTILS_GPUTENSORCORES_H

#include "dialects/Tessel/TesselDialect.h"
#include "passes/CostModel/GPUMatmulTiling.h"
#include "passes/CostModel/GPUSimtMatmulTiling.h"

#include "mlir/IR/Types.h"

#include <string>

namespace mlir::tessel {

/// `type` as MLIR prints it ("f16", "i8"), as tensor-core shapes and
/// remarks name element types.
std::string typeName(Type type);

/// The family of AMD matrix instructions tessel-map-matmul-to-gpu builds
/// kernels on for `chip`: "mfma" on CDNA (gfx908, gfx90a, gfx94x, gfx950),
/// "wmma" on RDNA3 (gfx11); empty elsewhere (gfx12's WMMA has another lane
/// layout, which is not built).
llvm::StringRef amdMatrixFamily(llvm::StringRef chip);

/// Why `chip` has no 16x16x16 matrix instruction of its family for
/// `input` x `input` -> `acc` (f16 -> f32 on MFMA and RDNA3 WMMA chips; i8
/// -> i32 on gfx908, gfx90a and gfx11: gfx94x and gfx950 have only
/// 16x16x32 and 32x32x16 i8 MFMAs); empty when it has one, and `family`
/// is then "mfma" or "wmma".
std::string whyNoAmdMatrixInstruction(llvm::StringRef chip, Type input,
                                      Type acc, llvm::StringRef &family);

/// The GPU matmul models' figures from `target`.
GPUModelParams gpuModelParams(TargetAttr target);

/// Why f32 products stay off the tensor cores, as remarks say it.
inline constexpr const char *kNoTF32Reason =
    "f32 inputs would be rounded to TF32 by tensor cores";

/// Which kernel an f64 x f64 -> f64 product takes: the f64 tensor cores
/// (WMMA m8n8k4, DMMA) or the SIMT kernel, whichever the models estimate
/// faster among those that fit.
struct F64KernelChoice {
  /// The tensor-core kernel was chosen (`mma`, `dmma`); otherwise the SIMT
  /// one (`simt`), when `simtFits`.
  bool tensorCores = false, simtFits = false;
  MmaInstruction mma;
  GPUMatmulTiling dmma;
  GPUSimtMatmulTiling simt;
  /// Why each kernel does not fit (empty where it does).
  std::string noTensorCores, noSimt;

  bool any() const { return tensorCores || simtFits; }
  /// The remark's words on the loser: "; the SIMT kernel is estimated at
  /// ~N cycles", "; f64 tensor cores not used: ...".
  std::string remarkNote() const;
};

/// Chooses the f64 kernel for `problem` on a target with tensor-core
/// `shapes` and `warpSize`-lane warps. The tensor cores are considered
/// unless `skipTensorCores` gives a reason not to, and need the target to
/// list `m8n8k4:f64xf64->f64` and a tiling to fit (its rate,
/// mma_f64_fma_per_cycle, among the model's figures).
F64KernelChoice chooseF64Kernel(ArrayAttr shapes, int64_t warpSize,
                                const GPUModelParams &params,
                                const GPUMatmulProblem &problem,
                                const GPUMatmulOverrides &overrides,
                                StringRef skipTensorCores = {});

/// The matrix instruction tessel-map-matmul-to-gpu's tensor-core kernel
/// uses for `input` x `input` -> `acc` products on `target` (WMMA 16x16x16
/// on NVIDIA; MFMA or RDNA3 WMMA 16x16x16 on AMD) and the `mma` shape name
/// the target must list for it (`m16n16k16:f16xf16->f32`,
/// `mfma.16x16x16:i8xi8->i32`, ...); a reason when there is none: element
/// types without a form, a chip without the instruction, a shape the
/// target does not list, or a warp size the instruction does not take.
std::string whyNoMatrixInstruction(TargetAttr target, Type input, Type acc,
                                   MmaInstruction &mma, std::string &shape);

/// The kernel tessel-map-matmul-to-gpu would build for a product.
struct GPUProductKernel {
  /// What runs it, as remarks name it: "tensor cores" or "SIMT cores".
  std::string unit;
  /// The model's estimate of its cycles: WMMA's or the SIMT kernel's (the
  /// wgmma kernel takes no convolutions, the only products asked about).
  double estimatedCycles = 0;
};

/// Why an unbatched `m` x `n` x `k` product of `input` x `input` -> `acc`
/// elements, its operands row-major, their rows aligned for cp.async
/// unless `aSynchronous` (`bSynchronous`) says A's (B's) rows are not 4-byte
/// aligned and are copied element by element, would not be
/// mapped to a GPU kernel by tessel-map-matmul-to-gpu with its default
/// options; empty when it would, with `kernel` describing it. f16 and i8
/// products go to WMMA tensor cores on NVIDIA and to the matrix cores
/// (MFMA, RDNA3 WMMA) on AMD (the target kind, chip, its `mma` list and
/// warp size are checked), f32 x f32 -> f32 to the SIMT kernel, f64 x f64
/// -> f64 to the faster of the f64 tensor-core and SIMT kernels (AMD: the
/// SIMT one); the model's figures must be there and a tiling must fit. On
/// AMD every copy is a synchronous load, whatever `aSynchronous` says.
std::string whyNoGPUProductKernel(TargetAttr target, Type input, Type acc,
                                  int64_t m, int64_t n, int64_t k,
                                  bool aSynchronous, bool bSynchronous,
                                  GPUProductKernel &kernel);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GPUTENSORCORES_H

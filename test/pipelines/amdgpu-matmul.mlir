// Matmuls on AMD GPUs. f32 and f64: tessel-map-matmul-to-gpu's SIMT kernel
// (block tiles in LDS, register tiles of scalar multiply-adds) with its
// stages filled by synchronous loads, as AMD has no cp.async: 16-byte
// global loads and LDS reads, the backend's FMAs (packed v_pk_fma_f32 on
// gfx90a, v_fmac_f64), no scratch (spills). f16 -> f32 and i8 -> i32: the
// tensor-core kernel on the matrix cores, tessel-lower-mma-to-amdgpu and
// tessel-convert-amdgpu-to-rocdl making its fragments MFMA instructions on
// gfx90a and gfx942 and WMMA ones on gfx1100. Numbers are checked by the
// same kernels' emulation (gpu_matmul_f32_emulated.test,
// gpu_matmul_f64_emulated.test, gpu_matmul_amd_emulated.test); no AMD GPU
// runs them here.
// RUN: rm -rf %t.dev %t.dev1100
// RUN: tessel-compile %s --target=amdgpu -o %t.o --remarks --emit-device-asm=%t.dev 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARKS < %t.remarks
// RUN: llvm-objdump -d --mcpu=gfx90a %t.dev/mm_f32_kernel.hsaco | FileCheck %s --check-prefix=F32 --implicit-check-not=scratch_
// RUN: llvm-objdump -d --mcpu=gfx90a %t.dev/mm_f64_kernel.hsaco | FileCheck %s --check-prefix=F64 --implicit-check-not=scratch_
// RUN: llvm-objdump -d --mcpu=gfx90a %t.dev/mm_f16_kernel.hsaco | FileCheck %s --check-prefix=F16 --implicit-check-not=scratch_
// RUN: llvm-objdump -d --mcpu=gfx90a %t.dev/mm_i8_kernel.hsaco | FileCheck %s --check-prefix=I8 --implicit-check-not=scratch_
// RUN: rm -rf %t.dev942
// RUN: tessel-compile %s --target=amdgpu --target-options=chip=gfx942 -o %t.942.o --remarks --emit-device-asm=%t.dev942 2> %t.942.remarks
// RUN: FileCheck %s --check-prefix=REMARKS-942 < %t.942.remarks
// RUN: llvm-objdump -d --mcpu=gfx942 %t.dev942/mm_f16_kernel.hsaco | FileCheck %s --check-prefix=F16-942 --implicit-check-not=scratch_
// RUN: tessel-compile %s --target=amdgpu --target-options=chip=gfx1100 -o %t.1100.o --remarks --emit-device-asm=%t.dev1100 2> %t.1100.remarks
// RUN: FileCheck %s --check-prefix=REMARKS-1100 < %t.1100.remarks
// RUN: llvm-objdump -d --mcpu=gfx1100 %t.dev1100/mm_f32_kernel.hsaco | FileCheck %s --check-prefix=F32-1100 --implicit-check-not=scratch_
// RUN: llvm-objdump -d --mcpu=gfx1100 %t.dev1100/mm_f16_kernel.hsaco | FileCheck %s --check-prefix=F16-1100 --implicit-check-not=scratch_
// RUN: llvm-objdump -d --mcpu=gfx1100 %t.dev1100/mm_i8_kernel.hsaco | FileCheck %s --check-prefix=I8-1100 --implicit-check-not=scratch_

// REMARKS-DAG: matmul 256x192x128 (f32 x f32 -> f32) mapped to SIMT cores (f32 FMAs, no TF32 rounding): {{.*}}; copies are synchronous loads (no cp.async on AMD)
// REMARKS-DAG: matmul 100x520x72 (f64 x f64 -> f64) mapped to SIMT cores (f64 FMAs): {{.*}}; copies are synchronous loads (no cp.async on AMD)
// REMARKS-DAG: matmul 64x64x64 (f16 x f16 -> f32) mapped to matrix cores (MFMA 16x16x16, 64-lane wavefronts): {{.*}}; copies are synchronous loads (no cp.async on AMD)
// REMARKS-DAG: matmul 128x96x64 (i8 x i8 -> i32) mapped to matrix cores (MFMA 16x16x16, 64-lane wavefronts)
// REMARKS-DAG: matmul 64x64x64 (f16 x f16 -> f16) not mapped to tensor cores: AMD matrix kernels take f16 x f16 -> f32 and i8 x i8 -> i32 (MFMA has no f16 accumulator)
// REMARKS-942-DAG: matmul 64x64x64 (f16 x f16 -> f32) mapped to matrix cores (MFMA 16x16x16, 64-lane wavefronts)
// REMARKS-942-DAG: matmul 128x96x64 (i8 x i8 -> i32) not mapped to tensor cores: gfx942 has no 16x16x16 i8 MFMA (its i8 instructions are 16x16x32 and 32x32x16, which no kernel here uses)
// REMARKS-1100-DAG: matmul 256x192x128 (f32 x f32 -> f32) mapped to SIMT cores
// REMARKS-1100-DAG: matmul 64x64x64 (f16 x f16 -> f32) mapped to matrix cores (RDNA3 WMMA 16x16x16, 32-lane wavefronts)
// REMARKS-1100-DAG: matmul 128x96x64 (i8 x i8 -> i32) mapped to matrix cores (RDNA3 WMMA 16x16x16, 32-lane wavefronts)

// F32: global_load_dwordx4
// F32: ds_read_b128
// F32: v_pk_fma_f32
// F64: global_load_dwordx4
// F64: ds_read_b128
// F64: v_fmac_f64
// F16: v_mfma_f32_16x16x16f16
// I8: v_mfma_i32_16x16x16i8
// F16-942: v_mfma_f32_16x16x16_f16
// F16-1100: v_wmma_f32_16x16x16_f16
// I8-1100: v_wmma_i32_16x16x16_iu8
// F32-1100: global_load_b128
// F32-1100: ds_load_b128
// F32-1100: v_fmac_f32

func.func @mm_f32(%a: tensor<256x128xf32>, %b: tensor<128x192xf32>) -> tensor<256x192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x192xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x192xf32>) -> tensor<256x192xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x192xf32>) outs(%c : tensor<256x192xf32>) -> tensor<256x192xf32>
  return %r : tensor<256x192xf32>
}

// Partial tiles along n.
func.func @mm_f64(%a: tensor<100x72xf64>, %b: tensor<72x520xf64>) -> tensor<100x520xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<100x520xf64>
  %c = linalg.fill ins(%zero : f64) outs(%e : tensor<100x520xf64>) -> tensor<100x520xf64>
  %r = linalg.matmul ins(%a, %b : tensor<100x72xf64>, tensor<72x520xf64>) outs(%c : tensor<100x520xf64>) -> tensor<100x520xf64>
  return %r : tensor<100x520xf64>
}

func.func @mm_f16(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @mm_i8(%a: tensor<128x64xi8>, %b: tensor<64x96xi8>) -> tensor<128x96xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<128x96xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<128x96xi32>) -> tensor<128x96xi32>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xi8>, tensor<64x96xi8>) outs(%c : tensor<128x96xi32>) -> tensor<128x96xi32>
  return %r : tensor<128x96xi32>
}

// MFMA and RDNA3's kernel accumulate in f32 only: the generic loops.
func.func @mm_f16_f16(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x64xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf16>) -> tensor<64x64xf16>
  return %r : tensor<64x64xf16>
}

// Multiply-adds in AMD kernels fuse into one v_fma of their type
// (tessel-contract-multiply-adds marks them `contract` before
// convert-math-to-rocdl), the negation of c - a * b folded into an operand:
// no separately rounded v_mul or v_add/v_sub is left, on gfx90a and gfx1100.
// RUN: rm -rf %t.dev && mkdir -p %t.dev
// RUN: sed -e 's/ELEM/f16/g' %s > %t.f16.mlir
// RUN: sed -e 's/ELEM/f32/g' %s > %t.f32.mlir
// RUN: tessel-compile %t.f32.mlir --target=amdgpu -o %t.f32.o --emit-device-asm=%t.dev/f32
// RUN: tessel-compile %t.f16.mlir --target=amdgpu -o %t.f16.o --emit-device-asm=%t.dev/f16
// RUN: tessel-compile %t.f32.mlir --target=amdgpu --target-options=chip=gfx1100 -o %t.f32_1100.o --emit-device-asm=%t.dev/f32_1100
// RUN: llvm-objdump -d --mcpu=gfx90a %t.dev/f32/fms_kernel.hsaco | FileCheck %s --check-prefix=F32 --implicit-check-not=v_mul_f32 --implicit-check-not=v_sub_f32 --implicit-check-not=v_subrev_f32 --implicit-check-not=v_add_f32
// RUN: llvm-objdump -d --mcpu=gfx90a %t.dev/f16/fms_kernel.hsaco | FileCheck %s --check-prefix=F16 --implicit-check-not=v_mul_f16 --implicit-check-not=v_sub_f16 --implicit-check-not=v_subrev_f16 --implicit-check-not=v_add_f16
// RUN: llvm-objdump -d --mcpu=gfx1100 %t.dev/f32_1100/fms_kernel.hsaco | FileCheck %s --check-prefix=F32 --implicit-check-not=v_mul_f32 --implicit-check-not=v_sub_f32 --implicit-check-not=v_subrev_f32 --implicit-check-not=v_add_f32

// Without the stage (the pipeline string edited), the multiply and the
// subtract stay two instructions, each rounded.
// RUN: env TESSEL_COMPILE=tessel-compile TESSEL_PIPELINE_SED='s/gpu.module(tessel-contract-multiply-adds),//' %tessel_src/utils/bench/tessel-compile-edited.sh %t.f32.mlir --target=amdgpu -o %t.nofma.o --emit-device-asm=%t.dev/nofma
// RUN: llvm-objdump -d --mcpu=gfx90a %t.dev/nofma/fms_kernel.hsaco | FileCheck %s --check-prefix=SEPARATE --implicit-check-not=v_fma
// SEPARATE: v_mul_f32
// SEPARATE: v_sub_f32

// F32: v_fma_f32 {{v[0-9]+}}, -{{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}
// F16: v_fma_f16 {{v[0-9]+}}, -{{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}

// out = c - a * b, elementwise.
func.func @fms(%a: tensor<64x64xELEM>, %b: tensor<64x64xELEM>,
               %c: tensor<64x64xELEM>) -> tensor<64x64xELEM> {
  %e = tensor.empty() : tensor<64x64xELEM>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c : tensor<64x64xELEM>, tensor<64x64xELEM>, tensor<64x64xELEM>)
      outs(%e : tensor<64x64xELEM>) {
  ^bb0(%x: ELEM, %y: ELEM, %z: ELEM, %o: ELEM):
    %m = arith.mulf %x, %y : ELEM
    %s = arith.subf %z, %m : ELEM
    linalg.yield %s : ELEM
  } -> tensor<64x64xELEM>
  return %r : tensor<64x64xELEM>
}

// Multiply-adds in NVIDIA kernels fuse into the native fma of their type
// (tessel-contract-multiply-adds marks them `contract`): fma.rn.f16 (or its
// f16x2 form), fma.rn.bf16 on sm_90a, fma.rn.f32. No libdevice call
// (__nv_fmaf), so the kernels assemble without libdevice, and no separately
// rounded multiply or add is left.
// RUN: rm -rf %t.ptx && mkdir -p %t.ptx
// RUN: sed -e 's/ELEM/f16/g' %s > %t.f16.mlir
// RUN: sed -e 's/ELEM/bf16/g' %s > %t.bf16.mlir
// RUN: sed -e 's/ELEM/f32/g' %s > %t.f32.mlir
// RUN: tessel-compile %t.f16.mlir --target=nvgpu --target-options=chip=sm_90a -o %t.f16.o --emit-device-asm=%t.ptx/f16
// RUN: tessel-compile %t.bf16.mlir --target=nvgpu --target-options=chip=sm_90a -o %t.bf16.o --emit-device-asm=%t.ptx/bf16
// RUN: tessel-compile %t.f32.mlir --target=nvgpu -o %t.f32.o --emit-device-asm=%t.ptx/f32
// RUN: cat %t.ptx/f16/*.ptx | FileCheck %s --check-prefix=F16 --implicit-check-not=__nv_ --implicit-check-not=mul.rn --implicit-check-not=add.rn --implicit-check-not=sub.rn
// RUN: cat %t.ptx/bf16/*.ptx | FileCheck %s --check-prefix=BF16 --implicit-check-not=__nv_ --implicit-check-not=mul.rn --implicit-check-not=add.rn --implicit-check-not=sub.rn
// RUN: cat %t.ptx/f32/*.ptx | FileCheck %s --check-prefix=F32 --implicit-check-not=__nv_ --implicit-check-not=mul.rn --implicit-check-not=add.rn --implicit-check-not=sub.rn

// F16: fma.rn.f16
// BF16: fma.rn.bf16
// F32: fma.rn.f32

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

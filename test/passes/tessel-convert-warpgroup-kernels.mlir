// RUN: %tessel-opt %s --pass-pipeline='builtin.module(tessel-convert-warpgroup-kernels)' | FileCheck %s

!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>

// A kernel with a loop-carried warpgroup accumulator: lowered while the loop
// is structured, so the loop carries the LLVM struct.
// CHECK-LABEL: gpu.module @wgmma
// CHECK: scf.for {{.*}} -> (!llvm.struct<(struct<(f32,
// CHECK-NOT: nvgpu.warpgroup
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvgpu.warpgroup
gpu.module @wgmma {
  gpu.func @k(%da: !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>, %db: !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>, %out: memref<64x64xf32, 3>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %init) -> (!acc) {
      %n = nvgpu.warpgroup.mma %da, %db, %a {transposeB} : !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>, !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>, !acc -> !acc
      scf.yield %n : !acc
    }
    nvgpu.warpgroup.mma.store %r, %out : !acc to memref<64x64xf32, 3>
    gpu.return
  }
}

// A module without warpgroup ops (a WMMA kernel's asynchronous copies) is
// left to the later device conversion.
// CHECK-LABEL: gpu.module @wmma
// CHECK: nvgpu.device_async_copy
gpu.module @wmma {
  gpu.func @k(%src: memref<64xf16>, %dst: memref<64xf16, 3>) kernel {
    %c0 = arith.constant 0 : index
    %t = nvgpu.device_async_copy %src[%c0], %dst[%c0], 8 : memref<64xf16> to memref<64xf16, 3>
    gpu.return
  }
}

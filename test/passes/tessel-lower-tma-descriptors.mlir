// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-lower-tma-descriptors)' | FileCheck %s

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// The descriptor becomes upstream's runtime call on the host; the kernel
// reads the returned pointer, cast back at the start of the launch body, so
// that outlining passes an !llvm.ptr.
// CHECK-LABEL: func.func @one_launch
// CHECK: %[[P:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK: gpu.launch
// CHECK-NEXT: %[[D:.*]] = builtin.unrealized_conversion_cast %[[P]] : !llvm.ptr to !nvgpu.tensormap.descriptor
// CHECK: nvgpu.tma.prefetch.descriptor %[[D]]
func.func @one_launch(%a: memref<256x256xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %u = memref.cast %a : memref<256x256xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// Two launches share one descriptor: each gets its own cast.
// CHECK-LABEL: func.func @two_launches
// CHECK: %[[P:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK: gpu.launch
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[P]]
// CHECK: gpu.launch
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[P]]
func.func @two_launches(%a: memref<256x256xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %u = memref.cast %a : memref<256x256xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// Nothing to do: the module is left as it is.
// CHECK-LABEL: func.func @none
// CHECK-NEXT: return
func.func @none() {
  return
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// A descriptor made inside a kernel has no host to make it.
func.func @inside(%a: memref<256x256xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %u = memref.cast %a : memref<256x256xf16> to memref<*xf16>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
    // expected-error @below {{a TMA descriptor is created on the host; this one is inside a kernel}}
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
    gpu.terminator
  }
  return
}

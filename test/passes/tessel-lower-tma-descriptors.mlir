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

// Two launches use one descriptor: it is made again right before each (the
// runtime may reuse a copy once the launch it was made for is waited for),
// and each launch casts its own.
// CHECK-LABEL: func.func @two_launches
// CHECK: %[[P:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK-NOT: llvm.call
// CHECK: gpu.launch
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[P]]
// CHECK: %[[Q:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK-NOT: llvm.call
// CHECK: gpu.launch
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[Q]]
// CHECK-NOT: llvm.call
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

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// Views of a constant (a weight compiled into the program): TMA cannot read
// its host address, so the runtime is handed the constant's address, its
// size (512*256*2 bytes) and the module's slot for its device copy, one
// slot per constant, shared by both views. An argument's descriptor keeps
// upstream's call.
// CHECK-DAG: llvm.func @tesselTensorMapEncodeTiledConstant(!llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG: llvm.mlir.global internal @__tessel_device_copy_of_w(0 : i64) {{.*}} : i64
// CHECK-NOT: @__tessel_device_copy_of
// CHECK-LABEL: func.func @constant_views
// CHECK-SAME: (%[[ARG:.*]]: memref<256x256xf16>)
// CHECK: %[[W:.*]] = memref.get_global @w
// CHECK: %[[F16:.*]] = llvm.mlir.constant(6 : i64) : i64
// CHECK: %[[HOST:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: %[[HOST64:.*]] = arith.index_cast %[[HOST]] : index to i64
// CHECK: %[[HOSTPTR:.*]] = llvm.inttoptr %[[HOST64]] : i64 to !llvm.ptr
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @__tessel_device_copy_of_w : !llvm.ptr
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(262144 : i64) : i64
// CHECK: %[[P1:.*]] = llvm.call @tesselTensorMapEncodeTiledConstant(%[[SLOT]], %[[HOSTPTR]], %[[BYTES]], %{{.*}}, %{{.*}}, %[[F16]],
// CHECK: llvm.mlir.addressof @__tessel_device_copy_of_w
// CHECK: %[[P2:.*]] = llvm.call @tesselTensorMapEncodeTiledConstant(
// CHECK: %[[P3:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK: gpu.launch
// CHECK-DAG: builtin.unrealized_conversion_cast %[[P1]]
// CHECK-DAG: builtin.unrealized_conversion_cast %[[P2]]
// CHECK-DAG: builtin.unrealized_conversion_cast %[[P3]]
memref.global "private" constant @w : memref<512x256xf16> = dense<1.0>
func.func @constant_views(%a: memref<256x256xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = memref.get_global @w : memref<512x256xf16>
  %whole = memref.cast %w : memref<512x256xf16> to memref<*xf16>
  %d1 = nvgpu.tma.create.descriptor %whole box[%c64, %c64] : memref<*xf16> -> !map
  %rows = memref.subview %w[256, 0] [256, 256] [1, 1] : memref<512x256xf16> to memref<256x256xf16, strided<[256, 1], offset: 65536>>
  %part = memref.cast %rows : memref<256x256xf16, strided<[256, 1], offset: 65536>> to memref<*xf16>
  %d2 = nvgpu.tma.create.descriptor %part box[%c64, %c64] : memref<*xf16> -> !map
  %u = memref.cast %a : memref<256x256xf16> to memref<*xf16>
  %d3 = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
    nvgpu.tma.prefetch.descriptor %d1 : !map
    nvgpu.tma.prefetch.descriptor %d2 : !map
    nvgpu.tma.prefetch.descriptor %d3 : !map
    gpu.terminator
  }
  return
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// Only constants: a mutable global's device copy would go stale.
memref.global "private" @state : memref<256x256xf16> = dense<0.0>
func.func @mutable_global() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{reads a mutable global that a TMA descriptor describes; TMA reaches only constant globals (copied to the device once)}}
  %s = memref.get_global @state : memref<256x256xf16>
  %u = memref.cast %s : memref<256x256xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

// -----

!map8 = !nvgpu.tensormap.descriptor<tensor = memref<64x128xi8, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!mapbf = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// The data type is the described memref's: UINT8 (0) for i8, which
// upstream's lowering has no code for, BFLOAT16 (9) for bf16; then
// interleave none (0), 128-byte swizzle (3), L2 promotion (3 for 256
// bytes, 0 for none), zero fill (0), and the box sizes.
// The box sizes go outermost first into an array of 5 (the runtime
// reverses them for the driver), and the call passes the unranked memref's
// rank and descriptor pointer first, as the runtime's C signature reads.
// CHECK-DAG: llvm.func @mgpuTensorMapEncodeTiledMemref(i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
// CHECK-LABEL: func.func @data_types
// CHECK-DAG: %[[C64:.*]] = builtin.unrealized_conversion_cast %c64 : index to i64
// CHECK-DAG: %[[C128:.*]] = builtin.unrealized_conversion_cast %c128 : index to i64
// CHECK: %[[UA:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<*xi8> to !llvm.struct<(i64, ptr)>
// CHECK: %[[FIVE:.*]] = llvm.mlir.constant(5 : i64) : i64
// CHECK: %[[BOX8:.*]] = llvm.alloca %[[FIVE]] x i64
// CHECK: %[[B0:.*]] = llvm.getelementptr %[[BOX8]][0]
// CHECK: llvm.store %[[C64]], %[[B0]]
// CHECK: %[[B1:.*]] = llvm.getelementptr %[[BOX8]][1]
// CHECK: llvm.store %[[C128]], %[[B1]]
// CHECK: %[[RANK:.*]] = llvm.extractvalue %[[UA]][0]
// CHECK: %[[DESC:.*]] = llvm.extractvalue %[[UA]][1]
// CHECK: %[[U8:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[NONE:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[SW128:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: %[[L2:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: llvm.call @mgpuTensorMapEncodeTiledMemref(%[[RANK]], %[[DESC]], %[[U8]], %[[NONE]], %[[SW128]], %[[L2]], %[[ZERO]], %[[BOX8]])
// CHECK: %[[BF16:.*]] = llvm.mlir.constant(9 : i64) : i64
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[BF16]],
func.func @data_types(%a: memref<256x256xi8>, %b: memref<256x256xbf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %ua = memref.cast %a : memref<256x256xi8> to memref<*xi8>
  %da = nvgpu.tma.create.descriptor %ua box[%c64, %c128] : memref<*xi8> -> !map8
  %ub = memref.cast %b : memref<256x256xbf16> to memref<*xbf16>
  %db = nvgpu.tma.create.descriptor %ub box[%c64, %c64] : memref<*xbf16> -> !mapbf
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
    nvgpu.tma.prefetch.descriptor %da : !map8
    nvgpu.tma.prefetch.descriptor %db : !mapbf
    gpu.terminator
  }
  return
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xi1, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>

// An element type TMA has no code for.
func.func @no_data_type(%a: memref<256x256xi1>) {
  %c64 = arith.constant 64 : index
  %u = memref.cast %a : memref<256x256xi1> to memref<*xi1>
  // expected-error @below {{describes 'i1' elements, which TMA has no data type for}}
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xi1> -> !map
  return
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// Host code in a nested module: the slot and the runtime's declaration go
// into that module, where the call can reach them.
// CHECK-LABEL: module @host
// CHECK-DAG: llvm.mlir.global internal @__tessel_device_copy_of_w(0 : i64)
// CHECK-DAG: llvm.func @tesselTensorMapEncodeTiledConstant(
// CHECK: func.func @nested
// CHECK: llvm.call @tesselTensorMapEncodeTiledConstant(
module @host {
  memref.global "private" constant @w : memref<256x256xf16> = dense<1.0>
  func.func @nested() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %w = memref.get_global @w : memref<256x256xf16>
    %u = memref.cast %w : memref<256x256xf16> to memref<*xf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
      nvgpu.tma.prefetch.descriptor %d : !map
      gpu.terminator
    }
    return
  }
}

// -----

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

// The input already has a symbol of the slot's name: the slot takes
// another, and the input's symbol is left alone.
// CHECK-DAG: llvm.mlir.global internal @__tessel_device_copy_of_w_1(0 : i64) {addr_space = 0 : i32, tessel.device_copy_of = "w"}
// CHECK-DAG: func.func private @__tessel_device_copy_of_w()
// CHECK-LABEL: func.func @slot_name_taken
// CHECK: llvm.mlir.addressof @__tessel_device_copy_of_w_1
memref.global "private" constant @w : memref<256x256xf16> = dense<1.0>
func.func private @__tessel_device_copy_of_w()
func.func @slot_name_taken() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %w = memref.get_global @w : memref<256x256xf16>
  %u = memref.cast %w : memref<256x256xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u1 = %c1, %u2 = %c1, %u3 = %c1) {
    nvgpu.tma.prefetch.descriptor %d : !map
    gpu.terminator
  }
  return
}

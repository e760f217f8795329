// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-allocate-device-buffers)' | FileCheck %s

// A temporary only kernels touch moves to device memory, allocated and freed
// in the async form gpu-to-llvm lowers, each waited on at once.

// CHECK-LABEL: func.func @device_only(
// CHECK-SAME: %[[V:.*]]: f32)
// CHECK-NOT: memref.alloc
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[BUF:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<64xf32>
// CHECK: gpu.wait [%[[T1]]]
// CHECK: gpu.launch
// CHECK: memref.store %[[V]], %[[BUF]][%{{.*}}] : memref<64xf32>
// CHECK: gpu.terminator
// CHECK: %[[T2:.*]] = gpu.wait async
// CHECK: %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[BUF]] : memref<64xf32>
// CHECK: gpu.wait [%[[T3]]]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @device_only(%v: f32) {
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %v, %t[%tx] : memref<64xf32>
    gpu.terminator
  }
  memref.dealloc %t : memref<64xf32>
  return
}

// -----

// A TMA descriptor made on the host records only the buffer's address (the
// tensor memory accelerator reads it on the device): a temporary that
// kernels write and a descriptor describes is device memory, not managed.

// CHECK-LABEL: func.func @tma_described(
// CHECK-NOT: host_shared
// CHECK: %[[BUF:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<64x128xi8>
// CHECK: gpu.launch
// CHECK: %[[CAST:.*]] = memref.cast %[[BUF]] : memref<64x128xi8> to memref<*xi8>
// CHECK: nvgpu.tma.create.descriptor %[[CAST]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[BUF]]
func.func @tma_described(%v: i8) -> !nvgpu.tensormap.descriptor<tensor = memref<64x128xi8, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %t = memref.alloc() : memref<64x128xi8>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %v, %t[%tx, %tx] : memref<64x128xi8>
    gpu.terminator
  }
  %u = memref.cast %t : memref<64x128xi8> to memref<*xi8>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c128] : memref<*xi8> -> !nvgpu.tensormap.descriptor<tensor = memref<64x128xi8, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
  memref.dealloc %t : memref<64x128xi8>
  return %d : !nvgpu.tensormap.descriptor<tensor = memref<64x128xi8, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
}

// -----

// A buffer both the host and a kernel touch must be visible to both.

// CHECK-LABEL: func.func @host_and_device(
// CHECK: %[[BUF:.*]] = gpu.alloc host_shared () : memref<64xf32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<64xf32>
// CHECK: %[[R:.*]] = memref.load %[[BUF]][%{{.*}}] : memref<64xf32>
// CHECK: %[[T2:.*]] = gpu.wait async
// CHECK: %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[BUF]] : memref<64xf32>
// CHECK: gpu.wait [%[[T3]]]
// CHECK: return %[[R]] : f32
func.func @host_and_device(%v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %v, %t[%tx] : memref<64xf32>
    gpu.terminator
  }
  %r = memref.load %t[%c0] : memref<64xf32>
  memref.dealloc %t : memref<64xf32>
  return %r : f32
}

// -----

// Buffers only the host touches stay where they are, heap and stack alike.

// CHECK-LABEL: func.func @host_only(
// CHECK: %[[HEAP:.*]] = memref.alloc() : memref<64xf32>
// CHECK: %[[STACK:.*]] = memref.alloca() : memref<4xf32>
// CHECK: memref.store %{{.*}}, %[[HEAP]]
// CHECK: memref.store %{{.*}}, %[[STACK]]
// CHECK: memref.dealloc %[[HEAP]] : memref<64xf32>
// CHECK-NOT: gpu.
// CHECK: return
func.func @host_only(%v: f32) {
  %c0 = arith.constant 0 : index
  %heap = memref.alloc() : memref<64xf32>
  %stack = memref.alloca() : memref<4xf32>
  memref.store %v, %heap[%c0] : memref<64xf32>
  memref.store %v, %stack[%c0] : memref<4xf32>
  memref.dealloc %heap : memref<64xf32>
  return
}

// -----

// Uses through a view count as uses of the buffer: a subview a kernel
// writes makes the buffer a device buffer (and only a device buffer).

// CHECK-LABEL: func.func @through_subview(
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[BUF:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<8x8xf32>
// CHECK: gpu.wait [%[[T1]]]
// CHECK: %[[VIEW:.*]] = memref.subview %[[BUF]][0, 0] [4, 4] [1, 1]
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[VIEW]][
// CHECK: %[[T2:.*]] = gpu.wait async
// CHECK: %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[BUF]] : memref<8x8xf32>
// CHECK: gpu.wait [%[[T3]]]
func.func @through_subview(%v: f32) {
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<8x8xf32>
  %s = memref.subview %t[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %v, %s[%tx, %ty] : memref<4x4xf32, strided<[8, 1]>>
    gpu.terminator
  }
  memref.dealloc %t : memref<8x8xf32>
  return
}

// -----

// After outlining, the kernel use is a gpu.launch_func operand; dynamic
// sizes carry over to gpu.alloc.


// CHECK-LABEL: func.func @outlined(
// CHECK-SAME: %[[N:.*]]: index)
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[BUF:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] (%[[N]]) : memref<?xf32>
// CHECK: gpu.wait [%[[T1]]]
// CHECK: %[[CAST:.*]] = memref.cast %[[BUF]] : memref<?xf32> to memref<64xf32>
// CHECK: gpu.launch_func @kernels::@k {{.*}} args(%[[CAST]] : memref<64xf32>)
// CHECK: %[[T2:.*]] = gpu.wait async
// CHECK: %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[BUF]] : memref<?xf32>
// CHECK: gpu.wait [%[[T3]]]
// CHECK-NOT: memref.dealloc
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%m: memref<64xf32>) kernel {
      gpu.return
    }
  }
  func.func @outlined(%n: index) {
    %c1 = arith.constant 1 : index
    %t = memref.alloc(%n) : memref<?xf32>
    %s = memref.cast %t : memref<?xf32> to memref<64xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%s : memref<64xf32>)
    memref.dealloc %t : memref<?xf32>
    return
  }
}

// -----

// Allocations inside a kernel are the kernel's own business.

// CHECK-LABEL: func.func @alloca_in_kernel(
// CHECK: gpu.launch
// CHECK: %[[LOCAL:.*]] = memref.alloca() : memref<4xf32>
// CHECK: memref.store %{{.*}}, %[[LOCAL]]
func.func @alloca_in_kernel(%v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %local = memref.alloca() : memref<4xf32>
    memref.store %v, %local[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @host_stack_in_kernel(%v: f32) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'memref.alloca' op allocates a stack buffer that a GPU kernel uses; kernels cannot reach host stack memory}}
  %t = memref.alloca() : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %v, %t[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// buffer-deallocation frees through the base of extract_strided_metadata;
// that dealloc must free device memory too.

// CHECK-LABEL: func.func @dealloc_through_view(
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[BUF:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<64xf32>
// CHECK: gpu.wait [%[[T1]]]
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[BUF]]
// CHECK: %[[T2:.*]] = gpu.wait async
// CHECK: %[[T3:.*]] = gpu.dealloc async [%[[T2]]] %[[BASE]] : memref<f32>
// CHECK: gpu.wait [%[[T3]]]
// CHECK-NOT: memref.dealloc
func.func @dealloc_through_view(%v: f32) {
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %v, %t[%tx] : memref<64xf32>
    gpu.terminator
  }
  %base, %offset, %size, %stride = memref.extract_strided_metadata %t : memref<64xf32> -> memref<f32>, index, index, index
  memref.dealloc %base : memref<f32>
  return
}

// -----

// A constant global read by a kernel through a host-side get_global (and a
// view of it) is fetched inside the kernel, so that outlining copies it to
// the device module; the host never hands its address to the device.

memref.global "private" constant @filter : memref<1x5xf32> = dense<[[1.0, 2.0, 3.0, 4.0, 5.0]]>

// CHECK-LABEL: func.func @constant_global(
// CHECK: gpu.launch
// CHECK-NEXT: %[[G:.*]] = memref.get_global @filter : memref<1x5xf32>
// CHECK-NEXT: %[[V:.*]] = memref.collapse_shape %[[G]]
// CHECK: memref.load %[[V]][%{{.*}}] : memref<5xf32>
// CHECK: gpu.terminator
func.func @constant_global(%out: memref<5xf32>) {
  %c1 = arith.constant 1 : index
  %g = memref.get_global @filter : memref<1x5xf32>
  %v = memref.collapse_shape %g [[0, 1]] : memref<1x5xf32> into memref<5xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = memref.load %v[%tx] : memref<5xf32>
    memref.store %x, %out[%tx] : memref<5xf32>
    gpu.terminator
  }
  return
}

// -----

// A mutable global has no copy both sides share.

memref.global "private" @counters : memref<4xf32> = dense<0.0>

func.func @mutable_global() {
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{reads a mutable global that a GPU kernel uses}}
  %g = memref.get_global @counters : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %f, %g[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

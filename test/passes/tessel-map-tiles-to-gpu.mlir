// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-tiles-to-gpu),canonicalize,cse)' | FileCheck %s

// A fused blur tile loop (as tessel-fuse-producers and bufferization leave
// it: the x pass into a tile buffer, the y pass from it) becomes one kernel:
// a block per 1x16x32 tile (8 x 8 x 3 blocks), the 20x32 tile buffer in
// shared memory, each op a loop that the block's 160 threads share (640
// iterations of the largest, a quarter each), barriers between the ops, and
// the filter weights' global read in the kernel.

#in_x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + d3)>
#taps = affine_map<(d0, d1, d2, d3) -> (d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#in_y = affine_map<(d0, d1, d2, d3) -> (d0, d1 + d3, d2)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
  memref.global "private" constant @weights : memref<5xf32> = dense<[6.250000e-02, 2.500000e-01, 3.750000e-01, 2.500000e-01, 6.250000e-02]>
// CHECK-LABEL: func.func @blur(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<3x132x260xf32>, %[[OUT:[a-z0-9]+]]: memref<3x128x256xf32>
// CHECK-NOT: scf.forall
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %[[BZ:.*]]) in (%{{.*}} = %c8, %{{.*}} = %c8, %{{.*}} = %c3) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c160, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c2560_i32 {
// CHECK: %[[W:.*]] = memref.get_global @weights : memref<5xf32>
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[VIEW:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1x20x32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[BUF:.*]] = memref.memory_space_cast %[[VIEW]] : memref<1x20x32xf32, #gpu.address_space<workgroup>> to memref<1x20x32xf32>
// CHECK: %[[TILE:.*]] = memref.subview %[[IN]][%[[BZ]], %{{.*}}, %{{.*}}] [1, 20, 36] [1, 1, 1]
// The fill of the buffer, then the x pass (5 taps per thread) into it.
// CHECK: scf.for %{{.*}} = %[[TX]] to %c640 step %c160 {
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TX]] to %c640 step %c160 {
// CHECK: scf.for %[[T:.*]] = %c0 to %c5 step %c1 iter_args
// CHECK: memref.load %[[TILE]]
// CHECK: memref.load %[[W]][%[[T]]]
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// The y pass from the buffer into the output's tile.
// CHECK: %[[OTILE:.*]] = memref.subview %[[OUT]]
// CHECK: scf.for %{{.*}} = %[[TX]] to %c512 step %c160 {
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TX]] to %c512 step %c160 {
// CHECK: memref.load %[[BUF]]
// CHECK: memref.store %{{.*}}, %[[OTILE]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
  func.func @blur(%arg0: memref<3x132x260xf32>, %arg1: memref<3x128x256xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @weights : memref<5xf32>
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 160 threads per tile, 4 op(s) per tile with barriers between them, 2560 bytes of tile buffers in shared memory}}
    scf.forall (%c, %i, %j) = (0, 0, 0) to (3, 128, 256) step (1, 16, 32) {
      %in = memref.subview %arg0[%c, %i, %j] [1, 20, 36] [1, 1, 1] : memref<3x132x260xf32> to memref<1x20x36xf32, strided<[34320, 260, 1], offset: ?>>
      %buf = memref.alloc() {alignment = 64 : i64} : memref<1x20x32xf32>
      linalg.fill ins(%cst : f32) outs(%buf : memref<1x20x32xf32>)
      linalg.generic {indexing_maps = [#in_x, #taps, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%in, %0 : memref<1x20x36xf32, strided<[34320, 260, 1], offset: ?>>, memref<5xf32>) outs(%buf : memref<1x20x32xf32>) {
      ^bb0(%x: f32, %w: f32, %acc: f32):
        %1 = arith.mulf %x, %w : f32
        %2 = arith.addf %acc, %1 : f32
        linalg.yield %2 : f32
      }
      %out = memref.subview %arg1[%c, %i, %j] [1, 16, 32] [1, 1, 1] : memref<3x128x256xf32> to memref<1x16x32xf32, strided<[32768, 256, 1], offset: ?>>
      linalg.fill ins(%cst : f32) outs(%out : memref<1x16x32xf32, strided<[32768, 256, 1], offset: ?>>)
      linalg.generic {indexing_maps = [#in_y, #taps, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%buf, %0 : memref<1x20x32xf32>, memref<5xf32>) outs(%out : memref<1x16x32xf32, strided<[32768, 256, 1], offset: ?>>) {
      ^bb0(%x: f32, %w: f32, %acc: f32):
        %1 = arith.mulf %x, %w : f32
        %2 = arith.addf %acc, %1 : f32
        linalg.yield %2 : f32
      }
      memref.dealloc %buf : memref<1x20x32xf32>
    }
    return
  }
}

// -----

// A tile loop holding something fusion never leaves there is an error at
// the loop (it would otherwise run on the host).

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
  func.func private @helper(index)
  func.func @odd_tile(%arg0: memref<64xf32>) {
    // expected-error @below {{cannot map this tile loop to a GPU kernel: 'func.call' in the tile}}
    scf.forall (%i) = (0) to (64) step (16) {
      func.call @helper(%i) : (index) -> ()
    }
    return
  }
}

// -----

// CPU targets keep their tile loops.

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512>} {
// CHECK-LABEL: func.func @cpu(
// CHECK: scf.forall
  func.func @cpu(%arg0: memref<64xf32>) {
    %cst = arith.constant 1.0 : f32
    scf.forall (%i) = (0) to (64) step (16) {
      %s = memref.subview %arg0[%i] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
      linalg.fill ins(%cst : f32) outs(%s : memref<16xf32, strided<[1], offset: ?>>)
    }
    return
  }
}

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-tiles-to-gpu{columns-per-thread=1}),canonicalize,cse)' | FileCheck %s

// A fused blur tile loop (as tessel-fuse-producers and bufferization leave
// it: the x pass into a tile buffer, the y pass from it) becomes one kernel:
// a block per 1x16x32 tile (8 x 8 x 3 blocks), the 20x32 tile buffer in
// shared memory, each op a loop that the block's 160 threads share (640
// iterations of the largest, a quarter each), and the filter weights'
// global read in the kernel. The two fills are folded into the passes
// after them (each thread's tap accumulator starts at the fill's 0.0; no
// store, barrier and load back), so two ops remain, with one barrier
// between them: the x pass writes the buffer the y pass reads.

#in_x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + d3)>
#taps = affine_map<(d0, d1, d2, d3) -> (d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#in_y = affine_map<(d0, d1, d2, d3) -> (d0, d1 + d3, d2)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
  memref.global "private" constant @weights : memref<5xf32> = dense<[6.250000e-02, 2.500000e-01, 3.750000e-01, 2.500000e-01, 6.250000e-02]>
// CHECK-LABEL: func.func @blur(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<3x132x260xf32>, %[[OUT:[a-z0-9]+]]: memref<3x128x256xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: scf.forall
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %[[BZ:.*]]) in (%{{.*}} = %c8, %{{.*}} = %c8, %{{.*}} = %c3) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c160, %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %c2560_i32 {
// CHECK: %[[W:.*]] = memref.get_global @weights : memref<5xf32>
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[VIEW:.*]] = memref.view %[[SMEM]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1x20x32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[BUF:.*]] = memref.memory_space_cast %[[VIEW]] : memref<1x20x32xf32, #gpu.address_space<workgroup>> to memref<1x20x32xf32>
// CHECK: %[[TILE:.*]] = memref.subview %[[IN]][%[[BZ]], %{{.*}}, %{{.*}}] [1, 20, 36] [1, 1, 1]
// The x pass (5 taps per thread, from the fill's value) into the buffer:
// no fill loop and no barrier before it, nothing loaded from the buffer.
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TX]] to %c640 step %c160 {
// CHECK-NOT: memref.load %[[BUF]][
// CHECK: scf.for %[[T:.*]] = %c0 to %c5 step %c1 iter_args(%{{.*}} = %[[ZERO]]) -> (f32) {
// CHECK: memref.load %[[TILE]]
// CHECK: memref.load %[[W]][%[[T]]]
// CHECK: memref.store %{{.*}}, %[[BUF]][
// CHECK: gpu.barrier
// The y pass from the buffer into the output's tile, likewise from the
// output fill's value (the output is not loaded). Its rows move with the
// taps, so each thread takes two rows at once (four would leave threads
// without a row group: 4 x 32 < 160), the taps unrolled: the two rows read
// six buffer rows, not ten.
// CHECK: %[[OTILE:.*]] = memref.subview %[[OUT]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TX]] to %c256 step %c160 {
// CHECK-NOT: memref.load %[[OTILE]]
// CHECK-NOT: scf.for
// CHECK-COUNT-6: memref.load %[[BUF]][
// CHECK-NOT: memref.load %[[BUF]][
// CHECK: memref.store %{{.*}}, %[[OTILE]]
// CHECK: memref.store %{{.*}}, %[[OTILE]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
  func.func @blur(%arg0: memref<3x132x260xf32>, %arg1: memref<3x128x256xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = memref.get_global @weights : memref<5xf32>
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 160 threads per tile, 2 op(s) per tile with barriers between them (0 reduced per warp, 0 per block, by shuffles), 2560 bytes of tile buffers in shared memory, rows per thread 1/2}}
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

// A fill is folded into the next op on its buffer when that op only writes
// the buffer, through the same view, once per element: the fill's value
// starts the op's accumulators. The values here (1.0 for a sum, -1.0 for a
// max) are not the combiners' identities, so it is the fill's value that
// is seen: a thread's sum over its row starts from 1.0 (no fill loop and
// no barrier before it), and lane 0 combines its warp's maximum with -1.0
// instead of the output's loaded value.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @fill_into_sum(
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
// CHECK: %[[XS:.*]] = memref.subview {{.*}} : memref<1024x4xf32> to
// CHECK: %[[SS:.*]] = memref.subview {{.*}} : memref<1024xf32> to
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[ROW:.*]] = %[[T]] to %c256 step %c64 {
// CHECK-NOT: memref.load %[[SS]]
// CHECK: %[[SUM:.*]] = scf.for %[[COL:.*]] = %c0 to %c4 step %c1 iter_args(%[[ACC:.*]] = %[[ONE]]) -> (f32) {
// CHECK: %[[V:.*]] = memref.load %[[XS]][%[[ROW]], %[[COL]]]
// CHECK: arith.addf %[[V]], %[[ACC]]
// CHECK: memref.store %[[SUM]], %[[SS]][%[[ROW]]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
  func.func @fill_into_sum(%x: memref<1024x4xf32>, %s: memref<1024xf32>) {
    %one = arith.constant 1.0 : f32
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 64 threads per tile, 1 op(s) per tile with barriers between them (0 reduced per warp, 0 per block, by shuffles), 0 bytes of tile buffers in shared memory}}
    scf.forall (%i) = (0) to (1024) step (256) {
      %xs = memref.subview %x[%i, 0] [256, 4] [1, 1] : memref<1024x4xf32> to memref<256x4xf32, strided<[4, 1], offset: ?>>
      %ss = memref.subview %s[%i] [256] [1] : memref<1024xf32> to memref<256xf32, strided<[1], offset: ?>>
      linalg.fill ins(%one : f32) outs(%ss : memref<256xf32, strided<[1], offset: ?>>)
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
          ins(%xs : memref<256x4xf32, strided<[4, 1], offset: ?>>) outs(%ss : memref<256xf32, strided<[1], offset: ?>>) {
      ^bb0(%v: f32, %acc: f32):
        %r = arith.addf %v, %acc : f32
        linalg.yield %r : f32
      }
    }
    return
  }
// CHECK-LABEL: func.func @fill_into_max_per_warp(
// CHECK-DAG: %[[MINUS:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[MS:.*]] = memref.subview {{.*}} : memref<64xf32> to
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %c8 step %c8 {
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NEXT: %[[MAX:.*]] = arith.maximumf
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[NEW:.*]] = arith.maximumf %[[MAX]], %[[MINUS]] : f32
// CHECK-NEXT: memref.store %[[NEW]], %[[MS]][%[[ROW]]]
// CHECK: gpu.terminator
  func.func @fill_into_max_per_warp(%x: memref<64x64xf32>, %m: memref<64xf32>) {
    %minus = arith.constant -1.0 : f32
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 256 threads per tile, 1 op(s) per tile with barriers between them (1 reduced per warp, 0 per block, by shuffles), 0 bytes of tile buffers in shared memory}}
    scf.forall (%i) = (0) to (64) step (8) {
      %xs = memref.subview %x[%i, 0] [8, 64] [1, 1] : memref<64x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
      %ms = memref.subview %m[%i] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
      linalg.fill ins(%minus : f32) outs(%ms : memref<8xf32, strided<[1], offset: ?>>)
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
          ins(%xs : memref<8x64xf32, strided<[64, 1], offset: ?>>) outs(%ms : memref<8xf32, strided<[1], offset: ?>>) {
      ^bb0(%v: f32, %acc: f32):
        %r = arith.maximumf %v, %acc : f32
        linalg.yield %r : f32
      }
    }
    return
  }
}

// -----

// Fills that are kept: the next op on %ys writes only half of it (a
// subview, so the other half keeps the fill's 1.0), and the next op on the
// tile buffer reads it as an input. Each stays a loop of stores with a
// barrier after it: 4 ops, 3 barriers.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @fills_kept(
// CHECK-SAME: %{{[a-z0-9]+}}: memref<64x32xf32>, %[[Y:[a-z0-9]+]]: memref<64x32xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
// CHECK: %[[BUF:.*]] = memref.memory_space_cast
// CHECK: %[[YS:.*]] = memref.subview %[[Y]][%{{.*}}, 0] [8, 32]
// CHECK: scf.for %{{.*}} = %[[T]] to %c256 step %c64 {
// CHECK: memref.store %[[ONE]], %[[YS]][
// CHECK: gpu.barrier
// CHECK: %[[YH:.*]] = memref.subview %[[YS]][0, 0] [8, 16]
// CHECK: scf.for %{{.*}} = %[[T]] to %c128 step %c64 {
// CHECK: memref.store %{{.*}}, %[[YH]][
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %c256 step %c64 {
// CHECK: memref.store %[[TWO]], %[[BUF]][
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %c256 step %c64 {
// CHECK: memref.load %[[BUF]][
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
  func.func @fills_kept(%x: memref<64x32xf32>, %y: memref<64x32xf32>, %z: memref<64x32xf32>) {
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 64 threads per tile, 4 op(s) per tile with barriers between them (0 reduced per warp, 0 per block, by shuffles), 1024 bytes of tile buffers in shared memory}}
    scf.forall (%i) = (0) to (64) step (8) {
      %xs = memref.subview %x[%i, 0] [8, 32] [1, 1] : memref<64x32xf32> to memref<8x32xf32, strided<[32, 1], offset: ?>>
      %ys = memref.subview %y[%i, 0] [8, 32] [1, 1] : memref<64x32xf32> to memref<8x32xf32, strided<[32, 1], offset: ?>>
      %zs = memref.subview %z[%i, 0] [8, 32] [1, 1] : memref<64x32xf32> to memref<8x32xf32, strided<[32, 1], offset: ?>>
      linalg.fill ins(%one : f32) outs(%ys : memref<8x32xf32, strided<[32, 1], offset: ?>>)
      %yh = memref.subview %ys[0, 0] [8, 16] [1, 1] : memref<8x32xf32, strided<[32, 1], offset: ?>> to memref<8x16xf32, strided<[32, 1], offset: ?>>
      %xh = memref.subview %xs[0, 0] [8, 16] [1, 1] : memref<8x32xf32, strided<[32, 1], offset: ?>> to memref<8x16xf32, strided<[32, 1], offset: ?>>
      linalg.copy ins(%xh : memref<8x16xf32, strided<[32, 1], offset: ?>>) outs(%yh : memref<8x16xf32, strided<[32, 1], offset: ?>>)
      %buf = memref.alloc() : memref<8x32xf32>
      linalg.fill ins(%two : f32) outs(%buf : memref<8x32xf32>)
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
          ins(%buf, %xs : memref<8x32xf32>, memref<8x32xf32, strided<[32, 1], offset: ?>>) outs(%zs : memref<8x32xf32, strided<[32, 1], offset: ?>>) {
      ^bb0(%b: f32, %v: f32, %o: f32):
        %r = arith.addf %b, %v : f32
        linalg.yield %r : f32
      }
      memref.dealloc %buf : memref<8x32xf32>
    }
    return
  }
}

// -----

// A loop holding what fusion never leaves in a tile (a call; a linalg op
// under an affine.for, which every thread would run whole) is left alone
// with a remark: the parallel-loop mapping later in the pipeline takes it.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
  func.func private @helper(index)
// CHECK-LABEL: func.func @odd_tile(
// CHECK-NOT: gpu.launch
// CHECK: scf.forall
  func.func @odd_tile(%arg0: memref<64xf32>) {
    // expected-remark @below {{tile loop not mapped to a GPU kernel: 'func.call' in the tile}}
    scf.forall (%i) = (0) to (64) step (16) {
      func.call @helper(%i) : (index) -> ()
    }
    return
  }
// CHECK-LABEL: func.func @nested_op(
// CHECK-NOT: gpu.launch
// CHECK: scf.forall
// CHECK: affine.for
// CHECK: linalg.fill
  func.func @nested_op(%arg0: memref<64x4xf32>) {
    %cst = arith.constant 1.0 : f32
    // expected-remark @below {{tile loop not mapped to a GPU kernel: 'affine.for' in the tile}}
    scf.forall (%i) = (0) to (64) step (16) {
      affine.for %k = 0 to 4 {
        %s = memref.subview %arg0[%i, %k] [16, 1] [1, 1] : memref<64x4xf32> to memref<16xf32, strided<[4], offset: ?>>
        linalg.fill ins(%cst : f32) outs(%s : memref<16xf32, strided<[4], offset: ?>>)
      }
    }
    return
  }
}

// -----

// Tile buffers are laid out by their bytes in memory: 100 i1 take 100 bytes
// (the f32 buffer after them starts at 112, the next multiple of 16), and
// index elements 8 bytes each. No op after the index fill writes its
// buffer, so the fill is kept: 4 ops, 3 barriers.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @mixed_buffers(
// CHECK: dynamic_shared_memory_size %c944_i32
// CHECK: memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<100xi1, #gpu.address_space<workgroup>>
// CHECK: memref.view %{{.*}}[%c112][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<100xf32, #gpu.address_space<workgroup>>
// CHECK: %[[IDX_VIEW:.*]] = memref.view %{{.*}}[%c512][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<54xindex, #gpu.address_space<workgroup>>
// CHECK: %[[IDX:.*]] = memref.memory_space_cast %[[IDX_VIEW]]
// CHECK-COUNT-2: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %c54 step %c32 {
// CHECK-NEXT: memref.store %c0, %[[IDX]][
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
  func.func @mixed_buffers(%in: memref<400xf32>, %out: memref<400xf32>) {
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 32 threads per tile, 4 op(s) per tile with barriers between them (0 reduced per warp, 0 per block, by shuffles), 944 bytes of tile buffers in shared memory}}
    scf.forall (%i) = (0) to (400) step (100) {
      %x = memref.subview %in[%i] [100] [1] : memref<400xf32> to memref<100xf32, strided<[1], offset: ?>>
      %y = memref.subview %out[%i] [100] [1] : memref<400xf32> to memref<100xf32, strided<[1], offset: ?>>
      %mask = memref.alloc() : memref<100xi1>
      %pos = memref.alloc() : memref<100xf32>
      %idx = memref.alloc() : memref<54xindex>
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
          ins(%x : memref<100xf32, strided<[1], offset: ?>>) outs(%mask : memref<100xi1>) {
      ^bb0(%v: f32, %o: i1):
        %c = arith.cmpf ogt, %v, %zero : f32
        linalg.yield %c : i1
      }
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
          ins(%mask, %x : memref<100xi1>, memref<100xf32, strided<[1], offset: ?>>) outs(%pos : memref<100xf32>) {
      ^bb0(%c: i1, %v: f32, %o: f32):
        %r = arith.select %c, %v, %zero : f32
        linalg.yield %r : f32
      }
      linalg.fill ins(%c0 : index) outs(%idx : memref<54xindex>)
      linalg.copy ins(%pos : memref<100xf32>) outs(%y : memref<100xf32, strided<[1], offset: ?>>)
      memref.dealloc %mask : memref<100xi1>
      memref.dealloc %pos : memref<100xf32>
      memref.dealloc %idx : memref<54xindex>
    }
    return
  }
}

// -----

// Tile buffers beyond a block's shared memory: the loop is left alone.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 1024, warp_size = 32, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @too_big(
// CHECK-NOT: gpu.launch
// CHECK: scf.forall
  func.func @too_big(%out: memref<4096xf32>) {
    %one = arith.constant 1.0 : f32
    // expected-remark @below {{tile loop not mapped to a GPU kernel: its tile buffers take 4096 bytes of shared memory, more than the block's 1024}}
    scf.forall (%i) = (0) to (4096) step (1024) {
      %buf = memref.alloc() : memref<1024xf32>
      %y = memref.subview %out[%i] [1024] [1] : memref<4096xf32> to memref<1024xf32, strided<[1], offset: ?>>
      linalg.fill ins(%one : f32) outs(%buf : memref<1024xf32>)
      linalg.copy ins(%buf : memref<1024xf32>) outs(%y : memref<1024xf32, strided<[1], offset: ?>>)
      memref.dealloc %buf : memref<1024xf32>
    }
    return
  }
}

// -----

// A target without warp size and block limit (a hand-written
// #tessel.target) gets NVIDIA's 32 and 1024. A grid whose y would exceed
// 65535 blocks runs every tile on x, the loop indices decoded from it. An
// edge tile's extent (affine.min) is at most 64: its threads' loop runs
// over all 64 (the index split by the constant 64, not by the extent), and
// a guard skips the columns past the extent.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", smem_per_block = 166912>} {
// CHECK-LABEL: func.func @tall(
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c200000, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c32,
// CHECK: %[[COL:.*]] = arith.remui %[[BX]], %c2
// CHECK: %[[ROW:.*]] = arith.divui %[[BX]], %c2
// CHECK: %[[J:.*]] = affine.apply #{{.*}}()[%[[COL]]]
// CHECK: %[[N:.*]] = affine.min #{{.*}}()[%[[COL]]]
// CHECK: %[[Y:.*]] = memref.subview %{{.*}}[%[[ROW]], %[[J]]] [1, %[[N]]]
// CHECK: scf.for %[[IV:.*]] = %[[TX]] to %c64 step %c32 {
// CHECK: %[[C:.*]] = arith.remui %[[IV]], %c64
// CHECK: %[[R:.*]] = arith.divui %[[IV]], %c64
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %[[C]], %[[N]]
// CHECK: scf.if %[[INSIDE]] {
// CHECK: memref.store %{{.*}}, %[[Y]][%[[R]], %[[C]]]
  func.func @tall(%out: memref<100000x100xf32>) {
    %one = arith.constant 1.0 : f32
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 32 threads per tile}}
    scf.forall (%i, %j) = (0, 0) to (100000, 100) step (1, 64) {
      %n = affine.min affine_map<(j) -> (64, 100 - j)>(%j)
      %y = memref.subview %out[%i, %j] [1, %n] [1, 1] : memref<100000x100xf32> to memref<1x?xf32, strided<[100, 1], offset: ?>>
      linalg.fill ins(%one : f32) outs(%y : memref<1x?xf32, strided<[100, 1], offset: ?>>)
    }
    return
  }
}

// -----

// Both extents of an edge tile dynamic (16 rows, 64 columns at most): the
// threads' loop runs over 16 x 64, and the guard checks both indices.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @edge_2d(
// CHECK: gpu.launch {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[M:.*]] = affine.min
// CHECK: %[[N:.*]] = affine.min
// CHECK: %[[Y:.*]] = memref.subview %{{.*}} [%[[M]], %[[N]]] [1, 1]
// CHECK: scf.for %[[IV:.*]] = %[[TX]] to %c1024 step %c256 {
// CHECK: %[[C:.*]] = arith.remui %[[IV]], %c64
// CHECK: %[[R:.*]] = arith.divui %[[IV]], %c64
// CHECK-DAG: %[[RIN:.*]] = arith.cmpi ult, %[[R]], %[[M]]
// CHECK-DAG: %[[CIN:.*]] = arith.cmpi ult, %[[C]], %[[N]]
// CHECK: %[[INSIDE:.*]] = arith.andi
// CHECK-SAME: %[[RIN]]
// CHECK-SAME: %[[CIN]]
// CHECK: scf.if %[[INSIDE]] {
// CHECK: memref.store %{{.*}}, %[[Y]][%[[R]], %[[C]]]
  func.func @edge_2d(%out: memref<100x100xf32>) {
    %one = arith.constant 1.0 : f32
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 256 threads per tile, 1 op(s) per tile with barriers between them (0 reduced per warp, 0 per block, by shuffles), 0 bytes of tile buffers in shared memory}}
    scf.forall (%i, %j) = (0, 0) to (100, 100) step (16, 64) {
      %m = affine.min affine_map<(i) -> (16, 100 - i)>(%i)
      %n = affine.min affine_map<(j) -> (64, 100 - j)>(%j)
      %y = memref.subview %out[%i, %j] [%m, %n] [1, 1] : memref<100x100xf32> to memref<?x?xf32, strided<[100, 1], offset: ?>>
      linalg.fill ins(%one : f32) outs(%y : memref<?x?xf32, strided<[100, 1], offset: ?>>)
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

// -----

// Row maxima of 8-row tiles of 64 columns go per warp: warp w takes rows
// w, w + 8, ...; its rows are 65 floats apart, so no group of columns
// starts 8- or 16-byte aligned, and its lanes fold single columns lane,
// lane + 32, ... (coalesced):
// the lane counts its columns (ceil((64 - lane) / 32)), folds them four
// per trip into four independent maxima (four loads in flight), combines
// the four, and folds the rest one per trip. Five xor shuffles combine the
// lanes and lane 0 stores. One row of 4096 columns per tile goes per
// block: all 256 threads fold it, each taking groups of 4 adjacent
// columns (one 16-byte load, the rows being aligned) t, t + 256, ... in
// group numbers, into four chains (no remainder: 4096 is a multiple of 4),
// and the 8 warps' results meet in 32 bytes of shared memory. (The model
// weighs the cycles the busiest thread waits on loads: a 64-column row
// per warp is two loads per lane, against a block's shuffles, shared-memory
// exchange and barriers; a 4096-column row is 128 loads per lane of one
// warp, 16 per thread of the block.)

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @row_max_per_warp(
// CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[XS:.*]] = memref.subview {{.*}} : memref<64x65xf32> to
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK: %[[WARP:.*]] = arith.divui %[[T]], %c32
// CHECK: scf.for %[[ROW:.*]] = %[[WARP]] to %c8 step %c8 {
// CHECK: %[[BEFORE:.*]] = arith.cmpi ult, %[[LANE]], %c64
// CHECK: %[[END:.*]] = arith.select %[[BEFORE]], %c64, %[[LANE]]
// CHECK: %[[SPAN:.*]] = arith.subi %[[END]], %[[LANE]]
// CHECK: %[[UP:.*]] = arith.addi %[[SPAN]], %c31
// CHECK: %[[COUNT:.*]] = arith.divui %[[UP]], %c32
// CHECK: %[[QUADS:.*]] = arith.divui %[[COUNT]], %c4
// CHECK: %[[MAIN:.*]] = arith.muli %[[QUADS]], %c4
// CHECK: %[[CHAINS:[^:]+]]:4 = scf.for %[[J:[^ ]+]] = %c0 to %[[MAIN]] step %c4 iter_args(%[[A0:[^ ]+]] = %[[NEG_INF]], %[[A1:[^ ]+]] = %[[NEG_INF]], %[[A2:[^ ]+]] = %[[NEG_INF]], %[[A3:[^ ]+]] = %[[NEG_INF]]) -> (f32, f32, f32, f32) {
// CHECK: %[[OFF0:.*]] = arith.muli %[[J]], %c32
// CHECK: %[[COL0:.*]] = arith.addi %[[LANE]], %[[OFF0]]
// CHECK: %[[V0:.*]] = memref.load %[[XS]][%[[ROW]], %[[COL0]]]
// CHECK: %[[M0:.*]] = arith.maximumf %[[V0]], %[[A0]]
// CHECK: %[[J1:.*]] = arith.addi %[[J]], %c1
// CHECK: %[[OFF1:.*]] = arith.muli %[[J1]], %c32
// CHECK: %[[COL1:.*]] = arith.addi %[[LANE]], %[[OFF1]]
// CHECK: %[[V1:.*]] = memref.load %[[XS]][%[[ROW]], %[[COL1]]]
// CHECK: %[[M1:.*]] = arith.maximumf %[[V1]], %[[A1]]
// CHECK: %[[J2:.*]] = arith.addi %[[J]], %c2
// CHECK: %[[OFF2:.*]] = arith.muli %[[J2]], %c32
// CHECK: %[[COL2:.*]] = arith.addi %[[LANE]], %[[OFF2]]
// CHECK: %[[V2:.*]] = memref.load %[[XS]][%[[ROW]], %[[COL2]]]
// CHECK: %[[M2:.*]] = arith.maximumf %[[V2]], %[[A2]]
// CHECK: %[[J3:.*]] = arith.addi %[[J]], %c3
// CHECK: %[[OFF3:.*]] = arith.muli %[[J3]], %c32
// CHECK: %[[COL3:.*]] = arith.addi %[[LANE]], %[[OFF3]]
// CHECK: %[[V3:.*]] = memref.load %[[XS]][%[[ROW]], %[[COL3]]]
// CHECK: %[[M3:.*]] = arith.maximumf %[[V3]], %[[A3]]
// CHECK: scf.yield %[[M0]], %[[M1]], %[[M2]], %[[M3]] : f32, f32, f32, f32
// CHECK: %[[M01:.*]] = arith.maximumf %[[CHAINS]]#0, %[[CHAINS]]#1
// CHECK: %[[M012:.*]] = arith.maximumf %[[M01]], %[[CHAINS]]#2
// CHECK: %[[M0123:.*]] = arith.maximumf %[[M012]], %[[CHAINS]]#3
// CHECK: %[[M:.*]] = scf.for %[[K:[^ ]+]] = %[[MAIN]] to %[[COUNT]] step %c1 iter_args(%[[ACC:[^ ]+]] = %[[M0123]]) -> (f32) {
// CHECK: %[[OFF:.*]] = arith.muli %[[K]], %c32
// CHECK: %[[COL:.*]] = arith.addi %[[LANE]], %[[OFF]]
// CHECK: %[[V:.*]] = memref.load %[[XS]][%[[ROW]], %[[COL]]]
// CHECK: arith.maximumf %[[V]], %[[ACC]]
// CHECK: gpu.shuffle  xor %[[M]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: arith.maximumf
// CHECK: memref.store
  func.func @row_max_per_warp(%x: memref<64x65xf32>, %m: memref<64xf32>) {
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 256 threads per tile, 1 op(s) per tile with barriers between them (1 reduced per warp, 0 per block, by shuffles), 0 bytes of tile buffers in shared memory}}
    scf.forall (%i) = (0) to (64) step (8) {
      %xs = memref.subview %x[%i, 0] [8, 64] [1, 1] : memref<64x65xf32> to memref<8x64xf32, strided<[65, 1], offset: ?>>
      %ms = memref.subview %m[%i] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
          ins(%xs : memref<8x64xf32, strided<[65, 1], offset: ?>>) outs(%ms : memref<8xf32, strided<[1], offset: ?>>) {
      ^bb0(%v: f32, %acc: f32):
        %r = arith.maximumf %v, %acc : f32
        linalg.yield %r : f32
      }
    }
    return
  }
// CHECK-LABEL: func.func @row_sum_per_block(
// CHECK: gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, {{.*}} dynamic_shared_memory_size %c32_i32 {
// CHECK: %[[SLOTS:.*]] = memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[BEFORE:.*]] = arith.cmpi ult, %[[T]], %c1024
// CHECK: %[[END:.*]] = arith.select %[[BEFORE]], %c1024, %[[T]]
// CHECK: %[[SPAN:.*]] = arith.subi %[[END]], %[[T]]
// CHECK: %[[UP:.*]] = arith.addi %[[SPAN]], %c255
// CHECK: %[[COUNT:.*]] = arith.divui %[[UP]], %c256
// CHECK: %[[CHAINS:[^:]+]]:4 = scf.for %[[K:[^ ]+]] = %c0 to %[[COUNT]] step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK: %[[OFF:.*]] = arith.muli %[[K]], %c256
// CHECK: %[[GROUP:.*]] = arith.addi %[[T]], %[[OFF]]
// CHECK: %[[COL0:.*]] = arith.muli %[[GROUP]], %c4
// CHECK: memref.load %{{.*}}[%c0, %[[COL0]]] {alignment = 16 : i64}
// CHECK-NEXT: arith.addf
// CHECK-NEXT: %[[COL1:.*]] = arith.addi %[[COL0]], %c1
// CHECK-NEXT: memref.load %{{.*}}[%c0, %[[COL1]]] :
// CHECK-NEXT: arith.addf
// CHECK-NEXT: %[[COL2:.*]] = arith.addi %[[COL0]], %c2
// CHECK-NEXT: memref.load %{{.*}}[%c0, %[[COL2]]] {alignment = 8 : i64}
// CHECK-NEXT: arith.addf
// CHECK-NEXT: %[[COL3:.*]] = arith.addi %[[COL0]], %c3
// CHECK-NEXT: memref.load %{{.*}}[%c0, %[[COL3]]] :
// CHECK-NEXT: arith.addf
// CHECK-NEXT: scf.yield
// CHECK: %[[S01:.*]] = arith.addf %[[CHAINS]]#0, %[[CHAINS]]#1
// CHECK: %[[S012:.*]] = arith.addf %[[S01]], %[[CHAINS]]#2
// CHECK: %[[P:.*]] = arith.addf %[[S012]], %[[CHAINS]]#3
// CHECK-NOT: scf.for
// CHECK: gpu.shuffle  xor %[[P]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[SLOTS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SLOTS]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: arith.addf
// CHECK: memref.store
// CHECK: gpu.barrier
  func.func @row_sum_per_block(%x: memref<64x4096xf32>, %s: memref<64xf32>) {
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 256 threads per tile, 1 op(s) per tile with barriers between them (0 reduced per warp, 1 per block, by shuffles), 32 bytes of tile buffers in shared memory}}
    scf.forall (%i) = (0) to (64) step (1) {
      %xs = memref.subview %x[%i, 0] [1, 4096] [1, 1] : memref<64x4096xf32> to memref<1x4096xf32, strided<[4096, 1], offset: ?>>
      %ss = memref.subview %s[%i] [1] [1] : memref<64xf32> to memref<1xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
          ins(%xs : memref<1x4096xf32, strided<[4096, 1], offset: ?>>) outs(%ss : memref<1xf32, strided<[1], offset: ?>>) {
      ^bb0(%v: f32, %acc: f32):
        %r = arith.addf %v, %acc : f32
        linalg.yield %r : f32
      }
    }
    return
  }
}

// -----

// Rows per thread for loads in flight: with the target's memory latency and
// bandwidth (700 cycles x 48 bytes per SM), 2048 resident threads must each
// have 33600 / (2048 x 4) -> 8 rows of the input in flight. The 30x64 tile
// takes 4 row groups of 8 x 64 columns, one per thread. The last group
// (rows 24..31) passes the 30 rows: groups that fit take the first branch,
// their eight rows' loads before the stores; the others read their rows
// clamped to the last one and store only the rows that exist.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>} {
// CHECK-LABEL: func.func @latency_rows(
// CHECK: gpu.launch {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[X:.*]] = memref.subview %{{.*}} [30, 64] [1, 1]
// CHECK: %[[Y:.*]] = memref.subview %{{.*}} [30, 64] [1, 1]
// CHECK: scf.for %[[IV:.*]] = %[[TX]] to %c256 step %c256 {
// CHECK: %[[C:.*]] = arith.remui %[[IV]], %c64
// CHECK: %[[G:.*]] = arith.divui %[[IV]], %c64
// CHECK: %[[R0:.*]] = affine.apply #{{.*}}(%[[G]])
// CHECK: %[[END:.*]] = arith.addi %[[R0]], %c8
// CHECK: %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %c30
// CHECK: scf.if %[[WHOLE]] {
// CHECK-COUNT-8: memref.load %[[X]][
// CHECK-NOT: scf.if
// CHECK: memref.store %{{.*}}, %[[Y]][%[[R0]], %[[C]]]
// CHECK-COUNT-7: memref.store %{{.*}}, %[[Y]][
// CHECK: } else {
// CHECK: %[[R1:.*]] = affine.apply #{{.*}}(%[[G]])
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[R1]], %c30
// CHECK: %[[CL1:.*]] = arith.minui %[[R1]], %c29
// CHECK-COUNT-8: memref.load %[[X]][
// CHECK: memref.store %{{.*}}, %[[Y]][%[[R0]], %[[C]]]
// CHECK: scf.if %[[IN1]] {
// CHECK-NEXT: memref.store %{{.*}}, %[[Y]][%[[CL1]], %[[C]]]
  func.func @latency_rows(%in: memref<60x128xf32>, %out: memref<60x128xf32>) {
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 256 threads per tile, 1 op(s) per tile with barriers between them (0 reduced per warp, 0 per block, by shuffles), 0 bytes of tile buffers in shared memory, rows per thread 8}}
    scf.forall (%i, %j) = (0, 0) to (60, 128) step (30, 64) {
      %x = memref.subview %in[%i, %j] [30, 64] [1, 1] : memref<60x128xf32> to memref<30x64xf32, strided<[128, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [30, 64] [1, 1] : memref<60x128xf32> to memref<30x64xf32, strided<[128, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<30x64xf32, strided<[128, 1], offset: ?>>) outs(%y : memref<30x64xf32, strided<[128, 1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32):
        %d = arith.addf %a, %a : f32
        linalg.yield %d : f32
      }
    }
    return
  }
}

// -----

// The same tile on a target that gives its device-memory bandwidth: that,
// not L2's, is what the loads in flight cover. 700 cycles x 14 bytes over
// 2048 resident threads of 4 bytes each: 2 rows per thread (30 rows make
// whole groups, so no partial-group branch).

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 14, memory_latency = 700>} {
// CHECK-LABEL: func.func @dram_bandwidth_rows(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c960 step %c256 {
// CHECK-NOT: scf.if
// CHECK-COUNT-2: memref.load
// CHECK-NOT: memref.load
// CHECK-COUNT-2: memref.store
// CHECK-NEXT: }
  func.func @dram_bandwidth_rows(%in: memref<60x128xf32>, %out: memref<60x128xf32>) {
    // expected-remark @below {{rows per thread 2}}
    scf.forall (%i, %j) = (0, 0) to (60, 128) step (30, 64) {
      %x = memref.subview %in[%i, %j] [30, 64] [1, 1] : memref<60x128xf32> to memref<30x64xf32, strided<[128, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [30, 64] [1, 1] : memref<60x128xf32> to memref<30x64xf32, strided<[128, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<30x64xf32, strided<[128, 1], offset: ?>>) outs(%y : memref<30x64xf32, strided<[128, 1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32):
        %d = arith.addf %a, %a : f32
        linalg.yield %d : f32
      }
    }
    return
  }
}

// -----

// The same tile on a target that does not give its memory latency: one row
// per thread (the loads-in-flight reason needs it; the op reuses no rows).

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @no_latency_one_row(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1920 step %c256 {
// CHECK-NOT: scf.if
// CHECK: memref.load
// CHECK-NOT: memref.load
// CHECK: memref.store
  func.func @no_latency_one_row(%in: memref<60x128xf32>, %out: memref<60x128xf32>) {
    // expected-remark @below {{rows per thread 1}}
    scf.forall (%i, %j) = (0, 0) to (60, 128) step (30, 64) {
      %x = memref.subview %in[%i, %j] [30, 64] [1, 1] : memref<60x128xf32> to memref<30x64xf32, strided<[128, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [30, 64] [1, 1] : memref<60x128xf32> to memref<30x64xf32, strided<[128, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<30x64xf32, strided<[128, 1], offset: ?>>) outs(%y : memref<30x64xf32, strided<[128, 1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32):
        %d = arith.addf %a, %a : f32
        linalg.yield %d : f32
      }
    }
    return
  }
}

// -----

// Several outputs folded at once. A tile of 4 rows of 4096 columns (a
// softmax tile's maxima) goes per block, its 4 rows together: every thread
// loads all four rows' columns before it combines one (a group of 4
// adjacent columns of each row per trip: four 16-byte loads in flight,
// into four chains per row), one shuffle tree and one exchange through
// shared memory (a slot per warp for each row: 4 x 32 bytes) serve all four,
// and thread 0 stores the four maxima; one barrier closes the group. Per
// warp, the rows of one warp would be 128 loads per lane, 4 at a time.
// 32 rows of 1024 columns go per warp, each warp taking 4 rows at once
// (rows 4w to 4w + 3); 6 rows of 4096 go per block in groups of 4, the
// second group's last two rows clamped to row 5 and not stored.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024, memory_latency = 600>} {
// CHECK-LABEL: func.func @rows_max_per_block(
// CHECK: gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, {{.*}} dynamic_shared_memory_size %c128_i32 {
// CHECK: %[[S0:.*]] = memref.view %{{.*}}[%c0][] : {{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S1:.*]] = memref.view %{{.*}}[%c32][] : {{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S2:.*]] = memref.view %{{.*}}[%c64][] : {{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S3:.*]] = memref.view %{{.*}}[%c96][] : {{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[XS:.*]] = memref.subview %{{.*}} [4, 4096] [1, 1]
// CHECK: %[[MS:.*]] = memref.subview %{{.*}} [4] [1]
// CHECK: scf.for %[[K:[^ ]+]] = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: %[[GROUP:.*]] = arith.addi %[[T]], %{{.*}}
// CHECK-NEXT: %[[COL:.*]] = arith.muli %[[GROUP]], %c4
// CHECK-NEXT: memref.load %[[XS]][%c0, %[[COL]]] {alignment = 16 : i64}
// CHECK-NEXT: memref.load %[[XS]][%c1, %[[COL]]] {alignment = 16 : i64}
// CHECK-NEXT: memref.load %[[XS]][%c2, %[[COL]]] {alignment = 16 : i64}
// CHECK-NEXT: memref.load %[[XS]][%c3, %[[COL]]] {alignment = 16 : i64}
// CHECK-COUNT-4: arith.maximumf
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK-COUNT-20: gpu.shuffle  xor
// CHECK: %[[WARP:.*]] = arith.divui %[[T]], %c32
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[S0]][%[[WARP]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S1]][%[[WARP]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S2]][%[[WARP]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S3]][%[[WARP]]]
// CHECK: gpu.barrier
// CHECK-COUNT-20: gpu.shuffle  xor
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[MS]][%c0]
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[MS]][%c1]
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[MS]][%c2]
// CHECK: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[MS]][%c3]
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.terminator
  func.func @rows_max_per_block(%x: memref<64x4096xf32>, %m: memref<64xf32>) {
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 256 threads per tile, 1 op(s) per tile with barriers between them (0 reduced per warp, 1 per block, by shuffles), 128 bytes of tile buffers in shared memory, rows per thread -}}
    scf.forall (%i) = (0) to (64) step (4) {
      %xs = memref.subview %x[%i, 0] [4, 4096] [1, 1] : memref<64x4096xf32> to memref<4x4096xf32, strided<[4096, 1], offset: ?>>
      %ms = memref.subview %m[%i] [4] [1] : memref<64xf32> to memref<4xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
          ins(%xs : memref<4x4096xf32, strided<[4096, 1], offset: ?>>) outs(%ms : memref<4xf32, strided<[1], offset: ?>>) {
      ^bb0(%v: f32, %acc: f32):
        %r = arith.maximumf %v, %acc : f32
        linalg.yield %r : f32
      }
    }
    return
  }
// CHECK-LABEL: func.func @rows_sum_per_warp(
// CHECK: gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[SS:.*]] = memref.subview %{{.*}} [32] [1]
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK: %[[WARP:.*]] = arith.divui %[[T]], %c32
// CHECK: %[[FIRSTROW:.*]] = arith.muli %[[WARP]], %c4
// CHECK: scf.for %[[ROW:.*]] = %[[FIRSTROW]] to %c32 step %c32 {
// CHECK-NOT: arith.minui
// CHECK: %[[ROW1:.*]] = arith.addi %[[ROW]], %c1
// CHECK: %[[ROW2:.*]] = arith.addi %[[ROW]], %c2
// CHECK: %[[ROW3:.*]] = arith.addi %[[ROW]], %c3
// CHECK: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: memref.load %{{.*}}[%[[ROW]], %[[COL:.*]]]
// CHECK-NEXT: memref.load %{{.*}}[%[[ROW1]], %[[COL]]]
// CHECK-NEXT: memref.load %{{.*}}[%[[ROW2]], %[[COL]]]
// CHECK-NEXT: memref.load %{{.*}}[%[[ROW3]], %[[COL]]]
// CHECK-COUNT-20: gpu.shuffle  xor
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SS]][%[[ROW]]]
// CHECK: memref.store %{{.*}}, %[[SS]][%[[ROW1]]]
// CHECK: memref.store %{{.*}}, %[[SS]][%[[ROW2]]]
// CHECK: memref.store %{{.*}}, %[[SS]][%[[ROW3]]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
  func.func @rows_sum_per_warp(%x: memref<64x1024xf32>, %s: memref<64xf32>) {
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 256 threads per tile, 1 op(s) per tile with barriers between them (1 reduced per warp, 0 per block, by shuffles), 0 bytes of tile buffers in shared memory, rows per thread -}}
    scf.forall (%i) = (0) to (64) step (32) {
      %xs = memref.subview %x[%i, 0] [32, 1024] [1, 1] : memref<64x1024xf32> to memref<32x1024xf32, strided<[1024, 1], offset: ?>>
      %ss = memref.subview %s[%i] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
          ins(%xs : memref<32x1024xf32, strided<[1024, 1], offset: ?>>) outs(%ss : memref<32xf32, strided<[1], offset: ?>>) {
      ^bb0(%v: f32, %acc: f32):
        %r = arith.addf %v, %acc : f32
        linalg.yield %r : f32
      }
    }
    return
  }
// CHECK-LABEL: func.func @six_rows_per_block(
// CHECK: gpu.launch {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in {{.*}} dynamic_shared_memory_size %c128_i32 {
// CHECK: %[[SS:.*]] = memref.subview %{{.*}} [6] [1]
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c6 step %c4 {
// CHECK: %[[NEXT1:.*]] = arith.addi %[[ROW]], %c1
// CHECK: %[[HAS1:.*]] = arith.cmpi ult, %[[NEXT1]], %c6
// CHECK: %[[ROW1:.*]] = arith.minui %[[NEXT1]], %c5
// CHECK: %[[NEXT2:.*]] = arith.addi %[[ROW]], %c2
// CHECK: %[[HAS2:.*]] = arith.cmpi ult, %[[NEXT2]], %c6
// CHECK: %[[ROW2:.*]] = arith.minui %[[NEXT2]], %c5
// CHECK: %[[NEXT3:.*]] = arith.addi %[[ROW]], %c3
// CHECK: %[[HAS3:.*]] = arith.cmpi ult, %[[NEXT3]], %c6
// CHECK: %[[ROW3:.*]] = arith.minui %[[NEXT3]], %c5
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %c0 : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[SS]][%[[ROW]]]
// CHECK: scf.if %[[HAS1]] {
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[SS]][%[[ROW1]]]
// CHECK: scf.if %[[HAS2]] {
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[SS]][%[[ROW2]]]
// CHECK: scf.if %[[HAS3]] {
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: memref.store %{{.*}}, %[[SS]][%[[ROW3]]]
// CHECK: gpu.barrier
  func.func @six_rows_per_block(%x: memref<60x4096xf32>, %s: memref<60xf32>) {
    // expected-remark @below {{tile loop mapped to one GPU kernel: a block of 256 threads per tile, 1 op(s) per tile with barriers between them (0 reduced per warp, 1 per block, by shuffles), 128 bytes of tile buffers in shared memory, rows per thread -}}
    scf.forall (%i) = (0) to (60) step (6) {
      %xs = memref.subview %x[%i, 0] [6, 4096] [1, 1] : memref<60x4096xf32> to memref<6x4096xf32, strided<[4096, 1], offset: ?>>
      %ss = memref.subview %s[%i] [6] [1] : memref<60xf32> to memref<6xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
          ins(%xs : memref<6x4096xf32, strided<[4096, 1], offset: ?>>) outs(%ss : memref<6xf32, strided<[1], offset: ?>>) {
      ^bb0(%v: f32, %acc: f32):
        %r = arith.addf %v, %acc : f32
        linalg.yield %r : f32
      }
    }
    return
  }
}

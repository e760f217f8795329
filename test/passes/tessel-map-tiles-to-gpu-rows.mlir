// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-tiles-to-gpu{rows-per-thread=3 columns-per-thread=1}),canonicalize,cse)' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-tiles-to-gpu{rows-per-thread=17 columns-per-thread=1}))' | FileCheck %s --check-prefix=TOO-MANY

// tessel-map-tiles-to-gpu's rows-per-thread option forces the rows each
// thread takes in every op run per thread: 3 rows of the 8-row tile, so
// threads take row groups 0-2, 3-5 and 6-8, and the last group's third
// row (8) does not exist: the whole groups' branch, then the clamped one
// that stores its later rows only where they are inside. The op reads its
// output (y = x + y): every copy loads before any stores. An op with one
// parallel loop keeps one row (the remark says 1). More than 16 rows is
// declined.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>} {
// CHECK-LABEL: func.func @three_rows(
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %c96 step %c64 {
// CHECK: %[[END:.*]] = arith.addi %{{.*}}, %c3
// CHECK: %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %c8
// CHECK: scf.if %[[WHOLE]] {
// CHECK-COUNT-6: memref.load
// CHECK-COUNT-3: memref.store
// CHECK: } else {
// CHECK: arith.minui %{{.*}}, %c7
// CHECK: arith.minui %{{.*}}, %c7
// CHECK-COUNT-6: memref.load
// CHECK: memref.store
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK-LABEL: func.func @one_loop(
// CHECK: scf.for
// CHECK-NOT: scf.if
// TOO-MANY-LABEL: func.func @three_rows(
// TOO-MANY: scf.forall
  func.func @three_rows(%in: memref<16x64xf32>, %out: memref<16x64xf32>) {
    // expected-remark-re @below {{{{rows per thread 3, columns per thread 1$|rows-per-thread=17 is more than 16}}}}
    scf.forall (%i, %j) = (0, 0) to (16, 64) step (8, 32) {
      %x = memref.subview %in[%i, %j] [8, 32] [1, 1] : memref<16x64xf32> to memref<8x32xf32, strided<[64, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [8, 32] [1, 1] : memref<16x64xf32> to memref<8x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x32xf32, strided<[64, 1], offset: ?>>) outs(%y : memref<8x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32):
        %d = arith.addf %a, %b : f32
        linalg.yield %d : f32
      }
    }
    return
  }
  func.func @one_loop(%in: memref<64xf32>, %out: memref<64xf32>) {
    // expected-remark-re @below {{{{rows per thread 1, columns per thread 1$|rows-per-thread=17 is more than 16}}}}
    scf.forall (%j) = (0) to (64) step (32) {
      %x = memref.subview %in[%j] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
      %y = memref.subview %out[%j] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<32xf32, strided<[1], offset: ?>>) outs(%y : memref<32xf32, strided<[1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32):
        %d = arith.addf %a, %a : f32
        linalg.yield %d : f32
      }
    }
    return
  }
}

// -----

module attributes {tessel.target = #tessel.target<kind = "nvgpu", warp_size = 32, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @declined(
// TOO-MANY-LABEL: func.func @declined(
// TOO-MANY: scf.forall
  func.func @declined(%out: memref<16x64xf32>) {
    %one = arith.constant 1.0 : f32
    // expected-remark-re @below {{{{rows per thread 3, columns per thread 1$|rows-per-thread=17 is more than 16}}}}
    scf.forall (%i, %j) = (0, 0) to (16, 64) step (8, 32) {
      %y = memref.subview %out[%i, %j] [8, 32] [1, 1] : memref<16x64xf32> to memref<8x32xf32, strided<[64, 1], offset: ?>>
      linalg.fill ins(%one : f32) outs(%y : memref<8x32xf32, strided<[64, 1], offset: ?>>)
    }
    return
  }
}

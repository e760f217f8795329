// RUN: %tessel-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-tiles-to-gpu),canonicalize,cse)' | FileCheck %s
// RUN: %tessel-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-tiles-to-gpu{threads=32}),canonicalize,cse)' | FileCheck %s --check-prefix=T32
// RUN: %tessel-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-tiles-to-gpu{columns-per-thread=3}),canonicalize,cse)' | FileCheck %s --check-prefix=C3
// RUN: %tessel-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-tiles-to-gpu{columns-per-thread=17}))' | FileCheck %s --check-prefix=TOO-MANY

// Columns per thread: in ops run per thread, each thread takes a group of
// adjacent columns (the innermost parallel loop) of its rows, as many as
// fill 16 bytes of the widest element along them, where every operand
// indexed by the columns takes them as unit-stride elements in runs that
// start 16-byte aligned. The pass then gives every load and store the
// alignment it can prove, so LLVM makes one 128-bit access of a group
// (and of any adjacent accesses, such as a transposed input's rows).
// The option forces a count (more than 16 is declined).

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>} {
// The model's choice for f32: 4 columns (16 bytes) per thread. A thread's
// group starts at a multiple of 4 of a buffer whose rows are 256 bytes: its
// first access is 16-byte aligned, its third 8-byte aligned.
// CHECK-LABEL: func.func @four_columns(
// CHECK: gpu.launch
// CHECK-SAME: threads(%{{.*}}) in (%{{.*}} = %c64,
// CHECK: scf.for
// CHECK: memref.load %{{.*}} {alignment = 16 : i64}
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.load %{{.*}} : memref
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.load %{{.*}} {alignment = 8 : i64}
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.load %{{.*}} : memref
// CHECK-COUNT-4: math.exp
// CHECK-NEXT: memref.store %{{.*}} {alignment = 16 : i64}
// CHECK-NEXT: memref.store %{{.*}} : memref
// CHECK-NEXT: memref.store %{{.*}} {alignment = 8 : i64}
// CHECK-NEXT: memref.store %{{.*}} : memref
// CHECK-NOT: scf.if
// CHECK: gpu.terminator
// Forced to 3 columns: 11 groups cover a row's 32 columns, the last one
// only two of them: whole groups, then the clamped one (later columns read
// at column 31, stored only inside). No access is known aligned.
// C3-LABEL: func.func @four_columns(
// C3: scf.for %{{.*}} = %{{.*}} to %c88 step %c64 {
// C3: %[[END:.*]] = arith.addi %{{.*}}, %c3
// C3: %[[WHOLE:.*]] = arith.cmpi ule, %[[END]], %c32
// C3: scf.if %[[WHOLE]] {
// C3-NOT: alignment
// C3-COUNT-3: memref.load
// C3: } else {
// C3: arith.minui %{{.*}}, %c31
// C3: arith.minui %{{.*}}, %c31
// C3-COUNT-3: memref.load
// C3: memref.store
// C3: scf.if
// C3-NEXT: memref.store
// C3: scf.if
// C3-NEXT: memref.store
// TOO-MANY-LABEL: func.func @four_columns(
// TOO-MANY: scf.forall
  func.func @four_columns(%in: memref<16x64xf32>, %out: memref<16x64xf32>) {
    // expected-remark-re @below {{{{columns per thread 4$|columns per thread 3$|columns-per-thread=17 is more than 16}}}}
    scf.forall (%i, %j) = (0, 0) to (16, 64) step (8, 32) {
      %x = memref.subview %in[%i, %j] [8, 32] [1, 1] : memref<16x64xf32> to memref<8x32xf32, strided<[64, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [8, 32] [1, 1] : memref<16x64xf32> to memref<8x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x32xf32, strided<[64, 1], offset: ?>>) outs(%y : memref<8x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32):
        %d = math.exp %a : f32
        linalg.yield %d : f32
      }
    }
    return
  }
// f16 takes 8 columns for 16 bytes where the block's threads all keep a
// group (at 32 threads; the model's 128 leave 4). Alignment: 16 bytes at
// the group's start, 8 at its fifth column, 4 at its third and seventh.
// T32-LABEL: func.func @half_columns(
// T32: memref.load %{{.*}} {alignment = 16 : i64} : memref<8x64xf16
// T32-NEXT: affine.apply
// T32-NEXT: memref.load %{{.*}} : memref<8x64xf16
// T32-NEXT: affine.apply
// T32-NEXT: memref.load %{{.*}} {alignment = 4 : i64} : memref<8x64xf16
// T32-NEXT: affine.apply
// T32-NEXT: memref.load %{{.*}} : memref<8x64xf16
// T32-NEXT: affine.apply
// T32-NEXT: memref.load %{{.*}} {alignment = 8 : i64} : memref<8x64xf16
  func.func @half_columns(%in: memref<16x64xf16>, %out: memref<16x64xf16>) {
    // expected-remark-re @below {{{{columns per thread 4$|columns per thread 8$|columns per thread 3$|columns-per-thread=17 is more than 16}}}}
    scf.forall (%i, %j) = (0, 0) to (16, 64) step (8, 64) {
      %x = memref.subview %in[%i, %j] [8, 64] [1, 1] : memref<16x64xf16> to memref<8x64xf16, strided<[64, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [8, 64] [1, 1] : memref<16x64xf16> to memref<8x64xf16, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x64xf16, strided<[64, 1], offset: ?>>) outs(%y : memref<8x64xf16, strided<[64, 1], offset: ?>>) {
      ^bb0(%a: f16, %b: f16):
        %d = math.exp %a : f16
        linalg.yield %d : f16
      }
    }
    return
  }
// The input runs along the columns with a stride of 16: one column per
// thread. Its 4 rows per thread are adjacent input elements, though, the
// first 16-byte aligned; the stores are 64 floats apart, each of its own
// column, whose alignment nothing says.
// CHECK-LABEL: func.func @transposed(
// CHECK: memref.load %{{.*}} {alignment = 16 : i64} : memref<32x8xf32
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.load %{{.*}} : memref<32x8xf32
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.load %{{.*}} {alignment = 8 : i64} : memref<32x8xf32
// CHECK-NOT: alignment
// CHECK: gpu.terminator
  func.func @transposed(%in: memref<64x16xf32>, %out: memref<16x64xf32>) {
    // expected-remark-re @below {{{{columns per thread 1$|columns per thread 3$|columns-per-thread=17 is more than 16}}}}
    scf.forall (%i, %j) = (0, 0) to (16, 64) step (8, 32) {
      %x = memref.subview %in[%j, %i] [32, 8] [1, 1] : memref<64x16xf32> to memref<32x8xf32, strided<[16, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [8, 32] [1, 1] : memref<16x64xf32> to memref<8x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<32x8xf32, strided<[16, 1], offset: ?>>) outs(%y : memref<8x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32):
        %d = math.exp %a : f32
        linalg.yield %d : f32
      }
    }
    return
  }
// Rows of 66 floats start 8-byte aligned only: 2 columns per thread.
// CHECK-LABEL: func.func @odd_rows(
// CHECK: memref.load %{{.*}} {alignment = 8 : i64}
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.load %{{.*}} : memref
  func.func @odd_rows(%in: memref<16x66xf32>, %out: memref<16x66xf32>) {
    // expected-remark-re @below {{{{columns per thread 2$|columns per thread 3$|columns-per-thread=17 is more than 16}}}}
    scf.forall (%i, %j) = (0, 0) to (16, 64) step (8, 32) {
      %x = memref.subview %in[%i, %j] [8, 32] [1, 1] : memref<16x66xf32> to memref<8x32xf32, strided<[66, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [8, 32] [1, 1] : memref<16x66xf32> to memref<8x32xf32, strided<[66, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x32xf32, strided<[66, 1], offset: ?>>) outs(%y : memref<8x32xf32, strided<[66, 1], offset: ?>>) {
      ^bb0(%a: f32, %b: f32):
        %d = math.exp %a : f32
        linalg.yield %d : f32
      }
    }
    return
  }
// A horizontal stencil's taps shift the columns (a reduction loop in the
// innermost index): the 5 taps of 4 columns read 8 adjacent inputs once
// each (unrolled, CSE'd), the first and fifth 16-byte aligned, so two
// vector loads; the 5 weights are loaded once each.
// CHECK-LABEL: func.func @taps(
// CHECK: scf.for
// CHECK: memref.load %{{.*}} {alignment = 16 : i64} : memref<8x32xf32
// CHECK: memref.load %[[IN:.*]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x36xf32
// CHECK-COUNT-3: memref.load %[[IN]]
// CHECK: memref.load %[[IN]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x36xf32
// CHECK-COUNT-3: memref.load %[[IN]]
// CHECK-NOT: memref.load %[[IN]]
// CHECK: gpu.terminator
  func.func @taps(%in: memref<16x68xf32>, %w: memref<5xf32>, %out: memref<16x64xf32>) {
    // expected-remark-re @below {{{{columns per thread 4$|columns per thread 3$|columns-per-thread=17 is more than 16}}}}
    scf.forall (%i, %j) = (0, 0) to (16, 64) step (8, 32) {
      %x = memref.subview %in[%i, %j] [8, 36] [1, 1] : memref<16x68xf32> to memref<8x36xf32, strided<[68, 1], offset: ?>>
      %y = memref.subview %out[%i, %j] [8, 32] [1, 1] : memref<16x64xf32> to memref<8x32xf32, strided<[64, 1], offset: ?>>
      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 + d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<8x36xf32, strided<[68, 1], offset: ?>>, memref<5xf32>) outs(%y : memref<8x32xf32, strided<[64, 1], offset: ?>>) {
      ^bb0(%a: f32, %c: f32, %b: f32):
        %m = arith.mulf %a, %c : f32
        %d = arith.addf %m, %b : f32
        linalg.yield %d : f32
      }
    }
    return
  }
}

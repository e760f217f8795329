// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-pad-buffer-rows))' | FileCheck %s

// A fused stencil tile buffer of whole 2044-element rows (8176 B, a line
// boundary every fourth row) read and written through a subview of the
// tile's rows: allocated with 2048-element rows, used through a subview of
// the original shape; the tile subview is rebuilt with the padded stride.

// CHECK-LABEL: func.func @stencil_tile_buffer(
// CHECK: %[[PAD:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1x20x2048xf32>
// CHECK: %[[BUF:.*]] = memref.subview %[[PAD]][0, 0, 0] [1, 20, 2044] [1, 1, 1] : memref<1x20x2048xf32> to memref<1x20x2044xf32, strided<[40960, 2048, 1]>>
// CHECK: %[[ROWS:.*]] = memref.subview %[[BUF]][0, 0, 0] [1, %{{.*}}, 2044] [1, 1, 1] : memref<1x20x2044xf32, strided<[40960, 2048, 1]>> to memref<1x?x2044xf32, strided<[40960, 2048, 1]>>
// CHECK: vector.transfer_write %{{.*}}, %[[ROWS]][%{{.*}}, %{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<64xf32>, memref<1x?x2044xf32, strided<[40960, 2048, 1]>>
// CHECK: vector.transfer_read %[[ROWS]][%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : memref<1x?x2044xf32, strided<[40960, 2048, 1]>>, vector<64xf32>
// CHECK-NOT: memref<1x20x2044xf32>
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @stencil_tile_buffer(%rows: index, %i: index, %j: index, %v: vector<64xf32>) -> vector<64xf32> {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    // expected-remark @below {{rows of 'memref<1x20x2044xf32>' padded from 2044 to 2048 elements: each starts at a 64-byte line}}
    %buf = memref.alloca() {alignment = 64 : i64} : memref<1x20x2044xf32>
    %tile = memref.subview %buf[0, 0, 0] [1, %rows, 2044] [1, 1, 1] : memref<1x20x2044xf32> to memref<1x?x2044xf32, strided<[40880, 2044, 1]>>
    vector.transfer_write %v, %tile[%c0, %i, %j] {in_bounds = [true]} : vector<64xf32>, memref<1x?x2044xf32, strided<[40880, 2044, 1]>>
    %r = vector.transfer_read %tile[%c0, %i, %j], %zero {in_bounds = [true]} : memref<1x?x2044xf32, strided<[40880, 2044, 1]>>, vector<64xf32>
    return %r : vector<64xf32>
  }
}

// -----

// A heap buffer (not promoted) without alignment, read by a linalg op and
// a rank-reducing subview: it gets line alignment, and the rank-reduced
// subview keeps its rank with the padded stride. The 16-element (one line)
// rows of the second buffer are already whole lines: untouched, silently.

// CHECK-LABEL: func.func @heap_buffer_rank_reduced(
// CHECK: %[[PAD:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x272xf32>
// CHECK: %[[BUF:.*]] = memref.subview %[[PAD]][0, 0] [64, 260] [1, 1] : memref<64x272xf32> to memref<64x260xf32, strided<[272, 1]>>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<64x260xf32, strided<[272, 1]>>)
// CHECK: %[[ROW:.*]] = memref.subview %[[BUF]][3, 0] [1, 260] [1, 1] : memref<64x260xf32, strided<[272, 1]>> to memref<260xf32, strided<[1], offset: 816>>
// CHECK: memref.load %[[ROW]][%{{.*}}] : memref<260xf32, strided<[1], offset: 816>>
// CHECK: memref.alloc() : memref<8x16xf32>
// CHECK: memref.dealloc %[[PAD]] : memref<64x272xf32>
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @heap_buffer_rank_reduced(%k: index) -> (f32, f32) {
    %one = arith.constant 1.0 : f32
    %c0 = arith.constant 0 : index
    // expected-remark @below {{rows of 'memref<64x260xf32>' padded from 260 to 272 elements}}
    %buf = memref.alloc() : memref<64x260xf32>
    linalg.fill ins(%one : f32) outs(%buf : memref<64x260xf32>)
    %row = memref.subview %buf[3, 0] [1, 260] [1, 1] : memref<64x260xf32> to memref<260xf32, strided<[1], offset: 780>>
    %x = memref.load %row[%k] : memref<260xf32, strided<[1], offset: 780>>
    %lines = memref.alloc() : memref<8x16xf32>
    %y = memref.load %lines[%c0, %k] : memref<8x16xf32>
    memref.dealloc %lines : memref<8x16xf32>
    memref.dealloc %buf : memref<64x260xf32>
    return %x, %y : f32, f32
  }
}

// -----

// Not padded, with a remark: rows of 100 B (shorter than 8 lines), and a
// buffer that a collapse_shape reads as one contiguous run. 1-D buffers
// have no rows to pad.

// CHECK-LABEL: func.func @left_alone(
// CHECK: memref.alloca() : memref<4x25xf32>
// CHECK: memref.alloca() : memref<8x1000xf32>
// CHECK: memref.collapse_shape
// CHECK: memref.alloca() : memref<1000xf32>
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @left_alone(%k: index) -> (f32, f32, f32) {
    %c0 = arith.constant 0 : index
    // expected-remark @below {{rows of 'memref<4x25xf32>' not padded: rows of 100 B are shorter than 8 cache lines}}
    %short = memref.alloca() : memref<4x25xf32>
    %a = memref.load %short[%c0, %k] : memref<4x25xf32>
    // expected-remark @below {{rows of 'memref<8x1000xf32>' not padded: 'memref.collapse_shape' uses it and needs its contiguous layout}}
    %flat = memref.alloca() : memref<8x1000xf32>
    %view = memref.collapse_shape %flat [[0, 1]] : memref<8x1000xf32> into memref<8000xf32>
    %b = memref.load %view[%k] : memref<8000xf32>
    %vec = memref.alloca() : memref<1000xf32>
    %c = memref.load %vec[%k] : memref<1000xf32>
    return %a, %b, %c : f32, f32, f32
  }
}

// -----

// Not a CPU target: nothing changes (a GPU tile buffer lives in shared
// memory, which has banks rather than cache lines).

// CHECK-LABEL: func.func @gpu_target(
// CHECK: memref.alloca() : memref<20x2044xf32>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_90a">} {
  func.func @gpu_target(%k: index) -> f32 {
    %c0 = arith.constant 0 : index
    %buf = memref.alloca() : memref<20x2044xf32>
    %a = memref.load %buf[%c0, %k] : memref<20x2044xf32>
    return %a : f32
  }
}

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-promote-buffers-to-stack{max-stack-bytes=20000}))' | FileCheck %s

// Under a 20000-byte budget the loop's tile buffer goes first (4096 B), the
// 16384 B buffer would exceed the budget and stays on the heap, the later
// 4096 B one still fits. Every promoted buffer has its own stack slot, so the
// budget bounds the function's stack use.

// CHECK-LABEL: func.func @budget(
// CHECK: %[[BIG:.*]] = memref.alloc() : memref<64x64xf32>
// CHECK: %[[SMALL:.*]] = memref.alloca() : memref<32x32xf32>
// CHECK: scf.for
// CHECK: memref.alloca() : memref<16x64xf32>
// CHECK-NOT: memref.alloc()
// expected-remark @below {{stack budget 20000 bytes: 2 buffer(s) (8192 bytes) may go on the stack, 1 (16384 bytes) stay on the heap}}
func.func @budget(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %big = memref.alloc() : memref<64x64xf32>
  %small = memref.alloc() : memref<32x32xf32>
  memref.store %f, %big[%c0, %c0] : memref<64x64xf32>
  memref.store %f, %small[%c0, %c0] : memref<32x32xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %tile = memref.alloc() : memref<16x64xf32>
    memref.store %f, %tile[%i, %c0] : memref<16x64xf32>
    %v = memref.load %tile[%i, %c0] : memref<16x64xf32>
    memref.store %v, %out[] : memref<f32>
  }
  %a = memref.load %big[%c0, %c0] : memref<64x64xf32>
  %b = memref.load %small[%c0, %c0] : memref<32x32xf32>
  %s = arith.addf %a, %b : f32
  memref.store %s, %out[] : memref<f32>
  return
}

// -----

// A returned buffer escapes: it is never promoted, whatever the budget; a
// dynamically sized one is not a candidate. No remark: nothing was left out
// for lack of budget.

// CHECK-LABEL: func.func @escaping(
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: return
func.func @escaping(%n: index) -> (memref<8xf32>, memref<?xf32>) {
  %a = memref.alloc() : memref<8xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  return %a, %d : memref<8xf32>, memref<?xf32>
}

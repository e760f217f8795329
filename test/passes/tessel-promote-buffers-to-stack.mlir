// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-promote-buffers-to-stack{max-stack-bytes=20000}))' | FileCheck %s

// Under a 20000-byte budget the parallel loop's tile buffer goes first
// (4096 B; convert-scf-to-openmp scopes it to an iteration), the
// 16384 B buffer would exceed the budget and stays on the heap, the later
// 4096 B one still fits. Every promoted buffer has its own stack slot, so the
// budget bounds the function's stack use.

// CHECK-LABEL: func.func @budget(
// CHECK: %[[BIG:.*]] = memref.alloc() : memref<64x64xf32>
// CHECK: %[[SMALL:.*]] = memref.alloca() : memref<32x32xf32>
// CHECK: scf.forall
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
  scf.forall (%i) in (4) {
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

// -----

// A buffer allocated in a sequential loop stays on the heap: nothing would
// release an alloca there, so the stack would grow by it every iteration
// (an 800 KiB patch buffer in an 8-iteration image loop overflowed an 8 MiB
// stack).

// CHECK-LABEL: func.func @sequential_loop(
// CHECK: scf.for
// CHECK: memref.alloc() : memref<16x64xf32>
// CHECK-NOT: memref.alloca
// expected-remark @below {{1 buffer(s) allocated in sequential loops stay on the heap (on the stack they would grow it every iteration)}}
func.func @sequential_loop(%out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %tile = memref.alloc() : memref<16x64xf32>
    memref.store %f, %tile[%i, %c0] : memref<16x64xf32>
    %v = memref.load %tile[%i, %c0] : memref<16x64xf32>
    memref.store %v, %out[] : memref<f32>
    memref.dealloc %tile : memref<16x64xf32>
  }
  return
}

// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-hoist-thread-buffers))' | FileCheck %s

// A static per-iteration buffer of the worksharing loop is taken once per
// thread, at the start of the parallel region; a dynamically sized one and
// one outside any worksharing loop stay where they are.

// CHECK-LABEL: func.func @tile_buffer(
// CHECK: omp.parallel {
// CHECK-NEXT: %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
// CHECK-NEXT: omp.wsloop {
// CHECK: omp.loop_nest
// CHECK: memref.alloca_scope {
// CHECK-NOT: memref.alloca()
// CHECK: %[[DYN:.*]] = memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK: memref.store %{{.*}}, %[[BUF]]
func.func @tile_buffer(%n: index, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        memref.alloca_scope {
          %buf = memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
          %dyn = memref.alloca(%n) : memref<?xf32>
          memref.store %f, %buf[%i, %c0] : memref<16x64xf32>
          memref.store %f, %dyn[%c0] : memref<?xf32>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// With its only alloca hoisted, the iteration's scope frees nothing and is
// inlined, even though the body holds an op of unknown memory effects (the
// sfence after non-temporal stores), which upstream canonicalization would
// keep the scope for.

// CHECK-LABEL: func.func @scope_inlined(
// CHECK: omp.parallel {
// CHECK-NEXT: %[[BUF:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
// CHECK: omp.loop_nest
// CHECK-NOT: memref.alloca_scope
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: omp.yield
func.func @scope_inlined(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c4) step (%c1) {
        memref.alloca_scope {
          %buf = memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
          memref.store %f, %buf[%i, %c0] : memref<16x64xf32>
          llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// CHECK-LABEL: func.func @no_loop(
// CHECK-NEXT: %[[A:.*]] = memref.alloca() : memref<8xf32>
func.func @no_loop() -> f32 {
  %a = memref.alloca() : memref<8xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<8xf32>
  return %v : f32
}

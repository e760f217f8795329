// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tessel-contract-multiply-adds))' | FileCheck %s
// The pass has no anchor: it also runs on a function.
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-contract-multiply-adds))' | FileCheck %s --check-prefix=FUNC

// A stencil's taps in a kernel: each product feeds one add, so each tap is
// one fma, the accumulator chained through them.

// CHECK-LABEL: gpu.func @taps(
// CHECK-SAME: %[[X0:[^:]*]]: f32, %[[X1:[^:]*]]: f32, %[[W0:[^:]*]]: f32, %[[W1:[^:]*]]: f32, %[[ACC:[^:]*]]: f32,
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.addf
// CHECK: %[[S0:.*]] = math.fma %[[X0]], %[[W0]], %[[ACC]] : f32
// CHECK: %[[S1:.*]] = math.fma %[[X1]], %[[W1]], %[[S0]] : f32
// CHECK: memref.store %[[S1]]
// FUNC-LABEL: gpu.module @taps_module
// FUNC: arith.mulf
gpu.module @taps_module {
  gpu.func @taps(%x0: f32, %x1: f32, %w0: f32, %w1: f32, %acc: f32,
                 %out: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %p0 = arith.mulf %x0, %w0 : f32
    %s0 = arith.addf %acc, %p0 : f32
    %p1 = arith.mulf %x1, %w1 : f32
    %s1 = arith.addf %p1, %s0 : f32
    memref.store %s1, %out[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

// Subtracts: a product minus c negates c, c minus a product negates a
// factor. Vectors and f16 contract too.

// CHECK-LABEL: gpu.func @subtracts(
// CHECK-SAME: %[[A:[^:]*]]: f32, %[[B:[^:]*]]: f32, %[[C:[^:]*]]: f32,
// CHECK-SAME: %[[V:[^:]*]]: vector<4xf16>, %[[U:[^:]*]]: vector<4xf16>
// CHECK: %[[NC:.*]] = arith.negf %[[C]] : f32
// CHECK: %[[D:.*]] = math.fma %[[A]], %[[B]], %[[NC]] : f32
// CHECK: %[[NA:.*]] = arith.negf %[[A]] : f32
// CHECK: %[[E:.*]] = math.fma %[[NA]], %[[B]], %[[C]] : f32
// CHECK: %[[F:.*]] = math.fma %[[V]], %[[U]], %[[V]] : vector<4xf16>
// CHECK-NOT: arith.mulf
// CHECK: gpu.return
gpu.module @subtracts_module {
  gpu.func @subtracts(%a: f32, %b: f32, %c: f32, %v: vector<4xf16>,
                      %u: vector<4xf16>, %out: memref<2xf32>,
                      %vout: memref<4xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p = arith.mulf %a, %b : f32
    %d = arith.subf %p, %c : f32
    %q = arith.mulf %a, %b : f32
    %e = arith.subf %c, %q : f32
    %vp = arith.mulf %v, %u : vector<4xf16>
    %f = arith.addf %vp, %v : vector<4xf16>
    memref.store %d, %out[%c0] : memref<2xf32>
    memref.store %e, %out[%c1] : memref<2xf32>
    vector.store %f, %vout[%c0] : memref<4xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

// The fast-math flags both ops carry go to the fma; a flag only one has
// does not.

// CHECK-LABEL: gpu.func @flags(
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
gpu.module @flags_module {
  gpu.func @flags(%a: f32, %b: f32, %c: f32, %out: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %p = arith.mulf %a, %b fastmath<nnan,ninf,contract> : f32
    %s = arith.addf %p, %c fastmath<nnan,contract> : f32
    memref.store %s, %out[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

// Left alone: a product with a second use (it is needed rounded), one
// computed in another block (an scf.for's body), and adds of no product.

// CHECK-LABEL: gpu.func @left_alone(
// CHECK-NOT: math.fma
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: arith.addf %[[P]]
// CHECK: arith.addf %[[P]]
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK-NOT: math.fma
// CHECK: gpu.return
gpu.module @left_alone_module {
  gpu.func @left_alone(%a: f32, %b: f32, %c: f32, %out: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %p, %c : f32
    %t = arith.addf %p, %a : f32
    memref.store %s, %out[%c0] : memref<4xf32>
    memref.store %t, %out[%c1] : memref<4xf32>
    %q = arith.mulf %b, %c : f32
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %a) -> (f32) {
      %n = arith.addf %acc, %q : f32
      scf.yield %n : f32
    }
    %u = arith.addf %r, %c : f32
    memref.store %u, %out[%c2] : memref<4xf32>
    gpu.return
  }
}

// -----

// On a function (the CPU's scalar code, or a test): the same rewrite.

// FUNC-LABEL: func.func @scalar(
// FUNC: math.fma
// FUNC-NOT: arith.mulf
func.func @scalar(%a: f32, %b: f32, %c: f32) -> f32 {
  %p = arith.mulf %a, %b : f32
  %s = arith.addf %p, %c : f32
  return %s : f32
}

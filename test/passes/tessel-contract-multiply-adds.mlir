// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tessel-contract-multiply-adds))' | FileCheck %s
// The pass has no anchor: it also runs on a function.
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-contract-multiply-adds))' | FileCheck %s --check-prefix=FUNC

// A stencil's taps in a kernel: each product feeds one add, so each pair is
// marked `contract` for the backend to fuse.

// CHECK-LABEL: gpu.func @taps(
// CHECK: %[[P0:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: %[[S0:.*]] = arith.addf %{{.*}}, %[[P0]] fastmath<contract> : f32
// CHECK: %[[P1:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %[[P1]], %[[S0]] fastmath<contract> : f32
// FUNC-LABEL: gpu.module @taps_module
// FUNC-NOT: contract
// FUNC: gpu.return
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

// Subtracts, either side, vectors and f16; flags already there are kept.
// With two products only the first is marked.

// CHECK-LABEL: gpu.func @subtracts(
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.subf %[[P]], %{{.*}} fastmath<contract> : f32
// CHECK: %[[Q:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.subf %{{.*}}, %[[Q]] fastmath<contract> : f32
// CHECK: %[[V:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<nnan,contract> : vector<4xf16>
// CHECK: arith.addf %[[V]], %{{.*}} fastmath<ninf,contract> : vector<4xf16>
// CHECK: %[[A:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: %[[B:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.subf %[[A]], %[[B]] fastmath<contract> : f32
gpu.module @subtracts_module {
  gpu.func @subtracts(%a: f32, %b: f32, %c: f32, %v: vector<4xf16>,
                      %u: vector<4xf16>, %out: memref<3xf32>,
                      %vout: memref<4xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %p = arith.mulf %a, %b : f32
    %d = arith.subf %p, %c : f32
    %q = arith.mulf %a, %b : f32
    %e = arith.subf %c, %q : f32
    %vp = arith.mulf %v, %u fastmath<nnan> : vector<4xf16>
    %f = arith.addf %vp, %v fastmath<ninf> : vector<4xf16>
    %m = arith.mulf %a, %c : f32
    %n = arith.mulf %b, %c : f32
    %g = arith.subf %m, %n : f32
    memref.store %d, %out[%c0] : memref<3xf32>
    memref.store %e, %out[%c1] : memref<3xf32>
    memref.store %g, %out[%c2] : memref<3xf32>
    vector.store %f, %vout[%c0] : memref<4xf16>, vector<4xf16>
    gpu.return
  }
}

// -----

// Left alone: a product with a second use (it is needed rounded), one
// computed in another block (outside an scf.for's body), and adds of no
// product.

// CHECK-LABEL: gpu.func @left_alone(
// CHECK-NOT: contract
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

// On a function: the same marking.

// FUNC-LABEL: func.func @scalar(
// FUNC: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// FUNC: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
func.func @scalar(%a: f32, %b: f32, %c: f32) -> f32 {
  %p = arith.mulf %a, %b : f32
  %s = arith.addf %p, %c : f32
  return %s : f32
}

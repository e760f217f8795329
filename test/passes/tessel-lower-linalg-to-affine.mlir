// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-lower-linalg-to-affine))' | FileCheck %s

// The pass emits each access as affine.apply of the op's indexing map
// followed by an affine.load/store (canonicalize later folds the applies into
// the access functions), so the checks follow every index through its map.

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x2xf32>, %[[C:.*]]: memref<4x2xf32>)
// CHECK-NOT: linalg.
// CHECK: affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 8 {
// CHECK-NEXT: %[[AI:.*]] = affine.apply #[[$ID]](%[[I]])
// CHECK-NEXT: %[[AK:.*]] = affine.apply #[[$ID]](%[[K]])
// CHECK-NEXT: %[[VA:.*]] = affine.load %[[A]][%[[AI]], %[[AK]]] : memref<4x8xf32>
// CHECK-NEXT: %[[BK:.*]] = affine.apply #[[$ID]](%[[K]])
// CHECK-NEXT: %[[BJ:.*]] = affine.apply #[[$ID]](%[[J]])
// CHECK-NEXT: %[[VB:.*]] = affine.load %[[B]][%[[BK]], %[[BJ]]] : memref<8x2xf32>
// CHECK-NEXT: %[[CI:.*]] = affine.apply #[[$ID]](%[[I]])
// CHECK-NEXT: %[[CJ:.*]] = affine.apply #[[$ID]](%[[J]])
// CHECK-NEXT: %[[VC:.*]] = affine.load %[[C]][%[[CI]], %[[CJ]]] : memref<4x2xf32>
// CHECK-NEXT: %[[SI:.*]] = affine.apply #[[$ID]](%[[I]])
// CHECK-NEXT: %[[SJ:.*]] = affine.apply #[[$ID]](%[[J]])
// CHECK-NEXT: %[[MUL:.*]] = arith.mulf %[[VA]], %[[VB]] : f32
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[VC]], %[[MUL]] : f32
// CHECK-NEXT: affine.store %[[ADD]], %[[C]][%[[SI]], %[[SJ]]] : memref<4x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %c: memref<4x2xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>) outs(%c : memref<4x2xf32>)
  return
}

// -----

// Strides and dilations end up in the input's access functions:
// h = oh * stride_h + kh * dilation_h, w = ow * stride_w + kw * dilation_w.

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$H:.*]] = affine_map<(d0, d1) -> (d0 * 3 + d1 * 2)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1) -> (d0 * 2 + d1)>
// CHECK-LABEL: func.func @conv_2d_nhwc_hwcf(
// CHECK-SAME: %[[IN:.*]]: memref<1x9x9x3xf32>, %[[F:.*]]: memref<2x2x3x8xf32>, %[[OUT:.*]]: memref<1x3x4x8xf32>)
// CHECK-NOT: linalg.
// CHECK: affine.for %[[N:.*]] = 0 to 1 {
// CHECK-NEXT: affine.for %[[OH:.*]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[OW:.*]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[OC:.*]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[KH:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[KW:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[IC:.*]] = 0 to 3 {
// CHECK-NEXT: %[[I0:.*]] = affine.apply #[[$ID]](%[[N]])
// CHECK-NEXT: %[[I1:.*]] = affine.apply #[[$H]](%[[OH]], %[[KH]])
// CHECK-NEXT: %[[I2:.*]] = affine.apply #[[$W]](%[[OW]], %[[KW]])
// CHECK-NEXT: %[[I3:.*]] = affine.apply #[[$ID]](%[[IC]])
// CHECK-NEXT: %[[VIN:.*]] = affine.load %[[IN]][%[[I0]], %[[I1]], %[[I2]], %[[I3]]] : memref<1x9x9x3xf32>
// CHECK-NEXT: %[[F0:.*]] = affine.apply #[[$ID]](%[[KH]])
// CHECK-NEXT: %[[F1:.*]] = affine.apply #[[$ID]](%[[KW]])
// CHECK-NEXT: %[[F2:.*]] = affine.apply #[[$ID]](%[[IC]])
// CHECK-NEXT: %[[F3:.*]] = affine.apply #[[$ID]](%[[OC]])
// CHECK-NEXT: %[[VF:.*]] = affine.load %[[F]][%[[F0]], %[[F1]], %[[F2]], %[[F3]]] : memref<2x2x3x8xf32>
// CHECK-NEXT: %[[O0:.*]] = affine.apply #[[$ID]](%[[N]])
// CHECK-NEXT: %[[O1:.*]] = affine.apply #[[$ID]](%[[OH]])
// CHECK-NEXT: %[[O2:.*]] = affine.apply #[[$ID]](%[[OW]])
// CHECK-NEXT: %[[O3:.*]] = affine.apply #[[$ID]](%[[OC]])
// CHECK-NEXT: %[[VOUT:.*]] = affine.load %[[OUT]][%[[O0]], %[[O1]], %[[O2]], %[[O3]]] : memref<1x3x4x8xf32>
// CHECK: %[[MUL:.*]] = arith.mulf %[[VIN]], %[[VF]] : f32
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[VOUT]], %[[MUL]] : f32
// CHECK-NEXT: affine.store %[[ADD]], %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x3x4x8xf32>
func.func @conv_2d_nhwc_hwcf(%in: memref<1x9x9x3xf32>, %filter: memref<2x2x3x8xf32>, %out: memref<1x3x4x8xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[3, 2]> : tensor<2xi64>}
    ins(%in, %filter : memref<1x9x9x3xf32>, memref<2x2x3x8xf32>)
    outs(%out : memref<1x3x4x8xf32>)
  return
}

// -----

// A generic whose output map transposes: the loops follow the iteration
// space (d0 of extent 8, d1 of extent 4), linalg.index N becomes the
// induction variable of loop N, and the store indexes [d1, d0].

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @generic_index(
// CHECK-SAME: %[[OUT:.*]]: memref<4x8xindex>)
// CHECK-NOT: linalg.
// CHECK: affine.for %[[D0:.*]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[D1:.*]] = 0 to 4 {
// CHECK: affine.load %[[OUT]]
// CHECK-NEXT: %[[S0:.*]] = affine.apply #[[$ID]](%[[D1]])
// CHECK-NEXT: %[[S1:.*]] = affine.apply #[[$ID]](%[[D0]])
// CHECK-NEXT: %[[DIFF:.*]] = arith.subi %[[D0]], %[[D1]] : index
// CHECK-NEXT: affine.store %[[DIFF]], %[[OUT]][%[[S0]], %[[S1]]] : memref<4x8xindex>
// CHECK-NOT: linalg.
func.func @generic_index(%out: memref<4x8xindex>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%out : memref<4x8xindex>) {
  ^bb0(%o: index):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %d = arith.subi %i, %j : index
    linalg.yield %d : index
  }
  return
}

// -----

func.func @matmul_on_tensors(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'linalg.matmul' op operates on tensors; it must be bufferized before lowering to affine loops}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Every op still on tensors is reported, not just the first.

func.func @mixed(%t: tensor<4xf32>, %m: memref<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.add' op operates on tensors}}
  %0 = linalg.add ins(%t, %t : tensor<4xf32>, tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  linalg.add ins(%m, %m : memref<4xf32>, memref<4xf32>) outs(%m : memref<4xf32>)
  // expected-error @+1 {{'linalg.mul' op operates on tensors}}
  %1 = linalg.mul ins(%0, %0 : tensor<4xf32>, tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-convert-copy-to-linalg))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-convert-copy-to-linalg, tessel-lower-linalg-to-affine))' | FileCheck %s --check-prefix=AFFINE

// What bufferization leaves behind for a tensor result: a fill into a
// temporary, then memref.copy into the out-param. The copy becomes a
// linalg.copy, and then a loop nest like the fill; nothing is left for a
// runtime copy helper.

// CHECK-LABEL: func.func @fill_then_copy(
// CHECK-SAME: %[[V:.*]]: f32, %[[DST:.*]]: memref<4x8xf32>)
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: linalg.fill ins(%[[V]] : f32) outs(%[[TMP]] : memref<4x8xf32>)
// CHECK: linalg.copy ins(%[[TMP]] : memref<4x8xf32>) outs(%[[DST]] : memref<4x8xf32>)
// CHECK-NOT: memref.copy
// AFFINE-LABEL: func.func @fill_then_copy(
// AFFINE-SAME: %[[V:.*]]: f32, %[[DST:.*]]: memref<4x8xf32>)
// AFFINE: %[[TMP:.*]] = memref.alloc() : memref<4x8xf32>
// AFFINE: affine.store %[[V]], %[[TMP]]
// AFFINE: affine.for %{{.*}} = 0 to 4 {
// AFFINE-NEXT: affine.for %{{.*}} = 0 to 8 {
// AFFINE: %[[X:.*]] = affine.load %[[TMP]]
// AFFINE: affine.store %[[X]], %[[DST]]
// AFFINE: memref.dealloc %[[TMP]] : memref<4x8xf32>
// AFFINE-NOT: memref.copy
// AFFINE-NOT: linalg.
func.func @fill_then_copy(%v: f32, %dst: memref<4x8xf32>) {
  %tmp = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%v : f32) outs(%tmp : memref<4x8xf32>)
  memref.copy %tmp, %dst : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %tmp : memref<4x8xf32>
  return
}

// -----

// A strided source (a subview) keeps its layout.

// CHECK-LABEL: func.func @copy_from_subview(
// CHECK-SAME: %[[SRC:.*]]: memref<8x16xf32>, %[[DST:.*]]: memref<4x8xf32>)
// CHECK: %[[SUB:.*]] = memref.subview %[[SRC]][2, 4] [4, 8] [1, 1]
// CHECK: linalg.copy ins(%[[SUB]] : memref<4x8xf32, strided<[16, 1], offset: 36>>) outs(%[[DST]] : memref<4x8xf32>)
// AFFINE-LABEL: func.func @copy_from_subview(
// AFFINE: affine.load %{{.*}} : memref<4x8xf32, strided<[16, 1], offset: 36>>
func.func @copy_from_subview(%src: memref<8x16xf32>, %dst: memref<4x8xf32>) {
  %sub = memref.subview %src[2, 4] [4, 8] [1, 1] : memref<8x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 36>>
  memref.copy %sub, %dst : memref<4x8xf32, strided<[16, 1], offset: 36>> to memref<4x8xf32>
  return
}

// -----

// A copy alone (no linalg op in the input): the pass loads linalg itself.

// CHECK-LABEL: func.func @copy_only(
// CHECK: linalg.copy
// AFFINE-LABEL: func.func @copy_only(
// AFFINE: affine.for
func.func @copy_only(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

func.func @copy_unranked(%a: memref<*xf32>, %b: memref<*xf32>) {
  // expected-error @+1 {{'memref.copy' op copies unranked memrefs, which Tessel cannot lower}}
  memref.copy %a, %b : memref<*xf32> to memref<*xf32>
  return
}

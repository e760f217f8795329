// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-lower-mma-to-amdgpu),canonicalize,cse)' | FileCheck %s

// MFMA (gfx90a, 64-lane wavefronts): lane l holds A(l%16, 4(l/16)+e) — four
// consecutive k of a row, one vector load; B(4(l/16)+e, l%16) and
// C(4(l/16)+e, l%16) — four rows of a column, one load or store each.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx90a", warp_size = 64>} {
// CHECK-LABEL: func.func @mfma
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK: gpu.launch
// CHECK-SAME: threads(%[[TX:[^,]*]],
// CHECK: %[[LANE:.*]] = arith.remui %[[TX]], %[[C64]]
// CHECK: %[[LOW:.*]] = arith.remui %[[LANE]], %[[C16]]
// CHECK: %[[HIGH:.*]] = arith.divui %[[LANE]], %[[C16]]
// CHECK: %[[K:.*]] = arith.muli %[[HIGH]], %{{.*}}
// CHECK: %[[A:.*]] = vector.load %{{.*}}[%[[LOW]], %[[K]]] : memref<16x24xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: memref.load %{{.*}}[%[[K]], %[[LOW]]] : memref<16x24xf16, #gpu.address_space<workgroup>>
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %c1
// CHECK: memref.load %{{.*}}[%[[K1]], %[[LOW]]] : memref<16x24xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: memref.load %{{.*}} : memref<16x24xf16, #gpu.address_space<workgroup>>
// CHECK: %[[B:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf16>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<4xf32>)
// CHECK: %[[D:.*]] = amdgpu.mfma 16x16x16 %[[A]] * %[[B]] + %[[ACC]] {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK: scf.yield %[[D]] : vector<4xf32>
// CHECK-COUNT-4: memref.store {{.*}} : memref<16x16xf32>
// CHECK-NOT: gpu.subgroup_mma
func.func @mfma(%sa: memref<16x24xf16, #gpu.address_space<workgroup>>, %sb: memref<16x24xf16, #gpu.address_space<workgroup>>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %a = gpu.subgroup_mma_load_matrix %sa[%c0, %c0] {leadDimension = 24 : index} : memref<16x24xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %b = gpu.subgroup_mma_load_matrix %sb[%c0, %c0] {leadDimension = 24 : index} : memref<16x24xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %init = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %d = gpu.subgroup_mma_compute %a, %b, %acc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %d : !gpu.mma_matrix<16x16xf32, "COp">
    }
    gpu.subgroup_mma_store_matrix %r, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.terminator
  }
  return
}
}

// -----

// Transposed fragments (A stored k-major, B n-major): then B's four k are
// consecutive (one vector load) and A's are not. i8 fragments (si8) are the
// memory's i8 in the lanes; a 2-D block gives the lane from the linear
// thread id.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx90a", warp_size = 64>} {
// CHECK-LABEL: func.func @mfma_transposed_i8
// CHECK: gpu.thread_id  y
// CHECK: gpu.block_dim  x
// CHECK-COUNT-4: memref.load %{{.*}} : memref<32x16xi8>
// CHECK: vector.from_elements {{.*}} : vector<4xi8>
// CHECK: vector.load %{{.*}} : memref<32x16xi8>, vector<4xi8>
// CHECK: amdgpu.mfma 16x16x16 {{.*}} : vector<4xi8>, vector<4xi8>, vector<4xi32>
func.func @mfma_transposed_i8(%ka: memref<32x16xi8>, %nb: memref<32x16xi8>, %c: memref<16x16xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c2, %sz = %c1) {
    %a = gpu.subgroup_mma_load_matrix %ka[%c0, %c0] {leadDimension = 16 : index, transpose} : memref<32x16xi8> -> !gpu.mma_matrix<16x16xsi8, "AOp">
    %b = gpu.subgroup_mma_load_matrix %nb[%c0, %c0] {leadDimension = 16 : index, transpose} : memref<32x16xi8> -> !gpu.mma_matrix<16x16xsi8, "BOp">
    %acc = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi32> -> !gpu.mma_matrix<16x16xi32, "COp">
    %d = gpu.subgroup_mma_compute %a, %b, %acc {a_transpose, b_transpose} : !gpu.mma_matrix<16x16xsi8, "AOp">, !gpu.mma_matrix<16x16xsi8, "BOp"> -> !gpu.mma_matrix<16x16xi32, "COp">
    gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xi32, "COp">, memref<16x16xi32>
    gpu.terminator
  }
  return
}
}

// -----

// RDNA3 WMMA (gfx1100, 32 lanes): a lane holds a whole row of A (16 values,
// one vector load), a whole column of B, and C(2e + l/16, l%16).
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx1100", warp_size = 32>} {
// CHECK-LABEL: func.func @wmma
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C:.*]] = arith.constant dense<1.500000e+00> : vector<8xf32>
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %[[C32]]
// CHECK: %[[A:.*]] = vector.load %{{.*}} : memref<16x16xf16>, vector<16xf16>
// CHECK-COUNT-16: memref.load %{{.*}} : memref<16x16xf16>
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<16xf16>
// CHECK: %[[D:.*]] = amdgpu.wmma 16x16x16 %[[A]] * %[[B]] + %[[C]] : vector<16xf16>, vector<16xf16>, vector<8xf32>
// CHECK: %[[E:.*]] = arith.addf %[[D]], %[[D]] : vector<8xf32>
// CHECK: %[[HIGH:.*]] = arith.divui %[[LANE]], %{{.*}}
// CHECK: %[[E0:.*]] = vector.extract %[[E]][0]
// CHECK: memref.store %[[E0]], %{{.*}}[%[[HIGH]], %[[LOW:.*]]] : memref<16x16xf32>
// CHECK: %[[E1:.*]] = vector.extract %[[E]][1]
// CHECK: %[[ROW1:.*]] = arith.addi %[[HIGH]], %c2
// CHECK: memref.store %[[E1]], %{{.*}}[%[[ROW1]], %[[LOW]]] : memref<16x16xf32>
// CHECK-COUNT-6: memref.store {{.*}} : memref<16x16xf32>
func.func @wmma(%sa: memref<16x16xf16>, %sb: memref<16x16xf16>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %v = arith.constant 1.5 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %a = gpu.subgroup_mma_load_matrix %sa[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %b = gpu.subgroup_mma_load_matrix %sb[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %init = gpu.subgroup_mma_constant_matrix %v : !gpu.mma_matrix<16x16xf32, "COp">
    %d = gpu.subgroup_mma_compute %a, %b, %init : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    %e = gpu.subgroup_mma_elementwise addf %d, %d : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %e, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.terminator
  }
  return
}
}

// -----

// No AMD matrix instruction on an RDNA2 chip.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx1030", warp_size = 32>} {
func.func @rdna2(%sa: memref<16x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{cannot lower gpu.subgroup_mma ops for amdgpu gfx1030: AMD matrix instructions are built for gfx908, gfx90a, gfx94x, gfx950 (MFMA) and gfx11 (WMMA)}}
    %a = gpu.subgroup_mma_load_matrix %sa[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    gpu.terminator
  }
  return
}
}

// -----

// NVIDIA modules keep their WMMA ops for upstream's NVVM lowering: this
// pass is an error there, not a silent no-op.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", warp_size = 32>} {
func.func @nvidia(%sa: memref<16x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{cannot lower gpu.subgroup_mma ops for nvgpu sm_80}}
    %a = gpu.subgroup_mma_load_matrix %sa[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    gpu.terminator
  }
  return
}
}

// -----

// MFMA needs 64-lane wavefronts.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx90a", warp_size = 32>} {
func.func @wave32_mfma(%sa: memref<16x16xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{cannot lower gpu.subgroup_mma ops: gfx90a's mfma instructions run on 64-lane wavefronts; the target says warp_size = 32}}
    %a = gpu.subgroup_mma_load_matrix %sa[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    gpu.terminator
  }
  return
}
}

// -----

// The lanes index the memref by rows leadDimension apart: a leadDimension
// that is not the memref's row stride is refused.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx90a", warp_size = 64>} {
func.func @lead_dimension(%sa: memref<16x24xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @below {{cannot lower to AMD matrix instructions: the fragment's memref needs rank 2 or more, a unit innermost stride and rows leadDimension (16) elements apart; it is 'memref<16x24xf16>'}}
    %a = gpu.subgroup_mma_load_matrix %sa[%c0, %c0] {leadDimension = 16 : index} : memref<16x24xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    gpu.terminator
  }
  return
}
}

// -----

// gfx942 has no 16x16x16 i8 MFMA (LLVM cannot select it there): refused.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx942", warp_size = 64>} {
func.func @i8_on_gfx942(%s: memref<16x16xi8>, %c: memref<16x16xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %a = gpu.subgroup_mma_load_matrix %s[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi8> -> !gpu.mma_matrix<16x16xsi8, "AOp">
    %b = gpu.subgroup_mma_load_matrix %s[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi8> -> !gpu.mma_matrix<16x16xsi8, "BOp">
    %acc = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi32> -> !gpu.mma_matrix<16x16xi32, "COp">
    // expected-error @below {{cannot lower to AMD matrix instructions: gfx942 has no 16x16x16 i8 MFMA}}
    %d = gpu.subgroup_mma_compute %a, %b, %acc : !gpu.mma_matrix<16x16xsi8, "AOp">, !gpu.mma_matrix<16x16xsi8, "BOp"> -> !gpu.mma_matrix<16x16xi32, "COp">
    gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xi32, "COp">, memref<16x16xi32>
    gpu.terminator
  }
  return
}
}

// -----

// Fragment types the lanes have no layout for: an f16 accumulator (MFMA
// has none) and unsigned i8 (the instructions here are signed).
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx90a", warp_size = 64>} {
func.func @types(%h: memref<16x16xf16>, %u: memref<16x16xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @below {{cannot lower to AMD matrix instructions: fragments are 16x16, A and B of f16 or si8, C of f32 or i32; this one is '!gpu.mma_matrix<16x16xf16, "COp">'}}
    %c = gpu.subgroup_mma_load_matrix %h[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "COp">
    // expected-error @below {{this one is '!gpu.mma_matrix<16x16xui8, "AOp">'}}
    %a = gpu.subgroup_mma_load_matrix %u[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi8> -> !gpu.mma_matrix<16x16xui8, "AOp">
    gpu.terminator
  }
  return
}
}

// -----

// The lanes hold what the loads put there: a product whose transposition
// flag disagrees with its operand's load is refused, not silently changed.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx90a", warp_size = 64>} {
func.func @transposition(%s: memref<16x16xf16>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %a = gpu.subgroup_mma_load_matrix %s[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %b = gpu.subgroup_mma_load_matrix %s[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %acc = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    // expected-error @below {{cannot lower to AMD matrix instructions: A's transposition differs between its load and this product}}
    %d = gpu.subgroup_mma_compute %a, %b, %acc {a_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.terminator
  }
  return
}
}

// tessel-fold-constant-transposes: the transpose kernels that
// tessel-map-matmul-to-gpu builds for an i8 B given as (k, n) become
// constants when B is one; the ones it must leave say why.
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-fold-constant-transposes)' | FileCheck %s
// The kernel as tessel-map-matmul-to-gpu{wgmma} builds it (forced sizes:
// at these the model would pick WMMA).
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{wgmma=true block-m=128 block-n=128 warps-m=1}),tessel-fold-constant-transposes)' 2>%t.remarks | FileCheck %s --check-prefix=MATMUL
// RUN: FileCheck %s --check-prefix=MATMUL-REMARK < %t.remarks

// B[k][n] = k + 2n as (k, n) = (32, 16); its transpose is T[n][k] = k + 2n,
// so T's first row counts 0..31 and its second 2..33. The source, private
// and read by nothing else afterwards, is removed.
// MATMUL-REMARK: remark: matmul 64x16x32 (i8 x i8 -> i32) mapped to tensor cores (wgmma m64n{{[0-9]+}}k32 on TMA-loaded tiles): {{.*}}is transposed into an (n, k) temporary first (a constant, which tessel-fold-constant-transposes computes at compile time)
// MATMUL-REMARK: remark: transpose of constant @w (32x16, 512 B) computed at compile time as @__tessel_transpose_of_w: its kernel and temporary removed
// MATMUL-NOT: memref.global "private" constant @w :
// MATMUL: memref.global "private" constant @__tessel_transpose_of_w : memref<16x32xi8> = dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F02030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20210405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20212223060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20212223242508090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20212223242526270A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728290C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F12131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F30311415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F30313233161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F30313233343518191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F30313233343536371A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738391C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D"> {alignment = 64 : i64}
// MATMUL-NOT: memref.global "private" constant @w :
// MATMUL-LABEL: func.func @i8_kn_constant
// MATMUL: %[[BT:.*]] = memref.get_global @__tessel_transpose_of_w : memref<16x32xi8>
// MATMUL-NOT: tessel.transpose_kernel
// MATMUL: memref.cast %[[BT]] : memref<16x32xi8> to memref<*xi8>
// MATMUL: nvgpu.tma.create.descriptor
// MATMUL: nvvm.wgmma.mma_async
// MATMUL-NOT: memref.dealloc
// MATMUL: return
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 14, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32", "wgmma.m64nNk32:i8xi8->i32"]>} {
  memref.global "private" constant @w : memref<32x16xi8> = dense<"0x00020406080A0C0E10121416181A1C1E01030507090B0D0F11131517191B1D1F020406080A0C0E10121416181A1C1E20030507090B0D0F11131517191B1D1F210406080A0C0E10121416181A1C1E20220507090B0D0F11131517191B1D1F212306080A0C0E10121416181A1C1E20222407090B0D0F11131517191B1D1F212325080A0C0E10121416181A1C1E20222426090B0D0F11131517191B1D1F212325270A0C0E10121416181A1C1E20222426280B0D0F11131517191B1D1F21232527290C0E10121416181A1C1E20222426282A0D0F11131517191B1D1F21232527292B0E10121416181A1C1E20222426282A2C0F11131517191B1D1F21232527292B2D10121416181A1C1E20222426282A2C2E11131517191B1D1F21232527292B2D2F121416181A1C1E20222426282A2C2E30131517191B1D1F21232527292B2D2F311416181A1C1E20222426282A2C2E30321517191B1D1F21232527292B2D2F313316181A1C1E20222426282A2C2E30323417191B1D1F21232527292B2D2F313335181A1C1E20222426282A2C2E30323436191B1D1F21232527292B2D2F313335371A1C1E20222426282A2C2E30323436381B1D1F21232527292B2D2F31333537391C1E20222426282A2C2E30323436383A1D1F21232527292B2D2F31333537393B1E20222426282A2C2E30323436383A3C1F21232527292B2D2F31333537393B3D">
  func.func @i8_kn_constant(%a: memref<64x32xi8>, %c: memref<64x16xi32>) {
    %w = memref.get_global @w : memref<32x16xi8>
    %zero = arith.constant 0 : i32
    linalg.fill ins(%zero : i32) outs(%c : memref<64x16xi32>)
    linalg.matmul ins(%a, %w : memref<64x32xi8>, memref<32x16xi8>) outs(%c : memref<64x16xi32>)
    return
  }
}

// -----

// A splat constant's transpose is the same splat; two transposes of one
// view share one global; the source, private and now unread, is removed.
// CHECK-NOT: @splat :
// CHECK: memref.global "private" constant @__tessel_transpose_of_splat : memref<16x2xi8> = dense<7> {alignment = 64 : i64}
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @splat_twice
// CHECK: %[[T1:.*]] = memref.get_global @__tessel_transpose_of_splat : memref<16x2xi8>
// CHECK: %[[T2:.*]] = memref.get_global @__tessel_transpose_of_splat : memref<16x2xi8>
// CHECK-NOT: gpu.launch
// CHECK: memref.copy %[[T1]], %{{.*}}
// CHECK: memref.copy %[[T2]], %{{.*}}
// CHECK-NOT: memref.dealloc
memref.global "private" constant @splat : memref<2x16xi8> = dense<7>
func.func @splat_twice(%out1: memref<16x2xi8>, %out2: memref<16x2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @splat : memref<2x16xi8>
  %t1 = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  %t2 = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose of constant @splat (2x16, 32 B) computed at compile time as @__tessel_transpose_of_splat}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t1[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  // expected-remark @below {{computed at compile time as @__tessel_transpose_of_splat:}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t2[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t1, %out1 : memref<16x2xi8> to memref<16x2xi8>
  memref.copy %t2, %out2 : memref<16x2xi8> to memref<16x2xi8>
  memref.dealloc %t1 : memref<16x2xi8>
  memref.dealloc %t2 : memref<16x2xi8>
  return
}

// -----

// Rows 1..2 of a public constant: T[c][r] = G[1 + r][c] = 16 (1 + r) + c;
// the source stays (public).
// CHECK: memref.global constant @rows : memref<4x16xi8>
// CHECK: memref.global "private" constant @__tessel_transpose_of_rows : memref<16x2xi8> = dense<{{\[}}[16, 32], [17, 33], [18, 34], [19, 35], [20, 36], [21, 37], [22, 38], [23, 39], [24, 40], [25, 41], [26, 42], [27, 43], [28, 44], [29, 45], [30, 46], [31, 47]]>
// CHECK-LABEL: func.func @rows_of_constant
// CHECK: %[[T:.*]] = memref.get_global @__tessel_transpose_of_rows
// CHECK-NOT: gpu.launch
// CHECK: memref.copy %[[T]]
// CHECK-NEXT: return
memref.global constant @rows : memref<4x16xi8> = dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31], [32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47], [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]]>
func.func @rows_of_constant(%out: memref<16x2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @rows : memref<4x16xi8>
  %s = memref.subview %w[1, 0] [2, 16] [1, 1] : memref<4x16xi8> to memref<2x16xi8, strided<[16, 1], offset: 16>>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{computed at compile time}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %s[%c0, %c0] : memref<2x16xi8, strided<[16, 1], offset: 16>>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t, %out : memref<16x2xi8> to memref<16x2xi8>
  memref.dealloc %t : memref<16x2xi8>
  return
}

// -----

// dense_resource in, dense_resource out (the frontend's form for large
// weights).
// CHECK: memref.global "private" constant @__tessel_transpose_of_res : memref<16x2xi8> = dense_resource<__tessel_transposed> {alignment = 64 : i64}
// CHECK-LABEL: func.func @resource
// CHECK: memref.get_global @__tessel_transpose_of_res
// CHECK: __tessel_transposed: "0x4000000000100111021203130414051506160717081809190A1A0B1B0C1C0D1D0E1E0F1F"
memref.global "private" constant @res : memref<2x16xi8> = dense_resource<weights>
func.func @resource(%out: memref<16x2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @res : memref<2x16xi8>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{computed at compile time}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t, %out : memref<16x2xi8> to memref<16x2xi8>
  memref.dealloc %t : memref<16x2xi8>
  return
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x01000000000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
    }
  }
#-}

// -----

// Left alone: the resource's data was elided.
// CHECK-LABEL: func.func @elided
// CHECK: gpu.launch
memref.global "private" constant @elided_weights : memref<2x16xi8> = dense_resource<__elided__>
func.func @elided(%out: memref<16x2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @elided_weights : memref<2x16xi8>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose of constant @elided_weights not folded: its dense_resource data is not available}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t, %out : memref<16x2xi8> to memref<16x2xi8>
  memref.dealloc %t : memref<16x2xi8>
  return
}

// -----

// Left alone: something else writes the temporary.
// CHECK-LABEL: func.func @written_elsewhere
// CHECK: gpu.launch
// CHECK: memref.store
memref.global "private" constant @w : memref<2x16xi8> = dense<1>
func.func @written_elsewhere(%out: memref<16x2xi8>, %x: i8) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @w : memref<2x16xi8>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose of constant @w not folded: 'memref.store' may write the temporary}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.store %x, %t[%c0, %c0] : memref<16x2xi8>
  memref.copy %t, %out : memref<16x2xi8> to memref<16x2xi8>
  memref.dealloc %t : memref<16x2xi8>
  return
}

// -----

// Left alone, silently: B is not a constant (an argument, a mutable
// global); the kernel runs on every call.
// CHECK-LABEL: func.func @not_constant
// CHECK: gpu.launch
// CHECK: gpu.launch
memref.global "private" @mutable : memref<2x16xi8> = dense<1>
func.func @not_constant(%b: memref<2x16xi8>, %out: memref<16x2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.get_global @mutable : memref<2x16xi8>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %b[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %m[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t, %out : memref<16x2xi8> to memref<16x2xi8>
  memref.dealloc %t : memref<16x2xi8>
  return
}

// -----

// Left alone: the marked kernel was changed (it stores to memory other
// than its destination).
// CHECK-LABEL: func.func @changed_kernel
// CHECK: gpu.launch
memref.global "private" constant @w : memref<2x16xi8> = dense<1>
func.func @changed_kernel(%out: memref<16x2xi8>, %other: memref<16x2xi8>, %x: i8) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @w : memref<2x16xi8>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose not folded: the kernel is no longer the one tessel-map-matmul-to-gpu built}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    memref.store %x, %other[%c0, %c0] : memref<16x2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t, %out : memref<16x2xi8> to memref<16x2xi8>
  memref.dealloc %t : memref<16x2xi8>
  return
}

// -----

// Two different views of one global (a packed weight's slices) get two
// globals; a name the module already uses later on is not reused.
// CHECK-DAG: memref.global "private" constant @__tessel_transpose_of_packed_0 : memref<16x2xi8> = dense<{{\[}}[0, 16], [1, 17],
// CHECK-DAG: memref.global "private" constant @__tessel_transpose_of_packed_1 : memref<16x2xi8> = dense<{{\[}}[32, 48], [33, 49],
// CHECK-LABEL: func.func @two_views
// CHECK: memref.get_global @__tessel_transpose_of_packed_0
// CHECK: memref.get_global @__tessel_transpose_of_packed_1
// CHECK: memref.global "private" @__tessel_transpose_of_packed : memref<1xi8>
memref.global constant @packed : memref<4x16xi8> = dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31], [32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47], [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]]>
func.func @two_views(%out1: memref<16x2xi8>, %out2: memref<16x2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @packed : memref<4x16xi8>
  %s0 = memref.subview %w[0, 0] [2, 16] [1, 1] : memref<4x16xi8> to memref<2x16xi8, strided<[16, 1]>>
  %s1 = memref.subview %w[2, 0] [2, 16] [1, 1] : memref<4x16xi8> to memref<2x16xi8, strided<[16, 1], offset: 32>>
  %t1 = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  %t2 = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{computed at compile time as @__tessel_transpose_of_packed_0}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %s0[%c0, %c0] : memref<2x16xi8, strided<[16, 1]>>, vector<2xi8>
    vector.store %v, %t1[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  // expected-remark @below {{computed at compile time as @__tessel_transpose_of_packed_1}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %s1[%c0, %c0] : memref<2x16xi8, strided<[16, 1], offset: 32>>, vector<2xi8>
    vector.store %v, %t2[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t1, %out1 : memref<16x2xi8> to memref<16x2xi8>
  memref.copy %t2, %out2 : memref<16x2xi8> to memref<16x2xi8>
  memref.dealloc %t1 : memref<16x2xi8>
  memref.dealloc %t2 : memref<16x2xi8>
  return
}
memref.global "private" @__tessel_transpose_of_packed : memref<1xi8> = dense<0>

// -----

// Left alone: index elements (no byte size), a view reaching past the
// global's end, a destination that is not the transpose's shape.
// CHECK-LABEL: func.func @not_transposable
// CHECK-COUNT-3: gpu.launch
memref.global "private" constant @indices : memref<2x16xindex> = dense<1>
memref.global "private" constant @short : memref<2x16xi8> = dense<1>
func.func @not_transposable(%out: memref<16x2xindex>, %out8: memref<16x2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @indices : memref<2x16xindex>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xindex>
  // expected-remark @below {{transpose of constant @indices not folded: its elements are not whole bytes of the global's element type}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xindex>, vector<2xindex>
    vector.store %v, %t[%c0, %c0] : memref<16x2xindex>, vector<2xindex>
    gpu.terminator
  } {tessel.transpose_kernel}
  %s = memref.get_global @short : memref<2x16xi8>
  %past = memref.reinterpret_cast %s to offset: [24], sizes: [2, 16], strides: [16, 1] : memref<2x16xi8> to memref<2x16xi8, strided<[16, 1], offset: 24>>
  %t8 = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose of constant @short not folded: the view reaches outside the global}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %past[%c0, %c0] : memref<2x16xi8, strided<[16, 1], offset: 24>>, vector<2xi8>
    vector.store %v, %t8[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  %wrong = memref.alloc() {alignment = 64 : i64} : memref<2x16xi8>
  // expected-remark @below {{transpose of constant @short not folded: its destination is not a contiguous (cols x rows) matrix}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %s[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %wrong[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t, %out : memref<16x2xindex> to memref<16x2xindex>
  memref.copy %t8, %out8 : memref<16x2xi8> to memref<16x2xi8>
  return
}

// -----

// Left alone: the temporary escapes through arith.select (a later store
// through it would write the constant), or is returned.
// CHECK-LABEL: func.func @escapes
// CHECK-COUNT-2: gpu.launch
memref.global "private" constant @w : memref<2x16xi8> = dense<1>
func.func @escapes(%other: memref<16x2xi8>, %flag: i1, %x: i8) -> memref<16x2xi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = memref.get_global @w : memref<2x16xi8>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose of constant @w not folded: 'arith.select' gives back a memref that may alias the temporary}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  %either = arith.select %flag, %t, %other : memref<16x2xi8>
  memref.store %x, %either[%c0, %c0] : memref<16x2xi8>
  %r = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose of constant @w not folded: 'func.return' hands the temporary on}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %w[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %r[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  return %r : memref<16x2xi8>
}

// -----

// Left alone: the source is read through memref.view (a byte shift), and
// a marked kernel that also writes other memory (not the one built).
// CHECK-LABEL: func.func @view_and_extra_write
// CHECK-COUNT-2: gpu.launch
memref.global "private" constant @bytes : memref<64xi8> = dense<1>
func.func @view_and_extra_write(%out: memref<16x2xi8>, %other: memref<16x2xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.get_global @bytes : memref<64xi8>
  %viewed = memref.view %b[%c0][] : memref<64xi8> to memref<2x16xi8>
  %t = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose of constant @bytes not folded: it is read through a memref.view (a byte shift)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %viewed[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %v, %t[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  %u = memref.alloc() {alignment = 64 : i64} : memref<16x2xi8>
  // expected-remark @below {{transpose not folded: the kernel is no longer the one tessel-map-matmul-to-gpu built}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = vector.load %viewed[%c0, %c0] : memref<2x16xi8>, vector<2xi8>
    vector.store %x, %u[%c0, %c0] : memref<16x2xi8>, vector<2xi8>
    vector.transfer_write %x, %other[%c0, %c0] : vector<2xi8>, memref<16x2xi8>
    gpu.terminator
  } {tessel.transpose_kernel}
  memref.copy %t, %out : memref<16x2xi8> to memref<16x2xi8>
  memref.copy %u, %out : memref<16x2xi8> to memref<16x2xi8>
  return
}

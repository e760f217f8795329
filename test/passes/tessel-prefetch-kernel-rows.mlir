// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-prefetch-kernel-rows))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-prefetch-kernel-rows{distance=4}))' 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-prefetch-kernel-rows{min-row-stride-bytes=4096}))' 2>/dev/null | FileCheck %s --check-prefix=STRIDE

// A kernel's k loop reading B in place: rows of 32 floats 2 KiB apart
// (a 512-column matrix). Each iteration prefetches the 2 cache lines of
// the row 16 steps ahead, through the subview cloned with the induction
// variable advanced and clamped to the last iteration (in bounds).
// CHECK-LABEL: func.func @strided_rows(
// CHECK-SAME: %[[B:[^:]+]]: memref<128x512xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %c128 step %c1
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c16
// CHECK: %[[LAST:.*]] = arith.subi %c128, %c1
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[AHEAD]], %c128
// CHECK: %[[MAX:.*]] = arith.maxsi %[[LAST]], %[[K]]
// CHECK: %[[SEL:.*]] = arith.select %[[IN]], %[[AHEAD]], %[[MAX]]
// CHECK: %[[V:.*]] = memref.subview %[[B]][%[[SEL]], 0] [1, 32] [1, 1]
// CHECK: memref.prefetch %[[V]][%{{.*}}, %{{.*}}], read, locality<3>, data
// CHECK: memref.prefetch %[[V]][%{{.*}}, %{{.*}}], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read
// CHECK: vector.fma
// OPTS: remark: prefetching 1 strided row(s) 4 k steps ahead in 1 kernel loop(s)
// OPTS-LABEL: func.func @strided_rows(
// OPTS: arith.addi %{{.*}}, %c4
// With min-row-stride-bytes=4096 the 2 KiB rows are left alone.
// STRIDE-LABEL: func.func @strided_rows(
// STRIDE-NOT: memref.prefetch
// STRIDE: return
// expected-remark @below {{prefetching 1 strided row(s) 16 k steps ahead in 1 kernel loop(s)}}
func.func @strided_rows(%b: memref<128x512xf32>, %a: vector<32xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
    %row = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<128x512xf32> to memref<1x32xf32, strided<[512, 1], offset: ?>>
    %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[512, 1], offset: ?>>, vector<1x32xf32>
    %x = vector.extract %v[0] : vector<32xf32> from vector<1x32xf32>
    %f = vector.fma %a, %x, %acc : vector<32xf32>
    scf.yield %f : vector<32xf32>
  }
  vector.transfer_write %r, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  return
}

// -----

// A packed micro-panel (consecutive rows: 128 B apart) is left to the
// hardware prefetcher, as is a loop without FMAs (not a kernel's k loop).
// CHECK-LABEL: func.func @packed_rows(
// CHECK-NOT: memref.prefetch
// CHECK: return
// CHECK-LABEL: func.func @no_fma(
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @packed_rows(%b: memref<128x32xf32>, %a: vector<32xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
    %row = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<128x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
    %x = vector.extract %v[0] : vector<32xf32> from vector<1x32xf32>
    %f = vector.fma %a, %x, %acc : vector<32xf32>
    scf.yield %f : vector<32xf32>
  }
  vector.transfer_write %r, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  return
}

func.func @no_fma(%b: memref<128x512xf32>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
    %row = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<128x512xf32> to memref<1x32xf32, strided<[512, 1], offset: ?>>
    %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[512, 1], offset: ?>>, vector<1x32xf32>
    %x = vector.extract %v[0] : vector<32xf32> from vector<1x32xf32>
    %f = arith.addf %x, %acc : vector<32xf32>
    scf.yield %f : vector<32xf32>
  }
  vector.transfer_write %r, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  return
}

// -----

// A target whose hardware prefetcher follows rows up to 4 KiB apart
// (stride_prefetch): the 2 KiB rows are left to it, and a remark says so;
// rows 8 KiB apart are still prefetched.
// CHECK-LABEL: func.func @hardware_follows(
// CHECK-NOT: memref.prefetch
// CHECK: vector.fma
// CHECK-LABEL: func.func @beyond_hardware(
// CHECK: memref.prefetch
// CHECK: vector.fma
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2, stride_prefetch = 4096>} {
  // expected-remark @below {{not prefetching 1 strided row(s) at most 4096 B apart: the target's hardware prefetcher follows them (stride_prefetch)}}
  func.func @hardware_follows(%b: memref<128x512xf32>, %a: vector<32xf32>, %out: memref<32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %pad = arith.constant 0.0 : f32
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %row = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<128x512xf32> to memref<1x32xf32, strided<[512, 1], offset: ?>>
      %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[512, 1], offset: ?>>, vector<1x32xf32>
      %x = vector.extract %v[0] : vector<32xf32> from vector<1x32xf32>
      %f = vector.fma %a, %x, %acc : vector<32xf32>
      scf.yield %f : vector<32xf32>
    }
    vector.transfer_write %r, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
    return
  }
  // expected-remark @below {{prefetching 1 strided row(s) 16 k steps ahead in 1 kernel loop(s)}}
  func.func @beyond_hardware(%b: memref<128x2048xf32>, %a: vector<32xf32>, %out: memref<32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %pad = arith.constant 0.0 : f32
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %row = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<128x2048xf32> to memref<1x32xf32, strided<[2048, 1], offset: ?>>
      %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[2048, 1], offset: ?>>, vector<1x32xf32>
      %x = vector.extract %v[0] : vector<32xf32> from vector<1x32xf32>
      %f = vector.fma %a, %x, %acc : vector<32xf32>
      scf.yield %f : vector<32xf32>
    }
    vector.transfer_write %r, %out[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
    return
  }
}

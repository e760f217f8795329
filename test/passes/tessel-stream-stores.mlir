// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-stream-stores))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-stream-stores{min-bytes=1024}))' 2>/dev/null | FileCheck %s --check-prefix=MIN

// The last nest of a tile writes rows of an output larger than the (test)
// last-level cache and nothing reads it: the nest is versioned on the
// buffer's alignment; the aligned version stores whole lines non-temporally
// and fences; the other keeps the original writes.

// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[IN:.*]]: memref<64x1024xf32>, %[[OUT:.*]]: memref<64x1024xf32>)
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[REM:.*]] = arith.remui %[[PTR]], %{{.*}} : index
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK: scf.parallel
// CHECK: %[[SUB:.*]] = memref.subview %[[OUT]]
// CHECK: scf.if %[[ALIGNED]] {
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[FLAT:.*]] = vector.shape_cast %{{.*}} : vector<1x64xf32> to vector<64xf32>
// CHECK: vector.store %[[FLAT]], %[[SUB]][%{{.*}}, %{{.*}}] {alignment = 64 : i64, nontemporal = true}
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_write %{{.*}}, %[[SUB]]
// CHECK-NOT: nontemporal
// CHECK: scf.reduce
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 65536, cores = 2>} {
  // expected-remark @below {{output #1 (256 KiB) is larger than the 64 KiB last-level cache and only written: 1 loop nest(s) write it with non-temporal stores of whole 64-byte lines when the buffer is 64-byte aligned}}
  func.func @rows(%in: memref<64x1024xf32>, %out: memref<64x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %pad = ub.poison : f32
    scf.parallel (%t) = (%c0) to (%c64) step (%c8) {
      %tile = memref.subview %out[%t, 0] [8, 1024] [1, 1] : memref<64x1024xf32> to memref<8x1024xf32, strided<[1024, 1], offset: ?>>
      scf.for %r = %c0 to %c8 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %row = arith.addi %t, %r : index
          %v = vector.transfer_read %in[%row, %j], %pad {in_bounds = [true, true]} : memref<64x1024xf32>, vector<1x64xf32>
          %w = arith.addf %v, %v : vector<1x64xf32>
          vector.transfer_write %w, %tile[%r, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<8x1024xf32, strided<[1024, 1], offset: ?>>
        }
      }
      scf.reduce
    }
    return
  }
}

// -----

// An output that is read back keeps its cached stores.

// CHECK-LABEL: func.func @read_back(
// CHECK-NOT: nontemporal
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l2 = 1048576, l3 = 65536>} {
  func.func @read_back(%out: memref<64x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %pad = ub.poison : f32
    %one = arith.constant dense<1.0> : vector<64xf32>
    scf.for %i = %c0 to %c64 step %c64 {
      scf.for %j = %c0 to %c1024 step %c64 {
        // expected-remark @below {{cached stores kept for output #0 (256 KiB): it is also used by vector.transfer_read, not only written}}
        %v = vector.transfer_read %out[%i, %j], %pad {in_bounds = [true]} : memref<64x1024xf32>, vector<64xf32>
        %w = arith.addf %v, %one : vector<64xf32>
        vector.transfer_write %w, %out[%i, %j] {in_bounds = [true]} : vector<64xf32>, memref<64x1024xf32>
      }
    }
    return
  }
}

// -----

// Rows of 1000 floats (4000 bytes): a row start is 32-byte aligned at best,
// so no store can claim a 64-byte line.

// CHECK-LABEL: func.func @odd_rows(
// CHECK-NOT: nontemporal
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l2 = 1048576, l3 = 65536>} {
  func.func @odd_rows(%out: memref<64x1000xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c960 = arith.constant 960 : index
    %v = arith.constant dense<1.0> : vector<64xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c960 step %c64 {
        // expected-remark @below {{cached store kept for output #0 (250 KiB): its offset is known to be a multiple of 32 B only, not of the 64-byte line}}
        vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<64xf32>, memref<64x1000xf32>
      }
    }
    return
  }
}

// -----

// Vectors of half a line, and a write that may run out of bounds.

// CHECK-LABEL: func.func @partial_lines(
// CHECK-NOT: nontemporal
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l2 = 1048576, l3 = 65536>} {
  func.func @partial_lines(%out: memref<64x1024xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %v = arith.constant dense<1.0> : vector<8xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c1024 step %c8 {
        // expected-remark @below {{cached store kept for output #0 (256 KiB): the written vector (32 B) is not a whole number of 64-byte cache lines}}
        vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<8xf32>, memref<64x1024xf32>
      }
      // expected-remark @below {{cached store kept for output #0 (256 KiB): the write is masked, permuted or may run out of bounds}}
      vector.transfer_write %v, %out[%i, %n] : vector<8xf32>, memref<64x1024xf32>
    }
    return
  }
}

// -----

// Below the last-level cache: cached stores, no remark (the MIN run lowers
// the threshold and streams it). Not x86: a remark, nothing changes.

// CHECK-LABEL: func.func @small(
// CHECK-NOT: nontemporal
// CHECK: return
// MIN-LABEL: func.func @small(
// MIN: vector.store {{.*}}nontemporal = true
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l2 = 1048576, l3 = 65536>} {
  func.func @small(%out: memref<16x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %v = arith.constant dense<1.0> : vector<64xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      vector.transfer_write %v, %out[%i, %c0] {in_bounds = [true]} : vector<64xf32>, memref<16x64xf32>
    }
    return
  }
}

// -----

// CHECK-LABEL: func.func @not_x86(
// CHECK-NOT: nontemporal
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "aarch64-unknown-linux-gnu", cache_line = 64, l2 = 1048576, l3 = 65536>} {
  // expected-remark @below {{cached stores kept for output #0 (256 KiB): non-temporal stores are emitted for x86 only}}
  func.func @not_x86(%out: memref<64x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %v = arith.constant dense<1.0> : vector<1024xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      vector.transfer_write %v, %out[%i, %c0] {in_bounds = [true]} : vector<1024xf32>, memref<64x1024xf32>
    }
    return
  }
}

// -----

// Index elements have no byte size the pass can reason about: left alone.

// CHECK-LABEL: func.func @index_elements(
// CHECK-NOT: nontemporal
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l2 = 1048576, l3 = 65536>} {
  func.func @index_elements(%out: memref<65536xindex>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c65536 = arith.constant 65536 : index
    %v = arith.constant dense<1> : vector<64xindex>
    scf.for %i = %c0 to %c65536 step %c64 {
      vector.transfer_write %v, %out[%i] {in_bounds = [true]} : vector<64xindex>, memref<65536xindex>
    }
    return
  }
}

// -----

// An iter_arg of an affine.for is not its induction variable: a position
// that starts at 1 and grows by 64 is not line-aligned. A 0-d vector write
// is one element, never a whole line.

// CHECK-LABEL: func.func @iter_arg_position(
// CHECK-NOT: nontemporal
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l2 = 1048576, l3 = 65536>} {
  func.func @iter_arg_position(%out: memref<65600xf32>, %flat: memref<64x1024xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %v = arith.constant dense<1.0> : vector<64xf32>
    %s = arith.constant dense<2.0> : vector<f32>
    %last = affine.for %i = 0 to 65536 step 64 iter_args(%pos = %c1) -> (index) {
      // expected-remark @below {{cached store kept for output #0 (256.2 KiB): its offset is known to be a multiple of 4 B only, not of the 64-byte line}}
      vector.transfer_write %v, %out[%pos] {in_bounds = [true]} : vector<64xf32>, memref<65600xf32>
      %next = arith.addi %pos, %c64 : index
      affine.yield %next : index
    }
    // expected-remark @below {{cached store kept for output #1 (256 KiB): the written vector is 0-d (one element)}}
    vector.transfer_write %s, %flat[%c1, %c64] : vector<f32>, memref<64x1024xf32>
    return
  }
}

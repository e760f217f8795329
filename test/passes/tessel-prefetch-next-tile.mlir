// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-prefetch-next-tile))' | FileCheck %s

// A tile reads its rows of a large input in a first nest (from memory) and
// again in a second nest that only computes into a tile buffer: the second
// nest prefetches the next tile's rows, one prefetch per 64-byte line, at
// the parallel induction variable plus one step (the last tile prefetches
// itself, staying in bounds). The first nest is left alone.

// CHECK-LABEL: func.func @two_pass_tile(
// CHECK-SAME: %[[X:[^:]*]]: memref<256x1024xf32>
// CHECK: scf.parallel (%[[T:.*]]) =
// CHECK: %[[STEP:.*]] = arith.addi %[[T]], %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[STEP]], %{{.*}} : index
// CHECK: %[[NEXT:.*]] = arith.select %[[IN]], %[[STEP]], %[[T]] : index
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: vector.reduction <maximumf>
// CHECK: scf.for %[[R:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[ROW:.*]] = arith.addi %[[NEXT]], %[[R]] : index
// CHECK: memref.prefetch %[[X]][%[[ROW]], %[[J]]], read, locality<2>, data
// CHECK: %[[J16:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: memref.prefetch %[[X]][%[[ROW]], %[[J16]]], read, locality<2>, data
// CHECK-COUNT-2: memref.prefetch
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %[[X]]
// CHECK: math.exp
// CHECK-NOT: memref.prefetch
// CHECK: scf.reduce
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 65536, cores = 2>} {
  func.func @two_pass_tile(%x: memref<256x1024xf32>, %y: memref<256x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %pad = ub.poison : f32
    %ninf = arith.constant dense<0xFF800000> : vector<1x64xf32>
    scf.parallel (%t) = (%c0) to (%c256) step (%c8) {
      %max = memref.alloca() : memref<8xf32>
      %buf = memref.alloca() {alignment = 64 : i64} : memref<8x1024xf32>
      scf.for %r = %c0 to %c8 step %c1 {
        %m = scf.for %j = %c0 to %c1024 step %c64 iter_args(%acc = %ninf) -> (vector<1x64xf32>) {
          %row = arith.addi %t, %r : index
          %v = vector.transfer_read %x[%row, %j], %pad {in_bounds = [true, true]} : memref<256x1024xf32>, vector<1x64xf32>
          %n = arith.maximumf %v, %acc : vector<1x64xf32>
          scf.yield %n : vector<1x64xf32>
        }
        %flat = vector.shape_cast %m : vector<1x64xf32> to vector<64xf32>
        %s = vector.reduction <maximumf>, %flat : vector<64xf32> into f32
        memref.store %s, %max[%r] : memref<8xf32>
      }
      // expected-remark @below {{prefetching the next tile of input #0 (1 MiB; 32 KiB per tile) into L2 during this nest, which re-reads it with 2 vector arithmetic ops and no output stores: 4 line prefetch(es) per iteration}}
      scf.for %r = %c0 to %c8 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %row = arith.addi %t, %r : index
          %v = vector.transfer_read %x[%row, %j], %pad {in_bounds = [true, true]} : memref<256x1024xf32>, vector<1x64xf32>
          %s = memref.load %max[%r] : memref<8xf32>
          %b = vector.broadcast %s : f32 to vector<1x64xf32>
          %d = arith.subf %v, %b : vector<1x64xf32>
          %e = math.exp %d : vector<1x64xf32>
          vector.transfer_write %e, %buf[%r, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<8x1024xf32>
        }
      }
      %tile = memref.subview %y[%t, 0] [8, 1024] [1, 1] : memref<256x1024xf32> to memref<8x1024xf32, strided<[1024, 1], offset: ?>>
      scf.for %r = %c0 to %c8 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %e = vector.transfer_read %buf[%r, %j], %pad {in_bounds = [true, true]} : memref<8x1024xf32>, vector<1x64xf32>
          vector.transfer_write %e, %tile[%r, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<8x1024xf32, strided<[1024, 1], offset: ?>>
        }
      }
      scf.reduce
    }
    return
  }
}

// -----

// The only nest that re-reads the input also writes the output, through a
// subview made in the tile (memory is busy there anyway), and no nest
// computes on tile buffers alone: nothing is prefetched, a remark says why.
// An input the last-level cache holds gets nothing either.

// CHECK-LABEL: func.func @reread_by_store_nest(
// CHECK-NOT: memref.prefetch
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 65536, cores = 2>} {
  func.func @reread_by_store_nest(%x: memref<256x1024xf32>, %small: memref<8x1024xf32>, %y: memref<256x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %pad = ub.poison : f32
    scf.parallel (%t) = (%c0) to (%c256) step (%c8) {
      %acc = memref.alloca() : memref<1x64xf32>
      // expected-remark @below {{next tile of input #0 (1 MiB) not prefetched: no nest after the one that reads it computes without reading it or storing an output}}
      scf.for %r = %c0 to %c8 step %c1 {
        %row = arith.addi %t, %r : index
        %v = vector.transfer_read %x[%row, %c0], %pad {in_bounds = [true, true]} : memref<256x1024xf32>, vector<1x64xf32>
        %w = vector.transfer_read %small[%r, %c0], %pad {in_bounds = [true, true]} : memref<8x1024xf32>, vector<1x64xf32>
        %s = arith.addf %v, %w : vector<1x64xf32>
        vector.transfer_write %s, %acc[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32>
      }
      scf.for %r = %c0 to %c8 step %c1 {
        %row = arith.addi %t, %r : index
        %v = vector.transfer_read %x[%row, %c0], %pad {in_bounds = [true, true]} : memref<256x1024xf32>, vector<1x64xf32>
        %w = vector.transfer_read %small[%r, %c0], %pad {in_bounds = [true, true]} : memref<8x1024xf32>, vector<1x64xf32>
        %s = arith.mulf %v, %w : vector<1x64xf32>
        %tile = memref.subview %y[%t, 0] [8, 1024] [1, 1] : memref<256x1024xf32> to memref<8x1024xf32, strided<[1024, 1], offset: ?>>
        vector.transfer_write %s, %tile[%r, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<8x1024xf32, strided<[1024, 1], offset: ?>>
      }
      scf.reduce
    }
    return
  }
}

// -----

// Reads of half a line (vector<8xf32>) would need two prefetches of one
// line: a remark, nothing inserted.

// CHECK-LABEL: func.func @half_lines(
// CHECK-NOT: memref.prefetch
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 65536, cores = 2>} {
  func.func @half_lines(%x: memref<256x1024xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %pad = ub.poison : f32
    %out = memref.alloca() : memref<8xf32>
    scf.parallel (%t) = (%c0) to (%c256) step (%c8) {
      %sum = memref.alloca() : memref<8xf32>
      scf.for %j = %c0 to %c1024 step %c8 {
        %v = vector.transfer_read %x[%t, %j], %pad {in_bounds = [true]} : memref<256x1024xf32>, vector<8xf32>
        vector.transfer_write %v, %sum[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
      }
      // expected-remark @below {{next tile of input #0 (1 MiB) not prefetched: a read covers part of a cache line}}
      scf.for %j = %c0 to %c1024 step %c8 {
        %v = vector.transfer_read %x[%t, %j], %pad {in_bounds = [true]} : memref<256x1024xf32>, vector<8xf32>
        %w = arith.addf %v, %v : vector<8xf32>
        vector.transfer_write %w, %sum[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
      }
      %s = memref.load %sum[%c0] : memref<8xf32>
      memref.store %s, %out[%c0] : memref<8xf32>
      scf.reduce
    }
    %r = memref.load %out[%c0] : memref<8xf32>
    return %r : f32
  }
}

// -----

// A stencil-like tile: the first nest reads the tile's rows of the input
// (through the tile's view of it) into a tile buffer, the second computes
// on tile buffers only, the third stores the output. The input is read by
// one nest, so the second one prefetches the next tile's view: its
// 10 x 1024 rows spread over the nest's 8 iterations, one prefetch per
// 16 floats of a row plus the row's last element.

// CHECK-LABEL: func.func @compute_only_nest(
// CHECK: scf.parallel (%[[T:.*]]) =
// CHECK-NOT: memref.prefetch
// CHECK: %[[NEXT:.*]] = arith.select
// CHECK: %[[VIEW:.*]] = memref.subview %{{.*}}[%[[NEXT]], 0] [10, 1024] [1, 1]
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %{{.*}} step %[[LINE:.*]] {
// CHECK-NEXT: memref.prefetch %[[VIEW]][%{{.*}}, %[[COL]]], read, locality<2>, data
// CHECK: memref.prefetch %[[VIEW]]
// CHECK: arith.mulf
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 65536, cores = 2>} {
  func.func @compute_only_nest(%x: memref<258x1024xf32>, %y: memref<256x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %pad = ub.poison : f32
    scf.parallel (%t) = (%c0) to (%c256) step (%c8) {
      %rows = memref.subview %x[%t, 0] [10, 1024] [1, 1] : memref<258x1024xf32> to memref<10x1024xf32, strided<[1024, 1], offset: ?>>
      %buf = memref.alloca() : memref<10x1024xf32>
      %res = memref.alloca() : memref<8x1024xf32>
      scf.for %r = %c0 to %c10 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %v = vector.transfer_read %rows[%r, %j], %pad {in_bounds = [true, true]} : memref<10x1024xf32, strided<[1024, 1], offset: ?>>, vector<1x64xf32>
          vector.transfer_write %v, %buf[%r, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<10x1024xf32>
        }
      }
      // expected-remark @below {{prefetching the next tile of input #0 (1.0 MiB; 40 KiB per tile) into L2, its rows spread over the outer iterations of 1 nest(s) that compute on tile buffers without reading it or storing an output}}
      scf.for %r = %c0 to %c8 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %a = vector.transfer_read %buf[%r, %j], %pad {in_bounds = [true, true]} : memref<10x1024xf32>, vector<1x64xf32>
          %r2 = arith.addi %r, %c1 : index
          %b = vector.transfer_read %buf[%r2, %j], %pad {in_bounds = [true, true]} : memref<10x1024xf32>, vector<1x64xf32>
          %p = arith.mulf %a, %b : vector<1x64xf32>
          vector.transfer_write %p, %res[%r, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<8x1024xf32>
        }
      }
      scf.for %r = %c0 to %c8 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %p = vector.transfer_read %res[%r, %j], %pad {in_bounds = [true, true]} : memref<8x1024xf32>, vector<1x64xf32>
          %row = arith.addi %t, %r : index
          vector.transfer_write %p, %y[%row, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<256x1024xf32>
        }
      }
      scf.reduce
    }
    return
  }
}

// -----

// The same tile on a target whose hardware prefetcher follows row strides
// up to 4096 B (`stride_prefetch`): the input's rows are 4096 B apart, so
// the first nest's reads are left to it and the next tile is not fetched
// on top (it would only crowd L2, where the tile buffers live).

// CHECK-LABEL: func.func @stencil_rows_left_to_hardware(
// CHECK-NOT: memref.prefetch
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 65536, cores = 2, stride_prefetch = 4096>} {
  func.func @stencil_rows_left_to_hardware(%x: memref<258x1024xf32>, %y: memref<256x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c10 = arith.constant 10 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %pad = ub.poison : f32
    scf.parallel (%t) = (%c0) to (%c256) step (%c8) {
      %rows = memref.subview %x[%t, 0] [10, 1024] [1, 1] : memref<258x1024xf32> to memref<10x1024xf32, strided<[1024, 1], offset: ?>>
      %buf = memref.alloca() : memref<10x1024xf32>
      %res = memref.alloca() : memref<8x1024xf32>
      // expected-remark @below {{next tile of input #0 (1.0 MiB) not prefetched: its rows are 4096 B apart, a stride the target's hardware prefetcher follows (stride_prefetch 4096 B)}}
      scf.for %r = %c0 to %c10 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %v = vector.transfer_read %rows[%r, %j], %pad {in_bounds = [true, true]} : memref<10x1024xf32, strided<[1024, 1], offset: ?>>, vector<1x64xf32>
          vector.transfer_write %v, %buf[%r, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<10x1024xf32>
        }
      }
            scf.for %r = %c0 to %c8 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %a = vector.transfer_read %buf[%r, %j], %pad {in_bounds = [true, true]} : memref<10x1024xf32>, vector<1x64xf32>
          %r2 = arith.addi %r, %c1 : index
          %b = vector.transfer_read %buf[%r2, %j], %pad {in_bounds = [true, true]} : memref<10x1024xf32>, vector<1x64xf32>
          %p = arith.mulf %a, %b : vector<1x64xf32>
          vector.transfer_write %p, %res[%r, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<8x1024xf32>
        }
      }
      scf.for %r = %c0 to %c8 step %c1 {
        scf.for %j = %c0 to %c1024 step %c64 {
          %p = vector.transfer_read %res[%r, %j], %pad {in_bounds = [true, true]} : memref<8x1024xf32>, vector<1x64xf32>
          %row = arith.addi %t, %r : index
          vector.transfer_write %p, %y[%row, %j] {in_bounds = [true, true]} : vector<1x64xf32>, memref<256x1024xf32>
        }
      }
      scf.reduce
    }
    return
  }
}

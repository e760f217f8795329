// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-reductions-to-gpu),canonicalize,cse)' | FileCheck %s

// A sum of 1000 elements: one block of 256 threads. Each thread folds a
// strided share: it counts its elements (ceil((1000 - t) / 256): 4, or 3
// for t >= 232), folds them four per trip of a main loop into four
// independent partial sums (four loads in flight, not one chain of adds
// that each wait for the previous), adds the four, and folds the rest (0
// to 3) in a remainder loop. Five xor shuffles combine a warp, the 8
// warps' results meet in shared memory and are combined again, and thread
// 0 adds the output's value and stores.

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @sum(
// CHECK-SAME: %[[X:.*]]: memref<1000xf32>, %[[S:.*]]: memref<f32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1) dynamic_shared_memory_size %c32_i32 {
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[WARPS:.*]] = memref.view %[[SMEM]][%c0][] : {{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[BEFORE:.*]] = arith.cmpi ult, %[[T]], %c1000
// CHECK: %[[END:.*]] = arith.select %[[BEFORE]], %c1000, %[[T]]
// CHECK: %[[SPAN:.*]] = arith.subi %[[END]], %[[T]]
// CHECK: %[[UP:.*]] = arith.addi %[[SPAN]], %c255
// CHECK: %[[COUNT:.*]] = arith.divui %[[UP]], %c256
// CHECK: %[[QUADS:.*]] = arith.divui %[[COUNT]], %c4
// CHECK: %[[MAIN:.*]] = arith.muli %[[QUADS]], %c4
// CHECK: %[[CHAINS:[^:]+]]:4 = scf.for %[[J:[^ ]+]] = %c0 to %[[MAIN]] step %c4 iter_args(%[[A0:[^ ]+]] = %[[ZERO]], %[[A1:[^ ]+]] = %[[ZERO]], %[[A2:[^ ]+]] = %[[ZERO]], %[[A3:[^ ]+]] = %[[ZERO]]) -> (f32, f32, f32, f32) {
// CHECK: %[[OFF0:.*]] = arith.muli %[[J]], %c256
// CHECK: %[[R0:.*]] = arith.addi %[[T]], %[[OFF0]]
// CHECK: %[[V0:.*]] = memref.load %[[X]][%[[R0]]]
// CHECK: %[[S0:.*]] = arith.addf %[[V0]], %[[A0]]
// CHECK: %[[J1:.*]] = arith.addi %[[J]], %c1
// CHECK: %[[OFF1:.*]] = arith.muli %[[J1]], %c256
// CHECK: %[[R1:.*]] = arith.addi %[[T]], %[[OFF1]]
// CHECK: %[[V1:.*]] = memref.load %[[X]][%[[R1]]]
// CHECK: %[[S1:.*]] = arith.addf %[[V1]], %[[A1]]
// CHECK: %[[J2:.*]] = arith.addi %[[J]], %c2
// CHECK: %[[OFF2:.*]] = arith.muli %[[J2]], %c256
// CHECK: %[[R2:.*]] = arith.addi %[[T]], %[[OFF2]]
// CHECK: %[[V2:.*]] = memref.load %[[X]][%[[R2]]]
// CHECK: %[[S2:.*]] = arith.addf %[[V2]], %[[A2]]
// CHECK: %[[J3:.*]] = arith.addi %[[J]], %c3
// CHECK: %[[OFF3:.*]] = arith.muli %[[J3]], %c256
// CHECK: %[[R3:.*]] = arith.addi %[[T]], %[[OFF3]]
// CHECK: %[[V3:.*]] = memref.load %[[X]][%[[R3]]]
// CHECK: %[[S3:.*]] = arith.addf %[[V3]], %[[A3]]
// CHECK: scf.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]] : f32, f32, f32, f32
// CHECK: %[[S01:.*]] = arith.addf %[[CHAINS]]#0, %[[CHAINS]]#1
// CHECK: %[[S012:.*]] = arith.addf %[[S01]], %[[CHAINS]]#2
// CHECK: %[[S0123:.*]] = arith.addf %[[S012]], %[[CHAINS]]#3
// CHECK: %[[P:.*]] = scf.for %[[K:[^ ]+]] = %[[MAIN]] to %[[COUNT]] step %c1 iter_args(%[[ACC:[^ ]+]] = %[[S0123]]) -> (f32) {
// CHECK: %[[OFF:.*]] = arith.muli %[[K]], %c256
// CHECK: %[[R:.*]] = arith.addi %[[T]], %[[OFF]]
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[R]]]
// CHECK: arith.addf %[[V]], %[[ACC]]
// CHECK: gpu.shuffle  xor %[[P]], %c16_i32, %c32_i32 : f32
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[WARPS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[WARPS]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: %[[OLD:.*]] = memref.load %[[S]][]
// CHECK: arith.addf %[[OLD]]
// CHECK: memref.store %{{.*}}, %[[S]][]
// CHECK-NOT: linalg.generic
  func.func @sum(%x: memref<1000xf32>, %s: memref<f32>) {
    // expected-remark @below {{reduction of 1000 iterations mapped to the GPU: one block, 256 threads per block, warps combined by shuffles}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%s : memref<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
    return
  }
}

// -----

// A max over 100000 i32 in two kernels: 25 blocks of 256 threads (4000
// elements per block: 16 per thread below 160, four trips of the main
// loop, else 15, three trips and three in the remainder loop) write their
// partial maxima to a 25-element buffer, one block combines them with the
// output's value (threads 0 to 24 one element each, in the remainder loop).

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @max_long(
// CHECK: %[[PART:.*]] = memref.alloc() : memref<25xi32>
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c25, {{.*}} = %c1, {{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256,
// CHECK: %[[BEGIN:.*]] = arith.muli %[[B]], %c4000
// CHECK: %[[LAST:.*]] = arith.addi %[[BEGIN]], %c4000
// CHECK: %[[END:.*]] = arith.minui %[[LAST]], %c100000
// CHECK: %[[FIRST:.*]] = arith.addi %[[BEGIN]], %[[T]]
// CHECK: arith.cmpi ult, %[[FIRST]], %[[END]]
// CHECK: %[[COUNT:.*]] = arith.divui %{{.*}}, %c256
// CHECK: %[[MAIN:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[CHAINS:[^:]+]]:4 = scf.for %{{.*}} = %c0 to %[[MAIN]] step %c4 iter_args({{.*}}) -> (i32, i32, i32, i32) {
// CHECK-COUNT-4: arith.maxsi
// CHECK: scf.yield
// CHECK: %[[M01:.*]] = arith.maxsi %[[CHAINS]]#0, %[[CHAINS]]#1
// CHECK: %[[M012:.*]] = arith.maxsi %[[M01]], %[[CHAINS]]#2
// CHECK: %[[M0123:.*]] = arith.maxsi %[[M012]], %[[CHAINS]]#3
// CHECK: %[[P:.*]] = scf.for %{{.*}} = %[[MAIN]] to %[[COUNT]] step %c1 iter_args(%{{.*}} = %[[M0123]]) -> (i32) {
// CHECK: gpu.shuffle  xor %[[P]]
// CHECK: memref.store %{{.*}}, %[[PART]][%[[B]]] : memref<25xi32>
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads(%[[T2:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256,
// CHECK: arith.cmpi ult, %[[T2]], %c25
// CHECK: %[[COUNT2:.*]] = arith.divui %{{.*}}, %c256
// CHECK: %[[MAIN2:.*]] = arith.muli %{{.*}}, %c4
// CHECK: scf.for %{{.*}} = %c0 to %[[MAIN2]] step %c4 iter_args({{.*}}) -> (i32, i32, i32, i32) {
// CHECK-COUNT-4: memref.load %[[PART]]
// CHECK: scf.for %{{.*}} = %[[MAIN2]] to %[[COUNT2]] step %c1 iter_args
// CHECK: memref.load %[[PART]]
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[PART]]
  func.func @max_long(%x: memref<100000xi32>, %m: memref<i32>) {
    // expected-remark @below {{reduction of 100000 iterations mapped to the GPU: 25 blocks fold chunks into partial results, then one block combines them, 256 threads per block}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<100000xi32>) outs(%m : memref<i32>) {
    ^bb0(%v: i32, %acc: i32):
      %r = arith.maxsi %v, %acc : i32
      linalg.yield %r : i32
    }
    return
  }
}

// -----

// What is not split runs in one GPU thread: a fill of a 0-d buffer, and a
// difference (subf is not commutative), with a remark for it.

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @one_thread(
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) {
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f64>
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) {
// CHECK: scf.for
// CHECK: arith.subf
// CHECK-NOT: gpu.shuffle
  func.func @one_thread(%x: memref<100xf64>, %s: memref<f64>) {
    %zero = arith.constant 0.0 : f64
    linalg.fill ins(%zero : f64) outs(%s : memref<f64>)
    // expected-remark @below {{reduction run by one GPU thread: 'arith.subf' is not an associative, commutative combiner}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<100xf64>) outs(%s : memref<f64>) {
    ^bb0(%v: f64, %acc: f64):
      %r = arith.subf %acc, %v : f64
      linalg.yield %r : f64
    }
    return
  }
}

// -----

// Outputs narrower and wider than 32 bits are split too. NVVM's shfl.sync
// moves 32 bits: an f16 crosses lanes zero-extended in an i32 (its bits
// come back unchanged; the adds stay in f16), while an f64 is shuffled as
// it is (gpu-to-nvvm splits it in two). Each output's slots in shared
// memory take its own element size, aligned to it: 8 warps of f16 at byte
// 0 (16 bytes), of f64 at byte 16, 80 bytes in all. An i128 is not split,
// nor an 8-bit float (arith's identity for an f8E4M3FN max is a NaN).

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @mixed_widths(
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1) dynamic_shared_memory_size %c80_i32 {
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: memref.view %[[SMEM]][%c0][] : {{.*}} to memref<8xf16, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[SMEM]][%c16][] : {{.*}} to memref<8xf64, #gpu.address_space<workgroup>>
// CHECK: %[[HALF:.*]] = arith.bitcast %{{.*}} : f16 to i16
// CHECK: %[[WORD:.*]] = arith.extui %[[HALF]] : i16 to i32
// CHECK: %[[MOVED:.*]], %{{.*}} = gpu.shuffle  xor %[[WORD]], %c16_i32, %c32_i32 : i32
// CHECK: %[[BITS:.*]] = arith.trunci %[[MOVED]] : i32 to i16
// CHECK: %[[OTHER:.*]] = arith.bitcast %[[BITS]] : i16 to f16
// CHECK: arith.addf %{{.*}}, %[[OTHER]] : f16
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f64
// CHECK-NOT: gpu.shuffle {{.*}} : f16
  func.func @mixed_widths(%x: memref<1000xf16>, %s: memref<f16>, %d: memref<f64>) {
    // expected-remark @below {{reduction of 1000 iterations mapped to the GPU: one block, 256 threads per block}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf16>) outs(%s, %d : memref<f16>, memref<f64>) {
    ^bb0(%v: f16, %acc: f16, %wide: f64):
      %r = arith.addf %v, %acc : f16
      %e = arith.extf %v : f16 to f64
      %w = arith.addf %e, %wide : f64
      linalg.yield %r, %w : f16, f64
    }
    return
  }

// CHECK-LABEL: func.func @too_wide(
// CHECK-NOT: gpu.shuffle
  func.func @too_wide(%x: memref<100xi128>, %s: memref<i128>) {
    // expected-remark @below {{reduction run by one GPU thread: its output element type is not i1, i8, i16, i32, i64, f16, bf16, f32 or f64}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<100xi128>) outs(%s : memref<i128>) {
    ^bb0(%v: i128, %acc: i128):
      %r = arith.addi %v, %acc : i128
      linalg.yield %r : i128
    }
    return
  }

// CHECK-LABEL: func.func @f8_max(
// CHECK-NOT: gpu.shuffle
  func.func @f8_max(%x: memref<100xf8E4M3FN>, %s: memref<f8E4M3FN>) {
    // expected-remark @below {{reduction run by one GPU thread: its output element type is not i1, i8, i16, i32, i64, f16, bf16, f32 or f64}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<100xf8E4M3FN>) outs(%s : memref<f8E4M3FN>) {
    ^bb0(%v: f8E4M3FN, %acc: f8E4M3FN):
      %r = arith.maximumf %v, %acc : f8E4M3FN
      linalg.yield %r : f8E4M3FN
    }
    return
  }
}

// -----

// Few outputs over long reductions (2 rows of 10000: fewer outputs than two
// blocks per SM) get a row of blocks each: blockIdx.y is the output (its
// row of the input), blockIdx.x the chunk. Stage 1: 3 blocks per output
// fold chunks of 3334 into partials[y * 3 + x]; stage 2: a block per output
// combines its 3 partials with the output's value.

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @few_rows(
// CHECK-SAME: %[[X:.*]]: memref<2x10000xf32>, %[[S:.*]]: memref<2xf32>
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<6xf32>
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in ({{.*}} = %c3, {{.*}} = %c2, {{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// CHECK: %[[BEGIN:.*]] = arith.muli %[[BX]], %c3334
// CHECK: memref.load %[[X]][%[[BY]], %{{.*}}] : memref<2x10000xf32>
// CHECK: gpu.shuffle  xor
// CHECK: scf.if
// CHECK: %[[ROW:.*]] = arith.muli %[[BY]], %c3
// CHECK: %[[SLOT:.*]] = arith.addi %[[ROW]], %[[BX]]
// CHECK: memref.store %{{.*}}, %[[PARTIALS]][%[[SLOT]]] : memref<6xf32>
// CHECK: gpu.launch blocks(%{{.*}}, %[[BY2:.*]], %{{.*}}) in ({{.*}} = %c1, {{.*}} = %c2, {{.*}} = %c1)
// CHECK: memref.load %[[PARTIALS]]
// CHECK: memref.load %[[S]][%[[BY2]]] : memref<2xf32>
// CHECK: memref.store %{{.*}}, %[[S]][%[[BY2]]] : memref<2xf32>
// CHECK: memref.dealloc %[[PARTIALS]]
  func.func @few_rows(%x: memref<2x10000xf32>, %s: memref<2xf32>) {
    // expected-remark @below {{reduction of 10000 iterations for each of 2 parallel iterations mapped to the GPU: 3 blocks per parallel iteration fold chunks into partial results, then one block per parallel iteration combines them, 256 threads per block}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<2x10000xf32>) outs(%s : memref<2xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
    return
  }

// Not split: an output indexed by a reduction loop (its elements are not
// one parallel iteration's), or one that leaves out a parallel loop (the
// blocks of several parallel iterations would combine into one element).
// CHECK-LABEL: func.func @reduction_indexed_output(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
  func.func @reduction_indexed_output(%x: memref<4x3000xf32>, %s: memref<4x3000xf32>) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<4x3000xf32>) outs(%s : memref<4x3000xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
    return
  }

// CHECK-LABEL: func.func @parallel_loop_left_out(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
  func.func @parallel_loop_left_out(%x: memref<4x3x3000xf32>, %s: memref<4xf32>) {
    linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i)>], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : memref<4x3x3000xf32>) outs(%s : memref<4xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
    return
  }
}

// -----

// Ops with parallel loops are otherwise the parallel-loop mapping's (8 rows
// of 100: shorter than a block's threads); CPU targets are not touched.

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @rows(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
  func.func @rows(%x: memref<8x100xf32>, %s: memref<8xf32>) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<8x100xf32>) outs(%s : memref<8xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
    return
  }
}

// -----

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512>} {
// CHECK-LABEL: func.func @cpu(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
  func.func @cpu(%x: memref<1000xf32>, %s: memref<f32>) {
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%s : memref<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
    return
  }
}

// -----

// AMD: the warp is the target's 64-lane wavefront (six xor steps, width
// 64); the threads' fold is the same four chains and remainder loop.

module attributes {tessel.target = #tessel.target<kind = "amdgpu", sm_count = 110, smem_per_block = 65536, warp_size = 64, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @amd_sum(
// CHECK: memref.view {{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: %[[MAIN:.*]] = arith.muli %{{.*}}, %c4
// CHECK: scf.for %{{.*}} = %c0 to %[[MAIN]] step %c4 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK: %[[P:.*]] = scf.for %{{.*}} = %[[MAIN]] to %{{.*}} step %c1 iter_args
// CHECK: gpu.shuffle  xor %[[P]], %c32_i32, %c64_i32 : f32
// CHECK-COUNT-5: gpu.shuffle  xor %{{.*}}, %c{{[0-9]+}}_i32, %c64_i32
  func.func @amd_sum(%x: memref<1000xf32>, %s: memref<f32>) {
    // expected-remark @below {{reduction of 1000 iterations mapped to the GPU: one block, 256 threads per block}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%s : memref<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
    return
  }
}

// -----

// Arg-reductions split like sums: an argmax's value and index travel
// together. Each thread folds its share with the body (its strict
// comparison keeps the first of equal values); partial results combine by
// the better value, and of equal values the smaller index, whichever
// operand they come from; the total replaces the outputs where the body's
// comparison says so. Threads start from -inf at the largest i32 index.

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @argmax_rows(
// CHECK-SAME: %{{.*}}: memref<2x10000xf32>, %[[M:.*]]: memref<2xf32>, %[[AT:.*]]: memref<2xi32>
// CHECK-DAG: %[[LEAST:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[LAST:.*]] = arith.constant 2147483647 : i32
// CHECK: %[[PM:.*]] = memref.alloc() : memref<6xf32>
// CHECK: %[[PAT:.*]] = memref.alloc() : memref<6xi32>
// CHECK: gpu.launch
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[LEAST]], %{{.*}} = %[[LAST]],
// CHECK: gpu.shuffle  xor %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}} : i32
// CHECK: gpu.launch
// CHECK: %[[V:.*]] = memref.load %[[PM]]
// CHECK: %[[I:.*]] = memref.load %[[PAT]]
// CHECK: %[[BETTER:.*]] = arith.cmpf ogt, %[[V]], %[[ACC:.*]] : f32
// CHECK: %[[SAME:.*]] = arith.cmpf oeq, %[[V]], %[[ACC]] : f32
// CHECK: %[[EARLIER:.*]] = arith.cmpi slt, %[[I]], %[[ACCI:.*]] : i32
// CHECK: %[[TIE:.*]] = arith.andi %[[SAME]], %[[EARLIER]] : i1
// CHECK: %[[WINS:.*]] = arith.ori %[[BETTER]], %[[TIE]] : i1
// CHECK: arith.select %[[WINS]], %[[V]], %[[ACC]] : f32
// CHECK: arith.select %[[WINS]], %[[I]], %[[ACCI]] : i32
// CHECK: %[[OLD:.*]] = memref.load %[[M]]
// CHECK: %[[REPLACES:.*]] = arith.cmpf ogt, %[[TOTAL:.*]], %[[OLD]] : f32
// CHECK: %[[NEWM:.*]] = arith.select %[[REPLACES]], %[[TOTAL]], %[[OLD]] : f32
// CHECK: arith.select %[[REPLACES]]
// CHECK: memref.store %[[NEWM]], %[[M]]
  func.func @argmax_rows(%x: memref<2x10000xf32>, %m: memref<2xf32>, %at: memref<2xi32>) {
    // expected-remark @below {{reduction of 10000 iterations for each of 2 parallel iterations mapped to the GPU: 3 blocks per parallel iteration}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<2x10000xf32>) outs(%m, %at : memref<2xf32>, memref<2xi32>) {
    ^bb0(%v: f32, %acc: f32, %idx: i32):
      %k = linalg.index 1 : index
      %kk = arith.index_cast %k : index to i32
      %greater = arith.cmpf ogt, %v, %acc : f32
      %mm = arith.select %greater, %v, %acc : f32
      %ii = arith.select %greater, %kk, %idx : i32
      linalg.yield %mm, %ii : f32, i32
    }
    return
  }

// A full argmin over unsigned integers, the comparison written the other
// way round (acc > v): the identity is the largest unsigned value.
// CHECK-LABEL: func.func @argmin_unsigned(
// CHECK: %[[TOP:.*]] = arith.constant -1 : i32
// CHECK: gpu.launch
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[TOP]],
// CHECK: arith.cmpi ult
  func.func @argmin_unsigned(%x: memref<1000xi32>, %m: memref<i32>, %at: memref<i64>) {
    // expected-remark @below {{reduction of 1000 iterations mapped to the GPU: one block, 256 threads per block}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xi32>) outs(%m, %at : memref<i32>, memref<i64>) {
    ^bb0(%v: i32, %acc: i32, %idx: i64):
      %k = linalg.index 0 : index
      %kk = arith.index_cast %k : index to i64
      %smaller = arith.cmpi ugt, %acc, %v : i32
      %mm = arith.select %smaller, %v, %acc : i32
      %ii = arith.select %smaller, %kk, %idx : i64
      linalg.yield %mm, %ii : i32, i64
    }
    return
  }

// PyTorch's argmax, as the frontends write it: a NaN counts beyond every
// number, the first NaN wins. Partial results: a NaN beats a number, and
// two NaNs tie (the smaller index wins).
// CHECK-LABEL: func.func @argmax_nan_first(
// CHECK: gpu.launch
// CHECK: gpu.shuffle  xor
// CHECK-DAG: %[[BETTER:.*]] = arith.cmpf ogt, %[[NEW:.*]], %[[OLD:.*]] : f32
// CHECK-DAG: %[[NEW_NAN:.*]] = arith.cmpf uno, %[[NEW]], %[[NEW]] : f32
// CHECK-DAG: %[[OLD_NUMBER:.*]] = arith.cmpf ord, %[[OLD]], %[[OLD]] : f32
// CHECK-DAG: %[[OLD_NAN:.*]] = arith.cmpf uno, %[[OLD]], %[[OLD]] : f32
// CHECK-DAG: arith.andi %[[NEW_NAN]], %[[OLD_NUMBER]] : i1
// CHECK-DAG: arith.andi %[[NEW_NAN]], %[[OLD_NAN]] : i1
  func.func @argmax_nan_first(%x: memref<1000xf32>, %m: memref<f32>, %at: memref<i64>) {
    // expected-remark @below {{reduction of 1000 iterations mapped to the GPU: one block, 256 threads per block}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%m, %at : memref<f32>, memref<i64>) {
    ^bb0(%v: f32, %acc: f32, %idx: i64):
      %k = linalg.index 0 : index
      %kk = arith.index_cast %k : index to i64
      %greater = arith.cmpf ogt, %v, %acc : f32
      %v_nan = arith.cmpf uno, %v, %v : f32
      %acc_number = arith.cmpf ord, %acc, %acc : f32
      %nan_first = arith.andi %acc_number, %v_nan : i1
      %wins = arith.ori %nan_first, %greater : i1
      %mm = arith.select %wins, %v, %acc : f32
      %ii = arith.select %wins, %kk, %idx : i64
      linalg.yield %mm, %ii : f32, i64
    }
    return
  }

// Not split (one thread): a non-strict comparison (oge keeps the last of
// equal values, which the index order does not settle for interleaved
// shares), and an index narrower than 32 bits.
// CHECK-LABEL: func.func @argmax_last(
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) {
// CHECK-NOT: gpu.shuffle
  func.func @argmax_last(%x: memref<1000xf32>, %m: memref<f32>, %at: memref<i32>) {
    // expected-remark @below {{reduction run by one GPU thread: an output is not combined by one op with the value computed for it, nor an arg-reduction's}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%m, %at : memref<f32>, memref<i32>) {
    ^bb0(%v: f32, %acc: f32, %idx: i32):
      %k = linalg.index 0 : index
      %kk = arith.index_cast %k : index to i32
      %greater = arith.cmpf oge, %v, %acc : f32
      %mm = arith.select %greater, %v, %acc : f32
      %ii = arith.select %greater, %kk, %idx : i32
      linalg.yield %mm, %ii : f32, i32
    }
    return
  }

// The compared value reads the output's value inside a region (an scf.if
// that yields it): not an arg-reduction.
// CHECK-LABEL: func.func @argmax_reads_output_in_region(
// CHECK-NOT: gpu.shuffle
  func.func @argmax_reads_output_in_region(%x: memref<1000xf32>, %m: memref<f32>, %at: memref<i32>) {
    %zero = arith.constant 0.0 : f32
    // expected-remark @below {{reduction run by one GPU thread}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%m, %at : memref<f32>, memref<i32>) {
    ^bb0(%v: f32, %acc: f32, %idx: i32):
      %k = linalg.index 0 : index
      %kk = arith.index_cast %k : index to i32
      %negative = arith.cmpf olt, %v, %zero : f32
      %y = scf.if %negative -> f32 {
        scf.yield %acc : f32
      } else {
        scf.yield %v : f32
      }
      %greater = arith.cmpf ogt, %y, %acc : f32
      %mm = arith.select %greater, %y, %acc : f32
      %ii = arith.select %greater, %kk, %idx : i32
      linalg.yield %mm, %ii : f32, i32
    }
    return
  }

// CHECK-LABEL: func.func @argmax_i16_index(
// CHECK-NOT: gpu.shuffle
  func.func @argmax_i16_index(%x: memref<1000xf32>, %m: memref<f32>, %at: memref<i16>) {
    // expected-remark @below {{reduction run by one GPU thread}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%m, %at : memref<f32>, memref<i16>) {
    ^bb0(%v: f32, %acc: f32, %idx: i16):
      %k = linalg.index 0 : index
      %kk = arith.index_cast %k : index to i16
      %greater = arith.cmpf ogt, %v, %acc : f32
      %mm = arith.select %greater, %v, %acc : f32
      %ii = arith.select %greater, %kk, %idx : i16
      linalg.yield %mm, %ii : f32, i16
    }
    return
  }

// NaN clauses that are not PyTorch's rule stay on one thread: the NaN test
// on the wrong operands (the output is the NaN, the element a number), and
// a non-strict comparison beside a correct NaN clause.
// CHECK-LABEL: func.func @argmax_nan_swapped(
// CHECK-NOT: gpu.shuffle
  func.func @argmax_nan_swapped(%x: memref<1000xf32>, %m: memref<f32>, %at: memref<i64>) {
    // expected-remark @below {{reduction run by one GPU thread: an output is not combined by one op with the value computed for it, nor an arg-reduction's}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%m, %at : memref<f32>, memref<i64>) {
    ^bb0(%v: f32, %acc: f32, %idx: i64):
      %k = linalg.index 0 : index
      %kk = arith.index_cast %k : index to i64
      %greater = arith.cmpf ogt, %v, %acc : f32
      %v_number = arith.cmpf ord, %v, %v : f32
      %acc_nan = arith.cmpf uno, %acc, %acc : f32
      %nan_first = arith.andi %v_number, %acc_nan : i1
      %wins = arith.ori %greater, %nan_first : i1
      %mm = arith.select %wins, %v, %acc : f32
      %ii = arith.select %wins, %kk, %idx : i64
      linalg.yield %mm, %ii : f32, i64
    }
    return
  }

// CHECK-LABEL: func.func @argmax_nan_non_strict(
// CHECK-NOT: gpu.shuffle
  func.func @argmax_nan_non_strict(%x: memref<1000xf32>, %m: memref<f32>, %at: memref<i64>) {
    // expected-remark @below {{reduction run by one GPU thread: an output is not combined by one op with the value computed for it, nor an arg-reduction's}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<1000xf32>) outs(%m, %at : memref<f32>, memref<i64>) {
    ^bb0(%v: f32, %acc: f32, %idx: i64):
      %k = linalg.index 0 : index
      %kk = arith.index_cast %k : index to i64
      %greater = arith.cmpf oge, %v, %acc : f32
      %v_nan = arith.cmpf uno, %v, %v : f32
      %acc_number = arith.cmpf ord, %acc, %acc : f32
      %nan_first = arith.andi %v_nan, %acc_number : i1
      %wins = arith.ori %greater, %nan_first : i1
      %mm = arith.select %wins, %v, %acc : f32
      %ii = arith.select %wins, %kk, %idx : i64
      linalg.yield %mm, %ii : f32, i64
    }
    return
  }
}

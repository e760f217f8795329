// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-untiled-ops-to-gpu),canonicalize,cse)' | FileCheck %s

// An add of two 512x1024 buffers. Each thread takes 4 adjacent columns
// (one 16-byte access per operand), so 512x1024 / 4 = 131072 units fill 512
// blocks of 256 threads exactly; the loop over the units runs once per
// thread. The first column of a unit is 16-byte aligned, the third 8-byte.

#t = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>
#id = affine_map<(i, j) -> (i, j)>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @add
// CHECK-DAG:     %[[UNITS:.*]] = arith.constant 131072 : index
// CHECK-DAG:     %[[STRIDE:.*]] = arith.constant 270336 : index
// CHECK-DAG:     %[[C512:.*]] = arith.constant 512 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C512]], %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:           %[[BASE:.*]] = arith.muli %[[BX]], %[[C256]]
// CHECK:           %[[TID:.*]] = arith.addi %[[BASE]], %[[TX]]
// CHECK:           scf.for %[[U:.*]] = %[[TID]] to %[[UNITS]] step %[[STRIDE]] {
// CHECK:             %[[COL:.*]] = arith.remui %[[U]], %[[C256]]
// CHECK:             %[[ROW:.*]] = arith.divui %[[U]], %[[C256]]
// CHECK:             %[[J0:.*]] = affine.apply #{{.*}}(%[[COL]])
// CHECK:             memref.load %arg0[%[[ROW]], %[[J0]]] {alignment = 16 : i64}
// CHECK-COUNT-4:     arith.addf
// CHECK:             memref.store %{{.*}}, %arg2[%[[ROW]], %[[J0]]] {alignment = 16 : i64}
// CHECK-COUNT-3:     memref.store
// CHECK:           }
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.generic
func.func @add(%a: memref<512x1024xf32>, %b: memref<512x1024xf32>, %c: memref<512x1024xf32>) {
  // expected-remark @below {{mapped to one GPU kernel over all of its parallel iterations: 256 threads per block, 512 block(s), columns per thread 4}}
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<512x1024xf32>, memref<512x1024xf32>) outs(%c : memref<512x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// Rows of unknown count: the grid is sized at run time (ceil(rows * 256 /
// 256) blocks, at most 132 SMs x 2048 threads / 256 = 1056), and a launch
// with no rows is skipped.

#t = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>
#id = affine_map<(i, j) -> (i, j)>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @add_dynamic_rows
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 1056 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[ROWS:.*]] = memref.dim %arg0, %c0
// CHECK:         %[[UNITS:.*]] = arith.muli %[[ROWS]], %[[C256]]
// CHECK:         %[[NEEDED:.*]] = arith.ceildivui %[[UNITS]], %[[C256]]
// CHECK:         %[[GRID:.*]] = arith.minui %[[NEEDED]], %[[MAX]]
// CHECK:         %[[ANY:.*]] = arith.cmpi ne, %[[GRID]], %c0
// CHECK:         scf.if %[[ANY]] {
// CHECK:           gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]],
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[UNITS]] step
// CHECK-COUNT-4:       arith.addf
func.func @add_dynamic_rows(%a: memref<?x1024xf32>, %b: memref<?x1024xf32>, %c: memref<?x1024xf32>) {
  // expected-remark @below {{mapped to one GPU kernel over all of its parallel iterations: 256 threads per block, up to 1056 blocks (sized at run time), columns per thread 4}}
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<?x1024xf32>, memref<?x1024xf32>) outs(%c : memref<?x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// A row sum with both extents unknown: one row per thread, the reduction a
// sequential loop carried in a register from the output's initial value.

#t = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @row_sum_dynamic
// CHECK:         %[[ROWS:.*]] = memref.dim %arg0, %c0
// CHECK:         scf.if
// CHECK:           gpu.launch
// CHECK:             %[[COLS:.*]] = memref.dim %arg0, %c1
// CHECK:             scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} {
// CHECK:               %[[INIT:.*]] = memref.load %arg1[%[[ROW]]]
// CHECK:               %[[SUM:.*]] = scf.for %[[COL:.*]] = %c0 to %[[COLS]] step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK:                 %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[COL]]]
// CHECK:                 %[[NEXT:.*]] = arith.addf %[[X]], %[[ACC]]
// CHECK:                 scf.yield %[[NEXT]]
// CHECK:               memref.store %[[SUM]], %arg1[%[[ROW]]]
func.func @row_sum_dynamic(%a: memref<?x?xf32>, %c: memref<?xf32>) {
  // expected-remark @below {{mapped to one GPU kernel over all of its parallel iterations: 256 threads per block, up to 1056 blocks (sized at run time), columns per thread 1}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// NCHW -> NHWC: 8*56*56*64 = 1605632 elements, more than the 1056 resident
// blocks hold, so each thread loops with a grid-wide stride. Consecutive
// threads take consecutive channels, which makes the stores contiguous; the
// reads stride by 56*56 (there is no shared-memory transpose on this path).

#t = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @nchw_to_nhwc
// CHECK-DAG:     %[[ALL:.*]] = arith.constant 1605632 : index
// CHECK-DAG:     %[[STRIDE:.*]] = arith.constant 270336 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C1056:.*]] = arith.constant 1056 : index
// CHECK:         gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C1056]],
// CHECK:           scf.for %[[U:.*]] = %{{.*}} to %[[ALL]] step %[[STRIDE]] {
// CHECK:             %[[C:.*]] = arith.remui %[[U]], %[[C64]]
// CHECK:             %[[X:.*]] = memref.load %arg0[%{{.*}}, %[[C]], %{{.*}}, %{{.*}}]
// CHECK:             memref.store %[[X]], %arg1[%{{.*}}, %{{.*}}, %{{.*}}, %[[C]]]
func.func @nchw_to_nhwc(%a: memref<8x64x56x56xf32>, %c: memref<8x56x56x64xf32>) {
  // expected-remark @below {{mapped to one GPU kernel over all of its parallel iterations: 256 threads per block, 1056 block(s), columns per thread 1}}
  linalg.transpose ins(%a : memref<8x64x56x56xf32>) outs(%c : memref<8x56x56x64xf32>) permutation = [0, 2, 3, 1]
  return
}
}

// -----

// 1000 elements, not a multiple of 4: one element per thread, 4 blocks.
// A reduction to a scalar has no parallel loop and is left for
// tessel-map-reductions-to-gpu; ops already in a kernel are not touched.

#t = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @exp_1000
// CHECK:         gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c4,
// CHECK:           math.exp
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["reduction"]
// CHECK:         gpu.launch
// CHECK:           linalg.fill
func.func @exp_1000(%a: memref<1000xf32>, %c: memref<1000xf32>, %s: memref<f32>, %k: memref<32xf32>) {
  // expected-remark @below {{mapped to one GPU kernel over all of its parallel iterations: 256 threads per block, 4 block(s), columns per thread 1}}
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : memref<1000xf32>) outs(%c : memref<1000xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  // expected-remark @below {{not mapped to a grid-wide GPU kernel: it has no parallel loops}}
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%a : memref<1000xf32>) outs(%s : memref<f32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.addf %x, %o : f32
    linalg.yield %t : f32
  }
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    linalg.fill ins(%zero : f32) outs(%k : memref<32xf32>)
    gpu.terminator
  }
  return
}
}

// -----

// On an AMD target (64-lane wavefronts, 110 CUs) the resident grid is
// 110 * 2048 / 256 = 880 blocks.

#t = #tessel.target<kind = "amdgpu", sm_count = 110, smem_per_block = 65536, warp_size = 64, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @relu_dynamic_amdgpu
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 880 : index
// CHECK:         arith.minui %{{.*}}, %[[MAX]]
// CHECK:         gpu.launch
// CHECK:           arith.maximumf
func.func @relu_dynamic_amdgpu(%a: memref<?xf32>, %c: memref<?xf32>) {
  // expected-remark @below {{mapped to one GPU kernel over all of its parallel iterations: 256 threads per block, up to 880 blocks (sized at run time)}}
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %z : f32
    linalg.yield %r : f32
  }
  return
}
}

// -----

// A CPU target: the pass does nothing.

#t = #tessel.target<kind = "cpu">
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @cpu_target
// CHECK-NOT:     gpu.launch
// CHECK:         linalg.fill
func.func @cpu_target(%c: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16xf32>)
  return
}
}

// -----

// An f32 matmul (which the tensor-core path declines) and a column sum.
// The model would split their reductions over warps, but the lanes would
// then read B's rows (and the column sum's rows) one element each, a
// transaction per lane: they stay per thread, consecutive threads on
// consecutive columns. A row sum over contiguous rows is shared by a warp.

#t = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024, l2_bytes_per_cycle = 48, memory_latency = 700>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @strided_reductions_per_thread
// CHECK:         gpu.launch
// CHECK-NOT:       gpu.shuffle
// CHECK:           scf.for
// CHECK:             scf.for %{{.*}} = %c0 to %c512 step %c1 iter_args
// CHECK:         gpu.launch
// CHECK-NOT:       gpu.shuffle
// CHECK:           scf.for
// CHECK:             scf.for %{{.*}} = %c0 to %c4096 step %c1 iter_args
// CHECK:         gpu.launch
// CHECK:           gpu.shuffle
func.func @strided_reductions_per_thread(%a: memref<64x512xf32>, %b: memref<512x128xf32>, %c: memref<64x128xf32>,
                                         %m: memref<4096x32xf32>, %colsum: memref<32xf32>, %rowsum: memref<32xf32>,
                                         %w: memref<32x4096xf32>) {
  // expected-remark @below {{mapped to one GPU kernel over all of its parallel iterations: 256 threads per block, 32 block(s), columns per thread 1}}
  linalg.matmul ins(%a, %b : memref<64x512xf32>, memref<512x128xf32>) outs(%c : memref<64x128xf32>)
  // expected-remark @below {{mapped to one GPU kernel over all of its parallel iterations: 256 threads per block, 1 block(s), columns per thread 1}}
  linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>], iterator_types = ["parallel", "reduction"]}
      ins(%m : memref<4096x32xf32>) outs(%colsum : memref<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  // expected-remark @below {{reduced per warp by shuffles}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%w : memref<32x4096xf32>) outs(%rowsum : memref<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  return
}
}

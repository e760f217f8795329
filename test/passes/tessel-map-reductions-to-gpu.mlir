// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-reductions-to-gpu),canonicalize,cse)' | FileCheck %s

// A sum of 1000 elements: one block of 256 threads. Each thread folds a
// strided share, five xor shuffles combine a warp, the 8 warps' results
// meet in shared memory and are combined again, and thread 0 adds the
// output's value and stores.

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @sum(
// CHECK-SAME: %[[X:.*]]: memref<1000xf32>, %[[S:.*]]: memref<f32>
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1) dynamic_shared_memory_size %c32_i32 {
// CHECK: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[WARPS:.*]] = memref.view %[[SMEM]][%c0][] : {{.*}} to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[P:.*]] = scf.for %[[R:.*]] = %[[T]] to %c1000 step %c256 iter_args(%[[ACC:.*]] = %cst) -> (f32) {
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

// A max over 100000 i32 in two kernels: 25 blocks of 256 threads (16
// elements per thread) write their partial maxima to a 25-element buffer,
// one block combines them with the output's value.

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @max_long(
// CHECK: %[[PART:.*]] = memref.alloc() : memref<25xi32>
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c25, {{.*}} = %c1, {{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256,
// CHECK: %[[BEGIN:.*]] = arith.muli %[[B]], %c4000
// CHECK: arith.minui
// CHECK: arith.maxsi
// CHECK: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[PART]][%[[B]]] : memref<25xi32>
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256,
// CHECK: scf.for %{{.*}} = %{{.*}} to %c25 step %c256
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

// What is not split runs in one GPU thread: a fill of a 0-d buffer, and an
// f64 sum (gpu.shuffle moves 32-bit values), with a remark for the sum.

#t = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, warp_size = 32, max_threads_per_block = 1024>
module attributes {tessel.target = #t} {
// CHECK-LABEL: func.func @one_thread(
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) {
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f64>
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) {
// CHECK: scf.for
// CHECK: arith.addf
// CHECK-NOT: gpu.shuffle
  func.func @one_thread(%x: memref<100xf64>, %s: memref<f64>) {
    %zero = arith.constant 0.0 : f64
    linalg.fill ins(%zero : f64) outs(%s : memref<f64>)
    // expected-remark @below {{reduction run by one GPU thread: its output element type is not 32-bit (f32 or i32)}}
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%x : memref<100xf64>) outs(%s : memref<f64>) {
    ^bb0(%v: f64, %acc: f64):
      %r = arith.addf %v, %acc : f64
      linalg.yield %r : f64
    }
    return
  }
}

// -----

// Ops with parallel loops are the parallel-loop mapping's; CPU targets are
// not touched.

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

// AMD: the warp is the target's 64-lane wavefront (six xor steps, width 64).

module attributes {tessel.target = #tessel.target<kind = "amdgpu", sm_count = 110, smem_per_block = 65536, warp_size = 64, max_threads_per_block = 1024>} {
// CHECK-LABEL: func.func @amd_sum(
// CHECK: memref.view {{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
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

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-emulate-gpu-on-cpu,canonicalize)' | FileCheck %s

// A kernel with an asynchronous copy into dynamic shared memory, a barrier
// and a tensor-core product becomes host code: a loop over the two blocks,
// each with a shared buffer and an OpenMP team of 32 threads; the copy is a
// queued runtime call, the fragments 16x16 vectors loaded row by row (the
// transposed one transposed after loading); the module now describes the
// host CPU.

#wg = #gpu.address_space<workgroup>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80">} {
// CHECK: module attributes {tessel.target = #tessel.target<kind = "cpu",
// CHECK-DAG: func.func private @tessel_emu_async_copy(index, index, index, index)
// CHECK-DAG: func.func private @tessel_emu_async_wait(i32)
// CHECK-DAG: func.func private @omp_get_thread_num() -> i32
// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: %[[IN:.*]]: memref<64x16xf16>, %[[OUT:.*]]: memref<16x16xf32>
// CHECK-NOT: gpu.
// CHECK-NOT: nvgpu.
// CHECK: scf.for %[[BLOCK:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[SHARED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2048xi8>
// CHECK: omp.parallel num_threads(%[[T:.*]] : i32) {
// CHECK: %[[N:.*]] = func.call @omp_get_num_threads()
// CHECK: func.call @tessel_emu_check_team(%[[N]], %[[T]])
// CHECK: %[[TID:.*]] = func.call @omp_get_thread_num()
// CHECK: %[[TILE:.*]] = memref.view %[[SHARED]][%c0][] : memref<2048xi8> to memref<32x16xf16>
// CHECK: memref.extract_aligned_pointer_as_index %[[TILE]]
// CHECK: memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK: func.call @tessel_emu_async_copy(%{{.*}}, %{{.*}}, %c16, %c16)
// CHECK: func.call @tessel_emu_async_commit()
// CHECK: func.call @tessel_emu_async_wait(%c0_i32)
// CHECK: omp.barrier
// CHECK: vector.load %[[TILE]][%c0, %c0] : memref<32x16xf16>, vector<16xf16>
// CHECK: vector.load %[[TILE]][%c15, %c0] : memref<32x16xf16>, vector<16xf16>
// CHECK: arith.extf
// CHECK: vector.store %{{.*}}, %[[OUT]][%c15, %c0] : memref<16x16xf32>, vector<16xf32>
// CHECK: func.call @tessel_emu_async_flush()
// CHECK-NEXT: omp.terminator
// CHECK: memref.dealloc %[[SHARED]]
func.func @kernel(%in: memref<64x16xf16>, %out: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %bytes = arith.constant 2048 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #wg>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #wg> to memref<32x16xf16, #wg>
    %t = nvgpu.device_async_copy %in[%tx, %c0], %tile[%tx, %c0], 8 {bypassL1} : memref<64x16xf16> to memref<32x16xf16, #wg>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.barrier
    %a = gpu.subgroup_mma_load_matrix %tile[%c0, %c0] {leadDimension = 16 : index} : memref<32x16xf16, #wg> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %b = gpu.subgroup_mma_load_matrix %tile[%c0, %c0] {leadDimension = 16 : index, transpose} : memref<32x16xf16, #wg> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %zero = arith.constant 0.0 : f32
    %c = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %d = gpu.subgroup_mma_compute %a, %b, %c {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %d, %out[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.terminator
  }
  return
}
}

// -----

// Outlined kernels cannot be emulated: the pass runs before outlining.

// expected-error @below {{cannot emulate outlined kernels: run tessel-emulate-gpu-on-cpu before gpu-kernel-outlining}}
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f() kernel {
      gpu.return
    }
  }
}

// -----

// Shared memory the kernel allocates itself, and warp shuffles, are not
// emulated.

func.func @shared_alloc(%out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{cannot emulate this op on the CPU}}
    %s = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @vector_shuffle(%out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1 : i32
  %w = arith.constant 32 : i32
  %v = arith.constant dense<1.0> : vector<2xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @below {{cannot emulate this op on the CPU}}
    %r, %ok = gpu.shuffle xor %v, %one, %w : vector<2xf32>
    gpu.terminator
  }
  return
}

// -----

// A scalar shuffle is an exchange among the warp's threads: the block's
// warps are created before its team and destroyed after it; the value
// travels as 64 bits, the predicate is asked for where it is used.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80">} {
// CHECK-LABEL: func.func @shuffle(
// CHECK: %[[WARPS:.*]] = call @tessel_emu_warps_create(%{{.*}}) : (i32) -> index
// CHECK: omp.parallel num_threads(
// CHECK: %[[T:.*]] = func.call @omp_get_thread_num()
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: %[[R:.*]] = func.call @tessel_emu_shuffle(%[[WARPS]], %{{.*}}, %[[WIDE]], %{{.*}}, %{{.*}}, %c1_i32) : (index, i32, i64, i32, i32, i32) -> i64
// CHECK: arith.trunci %[[R]] : i64 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: func.call @tessel_emu_shuffle_valid(
// CHECK: omp.terminator
// CHECK: call @tessel_emu_warps_destroy(%[[WARPS]]) : (index) -> ()
func.func @shuffle(%in: memref<64xf32>, %out: memref<64xf32>, %ok: memref<64xi1>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %w = arith.constant 32 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %in[%tx] : memref<64xf32>
    %r, %valid = gpu.shuffle down %v, %one, %w : f32
    memref.store %r, %out[%tx] : memref<64xf32>
    memref.store %valid, %ok[%tx] : memref<64xi1>
    gpu.terminator
  }
  return
}
}

// -----

// A product whose layout flags disagree with how its operand was loaded:
// the GPU would read the registers in the wrong layout.

#wg = #gpu.address_space<workgroup>
func.func @layout_mismatch(%in: memref<16x16xf16>, %out: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %a = gpu.subgroup_mma_load_matrix %in[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %b = gpu.subgroup_mma_load_matrix %in[%c0, %c0] {leadDimension = 16 : index, transpose} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %zero = arith.constant 0.0 : f32
    %c = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    // expected-error @below {{cannot emulate: its a_transpose/b_transpose do not match how its operands were loaded}}
    %d = gpu.subgroup_mma_compute %a, %b, %c : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %d, %out[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.terminator
  }
  return
}

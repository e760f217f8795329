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
// CHECK: %[[WARPS:.*]] = call @tessel_emu_waves_create(%{{.*}}, %c32_i32) : (i32, i32) -> index
// CHECK: omp.parallel num_threads(
// CHECK: %[[T:.*]] = func.call @omp_get_thread_num()
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: %[[R:.*]] = func.call @tessel_emu_shuffle(%[[WARPS]], %{{.*}}, %[[WIDE]], %{{.*}}, %{{.*}}, %c1_i32) : (index, i32, i64, i32, i32, i32) -> i64
// CHECK: arith.trunci %[[R]] : i64 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: func.call @tessel_emu_shuffle_valid(%[[WARPS]], 
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

// -----

// A Hopper kernel: the block's mbarriers are made before its team and freed
// after it; the host's tensor map is nine words on the stack; TMA loads,
// mbarrier ops and wgmma groups are runtime calls. The wgmma call carries
// where each instruction of the group starts as upstream's lowering steps
// its descriptors (A: 8192 bytes per 64-row slab, 32 per 16-deep step; B:
// 2048 per step), and the descriptors' byte offsets (leading 8192, stride
// 1024, swizzle 128). The accumulator is each thread's 32 registers.
#wg = #gpu.address_space<workgroup>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #wg>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #wg, num_barriers = 1>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
!desc = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #wg>>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_90a">} {
// CHECK-LABEL: func.func @wgmma(
// CHECK: %[[MAPB:.*]] = memref.alloca() : memref<9xindex>
// CHECK: %[[MAPA:.*]] = memref.alloca() : memref<9xindex>
// CHECK: memref.store %{{.*}}, %[[MAPA]][%c8] : memref<9xindex>
// CHECK: %[[ADDRA:.*]] = memref.extract_aligned_pointer_as_index %[[MAPA]]
// CHECK: %[[ADDRB:.*]] = memref.extract_aligned_pointer_as_index %[[MAPB]]
// CHECK: %[[BARS:.*]] = call @tessel_emu_mbarriers_create(%c1_i32) : (i32) -> index
// CHECK: omp.parallel num_threads(
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<32xf32>
// CHECK: func.call @tessel_emu_mbarrier_init(%[[BARS]], %c0, %c1, %{{.*}}) : (index, index, index, i32) -> ()
// CHECK: func.call @tessel_emu_mbarrier_arrive_expect_tx(%[[BARS]], %c0, %c16384, %{{.*}})
// CHECK: func.call @tessel_emu_tma_load_2d(%[[ADDRA]], %{{.*}}, %c0, %c0, %[[BARS]], %c0, %{{.*}})
// CHECK: func.call @tessel_emu_tma_load_2d(%[[ADDRB]], %{{.*}}, %c0, %c0, %[[BARS]], %c0, %{{.*}})
// CHECK: func.call @tessel_emu_wgmma_zero(%{{.*}}, %c32) : (index, index) -> ()
// CHECK: func.call @tessel_emu_mbarrier_try_wait_parity(%[[BARS]], %c0, %c0_i32)
// CHECK: %[[T:.*]] = func.call @omp_get_thread_num()
// CHECK: func.call @tessel_emu_wgmma(%{{.*}}, %{{.*}}, %{{.*}}, %[[T]], %c1_i32, %c64_i32, %c4_i32, %c8192, %c32, %c1024, %c128, %c2048, %c8192, %c1024, %c128)
// CHECK: func.call @tessel_emu_wgmma_wait(%c1_i32) : (i32) -> ()
// CHECK: func.call @tessel_emu_wgmma_wait(%c0_i32) : (i32) -> ()
// CHECK: func.call @tessel_emu_wgmma_store(%{{.*}}, %{{.*}}, %c1_i32, %c64_i32, %{{.*}}, %c64, %c1)
// CHECK: omp.terminator
// CHECK: call @tessel_emu_mbarriers_destroy(%[[BARS]]) : (index) -> ()
func.func @wgmma(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c8192 = arith.constant 8192 : index
  %tx = arith.constant 16384 : index
  %bytes = arith.constant 17408 : i32
  %ua = memref.cast %a : memref<64x64xf16> to memref<*xf16>
  %ub = memref.cast %b : memref<64x64xf16> to memref<*xf16>
  %ma = nvgpu.tma.create.descriptor %ua box[%c64, %c64] : memref<*xf16> -> !map
  %mb = nvgpu.tma.create.descriptor %ub box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #wg>
    %ta = memref.view %smem[%c0][] : memref<?xi8, #wg> to memref<64x64xf16, #wg>
    %tb = memref.view %smem[%c8192][] : memref<?xi8, #wg> to memref<64x64xf16, #wg>
    %leader = arith.cmpi eq, %t, %c0 : index
    %bars = nvgpu.mbarrier.create -> !bars
    nvgpu.mbarrier.init %bars[%c0], %c1, predicate = %leader : !bars
    nvvm.fence.mbarrier.init
    gpu.barrier
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx, predicate = %leader : !bars
    nvgpu.tma.async.load %ma[%c0, %c0], %bars[%c0] to %ta, predicate = %leader : !map, !bars -> memref<64x64xf16, #wg>
    nvgpu.tma.async.load %mb[%c0, %c0], %bars[%c0] to %tb, predicate = %leader : !map, !bars -> memref<64x64xf16, #wg>
    %zero = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %parity = arith.constant false
    %ticks = arith.constant 10000000 : index
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %parity, %ticks : !bars
    %da = nvgpu.warpgroup.generate.descriptor %ta, %ma : memref<64x64xf16, #wg>, !map -> !desc
    %db = nvgpu.warpgroup.generate.descriptor %tb, %mb : memref<64x64xf16, #wg>, !map -> !desc
    %d = nvgpu.warpgroup.mma %da, %db, %zero {transposeB, waitGroup = 1 : i64} : !desc, !desc, !acc -> !acc
    nvvm.wgmma.wait.group.sync.aligned 0
    nvgpu.warpgroup.mma.store %d, %c : !acc to memref<64x64xf32>
    gpu.terminator
  }
  return
}
}

// -----

// wgmma fragments are placed by thread id x in warpgroups of 128 threads.

!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
func.func @warpgroup_block(%c: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{cannot emulate warpgroup ops in a block other than a constant multiple of 128 threads in x}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %zero = nvgpu.warpgroup.mma.init.accumulator -> !acc
    nvgpu.warpgroup.mma.store %zero, %c : !acc to memref<64x64xf32>
    gpu.terminator
  }
  return
}

// -----

// TMA multicast (clusters) is not emulated; nor are nvgpu ops the kernels
// do not use.

#wg = #gpu.address_space<workgroup>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #wg>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #wg, num_barriers = 1>
func.func @multicast(%a: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %mask = arith.constant 3 : i16
  %bytes = arith.constant 8192 : i32
  %ua = memref.cast %a : memref<64x64xf16> to memref<*xf16>
  %ma = nvgpu.tma.create.descriptor %ua box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #wg>
    %ta = memref.view %smem[%c0][] : memref<?xi8, #wg> to memref<64x64xf16, #wg>
    %bars = nvgpu.mbarrier.create -> !bars
    // expected-error @below {{cannot emulate: a multicast TMA load}}
    nvgpu.tma.async.load %ma[%c0, %c0], %bars[%c0] to %ta multicast_mask = %mask : !map, !bars -> memref<64x64xf16, #wg>
    gpu.terminator
  }
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @ldmatrix(%out: memref<32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %bytes = arith.constant 512 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #wg>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #wg> to memref<16x16xf16, #wg>
    // expected-error @below {{cannot emulate this op on the CPU}}
    %frag = nvgpu.ldmatrix %tile[%c0, %c0] {numTiles = 1 : i32, transpose = false} : memref<16x16xf16, #wg> -> vector<1x2xf16>
    gpu.terminator
  }
  return
}

// -----

// An accumulator's registers are updated in place: a value of it used twice
// (here the init, by the product and by a store) cannot be emulated.

#wg = #gpu.address_space<workgroup>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #wg>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
!desc = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #wg>>
func.func @accumulator_reused(%a: memref<64x64xf16>, %c: memref<64x64xf32>, %d: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %bytes = arith.constant 8192 : i32
  %ua = memref.cast %a : memref<64x64xf16> to memref<*xf16>
  %ma = nvgpu.tma.create.descriptor %ua box[%c64, %c64] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #wg>
    %ta = memref.view %smem[%c0][] : memref<?xi8, #wg> to memref<64x64xf16, #wg>
    %da = nvgpu.warpgroup.generate.descriptor %ta, %ma : memref<64x64xf16, #wg>, !map -> !desc
    // expected-error @below {{cannot emulate: a warpgroup accumulator used more than once (its registers are updated in place)}}
    %zero = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %r = nvgpu.warpgroup.mma %da, %da, %zero {transposeB} : !desc, !desc, !acc -> !acc
    nvgpu.warpgroup.mma.store %zero, %c : !acc to memref<64x64xf32>
    nvgpu.warpgroup.mma.store %r, %d : !acc to memref<64x64xf32>
    gpu.terminator
  }
  return
}

// -----

// An 8-bit wgmma the kernel issues itself: its accumulator (an LLVM struct
// of the thread's registers, zero-started above the launch as
// canonicalization leaves it) becomes a buffer per thread, the instruction
// a queued runtime call that decodes its descriptors inside the block's
// shared memory (named per thread), the commit and the wait calls, and
// reading a register a load.

!regs = !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK-LABEL: func.func @wgmma_s8
// CHECK: omp.parallel
// CHECK: memref.alloca() : memref<32xi32>
// CHECK: call @tessel_emu_shared_window(
// CHECK: call @tessel_emu_wgmma_zero(
// CHECK: scf.for
// CHECK: call @tessel_emu_wgmma_k_major(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c64_i32, %c1_i32)
// CHECK: call @tessel_emu_wgmma_commit()
// CHECK: call @tessel_emu_wgmma_wait(%c1_i32)
// CHECK: call @tessel_emu_wgmma_wait(%c0_i32)
// CHECK: memref.load %{{.*}}[%c5] : memref<32xi32>
// CHECK-NOT: nvvm.wgmma
// CHECK-NOT: llvm.extractvalue
func.func @wgmma_s8(%out: memref<128xi32>, %desc: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %bytes = arith.constant 16384 : i32
  %zero = llvm.mlir.zero : !regs
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %r = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (!regs) {
      nvvm.wgmma.fence.aligned
      %d = nvvm.wgmma.mma_async %desc, %desc, %acc, #nvvm.shape<m = 64, n = 64, k = 32>, D [<s32>, <one>], A [<s8>, <one>, <row>], B [<s8>, <one>, <col>] : !regs -> !regs
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 1
      scf.yield %d : !regs
    }
    nvvm.wgmma.wait.group.sync.aligned 0
    %v = llvm.extractvalue %r[5] : !regs
    memref.store %v, %out[%t] : memref<128xi32>
    gpu.terminator
  }
  return
}

// -----

// Only the K-major forms the kernels issue (s8 and f16, accumulating,
// unscaled) of nvvm.wgmma.mma_async are emulated: here A is negated.

!regs = !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
func.func @wgmma_f16_negated(%desc: i64) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %bytes = arith.constant 16384 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %zero = llvm.mlir.zero : !regs
    // expected-error @below {{cannot emulate: an nvvm.wgmma.mma_async other than m64nNk32 s8 x s8 -> s32 or m64nNk16 f16 x f16 -> f32 with both operands K-major, accumulating, unscaled, without saturation}}
    %d = nvvm.wgmma.mma_async %desc, %desc, %zero, #nvvm.shape<m = 64, n = 64, k = 16>, D [<f32>, <one>], A [<f16>, <neg>, <row>], B [<f16>, <one>, <col>] : !regs -> !regs
    gpu.terminator
  }
  return
}

// -----

// Two products on one accumulator value would both update its one buffer.

!regs = !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
func.func @wgmma_s8_reused(%desc: i64) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %bytes = arith.constant 16384 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %zero = llvm.mlir.zero : !regs
    // expected-error @below {{cannot emulate: a warpgroup accumulator used more than once (its registers are updated in place)}}
    %d = nvvm.wgmma.mma_async %desc, %desc, %zero, #nvvm.shape<m = 64, n = 64, k = 32>, D [<s32>, <one>], A [<s8>, <one>, <row>], B [<s8>, <one>, <col>] : !regs -> !regs
    %e = nvvm.wgmma.mma_async %desc, %desc, %d, #nvvm.shape<m = 64, n = 64, k = 32>, D [<s32>, <one>], A [<s8>, <one>, <row>], B [<s8>, <one>, <col>] : !regs -> !regs
    %f = nvvm.wgmma.mma_async %desc, %desc, %d, #nvvm.shape<m = 64, n = 64, k = 32>, D [<s32>, <one>], A [<s8>, <one>, <row>], B [<s8>, <one>, <col>] : !regs -> !regs
    gpu.terminator
  }
  return
}

// -----

// AMD matrix instructions are exchanges among a wavefront (64 lanes for
// MFMA): the lane's operands, widened to f32, go to per-thread scratch
// made at the team's start, tessel_emu_matrix_op computes the lane's
// results (kind 0: MFMA f16 -> f32), which are loaded back.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx90a", warp_size = 64>} {
// CHECK-LABEL: func.func @mfma(
// CHECK: %[[WAVES:.*]] = call @tessel_emu_waves_create(%{{.*}}, %c64_i32) : (i32, i32) -> index
// CHECK: omp.parallel num_threads(
// CHECK-COUNT-4: memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : vector<4xf16> to vector<4xf32>
// CHECK: vector.store %[[A]]
// CHECK: func.call @tessel_emu_matrix_op(%[[WAVES]], %{{.*}}, %c0_i32, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (index, i32, i32, index, index, index, index) -> ()
// CHECK: vector.load %{{.*}} : memref<16xf32>, vector<4xf32>
// CHECK: omp.terminator
// CHECK: call @tessel_emu_warps_destroy(%[[WAVES]]) : (index) -> ()
// CHECK-NOT: amdgpu.mfma
func.func @mfma(%a: memref<64x4xf16>, %c: memref<64x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %va = vector.load %a[%tx, %c0] : memref<64x4xf16>, vector<4xf16>
    %vc = vector.load %c[%tx, %c0] : memref<64x4xf32>, vector<4xf32>
    %d = amdgpu.mfma 16x16x16 %va * %va + %vc blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
    vector.store %d, %c[%tx, %c0] : memref<64x4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
}

// -----

// MFMA's negations are not emulated: an error, not a wrong number.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", chip = "gfx942", warp_size = 64>} {
func.func @mfma_negated(%a: memref<64x4xf16>, %c: memref<64x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %va = vector.load %a[%tx, %c0] : memref<64x4xf16>, vector<4xf16>
    %vc = vector.load %c[%tx, %c0] : memref<64x4xf32>, vector<4xf32>
    // expected-error @below {{cannot emulate this op on the CPU}}
    %d = amdgpu.mfma 16x16x16 %va * %va + %vc {reducePrecision} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
    vector.store %d, %c[%tx, %c0] : memref<64x4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
}

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu),canonicalize,cse)' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{block-m=64 block-n=64 block-k=32 warps-m=2 warps-n=2 stages=3}),canonicalize,cse)' 2>/dev/null | FileCheck %s --check-prefix=STRUCT
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{fold-fill=false}),canonicalize,cse)' 2>/dev/null | FileCheck %s --check-prefix=NOFOLD
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{fuse-epilogue=false}),canonicalize,cse)' 2>/dev/null | FileCheck %s --check-prefix=NOEPI
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{block-m=16 warps-m=4}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=OVERRIDE
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{block-m=64 block-n=64 block-k=32 warps-m=2 warps-n=2 stages=4}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=GIVEN

// A 512x512x256 product; STRUCT forces 64x64 blocks of 2x2 warps (2x2
// accumulators each), 32-deep k tiles and 3 stages. The fill of C becomes
// the accumulators' start.
// OVERRIDE: remark: matmul 512x512x256 (f16 x f16 -> f32) not mapped to tensor cores: no block, warp and stage sizes fit the target's shared memory, registers and threads with the given overrides
// GIVEN: remark: matmul 512x512x256 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16): block 64x64x32 with 2x2 warps of 32x32 (2x2 16x16 accumulators, ~{{[0-9]+}} registers/thread); 4 stages

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// STRUCT-LABEL: func.func @f16_f32(
// STRUCT-SAME: %[[A:.*]]: memref<512x256xf16>, %[[B:.*]]: memref<256x512xf16>, %[[C:.*]]: memref<512x512xf32>
// STRUCT-NOT: linalg.fill
// STRUCT: gpu.launch blocks({{.*}}) in ({{.*}} = %c64, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c128, {{.*}} = %c1, {{.*}} = %c1) dynamic_shared_memory_size %c33792_i32 {
// STRUCT: %[[BUF:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// 64 blocks of 128 threads. A's rows padded from 32 to 48 halves (96
// bytes: fragment rows stay 32-byte aligned and start in four bank
// groups), B's from 64 to 80, C's f32 rows from 64 to 72; 33 KiB in all.
// STRUCT: %[[AS:.*]] = memref.view %[[BUF]][%c0][] : {{.*}} to memref<3x64x48xf16, #gpu.address_space<workgroup>>
// STRUCT: %[[BS:.*]] = memref.view %[[BUF]][%{{.*}}][] : {{.*}} to memref<3x32x80xf16, #gpu.address_space<workgroup>>
// STRUCT: %[[CS:.*]] = memref.view %[[BUF]][%c0][] : {{.*}} to memref<64x72xf32, #gpu.address_space<workgroup>>
// STRUCT: %[[ZERO:.*]] = gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x16xf32, "COp">
// The prologue: k tiles 0 and 1, 16-byte copies bypassing L1, one group
// each.
// STRUCT: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][%c0, {{.*}}], 8, %{{.*}} {bypassL1} : memref<512x256xf16> to memref<3x64x48xf16, #gpu.address_space<workgroup>>
// STRUCT: nvgpu.device_async_copy %[[B]][{{.*}}], %[[BS]][%c0, {{.*}}], 8, %{{.*}} {bypassL1}
// STRUCT: nvgpu.device_async_create_group
// STRUCT: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][%c1,
// STRUCT: %[[LAST:.*]] = nvgpu.device_async_create_group
// The k loop carries the warp's accumulators; each iteration waits for its
// tile, synchronizes, copies the tile stages - 1 ahead, multiplies.
// STRUCT: %[[ACC:.*]]:{{[0-9]+}} = scf.for %[[KT:.*]] = %c0 to %c8 step %c1 iter_args(%{{.*}} = %[[ZERO]],
// STRUCT: nvgpu.device_async_wait %[[LAST]] {numGroups = 1 : i32}
// STRUCT-NEXT: gpu.barrier
// STRUCT: nvgpu.device_async_copy %[[A]]
// STRUCT: nvgpu.device_async_create_group
// STRUCT: gpu.subgroup_mma_load_matrix %[[AS]][%{{.*}}, %{{.*}}, %c0] {leadDimension = 48 : index} : memref<3x64x48xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// STRUCT: gpu.subgroup_mma_load_matrix %[[BS]][%{{.*}}, %c0, %{{.*}}] {leadDimension = 80 : index} {{.*}} -> !gpu.mma_matrix<16x16xf16, "BOp">
// STRUCT: gpu.subgroup_mma_compute {{.*}} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
// STRUCT: gpu.subgroup_mma_load_matrix %[[AS]][%{{.*}}, %{{.*}}, %c16]
// STRUCT: scf.yield
// The epilogue: the accumulators through the padded C tile, then 16-byte
// stores (C's rows are 2 KiB apart) without edge checks.
// STRUCT: nvgpu.device_async_wait %[[LAST]] {numGroups = 0 : i32}
// STRUCT-NEXT: gpu.barrier
// STRUCT: gpu.subgroup_mma_store_matrix %[[ACC]]#0, %[[CS]][{{.*}}] {leadDimension = 72 : index}
// STRUCT: gpu.barrier
// STRUCT: %[[V:.*]] = vector.load %[[CS]][{{.*}}] : memref<64x72xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// STRUCT: vector.store %[[V]], %[[C]][{{.*}}] {alignment = 16 : i64} : memref<512x512xf32>, vector<4xf32>
// STRUCT-NOT: scf.if
// STRUCT: gpu.terminator
// STRUCT-NEXT: }
// STRUCT-NEXT: return

// CHECK-LABEL: func.func @f16_f32(
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK: gpu.subgroup_mma_constant_matrix
// CHECK: scf.for
// CHECK: gpu.subgroup_mma_compute
// CHECK-NOT: linalg.matmul
// NOFOLD-LABEL: func.func @f16_f32(
// NOFOLD: linalg.fill
// NOFOLD: gpu.launch
// NOFOLD-NOT: gpu.subgroup_mma_constant_matrix
// NOFOLD: vector.load %{{.*}} : memref<512x512xf32>, vector<4xf32>
// NOFOLD: gpu.subgroup_mma_load_matrix {{.*}} -> !gpu.mma_matrix<16x16xf32, "COp">
func.func @f16_f32(%a: memref<512x256xf16>, %b: memref<256x512xf16>, %c: memref<512x512xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<512x512xf32>)
  // expected-remark @below {{matmul 512x512x256 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16): block}}
  linalg.matmul ins(%a, %b : memref<512x256xf16>, memref<256x512xf16>) outs(%c : memref<512x512xf32>)
  return
}
}

// -----

// Partial tiles: copies read only the elements inside the matrix (cp.async
// zero-fills the rest) from clamped addresses; C is written element by
// element where a 16-byte piece crosses its edge.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @partial(
// CHECK: gpu.launch
// CHECK: %[[LEFT:.*]] = arith.subi %c40, %{{.*}} : index
// CHECK: %[[N:.*]] = arith.minsi %[[LEFT]], %c8 : index
// CHECK: %[[VALID:.*]] = arith.maxsi %[[N]], %c0 : index
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1} : memref<100x40xf16>
// CHECK: scf.for
// CHECK: } else {
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<{{.*}}xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<100x72xf32>
func.func @partial(%a: memref<100x40xf16>, %b: memref<40x72xf16>, %c: memref<100x72xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<100x72xf32>)
  // expected-remark @below {{matmul 100x72x40 (f16 x f16 -> f32) mapped to tensor cores}}
  linalg.matmul ins(%a, %b : memref<100x40xf16>, memref<40x72xf16>) outs(%c : memref<100x72xf32>)
  return
}
}

// -----

// A given k-major and B n-major: the tiles keep the global layout and the
// fragments are loaded column-major.

#at = affine_map<(m, n, k) -> (k, m)>
#bt = affine_map<(m, n, k) -> (n, k)>
#cm = affine_map<(m, n, k) -> (m, n)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @transposed(
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = {{[0-9]+}} : index, transpose} : memref<{{.*}}xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = {{[0-9]+}} : index, transpose} : {{.*}} -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute {{.*}} {a_transpose, b_transpose}
func.func @transposed(%at: memref<64x80xf16>, %bt: memref<48x64xf16>, %c: memref<80x48xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<80x48xf32>)
  // expected-remark @below {{matmul 80x48x64 (f16 x f16 -> f32) mapped to tensor cores}}
  linalg.generic {indexing_maps = [#at, #bt, #cm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %bt : memref<64x80xf16>, memref<48x64xf16>) outs(%c : memref<80x48xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// i8 x i8 -> i32: signed 8-bit fragments, i32 accumulators; a batch is the
// grid's z dimension.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @batch_i8(
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:.*]]) in ({{.*}}, {{.*}}, {{.*}} = %c4)
// CHECK: nvgpu.device_async_copy %{{.*}}[%[[BZ]], %{{.*}}, %{{.*}}], %{{.*}}, 16, %{{.*}} {bypassL1} : memref<4x64x128xi8>
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} -> !gpu.mma_matrix<16x16xsi8, "AOp">
// CHECK: gpu.subgroup_mma_compute {{.*}} : !gpu.mma_matrix<16x16xsi8, "AOp">, !gpu.mma_matrix<16x16xsi8, "BOp"> -> !gpu.mma_matrix<16x16xi32, "COp">
// CHECK: vector.store %{{.*}}, %{{.*}}[%[[BZ]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<4x64x64xi32>, vector<4xi32>
func.func @batch_i8(%a: memref<4x64x128xi8>, %b: memref<4x128x64xi8>, %c: memref<4x64x64xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<4x64x64xi32>)
  // expected-remark @below {{matmul 4x64x64x128 (i8 x i8 -> i32) mapped to tensor cores}}
  linalg.batch_matmul ins(%a, %b : memref<4x64x128xi8>, memref<4x128x64xi8>) outs(%c : memref<4x64x64xi32>)
  return
}
}

// -----

// Rows of 18 bytes cannot be copied with cp.async: each thread loads its
// pieces element by element (zero outside the matrix); no group to wait for.
// C's rows start unaligned: stores carry no alignment.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @odd_k(
// CHECK-NOT: nvgpu.device_async
// CHECK: memref.load %{{.*}} : memref<33x9xf16>
// CHECK: vector.from_elements {{.*}} : vector<8xf16>
// CHECK: vector.store %{{.*}} : memref<{{.*}}xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: nvgpu.device_async
// CHECK: gpu.terminator
func.func @odd_k(%a: memref<33x9xf16>, %b: memref<9x17xf16>, %c: memref<33x17xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<33x17xf32>)
  // expected-remark @below {{A's rows are not 4-byte aligned: copied synchronously; B's rows are not 4-byte aligned: copied synchronously}}
  linalg.matmul ins(%a, %b : memref<33x9xf16>, memref<9x17xf16>) outs(%c : memref<33x17xf32>)
  return
}
}

// -----

// A batch of rows sharing B folds into one taller matmul.

#ab = affine_map<(b, m, n, k) -> (b, m, k)>
#bb = affine_map<(b, m, n, k) -> (k, n)>
#cb = affine_map<(b, m, n, k) -> (b, m, n)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @shared_b(
// CHECK: %[[A2:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<3x64x32xf16> into memref<192x32xf16>
// CHECK: %[[C2:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<3x64x48xf32> into memref<192x48xf32>
// CHECK: gpu.launch
// CHECK: nvgpu.device_async_copy %[[A2]]
// CHECK: vector.store %{{.*}}, %[[C2]]
func.func @shared_b(%a: memref<3x64x32xf16>, %w: memref<32x48xf16>, %c: memref<3x64x48xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x64x48xf32>)
  // expected-remark @below {{matmul 192x48x32 (f16 x f16 -> f32) mapped to tensor cores}}
  linalg.generic {indexing_maps = [#ab, #bb, #cb], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : memref<3x64x32xf16>, memref<32x48xf16>) outs(%c : memref<3x64x48xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// Not mapped, with the reason: f32 inputs, bf16 (no WMMA fragments in MLIR
// 22), zero-extended integers, dynamic sizes, tensors; an f16 matmul whose
// accumulator shape the target does not list.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32"]>} {
// CHECK-LABEL: func.func @declined(
// CHECK-NOT: gpu.launch
// CHECK-COUNT-5: linalg.matmul
// CHECK-NOT: gpu.launch
func.func @declined(%a: memref<64x64xf32>, %h: memref<64x64xbf16>, %q: memref<64x64xi8>, %d: memref<?x64xf16>, %f: memref<64x64xf16>,
                    %c: memref<64x64xf32>, %ci: memref<64x64xi32>, %cd: memref<?x64xf32>, %ch: memref<64x64xf16>) {
  // expected-remark @below {{not mapped to tensor cores: f32 inputs would be rounded to TF32 by tensor cores}}
  linalg.matmul ins(%a, %a : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  // expected-remark @below {{not mapped to tensor cores: gpu.subgroup_mma (WMMA) has no bf16 fragments in MLIR 22}}
  linalg.matmul ins(%h, %h : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  // expected-remark @below {{not mapped to tensor cores: it zero-extends its integer inputs}}
  linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%q, %q : memref<64x64xi8>, memref<64x64xi8>) outs(%ci : memref<64x64xi32>)
  // expected-remark @below {{not mapped to tensor cores: it has dynamic sizes}}
  linalg.matmul ins(%d, %f : memref<?x64xf16>, memref<64x64xf16>) outs(%cd : memref<?x64xf32>)
  // expected-remark @below {{not mapped to tensor cores: the target lists no 'm16n16k16:f16xf16->f16' tensor-core shape}}
  linalg.matmul ins(%f, %f : memref<64x64xf16>, memref<64x64xf16>) outs(%ch : memref<64x64xf16>)
  return
}
}

// -----

// A target description without a throughput the model needs.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32"]>} {
// CHECK-LABEL: func.func @incomplete_target(
// CHECK-NOT: gpu.launch
func.func @incomplete_target(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  // expected-remark @below {{not mapped to tensor cores: the target description has no l2_bytes_per_cycle}}
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
}

// -----

// CPU targets keep their matmuls (and get no remark).

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512>} {
// CHECK-LABEL: func.func @cpu(
// CHECK: linalg.matmul
func.func @cpu(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  return
}
}

// -----

// A batch of B that A lacks is the grid's batch; every block reads A.

#sa = affine_map<(b, m, n, k) -> (m, k)>
#sb = affine_map<(b, m, n, k) -> (b, k, n)>
#sc = affine_map<(b, m, n, k) -> (b, m, n)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @shared_a(
// CHECK-SAME: %[[A:.*]]: memref<64x32xf16>, %[[B:.*]]: memref<3x32x48xf16>
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:.*]]) in ({{.*}}, {{.*}}, {{.*}} = %c3)
// CHECK: nvgpu.device_async_copy %[[A]][%{{.*}}, %{{.*}}],
// CHECK: nvgpu.device_async_copy %[[B]][%[[BZ]], %{{.*}}, %{{.*}}],
func.func @shared_a(%a: memref<64x32xf16>, %b: memref<3x32x48xf16>, %c: memref<3x64x48xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x64x48xf32>)
  // expected-remark @below {{matmul 3x64x48x32 (f16 x f16 -> f32) mapped to tensor cores}}
  linalg.generic {indexing_maps = [#sa, #sb, #sc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf16>, memref<3x32x48xf16>) outs(%c : memref<3x64x48xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// Bodies that are not exactly acc + a * b: upstream's contraction check lets
// unary ops through, which tensor cores would drop (a negated operand, an
// i8 product that wraps before it is widened).

#m = affine_map<(m, n, k) -> (m, k)>
#n = affine_map<(m, n, k) -> (k, n)>
#o = affine_map<(m, n, k) -> (m, n)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @not_plain(
// CHECK-NOT: gpu.launch
func.func @not_plain(%a: memref<64x64xf16>, %c: memref<64x64xf32>, %q: memref<64x64xi8>, %ci: memref<64x64xi32>) {
  // expected-remark @below {{not mapped to tensor cores: its body is not acc + a * b}}
  linalg.generic {indexing_maps = [#m, #n, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %a : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xn = arith.negf %x : f16
    %xf = arith.extf %xn : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  // expected-remark @below {{not mapped to tensor cores: its body is not acc + a * b}}
  linalg.generic {indexing_maps = [#m, #n, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %q : memref<64x64xi8>, memref<64x64xi8>) outs(%ci : memref<64x64xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %p = arith.muli %x, %y : i8
    %pw = arith.extsi %p : i8 to i32
    %s = arith.addi %acc, %pw : i32
    linalg.yield %s : i32
  }
  return
}
}

// -----

// WMMA is warp-wide over 32 lanes; an empty matmul has nothing to launch.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 64, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32"]>} {
// CHECK-LABEL: func.func @wide_warps(
// CHECK-NOT: gpu.launch
func.func @wide_warps(%a: memref<64x64xf16>, %c: memref<64x64xf32>, %e: memref<0x64xf16>, %ce: memref<0x64xf32>) {
  // expected-remark @below {{not mapped to tensor cores: WMMA needs 32-lane warps; the target says 64}}
  linalg.matmul ins(%a, %a : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  // expected-remark @below {{not mapped to tensor cores: it has an empty dimension}}
  linalg.matmul ins(%e, %a : memref<0x64xf16>, memref<64x64xf16>) outs(%ce : memref<0x64xf32>)
  return
}
}

// -----

// The elementwise op that reads the product (bias, ReLU, conversion to f16)
// runs on the accumulators in the kernel's epilogue, on 16-byte pieces: the
// bias is read along n, the result stored to the output; C's temporary and
// the op are gone. NOEPI keeps them.

#row = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @epilogue(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<128xf32>, %[[OUT:[a-z0-9]+]]: memref<128x128xf16>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: gpu.subgroup_mma_store_matrix
// CHECK: %[[ACC:.*]] = vector.load %{{.*}} : memref<{{.*}}xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: %[[B:.*]] = vector.load %[[BIAS]][%{{.*}}] : memref<128xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[B]] : vector<4xf32>
// CHECK: %[[RELU:.*]] = arith.maximumf %[[SUM]], %{{.*}} : vector<4xf32>
// CHECK: %[[H:.*]] = arith.truncf %[[RELU]] : vector<4xf32> to vector<4xf16>
// CHECK: vector.store %[[H]], %[[OUT]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x128xf16>, vector<4xf16>
// CHECK-NOT: linalg.generic
// CHECK: return

// NOEPI-LABEL: func.func @epilogue(
// NOEPI: memref.alloc
// NOEPI: gpu.launch
// NOEPI: linalg.generic
func.func @epilogue(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %bias: memref<128xf32>, %out: memref<128x128xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{; the elementwise op after it applied to the accumulators before the store}}
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<128x128xf32>, memref<128xf32>) outs(%out : memref<128x128xf16>) {
  ^bb0(%x: f32, %y: f32, %z: f16):
    %t = arith.addf %x, %y : f32
    %m = arith.maximumf %t, %zero : f32
    %h = arith.truncf %m : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %c : memref<128x128xf32>
  return
}
}

// -----

// The epilogue's output allocated between the product and the op (as
// bufferization leaves a temporary) moves above the kernel; a bias shaped
// N x 1 (read at index 0 of its unit dimension) is loaded element by
// element along n.

#row2 = affine_map<(m, n) -> (m, n)>
#col2 = affine_map<(m, n) -> (n, 0)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @epilogue_temporary_output(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<128x1xf32>
// CHECK: %[[T:.*]] = memref.alloc() : memref<128x128xf16>
// CHECK: gpu.launch
// CHECK: %[[ACC:.*]] = vector.load %{{.*}} : memref<{{.*}}xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-COUNT-4: memref.load %[[BIAS]][%{{.*}}, %{{.*}}] : memref<128x1xf32>
// CHECK: %[[B:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: arith.addf %[[ACC]], %[[B]] : vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x128xf16>, vector<4xf16>
// CHECK-NOT: linalg.generic
// CHECK: memref.copy %[[T]]
func.func @epilogue_temporary_output(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %bias: memref<128x1xf32>, %out: memref<128x128xf16>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{; the elementwise op after it applied to the accumulators before the store}}
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  %t = memref.alloc() : memref<128x128xf16>
  linalg.generic {indexing_maps = [#row2, #col2, #row2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<128x128xf32>, memref<128x1xf32>) outs(%t : memref<128x128xf16>) {
  ^bb0(%x: f32, %y: f32, %z: f16):
    %s = arith.addf %x, %y : f32
    %h = arith.truncf %s : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %c : memref<128x128xf32>
  memref.copy %t, %out : memref<128x128xf16> to memref<128x128xf16>
  memref.dealloc %t : memref<128x128xf16>
  return
}
}

// -----

// i1 in an epilogue: LLVM packs a vector<4xi1> into bits, a memref of i1
// holds one byte per element, so i1 pieces are read and written element by
// element (a vector store here wrote packed bits over the mask bytes).

#row3 = affine_map<(m, n) -> (m, n)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @epilogue_i1(
// CHECK-SAME: %[[MASK:[a-z0-9]+]]: memref<128x128xi1>, %[[OUT:[a-z0-9]+]]: memref<128x128xi1>
// CHECK: gpu.launch
// CHECK-COUNT-4: memref.load %[[MASK]][%{{.*}}, %{{.*}}] : memref<128x128xi1>
// CHECK: %[[M:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi1>
// CHECK: %[[S:.*]] = arith.select %[[M]], %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: %[[P:.*]] = arith.cmpf ogt, %[[S]], %{{.*}} : vector<4xf32>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] : memref<128x128xi1>
// CHECK-NOT: vector.store %{{.*}} vector<4xi1>
// CHECK-NOT: vector.load %{{.*}} vector<4xi1>
// CHECK: return
func.func @epilogue_i1(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %mask: memref<128x128xi1>, %out: memref<128x128xi1>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{; the elementwise op after it applied to the accumulators before the store}}
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#row3, #row3, #row3], iterator_types = ["parallel", "parallel"]}
      ins(%c, %mask : memref<128x128xf32>, memref<128x128xi1>) outs(%out : memref<128x128xi1>) {
  ^bb0(%x: f32, %m: i1, %o: i1):
    %s = arith.select %m, %x, %zero : f32
    %p = arith.cmpf ogt, %s, %zero : f32
    linalg.yield %p : i1
  }
  memref.dealloc %c : memref<128x128xf32>
  return
}
}

// -----

// An epilogue operand computed after the product does not exist where the
// kernel is built: the op is not fused (it used not to dominate its use).

#row5 = affine_map<(m, n) -> (m, n)>
#scalar5 = affine_map<(m, n) -> ()>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @epilogue_operand_after_product(
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @epilogue_operand_after_product(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %scale: f32, %out: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{epilogue not fused: an operand of it is computed after the product}}
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  %twice = arith.addf %scale, %scale : f32
  linalg.generic {indexing_maps = [#row5, #scalar5, #row5], iterator_types = ["parallel", "parallel"]}
      ins(%c, %twice : memref<128x128xf32>, f32) outs(%out : memref<128x128xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  }
  memref.dealloc %c : memref<128x128xf32>
  return
}
}

// -----

// A scalar operand of the epilogue (a function argument, map to ()) is
// used in the kernel as it is, broadcast to the piece.

#row4 = affine_map<(m, n) -> (m, n)>
#scalar4 = affine_map<(m, n) -> ()>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @epilogue_scalar_operand(
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: f32, %[[OUT:[a-z0-9]+]]: memref<128x128xf32>
// CHECK: gpu.launch
// CHECK: %[[ACC:.*]] = vector.load %{{.*}} : memref<{{.*}}xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[SCALE]] : f32 to vector<4xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[ACC]], %[[SPLAT]] : vector<4xf32>
// CHECK: vector.store %[[P]], %[[OUT]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @epilogue_scalar_operand(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %scale: f32, %out: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<128x128xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
  // expected-remark @below {{; the elementwise op after it applied to the accumulators before the store}}
  linalg.matmul ins(%a, %b : memref<128x64xf16>, memref<64x128xf16>) outs(%c : memref<128x128xf32>)
  linalg.generic {indexing_maps = [#row4, #scalar4, #row4], iterator_types = ["parallel", "parallel"]}
      ins(%c, %scale : memref<128x128xf32>, f32) outs(%out : memref<128x128xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  }
  memref.dealloc %c : memref<128x128xf32>
  return
}
}

// -----

// An op after the matmul that the epilogue cannot take stays, with the
// reason: C is the caller's buffer (someone may read it), is read
// transposed, or the op writes (a view of) the buffer of A or B, which
// bufferization may reuse once the matmul is done but which, fused, other
// blocks would still be reading. Disjoint views of one buffer are declined
// too (conservatively).

#row = affine_map<(m, n) -> (m, n)>
#tr = affine_map<(m, n) -> (n, m)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @epilogue_declined(
// CHECK: gpu.launch
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @epilogue_declined(%a: memref<64x64xf16>, %c: memref<64x64xf32>, %out: memref<64x64xf32>) {
  // expected-remark @below {{; epilogue not fused: C is not a temporary of the function}}
  linalg.matmul ins(%a, %a : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x64xf32>) outs(%out : memref<64x64xf32>) {
  ^bb0(%x: f32, %z: f32):
    %d = arith.addf %x, %x : f32
    linalg.yield %d : f32
  }
  %t = memref.alloc() : memref<64x64xf32>
  // expected-remark @below {{; epilogue not fused: it reads C or writes its output through a non-identity map}}
  linalg.matmul ins(%a, %a : memref<64x64xf16>, memref<64x64xf16>) outs(%t : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#tr, #row], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<64x64xf32>) outs(%out : memref<64x64xf32>) {
  ^bb0(%x: f32, %z: f32):
    %d = arith.addf %x, %x : f32
    linalg.yield %d : f32
  }
  memref.dealloc %t : memref<64x64xf32>
  return
}

// CHECK-LABEL: func.func @epilogue_overwrites_a(
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @epilogue_overwrites_a(%x: memref<64x64xf16>, %out: memref<64x64xf16>) {
  %a = memref.alloc() : memref<64x64xf16>
  memref.copy %x, %a : memref<64x64xf16> to memref<64x64xf16>
  %t = memref.alloc() : memref<64x64xf32>
  // expected-remark @below {{; epilogue not fused: its output shares a buffer with an operand of the product, which the kernel's other blocks still read}}
  linalg.matmul ins(%a, %x : memref<64x64xf16>, memref<64x64xf16>) outs(%t : memref<64x64xf32>)
  %view = memref.cast %a : memref<64x64xf16> to memref<64x64xf16, strided<[64, 1]>>
  linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<64x64xf32>) outs(%view : memref<64x64xf16, strided<[64, 1]>>) {
  ^bb0(%v: f32, %z: f16):
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %t : memref<64x64xf32>
  memref.copy %a, %out : memref<64x64xf16> to memref<64x64xf16>
  memref.dealloc %a : memref<64x64xf16>
  return
}

// CHECK-LABEL: func.func @epilogue_overwrites_b(
// CHECK: gpu.launch
// CHECK: linalg.generic
func.func @epilogue_overwrites_b(%x: memref<64x64xf16>, %out: memref<32x64xf16>) {
  %b = memref.alloc() : memref<128x64xf16>
  %b0 = memref.subview %b[0, 0] [64, 64] [1, 1] : memref<128x64xf16> to memref<64x64xf16, strided<[64, 1]>>
  memref.copy %x, %b0 : memref<64x64xf16> to memref<64x64xf16, strided<[64, 1]>>
  %t = memref.alloc() : memref<32x64xf32>
  %a = memref.subview %x[0, 0] [32, 64] [1, 1] : memref<64x64xf16> to memref<32x64xf16, strided<[64, 1]>>
  // expected-remark @below {{; epilogue not fused: its output shares a buffer with an operand of the product}}
  linalg.matmul ins(%a, %b0 : memref<32x64xf16, strided<[64, 1]>>, memref<64x64xf16, strided<[64, 1]>>) outs(%t : memref<32x64xf32>)
  %b1 = memref.subview %b[64, 0] [32, 64] [1, 1] : memref<128x64xf16> to memref<32x64xf16, strided<[64, 1], offset: 4096>>
  linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<32x64xf32>) outs(%b1 : memref<32x64xf16, strided<[64, 1], offset: 4096>>) {
  ^bb0(%v: f32, %z: f16):
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %t : memref<32x64xf32>
  memref.copy %b1, %out : memref<32x64xf16, strided<[64, 1], offset: 4096>> to memref<32x64xf16>
  memref.dealloc %b : memref<128x64xf16>
  return
}
}

// -----

// An NHWC convolution is an implicit GEMM: the filter and the output are
// collapsed to matrices, and A's pieces are copied from the input at the
// pixel and tap the im2col map names (strides 2: ih = oh * 2 + kh); no
// patch buffer exists. NCHW is not taken.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<2x17x17x32xf16>, %[[W:[a-z0-9]+]]: memref<3x3x32x64xf16>, %[[Y:[a-z0-9]+]]: memref<2x8x8x64xf32>
// CHECK-DAG: %[[WM:.*]] = memref.collapse_shape %[[W]] {{\[\[}}0, 1, 2], [3]] : memref<3x3x32x64xf16> into memref<288x64xf16>
// CHECK-DAG: %[[YM:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1, 2], [3]] : memref<2x8x8x64xf32> into memref<128x64xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: nvgpu.device_async_copy %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, 8, %{{.*}} {bypassL1} : memref<2x17x17x32xf16>
// CHECK: nvgpu.device_async_copy %[[WM]][
// CHECK: vector.store %{{.*}}, %[[YM]][
func.func @conv(%x: memref<2x17x17x32xf16>, %w: memref<3x3x32x64xf16>, %y: memref<2x8x8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<2x8x8x64xf32>)
  // expected-remark @below {{conv_2d_nhwc_hwcf 2x17x17x32 * 3x3x32x64 as implicit GEMM 128x64x288 (f16 x f16 -> f32) mapped to tensor cores}}
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : memref<2x17x17x32xf16>, memref<3x3x32x64xf16>) outs(%y : memref<2x8x8x64xf32>)
  return
}

// CHECK-LABEL: func.func @conv_nchw(
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv_nchw(%x: memref<1x32x10x10xf16>, %w: memref<64x32x3x3xf16>, %y: memref<1x64x8x8xf32>) {
  // expected-remark @below {{not mapped to tensor cores: only linalg.conv_2d_nhwc_hwcf convolutions are (as implicit GEMMs)}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x32x10x10xf16>, memref<64x32x3x3xf16>) outs(%y : memref<1x64x8x8xf32>)
  return
}
}

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu),canonicalize,cse)' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{block-m=64 block-n=64 block-k=8 warps-m=2 stages=3 split-k=1}),canonicalize,cse)' 2>/dev/null | FileCheck %s --check-prefix=STRUCT
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{block-m=32 block-n=64 block-k=8 stages=3 split-k=1}),canonicalize,cse)' 2>/dev/null | FileCheck %s --check-prefix=F64
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{stages=1}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=STAGES1

// f32 products go to the SIMT kernel (tensor cores would round the inputs
// to TF32). STRUCT forces 64x64 blocks of 64 threads (8x8 accumulators
// each), 8-deep k tiles and 3 stages: A's tile (rows along k) is padded by
// 16 bytes (stride 12), B's (rows along n) is not; the epilogue's C tile is
// 64 x (64 + 4). Each thread reads 16 bytes at a time, aligned, and does
// multiply-adds marked to contract into FMAs.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @simt(
// CHECK: gpu.launch
// CHECK: arith.mulf {{.*}} fastmath<contract> : f32
// CHECK: arith.addf {{.*}} fastmath<contract> : f32
// CHECK-NOT: math.fma
// CHECK-NOT: linalg.matmul
// STRUCT-LABEL: func.func @simt(
// STRUCT: gpu.launch blocks({{.*}}) in ({{.*}} = %c12, {{.*}}) threads({{.*}}) in ({{.*}} = %c64, {{.*}})
// STRUCT-DAG: memref.view {{.*}} to memref<3x64x12xf32, #gpu.address_space<workgroup>>
// STRUCT-DAG: memref.view {{.*}} to memref<3x8x64xf32, #gpu.address_space<workgroup>>
// STRUCT-DAG: memref.view {{.*}} to memref<64x68xf32, #gpu.address_space<workgroup>>
// STRUCT: nvgpu.device_async_copy {{.*}}, 4, %c4 {bypassL1} : memref<256x128xf32>
// STRUCT: scf.for {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, index)
// STRUCT: nvgpu.device_async_wait {{.*}} {numGroups = 1 : i32}
// STRUCT: vector.load {{.*}} {alignment = 16 : i64} : memref<3x64x12xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// STRUCT: vector.load {{.*}} {alignment = 16 : i64} : memref<3x8x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// STRUCT: arith.mulf {{.*}} fastmath<contract> : f32
// STRUCT: arith.addf {{.*}} fastmath<contract> : f32
// STRUCT: scf.yield
// STRUCT: memref.store {{.*}} : memref<64x68xf32, #gpu.address_space<workgroup>>
// STRUCT: gpu.barrier
// STRUCT: vector.store {{.*}} : memref<256x192xf32>, vector<4xf32>
// An override no SIMT block has is named as the reason, not the product's
// size.
// STAGES1: matmul 256x192x128 (f32 x f32 -> f32) not mapped to tensor cores: {{.*}}no SIMT block has the given overrides
func.func @simt(%a: memref<256x128xf32>, %b: memref<128x192xf32>, %c: memref<256x192xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<256x192xf32>)
  // expected-remark @below {{matmul 256x192x128 (f32 x f32 -> f32) mapped to SIMT cores (f32 FMAs, no TF32 rounding): block}}
  linalg.matmul ins(%a, %b : memref<256x128xf32>, memref<128x192xf32>) outs(%c : memref<256x192xf32>)
  return
}
}

// -----

// A given as (k, m) is read along m (rows of A^T, unpadded); B given as
// (n, k) along k (padded).
#at = affine_map<(m, n, k) -> (k, m)>
#bt = affine_map<(m, n, k) -> (n, k)>
#cm = affine_map<(m, n, k) -> (m, n)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @transposed(
// CHECK: gpu.launch
// STRUCT-LABEL: func.func @transposed(
// STRUCT-DAG: memref.view {{.*}} to memref<3x8x64xf32, #gpu.address_space<workgroup>>
// STRUCT-DAG: memref.view {{.*}} to memref<3x64x12xf32, #gpu.address_space<workgroup>>
// STRUCT: vector.load {{.*}} {alignment = 16 : i64} : memref<3x8x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// STRUCT: vector.load {{.*}} {alignment = 16 : i64} : memref<3x64x12xf32, #gpu.address_space<workgroup>>, vector<4xf32>
func.func @transposed(%at: memref<128x256xf32>, %bt: memref<192x128xf32>, %c: memref<256x192xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<256x192xf32>)
  // expected-remark @below {{matmul 256x192x128 (f32 x f32 -> f32) mapped to SIMT cores}}
  linalg.generic {indexing_maps = [#at, #bt, #cm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %bt : memref<128x256xf32>, memref<192x128xf32>) outs(%c : memref<256x192xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
}

// -----

// A product too small for a block of two warps (7 x 32: 64 threads of 4 x 4
// cover at least 16 x 64 or 32 x 32) gets a block of one.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @one_warp(
// CHECK: gpu.launch
// CHECK-SAME: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c32
func.func @one_warp(%a: memref<7x256xf32>, %b: memref<256x32xf32>, %c: memref<7x32xf32>) {
  // expected-remark @below {{matmul 7x32x256 (f32 x f32 -> f32) mapped to SIMT cores (f32 FMAs, no TF32 rounding): block 16x32x32 with 4x8 threads of 4x4 accumulators}}
  linalg.matmul ins(%a, %b : memref<7x256xf32>, memref<256x32xf32>) outs(%c : memref<7x32xf32>)
  return
}
}

// -----

// A target without the SIMT cores' rate: the product is left for the
// untiled path, with the reason.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @no_rate(
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
func.func @no_rate(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-remark @below {{matmul 64x64x64 (f32 x f32 -> f32) not mapped to tensor cores: f32 inputs would be rounded to TF32 by tensor cores, and no SIMT kernel fits: the target description has no simt_fma_per_cycle}}
  linalg.matmul ins(%a, %a : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
}

// -----

// A target with the SIMT cores' rate and no tensor-core figures: f32 does
// not need them.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @no_tensor_cores(
// CHECK: gpu.launch
// CHECK-NOT: linalg.matmul
func.func @no_tensor_cores(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-remark @below {{matmul 64x64x64 (f32 x f32 -> f32) mapped to SIMT cores}}
  linalg.matmul ins(%a, %a : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
}

// -----

// f32 inputs with an f64 accumulator: neither kernel has that form.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @mixed(
// CHECK: linalg.matmul
func.func @mixed(%a: memref<64x64xf32>, %c: memref<64x64xf64>) {
  // expected-remark @below {{matmul 64x64x64 (f32 x f32 -> f64) not mapped to tensor cores: WMMA has no form for these element types}}
  linalg.matmul ins(%a, %a : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf64>)
  return
}
}

// -----

// f64 products run on the same SIMT kernel at the target's f64 rate: its
// 16-byte shared-memory reads give two values, the tile along k is padded
// by 16 bytes (two elements: stride 10 for 8-deep k tiles), cp.async copies
// two elements, and the multiply-adds are f64 ones marked to contract.
// STRUCT's forced 64x64 blocks of 64 threads would need 8x8 f64
// accumulators per thread (more registers than a thread has): declined,
// the op left alone. F64 forces 32x64 blocks.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 32, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @simt_f64(
// CHECK: gpu.launch
// CHECK: arith.mulf {{.*}} fastmath<contract> : f64
// CHECK: arith.addf {{.*}} fastmath<contract> : f64
// CHECK-NOT: linalg.matmul
// STRUCT-LABEL: func.func @simt_f64(
// STRUCT-NOT: gpu.launch
// STRUCT: linalg.matmul
// F64-LABEL: func.func @simt_f64(
// F64: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}})
// F64-DAG: memref.view {{.*}} to memref<3x32x10xf64, #gpu.address_space<workgroup>>
// F64-DAG: memref.view {{.*}} to memref<3x8x64xf64, #gpu.address_space<workgroup>>
// F64-DAG: memref.view {{.*}} to memref<32x66xf64, #gpu.address_space<workgroup>>
// F64: nvgpu.device_async_copy {{.*}}, 2, %c2 {bypassL1} : memref<128x64xf64>
// F64: scf.for
// F64: vector.load {{.*}} {alignment = 16 : i64} : memref<3x32x10xf64, #gpu.address_space<workgroup>>, vector<2xf64>
// F64: vector.load {{.*}} {alignment = 16 : i64} : memref<3x8x64xf64, #gpu.address_space<workgroup>>, vector<2xf64>
// F64: arith.mulf {{.*}} fastmath<contract> : f64
// F64: arith.addf {{.*}} fastmath<contract> : f64
// F64: scf.yield
// F64: vector.store {{.*}} : memref<128x96xf64>, vector<2xf64>
func.func @simt_f64(%a: memref<128x64xf64>, %b: memref<64x96xf64>, %c: memref<128x96xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<128x96xf64>)
  // expected-remark @below {{matmul 128x96x64 (f64 x f64 -> f64) mapped to SIMT cores (f64 FMAs): block}}
  linalg.matmul ins(%a, %b : memref<128x64xf64>, memref<64x96xf64>) outs(%c : memref<128x96xf64>)
  return
}
}

// -----

// A target without the SIMT cores' f64 rate (simt_f64_fma_per_cycle): f64
// products stay on the untiled path, with the reason.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @no_f64_rate(
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
func.func @no_f64_rate(%a: memref<64x64xf64>, %c: memref<64x64xf64>) {
  // expected-remark @below {{matmul 64x64x64 (f64 x f64 -> f64) not mapped to tensor cores: f64 tensor cores not used: the target lists no 'm8n8k4:f64xf64->f64' tensor-core shape, and no SIMT kernel fits: the target description has no simt_f64_fma_per_cycle}}
  linalg.matmul ins(%a, %a : memref<64x64xf64>, memref<64x64xf64>) outs(%c : memref<64x64xf64>)
  return
}
}

// -----

// AMD: f64 has only the SIMT kernel (no f64 MFMA kernel is built); without the
// f64 SIMT rate the product stays on the untiled path, with both reasons.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", sm_count = 104, smem_per_block = 65536, registers_per_block = 131072, warp_size = 64, max_threads_per_block = 1024, mma_fma_per_cycle = 512, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 64, memory_latency = 700>} {
// CHECK-LABEL: func.func @amd_no_f64_rate(
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
func.func @amd_no_f64_rate(%a: memref<64x64xf64>, %c: memref<64x64xf64>) {
  // expected-remark @below {{matmul 64x64x64 (f64 x f64 -> f64) not mapped to tensor cores: f64 tensor cores not used: no f64 MFMA kernel is built for AMD GPUs, and no SIMT kernel fits: the target description has no simt_f64_fma_per_cycle}}
  linalg.matmul ins(%a, %a : memref<64x64xf64>, memref<64x64xf64>) outs(%c : memref<64x64xf64>)
  return
}
}

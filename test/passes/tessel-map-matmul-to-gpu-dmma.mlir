// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu),canonicalize,cse)' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{block-m=32 block-n=32 block-k=8 warps-m=2 warps-n=2 stages=3 split-k=1}),canonicalize,cse)' 2>/dev/null | FileCheck %s --check-prefix=STRUCT
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{f64-tensor-cores=false}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF

// f64 x f64 -> f64 products on a target listing the f64 tensor-core shape
// (m8n8k4, DMMA) and its rate: the WMMA kernel with 8x4 A, 4x8 B and 8x8
// accumulator fragments, chosen because the model estimates it faster than
// the SIMT kernel (the remark gives both). gpu.subgroup_mma_constant_matrix
// takes no f64, so the fill's value is stored to the shared C tile and the
// accumulators loaded from there. STRUCT forces 32x32x8 blocks of 2x2 warps
// (2x2 fragments each): A's 8-deep rows padded to 10 elements (80 bytes:
// a fragment's eight 32-byte rows cover every 16-byte bank group twice),
// B's 32-wide rows to 36 (288 bytes: a fragment's four 64-byte rows start
// 32 bytes apart in the bank window, each group hit twice, where 34 would
// put one group under all four), the C tile's to 34. OFF turns the f64
// tensor cores off: the SIMT kernel, with the reason.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, mma_f64_fma_per_cycle = 64, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 32, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m8n8k4:f64xf64->f64"]>} {
// CHECK-LABEL: func.func @dmma(
// CHECK-NOT: gpu.subgroup_mma_constant_matrix
// CHECK: gpu.launch
// CHECK: memref.store {{.*}} : memref<{{[0-9]+}}x{{[0-9]+}}xf64, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} -> !gpu.mma_matrix<8x8xf64, "COp">
// CHECK: scf.for
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} -> !gpu.mma_matrix<8x4xf64, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} -> !gpu.mma_matrix<4x8xf64, "BOp">
// CHECK: gpu.subgroup_mma_compute {{.*}} : !gpu.mma_matrix<8x4xf64, "AOp">, !gpu.mma_matrix<4x8xf64, "BOp"> -> !gpu.mma_matrix<8x8xf64, "COp">
// CHECK: gpu.subgroup_mma_store_matrix {{.*}} : !gpu.mma_matrix<8x8xf64, "COp">
// CHECK-NOT: linalg.matmul
// STRUCT-LABEL: func.func @dmma(
// STRUCT: gpu.launch blocks({{.*}}) in ({{.*}} = %c32, {{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}})
// STRUCT-DAG: memref.view {{.*}} to memref<3x32x10xf64, #gpu.address_space<workgroup>>
// STRUCT-DAG: memref.view {{.*}} to memref<3x8x36xf64, #gpu.address_space<workgroup>>
// STRUCT-DAG: memref.view {{.*}} to memref<32x34xf64, #gpu.address_space<workgroup>>
// STRUCT: scf.for {{.*}} to %c1024 step %c128
// STRUCT: memref.store {{.*}} : memref<32x34xf64, #gpu.address_space<workgroup>>
// STRUCT-COUNT-4: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 34 : index} : memref<32x34xf64, {{.*}}> -> !gpu.mma_matrix<8x8xf64, "COp">
// The first copies overwrite the C tile: only after every warp has loaded.
// STRUCT-NEXT: gpu.barrier
// STRUCT: nvgpu.device_async_copy {{.*}}, 2, %{{.*}} {bypassL1} : memref<256x192xf64>
// STRUCT: scf.for
// STRUCT: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 10 : index} : memref<3x32x10xf64, {{.*}}> -> !gpu.mma_matrix<8x4xf64, "AOp">
// STRUCT: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = 36 : index} : memref<3x8x36xf64, {{.*}}> -> !gpu.mma_matrix<4x8xf64, "BOp">
// STRUCT-COUNT-8: gpu.subgroup_mma_compute
// STRUCT: scf.yield
// STRUCT-COUNT-4: gpu.subgroup_mma_store_matrix
// OFF: remark: matmul 256x128x192 (f64 x f64 -> f64) mapped to SIMT cores (f64 FMAs): {{.*}}; f64 tensor cores not used: turned off (f64-tensor-cores=false)
func.func @dmma(%a: memref<256x192xf64>, %b: memref<192x128xf64>, %c: memref<256x128xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<256x128xf64>)
  // expected-remark @below {{matmul 256x128x192 (f64 x f64 -> f64) mapped to tensor cores (WMMA m8n8k4, f64 DMMA): block}}
  linalg.matmul ins(%a, %b : memref<256x192xf64>, memref<192x128xf64>) outs(%c : memref<256x128xf64>)
  return
}
}

// -----

// Without a fill, the accumulators start from C's tile, staged through
// shared memory; A given transposed is read with column-major fragments.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, mma_f64_fma_per_cycle = 64, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 32, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m8n8k4:f64xf64->f64"]>} {
// CHECK-LABEL: func.func @dmma_at_accumulate(
// CHECK: gpu.launch
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} -> !gpu.mma_matrix<8x8xf64, "COp">
// CHECK: scf.for
// CHECK: gpu.subgroup_mma_load_matrix {{.*}} {leadDimension = {{[0-9]+}} : index, transpose} : {{.*}} -> !gpu.mma_matrix<8x4xf64, "AOp">
// CHECK: gpu.subgroup_mma_compute {{.*}} {a_transpose}
func.func @dmma_at_accumulate(%a: memref<64x128xf64>, %b: memref<64x96xf64>, %c: memref<128x96xf64>) {
  // expected-remark @below {{(f64 x f64 -> f64) mapped to tensor cores (WMMA m8n8k4, f64 DMMA): block}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<64x128xf64>, memref<64x96xf64>) outs(%c : memref<128x96xf64>)
  return
}
}

// -----

// The shape listed without its rate (mma_f64_fma_per_cycle): the SIMT
// kernel, with the reason.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 32, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m8n8k4:f64xf64->f64"]>} {
// CHECK-LABEL: func.func @no_rate(
// CHECK-NOT: gpu.subgroup_mma
// CHECK: arith.mulf {{.*}} fastmath<contract> : f64
func.func @no_rate(%a: memref<256x192xf64>, %b: memref<192x128xf64>, %c: memref<256x128xf64>) {
  // expected-remark-re @below {{mapped to SIMT cores (f64 FMAs): block {{.*}}; f64 tensor cores not used: the target description has no mma_f64_fma_per_cycle; accumulates onto C}}
  linalg.matmul ins(%a, %b : memref<256x192xf64>, memref<192x128xf64>) outs(%c : memref<256x128xf64>)
  return
}
}

// -----

// f64 tensor cores far slower than the SIMT cores (a made-up rate of 1 FMA
// per cycle): the model keeps the SIMT kernel and says what it estimated.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, mma_f64_fma_per_cycle = 1, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 32, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m8n8k4:f64xf64->f64"]>} {
// CHECK-LABEL: func.func @slower(
// CHECK-NOT: gpu.subgroup_mma
// CHECK: arith.mulf {{.*}} fastmath<contract> : f64
func.func @slower(%a: memref<256x192xf64>, %b: memref<192x128xf64>, %c: memref<256x128xf64>) {
  // expected-remark-re @below {{mapped to SIMT cores (f64 FMAs): block {{.*}}; f64 tensor cores not used: estimated at ~{{[0-9]+}} cycles, no faster}}
  linalg.matmul ins(%a, %b : memref<256x192xf64>, memref<192x128xf64>) outs(%c : memref<256x128xf64>)
  return
}
}

// -----

// A product smaller than every SIMT block still gets the f64 tensor cores
// (8x8 fragments), where it used to stay on the untiled path.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, mma_f64_fma_per_cycle = 64, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 32, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m8n8k4:f64xf64->f64"]>} {
// CHECK-LABEL: func.func @tiny(
// CHECK: gpu.subgroup_mma_compute
func.func @tiny(%a: memref<5x6xf64>, %b: memref<6x7xf64>, %c: memref<5x7xf64>) {
  // expected-remark-re @below {{matmul 5x7x6 (f64 x f64 -> f64) mapped to tensor cores (WMMA m8n8k4, f64 DMMA): block 8x8x{{[0-9]+}} {{.*}}; no SIMT kernel fits: the product is smaller than every SIMT block}}
  linalg.matmul ins(%a, %b : memref<5x6xf64>, memref<6x7xf64>) outs(%c : memref<5x7xf64>)
  return
}
}

// tessel-map-matmul-to-gpu's split-k: products with few C tiles and a long
// k (a linear layer at a small batch) leave most SMs idle, so the model
// shares each tile's k tiles among several blocks. Each block writes a
// partial C; a second kernel adds the partials to the start value (the
// fill's, or C's contents) and applies the epilogue. FORCED asks for three
// splits everywhere. The split is the grid's y (the batch keeps z).
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu),canonicalize,cse)' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{split-k=3}),canonicalize,cse)' 2>%t.forced.remarks | FileCheck %s --check-prefix=FORCED
// RUN: FileCheck %s --check-prefix=FORCED-REMARK < %t.forced.remarks

// A 16x1024x2048 f32 layer with bias and ReLU: 8 tiles of 16x128 would
// occupy 8 of 108 SMs. Split 13 ways (5 of the 64 k tiles each), 104
// blocks fill one wave; the partials (13 x 16 x 1024 f32) cost the
// reduction ~10776 cycles, mostly the assumed launch. The product kernel
// runs its k loop over its own share and stores its partial C, unscaled;
// the reduction starts from the fill's 1.0, adds the 13 partials with
// 16-byte loads and applies bias and ReLU before the store.
// With FORCED, three splits of 22 k tiles.
// FORCED-REMARK: remark: matmul 16x1024x2048 (f32 x f32 -> f32) mapped to SIMT cores {{.*}}; k split 3 ways (22 of 64 k tiles per block; 192 KiB of partial sums, added by a second kernel, ~{{[0-9]+}} cycles)

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 10, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @linear_f32(
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<1024xf32>, %[[OUT:[a-z0-9]+]]: memref<16x1024xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<4xf32>
// CHECK-DAG: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<13x16x1024xf32>
// CHECK: gpu.launch blocks(%{{.*}}, %[[SPLIT:.*]], %{{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c13, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c128,
// CHECK: %[[FIRST:.*]] = arith.muli %[[SPLIT]], %c5 : index
// CHECK: %[[PAST:.*]] = arith.addi %[[FIRST]], %c5 : index
// CHECK: %[[LAST:.*]] = arith.minsi %[[PAST]], %c64 : index
// CHECK: %[[END:.*]] = arith.maxsi %[[FIRST]], %[[LAST]] : index
// CHECK: %[[COUNT:.*]] = arith.subi %[[END]], %[[FIRST]] : index
// CHECK: scf.for %{{.*}} = %c0 to %[[COUNT]] step %c1
// CHECK: vector.store %{{.*}}, %[[P]][%[[SPLIT]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<13x16x1024xf32>, vector<4xf32>
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[FIRST_PARTIAL:.*]] = vector.load %[[P]][{{.*}}] {alignment = 16 : i64} : memref<13x16x1024xf32>, vector<4xf32>
// CHECK: arith.addf %[[FIRST_PARTIAL]], %[[ONE]] : vector<4xf32>
// CHECK-COUNT-12: vector.load %[[P]][{{.*}}] {alignment = 16 : i64} : memref<13x16x1024xf32>, vector<4xf32>
// CHECK: vector.load %[[BIAS]][{{.*}}] : memref<1024xf32>, vector<4xf32>
// CHECK: arith.maximumf {{.*}} : vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[OUT]][{{.*}}] {alignment = 16 : i64} : memref<16x1024xf32>, vector<4xf32>
// CHECK: memref.dealloc %[[P]] : memref<13x16x1024xf32>
// CHECK-NOT: linalg.
// CHECK: return
// FORCED-LABEL: func.func @linear_f32(
// FORCED: memref.alloc() {alignment = 64 : i64} : memref<3x16x1024xf32>
// FORCED: arith.muli %{{.*}}, %c22 : index
func.func @linear_f32(%a: memref<16x2048xf32>, %b: memref<2048x1024xf32>, %bias: memref<1024xf32>, %out: memref<16x1024xf32>) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16x1024xf32>
  linalg.fill ins(%one : f32) outs(%c : memref<16x1024xf32>)
  // expected-remark @below {{matmul 16x1024x2048 (f32 x f32 -> f32) mapped to SIMT cores (f32 FMAs, no TF32 rounding): block 16x128x32 with 4x32 threads of 4x4 accumulators (~106 registers/thread); 2 stages (600 cycles of latency over 1 k tiles); 36.5 KiB shared memory, 4 block(s)/SM; 104 blocks in 1 wave(s) over 108 SMs, in groups of 1 block rows; k split 13 ways (5 of 64 k tiles per block; 832 KiB of partial sums, added by a second kernel, ~10776 cycles); per k tile and SM: FMA 1024, shared memory 784, L2 384 cycles; estimated 17115 cycles; C's fill added by the reduction; the elementwise op after it applied to the accumulators before the store}}
  linalg.matmul ins(%a, %b : memref<16x2048xf32>, memref<2048x1024xf32>) outs(%c : memref<16x1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<16x1024xf32>, memref<1024xf32>) outs(%out : memref<16x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %c : memref<16x1024xf32>
  return
}
}

// -----

// Tensor cores: an 8x1024x4096 f16 layer (f32 accumulators) splits 13 ways
// too, and an i8 product accumulating onto C 16 ways: the reduction starts
// from C's contents, read once, and the product kernel from zero.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 10, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @linear_f16(
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<13x8x1024xf32>
func.func @linear_f16(%a: memref<8x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<8x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x1024xf32>)
  // expected-remark @below {{matmul 8x1024x4096 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16): block 16x128x32 with 1x2 warps of 16x64 (1x4 16x16 accumulators, ~142 registers/thread); 4 stages (600 cycles of latency over 3 k tiles); 42 KiB shared memory, 3 block(s)/SM; 104 blocks in 1 wave(s) over 108 SMs, in groups of 1 block rows; k split 13 ways (10 of 128 k tiles per block; 416 KiB of partial sums, added by a second kernel, ~10688 cycles)}}
  linalg.matmul ins(%a, %b : memref<8x4096xf16>, memref<4096x1024xf16>) outs(%c : memref<8x1024xf32>)
  return
}

// CHECK-LABEL: func.func @accumulate_i8(
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<32x96xi32>
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x32x96xi32>
// CHECK: gpu.launch
// CHECK-NOT: %[[C]]
// CHECK: %[[ZERO:.*]] = gpu.subgroup_mma_constant_matrix %c0_i32 : !gpu.mma_matrix<16x16xi32, "COp">
// CHECK-NOT: %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]],
// CHECK-NOT: %[[C]]
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK: %[[OLD:.*]] = vector.load %[[C]][{{.*}}] {alignment = 16 : i64} : memref<32x96xi32>, vector<4xi32>
// CHECK: %[[PART:.*]] = vector.load %[[P]]
// CHECK: arith.addi %[[OLD]], %[[PART]] : vector<4xi32>
// CHECK-COUNT-15: vector.load %[[P]]
// CHECK: vector.store %{{.*}}, %[[C]][{{.*}}] {alignment = 16 : i64} : memref<32x96xi32>, vector<4xi32>
func.func @accumulate_i8(%a: memref<32x4096xi8>, %b: memref<4096x96xi8>, %c: memref<32x96xi32>) {
  // expected-remark @below {{matmul 32x96x4096 (i8 x i8 -> i32) mapped to tensor cores (WMMA m16n16k16): block 32x16x32 with 1x1 warps of 32x16 (2x1 16x16 accumulators, ~98 registers/thread); 5 stages (600 cycles of latency over 4 k tiles); 10 KiB shared memory, 16 block(s)/SM; 96 blocks in 1 wave(s) over 108 SMs, in groups of 1 block rows; k split 16 ways (8 of 128 k tiles per block; 192 KiB of partial sums, added by a second kernel, ~10642 cycles); per k tile and SM: tensor cores 32, shared memory 24 (1/1-way A/B bank conflicts), L2 32 cycles; estimated 13029 cycles; the reduction accumulates onto C}}
  linalg.matmul ins(%a, %b : memref<32x4096xi8>, memref<4096x96xi8>) outs(%c : memref<32x96xi32>)
  return
}
}

// -----

// Rows of 250 f32 are not a multiple of 16 bytes: the reduction adds one
// element per thread. A product with 1024 tiles is not split (two waves
// already); asked to, its 48 MiB of partials would not fit in half of L2
// and are costed at the device-memory rate. f16 accumulators are never
// split (the partials would be rounded); asked to, the pass declines.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 10, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @odd_columns(
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<16x16x250xf32>
// CHECK: gpu.launch
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c16,
// CHECK-COUNT-16: memref.load %{{.*}} : memref<16x16x250xf32>
// CHECK: memref.store %{{.*}} : memref<16x250xf32>
func.func @odd_columns(%a: memref<16x2048xf32>, %b: memref<2048x250xf32>, %c: memref<16x250xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x250xf32>)
  // expected-remark @below {{k split 16 ways (4 of 64 k tiles per block; 250 KiB of partial sums}}
  linalg.matmul ins(%a, %b : memref<16x2048xf32>, memref<2048x250xf32>) outs(%c : memref<16x250xf32>)
  return
}

// CHECK-LABEL: func.func @many_tiles(
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
// FORCED-REMARK: remark: matmul 2048x2048x512 (f16 x f16 -> f32) mapped to tensor cores {{.*}}; k split 3 ways (11 of 32 k tiles per block; 48 MiB of partial sums, added by a second kernel, ~72737 cycles)
func.func @many_tiles(%a: memref<2048x512xf16>, %b: memref<512x2048xf16>, %c: memref<2048x2048xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2048x2048xf32>)
  // expected-remark @below {{1024 blocks in 2 wave(s) over 108 SMs, in groups of 23 block rows; per k tile}}
  linalg.matmul ins(%a, %b : memref<2048x512xf16>, memref<512x2048xf16>) outs(%c : memref<2048x2048xf32>)
  return
}

// CHECK-LABEL: func.func @f16_accumulators(
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// FORCED-LABEL: func.func @f16_accumulators(
// FORCED: linalg.matmul
// FORCED-REMARK: remark: matmul 8x1024x4096 (f16 x f16 -> f16) not mapped to tensor cores: split-k needs accumulators of 4 bytes or more (f32, i32, f64): partial sums of 2-byte ones would be rounded
func.func @f16_accumulators(%a: memref<8x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<8x1024xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%c : memref<8x1024xf16>)
  // expected-remark @below {{matmul 8x1024x4096 (f16 x f16 -> f16) mapped to tensor cores (WMMA m16n16k16): block 16x16x32 with 1x1 warps of 16x16 (1x1 16x16 accumulators, ~80 registers/thread); 5 stages (600 cycles of latency over 4 k tiles); 12.5 KiB shared memory, 13 block(s)/SM; 64 blocks in 1 wave(s) over 108 SMs, in groups of 1 block rows; per k tile}}
  linalg.matmul ins(%a, %b : memref<8x4096xf16>, memref<4096x1024xf16>) outs(%c : memref<8x1024xf16>)
  return
}
}

// -----

// Hopper: the wgmma kernel splits too. An 8x4096x4096 f16 layer takes
// 64x256 blocks split 8 ways (128 blocks on 132 SMs; unsplit, 64x64 blocks
// would give 64): the split is the grid's y, each block's TMA loads start
// at its split's first k tile (split x 8 x 64 elements), and the ring's
// prologue loads only the k tiles the split has.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32"]>} {
// CHECK-LABEL: func.func @linear_wgmma(
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x8x4096xf32>
// CHECK: gpu.launch blocks(%{{.*}}, %[[SPLIT:.*]], %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c8, %{{.*}} = %c1)
// CHECK: %[[FIRST:.*]] = arith.muli %[[SPLIT]], %c8 : index
// CHECK: %[[HAS:.*]] = arith.cmpi sgt, %[[COUNT:.*]], %c0 : index
// CHECK: %[[LOAD:.*]] = arith.andi %{{.*}}, %[[HAS]] : i1
// CHECK: %[[K0:.*]] = arith.muli %[[SPLIT]], %c512 : index
// CHECK: nvgpu.tma.async.load %{{.*}}[%[[K0]], %{{.*}}], %{{.*}}[%c0] to %{{.*}}, predicate = %[[LOAD]]
// CHECK: scf.for %{{.*}} = %c0 to %[[COUNT]] step %c1
// CHECK: nvgpu.warpgroup.mma
// CHECK: vector.store %{{.*}}, %[[P]][%[[SPLIT]], %{{.*}}, %{{.*}}]
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c32,
// CHECK-COUNT-8: vector.load %[[P]]
// CHECK: vector.store %{{.*}} : memref<8x4096xf32>, vector<4xf32>
// CHECK: memref.dealloc %[[P]]
func.func @linear_wgmma(%a: memref<8x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<8x4096xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4096xf32>)
  // expected-remark @below {{matmul 8x4096x4096 (f16 x f16 -> f32) mapped to tensor cores (wgmma m64n256k16 on TMA-loaded tiles): block 64x256x64 with 1 warpgroup(s) of 64x256 (~128 accumulator registers/thread); 2 TMA stages (700 cycles of latency over 1 k tiles); 81 KiB shared memory, 2 block(s)/SM; 128 blocks in 1 wave(s) over 132 SMs, in groups of 1 block rows; k split 8 ways (8 of 64 k tiles per block; 1 MiB of partial sums, added by a second kernel, ~10886 cycles); per k tile and SM: tensor cores 512, shared memory 640, L2 853 cycles; estimated 21314 cycles; C's fill added by the reduction}}
  linalg.matmul ins(%a, %b : memref<8x4096xf16>, memref<4096x4096xf16>) outs(%c : memref<8x4096xf32>)
  return
}
}

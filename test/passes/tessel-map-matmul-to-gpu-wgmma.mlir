// tessel-map-matmul-to-gpu's wgmma option (on by default; false keeps
// WMMA on sm_90a too): the Hopper kernel (TMA loads
// into a ring of 128-byte-swizzled tiles, one mbarrier per stage,
// nvgpu.warpgroup.mma for f16, nvvm.wgmma.mma_async on encoded descriptors
// for i8), and the products it leaves to WMMA, with the reason.
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu),canonicalize,cse)' 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-map-matmul-to-gpu{wgmma=false}))' 2>%t.wmma.remarks | FileCheck %s --check-prefix=WMMA
// RUN: FileCheck %s --check-prefix=WMMA-REMARK --implicit-check-not="wgmma not used" < %t.wmma.remarks

// 512x512x256: blocks of 128x128 (two warpgroups of 64 rows), 64-deep k
// tiles; the descriptors are made on the host, C's fill is the
// accumulators' zero start.
// REMARK: remark: matmul 512x512x256 (f16 x f16 -> f32) mapped to tensor cores (wgmma m64n{{[0-9]+}}k16 on TMA-loaded tiles): block {{[0-9]+}}x{{[0-9]+}}x64 with {{[12]}} warpgroup(s)
// CHECK-LABEL: func.func @mm_512
// CHECK-DAG: %[[A:.*]] = memref.cast %arg0 : memref<512x256xf16> to memref<*xf16>
// CHECK-DAG: %[[B:.*]] = memref.cast %arg1 : memref<256x512xf16> to memref<*xf16>
// CHECK-DAG: %[[MA:.*]] = nvgpu.tma.create.descriptor %[[A]] box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
// CHECK-DAG: %[[MB:.*]] = nvgpu.tma.create.descriptor %[[B]]
// CHECK: gpu.launch
// CHECK: gpu.dynamic_shared_memory
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: nvgpu.mbarrier.create
// CHECK: nvgpu.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: nvgpu.tma.fence.descriptor %[[MA]]
// CHECK-NEXT: nvgpu.tma.fence.descriptor %[[MB]]
// CHECK: nvgpu.tma.prefetch.descriptor %[[MA]]
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: nvgpu.tma.async.load %[[MA]]
// CHECK: nvgpu.tma.async.load %[[MB]]
// CHECK: nvgpu.warpgroup.mma.init.accumulator
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.warpgroup.generate.descriptor
// CHECK: nvgpu.warpgroup.mma %{{.*}}, %{{.*}}, %{{.*}} {transposeB}
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvgpu.tma.async.load
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.warpgroup.mma.store
// CHECK: vector.store
// CHECK-NOT: linalg.matmul
// WMMA-REMARK: remark: matmul 512x512x256 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16)
// WMMA-LABEL: func.func @mm_512
// WMMA-NOT: nvgpu.warpgroup
// WMMA: gpu.subgroup_mma_compute
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32"]>} {
  func.func @mm_512(%a: memref<512x256xf16>, %b: memref<256x512xf16>, %c: memref<512x512xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<512x512xf32>)
    linalg.matmul ins(%a, %b : memref<512x256xf16>, memref<256x512xf16>) outs(%c : memref<512x512xf32>)
    return
  }
}

// -----

// B given as (n, k), a linear layer's weight: upstream's f16 descriptors
// step through row-major B only, so the kernel reads both operands
// K-major and issues the m64nNk16 instructions itself. A given as (k, m)
// stays on WMMA.
// REMARK: remark: matmul 128x128x128 (f16 x f16 -> f32) mapped to tensor cores (wgmma m64n{{[0-9]+}}k16 on TMA-loaded tiles): block {{[0-9]+}}x{{[0-9]+}}x64
// REMARK: remark: matmul 128x128x128 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16): {{.*}}; wgmma not used: A is transposed (the wgmma kernel reads A K-major, as (m, k))
// CHECK-LABEL: func.func @mm_bt
// CHECK-NOT: nvgpu.warpgroup
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = {{[0-9]+}}, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK-LABEL: func.func @mm_at
// CHECK-NOT: nvvm.wgmma
// CHECK: gpu.subgroup_mma_compute
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32"]>} {
  func.func @mm_bt(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %c: memref<128x128xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : memref<128x128xf16>, memref<128x128xf16>) outs(%c : memref<128x128xf32>) {
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %xf = arith.extf %x : f16 to f32
      %yf = arith.extf %y : f16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @mm_at(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %c: memref<128x128xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : memref<128x128xf16>, memref<128x128xf16>) outs(%c : memref<128x128xf32>) {
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

// C accumulated onto (no fill), and rows of 18 bytes (TMA needs 16-byte
// multiples): WMMA.
// REMARK: remark: matmul 64x64x64 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16): {{.*}}; wgmma not used: C does not start from a fill with zero
// REMARK: remark: matmul 64x64x9 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16): {{.*}}; wgmma not used: TMA needs 16-byte aligned rows of A and B
// CHECK-LABEL: func.func @accumulate
// CHECK-NOT: nvgpu.warpgroup
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: nvgpu.warpgroup
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32"]>} {
  func.func @accumulate(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
    linalg.matmul ins(%a, %b : memref<64x64xf16>, memref<64x64xf16>) outs(%c : memref<64x64xf32>)
    return
  }
  func.func @unaligned(%a: memref<64x9xf16>, %b: memref<9x64xf16>, %c: memref<64x64xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
    linalg.matmul ins(%a, %b : memref<64x9xf16>, memref<9x64xf16>) outs(%c : memref<64x64xf32>)
    return
  }
}

// -----

// A target without a wgmma shape (sm_80): WMMA, the only form there, and
// the remark does not mention wgmma.
// REMARK: remark: matmul 128x128x128 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16): {{.*}}; estimated {{[0-9]+}} cycles; C's fill folded into the accumulators
// CHECK-LABEL: func.func @sm80
// CHECK-NOT: nvgpu.warpgroup
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32"]>} {
  func.func @sm80(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %c: memref<128x128xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<128x128xf32>)
    linalg.matmul ins(%a, %b : memref<128x128xf16>, memref<128x128xf16>) outs(%c : memref<128x128xf32>)
    return
  }
}

// -----

// i8 x i8 -> i32 with B given as (n, k), a linear layer's weight: both
// operands K-major, boxes of 64 rows of 128 bytes, 128-deep k tiles. The
// kernel encodes the descriptors (address / 16 in bits 0-13, the leading
// byte offset 1, 1024-byte groups of 8 rows = 64 << 32, 128-byte swizzle
// = 1 << 62: 4611686293305360384) and issues four m64nNk32 instructions
// per group, 32 bytes apart; the accumulators are LLVM structs of N / 2
// registers (their zero start is a constant, hoisted out of the launch here
// and sunk back by the pipeline), stored as pairs.
// REMARK: remark: matmul 256x256x512 (i8 x i8 -> i32) mapped to tensor cores (wgmma m64n{{[0-9]+}}k32 on TMA-loaded tiles): block {{[0-9]+}}x{{[0-9]+}}x128 with {{[12]}} warpgroup(s)
// CHECK-LABEL: func.func @i8_bt
// CHECK-DAG: %[[FIXED:.*]] = arith.constant 4611686293305360384 : i64
// CHECK-DAG: %[[MASK:.*]] = arith.constant 262143 : i64
// CHECK-DAG: nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xi8> -> <tensor = memref<64x128xi8, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.zero : !llvm.struct<(i32,
// CHECK: gpu.launch
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]],
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.andi %{{.*}}, %[[MASK]] : i64
// CHECK: arith.ori %{{.*}}, %[[FIXED]] : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ACC]], <m = 64, n = {{[0-9]+}}, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]], <m = 64
// CHECK: %[[D2:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D1]], <m = 64
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D2]], <m = 64
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: gpu.barrier
// CHECK: nvgpu.tma.async.load
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue
// CHECK: vector.store %{{.*}} : memref<{{[0-9]+}}x{{[0-9]+}}xi32, #gpu.address_space<workgroup>>, vector<2xi32>
// CHECK-NOT: linalg.generic
// WMMA-LABEL: func.func @i8_bt
// WMMA-NOT: nvvm.wgmma
// WMMA: gpu.subgroup_mma_compute
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32", "wgmma.m64nNk32:i8xi8->i32"]>} {
  func.func @i8_bt(%a: memref<256x512xi8>, %b: memref<256x512xi8>, %c: memref<256x256xi32>) {
    %zero = arith.constant 0 : i32
    linalg.fill ins(%zero : i32) outs(%c : memref<256x256xi32>)
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : memref<256x512xi8>, memref<256x512xi8>) outs(%c : memref<256x256xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xi = arith.extsi %x : i8 to i32
      %yi = arith.extsi %y : i8 to i32
      %p = arith.muli %xi, %yi : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    }
    return
  }
}

// -----

// i8 with B given as (k, n), which 8-bit wgmma cannot read (MN-major): at
// 128^3 transposing B first costs more than WMMA saves, so WMMA keeps it.
// REMARK: remark: matmul 128x128x128 (i8 x i8 -> i32) mapped to tensor cores (WMMA m16n16k16): {{.*}}; wgmma not used: B is given as (k, n), which 8-bit wgmma cannot read; transposing it (~{{[0-9]+}} cycles) and wgmma (~{{[0-9]+}} cycles) against WMMA (~{{[0-9]+}} cycles) is estimated no faster
// CHECK-LABEL: func.func @i8_kn
// CHECK-NOT: nvvm.wgmma
// CHECK: gpu.subgroup_mma_compute
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32", "wgmma.m64nNk32:i8xi8->i32"]>} {
  func.func @i8_kn(%a: memref<128x128xi8>, %b: memref<128x128xi8>, %c: memref<128x128xi32>) {
    %zero = arith.constant 0 : i32
    linalg.fill ins(%zero : i32) outs(%c : memref<128x128xi32>)
    linalg.matmul ins(%a, %b : memref<128x128xi8>, memref<128x128xi8>) outs(%c : memref<128x128xi32>)
    return
  }
}

// -----

// At 4096^3 wgmma's rate pays for the transpose: B goes into an aligned
// (n, k) temporary through a kernel of its own (64x64 tiles, 16-byte
// loads into shared memory, 16-byte stores of its columns), the wgmma
// kernel reads that temporary through its TMA descriptor, and the
// temporary is freed after it.
// REMARK: remark: matmul 4096x4096x4096 (i8 x i8 -> i32) mapped to tensor cores (wgmma m64n256k32 on TMA-loaded tiles): {{.*}}; B given as (k, n), which 8-bit wgmma cannot read, is transposed into an (n, k) temporary first: transposing it (~{{[0-9]+}} cycles) and wgmma (~{{[0-9]+}} cycles) against WMMA (~{{[0-9]+}} cycles)
// CHECK-LABEL: func.func @i8_kn_4096
// CHECK-SAME: %[[A:[^:]*]]: memref<4096x4096xi8>, %[[B:[^:]*]]: memref<4096x4096xi8>
// CHECK: %[[BT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4096x4096xi8>
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c64{{.*}}, {{.*}} = %c64{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) dynamic_shared_memory_size %c4096_i32
// CHECK: vector.load %[[B]][{{.*}}] {alignment = 16 : i64} : memref<4096x4096xi8>, vector<16xi8>
// CHECK: gpu.barrier
// CHECK-COUNT-16: memref.load {{.*}} : memref<64x64xi8, #gpu.address_space<workgroup>>
// CHECK: vector.store {{.*}}, %[[BT]][{{.*}}] {alignment = 16 : i64} : memref<4096x4096xi8>, vector<16xi8>
// CHECK: gpu.terminator
// CHECK: %[[CAST:.*]] = memref.cast %[[BT]]
// CHECK: nvgpu.tma.create.descriptor %[[CAST]]
// CHECK: nvvm.wgmma.mma_async
// CHECK: memref.dealloc %[[BT]]
// CHECK-NEXT: return
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 14, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32", "wgmma.m64nNk32:i8xi8->i32"]>} {
  func.func @i8_kn_4096(%a: memref<4096x4096xi8>, %b: memref<4096x4096xi8>, %c: memref<4096x4096xi32>) {
    %zero = arith.constant 0 : i32
    linalg.fill ins(%zero : i32) outs(%c : memref<4096x4096xi32>)
    linalg.matmul ins(%a, %b : memref<4096x4096xi8>, memref<4096x4096xi8>) outs(%c : memref<4096x4096xi32>)
    return
  }
}

// -----

// B's rows (40 bytes) are not whole 16-byte pieces: no transpose, WMMA.
// REMARK: remark: matmul 2048x40x2048 (i8 x i8 -> i32) mapped to tensor cores (WMMA m16n16k16): {{.*}}; wgmma not used: B is given as (k, n), which 8-bit wgmma cannot read, and it cannot be transposed first: its sizes are not multiples of 16
// CHECK-LABEL: func.func @i8_kn_narrow
// CHECK-NOT: nvvm.wgmma
// CHECK: gpu.subgroup_mma_compute
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32", "wgmma.m64nNk32:i8xi8->i32"]>} {
  func.func @i8_kn_narrow(%a: memref<2048x2048xi8>, %b: memref<2048x40xi8>, %c: memref<2048x40xi32>) {
    %zero = arith.constant 0 : i32
    linalg.fill ins(%zero : i32) outs(%c : memref<2048x40xi32>)
    linalg.matmul ins(%a, %b : memref<2048x2048xi8>, memref<2048x40xi8>) outs(%c : memref<2048x40xi32>)
    return
  }
}

// -----

// A constant weight (memref.get_global), or a view of one, takes wgmma like
// an argument: its descriptor is made as any other here, and
// tessel-lower-tma-descriptors has the runtime describe a device copy of
// the constant. An i8 constant given as (k, n) is read by the transpose
// kernel.
// REMARK: remark: matmul 512x512x512 (f16 x f16 -> f32) mapped to tensor cores (wgmma m64n{{[0-9]+}}k16 on TMA-loaded tiles)
// REMARK: remark: matmul 256x512x512 (f16 x f16 -> f32) mapped to tensor cores (wgmma m64n{{[0-9]+}}k16 on TMA-loaded tiles)
// REMARK: remark: matmul 4096x4096x4096 (i8 x i8 -> i32) mapped to tensor cores (wgmma m64n256k32 on TMA-loaded tiles): {{.*}}; B given as (k, n), which 8-bit wgmma cannot read, is transposed into an (n, k) temporary first
// CHECK-LABEL: func.func @f16_constant_weight
// CHECK: %[[W:.*]] = memref.get_global @w_f16
// CHECK: %[[WU:.*]] = memref.cast %[[W]] : memref<512x512xf16> to memref<*xf16>
// CHECK: nvgpu.tma.create.descriptor %[[WU]]
// CHECK: nvgpu.warpgroup.mma
// CHECK-LABEL: func.func @f16_constant_rows
// CHECK: %[[W:.*]] = memref.get_global @w_f16
// CHECK: %[[ROWS:.*]] = memref.subview %[[W]][256, 0]
// CHECK: %[[RU:.*]] = memref.cast %[[ROWS]]
// CHECK: nvgpu.tma.create.descriptor %[[RU]]
// CHECK: nvgpu.warpgroup.mma
// CHECK-LABEL: func.func @i8_kn_constant_weight
// CHECK: %[[W:.*]] = memref.get_global @w_i8
// CHECK: %[[BT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4096x4096xi8>
// CHECK: gpu.launch
// CHECK: vector.load %[[W]]
// CHECK: memref.cast %[[BT]]
// CHECK: nvvm.wgmma.mma_async
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 14, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32", "wgmma.m64nNk32:i8xi8->i32"]>} {
  memref.global "private" constant @w_f16 : memref<512x512xf16> = dense<1.0>
  memref.global "private" constant @w_i8 : memref<4096x4096xi8> = dense<1>
  func.func @f16_constant_weight(%a: memref<512x512xf16>, %c: memref<512x512xf32>) {
    %w = memref.get_global @w_f16 : memref<512x512xf16>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<512x512xf32>)
    linalg.matmul ins(%a, %w : memref<512x512xf16>, memref<512x512xf16>) outs(%c : memref<512x512xf32>)
    return
  }
  // A constant A seen through a view (rows 256..511 of it).
  func.func @f16_constant_rows(%b: memref<512x512xf16>, %c: memref<256x512xf32>) {
    %w = memref.get_global @w_f16 : memref<512x512xf16>
    %rows = memref.subview %w[256, 0] [256, 512] [1, 1] : memref<512x512xf16> to memref<256x512xf16, strided<[512, 1], offset: 131072>>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<256x512xf32>)
    linalg.matmul ins(%rows, %b : memref<256x512xf16, strided<[512, 1], offset: 131072>>, memref<512x512xf16>) outs(%c : memref<256x512xf32>)
    return
  }
  func.func @i8_kn_constant_weight(%a: memref<4096x4096xi8>, %c: memref<4096x4096xi32>) {
    %w = memref.get_global @w_i8 : memref<4096x4096xi8>
    %zero = arith.constant 0 : i32
    linalg.fill ins(%zero : i32) outs(%c : memref<4096x4096xi32>)
    linalg.matmul ins(%a, %w : memref<4096x4096xi8>, memref<4096x4096xi8>) outs(%c : memref<4096x4096xi32>)
    return
  }
}

// -----

// A target whose PTX ISA is older than 8.3 cannot take the kernel's
// tensor-map fence (fence.proxy.tensormap): WMMA, with the reason.
// REMARK: remark: matmul 512x512x256 (f16 x f16 -> f32) mapped to tensor cores (WMMA m16n16k16): {{.*}}; wgmma not used: the target's PTX ISA (8.0) is older than 8.3, which the kernel's tensor-map fence needs
// CHECK-LABEL: func.func @old_ptx
// CHECK-NOT: nvgpu.warpgroup.mma
// CHECK: gpu.subgroup_mma_compute
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx80", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 132, smem_per_block = 232448, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 2048, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 14, memory_latency = 700, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:f16xf16->f16", "m16n16k16:i8xi8->i32", "wgmma.m64nNk16:f16xf16->f32", "wgmma.m64nNk32:i8xi8->i32"]>} {
  func.func @old_ptx(%a: memref<512x256xf16>, %b: memref<256x512xf16>, %c: memref<512x512xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<512x512xf32>)
    linalg.matmul ins(%a, %b : memref<512x256xf16>, memref<256x512xf16>) outs(%c : memref<512x512xf32>)
    return
  }
}

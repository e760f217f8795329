// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{pack-a=always pack-b=always}))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{mr=4 nr=16 kr=1 kc=32 pack-a=always pack-b=always}))' | FileCheck %s --check-prefix=OVERRIDE
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{parallel=none pack-a=always pack-b=always}))' | FileCheck %s --check-prefix=NONE
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul))' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{pack-a=always pack-b=always}),canonicalize,one-shot-bufferize{bufferize-function-boundaries})' 2>/dev/null | FileCheck %s --check-prefix=BUF
// The model's own packing choices (operands read in place):
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul))' | FileCheck %s --check-prefix=INPLACE
// A convolution's patches read through its input, bufferized: no copy.
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul),canonicalize,one-shot-bufferize{bufferize-function-boundaries})' 2>/dev/null | FileCheck %s --check-prefix=IMPLICIT-BUF
// Epilogues applied to the register tiles, and left alone on request:
// (nr=32 keeps the 8 x 32 tiles the EPI checks spell out; EPIWIDE checks
// an epilogue on the model's 4 x 64 tiles):
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{nr=32}))' | FileCheck %s --check-prefix=EPI
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul))' 2>/dev/null | FileCheck %s --check-prefix=EPIWIDE
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{nr=32 fuse-epilogue=false}))' 2>/dev/null | FileCheck %s --check-prefix=NOEPI
// Padding skipped, and not (nr=32 keeps the 7 x 32 tiles and kc 256 whose
// block structure the checks spell out; the model's own 7 x 64 tiles are in
// the REMARK check):
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{nr=32}))' 2>/dev/null | FileCheck %s --check-prefix=PADSKIP
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{nr=32 skip-padding=false}))' 2>&1 | FileCheck %s --check-prefix=NOSKIP
// RUN: not %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{nr=-8}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADOPT

// An AVX-512 machine: 32 x 512-bit registers, 32 KiB L1, 1 MiB L2, 32 MiB L3.
// The model picks an 8 x 32 register tile (16 accumulators), k unrolled by
// 2. With both operands packed (pack-a/pack-b=always: the model itself
// reads these small operands in place, see the REMARK lines and the last
// cases), packing is per cache block into block-sized buffers created once:
// A blocks to [slots][mc/8][kc/2][2][8], B blocks to [1][nc/32][kc/2][2][32].
// Here every cache loop has one block (no loop): B is packed, then A, then
// the kernel keeps the 8 x 32 C tile in registers across the k loop
// (iter_args) and does 2 x 8 FMAs of 32 lanes per iteration. C is a fill
// of zero: the fill is gone, and the accumulators start from a splat of
// zero instead of a load of C.

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: tensor<64x128xf32>, %[[B:.*]]: tensor<128x64xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.fill
// CHECK: %[[C:.*]] = tensor.empty() : tensor<64x64xf32>
// CHECK: tensor.empty() : tensor<1x8x64x2x8xf32>
// CHECK: tensor.empty() : tensor<1x2x64x2x32xf32>
// Packing the B block: rows of 32 copied as they are.
// CHECK-NOT: vector.transpose
// CHECK: vector.transfer_read %{{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK-NOT: vector.transpose
// CHECK: vector.shape_cast %{{.*}} : vector<8x32xf32> to vector<4x2x32xf32>
// Packing the A block: 8 x 32 pieces, transposed in registers to 16 x 2 x 8.
// CHECK: vector.transfer_read %{{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: vector.transpose %{{.*}}, [0, 2, 3, 1] : vector<1x8x16x2xf32> to vector<1x16x2x8xf32>
// The kernel: nr panels outside mr panels, C in its own layout.
// CHECK: scf.for %{{.*}} iter_args(%[[CN:.*]] = %[[C]]) -> (tensor<64x64xf32>)
// CHECK: scf.for
// CHECK: %[[CT:.*]] = tensor.extract_slice %{{.*}} [8, 32] [1, 1] : tensor<64x64xf32> to tensor<8x32xf32>
// CHECK-NOT: vector.transfer_read %[[CT]]
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[CV:.*]] = %[[ZERO]]) -> (vector<8x32xf32>) {
// CHECK-NOT: tensor<64x64xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<2x32xf32>, vector<2x32xf32>
// CHECK-NOT: vector.transfer_
// Each A element is a scalar load, broadcast (one vbroadcastss from
// memory, not a vector load split by shuffles that compete with the FMAs).
// CHECK: tensor.extract %{{.*}}[%c0, %c0] : tensor<2x8xf32>
// CHECK-NOT: vector.transfer_
// CHECK-COUNT-16: vector.fma %{{.*}} : vector<32xf32>
// CHECK-NOT: vector.fma
// CHECK-NOT: vector.transfer_
// CHECK: scf.yield %{{.*}} : vector<8x32xf32>
// CHECK: vector.transfer_write %[[ACC]], %[[CT]]{{.*}} : vector<8x32xf32>, tensor<8x32xf32>

// Bufferized: C and the two block buffers, nothing inside the loops.
// BUF-LABEL: func.func @matmul(
// BUF: memref.alloc() {{.*}} : memref<64x64xf32>
// BUF: memref.alloc() {{.*}} : memref<1x8x64x2x8xf32>
// BUF: memref.alloc() {{.*}} : memref<1x2x64x2x32xf32>
// BUF-NOT: memref.alloc
// BUF: return

// With overrides: a 4 x 16 tile (4 accumulators), k not unrolled, kc = 32:
// 4 kc blocks. The first, peeled off the kc loop, starts its accumulators
// from zero (C is a fill); the kc loop over the other 3 carries C and the
// block buffers; each block packs a 32 x 64 block of B and a 64 x 32 block
// of A into them, then runs the k loop of 32 steps.
// OVERRIDE-LABEL: func.func @matmul(
// OVERRIDE: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x16xf32>
// OVERRIDE: %[[AB:.*]] = tensor.empty() : tensor<1x16x32x1x4xf32>
// OVERRIDE: %[[BB:.*]] = tensor.empty() : tensor<1x4x32x1x16xf32>
// OVERRIDE: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %[[ZERO]]) -> (vector<4x16xf32>)
// OVERRIDE: scf.for %{{.*}} = %c1 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// OVERRIDE: vector.transfer_read %{{.*}} : tensor<4x16xf32>, vector<4x16xf32>
// OVERRIDE: tensor.insert_slice %{{.*}} : tensor<1x4x1x16xf32> into tensor<4x32x1x16xf32>
// OVERRIDE: vector.transpose
// OVERRIDE: tensor.insert_slice %{{.*}} : tensor<1x16x1x4xf32> into tensor<16x32x1x4xf32>
// OVERRIDE: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<4x16xf32>)
// OVERRIDE-COUNT-4: vector.fma %{{.*}} : vector<16xf32>
// OVERRIDE-NOT: vector.fma
// OVERRIDE: scf.yield %{{.*}} : vector<4x16xf32>
// OVERRIDE: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0, 0] [1, 16, 32, 1, 4] [1, 1, 1, 1, 1] : tensor<16x32x1x4xf32> into tensor<1x16x32x1x4xf32>
// OVERRIDE: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0, 0] [1, 4, 32, 1, 16] [1, 1, 1, 1, 1] : tensor<4x32x1x16xf32> into tensor<1x4x32x1x16xf32>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @matmul(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>) -> tensor<64x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    // expected-remark @below {{matmul M=64 N=64 K=128: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
}

// -----

// Enough work for both cores (M*N*K / cores >= 2^20): the mc loop is an
// scf.forall of 2 blocks of 256 rows (mc evened out from 512), inside the
// kc loop (2 blocks of 256). The B block (256 x 64: 64 KiB, a sixteenth of
// L2) is packed over the cores in the kc loop, an scf.forall over its 2
// micro-panels before the forall of A blocks, into the B buffer; each
// forall iteration of the latter packs its A block into its own slot of the
// A buffer [2][32][128][2][8] and keeps it in its core's L2.

// The model's choices: with 2 B micro-panels (N = 64) A is read in place,
// k not unrolled; with 8 register tiles of M (M = 64) B is too. A wider
// tile (4 vectors per row) would have 4 rows (the largest dividing M of at
// most (32 - 4) / 4 = 7 that keeps A's tiles whole): 16 FMAs per B row,
// no more than 8 x 32 gives, so the tile stays.
// REMARK: matmul M=64 N=64 K=128: register tile 8x32: {{.*}}; A read in place (not packed: only 2 B micro-panels sweep it); k unrolled by 1; B read in place (not packed: only 8 register tiles of M sweep it); kc 128: {{.*}}; not parallel (too little work); C's fill folded into the first kc block (its register tiles start from the fill value)
// REMARK-NOT: packing
// REMARK: matmul M=512 N=64 K=512: {{.*}}; A read in place {{.*}}; parallel: the mc loop (2 blocks of 256 rows for 2 cores; {{.*}}; packing per block: B 256x64 per (nc, kc) (over the cores){{$}}
// REMARK-NOT: A 256x256
// M = 4: 4 rows (not 8 with 4 thrown away), and B read in place: 4
// vectors per row (at most (32 - 2 x 4) / 4 = 6 rows with k unrolled by 2),
// so kc 128 keeps the 4 x 64 micro-panel's rows in L1.
// REMARK: matmul M=4 N=1024 K=512: register tile 4x32: {{.*}}; k unrolled by 2; B read in place (not packed: only 1 register tiles of M sweep it); so 4 vectors per row, register tile 4x64 (16 accumulators: each k step's strided B row feeds 16 FMAs); kc 128: {{.*}}; parallel: the nc loop (2 blocks of 512 columns for 2 cores; M has too few rows); packing per block: A 4x128 per mc block (by each core for its nc blocks)
// M = 64: 8 register tiles of 8 rows, so B is read in place, 6 x 64 tiles
// (11, the last padded by 2 rows: less than M / 16), split over the cores
// by columns (11 tiles of M would split 6 / 5).
// REMARK: matmul M=64 N=1024 K=300: {{.*}}; B read in place (not packed: only 8 register tiles of M sweep it); so 4 vectors per row, register tile 6x64 (24 accumulators: {{.*}}); kc 128: {{.*}}; mc 66: {{.*}}; parallel: the nc loop (2 blocks of 512 columns for 2 cores; it splits more evenly); packing per block: A 66x128 per mc block (by each core for its nc blocks)
// NONE-LABEL: func.func @parallel_m(
// NONE-NOT: scf.forall
// NONE: vector.fma
// NONE-NOT: scf.forall
// CHECK-LABEL: func.func @parallel_m(
// CHECK: %[[AB:.*]] = tensor.empty() : tensor<2x32x128x2x8xf32>
// CHECK: %[[BB:.*]] = tensor.empty() : tensor<1x2x128x2x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[AB]], %{{.*}} = %[[BB]])
// CHECK: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}}) -> (tensor<2x128x2x32xf32>)
// CHECK: vector.shape_cast
// CHECK: tensor.parallel_insert_slice %{{.*}} [1, 128, 2, 32] [1, 1, 1, 1] : tensor<1x128x2x32xf32> into tensor<2x128x2x32xf32>
// CHECK: scf.forall (%[[I:[a-z0-9_]+]]) in (2) shared_outs(%{{.*}} = %{{.*}}, %[[AS:[a-z0-9_]+]] = %{{.*}}) -> (tensor<512x64xf32>, tensor<2x32x128x2x8xf32>)
// CHECK: tensor.extract_slice %[[AS]][%[[I]], 0, 0, 0, 0] [1, 32, 128, 2, 8] [1, 1, 1, 1, 1] : tensor<2x32x128x2x8xf32> to tensor<32x128x2x8xf32>
// CHECK: vector.transpose
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-16: vector.fma
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.*}} [256, 64] [1, 1] : tensor<256x64xf32> into tensor<512x64xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[AS]][%[[I]], 0, 0, 0, 0] [1, 32, 128, 2, 8]
// CHECK: tensor.insert_slice %{{.*}} [1, 2, 128, 2, 32] [1, 1, 1, 1, 1] : tensor<2x128x2x32xf32> into tensor<1x2x128x2x32xf32>

// Bufferized: the block buffers are allocated once, before the loops.
// BUF-LABEL: func.func @parallel_m(
// BUF: memref.alloc() {{.*}} : memref<2x32x128x2x8xf32>
// BUF: memref.alloc() {{.*}} : memref<1x2x128x2x32xf32>
// BUF: scf.for
// BUF: scf.forall
// BUF-NOT: memref.alloc
// BUF: return
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @parallel_m(%a: tensor<512x512xf32>, %b: tensor<512x64xf32>, %c: tensor<512x64xf32>) -> tensor<512x64xf32> {
    // expected-remark @below {{matmul M=512 N=64 K=512: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x64xf32>) outs(%c : tensor<512x64xf32>) -> tensor<512x64xf32>
    return %r : tensor<512x64xf32>
  }
}

// -----

// One register tile of rows (4 x 32: M = 4 needs no padding to 8 rows):
// the nc loop (outermost) is the parallel one, 2 blocks of 512 columns,
// with the kc loop inside. Each of its iterations creates its own block
// buffers (outside its kc loop) and packs its B block (256 x 512) and the A
// block into them.

// CHECK-LABEL: func.func @parallel_n(
// CHECK: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<4x1024xf32>)
// CHECK: tensor.empty() : tensor<1x1x128x2x4xf32>
// CHECK: tensor.empty() : tensor<1x16x128x2x32xf32>
// CHECK-NOT: scf.forall
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (tensor<4x512xf32>, tensor<1x1x128x2x4xf32>, tensor<1x16x128x2x32xf32>)
// CHECK-COUNT-8: vector.fma
// CHECK-NOT: vector.fma
// CHECK: tensor.parallel_insert_slice %{{.*}} [4, 512] [1, 1] : tensor<4x512xf32> into tensor<4x1024xf32>

// Bufferized: one allocation per buffer in each parallel iteration, none in
// the kc and mc loops.
// BUF-LABEL: func.func @parallel_n(
// BUF: scf.forall
// BUF: memref.alloc() {{.*}} : memref<1x1x128x2x4xf32>
// BUF: memref.alloc() {{.*}} : memref<1x16x128x2x32xf32>
// BUF: scf.for
// BUF-NOT: memref.alloc
// BUF: return

// With parallel=none the same matmul has no parallel loop.
// NONE-LABEL: func.func @parallel_n(
// NONE-NOT: scf.forall
// NONE: vector.fma
// NONE-NOT: scf.forall
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @parallel_n(%a: tensor<4x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<4x1024xf32>) -> tensor<4x1024xf32> {
    // expected-remark @below {{matmul M=4 N=1024 K=512: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<4x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<4x1024xf32>) -> tensor<4x1024xf32>
    return %r : tensor<4x1024xf32>
  }
}

// -----

// A B block of at least L2 (256 x 1024 here) with the mc loop parallel: it
// is packed over the cores, an scf.forall over its 32 micro-panels that
// completes before the forall of A blocks reads it. K = 300 leaves a second
// kc block of 44 rows (dynamic sizes, masked reads padding K to kr).

// CHECK-LABEL: func.func @parallel_pack_b(
// CHECK: %[[AB:.*]] = tensor.empty() : tensor<2x4x128x2x8xf32>
// CHECK: %[[BB:.*]] = tensor.empty() : tensor<1x32x128x2x32xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[AB]], %{{.*}} = %[[BB]])
// CHECK: tensor.extract_slice %{{.*}} : tensor<300x1024xf32> to tensor<?x1024xf32>
// CHECK: scf.forall (%{{.*}}) in (32) shared_outs(%{{.*}}) -> (tensor<32x?x2x32xf32>)
// CHECK: vector.create_mask
// CHECK: tensor.parallel_insert_slice %{{.*}} : tensor<1x?x2x32xf32> into tensor<32x?x2x32xf32>
// CHECK: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}}, %{{.*}}) -> (tensor<64x1024xf32>, tensor<2x4x128x2x8xf32>)
// CHECK: tensor.extract_slice %{{.*}} : tensor<64x300xf32> to tensor<32x?xf32>
// CHECK: vector.transpose
// CHECK-COUNT-16: vector.fma
// CHECK: tensor.parallel_insert_slice %{{.*}} [32, 1024] [1, 1] : tensor<32x1024xf32> into tensor<64x1024xf32>
// CHECK: tensor.insert_slice %{{.*}} : tensor<32x?x2x32xf32> into tensor<1x32x128x2x32xf32>

// BUF-LABEL: func.func @parallel_pack_b(
// BUF: memref.alloc() {{.*}} : memref<2x4x128x2x8xf32>
// BUF: memref.alloc() {{.*}} : memref<1x32x128x2x32xf32>
// BUF: scf.for
// BUF-NOT: memref.alloc
// BUF: return
// NONE-LABEL: func.func @parallel_pack_b(
// NONE-NOT: scf.forall
// NONE: vector.fma
// NONE-NOT: scf.forall
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @parallel_pack_b(%a: tensor<64x300xf32>, %b: tensor<300x1024xf32>, %c: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
    // expected-remark @below {{matmul M=64 N=1024 K=300: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<64x300xf32>, tensor<300x1024xf32>) outs(%c : tensor<64x1024xf32>) -> tensor<64x1024xf32>
    return %r : tensor<64x1024xf32>
  }
}

// -----

// Sizes that are not multiples of the tiles: C (here an argument,
// accumulated into) is padded to whole 8 x 32 tiles and the result sliced
// back; the blocks of A and B are packed with zero padding (masked reads of
// dynamic-size slices, masked writes of the partial panels).

// CHECK-LABEL: func.func @odd(
// CHECK-SAME: %[[C:[^:]*]]: tensor<37x29xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[PC:.*]] = tensor.pad %[[C]] low[0, 0] high[3, 3]
// CHECK: tensor<37x29xf32> to tensor<40x32xf32>
// CHECK: tensor.empty() : tensor<1x5x27x2x8xf32>
// CHECK: tensor.empty() : tensor<1x1x27x2x32xf32>
// CHECK: vector.create_mask
// CHECK: vector.transfer_read {{.*}}, %{{.*}}, %{{.*}} {in_bounds = [true, true]} : tensor<?x29xf32>, vector<8x32xf32>
// CHECK: vector.transfer_read {{.*}}, %{{.*}}, %{{.*}} {in_bounds = [true, true]} : tensor<?x?xf32>, vector<8x32xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[PC]]) -> (tensor<40x32xf32>)
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-16: vector.fma
// CHECK: %[[R:.*]] = tensor.extract_slice %{{.*}}[0, 0] [37, 29] [1, 1] : tensor<40x32xf32> to tensor<37x29xf32>
// CHECK: return %[[R]]
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @odd(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>, %c: tensor<37x29xf32>) -> tensor<37x29xf32> {
    // expected-remark @below {{matmul M=37 N=29 K=53: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<37x53xf32>, tensor<53x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
    return %r : tensor<37x29xf32>
  }
}

// -----

// C as a fill of another value, seen through a collapse_shape (as a
// convolution's output reaches the kernel), with sizes that are not
// multiples of the tiles: the padded C is a fresh tensor (the first kc
// block writes all of it) and the accumulators start from a splat of 1.5.
// A fill that something else reads as well stays, and the kernel loads C.

// CHECK-LABEL: func.func @filled_odd(
// CHECK-DAG: %[[SPLAT:.*]] = arith.constant dense<1.500000e+00> : vector<8x32xf32>
// CHECK-NOT: linalg.fill
// CHECK-NOT: tensor.pad
// CHECK: %[[PC:.*]] = tensor.empty() : tensor<40x32xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[PC]]) -> (tensor<40x32xf32>)
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[SPLAT]]) -> (vector<8x32xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [37, 29] [1, 1] : tensor<40x32xf32> to tensor<37x29xf32>
// CHECK-LABEL: func.func @shared_fill(
// CHECK: %[[C:.*]] = linalg.fill
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[C]]) -> (tensor<64x64xf32>)
// CHECK: %[[ACC0:.*]] = vector.transfer_read
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[ACC0]]) -> (vector<8x32xf32>)
// CHECK: return %{{.*}}, %[[C]]
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @filled_odd(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>) -> tensor<37x29xf32> {
    %v = arith.constant 1.5 : f32
    %e = tensor.empty() : tensor<1x37x29xf32>
    %f = linalg.fill ins(%v : f32) outs(%e : tensor<1x37x29xf32>) -> tensor<1x37x29xf32>
    %c = tensor.collapse_shape %f [[0, 1], [2]] : tensor<1x37x29xf32> into tensor<37x29xf32>
    // expected-remark @below {{matmul M=37 N=29 K=53: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<37x53xf32>, tensor<53x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
    return %r : tensor<37x29xf32>
  }
  func.func @shared_fill(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    // expected-remark @below {{matmul M=64 N=64 K=128: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %r, %c : tensor<64x64xf32>, tensor<64x64xf32>
  }
}

// -----

// What the recipe does not handle is left alone, with a remark saying why.

// CHECK-LABEL: func.func @unsupported(
// CHECK-COUNT-4: linalg.matmul
// CHECK-NOT: vector.
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @unsupported(%a: tensor<8x8xf64>, %c: tensor<8x8xf64>,
                         %d: tensor<?x8xf32>, %e: tensor<8x8xf32>, %f: tensor<?x8xf32>,
                         %m: memref<8x8xf32>, %n: memref<8x8xf32>)
      -> (tensor<8x8xf64>, tensor<?x8xf32>, tensor<8x8xf32>) {
    // expected-remark @below {{not vectorized: its element type is not f32}}
    %0 = linalg.matmul ins(%a, %a : tensor<8x8xf64>, tensor<8x8xf64>) outs(%c : tensor<8x8xf64>) -> tensor<8x8xf64>
    // expected-remark @below {{not vectorized: its shapes are not static}}
    %1 = linalg.matmul ins(%d, %e : tensor<?x8xf32>, tensor<8x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
    // expected-remark @below {{not vectorized: it has user-defined indexing maps}}
    %2 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
        ins(%e, %e : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    // expected-remark @below {{not vectorized: it does not operate on tensors}}
    linalg.matmul ins(%m, %m : memref<8x8xf32>, memref<8x8xf32>) outs(%n : memref<8x8xf32>)
    return %0, %1, %2 : tensor<8x8xf64>, tensor<?x8xf32>, tensor<8x8xf32>
  }
}

// -----

// Without a CPU target there is no model to size the tiles.

// CHECK-LABEL: func.func @no_target(
// CHECK: linalg.matmul
func.func @no_target(%a: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{not vectorized: no #tessel.target of kind cpu}}
  %0 = linalg.matmul ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// x @ W^T as frontends emit it (nn.Linear, tf.matmul(transpose_b=True)):
// each transposed operand is packed straight from the transpose's source,
// the pack reordering as it copies, and the full-size transposes are gone.
// B^T [64 x 128] is read in 32 x 8 pieces (32 columns of B, 8 of k) and
// transposed in registers into [kr][nr] panels; A^T [128 x 64] pieces are
// already k-major, so its [kr][mr] panels need no register transpose.

// CHECK-LABEL: func.func @transposed_operands(
// CHECK-SAME: %[[AT:[^:]*]]: tensor<128x64xf32>, %[[BT:[^:]*]]: tensor<64x128xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.matmul
// CHECK: tensor.extract_slice %[[BT]][{{.*}}] [32, 8] [1, 1] : tensor<64x128xf32> to tensor<32x8xf32>
// CHECK: vector.transpose %{{.*}}, [0, 2, 3, 1] : vector<1x32x4x2xf32> to vector<1x4x2x32xf32>
// CHECK: tensor.extract_slice %[[AT]][{{.*}}] [32, 8] [1, 1] : tensor<128x64xf32> to tensor<32x8xf32>
// CHECK-NOT: vector.transpose
// CHECK: vector.shape_cast %{{.*}} : vector<32x8xf32> to vector<16x2x8xf32>
// CHECK-NOT: vector.transpose
// CHECK-COUNT-16: vector.fma %{{.*}} : vector<32xf32>
// CHECK-NOT: linalg.transpose
// REMARK: matmul M=64 N=64 K=128: {{.*}}; A packed from its transpose's source; B packed from its transpose's source
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @transposed_operands(%at: tensor<128x64xf32>, %bt: tensor<64x128xf32>) -> tensor<64x64xf32> {
    %zero = arith.constant 0.0 : f32
    %ea = tensor.empty() : tensor<64x128xf32>
    %a = linalg.transpose ins(%at : tensor<128x64xf32>) outs(%ea : tensor<64x128xf32>) permutation = [1, 0]
    %eb = tensor.empty() : tensor<128x64xf32>
    %b = linalg.transpose ins(%bt : tensor<64x128xf32>) outs(%eb : tensor<128x64xf32>) permutation = [1, 0]
    %e = tensor.empty() : tensor<64x64xf32>
    %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    // expected-remark @below {{matmul M=64 N=64 K=128: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
}

// -----

// One transpose feeding both operands (x^T @ x^T): packed from x twice,
// erased once.

// CHECK-LABEL: func.func @same_transpose_twice(
// CHECK-NOT: linalg.transpose
// CHECK: vector.fma
// REMARK: matmul M=64 N=64 K=64: {{.*}}; A packed from its transpose's source; B packed from its transpose's source
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @same_transpose_twice(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %zero = arith.constant 0.0 : f32
    %et = tensor.empty() : tensor<64x64xf32>
    %t = linalg.transpose ins(%x : tensor<64x64xf32>) outs(%et : tensor<64x64xf32>) permutation = [1, 0]
    %e = tensor.empty() : tensor<64x64xf32>
    %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    // expected-remark @below {{matmul M=64 N=64 K=64: register tile}}
    %r = linalg.matmul ins(%t, %t : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
}

// -----

// A convolution's patches (as tessel-convert-conv-to-matmul leaves them: an
// untiled im2col copy of the padded input, stride 2) read through the input
// instead (implicit GEMM): a register tile is 8 pixels of one output row
// (mr divides OW = 8), a kc block is one tap's 32 channels (kc lowered from
// 256 to divide C), and an mc block is the 8 output rows of one image. The
// A block is the strided slice [img, 2*oh0 + kh, kw, c0] [1, 8, 8, 32]
// [1, 2, 2, 1] of the input, viewed as [rows][tiles][mr][kc][1]: the copy
// is gone. With A packed (pack-a=always), the copy stays, tiled over the
// (n, oh) rows and vectorized, and A is packed from it.
// REMARK: matmul M=128 N=64 K=288: register tile 8x32: {{.*}}; A read through the convolution's input (implicit GEMM, not packed: only 2 B micro-panels sweep it; register tiles within one output row of 8 pixels); k unrolled by 1; kc 256: {{.*}}, lowered to 32 to divide a tap's 32 channels; {{.*}}; mc blocks of 8 output rows (64 pixels)
// INPLACE-LABEL: func.func @conv_patches(
// INPLACE-SAME: %[[X:[^:]+]]: tensor<2x17x17x32xf32>
// INPLACE-NOT: tensor<2x8x8x3x3x32xf32>
// INPLACE: scf.forall (%[[BLK:.*]]) in (2) shared_outs(%{{.*}}) -> (tensor<128x64xf32>)
// INPLACE: tensor.extract_slice %[[X]][%[[BLK]], %{{.*}}, %{{.*}}, 0] [1, 8, 8, 32] [1, 2, 2, 1] : tensor<2x17x17x32xf32> to tensor<8x8x32xf32>
// INPLACE: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3, 4]] output_shape [8, 1, 8, 32, 1] : tensor<8x8x32xf32> into tensor<8x1x8x32x1xf32>
// INPLACE: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}}) -> (vector<8x32xf32>)
// INPLACE-COUNT-8: vector.fma %{{.*}} : vector<32xf32>
// INPLACE-NOT: vector.fma
// INPLACE-NOT: tensor<2x8x8x3x3x32xf32>
// CHECK-LABEL: func.func @conv_patches(
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 8) shared_outs(%{{.*}}) -> (tensor<2x8x8x3x3x32xf32>)
// CHECK: vector.transfer_read %{{.*}} : tensor<1x1x1x32xf32>, vector<32xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<2x8x8x3x3x32xf32> into tensor<128x288xf32>
// CHECK: vector.fma
// (parallel=none is about the matmul's loops: the copy stays over the rows.)
// NONE-LABEL: func.func @conv_patches(
// NONE: scf.forall (%{{.*}}, %{{.*}}) in (2, 8)
// IMPLICIT-BUF-LABEL: func.func @conv_patches(
// IMPLICIT-BUF-NOT: memref.alloc() {{.*}} : memref<2x8x8x3x3x32xf32>
// IMPLICIT-BUF: memref.subview %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, 0] [1, 8, 8, 32] [1, 2, 2, 1] : memref<2x17x17x32xf32{{.*}}> to memref<8x8x32xf32, strided<
// IMPLICIT-BUF-NOT: memref<2x8x8x3x3x32xf32>
// IMPLICIT-BUF: vector.fma
#im2col = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
#identity6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @conv_patches(%x: tensor<2x17x17x32xf32>, %w: tensor<288x64xf32>, %c: tensor<128x64xf32>) -> tensor<128x64xf32> {
    %e = tensor.empty() : tensor<2x8x8x3x3x32xf32>
    %p = linalg.generic {indexing_maps = [#im2col, #identity6],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
        ins(%x : tensor<2x17x17x32xf32>) outs(%e : tensor<2x8x8x3x3x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x8x8x3x3x32xf32>
    %a = tensor.collapse_shape %p [[0, 1, 2], [3, 4, 5]] : tensor<2x8x8x3x3x32xf32> into tensor<128x288xf32>
    // expected-remark @below {{matmul M=128 N=64 K=288: register tile}}
    %r = linalg.matmul ins(%a, %w : tensor<128x288xf32>, tensor<288x64xf32>) outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
    return %r : tensor<128x64xf32>
  }
}

// -----

// Read in place. N = 64 gives each A block only 2 B micro-panels to serve:
// no A buffer; the kernel reads A's 98 x 256 block through an
// [14][7][256][1] view (mr = 7 divides M = 196; k not unrolled, so each A
// element is one load broadcast to the 32 lanes). B (28 register tiles of
// M) is still packed.
// REMARK: matmul M=196 N=64 K=512: register tile 7x32: {{.*}}; A read in place (not packed: only 2 B micro-panels sweep it); k unrolled by 1; {{.*}}; packing per block: B 256x64 per (nc, kc) (over the cores)
// REMARK: matmul M=49 N=512 K=512: register tile 7x32: {{.*}}; k unrolled by 2; B read in place (not packed: only 7 register tiles of M sweep it); so 4 vectors per row, register tile 5x64 (20 accumulators: {{.*}}); kc 128: {{.*}}; mc 50: {{.*}}; parallel: the mc loop (2 blocks of 25 rows for 2 cores; {{.*}}); packing per block: A 25x128 per mc block (by its core)
// INPLACE-LABEL: func.func @a_in_place(
// INPLACE-NOT: tensor<{{.*}}x1x7xf32>
// INPLACE: tensor.empty() : tensor<1x2x256x1x32xf32>
// INPLACE: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}}) -> (tensor<196x64xf32>)
// INPLACE: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [14, 7, 256, 1] : tensor<98x256xf32> into tensor<14x7x256x1xf32>
// INPLACE: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}}) -> (vector<7x32xf32>)
// INPLACE: vector.transfer_read %{{.*}} : tensor<1x32xf32>, vector<32xf32>
// INPLACE: tensor.extract %{{.*}}[%c0, %c0] : tensor<7x1xf32>
// INPLACE-COUNT-7: vector.fma %{{.*}} : vector<32xf32>
// INPLACE-NOT: vector.fma

// 49 rows: 7 x 32 register tiles (8 would compute 7 rows for nothing), 7 of
// them per B micro-panel, so B is read in place; each k step's B row then
// feeds 4 vectors per row: 5 x 64 tiles (at most (32 - 2 x 4) / 4 = 6 rows
// with k unrolled by 2; 5 pads 49 to 50, 6 to 54), kc 128 (a 128 x 64
// micro-panel in the 32 KiB L1), B read through a [64][2][8][64] view of
// each 128 x 512 block; A is packed (the narrow tile's decision: 16 B
// micro-panels of 32 columns sweep it). The mc loop
// is the parallel one: 10 tiles split 5 / 5.
// INPLACE-LABEL: func.func @b_in_place(
// INPLACE: tensor.empty() : tensor<2x5x64x2x5xf32>
// INPLACE-NOT: tensor.empty
// INPLACE: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [64, 2, 8, 64] : tensor<128x512xf32> into tensor<64x2x8x64xf32>
// INPLACE: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}}, %{{.*}}) -> (tensor<50x512xf32>, tensor<2x5x64x2x5xf32>)
// INPLACE: vector.transpose
// INPLACE: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}}) -> (vector<5x64xf32>)
// INPLACE: vector.transfer_read %{{.*}} : tensor<2x64xf32>, vector<2x64xf32>
// INPLACE: tensor.extract %{{.*}}[%c0, %c0] : tensor<2x5xf32>
// INPLACE-COUNT-10: vector.fma %{{.*}} : vector<64xf32>
// INPLACE-NOT: vector.fma
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @a_in_place(%a: tensor<196x512xf32>, %b: tensor<512x64xf32>, %c: tensor<196x64xf32>) -> tensor<196x64xf32> {
    // expected-remark @below {{matmul M=196 N=64 K=512: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<196x512xf32>, tensor<512x64xf32>) outs(%c : tensor<196x64xf32>) -> tensor<196x64xf32>
    return %r : tensor<196x64xf32>
  }
  func.func @b_in_place(%a: tensor<49x512xf32>, %b: tensor<512x512xf32>, %c: tensor<49x512xf32>) -> tensor<49x512xf32> {
    // expected-remark @below {{matmul M=49 N=512 K=512: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<49x512xf32>, tensor<512x512xf32>) outs(%c : tensor<49x512xf32>) -> tensor<49x512xf32>
    return %r : tensor<49x512xf32>
  }
}

// -----

// A 3x3 convolution's patches with zero padding (the attribute
// tessel-convert-conv-to-matmul records: a 7x7 output, 256 channels, the
// input at rows and columns [1, 8)). A kc block of 256 is one tap; output
// row 0 reads only padding for filter row 0 (blocks 0-2), row 6 for filter
// row 2 (blocks 6-8); pixel 0 of a row for filter column 0, pixel 6 for
// filter column 2. The blocks start at block 4 (tap (1, 1): k 1024),
// which every tile computes from C's fill; in the later blocks (block
// (b + 4) mod 9: filter row that / 3, column that mod 3) each register
// tile (one output row: 7 pixels) runs its k loop on all 7 pixels when its
// row and every pixel read the input there, on pixels 1-6 or 0-5 (6-row
// products inserted into the tile) when the first or last reads only
// padding, and not at all when the row does.
// The model's own choice: B read in place (7 register tiles of M), so 7 x
// 64 tiles (A read in place: k not unrolled, (32 - 4) / 4 = 7 rows, one
// output row each) and kc 128, two blocks per tap; with nr=32 (PADSKIP)
// 7 x 32 and kc 256 as described above.
// REMARK: matmul M=49 N=64 K=2304: register tile 7x32: {{.*}}; B read in place {{.*}}; so 4 vectors per row, register tile 7x64 {{.*}}; kc 128: {{.*}}; register tiles skip the kc blocks of filter rows their output row reads only as zero padding (2 of 21 (output row, filter row) pairs) and leave out their pixels whose filter column reads only padding (2 of 21 (output column, filter column) pairs, 2 partial tile(s)), kc blocks from block 9
// PADSKIP-DAG: #[[BLOCK:.*]] = affine_map<(d0) -> (d0 * 256 - ((d0 + 4) floordiv 9) * 2304 + 1024)>
// PADSKIP-DAG: #[[INROW:.*]] = affine_map<(d0, d1) -> (d0 mod 7 + (d1 - ((d1 + 4) floordiv 9) * 9 + 4) floordiv 3 - 1)>
// PADSKIP-DAG: #[[LO:.*]] = affine_map<(d0) -> (0, -d0 + ((d0 + 4) floordiv 9) * 9 + ((d0 - ((d0 + 4) floordiv 9) * 9 + 4) floordiv 3) * 3 - 3)>
// PADSKIP-DAG: #[[HI:.*]] = affine_map<(d0) -> (7, -d0 + ((d0 + 4) floordiv 9) * 9 + ((d0 - ((d0 + 4) floordiv 9) * 9 + 4) floordiv 3) * 3 + 4)>
// INPLACE-LABEL: func.func @padded_patches(
// PADSKIP-LABEL: func.func @padded_patches(
// PADSKIP-SAME: %[[A:[^:]+]]: tensor<49x2304xf32>, %[[B:[^:]+]]: tensor<2304x64xf32>
// PADSKIP: tensor.extract_slice %[[B]][1024, %{{.*}}] [256, 32]
// PADSKIP: %[[FIRST:.*]] = scf.for %{{.*}} = %c0 to %c7
// PADSKIP-NOT: scf.if
// PADSKIP: scf.for %[[KB:[^ ]+]] = %c1 to %c9 step %c1 iter_args(%{{.*}} = %[[FIRST]])
// PADSKIP: %[[K0:.*]] = affine.apply #[[BLOCK]](%[[KB]])
// PADSKIP: tensor.extract_slice %[[B]][%[[K0]], %{{.*}}] [256, 32]
// PADSKIP: scf.for %[[TILE:[^ ]+]] = %c0 to %c7 step %c1
// PADSKIP: %[[CT:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [7, 32] [1, 1] : tensor<49x32xf32> to tensor<7x32xf32>
// PADSKIP: %[[IH:.*]] = affine.apply #[[INROW]](%[[TILE]], %[[KB]])
// PADSKIP: %[[GE:.*]] = arith.cmpi sge, %[[IH]], %c0
// PADSKIP: %[[LT:.*]] = arith.cmpi slt, %[[IH]], %c7
// PADSKIP: %[[ROW:.*]] = arith.andi %[[GE]], %[[LT]]
// PADSKIP: %[[FROM:.*]] = affine.max #[[LO]](%[[KB]])
// PADSKIP: %[[TO:.*]] = affine.min #[[HI]](%[[KB]])
// PADSKIP: %[[FROM0:.*]] = arith.cmpi eq, %[[FROM]], %c0
// PADSKIP: %[[TO7:.*]] = arith.cmpi eq, %[[TO]], %c7
// PADSKIP: %[[ALL:.*]] = arith.andi %[[FROM0]], %[[TO7]]
// PADSKIP: %[[FULL:.*]] = arith.andi %[[ROW]], %[[ALL]]
// PADSKIP: scf.if %[[FULL]] -> (tensor<7x32xf32>) {
// PADSKIP: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}}) -> (vector<7x32xf32>)
// PADSKIP-COUNT-7: vector.fma
// PADSKIP: } else {
// PADSKIP: scf.if %{{.*}} -> (tensor<7x32xf32>) {
// PADSKIP: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}}) -> (vector<6x32xf32>)
// PADSKIP-COUNT-6: vector.fma
// PADSKIP-NOT: vector.fma
// PADSKIP: tensor.insert_slice %{{.*}} into %[[CT]][1, 0] [6, 32] [1, 1]
// PADSKIP: } else {
// PADSKIP: scf.if %{{.*}} -> (tensor<7x32xf32>) {
// PADSKIP: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args(%{{.*}}) -> (vector<6x32xf32>)
// PADSKIP-COUNT-6: vector.fma
// PADSKIP-NOT: vector.fma
// PADSKIP: tensor.insert_slice %{{.*}} into %[[CT]][0, 0] [6, 32] [1, 1]
// PADSKIP: } else {
// PADSKIP-NEXT: scf.yield %[[CT]] : tensor<7x32xf32>
// Eight such images: M = 392 is whole tiles of 8 rows, but those would
// straddle output rows; the model takes mr = 7 so that tiles may skip.
// REMARK: matmul M=392 N=64 K=2304: register tile 7x32: 14 accumulators {{.*}} (mr divides the 7-pixel output row, so register tiles may skip zero padding);
// With skip-padding=false, the blocks run in order, every tile computes
// every block, and the batch keeps mr = 8.
// NOSKIP: remark: matmul M=392 N=64 K=2304: register tile 8x32: 16 accumulators
// NOSKIP-NOT: register tiles skip
// NOSKIP-LABEL: func.func @padded_patches(
// NOSKIP: tensor.extract_slice %{{.*}}[0, %{{.*}}] [256, 32]
// NOSKIP-NOT: scf.if
// NOSKIP: return
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @padded_patches(%a: tensor<49x2304xf32>, %b: tensor<2304x64xf32>) -> tensor<49x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<49x64xf32>
    %c = linalg.fill ins(%zero : f32) outs(%e : tensor<49x64xf32>) -> tensor<49x64xf32>
    // expected-remark @below {{matmul M=49 N=64 K=2304: register tile}}
    %r = linalg.matmul {tessel.zero_padded_patches = array<i64: 7, 7, 3, 3, 256, 1, 1, 1, 1, 1, 1, 7, 7>}
        ins(%a, %b : tensor<49x2304xf32>, tensor<2304x64xf32>) outs(%c : tensor<49x64xf32>) -> tensor<49x64xf32>
    return %r : tensor<49x64xf32>
  }
  func.func @padded_patches_batch(%a: tensor<392x2304xf32>, %b: tensor<2304x64xf32>, %c: tensor<392x64xf32>) -> tensor<392x64xf32> {
    // expected-remark @below {{matmul M=392 N=64 K=2304: register tile}}
    %r = linalg.matmul {tessel.zero_padded_patches = array<i64: 7, 7, 3, 3, 256, 1, 1, 1, 1, 1, 1, 7, 7>}
        ins(%a, %b : tensor<392x2304xf32>, tensor<2304x64xf32>) outs(%c : tensor<392x64xf32>) -> tensor<392x64xf32>
    return %r : tensor<392x64xf32>
  }
}

// -----

// Epilogues. The bias add and the GELU after the product (two generics, as
// the frontends emit them) are fused into one op and applied to each 8 x 32
// register tile after its k loop: the accumulators get the bias (a 32-wide
// slice at the tile's column) and the GELU in registers and are stored
// once; no generic and no second pass over C remain. With
// fuse-epilogue=false both generics stay.
// REMARK: matmul M=64 N=96 K=128: {{.*}}; epilogue of 6 elementwise op(s) on 2 input(s) applied to each register tile of the last kc block before it is stored
// INPLACE-LABEL: func.func @bias_gelu(
// EPI-LABEL: func.func @bias_gelu(
// EPI-SAME: %[[BIAS:[^:]*]]: tensor<96xf32>)
// EPI-NOT: linalg.generic
// EPI: %[[ACC:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// EPI: tensor.extract_slice %[[BIAS]][%{{.*}}] [32] [1] : tensor<96xf32> to tensor<32xf32>
// EPI: vector.broadcast %{{.*}} : vector<32xf32> to vector<8x32xf32>
// EPI: arith.addf %[[ACC]], %{{.*}} : vector<8x32xf32>
// EPI: math.erf %{{.*}} : vector<8x32xf32>
// EPI: vector.transfer_write %{{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// EPI-NOT: linalg.generic
// EPI: return
// NOEPI-LABEL: func.func @bias_gelu(
// NOEPI-COUNT-2: linalg.generic

// Sizes that are not multiples of the tile: the residual (per element) and
// the per-row scale are padded like C (to 40 x 32 and 40) and read as
// 8 x 32 and 8-element slices at the tile's position.
// EPI-LABEL: func.func @odd_residual(
// EPI-SAME: %[[RES:[^:]*]]: tensor<37x29xf32>, %[[SCALE:[^:]*]]: tensor<37xf32>)
// EPI-DAG: tensor.pad %[[RES]] low[0, 0] high[3, 3]
// EPI-DAG: tensor.pad %[[SCALE]] low[0] high[3]
// EPI: scf.for {{.*}} -> (vector<8x32xf32>)
// EPI: tensor.extract_slice %{{.*}} [8, 32] [1, 1] : tensor<40x32xf32> to tensor<8x32xf32>
// EPI: tensor.extract_slice %{{.*}} [8] [1] : tensor<40xf32> to tensor<8xf32>
// EPI: arith.mulf {{.*}} : vector<8x32xf32>
// EPI: arith.addf {{.*}} : vector<8x32xf32>
// EPI-NOT: linalg.generic
// EPI: tensor.extract_slice %{{.*}}[0, 0] [37, 29] [1, 1] : tensor<40x32xf32> to tensor<37x29xf32>

// A convolution's product reaches its epilogue through the NHWC view: the
// generic over (n, h, w, f) is collapsed to the product's (m, f) loops, the
// bias follows f, and the view moves to the fused result.
// EPI-LABEL: func.func @conv_view(
// EPI-NOT: linalg.generic
// EPI: scf.for {{.*}} -> (vector<8x32xf32>)
// EPI: arith.maximumf %{{.*}} : vector<8x32xf32>
// EPI: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2], [3]] output_shape [2, 4, 4, 64] : tensor<32x64xf32> into tensor<2x4x4x64xf32>

// K = 1024 is four kc blocks of 256: the first three accumulate in an
// scf.for, the last one is peeled off it and alone applies the ReLU.
// An epilogue on the wide tiles: M = 49 with A and B read in place gives 7
// x 64 tiles (7 rows divide M; 28 FMAs per B row against 14 for 7 x 32),
// kc 128: two blocks, the ReLU on the second one's tiles.
// EPIWIDE-LABEL: func.func @wide_relu(
// EPIWIDE: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args(%{{.*}}) -> (vector<7x64xf32>)
// EPIWIDE-COUNT-7: vector.fma %{{.*}} : vector<64xf32>
// EPIWIDE-NOT: arith.maximumf
// EPIWIDE: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args(%{{.*}}) -> (vector<7x64xf32>)
// EPIWIDE: arith.maximumf %{{.*}} : vector<7x64xf32>
// EPIWIDE-NOT: arith.maximumf
// EPIWIDE: return
// EPI-LABEL: func.func @k_blocks(
// EPI: scf.for %{{.*}} = %c0 to %c3 step %c1
// EPI-NOT: arith.maximumf
// EPI: scf.yield
// EPI: arith.maximumf %{{.*}} : vector<8x32xf32>
// EPI-NOT: arith.maximumf
// EPI: return
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @bias_gelu(%a: tensor<64x128xf32>, %b: tensor<128x96xf32>, %bias: tensor<96xf32>) -> tensor<64x96xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x96xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
    // expected-remark @below {{epilogue of 6 elementwise op(s) on 2 input(s)}}
    %c = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x96xf32>) outs(%init : tensor<64x96xf32>) -> tensor<64x96xf32>
    %e1 = tensor.empty() : tensor<64x96xf32>
    %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%c, %bias : tensor<64x96xf32>, tensor<96xf32>) outs(%e1 : tensor<64x96xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<64x96xf32>
    %e2 = tensor.empty() : tensor<64x96xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%biased : tensor<64x96xf32>) outs(%e2 : tensor<64x96xf32>) {
    ^bb0(%x: f32, %o: f32):
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %rsqrt2 = arith.constant 0.707106781 : f32
      %t = arith.mulf %x, %rsqrt2 : f32
      %erf = math.erf %t : f32
      %p = arith.addf %erf, %one : f32
      %h = arith.mulf %x, %half : f32
      %r = arith.mulf %h, %p : f32
      linalg.yield %r : f32
    } -> tensor<64x96xf32>
    return %g : tensor<64x96xf32>
  }
  func.func @odd_residual(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>, %c: tensor<37x29xf32>, %res: tensor<37x29xf32>, %scale: tensor<37xf32>) -> tensor<37x29xf32> {
    // expected-remark @below {{epilogue of 2 elementwise op(s) on 3 input(s)}}
    %p = linalg.matmul ins(%a, %b : tensor<37x53xf32>, tensor<53x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
    %e = tensor.empty() : tensor<37x29xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%p, %res, %scale : tensor<37x29xf32>, tensor<37x29xf32>, tensor<37xf32>) outs(%e : tensor<37x29xf32>) {
    ^bb0(%x: f32, %y: f32, %s: f32, %o: f32):
      %m = arith.mulf %x, %s : f32
      %sum = arith.addf %m, %y : f32
      linalg.yield %sum : f32
    } -> tensor<37x29xf32>
    return %r : tensor<37x29xf32>
  }
  func.func @conv_view(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %c: tensor<32x64xf32>, %bias: tensor<64xf32>) -> tensor<2x4x4x64xf32> {
    // expected-remark @below {{epilogue of 2 elementwise op(s) on 2 input(s)}}
    %p = linalg.matmul ins(%a, %b : tensor<32x16xf32>, tensor<16x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
    %v = tensor.expand_shape %p [[0, 1, 2], [3]] output_shape [2, 4, 4, 64] : tensor<32x64xf32> into tensor<2x4x4x64xf32>
    %e = tensor.empty() : tensor<2x4x4x64xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%v, %bias : tensor<2x4x4x64xf32>, tensor<64xf32>) outs(%e : tensor<2x4x4x64xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %zero = arith.constant 0.0 : f32
      %s = arith.addf %x, %y : f32
      %relu = arith.maximumf %s, %zero : f32
      linalg.yield %relu : f32
    } -> tensor<2x4x4x64xf32>
    return %r : tensor<2x4x4x64xf32>
  }
  func.func @k_blocks(%a: tensor<64x1024xf32>, %b: tensor<1024x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
    // expected-remark @below {{matmul M=64 N=64 K=1024: register tile}}
    %p = linalg.matmul ins(%a, %b : tensor<64x1024xf32>, tensor<1024x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e = tensor.empty() : tensor<64x64xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%p : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
    ^bb0(%x: f32, %o: f32):
      %zero = arith.constant 0.0 : f32
      %relu = arith.maximumf %x, %zero : f32
      linalg.yield %relu : f32
    } -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
  func.func @wide_relu(%a: tensor<49x256xf32>, %b: tensor<256x128xf32>, %c: tensor<49x128xf32>) -> tensor<49x128xf32> {
    // expected-remark @below {{matmul M=49 N=128 K=256: register tile}}
    %p = linalg.matmul ins(%a, %b : tensor<49x256xf32>, tensor<256x128xf32>) outs(%c : tensor<49x128xf32>) -> tensor<49x128xf32>
    %e = tensor.empty() : tensor<49x128xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%p : tensor<49x128xf32>) outs(%e : tensor<49x128xf32>) {
    ^bb0(%x: f32, %o: f32):
      %zero = arith.constant 0.0 : f32
      %relu = arith.maximumf %x, %zero : f32
      linalg.yield %relu : f32
    } -> tensor<49x128xf32>
    return %r : tensor<49x128xf32>
  }
}

// -----

// Consumers that do not qualify: one reading another input transposed (the
// kernel would gather it across the tile) is left alone; a chain stops
// before a reduction (the row sums of a softmax), the bias add before it
// still applied in the kernel.
// EPI-LABEL: func.func @transposed_input(
// EPI: linalg.generic
// EPI-LABEL: func.func @stops_at_reduction(
// EPI: arith.addf %{{.*}} : vector<8x32xf32>
// EPI: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @transposed_input(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>, %t: tensor<64x64xf32>) -> tensor<64x64xf32> {
    // expected-remark @below {{epilogue not fused: the linalg.generic consuming it is left alone: an input is read through a transposing or non-affine-projection map}}
    %p = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e = tensor.empty() : tensor<64x64xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%p, %t : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
  func.func @stops_at_reduction(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>, %bias: tensor<64xf32>, %sums: tensor<64xf32>) -> tensor<64xf32> {
    // expected-remark @below {{epilogue of 1 elementwise op(s) on 2 input(s) applied to each register tile of the last kc block before it is stored; epilogue stops before a linalg.generic: it reduces}}
    %p = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e = tensor.empty() : tensor<64x64xf32>
    %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%p, %bias : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    } -> tensor<64x64xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
        ins(%biased : tensor<64x64xf32>) outs(%sums : tensor<64xf32>) {
    ^bb0(%x: f32, %o: f32):
      %s = arith.addf %x, %o : f32
      linalg.yield %s : f32
    } -> tensor<64xf32>
    return %r : tensor<64xf32>
  }
}

// -----

// ResNet-50 stage 4's 3x3 convolution at batch 8 on a 48 KiB L1: the L1
// bound gives kc 384, which does not divide a tap's 512 channels, so
// register tiles could not leave out the pixels whose filter column reads
// only padding (2 of 21 pairs). The model lowers kc to 256, which divides
// the tap and the filter row. With skip-padding=false nothing is skipped
// and kc stays 384.
// REMARK: matmul M=392 N=512 K=4608: register tile 7x32: {{.*}}; kc 384: B micro-panel kc x nr in L1 (49152 B), lowered to 256 to divide a tap's 512 channels (register tiles then also skip the columns that read only padding);
// REMARK-SAME: leave out their pixels whose filter column reads only padding (2 of 21 (output column, filter column) pairs
// NOSKIP: remark: matmul M=392 N=512 K=4608: register tile 8x32: {{.*}}; kc 384: B micro-panel kc x nr in L1 (49152 B); mc
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @padded_taps_lower_kc(%a: tensor<392x4608xf32>, %b: tensor<4608x512xf32>, %c: tensor<392x512xf32>) -> tensor<392x512xf32> {
    // expected-remark @below {{matmul M=392 N=512 K=4608: register tile}}
    %r = linalg.matmul {tessel.zero_padded_patches = array<i64: 7, 7, 3, 3, 512, 1, 1, 1, 1, 1, 1, 7, 7>}
        ins(%a, %b : tensor<392x4608xf32>, tensor<4608x512xf32>) outs(%c : tensor<392x512xf32>) -> tensor<392x512xf32>
    return %r : tensor<392x512xf32>
  }
}

// -----

// A product with a zero dimension has nothing to multiply: left alone (its
// loops run no iterations) instead of dividing by the dimension. A
// negative block size is refused by name.
// BADOPT: error: tessel-vectorize-matmul: nr=-8 must be 0 (the model's choice) or positive
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @zero_k(
// CHECK: linalg.matmul
// OVERRIDE-LABEL: func.func @zero_k(
// NONE-LABEL: func.func @zero_k(
func.func @zero_k(%a: tensor<8x0xf32>, %b: tensor<0x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @below {{not vectorized: a dimension is 0 (nothing to multiply: its loops run no iterations)}}
  %r = linalg.matmul ins(%a, %b : tensor<8x0xf32>, tensor<0x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
}

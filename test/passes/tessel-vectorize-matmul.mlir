// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{mr=4 nr=16 kr=1 kc=32}))' | FileCheck %s --check-prefix=OVERRIDE
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul{parallel=none}))' | FileCheck %s --check-prefix=NONE
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-matmul))' 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// An AVX-512 machine: 32 x 512-bit registers, 32 KiB L1, 1 MiB L2, 32 MiB L3.
// The model picks an 8 x 32 register tile (16 accumulators), k unrolled by
// 2. A is packed to [M/8][K/2][2][8], B to [N/32][K/2][2][32]; the kernel
// keeps the 8 x 32 C tile in registers across the k loop (iter_args) and
// does 2 x 8 FMAs of 32 lanes per iteration.

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: tensor<64x128xf32>, %[[B:.*]]: tensor<128x64xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: %[[C:.*]] = linalg.fill {{.*}} -> tensor<64x64xf32>
// Packing A: 8 x 32 blocks of A, transposed in registers to 16 x 2 x 8.
// CHECK: tensor.empty() : tensor<8x64x2x8xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: vector.transpose %{{.*}}, [0, 2, 3, 1] : vector<1x8x16x2xf32> to vector<1x16x2x8xf32>
// Packing B: rows of 32 copied as they are.
// CHECK: tensor.empty() : tensor<2x64x2x32xf32>
// CHECK-NOT: vector.transpose
// CHECK: vector.shape_cast %{{.*}} : vector<8x32xf32> to vector<4x2x32xf32>
// The kernel: nr panels outside mr panels, C in its own layout.
// CHECK: scf.for %{{.*}} iter_args(%[[CN:.*]] = %[[C]]) -> (tensor<64x64xf32>)
// CHECK: scf.for
// CHECK: %[[CT:.*]] = tensor.extract_slice %{{.*}} [8, 32] [1, 1] : tensor<64x64xf32> to tensor<8x32xf32>
// CHECK: %[[ACC0:.*]] = vector.transfer_read %[[CT]]{{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%[[CV:.*]] = %[[ACC0]]) -> (vector<8x32xf32>) {
// CHECK-NOT: tensor<64x64xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<2x8xf32>, vector<2x8xf32>
// CHECK: vector.transfer_read %{{.*}} : tensor<2x32xf32>, vector<2x32xf32>
// CHECK-NOT: vector.transfer_
// CHECK-COUNT-16: vector.fma %{{.*}} : vector<32xf32>
// CHECK-NOT: vector.fma
// CHECK-NOT: vector.transfer_
// CHECK: scf.yield %{{.*}} : vector<8x32xf32>
// CHECK: vector.transfer_write %[[ACC]], %[[CT]]{{.*}} : vector<8x32xf32>, tensor<8x32xf32>

// With overrides: a 4 x 16 tile (4 accumulators), k not unrolled, kc = 32:
// the k loop runs 32 steps inside a kc loop of 4.
// OVERRIDE-LABEL: func.func @matmul(
// OVERRIDE: tensor.empty() : tensor<16x128x1x4xf32>
// OVERRIDE: tensor.empty() : tensor<4x128x1x16xf32>
// OVERRIDE: scf.for %{{.*}} = %c0 to %c128 step %c32
// OVERRIDE: scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<4x16xf32>)
// OVERRIDE-COUNT-4: vector.fma %{{.*}} : vector<16xf32>
// OVERRIDE-NOT: vector.fma
// OVERRIDE: scf.yield %{{.*}} : vector<4x16xf32>
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
// kc loop; each core keeps its A block in its own L2. A (1 MiB, not less
// than L2) is packed in parallel, one forall iteration per mr micro-panel;
// B (128 KiB) is packed by one thread.

// REMARK: matmul M=64 N=64 K=128: {{.*}}; not parallel (too little work)
// REMARK: matmul M=512 N=64 K=512: {{.*}}; parallel: the mc loop (2 blocks of 256 rows for 2 cores;
// REMARK: matmul M=4 N=1024 K=512: {{.*}}; parallel: the nc loop (2 blocks of 512 columns for 2 cores; M has too few rows)
// NONE-LABEL: func.func @parallel_m(
// NONE-NOT: scf.forall
// NONE: vector.fma
// NONE-NOT: scf.forall
// CHECK-LABEL: func.func @parallel_m(
// CHECK: tensor.empty() : tensor<64x256x2x8xf32>
// CHECK: scf.forall (%{{.*}}) in (64) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<64x256x2x8xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c16 iter_args(%{{.*}}) -> (tensor<1x256x2x8xf32>)
// CHECK: vector.transpose
// CHECK: tensor.parallel_insert_slice %{{.*}} [1, 256, 2, 8] [1, 1, 1, 1] : tensor<1x256x2x8xf32> into tensor<64x256x2x8xf32>
// CHECK: tensor.empty() : tensor<2x256x2x32xf32>
// CHECK-NOT: scf.forall
// CHECK: scf.for %{{.*}} -> (tensor<2x256x2x32xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c128 iter_args(%{{.*}}) -> (tensor<512x64xf32>)
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (32) shared_outs(%{{.*}}) -> (tensor<512x64xf32>)
// CHECK: scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<8x32xf32>)
// CHECK-COUNT-16: vector.fma
// CHECK: tensor.parallel_insert_slice %{{.*}} [256, 64] [1, 1] : tensor<256x64xf32> into tensor<512x64xf32>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @parallel_m(%a: tensor<512x512xf32>, %b: tensor<512x64xf32>, %c: tensor<512x64xf32>) -> tensor<512x64xf32> {
    // expected-remark @below {{matmul M=512 N=64 K=512: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x64xf32>) outs(%c : tensor<512x64xf32>) -> tensor<512x64xf32>
    return %r : tensor<512x64xf32>
  }
}

// -----

// Fewer rows than one register tile: the nc loop (outermost) is the parallel one,
// 2 blocks of 512 columns, with the kc loop inside. B (2 MiB) is packed in
// parallel, A (8 KiB) by one thread.

// CHECK-LABEL: func.func @parallel_n(
// CHECK: tensor.empty() : tensor<1x256x2x8xf32>
// CHECK-NOT: scf.forall
// CHECK: tensor.empty() : tensor<32x256x2x32xf32>
// CHECK: scf.forall (%{{.*}}) in (32) shared_outs(%{{.*}}) -> (tensor<32x256x2x32xf32>)
// CHECK: scf.forall (%{{.*}}) = (0) to (32) step (16) shared_outs(%{{.*}}) -> (tensor<8x1024xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c128 iter_args(%{{.*}}) -> (tensor<8x512xf32>)
// CHECK-COUNT-16: vector.fma
// CHECK: tensor.parallel_insert_slice %{{.*}} [8, 512] [1, 1] : tensor<8x512xf32> into tensor<8x1024xf32>

// With parallel=none the same matmul has no parallel loop.
// NONE-LABEL: func.func @parallel_n(
// NONE-NOT: scf.forall
// NONE: vector.fma
// NONE-NOT: scf.forall
// NONE-LABEL: func.func @odd(
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @parallel_n(%a: tensor<4x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<4x1024xf32>) -> tensor<4x1024xf32> {
    // expected-remark @below {{matmul M=4 N=1024 K=512: register tile}}
    %r = linalg.matmul ins(%a, %b : tensor<4x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<4x1024xf32>) -> tensor<4x1024xf32>
    return %r : tensor<4x1024xf32>
  }
}

// -----

// Sizes that are not multiples of the tiles: A and B are packed with zero
// padding (masked reads), C (here an argument, accumulated into) is padded
// to whole 8 x 32 tiles and the result sliced back.

// CHECK-LABEL: func.func @odd(
// CHECK-SAME: %[[C:[^:]*]]: tensor<37x29xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: vector.create_mask
// CHECK: vector.transfer_read {{.*}}, %{{.*}}, %{{.*}} {in_bounds = [true, true]} : tensor<?x?xf32>, vector<8x32xf32>
// CHECK: %[[PC:.*]] = tensor.pad %[[C]] low[0, 0] high[3, 3]
// CHECK: tensor<37x29xf32> to tensor<40x32xf32>
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

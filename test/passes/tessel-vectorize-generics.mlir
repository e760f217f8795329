// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-vectorize-generics))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-generics{reassociate-reductions=false}))' 2>&1 | FileCheck %s --check-prefix=SEQ
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-vectorize-generics{fuse-row-producers=false}))' 2>&1 | FileCheck %s --check-prefix=SEPARATE

// A 5-tap stencil along j: the taps are unrolled into five shifted reads
// of the input (the weights become vector constants), the fill of the
// output is folded (the first tap multiplies into zero), and the
// multiply-adds are contracted to FMAs. Register blocks of 4 vectors (64
// lanes) along j; 100 = 64 + 36: the loop is peeled into one whole block
// and a 36-lane one (static sizes: no mask).

#tx = affine_map<(i, j, t) -> (i, j + t)>
#tw = affine_map<(i, j, t) -> (t)>
#to = affine_map<(i, j, t) -> (i, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", features = "+avx512f,+fma", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @blur_x(
// CHECK-SAME: %[[IN:.*]]: tensor<4x104xf32>
// CHECK-DAG: %[[W0:.*]] = arith.constant dense<6.250000e-02> : vector<1x64xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x64xf32>
// CHECK-NOT: linalg.
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1
// The whole block: five reads at j, j+1, ..., j+4 and five FMAs.
// CHECK: vector.transfer_read %[[IN]][%[[I]], %c0]{{.*}} : tensor<4x104xf32>, vector<1x64xf32>
// CHECK: vector.transfer_read %[[IN]][%[[I]], %c1]{{.*}} : tensor<4x104xf32>, vector<1x64xf32>
// CHECK: vector.transfer_read %[[IN]][%[[I]], %c2]
// CHECK: vector.transfer_read %[[IN]][%[[I]], %c3]
// CHECK: vector.transfer_read %[[IN]][%[[I]], %c4]
// CHECK: math.fma %{{.*}}, %[[W0]], %[[ZERO]] : vector<1x64xf32>
// CHECK-COUNT-4: math.fma
// CHECK: vector.transfer_write {{.*}} : vector<1x64xf32>, tensor<4x100xf32>
// The remainder: 36 lanes, static too (no mask).
// CHECK-NOT: vector.create_mask
// CHECK: vector.transfer_read %[[IN]][%[[I]], %c64]{{.*}} : tensor<4x104xf32>, vector<1x36xf32>
// CHECK: vector.transfer_write {{.*}} : vector<1x36xf32>, tensor<4x100xf32>
// CHECK-NOT: linalg.
func.func @blur_x(%in: tensor<4x104xf32>) -> tensor<4x100xf32> {
  %w = arith.constant dense<[0.0625, 0.25, 0.375, 0.25, 0.0625]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x100xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x100xf32>) -> tensor<4x100xf32>
  %r = linalg.generic {indexing_maps = [#tx, #tw, #to], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%in, %w : tensor<4x104xf32>, tensor<5xf32>) outs(%init : tensor<4x100xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x100xf32>
  return %r : tensor<4x100xf32>
}
}

// -----

// Elementwise named ops are generalized and vectorized; an op smaller than
// a block is one vector op with no loop.

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @add(
// CHECK-NOT: scf.for
// CHECK: %[[A:.*]] = vector.transfer_read %{{.*}} : tensor<32xf32>, vector<32xf32>
// CHECK: %[[B:.*]] = vector.transfer_read %{{.*}} : tensor<32xf32>, vector<32xf32>
// CHECK: arith.addf %[[A]], %[[B]] : vector<32xf32>
// CHECK-NOT: linalg.
func.func @add(%a: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<32xf32>
  %r = linalg.add ins(%a, %b : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}
}

// -----

// A reduction over 1000 elements is not a stencil: left in linalg form
// with a remark (the loop lowering takes it); a matmul is left to
// tessel-vectorize-matmul.

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @row_sum(
// CHECK: linalg.generic
// CHECK: linalg.matmul
func.func @row_sum(%a: tensor<8x1000xf32>, %init: tensor<8xf32>, %m: tensor<8x8xf32>) -> (tensor<8xf32>, tensor<8x8xf32>) {
  // expected-remark @below {{not vectorized: its reduction loops run 1000 iterations (unrolled up to 64)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x1000xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  // expected-remark @below {{not vectorized here: it is a contraction (tessel-vectorize-matmul's)}}
  %p = linalg.matmul ins(%m, %m : tensor<8x8xf32>, tensor<8x8xf32>) outs(%m : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r, %p : tensor<8xf32>, tensor<8x8xf32>
}
}

// -----

// A strided access (2 i + t) unrolls into slices of stride 2; an index
// that sums two loops (i + j) cannot be a slice: a remark, left alone.

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @strided(
// CHECK: tensor.extract_slice %{{.*}}[0] [8] [2] : tensor<20xf32> to tensor<8xf32>
// CHECK: tensor.extract_slice %{{.*}}[1] [8] [2] : tensor<20xf32> to tensor<8xf32>
// CHECK: tensor.extract_slice %{{.*}}[2] [8] [2] : tensor<20xf32> to tensor<8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @strided(%a: tensor<20xf32>, %w: tensor<3xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, t) -> (2 * i + t)>, affine_map<(i, t) -> (t)>, affine_map<(i, t) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a, %w : tensor<20xf32>, tensor<3xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %k: f32, %acc: f32):
    %m = arith.mulf %x, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
// CHECK-LABEL: func.func @two_loops_in_one_index(
// CHECK: linalg.generic
func.func @two_loops_in_one_index(%a: tensor<20x3xf32>, %init: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @below {{not vectorized: input 0 is not read at a constant shift of the parallel loops}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, t) -> (i + j, t)>, affine_map<(i, j, t) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a : tensor<20x3xf32>) outs(%init : tensor<8x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
}

// -----

// A long row reduction (a softmax's row max) is split: one row at a time,
// the row in blocks of 64 lanes combined into a vector<1x64xf32> of partial
// results carried in registers through the block loop, merged once per row
// by a tree of elementwise maxima on halves (64 -> 32 -> ... -> 1 lanes; a
// vector.reduction <maximumf> would be a sequential chain). A division by a per-row value (a softmax's row
// sum) becomes a multiply by its reciprocal, invariant in the inner loop.
// With reassociate-reductions=false the reduction stays sequential.

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @row_max_and_scale(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x1024xf32>, %[[S:[^:]+]]: tensor<4xf32>)
// CHECK: scf.for %[[I:[^ ]+]] = %c0 to %c4 step %c1
// CHECK: %[[P:.*]]:2 = scf.for %[[K:[^ ]+]] = %c0 to %c1024 step %c64 iter_args(%{{[^ ]+}} = %{{.*}}, %[[ACC:[^ ]+]] = %{{.*}}) -> (tensor<1x64xf32>, vector<1x64xf32>)
// CHECK-NEXT: %[[X:.*]] = vector.transfer_read %[[A]][%[[I]], %[[K]]]{{.*}} vector<1x64xf32>
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[X]], %[[ACC]] : vector<1x64xf32>
// CHECK-NEXT: scf.yield %{{.*}}, %[[M]]
// CHECK-NOT: vector.reduction
// CHECK: %[[LO:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [32], strides = [1]} : vector<64xf32> to vector<32xf32>
// CHECK: %[[HI:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [32], sizes = [32], strides = [1]} : vector<64xf32> to vector<32xf32>
// CHECK: arith.maximumf %[[LO]], %[[HI]] : vector<32xf32>
// CHECK-COUNT-4: arith.maximumf %{{.*}}, %{{.*}} : vector<{{16|8|4|2}}xf32>
// CHECK: %[[L1:.*]] = arith.maximumf %{{.*}}, %{{.*}} : vector<1xf32>
// CHECK: %[[E:.*]] = vector.extract %[[L1]][0] : f32 from vector<1xf32>
// CHECK: arith.maximumf %[[E]], %{{.*}} : f32
// CHECK-NOT: vector.reduction
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[D:.*]] = vector.transfer_read %[[S]]
// CHECK-NEXT: %[[R:.*]] = arith.divf %cst{{.*}}, %[[D]] : vector<1x64xf32>
// CHECK-NEXT: arith.mulf %{{.*}}, %[[R]] : vector<1x64xf32>

// SEQ-LABEL: func.func @row_max_and_scale(
// SEQ: linalg.generic
// SEQ-SAME: iterator_types = ["parallel", "reduction"]
// SEQ-NOT: vector.reduction
// SEQ: return
func.func @row_max_and_scale(%a: tensor<4x1024xf32>, %s: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x1024xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{row reduction of 1024 iterations vectorized: one row at a time, in blocks of 64 lanes accumulated into 4 vector(s) of partial results kept in registers, merged once per row (floating-point sums reassociated)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x1024xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x1024xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %s : tensor<4x1024xf32>, tensor<4xf32>) outs(%e2 : tensor<4x1024xf32>) {
  ^bb0(%x: f32, %d: f32, %o: f32):
    %v = arith.divf %x, %d : f32
    linalg.yield %v : f32
  } -> tensor<4x1024xf32>
  return %r, %q : tensor<4xf32>, tensor<4x1024xf32>
}
}

// -----

// A softmax's exp feeding its row sum: the exp is computed inside the sum's
// loops, one 64-lane block at a time, and the loops also yield the whole
// exp result (the division reads it); no nest of its own re-read by the
// sum. With fuse-row-producers=false it stays a nest of its own.

module attributes {tessel.target = #tessel.target<kind = "cpu", features = "+fma", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @exp_then_row_sum(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x1024xf32>, %[[M:[^:]+]]: tensor<4xf32>)
// CHECK: %[[ROWS:.*]]:2 = scf.for %[[I:[^ ]+]] = %c0 to %c4 step %c1 iter_args(%{{[^ ]+}} = %{{.*}}, %[[EROWS:[^ ]+]] = %{{.*}}) -> (tensor<4xf32>, tensor<4x1024xf32>)
// CHECK: %[[BLOCKS:.*]]:3 = scf.for %[[K:[^ ]+]] = %c0 to %c1024 step %c64 iter_args(%{{[^ ]+}} = %{{.*}}, %[[EB:[^ ]+]] = %[[EROWS]], %[[ACC:[^ ]+]] = %{{.*}}) -> (tensor<1x64xf32>, tensor<4x1024xf32>, vector<1x64xf32>)
// CHECK: %[[XV:.*]] = vector.transfer_read %[[X]][%[[I]], %[[K]]]
// CHECK: %[[D:.*]] = arith.subf %[[XV]], %{{.*}} : vector<1x64xf32>
// CHECK: %[[EXP:.*]] = math.exp %[[D]] : vector<1x64xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[EXP]], %[[ACC]] : vector<1x64xf32>
// CHECK: %[[W:.*]] = vector.transfer_write %[[EXP]], %[[EB]][%[[I]], %[[K]]]
// CHECK: scf.yield %{{.*}}, %[[W]], %[[SUM]]
// CHECK: vector.reduction <add>
// CHECK-NOT: math.exp
// CHECK: vector.transfer_read %[[ROWS]]#1
// CHECK: arith.mulf
// CHECK-NOT: math.exp
// CHECK: return

// SEPARATE-LABEL: func.func @exp_then_row_sum(
// SEPARATE: math.exp
// SEPARATE: vector.transfer_write
// SEPARATE: scf.for
// SEPARATE: scf.for
// SEPARATE-NOT: math.exp
// SEPARATE: vector.reduction <add>
// SEPARATE: return
func.func @exp_then_row_sum(%x: tensor<4x1024xf32>, %m: tensor<4xf32>) -> tensor<4x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %ef = tensor.empty() : tensor<4x1024xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4x1024xf32>, tensor<4xf32>) outs(%ef : tensor<4x1024xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<4x1024xf32>
  %er = tensor.empty() : tensor<4xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{row reduction of 1024 iterations vectorized}}
  // expected-remark @below {{its input's producer (linalg.generic at}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<4x1024xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<4x1024xf32>, tensor<4xf32>) outs(%ef : tensor<4x1024xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %q = arith.divf %v, %sum : f32
    linalg.yield %q : f32
  } -> tensor<4x1024xf32>
  return %y : tensor<4x1024xf32>
}
}

// -----

// The producer's result is also read before the reduction: it stays a
// nest of its own, with a remark saying why.

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @producer_used_before(
// CHECK: math.exp
// CHECK: vector.transfer_write
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: math.exp
// CHECK: vector.reduction <add>
func.func @producer_used_before(%x: tensor<4x1024xf32>) -> (tensor<4x1024xf32>, tensor<4x1024xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %ef = tensor.empty() : tensor<4x1024xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x1024xf32>) outs(%ef : tensor<4x1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %ex = math.exp %v : f32
    linalg.yield %ex : f32
  } -> tensor<4x1024xf32>
  %ef2 = tensor.empty() : tensor<4x1024xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%e : tensor<4x1024xf32>) outs(%ef2 : tensor<4x1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %ng = arith.negf %v : f32
    linalg.yield %ng : f32
  } -> tensor<4x1024xf32>
  %er = tensor.empty() : tensor<4xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{row reduction of 1024 iterations vectorized}}
  // expected-remark @below {{its input's producer stays a nest of its own: its result is also used before the reduction}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<4x1024xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %e, %n, %s : tensor<4x1024xf32>, tensor<4x1024xf32>, tensor<4xf32>
}
}

// -----

// The reduction reads the producer's result twice (two inputs): fusing one
// read would leave the original alive for the other and compute it twice.

module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @producer_read_twice(
// CHECK: math.exp
// CHECK: vector.transfer_write
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: math.exp
// CHECK: vector.reduction <add>
func.func @producer_read_twice(%x: tensor<4x1024xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %ef = tensor.empty() : tensor<4x1024xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x1024xf32>) outs(%ef : tensor<4x1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %ex = math.exp %v : f32
    linalg.yield %ex : f32
  } -> tensor<4x1024xf32>
  %er = tensor.empty() : tensor<4xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{row reduction of 1024 iterations vectorized}}
  // expected-remark @below {{its input's producer stays a nest of its own: the reduction reads its result more than once}}
  %s = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%e, %e : tensor<4x1024xf32>, tensor<4x1024xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %r = arith.addf %d, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
}

// -----

// A strided window (max pooling, 3x3, stride 2, as tessel-convert-conv-to-matmul
// generalizes it): each tap is a slice of stride 2 in H and W, channels
// stay contiguous and are the vector dimension; the unused window-shape
// operand is dropped.
// CHECK-LABEL: func.func @strided_pool(
// CHECK-NOT: tensor.extract %
// CHECK-COUNT-9: tensor.extract_slice %{{.*}} [1, 4, 4, 64] [1, 2, 2, 1] : tensor<1x9x9x64xf32> to tensor<1x4x4x64xf32>
// CHECK-COUNT-9: arith.maximumf %{{.*}} : vector<1x1x1x32xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
func.func @strided_pool(%x: tensor<1x9x9x64xf32>, %init: tensor<1x4x4x64xf32>) -> tensor<1x4x4x64xf32> {
  %win = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %win : tensor<1x9x9x64xf32>, tensor<3x3xf32>) outs(%init : tensor<1x4x4x64xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x64xf32>
  return %r : tensor<1x4x4x64xf32>
}
}

// -----

// An op over a zero-size dimension runs no iterations: left alone
// (upstream's tiling divides by the loop ranges).
module attributes {tessel.target = #tessel.target<kind = "cpu", features = "+avx512f,+fma", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @zero_columns(
// CHECK: linalg.fill
// CHECK-NOT: scf.for
// SEQ-LABEL: func.func @zero_columns(
// SEPARATE-LABEL: func.func @zero_columns(
func.func @zero_columns() -> tensor<8x0xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x0xf32>
  // expected-remark @below {{not vectorized here: a loop has no iterations (a dimension is 0)}}
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x0xf32>) -> tensor<8x0xf32>
  return %c : tensor<8x0xf32>
}
}

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-fuse-attention))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-fuse-attention{block-rows=16 block-cols=64}))' 2>/dev/null | FileCheck %s --check-prefix=GIVEN
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-fuse-attention),canonicalize,eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries})' 2>/dev/null | FileCheck %s --check-prefix=BUF
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-fuse-attention{block-rows=12}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=BAD

// An override that does not fit the shape leaves the chain alone, saying why.
// BAD: remark: attention not fused: block-rows=12 must divide 128 query rows and be a multiple of the 8- and 4-row register tiles

// Batched attention as linalg.softmax decomposes (row max from NaN with
// maxnumf), scaled by a 0-d constant: one scf.forall over (head, block of
// 32 query rows), a loop over blocks of 128 keys; no 2x128x256 tensor (the
// scores or the probabilities) is left.

#id = affine_map<(b, i, j) -> (b, i, j)>
#row = affine_map<(b, i, j) -> (b, i)>
#scalar = affine_map<(b, i, j) -> ()>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @attention_batched(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x128x64xf32>, %[[KT:[^:]*]]: tensor<2x64x256xf32>, %[[V:[^:]*]]: tensor<2x256x64xf32>
// CHECK-NOT: tensor<2x128x256xf32>
// CHECK: scf.forall (%[[B:.*]], %[[I:.*]]) in (2, 4) shared_outs(
// CHECK: tensor.empty() : tensor<32x64xf32>
// CHECK: tensor.empty() : tensor<32x128xf32>
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<32xf32>)
// The score tiles: 8 rows x 2 vectors over the head dim (unrolled by 4).
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.transfer_read %[[KT]][%[[B]], %{{.*}}, %{{.*}}]
// CHECK: tensor.extract %[[Q]][%[[B]], %{{.*}}, %{{.*}}]
// CHECK: vector.fma
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// The softmax rows: running max, rescale factor, exp in place, running sum.
// CHECK: vector.reduction <maxnumf>
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: vector.reduction <add>
// The output tiles: 4 rows x 4 vectors, rescaled, then P V.
// CHECK: vector.transfer_read %[[V]][%[[B]], %{{.*}}, %{{.*}}]
// CHECK: vector.fma
// CHECK: scf.yield
// The division by the running sum and the block's insert.
// CHECK: arith.divf
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[B]], %{{.*}}, 0] [1, 32, 64] [1, 1, 1] : tensor<32x64xf32> into tensor<2x128x64xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: return

// GIVEN-LABEL: func.func @attention_batched(
// GIVEN: scf.forall ({{.*}}) in (2, 8)
// GIVEN: tensor.empty() : tensor<16x64xf32>
// GIVEN: scf.for {{.*}} -> (tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<16xf32>)

// After bufferization nothing of the 2x128x256 size exists; the output
// accumulator is the block of the output itself, the score block one
// 32x128 buffer per iteration, updated in place.
// BUF-LABEL: func.func @attention_batched(
// BUF-NOT: memref<2x128x256xf32>
// BUF: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<2x128x64xf32>
// BUF: scf.forall
// BUF: memref.subview %[[OUT]]
// BUF-NOT: memref<32x64xf32>
// BUF: memref.alloc() {{.*}} : memref<32x128xf32>
// BUF-NOT: memref<2x128x256xf32>
// BUF: return
func.func @attention_batched(%q: tensor<2x128x64xf32>, %kt: tensor<2x64x256xf32>,
                             %v: tensor<2x256x64xf32>) -> tensor<2x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %nan = arith.constant 0xFFC00000 : f32
  %scale = arith.constant dense<0.125> : tensor<f32>
  %s0 = tensor.empty() : tensor<2x128x256xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<2x128x256xf32>) -> tensor<2x128x256xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x128x64xf32>, tensor<2x64x256xf32>) outs(%sz : tensor<2x128x256xf32>) -> tensor<2x128x256xf32>
  %x = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %scale : tensor<2x128x256xf32>, tensor<f32>) outs(%s0 : tensor<2x128x256xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x128x256xf32>
  %r0 = tensor.empty() : tensor<2x128xf32>
  %rm = linalg.fill ins(%nan : f32) outs(%r0 : tensor<2x128xf32>) -> tensor<2x128xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x128x256xf32>) outs(%rm : tensor<2x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maxnumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x128xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %max : tensor<2x128x256xf32>, tensor<2x128xf32>) outs(%s0 : tensor<2x128x256xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.subf %a, %m : f32
    %ex = math.exp %t : f32
    linalg.yield %ex : f32
  } -> tensor<2x128x256xf32>
  %rz = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x128xf32>) -> tensor<2x128xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x128x256xf32>) outs(%rz : tensor<2x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<2x128xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x128x256xf32>, tensor<2x128xf32>) outs(%s0 : tensor<2x128x256xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %t = arith.divf %a, %l : f32
    linalg.yield %t : f32
  } -> tensor<2x128x256xf32>
  %o0 = tensor.empty() : tensor<2x128x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  // expected-remark @below {{attention fused (online softmax): 2 x 128 queries over 256 keys, head dim 64, value dim 64; the 0.2 MiB of scores and probabilities are never materialized, only a 32x128 score block (16 KiB) per parallel iteration; score tile 8x32}}
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x128x256xf32>, tensor<2x256x64xf32>) outs(%oz : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  return %o : tensor<2x128x64xf32>
}
}

// -----

// Torch's form: heads and batch folded for the products, 4-D softmax
// generics in between (reshapes of the leading dims only), maximumf from
// -inf, a division by sqrt(d) with the constant in the body.

#id4 = affine_map<(b, h, i, j) -> (b, h, i, j)>
#row4 = affine_map<(b, h, i, j) -> (b, h, i)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @attention_torch(
// CHECK-SAME: tensor<4x32x128xf32>
// CHECK-NOT: tensor<2x2x64x128xf32>
// CHECK-NOT: tensor<4x64x128xf32>
// CHECK: scf.forall ({{.*}}) in (4, 2)
// CHECK: arith.constant dense<1.250000e-01> : vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @attention_torch(%q: tensor<4x64x32xf32>, %kt: tensor<4x32x128xf32>,
                           %v: tensor<4x128x64xf32>) -> tensor<4x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %sqrtd = arith.constant 8.0 : f32
  %s0 = tensor.empty() : tensor<4x64x128xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x64x32xf32>, tensor<4x32x128xf32>) outs(%sz : tensor<4x64x128xf32>) -> tensor<4x64x128xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 2, 64, 128] : tensor<4x64x128xf32> into tensor<2x2x64x128xf32>
  %e0 = tensor.empty() : tensor<2x2x64x128xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s4 : tensor<2x2x64x128xf32>) outs(%e0 : tensor<2x2x64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %sqrtd : f32
    linalg.yield %d : f32
  } -> tensor<2x2x64x128xf32>
  %r0 = tensor.empty() : tensor<2x2x64xf32>
  %rm = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<2x2x64xf32>) -> tensor<2x2x64xf32>
  %max = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x2x64x128xf32>) outs(%rm : tensor<2x2x64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<2x2x64xf32>
  %e = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %max : tensor<2x2x64x128xf32>, tensor<2x2x64xf32>) outs(%e0 : tensor<2x2x64x128xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.subf %a, %m : f32
    %ex = math.exp %t : f32
    linalg.yield %ex : f32
  } -> tensor<2x2x64x128xf32>
  %rz = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x2x64xf32>) -> tensor<2x2x64xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x2x64x128xf32>) outs(%rz : tensor<2x2x64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<2x2x64xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%e, %sum : tensor<2x2x64x128xf32>, tensor<2x2x64xf32>) outs(%e0 : tensor<2x2x64x128xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %t = arith.divf %a, %l : f32
    linalg.yield %t : f32
  } -> tensor<2x2x64x128xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x2x64x128xf32> into tensor<4x64x128xf32>
  %o0 = tensor.empty() : tensor<4x64x64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  // expected-remark @below {{attention fused (online softmax): 4 x 64 queries over 128 keys, head dim 32}}
  %o = linalg.batch_matmul ins(%p3, %v : tensor<4x64x128xf32>, tensor<4x128x64xf32>) outs(%oz : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %o : tensor<4x64x64xf32>
}
}

// -----

// Not fused, with a remark each and the chain left as it was: the
// probabilities are also returned; the scores accumulate into an additive
// mask; the value width (8) is not a multiple of the vector length. A
// matmul with no softmax before it gets no remark.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @weights_returned(
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: linalg.matmul
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @additive_mask(
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @narrow_values(
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @plain_matmul(
// CHECK: linalg.matmul
func.func @weights_returned(%q: tensor<64x32xf32>, %kt: tensor<32x64xf32>, %v: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<64x64xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<64x32xf32>, tensor<32x64xf32>) outs(%sz : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r0 = tensor.empty() : tensor<64xf32>
  %rm = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<64x64xf32>) outs(%rm : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %max : tensor<64x64xf32>, tensor<64xf32>) outs(%s0 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.subf %a, %m : f32
    %ex = math.exp %t : f32
    linalg.yield %ex : f32
  } -> tensor<64x64xf32>
  %rz = linalg.fill ins(%zero : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<64x64xf32>) outs(%rz : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<64x64xf32>, tensor<64xf32>) outs(%s0 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %t = arith.divf %a, %l : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  %o0 = tensor.empty() : tensor<64x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<64x32xf32>) -> tensor<64x32xf32>
  // expected-remark @below {{attention not fused: an intermediate of the softmax is also used by 'func.return' (the S x S weights would have to be materialized)}}
  %o = linalg.matmul ins(%p, %v : tensor<64x64xf32>, tensor<64x32xf32>) outs(%oz : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %o, %p : tensor<64x32xf32>, tensor<64x64xf32>
}
func.func @additive_mask(%q: tensor<64x32xf32>, %kt: tensor<32x64xf32>, %v: tensor<64x32xf32>, %mask: tensor<64x64xf32>) -> tensor<64x32xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<64x64xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<64x32xf32>, tensor<32x64xf32>) outs(%mask : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r0 = tensor.empty() : tensor<64xf32>
  %rm = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<64x64xf32>) outs(%rm : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %max : tensor<64x64xf32>, tensor<64xf32>) outs(%s0 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.subf %a, %m : f32
    %ex = math.exp %t : f32
    linalg.yield %ex : f32
  } -> tensor<64x64xf32>
  %rz = linalg.fill ins(%zero : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<64x64xf32>) outs(%rz : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<64x64xf32>, tensor<64xf32>) outs(%s0 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %t = arith.divf %a, %l : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  %o0 = tensor.empty() : tensor<64x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<64x32xf32>) -> tensor<64x32xf32>
  // expected-remark @below {{attention not fused: the scores accumulate into a tensor that is not zero (an additive mask is not supported yet)}}
  %o = linalg.matmul ins(%p, %v : tensor<64x64xf32>, tensor<64x32xf32>) outs(%oz : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %o : tensor<64x32xf32>
}
func.func @narrow_values(%q: tensor<64x32xf32>, %kt: tensor<32x64xf32>, %v: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<64x64xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<64x32xf32>, tensor<32x64xf32>) outs(%sz : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r0 = tensor.empty() : tensor<64xf32>
  %rm = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<64x64xf32>) outs(%rm : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %max : tensor<64x64xf32>, tensor<64xf32>) outs(%s0 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.subf %a, %m : f32
    %ex = math.exp %t : f32
    linalg.yield %ex : f32
  } -> tensor<64x64xf32>
  %rz = linalg.fill ins(%zero : f32) outs(%r0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<64x64xf32>) outs(%rz : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e, %sum : tensor<64x64xf32>, tensor<64xf32>) outs(%s0 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %t = arith.divf %a, %l : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  %o0 = tensor.empty() : tensor<64x8xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<64x8xf32>) -> tensor<64x8xf32>
  // expected-remark @below {{attention not fused: the value width (8) and the key count (64) must be multiples of the vector length (16): the kernel has no partial vectors yet}}
  %o = linalg.matmul ins(%p, %v : tensor<64x64xf32>, tensor<64x8xf32>) outs(%oz : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %o : tensor<64x8xf32>
}
func.func @plain_matmul(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
}

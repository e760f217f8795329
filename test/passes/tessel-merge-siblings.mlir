// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-merge-siblings))' | FileCheck %s

// Two Sobel filters of one image: same loops, same read of %gray. One
// generic yields both; %gray is read once.

#win_in = affine_map<(i, j, a, b) -> (i + a, j + b)>
#win_w = affine_map<(i, j, a, b) -> (a, b)>
#win_out = affine_map<(i, j, a, b) -> (i, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @sobel_pair(
// CHECK-SAME: %[[GRAY:[^:]*]]: tensor<66x66xf32>, %[[KX:[^:]*]]: tensor<3x3xf32>, %[[KY:[^:]*]]: tensor<3x3xf32>
// CHECK: %[[IXY:.*]]:2 = linalg.generic {{.*}} ins(%[[GRAY]], %[[KX]], %[[KY]] : tensor<66x66xf32>, tensor<3x3xf32>, tensor<3x3xf32>) outs(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>)
// CHECK: ^bb0(%[[P:.*]]: f32, %[[WX:.*]]: f32, %[[WY:.*]]: f32, %[[AX:.*]]: f32, %[[AY:.*]]: f32):
// CHECK: arith.mulf %[[P]], %[[WX]]
// CHECK: arith.mulf %[[P]], %[[WY]]
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[IXY]]#0, %[[IXY]]#1
func.func @sobel_pair(%gray: tensor<66x66xf32>, %kx: tensor<3x3xf32>, %ky: tensor<3x3xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ix = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%gray, %kx : tensor<66x66xf32>, tensor<3x3xf32>) outs(%init : tensor<64x64xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  // expected-remark @below {{merged with the linalg.generic at}}
  %iy = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%gray, %ky : tensor<66x66xf32>, tensor<3x3xf32>) outs(%init : tensor<64x64xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %ix, %iy : tensor<64x64xf32>, tensor<64x64xf32>
}
}

// -----

// The same pair where the target has 16 vector registers: each filter
// reads 9 taps of %gray and 9 weights, so the merged body would need 29.

#win_in = affine_map<(i, j, a, b) -> (i + a, j + b)>
#win_w = affine_map<(i, j, a, b) -> (a, b)>
#win_out = affine_map<(i, j, a, b) -> (i, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 256, vector_registers = 16, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @too_many_registers(
// CHECK-COUNT-2: linalg.generic {indexing_maps
func.func @too_many_registers(%gray: tensor<66x66xf32>, %kx: tensor<3x3xf32>, %ky: tensor<3x3xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ix = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%gray, %kx : tensor<66x66xf32>, tensor<3x3xf32>) outs(%init : tensor<64x64xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  // expected-remark @below {{which reads the same input: the merged body needs 29 vector registers, the target has 16}}
  %iy = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%gray, %ky : tensor<66x66xf32>, tensor<3x3xf32>) outs(%init : tensor<64x64xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %ix, %iy : tensor<64x64xf32>, tensor<64x64xf32>
}
}

// -----

// Not mergeable: %b reads %a (a dependence). %c runs over other loops
// (not a sibling: no remark).

#id = affine_map<(i) -> (i)>
#row = affine_map<(i, j) -> (i)>
#id2 = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @dependent(
// CHECK-COUNT-3: linalg.generic {indexing_maps
func.func @dependent(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64x8xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  // expected-remark @below {{which reads the same input: the second one reads what the first one computes}}
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %a : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.mulf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x8xf32>
  %c = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64xf32>) outs(%e2 : tensor<64x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<64x8xf32>
  return %b, %c : tensor<64xf32>, tensor<64x8xf32>
}

// -----

// %p and %q share %x, but %u reads %p before %q: the merged op, at %q's
// place, would come after that use.

#id = affine_map<(i) -> (i)>
#row = affine_map<(i, j) -> (i)>
#id2 = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @use_in_between(
// CHECK-COUNT-3: linalg.generic {indexing_maps
func.func @use_in_between(%x: tensor<64xf32>) -> (tensor<64x8xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x8xf32>
  %u = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64xf32>) outs(%e2 : tensor<64x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<64x8xf32>
  // expected-remark @below {{which reads the same input: a use of the first one's result comes before the second}}
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %u, %q : tensor<64x8xf32>, tensor<64xf32>
}

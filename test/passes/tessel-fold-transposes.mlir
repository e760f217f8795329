// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-fold-transposes))' | FileCheck %s

// Two transposes that undo each other across an elementwise op (NHWC ->
// NCHW, ReLU, NCHW -> NHWC): the second folds into the op, which then
// writes NHWC; the first folds into the op's map, which becomes the
// identity. No transpose is left.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @cancel_across_relu(
// CHECK-SAME: %[[X:.*]]: tensor<2x4x5x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x5x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x4x5x8xf32>) outs(%[[E]] : tensor<2x4x5x8xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: linalg.transpose
// CHECK: return %[[R]]
func.func @cancel_across_relu(%x: tensor<2x4x5x8xf32>) -> tensor<2x4x5x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x4x5xf32>
  // expected-remark @below {{transpose [0, 3, 1, 2] folded into the indexing maps of its readers}}
  %t = linalg.transpose ins(%x : tensor<2x4x5x8xf32>) outs(%e0 : tensor<2x8x4x5xf32>) permutation = [0, 3, 1, 2]
  %e1 = tensor.empty() : tensor<2x8x4x5xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<2x8x4x5xf32>) outs(%e1 : tensor<2x8x4x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x4x5xf32>
  %e2 = tensor.empty() : tensor<2x4x5x8xf32>
  // expected-remark @below {{transpose [0, 2, 3, 1] folded into its producer, which writes the transposed layout}}
  %u = linalg.transpose ins(%r : tensor<2x8x4x5xf32>) outs(%e2 : tensor<2x4x5x8xf32>) permutation = [0, 2, 3, 1]
  return %u : tensor<2x4x5x8xf32>
}

// -----

// A bias over the channels (NCHW dim 1) and a constant padding of H and W
// between the two transposes: the transpose moves above the pad, which
// then pads NHWC's dims 1 and 2, and the bias is read along NHWC's dim 3.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @bias_then_pad(
// CHECK-SAME: %[[X:.*]]: tensor<1x6x6x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]], {{.*}}} ins(%[[X]], %[[B]] : tensor<1x6x6x16xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<1x6x6x16xf16>)
// CHECK: %[[P:.*]] = tensor.pad %[[R]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: tensor<1x6x6x16xf16> to tensor<1x8x8x16xf16>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[P]]
func.func @bias_then_pad(%x: tensor<1x6x6x16xf32>, %b: tensor<16xf32>) -> tensor<1x8x8x16xf16> {
  %zh = arith.constant 0.0 : f16
  %e0 = tensor.empty() : tensor<1x16x6x6xf32>
  // expected-remark @below {{transpose [0, 3, 1, 2] folded into the indexing maps of its readers}}
  %t = linalg.transpose ins(%x : tensor<1x6x6x16xf32>) outs(%e0 : tensor<1x16x6x6xf32>) permutation = [0, 3, 1, 2]
  %e1 = tensor.empty() : tensor<1x16x6x6xf16>
  %r = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t, %b : tensor<1x16x6x6xf32>, tensor<16xf32>) outs(%e1 : tensor<1x16x6x6xf16>) {
  ^bb0(%a: f32, %c: f32, %o: f16):
    %s = arith.addf %a, %c : f32
    %h = arith.truncf %s : f32 to f16
    linalg.yield %h : f16
  } -> tensor<1x16x6x6xf16>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zh : f16
  } : tensor<1x16x6x6xf16> to tensor<1x16x8x8xf16>
  %e2 = tensor.empty() : tensor<1x8x8x16xf16>
  // expected-remark @below {{transpose [0, 2, 3, 1] folded into its producer, which writes the transposed layout}}
  %u = linalg.transpose ins(%p : tensor<1x16x8x8xf16>) outs(%e2 : tensor<1x8x8x16xf16>) permutation = [0, 2, 3, 1]
  return %u : tensor<1x8x8x16xf16>
}

// -----

// A residual connection: the block's output is read by the next block's
// transpose and by a later add. The producer writes the transposed layout
// for the transpose, and the add reads it through the permutation; the add,
// itself transposed afterwards, then reads both in order.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @residual(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x3x8xf32>, %[[Y:.*]]: tensor<1x3x3x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[A:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]]], {{.*}}} ins(%[[X]] : tensor<1x3x3x8xf32>) outs(%{{.*}} : tensor<1x3x3x8xf32>)
// CHECK: math.tanh
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], {{.*}}} ins(%[[A]], %[[Y]] : tensor<1x3x3x8xf32>, tensor<1x3x3x8xf32>) outs(%{{.*}} : tensor<1x3x3x8xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.transpose
// CHECK: return %[[A]], %[[S]]
func.func @residual(%x: tensor<1x3x3x8xf32>, %y: tensor<1x3x3x8xf32>) -> (tensor<1x3x3x8xf32>, tensor<1x3x3x8xf32>) {
  %e0 = tensor.empty() : tensor<1x8x3x3xf32>
  // expected-remark @below {{transpose [0, 3, 1, 2] folded into the indexing maps of its readers}}
  %tx = linalg.transpose ins(%x : tensor<1x3x3x8xf32>) outs(%e0 : tensor<1x8x3x3xf32>) permutation = [0, 3, 1, 2]
  %e1 = tensor.empty() : tensor<1x8x3x3xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%tx : tensor<1x8x3x3xf32>) outs(%e1 : tensor<1x8x3x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<1x8x3x3xf32>
  %e2 = tensor.empty() : tensor<1x3x3x8xf32>
  // expected-remark @below {{transpose [0, 2, 3, 1] folded into its producer, which writes the transposed layout}}
  %next = linalg.transpose ins(%a : tensor<1x8x3x3xf32>) outs(%e2 : tensor<1x3x3x8xf32>) permutation = [0, 2, 3, 1]
  %e3 = tensor.empty() : tensor<1x8x3x3xf32>
  // expected-remark @below {{transpose [0, 3, 1, 2] folded into the indexing maps of its readers}}
  %ty = linalg.transpose ins(%y : tensor<1x3x3x8xf32>) outs(%e3 : tensor<1x8x3x3xf32>) permutation = [0, 3, 1, 2]
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a, %ty : tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>) outs(%e1 : tensor<1x8x3x3xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.addf %p, %q : f32
    linalg.yield %t : f32
  } -> tensor<1x8x3x3xf32>
  %e4 = tensor.empty() : tensor<1x3x3x8xf32>
  // expected-remark @below {{transpose [0, 2, 3, 1] folded into its producer, which writes the transposed layout}}
  %out = linalg.transpose ins(%s : tensor<1x8x3x3xf32>) outs(%e4 : tensor<1x3x3x8xf32>) permutation = [0, 2, 3, 1]
  return %next, %out : tensor<1x3x3x8xf32>, tensor<1x3x3x8xf32>
}

// -----

// A transpose of a fill is a fill of the transposed tensor; transposes of
// transposes compose, to nothing when they undo each other.

// CHECK-LABEL: func.func @fill_and_pairs(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x2x3xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x3x2xf32>) permutation = [2, 1, 0]
// CHECK: return %[[F]], %[[X]], %[[T]]
func.func @fill_and_pairs(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<4x3x2xf32>) {
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<2x3x4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e0 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<4x2x3xf32>
  // expected-remark @below {{transpose [2, 0, 1] folded into its producer, a fill}}
  %tf = linalg.transpose ins(%f : tensor<2x3x4xf32>) outs(%e1 : tensor<4x2x3xf32>) permutation = [2, 0, 1]
  %e2 = tensor.empty() : tensor<3x4x2xf32>
  %t1 = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e2 : tensor<3x4x2xf32>) permutation = [1, 2, 0]
  %e3 = tensor.empty() : tensor<2x3x4xf32>
  %back = linalg.transpose ins(%t1 : tensor<3x4x2xf32>) outs(%e3 : tensor<2x3x4xf32>) permutation = [2, 0, 1]
  %e4 = tensor.empty() : tensor<4x3x2xf32>
  // expected-remark @below {{transpose [2, 1, 0] kept: its input is a block argument; it is read by 'func.return', which has no indexing maps}}
  %other = linalg.transpose ins(%t1 : tensor<3x4x2xf32>) outs(%e4 : tensor<4x3x2xf32>) permutation = [1, 0, 2]
  return %tf, %back, %other : tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<4x3x2xf32>
}

// -----

// A convolution's result transposed to NCHW and narrowed to f16 by the one
// op that reads it: the op runs in NHWC (the convolution's epilogue) and the
// transpose moves below it, moving 2-byte instead of 4-byte elements. The
// epilogue then keeps that layout: the transpose below it stays.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @narrowing_epilogue(
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]], {{.*}}} ins(%[[C]], %{{.*}} : tensor<1x4x4x16xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<1x4x4x16xf16>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[R]] : tensor<1x4x4x16xf16>) outs(%{{.*}} : tensor<1x16x4x4xf16>) permutation = [0, 3, 1, 2]
// CHECK: return %[[T]]
func.func @narrowing_epilogue(%x: tensor<1x6x6x8xf16>, %w: tensor<3x3x8x16xf16>, %b: tensor<16xf32>) -> tensor<1x16x4x4xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x6x6x8xf16>, tensor<3x3x8x16xf16>) outs(%f : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %e0 = tensor.empty() : tensor<1x16x4x4xf32>
  // expected-remark @below {{transpose [0, 3, 1, 2] moved below the elementwise op that reads it, which narrows the elements and now runs in the product's layout (its epilogue)}}
  // expected-remark @below {{transpose [0, 3, 1, 2] kept: its producer cannot write the transposed layout: it reads a product's result in place (its epilogue); it is read by 'func.return', which has no indexing maps}}
  %t = linalg.transpose ins(%c : tensor<1x4x4x16xf32>) outs(%e0 : tensor<1x16x4x4xf32>) permutation = [0, 3, 1, 2]
  %e1 = tensor.empty() : tensor<1x16x4x4xf16>
  %r = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t, %b : tensor<1x16x4x4xf32>, tensor<16xf32>) outs(%e1 : tensor<1x16x4x4xf16>) {
  ^bb0(%a: f32, %c0: f32, %o: f16):
    %s = arith.addf %a, %c0 : f32
    %h = arith.truncf %s : f32 to f16
    linalg.yield %h : f16
  } -> tensor<1x16x4x4xf16>
  return %r : tensor<1x16x4x4xf16>
}

// -----

// The same op keeping f32 would move as many bytes after as before: the
// transpose folds into the op's map instead. An op that reads a
// convolution's result in place keeps its layout (it is the epilogue), so
// the transpose after it stays.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[NHWC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @not_narrowing(
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.generic {indexing_maps = [#[[NHWC]], #{{.*}}]{{.*}} ins(%[[C]] : tensor<1x4x4x16xf32>) outs(%{{.*}} : tensor<1x16x4x4xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-LABEL: func.func @epilogue_keeps_layout(
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<1x4x4x16xf32>) outs(%{{.*}} : tensor<1x4x4x16xf32>)
// CHECK: linalg.transpose ins(%[[R]]
func.func @not_narrowing(%x: tensor<1x6x6x8xf16>, %w: tensor<3x3x8x16xf16>) -> tensor<1x16x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x6x6x8xf16>, tensor<3x3x8x16xf16>) outs(%f : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %e0 = tensor.empty() : tensor<1x16x4x4xf32>
  // expected-remark @below {{transpose [0, 3, 1, 2] folded into the indexing maps of its readers}}
  %t = linalg.transpose ins(%c : tensor<1x4x4x16xf32>) outs(%e0 : tensor<1x16x4x4xf32>) permutation = [0, 3, 1, 2]
  %e1 = tensor.empty() : tensor<1x16x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<1x16x4x4xf32>) outs(%e1 : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x4x4xf32>
  return %r : tensor<1x16x4x4xf32>
}

func.func @epilogue_keeps_layout(%x: tensor<1x6x6x8xf16>, %w: tensor<3x3x8x16xf16>) -> tensor<1x16x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x6x6x8xf16>, tensor<3x3x8x16xf16>) outs(%f : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x4x4x16xf32>) outs(%e : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x16xf32>
  %e0 = tensor.empty() : tensor<1x16x4x4xf32>
  // expected-remark @below {{transpose [0, 3, 1, 2] kept: its producer cannot write the transposed layout: it reads a product's result in place (its epilogue); it is read by 'func.return', which has no indexing maps}}
  %t = linalg.transpose ins(%r : tensor<1x4x4x16xf32>) outs(%e0 : tensor<1x16x4x4xf32>) permutation = [0, 3, 1, 2]
  return %t : tensor<1x16x4x4xf32>
}

// -----

// Producers that cannot change layout: a reshape, a body that reads the
// loop indices, one whose result transposes of two permutations read, and
// a reduction. Their transposes stay, each with the reason.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-5: linalg.transpose
func.func @kept(%x: tensor<4x8xf32>, %y: tensor<4x8x2xf32>) -> (tensor<1x4xf32>, tensor<8x4xf32>, tensor<8x4x2xf32>, tensor<2x4x8xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f0 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %ex = tensor.expand_shape %sum [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %idx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %s = arith.addf %a, %fi : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  // expected-remark @below {{transpose [1, 0] kept: its producer cannot write the transposed layout: its body reads the loop indices; it is read by 'func.return', which has no indexing maps}}
  %t1 = linalg.transpose ins(%idx : tensor<4x8xf32>) outs(%e2 : tensor<8x4xf32>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<4x8x2xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y : tensor<4x8x2xf32>) outs(%e3 : tensor<4x8x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x8x2xf32>
  %e4 = tensor.empty() : tensor<8x4x2xf32>
  // expected-remark @below {{transpose [1, 0, 2] kept: its producer cannot write the transposed layout: transposes with different permutations read its result; it is read by 'func.return', which has no indexing maps}}
  %t2 = linalg.transpose ins(%neg : tensor<4x8x2xf32>) outs(%e4 : tensor<8x4x2xf32>) permutation = [1, 0, 2]
  %e5 = tensor.empty() : tensor<2x4x8xf32>
  // expected-remark @below {{transpose [2, 0, 1] kept: its producer cannot write the transposed layout: transposes with different permutations read its result; it is read by 'func.return', which has no indexing maps}}
  %t3 = linalg.transpose ins(%neg : tensor<4x8x2xf32>) outs(%e5 : tensor<2x4x8xf32>) permutation = [2, 0, 1]
  %e6 = tensor.empty() : tensor<1x4xf32>
  // expected-remark @below {{transpose [1, 0] kept: its producer is 'tensor.expand_shape'; it is read by 'func.return', which has no indexing maps}}
  %t4 = linalg.transpose ins(%ex : tensor<4x1xf32>) outs(%e6 : tensor<1x4xf32>) permutation = [1, 0]
  %e7 = tensor.empty() : tensor<4x8xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %pairs = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y : tensor<4x8x2xf32>) outs(%f7 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e8 = tensor.empty() : tensor<8x4xf32>
  // expected-remark @below {{transpose [1, 0] kept: its producer cannot write the transposed layout: it reduces; it is read by 'func.return', which has no indexing maps}}
  %t5 = linalg.transpose ins(%pairs : tensor<4x8xf32>) outs(%e8 : tensor<8x4xf32>) permutation = [1, 0]
  return %t4, %t1, %t2, %t3, %t5 : tensor<1x4xf32>, tensor<8x4xf32>, tensor<8x4x2xf32>, tensor<2x4x8xf32>, tensor<8x4xf32>
}

// -----

// Uses that are not reads (from a review): a transpose that writes into a
// generic's result (its init) leaves the generic's layout alone; a padding
// value defined in the pad's own body keeps the transpose below the pad; an
// op whose elements have no bit width (index) is not taken for a narrowing
// epilogue.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @not_reads(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[Y]] : tensor<4x8xf32>) outs(%[[G]] : tensor<8x4xf32>) permutation = [1, 0]
// CHECK: %[[P:.*]] = tensor.pad
// CHECK: linalg.transpose ins(%[[P]]
// CHECK: return %[[T]]
func.func @not_reads(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %z: tensor<2x3xf32>) -> (tensor<8x4xf32>, tensor<5x2xf32>) {
  %e = tensor.empty() : tensor<8x4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  // expected-remark @below {{transpose [1, 0] kept: its input is a block argument; it is read by 'func.return', which has no indexing maps}}
  %t = linalg.transpose ins(%y : tensor<4x8xf32>) outs(%g : tensor<8x4xf32>) permutation = [1, 0]
  %p = tensor.pad %z low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    %c = arith.constant 9.0 : f32
    tensor.yield %c : f32
  } : tensor<2x3xf32> to tensor<2x5xf32>
  %e1 = tensor.empty() : tensor<5x2xf32>
  // expected-remark @below {{transpose [1, 0] kept: its producer is 'tensor.pad'; it is read by 'func.return', which has no indexing maps}}
  %u = linalg.transpose ins(%p : tensor<2x5xf32>) outs(%e1 : tensor<5x2xf32>) permutation = [1, 0]
  return %t, %u : tensor<8x4xf32>, tensor<5x2xf32>
}

// CHECK-LABEL: func.func @index_elements(
// CHECK: %[[M:.*]] = linalg.matmul
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], {{.*}} ins(%[[M]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<4x2xindex>)
func.func @index_elements(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<4x2xindex> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e0 = tensor.empty() : tensor<4x2xf32>
  // expected-remark @below {{transpose [1, 0] folded into the indexing maps of its readers}}
  %t = linalg.transpose ins(%m : tensor<2x4xf32>) outs(%e0 : tensor<4x2xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4x2xindex>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<4x2xf32>) outs(%e1 : tensor<4x2xindex>) {
  ^bb0(%a: f32, %o: index):
    %i = arith.fptosi %a : f32 to i64
    %j = arith.index_cast %i : i64 to index
    linalg.yield %j : index
  } -> tensor<4x2xindex>
  return %r : tensor<4x2xindex>
}

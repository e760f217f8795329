// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-fuse-elementwise))' | FileCheck %s

// A square read by a 3x3 box sum: each element is read 9 times, but the
// multiply and the box sum's add become one FMA, so it is inlined and the
// 66x66 intermediate disappears.

#plane = affine_map<(i, j) -> (i, j)>
#win_in = affine_map<(i, j, a, b) -> (i + a, j + b)>
#win_w = affine_map<(i, j, a, b) -> (a, b)>
#win_out = affine_map<(i, j, a, b) -> (i, j)>
// CHECK-LABEL: func.func @square_into_box_sum(
// CHECK-SAME: %[[IX:.*]]: tensor<66x66xf32>
// CHECK-NOT: tensor<66x66xf32>) outs
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]{{.*}} ins(%[[IX]], %{{.*}} : tensor<66x66xf32>, tensor<3x3xf32>)
// CHECK: %[[SQ:.*]] = arith.mulf %[[X:.*]], %[[X]] : f32
// CHECK: arith.addf %{{.*}}, %[[SQ]] : f32
// CHECK-NOT: linalg.generic
func.func @square_into_box_sum(%ix: tensor<66x66xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<66x66xf32>
  // expected-remark @below {{inlined into 1 consumer(s): each element evaluated 8.46 times at 0 ops (its multiply becomes an FMA with the consumer's add) (0 recomputed ops per element, no 'tensor<66x66xf32>' intermediate)}}
  %ixx = linalg.generic {indexing_maps = [#plane, #plane], iterator_types = ["parallel", "parallel"]}
      ins(%ix : tensor<66x66xf32>) outs(%e : tensor<66x66xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = arith.mulf %x, %x : f32
    linalg.yield %p : f32
  } -> tensor<66x66xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %se = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%se : tensor<64x64xf32>) -> tensor<64x64xf32>
  %sxx = linalg.generic {indexing_maps = [#win_in, #win_w, #win_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%ixx, %window : tensor<66x66xf32>, tensor<3x3xf32>) outs(%init : tensor<64x64xf32>) {
  ^bb0(%p: f32, %unused: f32, %acc: f32):
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %sxx : tensor<64x64xf32>
}

// -----

// A chain of elementwise ops, each read once: one generic remains, reading
// %x once (the inlined op and its consumer both read it).

#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<1024xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<1024xf32>)
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  // expected-remark @below {{inlined into 1 consumer(s): each element evaluated 1 times at 1 ops (0 recomputed ops per element}}
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  // expected-remark @below {{inlined into 1 consumer(s): each element evaluated 1 times at 1 ops (its multiply becomes an FMA with the consumer's add)}}
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %x : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.mulf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %x : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.subf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %c : tensor<1024xf32>
}

// -----

// Luminance (5 ops) read by a 5-tap blur: recomputing it 5 times per
// element costs more than storing it once. Both ops stay.

#chan_r = affine_map<(i, j) -> (0, i, j)>
#chan_g = affine_map<(i, j) -> (1, i, j)>
#plane = affine_map<(i, j) -> (i, j)>
#tap_y = affine_map<(i, j, t) -> (i + t, j)>
#tap_w = affine_map<(i, j, t) -> (t)>
#tap_out = affine_map<(i, j, t) -> (i, j)>
// CHECK-LABEL: func.func @costly_producer_of_stencil(
// CHECK: %[[GRAY:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[GRAY]], %{{.*}} : tensor<68x64xf32>, tensor<5xf32>)
func.func @costly_producer_of_stencil(%img: tensor<2x68x64xf32>, %w: tensor<5xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ge = tensor.empty() : tensor<68x64xf32>
  // expected-remark @below {{not inlined into its consumers: each element evaluated 4.71 times at 3 ops recomputes 11.1 ops per element, more than the 1 its store costs}}
  %gray = linalg.generic {indexing_maps = [#chan_r, #chan_g, #plane], iterator_types = ["parallel", "parallel"]}
      ins(%img, %img : tensor<2x68x64xf32>, tensor<2x68x64xf32>) outs(%ge : tensor<68x64xf32>) {
  ^bb0(%r: f32, %g: f32, %o: f32):
    %k = arith.constant 0.5 : f32
    %a = arith.mulf %r, %k : f32
    %b = arith.mulf %g, %k : f32
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<68x64xf32>
  %be = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%be : tensor<64x64xf32>) -> tensor<64x64xf32>
  %blur = linalg.generic {indexing_maps = [#tap_y, #tap_w, #tap_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%gray, %w : tensor<68x64xf32>, tensor<5xf32>) outs(%init : tensor<64x64xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %blur : tensor<64x64xf32>
}

// -----

// An exp read by two consumers would be evaluated twice (16 ops each);
// an add read by the same two is cheap enough to repeat.

#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @two_readers(
// CHECK: %[[EXP:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[EXP]], %{{.*}} :
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} ins(%[[EXP]], %{{.*}} :
// CHECK: arith.addf
// CHECK: arith.subf
func.func @two_readers(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %e = tensor.empty() : tensor<1024xf32>
  // expected-remark @below {{not inlined into its consumers: each element evaluated 2 times at 16 ops recomputes 16 ops per element}}
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  // expected-remark @below {{inlined into 2 consumer(s): each element evaluated 2 times at 1 ops (1 recomputed ops per element}}
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.addf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ex, %sum : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.mulf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ex, %sum : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %r = arith.subf %v, %w : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %a, %b : tensor<1024xf32>, tensor<1024xf32>
}

// -----

// A result the function returns stays: inlining would not remove it.

#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @returned(
// CHECK: %[[A:.*]] = linalg.generic
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] :
// CHECK: return %[[A]], %[[B]]
func.func @returned(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %e = tensor.empty() : tensor<1024xf32>
  // expected-remark @below {{not inlined into its consumers: its result is also used by 'func.return'}}
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %a, %b : tensor<1024xf32>, tensor<1024xf32>
}

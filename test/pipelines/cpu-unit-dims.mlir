// blur_x_blur_y in the form the Python frontends emit it (F.conv2d /
// tf.nn.conv2d with one channel): NCHW views with a unit channel dim,
// six-loop stencils with a unit tap loop, the taps a 4-D constant.
// The CPU pipeline folds the unit loops first (linalg-fold-unit-extent-dims),
// so this compiles to the same single fused nest as the hand-written blur
// (cpu-fusion.mlir): one OpenMP loop over (channel, row tile, column tile),
// the x blur of a tile in a per-thread stack buffer, no full-size
// intermediate.
// RUN: rm -rf %t.dump
// RUN: tessel-compile %s --target=cpu --target-options='vector-bits=512 vector-registers=32 l1=32768 l2=1048576 cores=2' -o %t.mlir --dump-dir=%t.dump
// RUN: cat %t.dump/*-func.func-linalg-fold-unit-extent-dims.mlir | FileCheck %s --check-prefix=FOLD
// RUN: cat %t.dump/*-func.func-tessel-sink-stream-fences.mlir | FileCheck %s

// After the fold: both stencils are 4-loop generics on rank-3 tensors.
// FOLD-LABEL: func.func @main(
// FOLD-COUNT-2: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// FOLD-NOT: linalg.generic

// CHECK-LABEL: func.func @main(
// CHECK-NOT: memref<3x1x2048x2044xf32>
// CHECK-NOT: memref<3x2048x2044xf32>
// CHECK: omp.parallel
// CHECK-NEXT: memref.alloca() {{.*}} : memref<1x132x512xf32>
// CHECK-NEXT: omp.wsloop
// CHECK-NEXT: omp.loop_nest ({{.*}}) : index = ({{.*}}) to (%c3, %c2044, %c2044) step ({{.*}}) collapse(3)
// CHECK-NOT: omp.wsloop
module {
  func.func @main(%img: tensor<3x2048x2048xf32>) -> tensor<3x2044x2044xf32> {
    %flat = tensor.collapse_shape %img [[0, 1, 2]] : tensor<3x2048x2048xf32> into tensor<12582912xf32>
    %x = tensor.expand_shape %flat [[0, 1, 2, 3]] output_shape [3, 1, 2048, 2048] : tensor<12582912xf32> into tensor<3x1x2048x2048xf32>
    %kx = arith.constant dense<[[[[0.0625, 0.25, 0.375, 0.25, 0.0625]]]]> : tensor<1x1x1x5xf32>
    %ky = arith.constant dense<[[[[0.0625], [0.25], [0.375], [0.25], [0.0625]]]]> : tensor<1x1x5x1xf32>
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty() : tensor<3x1x2048x2044xf32>
    %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3x1x2048x2044xf32>) -> tensor<3x1x2048x2044xf32>
    %bx = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %kx : tensor<3x1x2048x2048xf32>, tensor<1x1x1x5xf32>) outs(%i1 : tensor<3x1x2048x2044xf32>) {
    ^bb0(%p: f32, %k: f32, %acc: f32):
      %m = arith.mulf %p, %k : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<3x1x2048x2044xf32>
    %e2 = tensor.empty() : tensor<3x1x2044x2044xf32>
    %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x1x2044x2044xf32>) -> tensor<3x1x2044x2044xf32>
    %by = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%bx, %ky : tensor<3x1x2048x2044xf32>, tensor<1x1x5x1xf32>) outs(%i2 : tensor<3x1x2044x2044xf32>) {
    ^bb0(%p: f32, %k: f32, %acc: f32):
      %m = arith.mulf %p, %k : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<3x1x2044x2044xf32>
    %oflat = tensor.collapse_shape %by [[0, 1, 2, 3]] : tensor<3x1x2044x2044xf32> into tensor<12533808xf32>
    %out = tensor.expand_shape %oflat [[0, 1, 2]] output_shape [3, 2044, 2044] : tensor<12533808xf32> into tensor<3x2044x2044xf32>
    return %out : tensor<3x2044x2044xf32>
  }
}

// blur_x_blur_y through the whole CPU pipeline is one fused loop nest: one
// OpenMP worksharing loop over (channel, row tile, column tile); in each
// iteration the x blur of the tile and its 4 halo rows goes to a tile
// buffer, and the y blur reads it back; the 3x2048x2044 intermediate of the
// unfused program never exists. Checked on the IR after
// func.func(tessel-sink-stream-fences, tessel-hoist-thread-buffers) (right
// after convert-scf-to-openmp; the dump is named for the first), where the
// loops are still visible.
// RUN: rm -rf %t.dump
// RUN: tessel-compile %s --target=cpu --target-options='vector-bits=512 vector-registers=32 l1=32768 l2=1048576 cores=2' -o %t.mlir --dump-dir=%t.dump
// RUN: cat %t.dump/*-func.func-tessel-sink-stream-fences.mlir | FileCheck %s

// CHECK-LABEL: func.func @blur_x_blur_y(
// CHECK-NOT: memref<3x2048x2044xf32>
// The tile buffer of the x blur (rows of the tile plus the halo), on the
// stack, taken once per thread.
// CHECK: omp.parallel
// CHECK-NEXT: %[[TILE:.*]] = memref.alloca() {{.*}} : memref<1x132x512xf32>
// CHECK-NEXT: omp.wsloop
// CHECK-NEXT: omp.loop_nest ({{.*}}) : index = ({{.*}}) to (%c3, %c2044, %c2044) step ({{.*}}) collapse(3)
// CHECK-NOT: memref.alloc{{a?}}(
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[TILE]] to offset: [0]
// x blur: five shifted reads of an input row per 64-lane block, into the tile.
// CHECK: scf.for
// CHECK-COUNT-5: vector.transfer_read %arg0
// CHECK: vector.transfer_write %{{.*}}, %[[VIEW]]
// y blur: five rows of the tile per block, into the output.
// CHECK: scf.for
// CHECK-COUNT-5: vector.transfer_read %[[VIEW]]
// CHECK: vector.transfer_write
// CHECK-NOT: omp.wsloop
// CHECK-NOT: memref<3x2048x2044xf32>
// CHECK: return

#in_x = affine_map<(c, i, j, t) -> (c, i, j + t)>
#in_y = affine_map<(c, i, j, t) -> (c, i + t, j)>
#taps = affine_map<(c, i, j, t) -> (t)>
#out  = affine_map<(c, i, j, t) -> (c, i, j)>
func.func @blur_x_blur_y(%img: tensor<3x2048x2048xf32>) -> tensor<3x2044x2044xf32> {
  %w = arith.constant dense<[0.0625, 0.25, 0.375, 0.25, 0.0625]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<3x2048x2044xf32>
  %ix = linalg.fill ins(%zero : f32) outs(%ex : tensor<3x2048x2044xf32>) -> tensor<3x2048x2044xf32>
  %bx = linalg.generic {indexing_maps = [#in_x, #taps, #out],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%img, %w : tensor<3x2048x2048xf32>, tensor<5xf32>)
      outs(%ix : tensor<3x2048x2044xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x2048x2044xf32>
  %ey = tensor.empty() : tensor<3x2044x2044xf32>
  %iy = linalg.fill ins(%zero : f32) outs(%ey : tensor<3x2044x2044xf32>) -> tensor<3x2044x2044xf32>
  %by = linalg.generic {indexing_maps = [#in_y, #taps, #out],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%bx, %w : tensor<3x2048x2044xf32>, tensor<5xf32>)
      outs(%iy : tensor<3x2044x2044xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x2044x2044xf32>
  return %by : tensor<3x2044x2044xf32>
}

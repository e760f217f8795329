// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-convert-conv-to-matmul{implicit-gemm=false}))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-convert-conv-to-matmul{max-im2col-mib=1 convert-nchw=false}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=OPTS
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-convert-conv-to-matmul{generalize-windows=false}))' 2>&1 | FileCheck %s --check-prefix=NOWIN
// With a cpu target, implicit GEMM (the default): the patch copy is left
// whole for tessel-vectorize-matmul to read through.
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-convert-conv-to-matmul))' 2>/dev/null | FileCheck %s --check-prefix=IMPLICIT
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-convert-conv-to-matmul))' 2>&1 >/dev/null | FileCheck %s --check-prefix=IMPLICIT-REMARK

// 1x1, stride 1: a matmul on collapsed views, nothing copied.
// CHECK-LABEL: func.func @conv_1x1(
// CHECK-SAME: %[[X:.*]]: tensor<2x14x14x64xf32>, %[[W:.*]]: tensor<1x1x64x256xf32>, %[[I:.*]]: tensor<2x14x14x256xf32>)
// CHECK-NOT: linalg.generic
// CHECK-DAG: %[[A:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2], [3]] : tensor<2x14x14x64xf32> into tensor<392x64xf32>
// CHECK-DAG: %[[B:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<1x1x64x256xf32> into tensor<64x256xf32>
// CHECK-DAG: %[[C:.*]] = tensor.collapse_shape %[[I]] {{\[}}[0, 1, 2], [3]] : tensor<2x14x14x256xf32> into tensor<392x256xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<392x64xf32>, tensor<64x256xf32>) outs(%[[C]] : tensor<392x256xf32>)
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1, 2], [3]] output_shape [2, 14, 14, 256] : tensor<392x256xf32> into tensor<2x14x14x256xf32>
// CHECK-NOT: linalg.conv
// CHECK: return %[[Y]]
func.func @conv_1x1(%x: tensor<2x14x14x64xf32>, %w: tensor<1x1x64x256xf32>, %init: tensor<2x14x14x256xf32>) -> tensor<2x14x14x256xf32> {
  // expected-remark @below {{conv_2d_nhwc_hwcf (1x1 filter, stride 1, dilation 1) as linalg.matmul M=392 N=256 K=64 on collapsed views of the input, filter and output: no copy}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x14x14x64xf32>, tensor<1x1x64x256xf32>) outs(%init : tensor<2x14x14x256xf32>) -> tensor<2x14x14x256xf32>
  return %y : tensor<2x14x14x256xf32>
}

// -----

// 3x3, stride 1, padding 1: the tensor.pad becomes a copy over the cores,
// an scf.forall over the padded rows (n, h) whose pieces of C are read
// from the input inside it and the padding value outside. Then im2col into
// [N, OH, OW, KH, KW, C] = [N*OH*OW, KH*KW*C] without divisions. The copy
// is an scf.forall over the (n, oh) rows (it runs on the cores) of scf.for
// loops over ow, kh, kw (KW*C = 96 is over 64: one piece per kw), each
// piece one vector transfer of C = 32 elements.
// CHECK-DAG: #[[WOFF:.*]] = affine_map<(d0, d1) -> (d0 + d1)>
// CHECK-DAG: #[[RD:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0, d2, d3)>
// CHECK-LABEL: func.func @conv_3x3_pad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x16x16x32xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[XP:.*]] = scf.forall (%[[PN:[^,]+]], %[[PH:[^)]+]]) in (1, 18) shared_outs(%[[PS:[^ ]+]] = %{{.*}}) -> (tensor<1x18x18x32xf32>)
// CHECK: %[[PROW:.*]] = tensor.extract_slice %[[PS]][%[[PN]], %[[PH]], 0, 0] [1, 1, 18, 32] [1, 1, 1, 1]
// CHECK: scf.for %[[PW:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[PROW]])
// CHECK: scf.for %[[PC:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PACC:[^ ]+]] = %{{.*}})
// CHECK: %[[PIECE:.*]] = scf.if %{{.*}} -> (vector<32xf32>) {
// CHECK: vector.transfer_read %[[X]][%[[PN]], %{{.*}}, %{{.*}}, %[[PC]]], %{{.*}} {in_bounds = [true]} : tensor<1x16x16x32xf32>, vector<32xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}} : vector<32xf32>
// CHECK: vector.transfer_write %[[PIECE]], %[[PACC]][%{{.*}}, %{{.*}}, %[[PW]], %[[PC]]] {in_bounds = [true]} : vector<32xf32>, tensor<1x1x18x32xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[PS]][%[[PN]], %[[PH]], 0, 0] [1, 1, 18, 32]
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x16x16x3x3x32xf32>
// CHECK: %[[P:.*]] = scf.forall (%[[N:[^,]+]], %[[OH:[^)]+]]) in (1, 16) shared_outs(%[[S:[^ ]+]] = %[[E]]) -> (tensor<1x16x16x3x3x32xf32>)
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %[[XP]][%[[N]], %[[OH]], 0, 0] [1, 3, 18, 32] [1, 1, 1, 1] : tensor<1x18x18x32xf32> to tensor<1x3x18x32xf32>
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[S]][%[[N]], %[[OH]], 0, 0, 0, 0] [1, 1, 16, 3, 3, 32] [1, 1, 1, 1, 1, 1]
// CHECK: %[[ROWOUT:.*]] = scf.for %[[OW:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ROW]])
// CHECK: scf.for %[[KH:[^ ]+]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[KW:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[^ ]+]] = %{{.*}})
// CHECK: %[[W:.*]] = affine.apply #[[WOFF]](%[[OW]], %[[KW]])
// CHECK: %[[IN:.*]] = tensor.extract_slice %[[ROWS]][0, %[[KH]], %[[W]], 0] [1, 1, 1, 32] [1, 1, 1, 1] : tensor<1x3x18x32xf32> to tensor<1x1x1x32xf32>
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[ACC]][0, 0, %[[OW]], %[[KH]], %[[KW]], 0] [1, 1, 1, 1, 1, 32] [1, 1, 1, 1, 1, 1]
// CHECK: %[[V:.*]] = vector.transfer_read %[[IN]]{{.*}} {permutation_map = #[[RD]]} : tensor<1x1x1x32xf32>, vector<1x1x1x1x1x32xf32>
// CHECK: %[[WR:.*]] = vector.transfer_write %[[V]], %[[OUT]]{{.*}} : vector<1x1x1x1x1x32xf32>, tensor<1x1x1x1x1x32xf32>
// CHECK: tensor.insert_slice %[[WR]] into %[[ACC]][0, 0, %[[OW]], %[[KH]], %[[KW]], 0] [1, 1, 1, 1, 1, 32]
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[ROWOUT]] into %[[S]][%[[N]], %[[OH]], 0, 0, 0, 0] [1, 1, 16, 3, 3, 32] [1, 1, 1, 1, 1, 1]
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<1x16x16x3x3x32xf32> into tensor<256x288xf32>
// CHECK: %[[B:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<3x3x32x64xf32> into tensor<288x64xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<1x16x16x64xf32> into tensor<256x64xf32>
// The zero padding the patches read, for tessel-vectorize-matmul: output
// 16x16, filter 3x3x32, strides and dilations 1, the input at rows and
// columns [1, 17).
// CHECK: linalg.matmul {tessel.zero_padded_patches = array<i64: 16, 16, 3, 3, 32, 1, 1, 1, 1, 1, 1, 16, 16>} ins(%[[A]], %[[B]] : tensor<256x288xf32>, tensor<288x64xf32>) outs(%[[C]] : tensor<256x64xf32>)
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 16, 16, 64] : tensor<256x64xf32> into tensor<1x16x16x64xf32>
// CHECK-NOT: linalg.conv
// CHECK-NOT: linalg.generic
func.func @conv_3x3_pad(%x: tensor<1x16x16x32xf32>, %w: tensor<3x3x32x64xf32>) -> tensor<1x16x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x32xf32> to tensor<1x18x18x32xf32>
  %e = tensor.empty() : tensor<1x16x16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  // expected-remark @below {{conv_2d_nhwc_hwcf (3x3 filter, stride 1, dilation 1) as im2col into tensor<256x288xf32> (288.0 KiB, a copy of the input patches, 7.1x the input) then linalg.matmul M=256 N=64 K=288 with the filter and output as collapsed views; the input's padding copied over the cores row by row}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%init : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %y : tensor<1x16x16x64xf32>
}

// -----

// 3x3, stride 2, and a dilated one: strides and dilations are the
// coefficients of the row and piece offsets. Stride 2 (KW*C = 48): one
// piece per (ow, kh), all of KW*C, read at W = ow*2. Dilation 2: the kw
// taps are not contiguous, one piece of C per kw, read at W = ow + kw*2
// and H = kh*2.
// CHECK-DAG: #[[X2:.*]] = affine_map<(d0) -> (d0 * 2)>
// CHECK-DAG: #[[DW:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 2)>
// CHECK-LABEL: func.func @conv_3x3_s2(
// CHECK: scf.forall (%{{[^,]+}}, %[[OH:[^)]+]]) in (2, 8)
// CHECK: affine.apply #[[X2]](%[[OH]])
// CHECK: tensor.extract_slice %{{.*}} [1, 3, 17, 16] [1, 1, 1, 1] : tensor<2x17x17x16xf32> to tensor<1x3x17x16xf32>
// CHECK: scf.for %[[OW:[^ ]+]] =
// CHECK: scf.for %[[KH:[^ ]+]] =
// CHECK-NOT: scf.for
// CHECK: %[[W:.*]] = affine.apply #[[X2]](%[[OW]])
// CHECK: tensor.extract_slice %{{.*}}[0, %[[KH]], %[[W]], 0] [1, 1, 3, 16] [1, 1, 1, 1] : tensor<1x3x17x16xf32> to tensor<1x1x3x16xf32>
// The piece (3 taps of 16 channels, contiguous in both) is copied on
// collapsed 1-D views in vectors of 16.
// CHECK: %[[SRC:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3]] : tensor<1x1x3x16xf32> into tensor<48xf32>
// CHECK: %[[DST:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3, 4, 5]] : tensor<1x1x1x1x3x16xf32> into tensor<48xf32>
// CHECK: %[[P0:.*]] = vector.transfer_read %[[SRC]][%c0{{[_0-9]*}}], %{{.*}} {in_bounds = [true]} : tensor<48xf32>, vector<16xf32>
// CHECK: %[[D0:.*]] = vector.transfer_write %[[P0]], %[[DST]][%c0{{[_0-9]*}}] {in_bounds = [true]} : vector<16xf32>, tensor<48xf32>
// CHECK: %[[P1:.*]] = vector.transfer_read %[[SRC]][%c16{{[_0-9]*}}], %{{.*}} {in_bounds = [true]} : tensor<48xf32>, vector<16xf32>
// CHECK: %[[D1:.*]] = vector.transfer_write %[[P1]], %[[D0]][%c16{{[_0-9]*}}] {in_bounds = [true]} : vector<16xf32>, tensor<48xf32>
// CHECK: %[[P2:.*]] = vector.transfer_read %[[SRC]][%c32{{[_0-9]*}}], %{{.*}} {in_bounds = [true]} : tensor<48xf32>, vector<16xf32>
// CHECK: %[[D2:.*]] = vector.transfer_write %[[P2]], %[[D1]][%c32{{[_0-9]*}}] {in_bounds = [true]} : vector<16xf32>, tensor<48xf32>
// CHECK: tensor.expand_shape %[[D2]] {{\[}}[0, 1, 2, 3, 4, 5]] output_shape [1, 1, 1, 1, 3, 16] : tensor<48xf32> into tensor<1x1x1x1x3x16xf32>
// CHECK: scf.forall.in_parallel
// CHECK: tensor.collapse_shape %{{.*}} : tensor<2x8x8x3x3x16xf32> into tensor<128x144xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x144xf32>, tensor<144x32xf32>) outs(%{{.*}} : tensor<128x32xf32>)
func.func @conv_3x3_s2(%x: tensor<2x17x17x16xf32>, %w: tensor<3x3x16x32xf32>, %init: tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32> {
  // expected-remark @below {{conv_2d_nhwc_hwcf (3x3 filter, stride 2, dilation 1) as im2col into tensor<128x144xf32>}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x17x17x16xf32>, tensor<3x3x16x32xf32>) outs(%init : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  return %y : tensor<2x8x8x32xf32>
}
// CHECK-LABEL: func.func @conv_3x3_dilated(
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (1, 8) {{.*}} -> (tensor<1x8x8x3x3x8xf32>)
// CHECK: tensor.extract_slice %{{.*}} [1, 5, 12, 8] [1, 1, 1, 1] : tensor<1x12x12x8xf32> to tensor<1x5x12x8xf32>
// CHECK: scf.for %[[OW:[^ ]+]] =
// CHECK: scf.for %[[KH:[^ ]+]] =
// CHECK: scf.for %[[KW:[^ ]+]] =
// CHECK: %[[H:.*]] = affine.apply #[[X2]](%[[KH]])
// CHECK: %[[W:.*]] = affine.apply #[[DW]](%[[OW]], %[[KW]])
// CHECK: tensor.extract_slice %{{.*}}[0, %[[H]], %[[W]], 0] [1, 1, 1, 8] [1, 1, 1, 1]
// CHECK: vector.transfer_read {{.*}} : tensor<1x1x1x8xf32>, vector<1x1x1x1x1x8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<1x1x1x1x1x8xf32>, tensor<1x1x1x1x1x8xf32>
// CHECK: scf.forall.in_parallel
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x72xf32>, tensor<72x8xf32>) outs(%{{.*}} : tensor<64x8xf32>)
func.func @conv_3x3_dilated(%x: tensor<1x12x12x8xf32>, %w: tensor<3x3x8x8xf32>, %init: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  // expected-remark @below {{conv_2d_nhwc_hwcf (3x3 filter, stride 1, dilation 2) as im2col into tensor<64x72xf32>}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x12x12x8xf32>, tensor<3x3x8x8xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

// The ResNet stem: 7x7, stride 2, padding 3, three input channels. With
// C = 3 a piece is all of KW*C = 7x3 (one per (ow, kh)).
// CHECK-LABEL: func.func @conv_stem(
// CHECK-NOT: tensor.pad
// CHECK: %[[XP:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (1, 38) {{.*}} -> (tensor<1x38x38x3xf32>)
// CHECK: scf.if %{{.*}} -> (vector<3xf32>)
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (1, 16) {{.*}} -> (tensor<1x16x16x7x7x3xf32>)
// CHECK: tensor.extract_slice %[[XP]][{{.*}}] [1, 7, 37, 3] [1, 1, 1, 1] : tensor<1x38x38x3xf32> to tensor<1x7x37x3xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: scf.for
// The 21 floats of a piece: two vectors of 16, at 0 and at 5 (overlapping:
// the second writes elements 5-15 again, with the same values).
// CHECK: %[[SRC:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x1x7x3xf32> into tensor<21xf32>
// CHECK: %[[DST:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x1x1x1x7x3xf32> into tensor<21xf32>
// CHECK: %[[P0:.*]] = vector.transfer_read %[[SRC]][%c0{{[_0-9]*}}], %{{.*}} : tensor<21xf32>, vector<16xf32>
// CHECK: %[[D0:.*]] = vector.transfer_write %[[P0]], %[[DST]][%c0{{[_0-9]*}}] {{.*}} : vector<16xf32>, tensor<21xf32>
// CHECK: %[[P1:.*]] = vector.transfer_read %[[SRC]][%c5{{[_0-9]*}}], %{{.*}} : tensor<21xf32>, vector<16xf32>
// CHECK: %[[D1:.*]] = vector.transfer_write %[[P1]], %[[D0]][%c5{{[_0-9]*}}] {{.*}} : vector<16xf32>, tensor<21xf32>
// CHECK-NOT: vector.transfer_write
// CHECK: tensor.expand_shape %[[D1]] {{.*}} : tensor<21xf32> into tensor<1x1x1x1x7x3xf32>
// CHECK: scf.forall.in_parallel
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x16x16x7x7x3xf32> into tensor<256x147xf32>
// CHECK: tensor.collapse_shape %{{.*}} : tensor<7x7x3x64xf32> into tensor<147x64xf32>
// CHECK: linalg.matmul {tessel.zero_padded_patches = array<i64: 16, 16, 7, 7, 3, 2, 2, 1, 1, 3, 3, 32, 32>} ins(%{{.*}}, %{{.*}} : tensor<256x147xf32>, tensor<147x64xf32>) outs(%{{.*}} : tensor<256x64xf32>)
func.func @conv_stem(%x: tensor<1x32x32x3xf32>, %w: tensor<7x7x3x64xf32>) -> tensor<1x16x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 3, 3, 0] high[0, 3, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x3xf32> to tensor<1x38x38x3xf32>
  %e = tensor.empty() : tensor<1x16x16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  // expected-remark @below {{conv_2d_nhwc_hwcf (7x7 filter, stride 2, dilation 1) as im2col into tensor<256x147xf32> (147.0 KiB}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x38x38x3xf32>, tensor<7x7x3x64xf32>) outs(%init : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %y : tensor<1x16x16x64xf32>
}

// -----

// Batch 1 as linalg-fold-unit-extent-dims leaves it: the pad is 3-D
// ([H, W, C]) behind an expand_shape to NHWC; its copy is an scf.forall
// over the padded rows h alone.
// CHECK-LABEL: func.func @conv_pad_batch1_folded(
// CHECK-NOT: tensor.pad
// CHECK: %[[XP:.*]] = scf.forall (%[[PH:[^)]+]]) in (10) shared_outs(%[[PS:[^ ]+]] = %{{.*}}) -> (tensor<10x10x16xf32>)
// CHECK: scf.if %{{.*}} -> (vector<16xf32>)
// CHECK: vector.transfer_read %{{.*}} : tensor<8x8x16xf32>, vector<16xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[PS]][%[[PH]], 0, 0] [1, 10, 16] [1, 1, 1]
// CHECK: tensor.expand_shape %[[XP]] {{\[}}[0, 1], [2], [3]] output_shape [1, 10, 10, 16]
// CHECK: linalg.matmul
func.func @conv_pad_batch1_folded(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x16xf32>, %init: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = tensor.collapse_shape %x [[0, 1], [2], [3]] : tensor<1x8x8x16xf32> into tensor<8x8x16xf32>
  %p = tensor.pad %c low[1, 1, 0] high[1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index):
    tensor.yield %zero : f32
  } : tensor<8x8x16xf32> to tensor<10x10x16xf32>
  %xp = tensor.expand_shape %p [[0, 1], [2], [3]] output_shape [1, 10, 10, 16] : tensor<10x10x16xf32> into tensor<1x10x10x16xf32>
  // expected-remark @below {{; the input's padding copied over the cores row by row}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%init : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %y : tensor<1x8x8x16xf32>
}

// -----

// The padding value defined inside the pad's region (as frontends write
// it before canonicalization) is copied out with the rows.
// CHECK-LABEL: func.func @conv_pad_value_in_region(
// CHECK-NOT: tensor.pad
// CHECK: %[[V:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (1, 10)
// CHECK: vector.broadcast %[[V]] : f32 to vector<16xf32>
// CHECK: linalg.matmul
func.func @conv_pad_value_in_region(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x16xf32>, %init: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    %half = arith.constant 0.5 : f32
    tensor.yield %half : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  // expected-remark @below {{; the input's padding copied over the cores row by row}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%init : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %y : tensor<1x8x8x16xf32>
}

// -----

// A padded input something else reads too keeps its tensor.pad (the
// copy over the cores would be a second copy of it).
// CHECK-LABEL: func.func @conv_pad_shared(
// CHECK: %[[XP:.*]] = tensor.pad
// CHECK: tensor.extract_slice %[[XP]]
// CHECK: return %{{.*}}, %[[XP]]
func.func @conv_pad_shared(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x16xf32>, %init: tensor<1x8x8x16xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x10x10x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  // expected-remark @below {{with the filter and output as collapsed views}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x16xf32>) outs(%init : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %y, %xp : tensor<1x8x8x16xf32>, tensor<1x10x10x16xf32>
}

// -----

// NCHW, N = 1: filter [F, C*KH*KW] times patches [C*KH*KW, OH*OW] writes
// the output in place; a 1x1 stride-1 one reads the input as a view.
// CHECK-DAG: #[[NCHW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d0, d1 + d4, d2 + d5)>
// CHECK-LABEL: func.func @nchw_3x3(
// CHECK-SAME: %[[X:.*]]: tensor<1x8x10x10xf32>, %[[W:.*]]: tensor<16x8x3x3xf32>, %[[I:.*]]: tensor<1x16x8x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[NCHW]], #{{.*}}]{{.*}} ins(%[[X]] : tensor<1x8x10x10xf32>) outs(%{{.*}} : tensor<8x3x3x1x8x8xf32>)
// CHECK: %[[B:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<8x3x3x1x8x8xf32> into tensor<72x64xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<16x8x3x3xf32> into tensor<16x72xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[I]] {{\[}}[0, 1], [2, 3]] : tensor<1x16x8x8xf32> into tensor<16x64xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x72xf32>, tensor<72x64xf32>) outs(%[[C]] : tensor<16x64xf32>)
// CHECK: tensor.expand_shape %[[M]] {{\[}}[0, 1], [2, 3]] output_shape [1, 16, 8, 8] : tensor<16x64xf32> into tensor<1x16x8x8xf32>
// CHECK-NOT: linalg.transpose
func.func @nchw_3x3(%x: tensor<1x8x10x10xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  // expected-remark @below {{conv_2d_nchw_fchw (3x3 filter, stride 1, dilation 1) as linalg.matmul M=16 N=64 K=72 (filter x patches, in the NCHW layout: no transpose to NHWC); im2col into tensor<72x64xf32> (18.0 KiB); the output is a collapsed view (N=1)}}
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %y : tensor<1x16x8x8xf32>
}
// CHECK-LABEL: func.func @nchw_1x1(
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<1x64x7x7xf32> into tensor<64x49xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<64x49xf32>) outs(%{{.*}} : tensor<32x49xf32>)
func.func @nchw_1x1(%x: tensor<1x64x7x7xf32>, %w: tensor<32x64x1x1xf32>, %init: tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32> {
  // expected-remark @below {{conv_2d_nchw_fchw (1x1 filter, stride 1, dilation 1) as linalg.matmul M=32 N=49 K=64 (filter x patches, in the NCHW layout: no transpose to NHWC); the input is a collapsed view: no copy}}
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x64x7x7xf32>, tensor<32x64x1x1xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %y : tensor<1x32x7x7xf32>
}

// -----

// NCHW, N = 2: only the init and the result are transposed (NFHW <-> FNHW).
// CHECK-LABEL: func.func @nchw_batch(
// CHECK-SAME: %{{.*}}: tensor<2x3x19x21xf32>, %{{.*}}: tensor<4x3x3x3xf32>, %[[I:.*]]: tensor<2x4x9x10xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x3x3x2x9x10xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[I]] : tensor<2x4x9x10xf32>) outs(%{{.*}} : tensor<4x2x9x10xf32>) permutation = [1, 0, 2, 3]
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2, 3]] : tensor<4x2x9x10xf32> into tensor<4x180xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x27xf32>, tensor<27x180xf32>) outs(%[[C]] : tensor<4x180xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[M]] {{\[}}[0], [1, 2, 3]] output_shape [4, 2, 9, 10]
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[E]] : tensor<4x2x9x10xf32>) outs(%[[I]] : tensor<2x4x9x10xf32>) permutation = [1, 0, 2, 3]
// CHECK: return %[[Y]]
func.func @nchw_batch(%x: tensor<2x3x19x21xf32>, %f: tensor<4x3x3x3xf32>, %init: tensor<2x4x9x10xf32>) -> tensor<2x4x9x10xf32> {
  // expected-remark @below {{N=2: the output (and its init) transposed between NFHW and FNHW (2.8 KiB each way)}}
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %f : tensor<2x3x19x21xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<2x4x9x10xf32>) -> tensor<2x4x9x10xf32>
  return %y : tensor<2x4x9x10xf32>
}

// -----

// Depthwise convolutions and pooling are no matmul (each channel is
// reduced on its own): they become linalg.generic windows, with the
// stride and dilation in the input's map, for the fusion and stencil
// passes; the named ops are gone.
// CHECK-DAG: #[[DWIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>
// CHECK-DAG: #[[POOLIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
// CHECK-LABEL: func.func @windows(
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: linalg.generic {indexing_maps = [#[[DWIN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[POOLIN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: arith.maximumf
// CHECK-NOT: linalg.pooling_nhwc_max
// CHECK: return
// An NHWC window's padding (-inf for a max pool) is built over the cores
// row by row (an scf.forall over the padded rows, vector pieces along C
// from the input or the padding value), not left to bufferization's serial
// fill and copy.
// CHECK-LABEL: func.func @padded_window(
// CHECK-NOT: tensor.pad
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 10)
// CHECK: vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK: scf.forall.in_parallel
// CHECK: linalg.generic
// CHECK: arith.maximumf
// With generalize-windows=false the named ops stay.
// NOWIN: not converted: linalg.depthwise_conv_2d_nhwc_hwc is not a matmul (generalize-windows=false)
// NOWIN: not converted: linalg.pooling_nhwc_max is not a matmul (generalize-windows=false)
// NOWIN-LABEL: func.func @windows(
// NOWIN: linalg.depthwise_conv_2d_nhwc_hwc
// NOWIN: linalg.pooling_nhwc_max
// Ops on buffers keep their named form, with a remark.
// CHECK-LABEL: func.func @window_on_buffers(
// CHECK: linalg.pooling_nhwc_max
func.func @windows(%x: tensor<1x8x8x4xf32>, %dw: tensor<3x3x4xf32>, %dwi: tensor<1x6x6x4xf32>,
                   %win: tensor<2x2xf32>, %pi: tensor<1x4x4x4xf32>) -> (tensor<1x6x6x4xf32>, tensor<1x4x4x4xf32>) {
  // expected-remark @below {{not a matmul (each channel is reduced on its own): linalg.depthwise_conv_2d_nhwc_hwc generalized to a linalg.generic window}}
  %a = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %dw : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>) outs(%dwi : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  // expected-remark @below {{not a matmul (each channel is reduced on its own): linalg.pooling_nhwc_max generalized to a linalg.generic window}}
  %b = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%pi : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %a, %b : tensor<1x6x6x4xf32>, tensor<1x4x4x4xf32>
}
func.func @padded_window(%x: tensor<2x8x8x4xf32>, %win: tensor<3x3xf32>, %init: tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<2x8x8x4xf32> to tensor<2x10x10x4xf32>
  // expected-remark @below {{linalg.pooling_nhwc_max generalized to a linalg.generic window; its input's padding copied over the cores row by row}}
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %win : tensor<2x10x10x4xf32>, tensor<3x3xf32>) outs(%init : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  return %r : tensor<2x4x4x4xf32>
}
func.func @window_on_buffers(%x: memref<1x8x8x4xf32>, %win: memref<2x2xf32>, %pi: memref<1x4x4x4xf32>) {
  // expected-remark @below {{not converted: linalg.pooling_nhwc_max is not a matmul and works on buffers}}
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : memref<1x8x8x4xf32>, memref<2x2xf32>) outs(%pi : memref<1x4x4x4xf32>)
  return
}

// -----

// Left alone, each with a remark saying why.
// CHECK-LABEL: func.func @unsupported(
// CHECK-NOT: linalg.matmul
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} tensor<1x8x8x4xf16>
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} tensor<?x8x8x4xf32>
// CHECK: linalg.conv_2d_nhwc_fhwc
// CHECK: linalg.conv_1d_nwc_wcf
// CHECK-NOT: linalg.matmul
func.func @unsupported(%x: tensor<1x8x8x4xf32>,
                       %xh: tensor<1x8x8x4xf16>, %wh: tensor<1x1x4x4xf16>, %ih: tensor<1x8x8x4xf16>,
                       %xd: tensor<?x8x8x4xf32>, %w: tensor<1x1x4x4xf32>, %id: tensor<?x8x8x4xf32>,
                       %wf: tensor<4x1x1x4xf32>, %i4: tensor<1x8x8x4xf32>,
                       %x1: tensor<1x8x4xf32>, %w1: tensor<1x4x4xf32>, %i1: tensor<1x8x4xf32>)
    -> (tensor<1x8x8x4xf16>, tensor<?x8x8x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x4xf32>) {
  // expected-remark @below {{not converted: its element type is not f32}}
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xh, %wh : tensor<1x8x8x4xf16>, tensor<1x1x4x4xf16>) outs(%ih : tensor<1x8x8x4xf16>) -> tensor<1x8x8x4xf16>
  // expected-remark @below {{not converted: its shapes are not static}}
  %d = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xd, %w : tensor<?x8x8x4xf32>, tensor<1x1x4x4xf32>) outs(%id : tensor<?x8x8x4xf32>) -> tensor<?x8x8x4xf32>
  // expected-remark @below {{not converted: linalg.conv_2d_nhwc_fhwc is not handled (only linalg.conv_2d_nhwc_hwcf and linalg.conv_2d_nchw_fchw are)}}
  %e = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %wf : tensor<1x8x8x4xf32>, tensor<4x1x1x4xf32>) outs(%i4 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  // expected-remark @below {{not converted: linalg.conv_1d_nwc_wcf is not handled}}
  %f = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%x1, %w1 : tensor<1x8x4xf32>, tensor<1x4x4xf32>) outs(%i1 : tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  return %c, %d, %e, %f : tensor<1x8x8x4xf16>, tensor<?x8x8x4xf32>, tensor<1x8x8x4xf32>, tensor<1x8x4xf32>
}

// -----

// Options: an im2col buffer over max-im2col-mib, and NCHW with
// convert-nchw=false, are left alone (the default run converts both).
// OPTS: remark: not converted: the im2col buffer tensor<3136x576xf32> (6.9 MiB) exceeds max-im2col-mib
// OPTS: remark: not converted: conv_2d_nchw_fchw is left alone (convert-nchw=false)
// CHECK-LABEL: func.func @options(
// CHECK-COUNT-2: linalg.matmul
func.func @options(%x: tensor<1x58x58x64xf32>, %w: tensor<3x3x64x64xf32>, %init: tensor<1x56x56x64xf32>,
                   %xc: tensor<1x8x10x10xf32>, %wc: tensor<16x8x3x3xf32>, %ic: tensor<1x16x8x8xf32>)
    -> (tensor<1x56x56x64xf32>, tensor<1x16x8x8xf32>) {
  // expected-remark @below {{as im2col into tensor<3136x576xf32> (6.9 MiB, a copy of the input patches, 8.4x the input)}}
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%init : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  // expected-remark @below {{conv_2d_nchw_fchw (3x3 filter, stride 1, dilation 1) as linalg.matmul}}
  %z = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xc, %wc : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%ic : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %y, %z : tensor<1x56x56x64xf32>, tensor<1x16x8x8xf32>
}

// -----

// A batch whose patches exceed a quarter of the last-level cache (here a
// 2 MiB L3: 512 KiB; 4 x 288 KiB of patches) is converted a chunk of whole
// images at a time (1 here): an scf.for over the images carries the output
// and one chunk-sized patch buffer; each iteration copies its image's
// patches into the buffer (the parallel, vectorized copy above) and
// multiplies them into its slice of the output.
// CHECK-LABEL: func.func @conv_chunked(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x18x18x32xf32>, %[[W:[^:]+]]: tensor<3x3x32x64xf32>, %[[I:[^:]+]]: tensor<4x16x16x64xf32>)
// CHECK: %[[B:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<3x3x32x64xf32> into tensor<288x64xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x16x16x3x3x32xf32>
// CHECK: %[[R:.*]]:2 = scf.for %[[IMG:[^ ]+]] = %c0 to %c4 step %c1 iter_args(%[[OUT:[^ ]+]] = %[[I]], %[[BUF:[^ ]+]] = %[[E]]) -> (tensor<4x16x16x64xf32>, tensor<1x16x16x3x3x32xf32>)
// CHECK: %[[XI:.*]] = tensor.extract_slice %[[X]][%[[IMG]], 0, 0, 0] [1, 18, 18, 32] [1, 1, 1, 1]
// CHECK: %[[P:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (1, 16) shared_outs(%{{.*}} = %[[BUF]]) -> (tensor<1x16x16x3x3x32xf32>)
// CHECK: vector.transfer_read
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<1x16x16x3x3x32xf32> into tensor<256x288xf32>
// CHECK: %[[OI:.*]] = tensor.extract_slice %[[OUT]][%[[IMG]], 0, 0, 0] [1, 16, 16, 64] [1, 1, 1, 1]
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[OI]]
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<256x288xf32>, tensor<288x64xf32>) outs(%[[C]] : tensor<256x64xf32>)
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[M]]
// CHECK: %[[NEW:.*]] = tensor.insert_slice %[[Y]] into %[[OUT]][%[[IMG]], 0, 0, 0] [1, 16, 16, 64] [1, 1, 1, 1]
// CHECK: scf.yield %[[NEW]], %[[P]]
// CHECK: return %[[R]]#0
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 2097152, cores = 2>} {
  func.func @conv_chunked(%x: tensor<4x18x18x32xf32>, %w: tensor<3x3x32x64xf32>, %init: tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32> {
    // expected-remark @below {{conv_2d_nhwc_hwcf (3x3 filter, stride 1, dilation 1) as im2col into tensor<256x288xf32> (288.0 KiB, a copy of the input patches, 7.1x the input) then linalg.matmul M=256 N=64 K=288 with the filter and output as collapsed views, 4 chunks of 1 image (the whole batch's 1.1 MiB of patches would not stay in a quarter of the last-level cache)}}
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<4x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%init : tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32>
    return %y : tensor<4x16x16x64xf32>
  }
}

// -----

// The elementwise ops that alone consume a chunked convolution's output (a
// bias add, then a ReLU, as frontends emit them) move into the chunk loop,
// each on the chunk's slice, so that tessel-vectorize-matmul finds them as
// the matmul's epilogue instead of their making separate passes over the
// whole output. The zero fill of the accumulator moves into the loop too
// (a chunk at a time, in cache). Only the last op's output is carried: the
// fill, the product and the bias add work in its chunk slice (their own
// outputs were tensor.empty), and the loop yields the others unchanged.
// CHECK-LABEL: func.func @conv_chunked_epilogue(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x18x18x32xf32>, %[[W:[^:]+]]: tensor<3x3x32x64xf32>, %[[BIAS:[^:]+]]: tensor<64xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[R:.*]]:4 = scf.for %[[IMG:[^ ]+]] = %c0 to %c4 step %c1 iter_args(%[[ACC:[^ ]+]] = %{{.*}}, %{{[^ ]+}} = %{{.*}}, %[[ADDO:[^ ]+]] = %{{.*}}, %[[OUT:[^ ]+]] = %{{.*}})
// CHECK: %[[OI:.*]] = tensor.extract_slice %[[OUT]][%[[IMG]], 0, 0, 0] [1, 16, 16, 64]
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[OI]] : tensor<1x16x16x64xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[Z]]
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<256x288xf32>, tensor<288x64xf32>) outs(%[[C]] : tensor<256x64xf32>)
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[M]]
// CHECK-NOT: tensor.insert_slice %[[Y]]
// CHECK: %[[B:.*]] = tensor.extract_slice %[[BIAS]][0] [64] [1]
// CHECK: %[[OI2:.*]] = tensor.extract_slice %[[OUT]][%[[IMG]], 0, 0, 0] [1, 16, 16, 64]
// CHECK: %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[Y]], %[[B]] : tensor<1x16x16x64xf32>, tensor<64xf32>) outs(%[[OI2]] : tensor<1x16x16x64xf32>)
// CHECK: arith.addf
// CHECK: %[[OI3:.*]] = tensor.extract_slice %[[OUT]][%[[IMG]], 0, 0, 0] [1, 16, 16, 64]
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[ADD]] : tensor<1x16x16x64xf32>) outs(%[[OI3]] : tensor<1x16x16x64xf32>)
// CHECK: arith.maximumf
// CHECK: %[[NEW:.*]] = tensor.insert_slice %[[RELU]] into %[[OUT]][%[[IMG]], 0, 0, 0] [1, 16, 16, 64]
// CHECK: scf.yield %[[ACC]], %{{.*}}, %[[ADDO]], %[[NEW]] :
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#3

// With an accumulator that is not a fill (here an argument, whose values
// count), a chunk's product starts from its slice of that argument.
// CHECK-LABEL: func.func @conv_chunked_accumulate(
// CHECK-SAME: %[[I:[^:]+]]: tensor<4x16x16x64xf32>)
// CHECK: %[[R:.*]]:3 = scf.for %[[IMG:[^ ]+]] = %c0 to %c4 step %c1 iter_args(%{{[^ ]+}} = %[[I]], %{{[^ ]+}} = %{{.*}}, %[[OUT:[^ ]+]] = %{{.*}})
// CHECK: %[[OI:.*]] = tensor.extract_slice %[[I]][%[[IMG]], 0, 0, 0] [1, 16, 16, 64]
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[OI]]
// CHECK: linalg.matmul {{.*}} outs(%[[C]] : tensor<256x64xf32>)
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: tensor.insert_slice %{{.*}} into %[[OUT]]
// CHECK: return %[[R]]#2

// A consumer reading the output transposed (h and w swapped) needs other
// chunks' results: it stays after the loop.
// CHECK-LABEL: func.func @conv_chunked_transposed_consumer(
// CHECK: %[[R:.*]]:2 = scf.for
// CHECK: linalg.matmul
// CHECK: scf.yield
// CHECK: linalg.generic {{.*}} ins(%[[R]]#0 : tensor<4x16x16x64xf32>)
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 2097152, cores = 2>} {
  func.func @conv_chunked_epilogue(%x: tensor<4x18x18x32xf32>, %w: tensor<3x3x32x64xf32>, %b: tensor<64xf32>) -> tensor<4x16x16x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x16x16x64xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32>
    // expected-remark @below {{conv_2d_nhwc_hwcf (3x3 filter, stride 1, dilation 1) as im2col into tensor<256x288xf32> (288.0 KiB, a copy of the input patches, 7.1x the input) then linalg.matmul M=256 N=64 K=288 with the filter and output as collapsed views, 4 chunks of 1 image (the whole batch's 1.1 MiB of patches would not stay in a quarter of the last-level cache); the 2 elementwise ops consuming the output moved into the chunk loop}}
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<4x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%init : tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32>
    %e1 = tensor.empty() : tensor<4x16x16x64xf32>
    %biased = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                              iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%y, %b : tensor<4x16x16x64xf32>, tensor<64xf32>) outs(%e1 : tensor<4x16x16x64xf32>) {
    ^bb0(%v: f32, %c: f32, %o: f32):
      %s = arith.addf %v, %c : f32
      linalg.yield %s : f32
    } -> tensor<4x16x16x64xf32>
    %e2 = tensor.empty() : tensor<4x16x16x64xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%biased : tensor<4x16x16x64xf32>) outs(%e2 : tensor<4x16x16x64xf32>) {
    ^bb0(%v: f32, %o: f32):
      %m = arith.maximumf %v, %zero : f32
      linalg.yield %m : f32
    } -> tensor<4x16x16x64xf32>
    return %r : tensor<4x16x16x64xf32>
  }

  func.func @conv_chunked_accumulate(%x: tensor<4x18x18x32xf32>, %w: tensor<3x3x32x64xf32>, %init: tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32> {
    // expected-remark @below {{4 chunks of 1 image (the whole batch's 1.1 MiB of patches would not stay in a quarter of the last-level cache); the 1 elementwise op consuming the output moved into the chunk loop}}
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<4x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%init : tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32>
    %e1 = tensor.empty() : tensor<4x16x16x64xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%y : tensor<4x16x16x64xf32>) outs(%e1 : tensor<4x16x16x64xf32>) {
    ^bb0(%v: f32, %o: f32):
      %zero = arith.constant 0.0 : f32
      %m = arith.maximumf %v, %zero : f32
      linalg.yield %m : f32
    } -> tensor<4x16x16x64xf32>
    return %r : tensor<4x16x16x64xf32>
  }

  func.func @conv_chunked_transposed_consumer(%x: tensor<4x18x18x32xf32>, %w: tensor<3x3x32x64xf32>, %init: tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32> {
    // expected-remark @below {{4 chunks of 1 image (the whole batch's 1.1 MiB of patches would not stay in a quarter of the last-level cache)}}
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<4x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%init : tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32>
    %e1 = tensor.empty() : tensor<4x16x16x64xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, w, h, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%y : tensor<4x16x16x64xf32>) outs(%e1 : tensor<4x16x16x64xf32>) {
    ^bb0(%v: f32, %o: f32):
      linalg.yield %v : f32
    } -> tensor<4x16x16x64xf32>
    return %t : tensor<4x16x16x64xf32>
  }
}

// -----

// Implicit GEMM (default; RUN lines IMPLICIT*, the others run with
// implicit-gemm=false and see the tiled copy). With a cpu target and at
// least 16 input channels, the patch copy stays one untiled linalg.generic
// (the im2col map, no divisions) whose collapsed view is the matmul's A:
// tessel-vectorize-matmul reads A through it from the padded input. The
// pad is still a copy over the cores. The whole batch's 128 KiB of output
// fits in half of each core's L2: no chunks.
// IMPLICIT: #[[IM2COL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3, d2 + d4, d5)>
// IMPLICIT-LABEL: func.func @conv_implicit(
// IMPLICIT-SAME: %[[X:[^:]+]]: tensor<2x16x16x32xf32>, %[[W:[^:]+]]: tensor<3x3x32x64xf32>, %[[I:[^:]+]]: tensor<2x16x16x64xf32>)
// IMPLICIT: %[[XP:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (2, 18)
// IMPLICIT: %[[E:.*]] = tensor.empty() : tensor<2x16x16x3x3x32xf32>
// IMPLICIT-NOT: scf.forall
// IMPLICIT: %[[P:.*]] = linalg.generic {indexing_maps = [#[[IM2COL]], #{{.*}}], {{.*}}} ins(%[[XP]] : tensor<2x18x18x32xf32>) outs(%[[E]] : tensor<2x16x16x3x3x32xf32>)
// IMPLICIT-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// IMPLICIT-NEXT: linalg.yield %[[IN]] : f32
// IMPLICIT: %[[A:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<2x16x16x3x3x32xf32> into tensor<512x288xf32>
// IMPLICIT: %[[B:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<3x3x32x64xf32> into tensor<288x64xf32>
// IMPLICIT: %[[C:.*]] = tensor.collapse_shape %[[I]]
// IMPLICIT: linalg.matmul {tessel.zero_padded_patches = array<i64: 16, 16, 3, 3, 32, 1, 1, 1, 1, 1, 1, 16, 16>} ins(%[[A]], %[[B]] : tensor<512x288xf32>, tensor<288x64xf32>) outs(%[[C]] : tensor<512x64xf32>)
// IMPLICIT-REMARK: remark: conv_2d_nhwc_hwcf (3x3 filter, stride 1, dilation 1) as linalg.matmul M=512 N=64 K=288 on its im2col patches, left as one linalg.generic: tessel-vectorize-matmul reads A through it from the input (implicit GEMM, each kc block within one tap's 32 channels) or copies the patches (576.0 KiB); the filter and output as collapsed views; the input's padding copied over the cores row by row

// Fewer than 16 input channels: the kc blocks would be too short, the
// patches are copied (tiled) as without the option.
// IMPLICIT-LABEL: func.func @conv_few_channels(
// IMPLICIT: scf.forall (%{{.*}}, %{{.*}}) in (1, 16)
// IMPLICIT: vector.transfer_read
// IMPLICIT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<256x72xf32>, tensor<72x64xf32>)
// IMPLICIT-REMARK: remark: conv_2d_nhwc_hwcf (3x3 filter, stride 1, dilation 1) as im2col into tensor<256x72xf32>

// A batch whose output (4 x 512 KiB) exceeds half of each core's L2 (here
// 1 MiB for 2 cores) is multiplied a chunk of whole images at a time (2
// here), so that the C tiles, loaded and stored once per tap, stay in
// cache: an scf.for over the chunks carries only the output (no patch
// buffer), each iteration's patch copy reads its images; the fill and the
// ReLU move into the loop as with the copied patches.
// IMPLICIT-LABEL: func.func @conv_implicit_chunked(
// IMPLICIT-SAME: %[[X:[^:]+]]: tensor<4x32x32x32xf32>
// IMPLICIT: %[[R:.*]]:2 = scf.for %[[IMG:[^ ]+]] = %c0 to %c4 step %c2 iter_args(%{{[^ ]+}} = %{{.*}}, %[[OUT:[^ ]+]] = %{{.*}}) -> (tensor<4x30x30x128xf32>, tensor<4x30x30x128xf32>)
// IMPLICIT: %[[XI:.*]] = tensor.extract_slice %[[X]][%[[IMG]], 0, 0, 0] [2, 32, 32, 32] [1, 1, 1, 1]
// IMPLICIT: %[[P:.*]] = linalg.generic {{.*}} ins(%[[XI]] : tensor<2x32x32x32xf32>) outs(%{{.*}} : tensor<2x30x30x3x3x32xf32>)
// IMPLICIT: %[[A:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<2x30x30x3x3x32xf32> into tensor<1800x288xf32>
// IMPLICIT: linalg.fill
// IMPLICIT: linalg.matmul ins(%[[A]], %{{.*}} : tensor<1800x288xf32>, tensor<288x128xf32>)
// IMPLICIT: arith.maximumf
// IMPLICIT: return %[[R]]#1
// IMPLICIT-REMARK: remark: conv_2d_nhwc_hwcf (3x3 filter, stride 1, dilation 1) as linalg.matmul M=1800 N=128 K=288 on its im2col patches, left as one linalg.generic: {{.*}}, 2 chunks of 2 images (the whole batch's 1.8 MiB of output would not stay in half of each core's L2 across the taps); the 1 elementwise op consuming the output moved into the chunk loop
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @conv_implicit(%x: tensor<2x16x16x32xf32>, %w: tensor<3x3x32x64xf32>, %init: tensor<2x16x16x64xf32>) -> tensor<2x16x16x64xf32> {
    %zero = arith.constant 0.0 : f32
    %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %zero : f32
    } : tensor<2x16x16x32xf32> to tensor<2x18x18x32xf32>
    // expected-remark @below {{as im2col into tensor<512x288xf32>}}
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%xp, %w : tensor<2x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%init : tensor<2x16x16x64xf32>) -> tensor<2x16x16x64xf32>
    return %y : tensor<2x16x16x64xf32>
  }

  func.func @conv_few_channels(%x: tensor<1x18x18x8xf32>, %w: tensor<3x3x8x64xf32>, %init: tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32> {
    // expected-remark @below {{as im2col into tensor<256x72xf32>}}
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x18x18x8xf32>, tensor<3x3x8x64xf32>) outs(%init : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
    return %y : tensor<1x16x16x64xf32>
  }

  func.func @conv_implicit_chunked(%x: tensor<4x32x32x32xf32>, %w: tensor<3x3x32x128xf32>) -> tensor<4x30x30x128xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x30x30x128xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x30x30x128xf32>) -> tensor<4x30x30x128xf32>
    // expected-remark @below {{as im2col into tensor<3600x288xf32>}}
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<4x32x32x32xf32>, tensor<3x3x32x128xf32>) outs(%init : tensor<4x30x30x128xf32>) -> tensor<4x30x30x128xf32>
    %e1 = tensor.empty() : tensor<4x30x30x128xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%y : tensor<4x30x30x128xf32>) outs(%e1 : tensor<4x30x30x128xf32>) {
    ^bb0(%v: f32, %o: f32):
      %m = arith.maximumf %v, %zero : f32
      linalg.yield %m : f32
    } -> tensor<4x30x30x128xf32>
    return %r : tensor<4x30x30x128xf32>
  }
}

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-convert-conv-to-nhwc))' | FileCheck %s

// A zero-filled f16 -> f32 convolution: input and filter transposed, the
// fill made on the NHWC tensor, the result transposed back. The remark
// gives the model's figures: the transposes' bytes at the device-memory
// rate plus the kernel, against a lower bound on the direct loop nest.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 10, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @filled(
// CHECK-SAME: %[[X:.*]]: tensor<2x64x60x60xf16>, %[[W:.*]]: tensor<32x64x3x3xf16>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<2x64x60x60xf16>) outs(%{{.*}} : tensor<2x60x60x64xf16>) permutation = [0, 2, 3, 1]
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<32x64x3x3xf16>) outs(%{{.*}} : tensor<3x3x64x32xf16>) permutation = [2, 3, 1, 0]
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x29x28x32xf32>)
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[XT]], %[[WT]] : tensor<2x60x60x64xf16>, tensor<3x3x64x32xf16>) outs(%[[INIT]] : tensor<2x29x28x32xf32>)
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[C]] : tensor<2x29x28x32xf32>) outs(%{{.*}} : tensor<2x32x29x28xf32>) permutation = [0, 3, 1, 2]
// CHECK: return %[[Y]]
// CHECK-NOT: conv_2d_nchw_fchw
func.func @filled(%x: tensor<2x64x60x60xf16>, %w: tensor<32x64x3x3xf16>) -> tensor<2x32x29x28xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x29x28xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x32x29x28xf32>) -> tensor<2x32x29x28xf32>
  // expected-remark-re @below {{conv_2d_nchw_fchw 2x64x60x60 * 32x64x3x3 as conv_2d_nhwc_hwcf between transposes (tensor cores take NHWC implicit GEMMs): the transposes read and write 2332672 bytes (~2159 cycles) and the kernel takes ~{{[0-9]+}} cycles, against at least ~9261 cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%x, %w : tensor<2x64x60x60xf16>, tensor<32x64x3x3xf16>) outs(%f : tensor<2x32x29x28xf32>) -> tensor<2x32x29x28xf32>
  return %c : tensor<2x32x29x28xf32>
}
}

// -----

// f32 (PyTorch's default) on a target with the SIMT cores' rate: the
// NHWC form runs on the SIMT kernel. Small convolutions stay NCHW when the
// model finds the kernel and the transposes no faster than the direct
// loop nest: too few blocks for the SIMT kernel (f32), or the transposes
// and the kernel's fixed costs (f16).

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 10, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @f32_simt(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x32x42x42xf32>) outs(%{{.*}} : tensor<2x42x42x32xf32>) permutation = [0, 2, 3, 1]
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
func.func @f32_simt(%x: tensor<2x32x42x42xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<2x64x40x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x40x40xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x64x40x40xf32>) -> tensor<2x64x40x40xf32>
  // expected-remark-re @below {{conv_2d_nchw_fchw 2x32x42x42 * 64x32x3x3 as conv_2d_nhwc_hwcf between transposes (SIMT cores take NHWC implicit GEMMs): the transposes read and write 2689024 bytes (~2489 cycles) and the kernel takes ~{{[0-9]+}} cycles, against at least ~17666 cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<2x32x42x42xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<2x64x40x40xf32>) -> tensor<2x64x40x40xf32>
  return %c : tensor<2x64x40x40xf32>
}

// CHECK-LABEL: func.func @f32_small(
// CHECK-NOT: linalg.transpose
func.func @f32_small(%x: tensor<1x32x16x16xf32>, %w: tensor<32x32x3x3xf32>, %o: tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32> {
  // expected-remark-re @below {{conv_2d_nchw_fchw 1x32x16x16 * 32x32x3x3 left in NCHW: an NHWC form on SIMT cores is estimated no faster: the transposes read and write 239616 bytes (~221 cycles) and the kernel takes ~{{[0-9]+}} cycles, against at least ~1752 cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x32x16x16xf32>, tensor<32x32x3x3xf32>) outs(%o : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  return %c : tensor<1x32x14x14xf32>
}

// ResNet-50 at batch 8: stage 3's 3x3 in f16 (padded input) and stage 4's
// in f32 both convert.
// CHECK-LABEL: func.func @resnet_stage3_f16(
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @resnet_stage3_f16(%x: tensor<8x256x16x16xf16>, %w: tensor<256x256x3x3xf16>, %o: tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32> {
  // expected-remark-re @below {{conv_2d_nchw_fchw 8x256x16x16 * 256x256x3x3 as conv_2d_nhwc_hwcf between transposes (tensor cores take NHWC implicit GEMMs): the transposes read and write 10878976 bytes (~10073 cycles) and the kernel takes ~24237 cycles, against at least ~{{[0-9]+}} cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<8x256x16x16xf16>, tensor<256x256x3x3xf16>) outs(%o : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  return %c : tensor<8x256x14x14xf32>
}

// CHECK-LABEL: func.func @resnet_stage4_f32(
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @resnet_stage4_f32(%x: tensor<8x512x9x9xf32>, %w: tensor<512x512x3x3xf32>, %o: tensor<8x512x7x7xf32>) -> tensor<8x512x7x7xf32> {
  // expected-remark-re @below {{conv_2d_nchw_fchw 8x512x9x9 * 512x512x3x3 as conv_2d_nhwc_hwcf between transposes (SIMT cores take NHWC implicit GEMMs): the transposes read and write 24739840 bytes (~22907 cycles) and the kernel takes ~157570 cycles, against at least ~{{[0-9]+}} cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<8x512x9x9xf32>, tensor<512x512x3x3xf32>) outs(%o : tensor<8x512x7x7xf32>) -> tensor<8x512x7x7xf32>
  return %c : tensor<8x512x7x7xf32>
}

// Few output pixels over a long reduction (ResNet-50's last 1x1 at batch
// 1, f32): even split 11 ways over k, the SIMT kernel (~21480 cycles, half
// of them its reduction's) and the filter's transpose cost more than the
// loop nest's bound.
// CHECK-LABEL: func.func @few_pixels_f32(
// CHECK-NOT: linalg.transpose
func.func @few_pixels_f32(%x: tensor<1x2048x7x7xf32>, %w: tensor<512x2048x1x1xf32>, %o: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  // expected-remark @below {{conv_2d_nchw_fchw 1x2048x7x7 * 512x2048x1x1 left in NCHW: an NHWC form on SIMT cores is estimated no faster: the transposes read and write 9592832 bytes (~8882 cycles) and the kernel takes ~21480 cycles, against at least ~15466 cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x2048x7x7xf32>, tensor<512x2048x1x1xf32>) outs(%o : tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32>
  return %c : tensor<1x512x7x7xf32>
}

// CHECK-LABEL: func.func @f16_small(
// CHECK-NOT: linalg.transpose
func.func @f16_small(%x: tensor<2x64x28x28xf16>, %w: tensor<32x64x3x3xf16>) -> tensor<2x32x13x12xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x13x12xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x32x13x12xf32>) -> tensor<2x32x13x12xf32>
  // expected-remark @below {{conv_2d_nchw_fchw 2x64x28x28 * 32x64x3x3 left in NCHW: an NHWC form on tensor cores is estimated no faster}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%x, %w : tensor<2x64x28x28xf16>, tensor<32x64x3x3xf16>) outs(%f : tensor<2x32x13x12xf32>) -> tensor<2x32x13x12xf32>
  return %c : tensor<2x32x13x12xf32>
}
}

// -----

// An i8 convolution accumulating onto its argument: the initial value is
// transposed too (its bytes count twice more in the remark).

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 10, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @accumulates(
// CHECK-SAME: %[[X:.*]]: tensor<4x128x14x14xi8>, %[[W:.*]]: tensor<128x128x1x1xi8>, %[[ACC:.*]]: tensor<4x128x14x14xi32>)
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]]
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]]
// CHECK: %[[AT:.*]] = linalg.transpose ins(%[[ACC]] : tensor<4x128x14x14xi32>) outs(%{{.*}} : tensor<4x14x14x128xi32>) permutation = [0, 2, 3, 1]
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[XT]], %[[WT]] : tensor<4x14x14x128xi8>, tensor<1x1x128x128xi8>) outs(%[[AT]] : tensor<4x14x14x128xi32>)
// CHECK: linalg.transpose ins(%[[C]]
func.func @accumulates(%x: tensor<4x128x14x14xi8>, %w: tensor<128x128x1x1xi8>, %acc: tensor<4x128x14x14xi32>) -> tensor<4x128x14x14xi32> {
  // expected-remark @below {{as conv_2d_nhwc_hwcf between transposes (tensor cores take NHWC implicit GEMMs): the transposes read and write 1839104 bytes}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<4x128x14x14xi8>, tensor<128x128x1x1xi8>) outs(%acc : tensor<4x128x14x14xi32>) -> tensor<4x128x14x14xi32>
  return %c : tensor<4x128x14x14xi32>
}
}

// -----

// Types tensor cores do not take here (f32 without the SIMT rate, bf16) or the target lacks (f16
// sums), mixed types, dynamic sizes and buffers: a remark, the convolution
// left as it is.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", features = "+ptx70", vector_bits = 128, cache_line = 128, l1 = 28672, l2 = 41943040, sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 10, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m16n16k16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @f32_types(
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.transpose
func.func @f32_types(%x: tensor<1x8x6x6xf32>, %w: tensor<4x8x3x3xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @below {{conv_2d_nchw_fchw 1x8x6x6 * 4x8x3x3 left in NCHW: f32 inputs would be rounded to TF32 by tensor cores, and no SIMT kernel fits: the target description has no simt_fma_per_cycle, so an NHWC form would not be faster}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xf32>, tensor<4x8x3x3xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @bf16_types(
// CHECK-NOT: linalg.transpose
func.func @bf16_types(%x: tensor<1x8x6x6xbf16>, %w: tensor<4x8x3x3xbf16>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @below {{left in NCHW: tensor cores take f16 x f16 -> f32 or f16 and i8 x i8 -> i32, and the SIMT kernel f32 -> f32 and f64 -> f64, not bf16 -> f32, so an NHWC form would not be faster}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xbf16>, tensor<4x8x3x3xbf16>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @f16_accumulation(
// CHECK-NOT: linalg.transpose
func.func @f16_accumulation(%x: tensor<1x8x6x6xf16>, %w: tensor<4x8x3x3xf16>, %o: tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16> {
  // expected-remark @below {{left in NCHW: the target lists no 'm16n16k16:f16xf16->f16' tensor-core shape}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  return %c : tensor<1x4x4x4xf16>
}

// CHECK-LABEL: func.func @mixed_types(
// CHECK-NOT: linalg.transpose
func.func @mixed_types(%x: tensor<1x8x6x6xi8>, %w: tensor<4x8x3x3xf16>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @below {{left in NCHW: the input and the filter have different element types}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xi8>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @dynamic(
// CHECK-NOT: linalg.transpose
func.func @dynamic(%x: tensor<?x8x6x6xf16>, %w: tensor<4x8x3x3xf16>, %o: tensor<?x4x4x4xf32>) -> tensor<?x4x4x4xf32> {
  // expected-remark @below {{conv_2d_nchw_fchw ?x8x6x6 * 4x8x3x3 left in NCHW: it has dynamic sizes}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<?x8x6x6xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<?x4x4x4xf32>) -> tensor<?x4x4x4xf32>
  return %c : tensor<?x4x4x4xf32>
}

// CHECK-LABEL: func.func @buffers(
// CHECK-NOT: linalg.transpose
func.func @buffers(%x: memref<1x8x6x6xf16>, %w: memref<4x8x3x3xf16>, %o: memref<1x4x4x4xf32>) {
  // expected-remark @below {{left in NCHW: it is not on tensors}}
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : memref<1x8x6x6xf16>, memref<4x8x3x3xf16>) outs(%o : memref<1x4x4x4xf32>)
  return
}
}

// -----

// Targets tessel-map-matmul-to-gpu would not map the NHWC convolution on:
// no tensor-core shape, no target, a CPU target, 16-lane warps, and a
// description without the model's figures.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600>} {
// CHECK-LABEL: func.func @no_tensor_cores(
// CHECK-NOT: linalg.transpose
func.func @no_tensor_cores(%x: tensor<1x8x6x6xf16>, %w: tensor<4x8x3x3xf16>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @below {{left in NCHW: the target lists no 'm16n16k16:f16xf16->f32' tensor-core shape, so an NHWC form would not be faster}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}
}

// -----

// CHECK-LABEL: func.func @no_target(
// CHECK-NOT: linalg.transpose
func.func @no_target(%x: tensor<1x8x6x6xf16>, %w: tensor<4x8x3x3xf16>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @below {{left in NCHW: the module has no #tessel.target}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// -----

module attributes {tessel.target = #tessel.target<kind = "cpu", mma = ["m16n16k16:f16xf16->f32"]>} {
// CHECK-LABEL: func.func @cpu_target(
// CHECK-NOT: linalg.transpose
func.func @cpu_target(%x: tensor<1x8x6x6xf16>, %w: tensor<4x8x3x3xf16>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @below {{left in NCHW: the target is 'cpu', not nvgpu or amdgpu (tessel-map-matmul-to-gpu's kernels)}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}
}

// -----

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 16, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32"]>} {
// CHECK-LABEL: func.func @narrow_warps(
// CHECK-NOT: linalg.transpose
func.func @narrow_warps(%x: tensor<1x8x6x6xf16>, %w: tensor<4x8x3x3xf16>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @below {{left in NCHW: WMMA needs 32-lane warps; the target says 16}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}
}

// -----

module attributes {tessel.target = #tessel.target<kind = "nvgpu", warp_size = 32, mma = ["m16n16k16:f16xf16->f32"]>} {
// CHECK-LABEL: func.func @no_model_figures(
// CHECK-NOT: linalg.transpose
func.func @no_model_figures(%x: tensor<1x8x6x6xf16>, %w: tensor<4x8x3x3xf16>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @below {{left in NCHW: the target description has no sm_count, so an NHWC form would not be faster}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}
}

// -----

// f64 on a GPU with 1/64-rate f64 (sm_86's 2 multiply-adds per cycle and
// SM): the direct loop nest's bound counts its multiply-adds at that rate
// (3200 x 64 x 288 / (2 x 84) + 600), not only L1's (~22543), and the
// NHWC form, FMA-bound as well, is no faster.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_86", sm_count = 84, smem_per_block = 101376, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 512, simt_fma_per_cycle = 128, simt_f64_fma_per_cycle = 2, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 7, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32"]>} {
// CHECK-LABEL: func.func @f64_slow_rate(
// CHECK-NOT: linalg.transpose
func.func @f64_slow_rate(%x: tensor<2x32x42x42xf64>, %w: tensor<64x32x3x3xf64>, %o: tensor<2x64x40x40xf64>) -> tensor<2x64x40x40xf64> {
  // expected-remark @below {{left in NCHW: an NHWC form on SIMT cores is estimated no faster: the transposes read and write 8654848 bytes (~14719 cycles) and the kernel takes ~390268 cycles, against at least ~351685 cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<2x32x42x42xf64>, tensor<64x32x3x3xf64>) outs(%o : tensor<2x64x40x40xf64>) -> tensor<2x64x40x40xf64>
  return %c : tensor<2x64x40x40xf64>
}
}

// -----

// f64 on a GPU with f64 tensor cores (sm_80's DMMA, twice its SIMT rate):
// the NHWC form's kernel is the one on tensor cores, and it pays.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_80", sm_count = 108, smem_per_block = 166912, registers_per_block = 65536, warp_size = 32, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, mma_f64_fma_per_cycle = 64, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 32, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 48, dram_bytes_per_cycle = 10, memory_latency = 600, mma = ["m16n16k16:f16xf16->f32", "m8n8k4:f64xf64->f64"]>} {
// CHECK-LABEL: func.func @f64_tensor_cores(
// CHECK: linalg.transpose
// CHECK: linalg.conv_2d_nhwc_hwcf
func.func @f64_tensor_cores(%x: tensor<2x64x42x42xf64>, %w: tensor<128x64x3x3xf64>, %o: tensor<2x128x40x40xf64>) -> tensor<2x128x40x40xf64> {
  // expected-remark-re @below {{conv_2d_nchw_fchw 2x64x42x42 * 128x64x3x3 as conv_2d_nhwc_hwcf between transposes (tensor cores take NHWC implicit GEMMs): {{.*}} the kernel takes ~{{[0-9]+}} cycles}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<2x64x42x42xf64>, tensor<128x64x3x3xf64>) outs(%o : tensor<2x128x40x40xf64>) -> tensor<2x128x40x40xf64>
  return %c : tensor<2x128x40x40xf64>
}
}

// -----

// AMD (gfx90a): f16 -> f32 convolutions go to the matrix cores (MFMA) as
// NHWC implicit GEMMs; the model's copies are synchronous loads there.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", triple = "amdgcn-amd-amdhsa", chip = "gfx90a", vector_bits = 128, cache_line = 128, l1 = 16384, l2 = 8388608, sm_count = 104, smem_per_block = 65536, registers_per_block = 131072, warp_size = 64, max_threads_per_block = 1024, mma_fma_per_cycle = 512, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 64, dram_bytes_per_cycle = 9, memory_latency = 700, mma = ["mfma.16x16x16:f16xf16->f32", "mfma.16x16x16:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @amd_f16(
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: conv_2d_nchw_fchw
func.func @amd_f16(%x: tensor<2x64x60x60xf16>, %w: tensor<32x64x3x3xf16>, %o: tensor<2x32x58x58xf32>) -> tensor<2x32x58x58xf32> {
  // expected-remark-re @below {{conv_2d_nchw_fchw 2x64x60x60 * 32x64x3x3 as conv_2d_nhwc_hwcf between transposes (matrix cores take NHWC implicit GEMMs): the transposes read and write {{[0-9]+}} bytes (~{{[0-9]+}} cycles) and the kernel takes ~{{[0-9]+}} cycles, against at least ~{{[0-9]+}} cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<2x64x60x60xf16>, tensor<32x64x3x3xf16>) outs(%o : tensor<2x32x58x58xf32>) -> tensor<2x32x58x58xf32>
  return %c : tensor<2x32x58x58xf32>
}

// f64 goes to the SIMT kernel, whose synchronous copies and f64 rate make
// the NHWC form no faster here by the model.
// CHECK-LABEL: func.func @amd_f64(
// CHECK-NOT: linalg.transpose
func.func @amd_f64(%x: tensor<2x64x60x60xf64>, %w: tensor<32x64x3x3xf64>, %o: tensor<2x32x58x58xf64>) -> tensor<2x32x58x58xf64> {
  // expected-remark-re @below {{conv_2d_nchw_fchw 2x64x60x60 * 32x64x3x3 left in NCHW: an NHWC form on SIMT cores is estimated no faster: the transposes read and write 14557184 bytes (~{{[0-9]+}} cycles) and the kernel takes ~{{[0-9]+}} cycles, against at least ~{{[0-9]+}} cycles for the direct loop nest}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<2x64x60x60xf64>, tensor<32x64x3x3xf64>) outs(%o : tensor<2x32x58x58xf64>) -> tensor<2x32x58x58xf64>
  return %c : tensor<2x32x58x58xf64>
}

// MFMA has no f16 accumulator: left in NCHW, with the mapping's reason.
// CHECK-LABEL: func.func @amd_f16_acc(
// CHECK-NOT: linalg.transpose
func.func @amd_f16_acc(%x: tensor<1x8x6x6xf16>, %w: tensor<4x8x3x3xf16>, %o: tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16> {
  // expected-remark @below {{left in NCHW: AMD matrix kernels take f16 x f16 -> f32 and i8 x i8 -> i32 (MFMA has no f16 accumulator), so an NHWC form would not be faster}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x8x6x6xf16>, tensor<4x8x3x3xf16>) outs(%o : tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  return %c : tensor<1x4x4x4xf16>
}
}

// -----

// gfx942 has no 16x16x16 i8 MFMA: i8 convolutions stay in NCHW there.
module attributes {tessel.target = #tessel.target<kind = "amdgpu", triple = "amdgcn-amd-amdhsa", chip = "gfx942", vector_bits = 128, cache_line = 128, l1 = 32768, l2 = 4194304, sm_count = 304, smem_per_block = 65536, registers_per_block = 131072, warp_size = 64, max_threads_per_block = 1024, mma_fma_per_cycle = 1024, simt_fma_per_cycle = 64, simt_f64_fma_per_cycle = 64, smem_bytes_per_cycle = 128, l2_bytes_per_cycle = 64, dram_bytes_per_cycle = 8, memory_latency = 700, mma = ["mfma.16x16x16:f16xf16->f32", "mfma.16x16x32:i8xi8->i32"]>} {
// CHECK-LABEL: func.func @gfx942_i8(
// CHECK-NOT: linalg.transpose
func.func @gfx942_i8(%x: tensor<2x64x60x60xi8>, %w: tensor<32x64x3x3xi8>, %o: tensor<2x32x58x58xi32>) -> tensor<2x32x58x58xi32> {
  // expected-remark @below {{left in NCHW: gfx942 has no 16x16x16 i8 MFMA (its i8 instructions are 16x16x32 and 32x32x16, which no kernel here uses), so an NHWC form would not be faster}}
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<2x64x60x60xi8>, tensor<32x64x3x3xi8>) outs(%o : tensor<2x32x58x58xi32>) -> tensor<2x32x58x58xi32>
  return %c : tensor<2x32x58x58xi32>
}
}

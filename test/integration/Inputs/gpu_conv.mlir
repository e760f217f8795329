// NHWC convolutions that tessel-map-matmul-to-gpu turns into implicit-GEMM
// tensor-core kernels (run by gpu_conv.c on a GPU or on the CPU through
// tessel-emulate-gpu-on-cpu). Padding comes as a tensor.pad before the
// convolution, as the frontends emit it.

// 3x3, stride 1, padding 1: 2 x 14 x 14 x 64 * 3 x 3 x 64 x 48.
func.func @conv3x3_pad1(%x: tensor<2x14x14x64xf16>, %w: tensor<3x3x64x48xf16>) -> tensor<2x14x14x48xf32> {
  %zh = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zh : f16
  } : tensor<2x14x14x64xf16> to tensor<2x16x16x64xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x14x14x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x14x14x48xf32>) -> tensor<2x14x14x48xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x16x16x64xf16>, tensor<3x3x64x48xf16>) outs(%c : tensor<2x14x14x48xf32>) -> tensor<2x14x14x48xf32>
  return %r : tensor<2x14x14x48xf32>
}

// 3x3, stride 2 (no padding): 1 x 15 x 15 x 32 -> 7 x 7 x 64.
func.func @conv3x3_s2(%x: tensor<1x15x15x32xf16>, %w: tensor<3x3x32x64xf16>) -> tensor<1x7x7x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x15x15x32xf16>, tensor<3x3x32x64xf16>) outs(%c : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  return %r : tensor<1x7x7x64xf32>
}

// 1x1: a plain product of the pixels and the filter.
func.func @conv1x1(%x: tensor<2x7x7x64xf16>, %w: tensor<1x1x64x80xf16>) -> tensor<2x7x7x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x7x80xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x7x7x80xf32>) -> tensor<2x7x7x80xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x7x7x64xf16>, tensor<1x1x64x80xf16>) outs(%c : tensor<2x7x7x80xf32>) -> tensor<2x7x7x80xf32>
  return %r : tensor<2x7x7x80xf32>
}

// Dilated 3x3 (dilation 2) with i8 inputs and i32 sums.
func.func @conv3x3_d2_i8(%x: tensor<1x12x12x32xi8>, %w: tensor<3x3x32x32xi8>) -> tensor<1x8x8x32xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x8x8x32xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<1x8x8x32xi32>) -> tensor<1x8x8x32xi32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x12x12x32xi8>, tensor<3x3x32x32xi8>) outs(%c : tensor<1x8x8x32xi32>) -> tensor<1x8x8x32xi32>
  return %r : tensor<1x8x8x32xi32>
}

// The stem's shape: 7x7, stride 2, 3 channels (rows of 6 bytes: the
// patches are copied element by element).
func.func @stem7x7_s2(%x: tensor<1x37x37x3xf16>, %w: tensor<7x7x3x64xf16>) -> tensor<1x16x16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x37x37x3xf16>, tensor<7x7x3x64xf16>) outs(%c : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %r : tensor<1x16x16x64xf32>
}

// The usual fp16 convolution: f32 sums, then bias, ReLU and conversion to
// f16 applied to the accumulators in the kernel's epilogue.
#nhwc = affine_map<(n, h, w, f) -> (n, h, w, f)>
#chan = affine_map<(n, h, w, f) -> (f)>
func.func @conv3x3_bias_relu_f16(%x: tensor<2x10x10x32xf16>, %w: tensor<3x3x32x40xf16>, %bias: tensor<40xf32>) -> tensor<2x8x8x40xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x40xf32>) -> tensor<2x8x8x40xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x10x10x32xf16>, tensor<3x3x32x40xf16>) outs(%c : tensor<2x8x8x40xf32>) -> tensor<2x8x8x40xf32>
  %o = tensor.empty() : tensor<2x8x8x40xf16>
  %y = linalg.generic {indexing_maps = [#nhwc, #chan, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<2x8x8x40xf32>, tensor<40xf32>) outs(%o : tensor<2x8x8x40xf16>) {
  ^bb0(%a: f32, %b: f32, %z: f16):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    %h = arith.truncf %m : f32 to f16
    linalg.yield %h : f16
  } -> tensor<2x8x8x40xf16>
  return %y : tensor<2x8x8x40xf16>
}

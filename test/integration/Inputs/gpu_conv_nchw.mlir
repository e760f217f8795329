// NCHW convolutions, as PyTorch emits them, on the NVIDIA pipeline:
// tessel-convert-conv-to-nhwc puts each between transposes, and the NHWC
// convolution becomes an implicit-GEMM tensor-core kernel (run by
// gpu_conv_nchw.c on a GPU or on the CPU through tessel-emulate-gpu-on-cpu).

// 3x3, padding 1 (a tensor.pad of H and W): 2 x 32 x 14 x 14 * 48 x 32 x 3 x 3.
func.func @nchw3x3_pad1(%x: tensor<2x32x14x14xf16>, %w: tensor<48x32x3x3xf16>) -> tensor<2x48x14x14xf32> {
  %zh = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zh : f16
  } : tensor<2x32x14x14xf16> to tensor<2x32x16x16xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x48x14x14xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x48x14x14xf32>) -> tensor<2x48x14x14xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x32x16x16xf16>, tensor<48x32x3x3xf16>) outs(%c : tensor<2x48x14x14xf32>) -> tensor<2x48x14x14xf32>
  return %r : tensor<2x48x14x14xf32>
}

// Stride 2, then bias (per output channel), ReLU and conversion to f16:
// 2 x 32 x 15 x 17 * 40 x 32 x 3 x 3 -> 2 x 40 x 7 x 8 (not square).
#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#chan = affine_map<(n, f, h, w) -> (f)>
func.func @nchw3x3_s2_bias_relu_f16(%x: tensor<2x32x15x17xf16>, %w: tensor<40x32x3x3xf16>, %bias: tensor<40xf32>) -> tensor<2x40x7x8xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x40x7x8xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x7x8xf32>) -> tensor<2x40x7x8xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x32x15x17xf16>, tensor<40x32x3x3xf16>) outs(%c : tensor<2x40x7x8xf32>) -> tensor<2x40x7x8xf32>
  %o = tensor.empty() : tensor<2x40x7x8xf16>
  %y = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<2x40x7x8xf32>, tensor<40xf32>) outs(%o : tensor<2x40x7x8xf16>) {
  ^bb0(%a: f32, %b: f32, %z: f16):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    %h = arith.truncf %m : f32 to f16
    linalg.yield %h : f16
  } -> tensor<2x40x7x8xf16>
  return %y : tensor<2x40x7x8xf16>
}

// i8 with dilation 2: 1 x 32 x 12 x 12 * 32 x 32 x 3 x 3 -> 1 x 32 x 8 x 8 (i32).
func.func @nchw3x3_d2_i8(%x: tensor<1x32x12x12xi8>, %w: tensor<32x32x3x3xi8>) -> tensor<1x32x8x8xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x32x8x8xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<1x32x8x8xi32>) -> tensor<1x32x8x8xi32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x32x12x12xi8>, tensor<32x32x3x3xi8>) outs(%c : tensor<1x32x8x8xi32>) -> tensor<1x32x8x8xi32>
  return %r : tensor<1x32x8x8xi32>
}

// A 1x1 convolution accumulating onto its argument (no fill: the initial
// value is transposed too): 2 x 64 x 7 x 7 * 80 x 64 x 1 x 1 + acc.
func.func @nchw1x1_accumulate(%x: tensor<2x64x7x7xf16>, %w: tensor<80x64x1x1xf16>, %acc: tensor<2x80x7x7xf32>) -> tensor<2x80x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x64x7x7xf16>, tensor<80x64x1x1xf16>) outs(%acc : tensor<2x80x7x7xf32>) -> tensor<2x80x7x7xf32>
  return %r : tensor<2x80x7x7xf32>
}

// A residual block as PyTorch writes it, all NCHW: a 1x1 convolution with
// bias + ReLU to f16, padding, a 3x3 convolution, the block's input added
// back, ReLU to f16. 2 x 32 x 9 x 9, 32 channels throughout. The transposes
// between the two convolutions cancel (tessel-fold-transposes): the bias +
// ReLU runs in NHWC as the first convolution's epilogue, and the second
// reads its padded result without a transpose. The bias is C x 1 x 1,
// broadcast over H and W, as the PyTorch frontend reshapes it.
#chan_block = affine_map<(n, c, h, w) -> (c, 0, 0)>
#id_block = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @nchw_block(%x: tensor<2x32x9x9xf16>, %w1: tensor<32x32x1x1xf16>, %b1: tensor<32x1x1xf32>, %w2: tensor<32x32x3x3xf16>) -> tensor<2x32x9x9xf16> {
  %zero = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x32x9x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x9x9xf32>) -> tensor<2x32x9x9xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<2x32x9x9xf16>, tensor<32x32x1x1xf16>) outs(%f : tensor<2x32x9x9xf32>) -> tensor<2x32x9x9xf32>
  %eh = tensor.empty() : tensor<2x32x9x9xf16>
  %r1 = linalg.generic {indexing_maps = [#id_block, #chan_block, #id_block], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b1 : tensor<2x32x9x9xf32>, tensor<32x1x1xf32>) outs(%eh : tensor<2x32x9x9xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x32x9x9xf16>
  %p = tensor.pad %r1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zh : f16
  } : tensor<2x32x9x9xf16> to tensor<2x32x11x11xf16>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w2 : tensor<2x32x11x11xf16>, tensor<32x32x3x3xf16>) outs(%f : tensor<2x32x9x9xf32>) -> tensor<2x32x9x9xf32>
  %r2 = linalg.generic {indexing_maps = [#id_block, #id_block, #id_block], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %x : tensor<2x32x9x9xf32>, tensor<2x32x9x9xf16>) outs(%eh : tensor<2x32x9x9xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %bf = arith.extf %b : f16 to f32
    %s = arith.addf %a, %bf : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x32x9x9xf16>
  return %r2 : tensor<2x32x9x9xf16>
}

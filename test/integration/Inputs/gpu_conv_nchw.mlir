// NCHW convolutions, as PyTorch emits them, on the NVIDIA pipeline:
// tessel-convert-conv-to-nhwc puts each between transposes, and the NHWC
// convolution becomes an implicit-GEMM kernel, on tensor cores for f16 and
// i8 and on the SIMT cores for f32 (run by gpu_conv_nchw.c on a GPU or on
// the CPU through tessel-emulate-gpu-on-cpu). The sizes are large enough
// for the conversion's model to pay for the transposes on sm_80; smaller
// convolutions stay NCHW on the direct loop nest.

// 3x3, padding 1 (a tensor.pad of H and W): 2 x 32 x 30 x 30 * 48 x 32 x 3 x 3.
func.func @nchw3x3_pad1(%x: tensor<2x32x30x30xf16>, %w: tensor<48x32x3x3xf16>) -> tensor<2x48x30x30xf32> {
  %zh = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zh : f16
  } : tensor<2x32x30x30xf16> to tensor<2x32x32x32xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x48x30x30xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x48x30x30xf32>) -> tensor<2x48x30x30xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x32x32x32xf16>, tensor<48x32x3x3xf16>) outs(%c : tensor<2x48x30x30xf32>) -> tensor<2x48x30x30xf32>
  return %r : tensor<2x48x30x30xf32>
}

// Stride 2, then bias (per output channel), ReLU and conversion to f16:
// 4 x 64 x 31 x 33 * 64 x 64 x 3 x 3 -> 4 x 64 x 15 x 16 (not square).
#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#chan = affine_map<(n, f, h, w) -> (f)>
func.func @nchw3x3_s2_bias_relu_f16(%x: tensor<4x64x31x33xf16>, %w: tensor<64x64x3x3xf16>, %bias: tensor<64xf32>) -> tensor<4x64x15x16xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x15x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x15x16xf32>) -> tensor<4x64x15x16xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<4x64x31x33xf16>, tensor<64x64x3x3xf16>) outs(%c : tensor<4x64x15x16xf32>) -> tensor<4x64x15x16xf32>
  %o = tensor.empty() : tensor<4x64x15x16xf16>
  %y = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<4x64x15x16xf32>, tensor<64xf32>) outs(%o : tensor<4x64x15x16xf16>) {
  ^bb0(%a: f32, %b: f32, %z: f16):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    %h = arith.truncf %m : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x64x15x16xf16>
  return %y : tensor<4x64x15x16xf16>
}

// i8 with dilation 2: 2 x 64 x 20 x 20 * 64 x 64 x 3 x 3 -> 2 x 64 x 16 x 16 (i32).
func.func @nchw3x3_d2_i8(%x: tensor<2x64x20x20xi8>, %w: tensor<64x64x3x3xi8>) -> tensor<2x64x16x16xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x64x16x16xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<2x64x16x16xi32>) -> tensor<2x64x16x16xi32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x64x20x20xi8>, tensor<64x64x3x3xi8>) outs(%c : tensor<2x64x16x16xi32>) -> tensor<2x64x16x16xi32>
  return %r : tensor<2x64x16x16xi32>
}

// A 1x1 convolution accumulating onto its argument (no fill: the initial
// value is transposed too): 4 x 128 x 14 x 14 * 128 x 128 x 1 x 1 + acc.
func.func @nchw1x1_accumulate(%x: tensor<4x128x14x14xf16>, %w: tensor<128x128x1x1xf16>, %acc: tensor<4x128x14x14xf32>) -> tensor<4x128x14x14xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<4x128x14x14xf16>, tensor<128x128x1x1xf16>) outs(%acc : tensor<4x128x14x14xf32>) -> tensor<4x128x14x14xf32>
  return %r : tensor<4x128x14x14xf32>
}

// A residual block as PyTorch writes it, all NCHW: a 1x1 convolution with
// bias + ReLU to f16, padding, a 3x3 convolution, the block's input added
// back, ReLU to f16. 4 x 128 x 14 x 14, 128 channels throughout. The transposes
// between the two convolutions cancel (tessel-fold-transposes): the bias +
// ReLU runs in NHWC as the first convolution's epilogue, and the second
// reads its padded result without a transpose. The bias is C x 1 x 1,
// broadcast over H and W, as the PyTorch frontend reshapes it.
#chan_block = affine_map<(n, c, h, w) -> (c, 0, 0)>
#id_block = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @nchw_block(%x: tensor<4x128x14x14xf16>, %w1: tensor<128x128x1x1xf16>, %b1: tensor<128x1x1xf32>, %w2: tensor<128x128x3x3xf16>) -> tensor<4x128x14x14xf16> {
  %zero = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x128x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x128x14x14xf32>) -> tensor<4x128x14x14xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<4x128x14x14xf16>, tensor<128x128x1x1xf16>) outs(%f : tensor<4x128x14x14xf32>) -> tensor<4x128x14x14xf32>
  %eh = tensor.empty() : tensor<4x128x14x14xf16>
  %r1 = linalg.generic {indexing_maps = [#id_block, #chan_block, #id_block], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b1 : tensor<4x128x14x14xf32>, tensor<128x1x1xf32>) outs(%eh : tensor<4x128x14x14xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x128x14x14xf16>
  %p = tensor.pad %r1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zh : f16
  } : tensor<4x128x14x14xf16> to tensor<4x128x16x16xf16>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w2 : tensor<4x128x16x16xf16>, tensor<128x128x3x3xf16>) outs(%f : tensor<4x128x14x14xf32>) -> tensor<4x128x14x14xf32>
  %r2 = linalg.generic {indexing_maps = [#id_block, #id_block, #id_block], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %x : tensor<4x128x14x14xf32>, tensor<4x128x14x14xf16>) outs(%eh : tensor<4x128x14x14xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %bf = arith.extf %b : f16 to f32
    %s = arith.addf %a, %bf : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x128x14x14xf16>
  return %r2 : tensor<4x128x14x14xf16>
}

// f32, PyTorch's default: the SIMT kernel (tensor cores would round to
// TF32). 3x3, padding 1: 2 x 32 x 40 x 40 * 64 x 32 x 3 x 3.
func.func @nchw3x3_pad1_f32(%x: tensor<2x32x40x40xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<2x64x40x40xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x32x40x40xf32> to tensor<2x32x42x42xf32>
  %e = tensor.empty() : tensor<2x64x40x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64x40x40xf32>) -> tensor<2x64x40x40xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x32x42x42xf32>, tensor<64x32x3x3xf32>) outs(%c : tensor<2x64x40x40xf32>) -> tensor<2x64x40x40xf32>
  return %r : tensor<2x64x40x40xf32>
}

// ResNet-50's stem in f32: 7x7, stride 2, padding 3, then bias + ReLU:
// 1 x 3 x 224 x 224 * 64 x 3 x 7 x 7 -> 1 x 64 x 112 x 112. Three input
// channels make 12-byte NHWC rows, which the kernel copies 4 bytes at a
// time.
func.func @nchw7x7_s2_stem_f32(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %bias: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 3] high[0, 0, 3, 3] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x224x224xf32> to tensor<1x3x230x230xf32>
  %e = tensor.empty() : tensor<1x64x112x112xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x3x230x230xf32>, tensor<64x3x7x7xf32>) outs(%c : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  %o = tensor.empty() : tensor<1x64x112x112xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<1x64x112x112xf32>, tensor<64xf32>) outs(%o : tensor<1x64x112x112xf32>) {
  ^bb0(%a: f32, %b: f32, %z: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// Benchmark-sized matmuls: the tensor-core kernels the model sizes for them
// must assemble without register spills.
func.func @f16_f32_4096(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
func.func @f16_f16_2048(%a: tensor<2048x2048xf16>, %b: tensor<2048x2048xf16>) -> tensor<2048x2048xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2048x2048xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<2048x2048xf16>) -> tensor<2048x2048xf16>
  %r = linalg.matmul ins(%a, %b : tensor<2048x2048xf16>, tensor<2048x2048xf16>) outs(%c : tensor<2048x2048xf16>) -> tensor<2048x2048xf16>
  return %r : tensor<2048x2048xf16>
}
func.func @i8_i32_4096(%a: tensor<4096x4096xi8>, %b: tensor<4096x4096xi8>) -> tensor<4096x4096xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4096x4096xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<4096x4096xi32>) -> tensor<4096x4096xi32>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xi8>, tensor<4096x4096xi8>) outs(%c : tensor<4096x4096xi32>) -> tensor<4096x4096xi32>
  return %r : tensor<4096x4096xi32>
}
func.func @f16_f32_1000(%a: tensor<1000x1000xf16>, %b: tensor<1000x1000xf16>) -> tensor<1000x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x1000xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1000x1000xf16>, tensor<1000x1000xf16>) outs(%c : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %r : tensor<1000x1000xf32>
}
func.func @bmm_f16_f32_8x512x64(%q: tensor<8x512x64xf16>, %k: tensor<8x64x512xf16>) -> tensor<8x512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x512x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  %r = linalg.batch_matmul ins(%q, %k : tensor<8x512x64xf16>, tensor<8x64x512xf16>) outs(%c : tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  return %r : tensor<8x512x512xf32>
}
// A linear layer at batch 8 and an int8 one at batch 32: few C tiles and
// a long k, split among blocks (split-k) and added by a second kernel.
func.func @f16_f32_linear_8x4096x4096(%a: tensor<8x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<8x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x4096xf16>, tensor<4096x4096xf16>) outs(%c : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  return %r : tensor<8x4096xf32>
}
func.func @i8_i32_linear_32x1024x4096(%a: tensor<32x4096xi8>, %b: tensor<4096x1024xi8>) -> tensor<32x1024xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<32x1024xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<32x1024xi32>) -> tensor<32x1024xi32>
  %r = linalg.matmul ins(%a, %b : tensor<32x4096xi8>, tensor<4096x1024xi8>) outs(%c : tensor<32x1024xi32>) -> tensor<32x1024xi32>
  return %r : tensor<32x1024xi32>
}

// ResNet-50 convolutions, fp16 NHWC at batch 8 (padded inputs as the
// padding copy leaves them), f32 sums converted to f16.
#nhwc = affine_map<(n, h, w, f) -> (n, h, w, f)>
func.func @resnet_s1_3x3(%x: tensor<8x58x58x64xf16>, %w: tensor<3x3x64x64xf16>) -> tensor<8x56x56x64xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x56x56x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x56x56x64xf32>) -> tensor<8x56x56x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x58x58x64xf16>, tensor<3x3x64x64xf16>) outs(%c : tensor<8x56x56x64xf32>) -> tensor<8x56x56x64xf32>
  %o = tensor.empty() : tensor<8x56x56x64xf16>
  %h = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<8x56x56x64xf32>) outs(%o : tensor<8x56x56x64xf16>) {
  ^bb0(%a: f32, %z: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x56x56x64xf16>
  return %h : tensor<8x56x56x64xf16>
}
func.func @resnet_s4_3x3(%x: tensor<8x9x9x512xf16>, %w: tensor<3x3x512x512xf16>) -> tensor<8x7x7x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x7x7x512xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x7x7x512xf32>) -> tensor<8x7x7x512xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x9x9x512xf16>, tensor<3x3x512x512xf16>) outs(%c : tensor<8x7x7x512xf32>) -> tensor<8x7x7x512xf32>
  return %r : tensor<8x7x7x512xf32>
}
func.func @resnet_s1_1x1(%x: tensor<8x56x56x64xf16>, %w: tensor<1x1x64x256xf16>) -> tensor<8x56x56x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x56x56x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x56x56x256xf32>) -> tensor<8x56x56x256xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x56x56x64xf16>, tensor<1x1x64x256xf16>) outs(%c : tensor<8x56x56x256xf32>) -> tensor<8x56x56x256xf32>
  return %r : tensor<8x56x56x256xf32>
}
func.func @resnet_stem(%x: tensor<8x230x230x3xf16>, %w: tensor<7x7x3x64xf16>) -> tensor<8x112x112x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x112x112x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x112x112x64xf32>) -> tensor<8x112x112x64xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<8x230x230x3xf16>, tensor<7x7x3x64xf16>) outs(%c : tensor<8x112x112x64xf32>) -> tensor<8x112x112x64xf32>
  return %r : tensor<8x112x112x64xf32>
}

// The TOSA entry: tosa ops go through tosa-to-linalg(-named) first.

// Broadcasting add: [4, 5] + [1, 5].
func.func @add_bcast(%a: tensor<4x5xf32>, %b: tensor<1x5xf32>) -> tensor<4x5xf32> {
  %r = tosa.add %a, %b : (tensor<4x5xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// Batched matmul [2, 9, 11] x [2, 11, 6], then + bias [1, 1, 6] and ReLU
// (tosa.clamp at zero).
func.func @matmul_bias_relu(%a: tensor<2x9x11xf32>, %b: tensor<2x11x6xf32>,
                            %bias: tensor<1x1x6xf32>) -> tensor<2x9x6xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %a, %b, %zp, %zp : (tensor<2x9x11xf32>, tensor<2x11x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x9x6xf32>
  %s = tosa.add %mm, %bias : (tensor<2x9x6xf32>, tensor<1x1x6xf32>) -> tensor<2x9x6xf32>
  %r = tosa.clamp %s {min_val = 0.0 : f32, max_val = 3.4028235e+38 : f32} : (tensor<2x9x6xf32>) -> tensor<2x9x6xf32>
  return %r : tensor<2x9x6xf32>
}

// Requantization: tosa.rescale of i8 by 2^30 / 2^31 = 0.5 (scale32, single
// rounding: (x * 2^30 + 2^30) >> 31), output zero point 3. Its
// tosa.apply_scale needs tosa-to-arith{include-apply-rescale}.
func.func @rescale_half(%a: tensor<64xi8>) -> tensor<64xi8> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.rescale %a, %m, %s, %izp, %ozp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<64xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<64xi8>
  return %r : tensor<64xi8>
}

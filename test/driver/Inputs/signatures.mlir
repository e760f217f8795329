// Entry points with many kinds of signatures, for the generated header.

// Tensor in, tensor out.
func.func @f32_2d(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  return %t : tensor<8x4xf32>
}

// Scalars by value (i1, i32, index, f64), a memref argument, rank 0 and
// rank 5 tensors, integer and f16 elements, two tensor results.
func.func @mixed(%flag: i1, %n: i32, %i: index, %x: f64, %m: memref<3xi8>,
                 %s: tensor<f32>, %r5: tensor<1x2x1x2x1xi32>, %h: tensor<2xf16>,
                 %b: tensor<5xi1>, %ix: tensor<2xindex>)
    -> (tensor<1x2x1x2x1xi32>, tensor<f32>) {
  return %r5, %s : tensor<1x2x1x2x1xi32>, tensor<f32>
}

// One scalar result, returned by value.
func.func @scalar_result(%a: tensor<16xi64>) -> i64 {
  %c3 = arith.constant 3 : index
  %v = tensor.extract %a[%c3] : tensor<16xi64>
  return %v : i64
}

// No arguments, no results.
func.func @nothing() {
  return
}

// Not entry points: a private function and an external declaration.
func.func private @helper(%a: f32) -> f32 {
  return %a : f32
}
func.func private @external(%a: f32) -> f32

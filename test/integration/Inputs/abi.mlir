// ABI corner cases: a result that is a strided view of an argument (copied
// out), public functions calling each other (both rewritten to out-params),
// and integer element types.

// The centre 4x4 of an 8x8 input: the result is a non-contiguous slice.
func.func @center(%a: tensor<8x8xf32>) -> tensor<4x4xf32> {
  %s = tensor.extract_slice %a[2, 2] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

func.func @twice(%a: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.add ins(%a, %a : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// 4 * a through two calls of the public @twice.
func.func @four_times(%a: tensor<16xf32>) -> tensor<16xf32> {
  %r = func.call @twice(%a) : (tensor<16xf32>) -> tensor<16xf32>
  %s = func.call @twice(%r) : (tensor<16xf32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// Integer matmul (wrapping i32 arithmetic).
func.func @matmul_i32(%a: tensor<5x6xi32>, %b: tensor<6x7xi32>) -> tensor<5x7xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<5x7xi32>
  %c = linalg.fill ins(%z : i32) outs(%e : tensor<5x7xi32>) -> tensor<5x7xi32>
  %r = linalg.matmul ins(%a, %b : tensor<5x6xi32>, tensor<6x7xi32>) outs(%c : tensor<5x7xi32>) -> tensor<5x7xi32>
  return %r : tensor<5x7xi32>
}

// A scalar index argument used as a dynamic position, and an i64 result.
func.func @pick(%a: tensor<10xi64>, %i: index) -> i64 {
  %v = tensor.extract %a[%i] : tensor<10xi64>
  return %v : i64
}

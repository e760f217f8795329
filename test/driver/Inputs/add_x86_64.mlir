// add.mlir for a described machine: a baseline x86-64 (SSE2 only), whatever
// the host is. The attach step keeps a target the module already carries.
module attributes {tessel.target = #tessel.target<kind = "cpu",
    triple = "x86_64-unknown-linux-gnu", chip = "x86-64", features = "+sse2",
    vector_bits = 128, vector_registers = 16, cache_line = 64,
    l1 = 32768, l2 = 262144, l3 = 8388608, cores = 1>} {
  func.func @add(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
    %e = tensor.empty() : tensor<64x64xf32>
    %r = linalg.add ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %r : tensor<64x64xf32>
  }
}

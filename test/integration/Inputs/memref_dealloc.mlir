// A memref program that frees its own temporary, as frontends that emit
// memrefs do: C = (A + A) * B with a scratch buffer.
func.func @scratch(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  %t = memref.alloc() : memref<8x8xf32>
  linalg.add ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%t : memref<8x8xf32>)
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%t, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  memref.dealloc %t : memref<8x8xf32>
  return
}

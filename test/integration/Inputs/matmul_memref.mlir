// Destination-passing style on memrefs: C += A * B in place (linalg.matmul
// accumulates into its output), nothing returned.
func.func @matmul_acc(%a: memref<33x17xf32>, %b: memref<17x45xf32>, %c: memref<33x45xf32>) {
  linalg.matmul ins(%a, %b : memref<33x17xf32>, memref<17x45xf32>)
                outs(%c : memref<33x45xf32>)
  return
}

// Mixed: a scalar argument by value and a scalar result by value.
// D = alpha * A * B + C (C is read, D written), returns the sum of D.
func.func @gemm_sum(%alpha: f32, %a: memref<8x5xf32>, %b: memref<5x6xf32>,
                    %c: memref<8x6xf32>, %d: memref<8x6xf32>) -> f32 {
  linalg.copy ins(%c : memref<8x6xf32>) outs(%d : memref<8x6xf32>)
  %t = memref.alloc() : memref<8x6xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<8x6xf32>)
  linalg.matmul ins(%a, %b : memref<8x5xf32>, memref<5x6xf32>) outs(%t : memref<8x6xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x6xf32>) outs(%d : memref<8x6xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.mulf %alpha, %x : f32
    %r = arith.addf %s, %y : f32
    linalg.yield %r : f32
  }
  %acc = memref.alloc() : memref<f32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%d : memref<8x6xf32>) outs(%acc : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  }
  %sum = memref.load %acc[] : memref<f32>
  return %sum : f32
}

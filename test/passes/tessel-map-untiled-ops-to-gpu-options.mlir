// RUN: %tessel-opt %s -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-map-untiled-ops-to-gpu{threads=100}))' -o /dev/null
// RUN: not %tessel-opt %s --pass-pipeline='builtin.module(func.func(tessel-map-untiled-ops-to-gpu{columns-per-thread=1000}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=COLUMNS

// A block size that is not a whole number of warps is refused, naming the
// option, and the function is left as it was.

module attributes {tessel.target = #tessel.target<kind = "nvgpu", sm_count = 132, smem_per_block = 232448, warp_size = 32, max_threads_per_block = 1024>} {
  // expected-error @below {{threads=100 must be a multiple of the warp size 32 and at most 1024}}
  func.func @odd_block(%c: memref<16xf32>) {
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<16xf32>)
    return
  }
}

// The value of a refused option is printed as the number it is.
// COLUMNS: error: columns-per-thread=1000 must be between 0 and 16

// y = 2 * x, written as an update of the argument tensor.
func.func @scale_in_place(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%x : tensor<1000xf32>) {
  ^bb0(%v: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<1000xf32>
  return %r : tensor<1000xf32>
}

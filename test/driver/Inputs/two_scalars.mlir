// Two scalar results have no by-value C mapping.
func.func @minmax(%a: f32, %b: f32) -> (f32, f32) {
  %lo = arith.minimumf %a, %b : f32
  %hi = arith.maximumf %a, %b : f32
  return %lo, %hi : f32, f32
}

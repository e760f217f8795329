// The benchmark's products with B given as (n, k), a linear layer's weight,
// at full size: i8 -> i32 (torch._int_mm(x, w.t())) and f16 with f32 sums
// rounded to f16 (torch.nn.functional.linear in fp16); and the i8 product
// with B given as (k, n) (torch._int_mm(x, w)), which the Hopper kernel
// takes after transposing B. Only compiled (ptxas checks their kernels),
// never run by the tests.
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(i, j) -> (i, j)>
func.func @i8_bt_4096(%x: tensor<4096x4096xi8>, %w: tensor<4096x4096xi8>) -> tensor<4096x4096xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4096x4096xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<4096x4096xi32>) -> tensor<4096x4096xi32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4096x4096xi8>, tensor<4096x4096xi8>) outs(%f : tensor<4096x4096xi32>) {
  ^bb0(%p: i8, %q: i8, %acc: i32):
    %pi = arith.extsi %p : i8 to i32
    %qi = arith.extsi %q : i8 to i32
    %m = arith.muli %pi, %qi : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  } -> tensor<4096x4096xi32>
  return %r : tensor<4096x4096xi32>
}
func.func @i8_kn_4096(%x: tensor<4096x4096xi8>, %w: tensor<4096x4096xi8>) -> tensor<4096x4096xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4096x4096xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<4096x4096xi32>) -> tensor<4096x4096xi32>
  %r = linalg.matmul ins(%x, %w : tensor<4096x4096xi8>, tensor<4096x4096xi8>) outs(%f : tensor<4096x4096xi32>) -> tensor<4096x4096xi32>
  return %r : tensor<4096x4096xi32>
}
func.func @f16_bt_4096(%x: tensor<4096x4096xf16>, %w: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%f : tensor<4096x4096xf32>) {
  ^bb0(%p: f16, %q: f16, %acc: f32):
    %pf = arith.extf %p : f16 to f32
    %qf = arith.extf %q : f16 to f32
    %m = arith.mulf %pf, %qf : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4096x4096xf32>
  %o = tensor.empty() : tensor<4096x4096xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4096x4096xf32>) outs(%o : tensor<4096x4096xf16>) {
  ^bb0(%v: f32, %z: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4096x4096xf16>
  return %h : tensor<4096x4096xf16>
}

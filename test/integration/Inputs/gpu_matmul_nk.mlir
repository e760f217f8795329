// Products with B given as (n, k), as a linear layer's weight is
// (PyTorch's x @ W.T, torch._int_mm(x, W.t())): both operands K-major, the
// form the Hopper kernel issues its own wgmma instructions for. i8 x i8 ->
// i32 with partial tiles in m, n and k, a product shorter than the TMA
// ring, a requantizing epilogue; f16 x f16 -> f32 with partial tiles and a
// bias + ReLU epilogue; and i8 with B given as (k, n), which 8-bit wgmma
// cannot read: on Hopper transposed by a kernel of its own first where
// that is estimated faster than WMMA and its sizes allow (rows of 16-byte
// pieces), on WMMA otherwise.
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#row = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

func.func @i8_bt_200x336x528(%x: tensor<200x528xi8>, %w: tensor<336x528xi8>) -> tensor<200x336xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<200x336xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<200x336xi32>) -> tensor<200x336xi32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<200x528xi8>, tensor<336x528xi8>) outs(%f : tensor<200x336xi32>) {
  ^bb0(%p: i8, %q: i8, %acc: i32):
    %pi = arith.extsi %p : i8 to i32
    %qi = arith.extsi %q : i8 to i32
    %m = arith.muli %pi, %qi : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  } -> tensor<200x336xi32>
  return %r : tensor<200x336xi32>
}

func.func @i8_bt_64x64x128(%x: tensor<64x128xi8>, %w: tensor<64x128xi8>) -> tensor<64x64xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x64xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x64xi32>) -> tensor<64x64xi32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x128xi8>, tensor<64x128xi8>) outs(%f : tensor<64x64xi32>) {
  ^bb0(%p: i8, %q: i8, %acc: i32):
    %pi = arith.extsi %p : i8 to i32
    %qi = arith.extsi %q : i8 to i32
    %m = arith.muli %pi, %qi : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  } -> tensor<64x64xi32>
  return %r : tensor<64x64xi32>
}

func.func @i8_bt_requantize_96x80x80(%x: tensor<96x80xi8>, %w: tensor<80x80xi8>, %scale: tensor<80xf32>) -> tensor<96x80xi8> {
  %zero = arith.constant 0 : i32
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %e = tensor.empty() : tensor<96x80xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<96x80xi32>) -> tensor<96x80xi32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<96x80xi8>, tensor<80x80xi8>) outs(%f : tensor<96x80xi32>) {
  ^bb0(%p: i8, %q: i8, %acc: i32):
    %pi = arith.extsi %p : i8 to i32
    %qi = arith.extsi %q : i8 to i32
    %m = arith.muli %pi, %qi : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  } -> tensor<96x80xi32>
  %o = tensor.empty() : tensor<96x80xi8>
  %q = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r, %scale : tensor<96x80xi32>, tensor<80xf32>) outs(%o : tensor<96x80xi8>) {
  ^bb0(%v: i32, %s: f32, %z: i8):
    %fv = arith.sitofp %v : i32 to f32
    %m = arith.mulf %fv, %s : f32
    %n = math.roundeven %m : f32
    %c1 = arith.maximumf %n, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptosi %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<96x80xi8>
  return %q : tensor<96x80xi8>
}

func.func @i8_kn_64x48x64(%x: tensor<64x64xi8>, %b: tensor<64x48xi8>) -> tensor<64x48xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x48xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x48xi32>) -> tensor<64x48xi32>
  %r = linalg.matmul ins(%x, %b : tensor<64x64xi8>, tensor<64x48xi8>) outs(%f : tensor<64x48xi32>) -> tensor<64x48xi32>
  return %r : tensor<64x48xi32>
}

func.func @i8_kn_200x336x528(%x: tensor<200x528xi8>, %b: tensor<528x336xi8>) -> tensor<200x336xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<200x336xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<200x336xi32>) -> tensor<200x336xi32>
  %r = linalg.matmul ins(%x, %b : tensor<200x528xi8>, tensor<528x336xi8>) outs(%f : tensor<200x336xi32>) -> tensor<200x336xi32>
  return %r : tensor<200x336xi32>
}

func.func @i8_kn_64x40x48(%x: tensor<64x48xi8>, %b: tensor<48x40xi8>) -> tensor<64x40xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x40xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x40xi32>) -> tensor<64x40xi32>
  %r = linalg.matmul ins(%x, %b : tensor<64x48xi8>, tensor<48x40xi8>) outs(%f : tensor<64x40xi32>) -> tensor<64x40xi32>
  return %r : tensor<64x40xi32>
}

func.func @f16_bt_bias_relu_200x336x264(%x: tensor<200x264xf16>, %w: tensor<336x264xf16>, %bias: tensor<336xf32>) -> tensor<200x336xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x336xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<200x336xf32>) -> tensor<200x336xf32>
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<200x264xf16>, tensor<336x264xf16>) outs(%f : tensor<200x336xf32>) {
  ^bb0(%p: f16, %q: f16, %acc: f32):
    %pf = arith.extf %p : f16 to f32
    %qf = arith.extf %q : f16 to f32
    %m = arith.mulf %pf, %qf : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<200x336xf32>
  %o = tensor.empty() : tensor<200x336xf32>
  %y = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<200x336xf32>, tensor<336xf32>) outs(%o : tensor<200x336xf32>) {
  ^bb0(%v: f32, %b: f32, %z: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<200x336xf32>
  return %y : tensor<200x336xf32>
}

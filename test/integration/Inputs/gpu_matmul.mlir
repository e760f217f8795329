// Matmuls that tessel-map-matmul-to-gpu turns into tensor-core kernels (run
// by gpu_matmul.c on a GPU, or on the CPU through tessel-emulate-gpu-on-cpu).

// Whole tiles.
func.func @f16_f32_256x192x128(%a: tensor<256x128xf16>, %b: tensor<128x192xf16>) -> tensor<256x192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x192xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x192xf32>) -> tensor<256x192xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf16>, tensor<128x192xf16>) outs(%c : tensor<256x192xf32>) -> tensor<256x192xf32>
  return %r : tensor<256x192xf32>
}

// Partial tiles in every dimension; rows of 80 and 144 bytes.
func.func @f16_f32_100x72x40(%a: tensor<100x40xf16>, %b: tensor<40x72xf16>) -> tensor<100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100x40xf16>, tensor<40x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %r : tensor<100x72xf32>
}

// Rows of 18 and 34 bytes: no cp.async, synchronous element copies; C's rows
// of 68 bytes are written element by element at the edge.
func.func @f16_f32_33x17x9(%a: tensor<33x9xf16>, %b: tensor<9x17xf16>) -> tensor<33x17xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x17xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<33x17xf32>) -> tensor<33x17xf32>
  %r = linalg.matmul ins(%a, %b : tensor<33x9xf16>, tensor<9x17xf16>) outs(%c : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %r : tensor<33x17xf32>
}

// Deep and wide, partial tiles in every dimension: on sm_90a with wgmma,
// k tiles stream through the TMA ring (loads inside the loop), and forced
// 128x256 blocks take two warpgroups.
func.func @f16_f32_192x320x520(%a: tensor<192x520xf16>, %b: tensor<520x320xf16>) -> tensor<192x320xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<192x320xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<192x320xf32>) -> tensor<192x320xf32>
  %r = linalg.matmul ins(%a, %b : tensor<192x520xf16>, tensor<520x320xf16>) outs(%c : tensor<192x320xf32>) -> tensor<192x320xf32>
  return %r : tensor<192x320xf32>
}

// f16 accumulators and result.
func.func @f16_f16_128x96x64(%a: tensor<128x64xf16>, %b: tensor<64x96xf16>) -> tensor<128x96xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x96xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<128x96xf16>) -> tensor<128x96xf16>
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf16>, tensor<64x96xf16>) outs(%c : tensor<128x96xf16>) -> tensor<128x96xf16>
  return %r : tensor<128x96xf16>
}

// Signed i8 products summed in i32, partial tiles.
func.func @i8_i32_96x80x80(%a: tensor<96x80xi8>, %b: tensor<80x80xi8>) -> tensor<96x80xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<96x80xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<96x80xi32>) -> tensor<96x80xi32>
  %r = linalg.matmul ins(%a, %b : tensor<96x80xi8>, tensor<80x80xi8>) outs(%c : tensor<96x80xi32>) -> tensor<96x80xi32>
  return %r : tensor<96x80xi32>
}

// A stored k-major (A^T given) and B stored n-major (B^T given).
#at = affine_map<(m, n, k) -> (k, m)>
#bt = affine_map<(m, n, k) -> (n, k)>
#id = affine_map<(m, n, k) -> (m, k)>
#bn = affine_map<(m, n, k) -> (k, n)>
#cm = affine_map<(m, n, k) -> (m, n)>
func.func @f16_f32_at_bt_80x48x64(%at: tensor<64x80xf16>, %bt: tensor<48x64xf16>) -> tensor<80x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<80x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<80x48xf32>) -> tensor<80x48xf32>
  %r = linalg.generic {indexing_maps = [#at, #bt, #cm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %bt : tensor<64x80xf16>, tensor<48x64xf16>) outs(%c : tensor<80x48xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<80x48xf32>
  return %r : tensor<80x48xf32>
}

// Batched, with B shared by every batch (no batch dimension).
#ab = affine_map<(b, m, n, k) -> (b, m, k)>
#bb = affine_map<(b, m, n, k) -> (k, n)>
#cb = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batch3_f16_f32_64x48x32(%a: tensor<3x64x32xf16>, %b: tensor<3x32x48xf16>, %w: tensor<32x48xf16>) -> (tensor<3x64x48xf32>, tensor<3x64x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x64x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x64x48xf32>) -> tensor<3x64x48xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x64x32xf16>, tensor<3x32x48xf16>) outs(%c : tensor<3x64x48xf32>) -> tensor<3x64x48xf32>
  %e2 = tensor.empty() : tensor<3x64x48xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x64x48xf32>) -> tensor<3x64x48xf32>
  %s = linalg.generic {indexing_maps = [#ab, #bb, #cb], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : tensor<3x64x32xf16>, tensor<32x48xf16>) outs(%c2 : tensor<3x64x48xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<3x64x48xf32>
  return %r, %s : tensor<3x64x48xf32>, tensor<3x64x48xf32>
}

// Accumulates onto C's contents (no fill); and C from a fill of 1.5.
func.func @f16_f32_accumulate_72x40x48(%a: tensor<72x48xf16>, %b: tensor<48x40xf16>, %c: tensor<72x40xf32>) -> tensor<72x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<72x48xf16>, tensor<48x40xf16>) outs(%c : tensor<72x40xf32>) -> tensor<72x40xf32>
  return %r : tensor<72x40xf32>
}
func.func @f16_f32_fill_72x40x48(%a: tensor<72x48xf16>, %b: tensor<48x40xf16>) -> tensor<72x40xf32> {
  %v = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<72x40xf32>
  %c = linalg.fill ins(%v : f32) outs(%e : tensor<72x40xf32>) -> tensor<72x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<72x48xf16>, tensor<48x40xf16>) outs(%c : tensor<72x40xf32>) -> tensor<72x40xf32>
  return %r : tensor<72x40xf32>
}

// The product feeds another op (a bias add, mapped as a plain parallel loop).
#row = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @f16_f32_bias_64x64x64(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>, %bias: tensor<64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %o = tensor.empty() : tensor<64x64xf32>
  %s = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<64x64xf32>, tensor<64xf32>) outs(%o : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}

// Only A transposed; only B transposed.
func.func @f16_f32_at_56x40x48(%at: tensor<48x56xf16>, %b: tensor<48x40xf16>) -> tensor<56x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<56x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<56x40xf32>) -> tensor<56x40xf32>
  %r = linalg.generic {indexing_maps = [#at, #bn, #cm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%at, %b : tensor<48x56xf16>, tensor<48x40xf16>) outs(%c : tensor<56x40xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<56x40xf32>
  return %r : tensor<56x40xf32>
}
func.func @f16_f32_bt_56x40x48(%a: tensor<56x48xf16>, %bt: tensor<40x48xf16>) -> tensor<56x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<56x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<56x40xf32>) -> tensor<56x40xf32>
  %r = linalg.generic {indexing_maps = [#id, #bt, #cm], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %bt : tensor<56x48xf16>, tensor<40x48xf16>) outs(%c : tensor<56x40xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<56x40xf32>
  return %r : tensor<56x40xf32>
}

// A batch of B's sharing one A: the grid's batch, A read by every block.
#sa = affine_map<(b, m, n, k) -> (m, k)>
#sb = affine_map<(b, m, n, k) -> (b, k, n)>
func.func @batch2_shared_a_40x48x32(%a: tensor<40x32xf16>, %b: tensor<2x32x48xf16>) -> tensor<2x40x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x40x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x48xf32>) -> tensor<2x40x48xf32>
  %r = linalg.generic {indexing_maps = [#sa, #sb, #cb], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<40x32xf16>, tensor<2x32x48xf16>) outs(%c : tensor<2x40x48xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %p = arith.mulf %xf, %yf : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<2x40x48xf32>
  return %r : tensor<2x40x48xf32>
}

// Epilogues applied to the accumulators in the kernel: bias + ReLU +
// conversion to f16; a residual and a per-row scale; int8 requantization
// (per-column scale, round to nearest even, clamp, narrow). The last one
// reads the product transposed, which the kernel does not take: it stays a
// separate loop.
#rows = affine_map<(m, n) -> (m)>
#tr = affine_map<(m, n) -> (n, m)>
func.func @f16_bias_relu_f16_96x80x64(%a: tensor<96x64xf16>, %b: tensor<64x80xf16>, %bias: tensor<80xf32>) -> tensor<96x80xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x80xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<96x80xf32>) -> tensor<96x80xf32>
  %r = linalg.matmul ins(%a, %b : tensor<96x64xf16>, tensor<64x80xf16>) outs(%c : tensor<96x80xf32>) -> tensor<96x80xf32>
  %o = tensor.empty() : tensor<96x80xf16>
  %s = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<96x80xf32>, tensor<80xf32>) outs(%o : tensor<96x80xf16>) {
  ^bb0(%x: f32, %y: f32, %z: f16):
    %t = arith.addf %x, %y : f32
    %m = arith.maximumf %t, %zero : f32
    %h = arith.truncf %m : f32 to f16
    linalg.yield %h : f16
  } -> tensor<96x80xf16>
  return %s : tensor<96x80xf16>
}
func.func @f16_residual_scale_72x40x48(%a: tensor<72x48xf16>, %b: tensor<48x40xf16>, %res: tensor<72x40xf32>, %scale: tensor<72xf32>) -> tensor<72x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<72x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<72x40xf32>) -> tensor<72x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<72x48xf16>, tensor<48x40xf16>) outs(%c : tensor<72x40xf32>) -> tensor<72x40xf32>
  %o = tensor.empty() : tensor<72x40xf32>
  %s = linalg.generic {indexing_maps = [#row, #row, #rows, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r, %res, %scale : tensor<72x40xf32>, tensor<72x40xf32>, tensor<72xf32>) outs(%o : tensor<72x40xf32>) {
  ^bb0(%x: f32, %y: f32, %w: f32, %z: f32):
    %t = arith.addf %x, %y : f32
    %u = arith.mulf %t, %w : f32
    linalg.yield %u : f32
  } -> tensor<72x40xf32>
  return %s : tensor<72x40xf32>
}
func.func @i8_requantize_96x80x80(%a: tensor<96x80xi8>, %b: tensor<80x80xi8>, %scale: tensor<80xf32>) -> tensor<96x80xi8> {
  %zero = arith.constant 0 : i32
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %e = tensor.empty() : tensor<96x80xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<96x80xi32>) -> tensor<96x80xi32>
  %r = linalg.matmul ins(%a, %b : tensor<96x80xi8>, tensor<80x80xi8>) outs(%c : tensor<96x80xi32>) -> tensor<96x80xi32>
  %o = tensor.empty() : tensor<96x80xi8>
  %q = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r, %scale : tensor<96x80xi32>, tensor<80xf32>) outs(%o : tensor<96x80xi8>) {
  ^bb0(%x: i32, %s: f32, %z: i8):
    %f = arith.sitofp %x : i32 to f32
    %m = arith.mulf %f, %s : f32
    %n = math.roundeven %m : f32
    %c1 = arith.maximumf %n, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptosi %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<96x80xi8>
  return %q : tensor<96x80xi8>
}
func.func @f16_transposed_consumer_64x48x32(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<48x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  %o = tensor.empty() : tensor<48x64xf32>
  %t = linalg.generic {indexing_maps = [#tr, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<64x48xf32>) outs(%o : tensor<48x64xf32>) {
  ^bb0(%x: f32, %z: f32):
    %d = arith.addf %x, %x : f32
    linalg.yield %d : f32
  } -> tensor<48x64xf32>
  return %t : tensor<48x64xf32>
}

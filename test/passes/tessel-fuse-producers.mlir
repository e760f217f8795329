// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tessel-fuse-producers))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-fuse-producers{tile-sizes=1,16,64,0}))' 2>&1 | FileCheck %s --check-prefix=GIVEN
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-fuse-producers))' 2>&1 >/dev/null | FileCheck %s --check-prefix=MODEL
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-fuse-producers{once-per-tile=false}))' 2>/dev/null | FileCheck %s --check-prefix=PERSLICE

// blur_x_blur_y: the x blur (5 taps along j) feeds only the y blur (5 taps
// along i). Both land in one scf.forall; each tile recomputes the 4 halo
// rows of the x blur into a tile-sized tensor; no full-size intermediate.
// The model takes 128 x 512 tiles, not the square 256 x 256 that
// recomputes fewer halo rows: each row a tile reads from the input is a
// contiguous piece that costs a cache line more than its bytes (the
// prefetcher's miss before it follows the stream), and 2 KiB pieces pay
// that half as often per byte as 1 KiB ones.

#tx = affine_map<(c, i, j, t) -> (c, i, j + t)>
#ty = affine_map<(c, i, j, t) -> (c, i + t, j)>
#tw = affine_map<(c, i, j, t) -> (t)>
#to = affine_map<(c, i, j, t) -> (c, i, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @blur_x_blur_y(
// CHECK-SAME: %[[IMG:.*]]: tensor<3x2048x2048xf32>
// CHECK-NOT: tensor<3x2048x2044xf32>
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<3x2044x2044xf32>
// CHECK: scf.forall (%[[C:.*]], %[[I:.*]], %[[J:.*]]) = (0, 0, 0) to (3, 2044, 2044) step (1, 128, 512) shared_outs(%{{.*}} = %[[OUT]])
// CHECK: %[[ROWS:.*]] = affine.min
// CHECK: %[[COLS:.*]] = affine.min
// CHECK: %[[HALO:.*]] = affine.apply #{{.*}}(%[[ROWS]])
// CHECK: tensor.extract_slice %[[IMG]][%[[C]], %[[I]], %[[J]]] [1, %[[HALO]], %{{.*}}] [1, 1, 1]
// The tile buffer has the largest tile's static size (128 + 4 halo rows),
// sliced to the tile at hand.
// CHECK: %[[FULL:.*]] = tensor.empty() : tensor<1x132x512xf32>
// CHECK: %[[TMP:.*]] = tensor.extract_slice %[[FULL]][0, 0, 0] [1, %[[HALO]], %[[COLS]]] [1, 1, 1]
// CHECK: linalg.fill {{.*}} outs(%[[TMP]] : tensor<1x?x?xf32>)
// CHECK: %[[BX:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x?x?xf32>, tensor<5xf32>) outs(%{{.*}} : tensor<1x?x?xf32>)
// CHECK: %[[BY:.*]] = linalg.generic {{.*}} ins(%[[BX]], %{{.*}} : tensor<1x?x?xf32>, tensor<5xf32>)
// CHECK: tensor.parallel_insert_slice %[[BY]]
// CHECK-NOT: linalg.generic
// GIVEN: remark: fused 1 producer(s) {{.*}}tile sizes given by the tile-sizes option, intermediates 5120 B per tile
// GIVEN: scf.forall {{.*}} to (3, 2044, 2044) step (1, 16, 64)
func.func @blur_x_blur_y(%img: tensor<3x2048x2048xf32>) -> tensor<3x2044x2044xf32> {
  %w = arith.constant dense<[0.0625, 0.25, 0.375, 0.25, 0.0625]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<3x2048x2044xf32>
  %ix = linalg.fill ins(%zero : f32) outs(%ex : tensor<3x2048x2044xf32>) -> tensor<3x2048x2044xf32>
  %bx = linalg.generic {indexing_maps = [#tx, #tw, #to], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%img, %w : tensor<3x2048x2048xf32>, tensor<5xf32>) outs(%ix : tensor<3x2048x2044xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x2048x2044xf32>
  %ey = tensor.empty() : tensor<3x2044x2044xf32>
  %iy = linalg.fill ins(%zero : f32) outs(%ey : tensor<3x2044x2044xf32>) -> tensor<3x2044x2044xf32>
  // expected-remark @below {{fused 1 producer(s) [linalg.generic at}}
  %by = linalg.generic {indexing_maps = [#ty, #tw, #to], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%bx, %w : tensor<3x2048x2044xf32>, tensor<5xf32>) outs(%iy : tensor<3x2044x2044xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x2044x2044xf32>
  return %by : tensor<3x2044x2044xf32>
}
}

// -----

// A producer whose result is also returned stays materialized (fusing it
// would compute it twice); it becomes a root of its own, tiled over the
// cores. The consumer is tiled alone.

#id = affine_map<(i, j) -> (i, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @shared_producer(
// CHECK: %[[P:.*]] = scf.forall
// CHECK: linalg.generic
// CHECK: %[[Q:.*]] = scf.forall
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<{{.*}}>)
// CHECK: return %[[P]], %[[Q]]
func.func @shared_producer(%a: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %e = tensor.empty() : tensor<512x512xf32>
  // expected-remark @below {{not fused into the tiles of linalg.generic}}
  // expected-remark @below {{tiled alone (no fusable producer)}}
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<512x512xf32>
  // expected-remark @below {{tiled alone (no fusable producer)}}
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<512x512xf32>
  return %p, %q : tensor<512x512xf32>, tensor<512x512xf32>
}
}

// -----

// Matmuls are kernels of their own: an elementwise consumer (bias + relu)
// does not pull the matmul into its tiles. Small ops are left alone.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @matmul_bias_relu(
// CHECK: linalg.matmul
// CHECK-NOT: scf.forall
func.func @matmul_bias_relu(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %bias: tensor<64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-remark @below {{not fused into the tiles of linalg.generic}}
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-remark @below {{not tiled: no fusable producer and too little work}}
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x64xf32>, tensor<64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %b0: f32, %o: f32):
    %s = arith.addf %x, %b0 : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
}

// -----

// No target: nothing is fused, and the remark says why.
func.func @no_target(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{not fused: no #tessel.target of kind cpu}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A softmax: the row max, exp, row sum and division fuse into tiles of whole
// rows (a tile covering a loop whole does not tile it, so the slices of x
// and of exp read by two members are identical): exp is computed once per
// tile and read by both the row sum and the division. Four rows: the most
// whose exp buffer and input slice (16 KiB) fit the 32 KiB L1, where the
// exp values are written and read back cheapest (eight would need 32.8).
#rid   = affine_map<(i, j) -> (i, j)>
#rrow  = affine_map<(i, j) -> (i)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// MODEL: remark: fused 3 producer(s) {{.*}} into its tiles: tile 4x512 (128 tiles over 2 cores), intermediates 8224 B per tile (budget L2/2 = 524288 B), working set 16416 B within L1, recomputed 0.0% of the unfused work
// CHECK-LABEL: func.func @softmax(
// CHECK: scf.forall (%[[R:[^)]+]]) = (0) to (512) step (4)
// CHECK: %[[X:.*]] = tensor.extract_slice %{{.*}}[%[[R]], 0] [4, 512]
// CHECK-NOT: tensor.extract_slice %arg0
// CHECK: %[[M:.*]] = linalg.generic {{.*}}"reduction"{{.*}} ins(%[[X]] :
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[M]] :
// CHECK: math.exp
// CHECK-NOT: math.exp
// CHECK: %[[S:.*]] = linalg.generic {{.*}}"reduction"{{.*}} ins(%[[E]] :
// CHECK: linalg.generic {{.*}} ins(%[[E]], %[[S]] :
// CHECK: scf.forall.in_parallel

func.func @softmax(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<512xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<512xf32>) -> tensor<512xf32>
  %m = linalg.generic {indexing_maps = [#rid, #rrow], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<512x512xf32>) outs(%m0 : tensor<512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  %ef = tensor.empty() : tensor<512x512xf32>
  %e = linalg.generic {indexing_maps = [#rid, #rrow, #rid], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<512x512xf32>, tensor<512xf32>) outs(%ef : tensor<512x512xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<512x512xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%er : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [#rid, #rrow], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<512x512xf32>) outs(%s0 : tensor<512xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<512xf32>
  // expected-remark @below {{fused 3 producer(s)}}
  %y = linalg.generic {indexing_maps = [#rid, #rrow, #rid], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<512x512xf32>, tensor<512xf32>) outs(%ef : tensor<512x512xf32>) {
  ^bb0(%v: f32, %sum: f32, %o: f32):
    %q = arith.divf %v, %sum : f32
    linalg.yield %q : f32
  } -> tensor<512x512xf32>
  return %y : tensor<512x512xf32>
}
}

// -----

// A producer read through two slices of one tile: with the blur's halo (3
// taps along i) and at the blur's centre (i + 1). One copy of it covers
// both: it is computed once per tile over the halo rows, and the centre
// read is a view of that copy. Upstream's fusion (once-per-tile=false)
// computes it twice per tile, once per slice.
#p_id  = affine_map<(i, j) -> (i, j)>
#p_mid = affine_map<(i, j) -> (i + 1, j)>
#b_tap = affine_map<(i, j, t) -> (i + t, j)>
#b_w   = affine_map<(i, j, t) -> (t)>
#b_out = affine_map<(i, j, t) -> (i, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @read_with_halo_and_at_centre(
// CHECK: scf.forall
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<[[H:[0-9]+]]x[[W:[0-9]+]]xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: %[[CENTRE:.*]] = tensor.extract_slice %[[SQ]][0, 0]
// CHECK-NOT: linalg.generic
// CHECK: %[[BLUR:.*]] = linalg.generic {{.*}}"reduction"{{.*}} ins(%[[SQ]], %{{.*}} : tensor<[[H]]x[[W]]xf32>,
// CHECK-NOT: linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[CENTRE]], %[[BLUR]] :
// CHECK-NOT: linalg.generic
// CHECK: scf.forall.in_parallel
// PERSLICE-LABEL: func.func @read_with_halo_and_at_centre(
// PERSLICE: scf.forall
// PERSLICE-COUNT-4: linalg.generic
// PERSLICE-NOT: linalg.generic
// PERSLICE: scf.forall.in_parallel
func.func @read_with_halo_and_at_centre(%x: tensor<1026x1024xf32>, %w: tensor<3xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %ep = tensor.empty() : tensor<1026x1024xf32>
  %sq = linalg.generic {indexing_maps = [#p_id, #p_id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1026x1024xf32>) outs(%ep : tensor<1026x1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %v : f32
    linalg.yield %m : f32
  } -> tensor<1026x1024xf32>
  %eb = tensor.empty() : tensor<1024x1024xf32>
  %ib = linalg.fill ins(%zero : f32) outs(%eb : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %blur = linalg.generic {indexing_maps = [#b_tap, #b_w, #b_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%sq, %w : tensor<1026x1024xf32>, tensor<3xf32>) outs(%ib : tensor<1024x1024xf32>) {
  ^bb0(%v: f32, %k: f32, %acc: f32):
    %m = arith.mulf %v, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  // expected-remark @below {{fused 2 producer(s)}}
  %d = linalg.generic {indexing_maps = [#p_mid, #p_id, #p_id], iterator_types = ["parallel", "parallel"]}
      ins(%sq, %blur : tensor<1026x1024xf32>, tensor<1024x1024xf32>) outs(%eb : tensor<1024x1024xf32>) {
  ^bb0(%c: f32, %b: f32, %o: f32):
    %r = arith.subf %c, %b : f32
    linalg.yield %r : f32
  } -> tensor<1024x1024xf32>
  return %d : tensor<1024x1024xf32>
}

// A producer whose two results are written through different maps (one
// transposed): a box of its loops is not a box of both results, so it is
// fused once per slice, and the remark says why.
func.func @two_output_maps(%x: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %e = tensor.empty() : tensor<512x512xf32>
  // expected-remark @below {{computed once per slice its consumers read in each tile, not once for all: its results are written through different maps}}
  %p:2 = linalg.generic {indexing_maps = [#p_id, #p_id, affine_map<(i, j) -> (j, i)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<512x512xf32>) outs(%e, %e : tensor<512x512xf32>, tensor<512x512xf32>) {
  ^bb0(%v: f32, %o0: f32, %o1: f32):
    %m = arith.mulf %v, %v : f32
    linalg.yield %m, %m : f32, f32
  } -> (tensor<512x512xf32>, tensor<512x512xf32>)
  // expected-remark @below {{fused 1 producer(s)}}
  %s = linalg.generic {indexing_maps = [#p_id, #p_id, #p_id], iterator_types = ["parallel", "parallel"]}
      ins(%p#0, %p#1 : tensor<512x512xf32>, tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<512x512xf32>
  return %s : tensor<512x512xf32>
}
}

// -----

// A two-result stencil whose outputs start from identical zero-filled
// tensors: the tile's copies of the two fills are identical and CSE merges
// them, then each output gets its own fill again. Sharing one would make
// bufferization allocate the second output's buffer on the heap, at the
// tile's dynamic size, on every tile.
#s_tap = affine_map<(i, j, t) -> (i + t, j)>
#s_out = affine_map<(i, j, t) -> (i, j)>
#s_id  = affine_map<(i, j) -> (i, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @two_sums_two_buffers(
// CHECK: scf.forall
// CHECK: %[[F0:.*]] = linalg.fill
// CHECK: %[[F1:.*]] = linalg.fill
// CHECK: linalg.generic {{.*}} outs(%[[F0]], %[[F1]] :
func.func @two_sums_two_buffers(%x: tensor<1026x1024xf32>, %w: tensor<3xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1024x1024xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %e1 = tensor.empty() : tensor<1024x1024xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %s:2 = linalg.generic {indexing_maps = [#s_tap, affine_map<(i, j, t) -> (t)>, #s_out, #s_out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1026x1024xf32>, tensor<3xf32>) outs(%f0, %f1 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) {
  ^bb0(%v: f32, %k: f32, %a: f32, %b: f32):
    %sq = arith.mulf %v, %k : f32
    %na = arith.addf %a, %v : f32
    %nb = arith.addf %b, %sq : f32
    linalg.yield %na, %nb : f32, f32
  } -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>)
  %e = tensor.empty() : tensor<1024x1024xf32>
  // expected-remark @below {{fused 1 producer(s)}}
  %r = linalg.generic {indexing_maps = [#s_id, #s_id, #s_id], iterator_types = ["parallel", "parallel"]}
      ins(%s#0, %s#1 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    %d = arith.subf %b, %m : f32
    linalg.yield %d : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
}

// -----

// A producer read at i + 1 and at 2i: the two slices can be ordered, but
// their union would grow with the tile index (from i to 2i + 2 Ti), so each
// slice
// gets its own copy, and the remark says why.
#d_id  = affine_map<(i, j) -> (i, j)>
#d_two = affine_map<(i, j) -> (2 * i, j)>
#d_next = affine_map<(i, j) -> (i + 1, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @read_at_i_and_2i(
// CHECK: scf.forall
// CHECK-COUNT-2: math.exp
// CHECK: scf.forall.in_parallel
func.func @read_at_i_and_2i(%x: tensor<2048x512xf32>) -> tensor<1024x512xf32> {
  %ep = tensor.empty() : tensor<2048x512xf32>
  // expected-remark @below {{computed once per slice its consumers read in each tile, not once for all: the slices' bounds along dimension 0 differ by an amount that depends on the tile}}
  %p = linalg.generic {indexing_maps = [#d_id, #d_id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2048x512xf32>) outs(%ep : tensor<2048x512xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  } -> tensor<2048x512xf32>
  %e = tensor.empty() : tensor<1024x512xf32>
  // expected-remark @below {{fused 1 producer(s)}}
  %r = linalg.generic {indexing_maps = [#d_next, #d_two, #d_id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %p : tensor<2048x512xf32>, tensor<2048x512xf32>) outs(%e : tensor<1024x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024x512xf32>
  return %r : tensor<1024x512xf32>
}
}

// -----

// An NVIDIA target: tiles are thread blocks, their buffers budgeted in half
// a block's shared memory, two blocks per SM counted as parallel units.
#gx = affine_map<(c, i, j, t) -> (c, i, j + t)>
#gy = affine_map<(c, i, j, t) -> (c, i + t, j)>
#gw = affine_map<(c, i, j, t) -> (t)>
#go = affine_map<(c, i, j, t) -> (c, i, j)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", sm_count = 108, warp_size = 32, smem_per_block = 166912>} {
// CHECK-LABEL: func.func @gpu_blur(
// CHECK-NOT: tensor<3x1024x1020xf32>
// CHECK: scf.forall
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: tensor.parallel_insert_slice
func.func @gpu_blur(%img: tensor<3x1024x1024xf32>) -> tensor<3x1020x1020xf32> {
  %w = arith.constant dense<[0.0625, 0.25, 0.375, 0.25, 0.0625]> : tensor<5xf32>
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : tensor<3x1024x1020xf32>
  %ix = linalg.fill ins(%zero : f32) outs(%ex : tensor<3x1024x1020xf32>) -> tensor<3x1024x1020xf32>
  %bx = linalg.generic {indexing_maps = [#gx, #gw, #go], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%img, %w : tensor<3x1024x1024xf32>, tensor<5xf32>) outs(%ix : tensor<3x1024x1020xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x1024x1020xf32>
  %ey = tensor.empty() : tensor<3x1020x1020xf32>
  %iy = linalg.fill ins(%zero : f32) outs(%ey : tensor<3x1020x1020xf32>) -> tensor<3x1020x1020xf32>
  // expected-remark @below {{tiles over 216 block slots (2 per SM)), intermediates}}
  %by = linalg.generic {indexing_maps = [#gy, #gw, #go], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%bx, %w : tensor<3x1024x1020xf32>, tensor<5xf32>) outs(%iy : tensor<3x1020x1020xf32>) {
  ^bb0(%p: f32, %k: f32, %acc: f32):
    %m = arith.mulf %p, %k : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x1020x1020xf32>
  return %by : tensor<3x1020x1020xf32>
}
}

// -----

// On a GPU the op after a matmul stays where it is, untiled: the matmul's
// kernel applies it as its epilogue.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", sm_count = 108, warp_size = 32, smem_per_block = 166912>} {
// CHECK-LABEL: func.func @gpu_matmul_relu(
// CHECK-NOT: scf.forall
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-NOT: scf.forall
func.func @gpu_matmul_relu(%a: tensor<512x512xf16>, %b: tensor<512x512xf16>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<512x512xf16>, tensor<512x512xf16>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  // expected-remark @below {{not tiled: it reads a contraction's result}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
}

// -----

// A transpose of a matmul's result cannot be its epilogue (the kernel
// stores C in place): it is tiled like any other op, here alone.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", sm_count = 108, warp_size = 32, smem_per_block = 166912>} {
// CHECK-LABEL: func.func @gpu_matmul_transposed(
// CHECK: linalg.matmul
// CHECK: scf.forall
// CHECK: linalg.transpose
func.func @gpu_matmul_transposed(%a: tensor<512x512xf16>, %b: tensor<512x512xf16>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  // expected-remark @below {{not fused into the tiles of linalg.transpose}}
  %m = linalg.matmul ins(%a, %b : tensor<512x512xf16>, tensor<512x512xf16>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  %t = tensor.empty() : tensor<512x512xf32>
  // expected-remark @below {{tiled alone (no fusable producer)}}
  %r = linalg.transpose ins(%m : tensor<512x512xf32>) outs(%t : tensor<512x512xf32>) permutation = [1, 0]
  return %r : tensor<512x512xf32>
}
}

// -----

// Two products that start from one zero fill (as CSE leaves the fills of
// two convolutions) get a fill each: shared, bufferization would copy the
// filled buffer for the second, which its GPU kernel would then load
// instead of starting its accumulators at zero. The transpose's tile loop,
// which shares the fill's empty, gets an empty of its own.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", sm_count = 108, warp_size = 32, smem_per_block = 166912>} {
// CHECK-LABEL: func.func @gpu_shared_fill(
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<256x256xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[ZERO:.*]] : f32) outs(%[[E1]] : tensor<256x256xf32>)
// CHECK: %[[M1:.*]] = linalg.matmul {{.*}} outs(%[[F1]] : tensor<256x256xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<256x256xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E2]] : tensor<256x256xf32>)
// CHECK: linalg.matmul ins(%[[M1]], {{.*}} outs(%[[F2]] : tensor<256x256xf32>)
// CHECK: %[[ET:.*]] = tensor.empty() : tensor<256x256xf32>
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[ET]])
// CHECK: linalg.transpose
func.func @gpu_shared_fill(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-remark @below {{not fused into the tiles of linalg.transpose}}
  %m2 = linalg.matmul ins(%m1, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-remark @below {{tiled alone (no fusable producer)}}
  %t = linalg.transpose ins(%m2 : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) permutation = [1, 0]
  return %t : tensor<256x256xf32>
}
}

// -----

// Two ops outside the tiles, and a tile loop, that write one tensor.empty
// (as CSE leaves two epilogues and a transpose of one shape) get one each,
// made right before them: shared, bufferization may give the
// second the first's buffer once the second product has read it, and that
// product's GPU kernel, taking the second as its epilogue, would store into
// its own operand A while other blocks still read it.
#id = affine_map<(i, j) -> (i, j)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", sm_count = 108, warp_size = 32, smem_per_block = 166912>} {
// CHECK-LABEL: func.func @gpu_shared_empty(
// CHECK: %[[H:.*]] = tensor.empty() : tensor<256x256xf16>
// CHECK: %[[R1:.*]] = linalg.generic {{.*}} outs(%[[H]] : tensor<256x256xf16>)
// CHECK: %[[M2:.*]] = linalg.matmul ins(%[[R1]],
// CHECK: %[[H2:.*]] = tensor.empty() : tensor<256x256xf16>
// CHECK: linalg.generic {{.*}} ins(%[[M2]] : tensor<256x256xf32>) outs(%[[H2]] : tensor<256x256xf16>)
// CHECK: %[[HT:.*]] = tensor.empty() : tensor<256x256xf16>
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[HT]])
func.func @gpu_shared_empty(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> (tensor<256x256xf16>, tensor<256x256xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %h = tensor.empty() : tensor<256x256xf16>
  %m1 = linalg.matmul ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-remark @below {{not tiled: it reads a contraction's result}}
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1 : tensor<256x256xf32>) outs(%h : tensor<256x256xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x256xf16>
  %m2 = linalg.matmul ins(%r1, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-remark @below {{not tiled: it reads a contraction's result}}
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<256x256xf32>) outs(%h : tensor<256x256xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x256xf16>
  %h2 = tensor.empty() : tensor<256x256xf16>
  // expected-remark @below {{tiled alone (no fusable producer)}}
  %tr = linalg.transpose ins(%a : tensor<256x256xf16>) outs(%h2 : tensor<256x256xf16>) permutation = [1, 0]
  return %r2, %tr : tensor<256x256xf16>, tensor<256x256xf16>
}
}

// -----

// The same on a CPU, where fusion happens on tensors and bufferization sees
// it: ops sharing one tensor.empty keep sharing it (a buffer already
// touched costs no page faults); only the fills are made again.
#id = affine_map<(i, j) -> (i, j)>
module attributes {tessel.target = #tessel.target<kind = "cpu", l1 = 32768, l2 = 1048576, cores = 2, vector_bits = 512>} {
// CHECK-LABEL: func.func @cpu_shared_empty(
// CHECK: %[[H:.*]] = tensor.empty() : tensor<256x256xf16>
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[H]])
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[H]])
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[H]])
func.func @cpu_shared_empty(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> (tensor<256x256xf16>, tensor<256x256xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %h = tensor.empty() : tensor<256x256xf16>
  // expected-remark @below {{not fused into the tiles}}
  %m1 = linalg.matmul ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-remark @below {{tiled alone}}
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1 : tensor<256x256xf32>) outs(%h : tensor<256x256xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x256xf16>
  // expected-remark @below {{not fused into the tiles}}
  %m2 = linalg.matmul ins(%r1, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  // expected-remark @below {{tiled alone}}
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<256x256xf32>) outs(%h : tensor<256x256xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<256x256xf16>
  %h2 = tensor.empty() : tensor<256x256xf16>
  // expected-remark @below {{tiled alone}}
  %tr = linalg.transpose ins(%a : tensor<256x256xf16>) outs(%h2 : tensor<256x256xf16>) permutation = [1, 0]
  return %r2, %tr : tensor<256x256xf16>, tensor<256x256xf16>
}
}

// -----

// Few outputs over long reductions, alone: on a GPU, tiles would give each
// tile of rows one block. Left untiled, with a remark, for
// tessel-map-reductions-to-gpu to split over several blocks per row. A
// reduction with producers to fuse into its tiles is tiled as before.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", sm_count = 108, warp_size = 32, smem_per_block = 166912>} {
// CHECK-LABEL: func.func @gpu_few_long_rows(
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
// CHECK-NOT: scf.forall
func.func @gpu_few_long_rows(%x: tensor<8x100000xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @below {{not tiled: few outputs over long reductions, which tessel-map-reductions-to-gpu splits over several blocks per output}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x100000xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
}

// -----

// A reduction like it (128 rows of 512: also fewer than two blocks per SM)
// with a producer to fuse into its tiles (an exp, which in the pipeline
// tessel-fuse-elementwise would have folded into the sum's body) is tiled
// as before. A tile of one row already reads 2 KiB runs, so the rows are
// not tiled by a warp's 32 (which gave 4 tiles): one row per tile.
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", sm_count = 108, warp_size = 32, smem_per_block = 166912>} {
// CHECK-LABEL: func.func @gpu_few_long_rows_fused(
// CHECK: scf.forall
// CHECK: math.exp
// CHECK: arith.addf
func.func @gpu_few_long_rows_fused(%x: tensor<128x512xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %ee = tensor.empty() : tensor<128x512xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<128x512xf32>) outs(%ee : tensor<128x512xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<128x512xf32>
  %e = tensor.empty() : tensor<128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  // expected-remark @below {{into its tiles: tile 1x- (128 tiles over 216 block slots}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<128x512xf32>) outs(%f : tensor<128xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  return %r : tensor<128xf32>
}
}

// -----

// A logsumexp's root is 1-D (log(sum) + max per row): its only loop runs
// over rows, whose 4096 columns the producers' reductions read. The
// warp-sized quantum (32 four-byte elements, for coalesced loads) would
// cap it at 32 tiles for 216 block slots; a tile of one row already reads
// 16 KiB runs, so the quantum does not apply.
#lse_in = affine_map<(i, r) -> (i, r)>
#lse_row = affine_map<(i, r) -> (i)>
#lse_id = affine_map<(i) -> (i)>
module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_80", sm_count = 108, warp_size = 32, smem_per_block = 166912>} {
// CHECK-LABEL: func.func @gpu_logsumexp(
// CHECK: scf.forall {{.*}} in (1024)
// CHECK: math.exp
// CHECK: math.log
func.func @gpu_logsumexp(%x: tensor<1024x4096xf32>) -> tensor<1024xf32> {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %m0 = linalg.fill ins(%lowest : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %m = linalg.generic {indexing_maps = [#lse_in, #lse_row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x4096xf32>) outs(%m0 : tensor<1024xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.maximumf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %s = linalg.generic {indexing_maps = [#lse_in, #lse_row, #lse_row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<1024x4096xf32>, tensor<1024xf32>) outs(%s0 : tensor<1024xf32>) {
  ^bb0(%v: f32, %mm: f32, %a: f32):
    %d = arith.subf %v, %mm : f32
    %ex = math.exp %d : f32
    %r = arith.addf %ex, %a : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  // expected-remark-re @below {{fused 2 producer(s) {{.*}} into its tiles: tile 1 (1024 tiles over 216 block slots}}
  %o = linalg.generic {indexing_maps = [#lse_id, #lse_id, #lse_id], iterator_types = ["parallel"]}
      ins(%s, %m : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %l = math.log %a : f32
    %r = arith.addf %l, %b : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %o : tensor<1024xf32>
}
}

// -----

// The same rule on a CPU, whose quantum is four vectors (64 f32): 4 row
// sums of 200003 elements were one tile (4 rows < 64), so one core ran
// them all. A row already makes a long run: 2 rows per core.
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @cpu_few_long_rows(
// CHECK: scf.forall {{.*}} = (0) to (4) step (2)
func.func @cpu_few_long_rows(%x: tensor<4x200003xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @below {{tiled alone (no fusable producer): tile 2x- (2 tiles over 2 cores)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x200003xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
}

// -----

// Tensors of index elements are sized as 8-byte ones (index has no bit
// width of its own; asking for one crashed the pass).
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @index_elements(
// CHECK: scf.forall {{.*}} = (0) to (512) step (256)
func.func @index_elements(%a: tensor<512x1024xi64>) -> tensor<512x1024xindex> {
  %e = tensor.empty() : tensor<512x1024xindex>
  // expected-remark @below {{tiled alone (no fusable producer): tile 256x1024 (2 tiles over 2 cores), intermediates 0 B per tile (budget L2/2 = 524288 B), working set 2097152 B beyond L1}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<512x1024xi64>) outs(%e : tensor<512x1024xindex>) {
  ^bb0(%x: i64, %o: index):
    %c = arith.index_cast %x : i64 to index
    linalg.yield %c : index
  } -> tensor<512x1024xindex>
  return %r : tensor<512x1024xindex>
}
}

// -----

// A read through a decreasing map (a reversal) is not tiled: upstream's
// tiling would slice the operand from the map at a tile's first and last
// indices, the wrong place (producer and consumer were fused on wrong
// slices). The op is left alone with a remark.
module attributes {tessel.target = #tessel.target<kind = "cpu", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
// CHECK-LABEL: func.func @reversed_read(
// CHECK: %[[X:.*]] = scf.forall
// CHECK: linalg.exp
// CHECK: linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<600x700xf32>, tensor<600x700xf32>)
// CHECK-NOT: scf.forall
// CHECK: return
func.func @reversed_read(%a: tensor<600x700xf32>) -> tensor<600x700xf32> {
  %e = tensor.empty() : tensor<600x700xf32>
  // expected-remark @below {{tiled alone (no fusable producer)}}
  %x = linalg.exp ins(%a : tensor<600x700xf32>) outs(%e : tensor<600x700xf32>) -> tensor<600x700xf32>
  %e2 = tensor.empty() : tensor<600x700xf32>
  // expected-remark @below {{not tiled: operand 0 is accessed through (d0, d1) -> (-d0 + 599, -d1 + 699), which decreases or wraps (tiling slices operands only through non-decreasing maps)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (599 - i, 699 - j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %a : tensor<600x700xf32>, tensor<600x700xf32>) outs(%e2 : tensor<600x700xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.subf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<600x700xf32>
  return %r : tensor<600x700xf32>
}
}

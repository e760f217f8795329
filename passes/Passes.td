//===- Passes.td - Tessel passes ---------------------------*- tablegen -*-===//
//
// Every Tessel transformation. Each def generates the C++ declaration
// (-gen-pass-decls) and the C API entry points mlirCreateTessel<Def> /
// mlirRegisterTessel<Def> (-gen-pass-capi-header/-impl).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PASSES_TD
#define TESSEL_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttachTargetPass : Pass<"tessel-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach the #tessel.target description the cost models read";
  let description = [{
    Attaches `tessel.target = #tessel.target<...>` to the module. The
    description starts from a preset: for `kind=cpu` the host this compiler
    runs on (LLVM's host queries for triple, CPU and features; sysfs for the
    caches; the affinity mask for cores), for `nvgpu`/`amdgpu` the figures
    of `chip`. Any field can then be overridden by its option.

    A module that already carries a target keeps it (so a user can run
    `tessel-attach-target{...}` with their own overrides before a named
    pipeline, whose own attach step then leaves it alone), unless `force` is
    set. A kept target whose kind differs from `kind` is an error: the
    pipeline cannot compile for a machine of another kind.

    Before:

    ```mlir
    module { ... }
    ```

    After `tessel-attach-target{kind=nvgpu chip=sm_90a}`:

    ```mlir
    module attributes {tessel.target = #tessel.target<kind = "nvgpu",
        triple = "nvptx64-nvidia-cuda", chip = "sm_90a", ...>} { ... }
    ```
  }];
  let dependentDialects = ["::mlir::tessel::TesselDialect"];
  let options = [
    Option<"kind", "kind", "std::string", "\"cpu\"",
           "Target kind: cpu, nvgpu or amdgpu">,
    Option<"chip", "chip", "std::string", "\"\"",
           "CPU name or GPU chip (sm_80, sm_90a, gfx90a, gfx1100); empty: "
           "the host CPU, sm_80 or gfx90a">,
    Option<"force", "force", "bool", "false",
           "Replace a target the module already carries">,
    Option<"triple", "triple", "std::string", "\"\"", "Override the triple">,
    Option<"features", "features", "std::string", "\"\"",
           "Override the LLVM target features">,
    Option<"vectorBits", "vector-bits", "int64_t", "0",
           "Override the vector register width in bits (0: keep)">,
    Option<"vectorRegisters", "vector-registers", "int64_t", "0",
           "Override the number of vector registers (0: keep)">,
    Option<"cacheLine", "cache-line", "int64_t", "0",
           "Override the cache line size in bytes (0: keep)">,
    Option<"l1", "l1", "int64_t", "0", "Override the L1 size per core (0: keep)">,
    Option<"l2", "l2", "int64_t", "0", "Override the L2 size per core (0: keep)">,
    Option<"l3", "l3", "int64_t", "0", "Override the last-level cache size (0: keep)">,
    Option<"cores", "cores", "int64_t", "0", "Override the core count (0: keep)">,
    Option<"smCount", "sm-count", "int64_t", "0",
           "Override the SM/CU count (0: keep)">,
    Option<"smemPerBlock", "smem-per-block", "int64_t", "0",
           "Override shared memory per block in bytes (0: keep)">,
    Option<"registersPerBlock", "registers-per-block", "int64_t", "0",
           "Override 32-bit registers per block (0: keep)">,
    Option<"warpSize", "warp-size", "int64_t", "0",
           "Override the warp/wavefront width (0: keep)">,
    Option<"maxThreadsPerBlock", "max-threads-per-block", "int64_t", "0",
           "Override the max threads per block (0: keep)">,
    Option<"mmaFmaPerCycle", "mma-fma-per-cycle", "int64_t", "0",
           "Override the 16-bit tensor-core FMAs per cycle per SM (0: keep)">,
    Option<"mmaF64FmaPerCycle", "mma-f64-fma-per-cycle", "int64_t", "0",
           "Override the f64 tensor-core FMAs per cycle per SM (0: keep)">,
    Option<"simtFmaPerCycle", "simt-fma-per-cycle", "int64_t", "0",
           "Override the f32 FMAs per cycle per SM on the SIMT cores (0: keep)">,
    Option<"simtF64FmaPerCycle", "simt-f64-fma-per-cycle", "int64_t", "0",
           "Override the f64 FMAs per cycle per SM on the SIMT cores (0: keep)">,
    Option<"smemBytesPerCycle", "smem-bytes-per-cycle", "int64_t", "0",
           "Override the shared-memory bytes per cycle per SM (0: keep)">,
    Option<"l2BytesPerCycle", "l2-bytes-per-cycle", "int64_t", "0",
           "Override the L2 bytes per cycle per SM (0: keep)">,
    Option<"dramBytesPerCycle", "dram-bytes-per-cycle", "int64_t", "0",
           "Override the device-memory bytes per cycle per SM (0: keep)">,
    Option<"memoryLatency", "memory-latency", "int64_t", "0",
           "Override the device-memory latency in cycles (0: keep)">,
    Option<"stridePrefetch", "stride-prefetch", "int64_t", "0",
           "Override the largest row stride in bytes the CPU's hardware "
           "prefetcher follows (0: keep)">
  ];
}

def ValidateInputPass : Pass<"tessel-validate-input", "::mlir::ModuleOp"> {
  let summary = "Reject programs Tessel cannot compile, naming the op and why";
  let description = [{
    Checks the input contract before anything is transformed, so that bad
    input fails with a diagnostic at the offending op instead of a crash or
    silently wrong code later:

    - every op comes from a dialect Tessel accepts as input (builtin, func,
      linalg, tensor, arith, math, memref, bufferization, tosa, scf, affine,
      ml_program);
    - every tensor and memref is statically shaped (dynamic sizes are not
      handled yet);
    - element types are i1/i8/i16/i32/i64/index or f16/bf16/f32/f64;
    - memref function arguments have the identity layout the C ABI assumes;
    - the input frees no buffer itself (`memref.dealloc`): Tessel places
      deallocations, and the ownership analysis doing so cannot reason about
      frees it did not insert;
    - no value is larger than the address space can hold.

    ```mlir
    func.func @f(%a: tensor<?x4xf32>) -> tensor<?x4xf32>
    // error: 'func.func' argument #0 has dynamic shape tensor<?x4xf32>:
    //        Tessel needs static shapes
    ```
  }];
}

def ExportCInterfacePass : Pass<"tessel-export-c-interface", "::mlir::ModuleOp"> {
  let summary = "Define the C ABI of public functions";
  let description = [{
    Runs before bufferization and fixes what callers of the compiled object
    rely on (docs/ABI.md):

    - each public `func.func` with a body is marked `llvm.emit_c_interface`,
      so that `convert-func-to-llvm` emits a `_mlir_ciface_<name>` wrapper
      taking pointers to upstream's strided memref descriptors;
    - its tensor arguments are marked `bufferization.writable = false`:
      tensors are values, so the caller's input buffers are never written,
      even when the function updates an argument "in place" (bufferization
      then copies instead).

    ```mlir
    func.func @mm(%a: tensor<4x4xf32>) -> tensor<4x4xf32> { ... }
    // becomes
    func.func @mm(%a: tensor<4x4xf32> {bufferization.writable = false})
        -> tensor<4x4xf32> attributes {llvm.emit_c_interface} { ... }
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def DecomposeAggregatesPass
    : Pass<"tessel-decompose-aggregates", "::mlir::func::FuncOp"> {
  let summary = "Decompose aggregate linalg ops (softmax, ...) into linalg ops";
  let description = [{
    Ops such as `linalg.softmax` are not structured ops themselves; they
    implement `AggregatedOpInterface` and describe their meaning as a
    sequence of `linalg.generic`/named ops. This pass applies that
    decomposition (upstream's `decomposeOperation`) so that everything after
    it (fusion, tiling, lowering) sees only structured ops. An op whose
    decomposition fails is an error at the op. Upstream decomposes the
    tensor forms only; an op on buffers is decomposed on tensor views of
    them (`bufferization.to_tensor restrict`), its results written back
    with `bufferization.materialize_in_destination`, for one-shot-bufferize
    to turn into buffers again.

    ```mlir
    %r = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
    // becomes: max-reduce, sub + exp, sum-reduce, divide as linalg.generic ops
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LowerLinalgToAffinePass
    : Pass<"tessel-lower-linalg-to-affine", "::mlir::func::FuncOp"> {
  let summary = "Lower bufferized linalg ops to affine loop nests";
  let description = [{
    Lowers every linalg op on memrefs (named ops such as matmul and the
    convolutions, and `linalg.generic`) to an `affine.for` nest whose loads
    and stores keep the op's indexing maps as affine access functions, the
    form the polyhedral transformations analyze. Uses upstream's
    `linalgOpToAffineLoops`; what this pass adds is the contract check: an op
    still on tensors (not bufferized) or one that cannot be expressed with
    affine accesses is an error at that op, never left behind silently.
    Ops with dynamic extents inside loops (partial tiles of fused nests,
    whose sizes are not valid affine symbols there) get `scf.for` loops.

    ```mlir
    linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)
                  outs(%c : memref<4x2xf32>)
    // becomes
    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 2 {
        affine.for %k = 0 to 8 {
          %0 = affine.load %a[%i, %k] : memref<4x8xf32>
          ...
          affine.store %3, %c[%i, %j] : memref<4x2xf32>
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertConvToMatmulPass
    : Pass<"tessel-convert-conv-to-matmul", "::mlir::func::FuncOp"> {
  let summary = "Rewrite static f32 2-D convolutions as linalg.matmul";
  let description = [{
    Runs on tensors before `tessel-vectorize-matmul`, so that convolutions
    reach its packed FMA kernel instead of the naive loop nest. Every
    conversion gets a remark saying what it did and what it costs (the
    im2col buffer size); every convolution it leaves alone gets one saying
    why.

    - `linalg.conv_2d_nhwc_hwcf` with a 1x1 filter, stride 1 and dilation 1:
      `linalg.matmul` of `[N*H*W, C] x [C, F] -> [N*H*W, F]` on
      `tensor.collapse_shape` views of the input, filter and output (and a
      `tensor.expand_shape` back): no data is copied.
    - any other `linalg.conv_2d_nhwc_hwcf` (3x3, 7x7, strides, dilations):
      im2col. A `linalg.generic` copies the patches into a
      `[N, OH, OW, KH, KW, C]` tensor with the affine input map
      `(n, oh, ow, kh, kw, c) -> (n, oh*sh + kh*dh, ow*sw + kw*dw, c)`;
      collapsed, that is the `[N*OH*OW, KH*KW*C]` matrix A; the filter
      collapses to `[KH*KW*C, F]`. The copy is tiled with
      `scf::tileUsingSCF`: an `scf.forall` over the `(n, oh)` rows (the
      CPU pipeline runs it on OpenMP threads), in it `scf.for` loops over
      `ow`, `kh` (and `kw` where needed) around pieces: all of `KW*C` when
      the filter is not dilated along W and `KW*C <= 64` (the ResNet
      stem's 7x3), copied on collapsed 1-D views in vectors of 16 (the
      last one overlapping the one before where 16 does not divide it:
      21 floats as [0, 16) and [5, 21)), otherwise `C` in chunks of at
      most 64 that divide it, one per `kw` tap, that `linalg::vectorize`
      turns into one `vector.transfer_read` / `vector.transfer_write`. When
      the patches of the whole batch exceed a quarter of the target's
      last-level cache, they are copied and multiplied a chunk of whole
      images at a time: an `scf.for` over the images carries the output
      and one chunk-sized patch buffer (allocated once, read back by the
      matmul while still in cache). A zero-fill accumulator is filled a
      chunk at a time inside the loop, and the elementwise ops that alone
      consume the output (bias add, ReLU) move into the loop on the
      chunk's slice (`scf::tileAndFuseConsumer`), where
      `tessel-vectorize-matmul` takes them as its epilogue. (Upstream's `linalg::rewriteInIm2Col`
      keeps the batch apart and emits a batched contraction as a
      `linalg.generic`, which the matmul kernel does not take.)
    - `linalg.conv_2d_nchw_fchw`: the transposed product in the op's own
      layout, `[F, C*KH*KW] x [C*KH*KW, N*OH*OW]`, the im2col tensor being
      `[C, KH, KW, N, OH, OW]`. With N = 1 the product is the output itself
      (a view) and nothing is transposed; a 1x1, stride-1 one copies
      nothing. With N > 1 only the init and the result are transposed
      (`linalg.transpose`, NFHW <-> FNHW); the input is never transposed
      to NHWC.
    - depthwise convolutions and pooling (not a matmul: each channel is
      reduced on its own) become `linalg.generic` windows (upstream's
      generalization), which `tessel-fuse-producers` tiles over the cores
      and `tessel-vectorize-generics` unrolls and vectorizes like any
      stencil (small windows; NCHW ones read W with a stride, scalar
      loads); other convolution ops, element types other than f32,
      dynamic shapes and ops on buffers: a remark, and the op is left
      alone.

    Implicit GEMM (`implicit-gemm`, with a cpu `#tessel.target`, where the
    matmul model reads the patches through the input: A in place, i.e.
    fewer than 16 B micro-panels, a register tile height dividing OW, and
    kc blocks of at least 16 of a tap's C channels): the NHWC patch copy
    is left whole and untiled and
    the matmul's A is its collapsed view; `tessel-vectorize-matmul` then
    reads A through it from the input (no copy), or tiles the copy if its
    options make it pack A after all. The batch is then
    chunked by its output instead: when the whole batch's output exceeds
    half of each core's L2, since the kernel's kc blocks lie within one
    tap and it loads and stores C once per tap.

    Padding arrives as a `tensor.pad` before the convolution. Before an
    NHWC im2col that alone reads it (static H/W padding by a constant), it
    becomes a copy over the cores: an `scf.forall` over the padded rows
    whose vector pieces along C come from the input or are the padding
    value (bufferized, `tensor.pad` is a one-thread memset and copy of the
    whole padded tensor). Elsewhere it stays as it is.

    Before:

    ```mlir
    %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                   strides = dense<1> : tensor<2xi64>}
        ins(%xp, %w : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>)
        outs(%init : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
    ```

    After, without a cpu target or with `implicit-gemm=false` (constants
    and the `scf.yield`s left out; implicit, the `scf.forall` below is one
    untiled `linalg.generic` with the im2col map):

    ```mlir
    %e = tensor.empty() : tensor<1x56x56x3x3x64xf32>
    %p = scf.forall (%n, %oh) in (1, 56) shared_outs(%s = %e)
        -> (tensor<1x56x56x3x3x64xf32>) {
      %rows = tensor.extract_slice %xp[%n, %oh, 0, 0] [1, 3, 58, 64] [1, 1, 1, 1]
          : tensor<1x58x58x64xf32> to tensor<1x3x58x64xf32>
      %row = tensor.extract_slice %s[%n, %oh, 0, 0, 0, 0] [1, 1, 56, 3, 3, 64] [1, 1, 1, 1, 1, 1]
          : tensor<1x56x56x3x3x64xf32> to tensor<1x1x56x3x3x64xf32>
      %r = scf.for %ow = %c0 to %c56 step %c1 iter_args(%a0 = %row) -> (tensor<1x1x56x3x3x64xf32>) {
        scf.for %kh = ... iter_args(%a1 = %a0) ... {
          scf.for %kw = ... iter_args(%a2 = %a1) ... {
            %w = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%ow, %kw)
            %in = tensor.extract_slice %rows[0, %kh, %w, 0] [1, 1, 1, 64] [1, 1, 1, 1]
                : tensor<1x3x58x64xf32> to tensor<1x1x1x64xf32>
            %out = tensor.extract_slice %a2[0, 0, %ow, %kh, %kw, 0] [1, 1, 1, 1, 1, 64] [1, 1, 1, 1, 1, 1]
                : tensor<1x1x56x3x3x64xf32> to tensor<1x1x1x1x1x64xf32>
            %v = vector.transfer_read %in[%c0, %c0, %c0, %c0], %pad
                {permutation_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0, d2, d3)>}
                : tensor<1x1x1x64xf32>, vector<1x1x1x1x1x64xf32>
            %t = vector.transfer_write %v, %out[%c0, %c0, %c0, %c0, %c0, %c0]
                : vector<1x1x1x1x1x64xf32>, tensor<1x1x1x1x1x64xf32>
            %u = tensor.insert_slice %t into %a2[0, 0, %ow, %kh, %kw, 0] [1, 1, 1, 1, 1, 64] [1, 1, 1, 1, 1, 1]
                : tensor<1x1x1x1x1x64xf32> into tensor<1x1x56x3x3x64xf32>
            ...
      }
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %r into %s[%n, %oh, 0, 0, 0, 0] [1, 1, 56, 3, 3, 64] [1, 1, 1, 1, 1, 1]
            : tensor<1x1x56x3x3x64xf32> into tensor<1x56x56x3x3x64xf32>
      }
    }
    %a = tensor.collapse_shape %p [[0, 1, 2], [3, 4, 5]]
        : tensor<1x56x56x3x3x64xf32> into tensor<3136x576xf32>
    %b = tensor.collapse_shape %w [[0, 1, 2], [3]]
        : tensor<3x3x64x64xf32> into tensor<576x64xf32>
    %c = tensor.collapse_shape %init [[0, 1, 2], [3]]
        : tensor<1x56x56x64xf32> into tensor<3136x64xf32>
    %m = linalg.matmul ins(%a, %b : tensor<3136x576xf32>, tensor<576x64xf32>)
                       outs(%c : tensor<3136x64xf32>) -> tensor<3136x64xf32>
    %y = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 56, 56, 64]
        : tensor<3136x64xf32> into tensor<1x56x56x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
  let options = [
    Option<"maxIm2colMiB", "max-im2col-mib", "int64_t", "1024",
           "Leave a convolution alone (with a remark) when its im2col buffer "
           "would exceed this many MiB (0: no limit)">,
    Option<"convertNchw", "convert-nchw", "bool", "true",
           "Convert linalg.conv_2d_nchw_fchw too (false: leave it alone "
           "with a remark)">,
    Option<"implicitGemm", "implicit-gemm", "bool", "true",
           "With a cpu #tessel.target, leave the NHWC patch copy of a "
           "convolution whole and untiled where the matmul model reads it "
           "through the input, for tessel-vectorize-matmul to do so (false: "
           "always a tiled copy)">,
    Option<"generalizeWindows", "generalize-windows", "bool", "true",
           "Generalize depthwise convolutions and pooling to linalg.generic "
           "windows, their NHWC padding built over the cores (false: leave "
           "them alone with a remark)">
  ];
}

def VectorizeMatmulPass
    : Pass<"tessel-vectorize-matmul", "::mlir::func::FuncOp"> {
  let summary = "Pack, tile and vectorize f32 linalg.matmul into an FMA kernel";
  let description = [{
    Generates a BLIS-style GEMM for each static f32 `linalg.matmul` on
    tensors, with sizes from the analytical model in
    `passes/CostModel/MatmulTiling` (vector width, vector registers and
    cache sizes of the module's `#tessel.target`):

    - the product is blocked for the caches in BLIS order: nc (L3 block of
      B), kc, mc (L2 block of A) loops; one of the nc or mc loops is an
      `scf.forall` when the model finds enough work for several cores;
    - operands are packed per cache block (`linalg.pack` on slices, zero
      padded to the tile sizes, tiled and vectorized with masked reads at
      the edges): the kc x nc block of B to `[nc/nr][kc/kr][kr][nr]` once
      per (nc, kc) iteration, before the mc loop (over the cores, one
      `scf.forall` iteration per micro-panel, when the block is large and
      the mc loop parallel), and the mc x kc block of A to
      `[mc/mr][kc/kr][kr][mr]` inside the mc loop, by the thread that uses
      it — unless the model reads A in place: when B has few micro-panels
      (e.g. a convolution with 64 filters) the copy would be reused too
      little, and the register tiles read A's rows directly through an
      `[mc/mr][mr][kc/kr][kr]` view (M and K multiples of mr and kr, A not
      a transpose). The destinations are block-sized buffers created once outside
      the loops and carried through them (`iter_args`, `shared_outs`; one
      slot per block of a parallel mc loop), so bufferization allocates
      each once; with the nc loop parallel, each of its iterations creates
      its own, outside its kc and mc loops;
    - C keeps its layout (padded to whole mr x nr tiles, and the result
      sliced back, only when its sizes are not multiples); the product of
      packed blocks is a `linalg.generic` writing `C[m1*mr+m0][n1*nr+n0]`,
      tiled for the registers (nr, mr loops), then along k (kr at a time);
    - the mr x nr register tile is vectorized to a `vector.contract`; its
      accumulator is hoisted out of the k loop (an `iter_args` vector) and
      the contraction lowered to `vector.fma` outer products, each A
      element a scalar load broadcast to the lanes;
    - a C that is a `linalg.fill` of a scalar read by nothing else (also
      through the reshape of a convolution's output) is not filled: the
      first kc block, peeled off the kc loop, starts its accumulators from
      a splat of the scalar instead of loading C, and the fill is erased;
    - an elementwise epilogue (bias add, activation, residual add, scale,
      clamp: the chain of `linalg.generic` ops that alone consume the
      product, also through the `expand_shape` a convolution's product goes
      through) is fused into one op and applied to each register tile of
      the last kc block (peeled off the kc loop) while the accumulators are
      still in registers, instead of re-reading C in a separate pass. Its
      other inputs (a bias per column, a residual tile) are read as slices
      at the tile's position;
    - an A that is the collapsed view of a convolution's untiled NHWC
      im2col copy (as `tessel-convert-conv-to-matmul` leaves it) is read
      through the input where the model reads A in place (implicit GEMM):
      register tiles within one output row, kc blocks within one tap, mc
      blocks of whole output rows of one image, so each A block is a
      strided slice of the padded input (`[1, R, OW, kc]`, strides
      `[1, sh, sw, 1]`) and the copy is erased. Where the model packs A,
      the copy is tiled over its (n, oh) rows, vectorized, and A packed
      from it.

    Each matmul gets a remark with the chosen sizes and why. One the recipe
    does not handle (not f32, dynamic shapes, user-defined indexing maps,
    already bufferized, no cpu target) gets a remark saying why and is left
    alone. The vector ops need `convert-vector-to-scf{full-unroll=true}`
    and `convert-vector-to-llvm` after bufferization.

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>)
                       outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
    // becomes (AVX-512: mr = 8, nr = 32, kr = 2; one block per cache loop)
    %ab = tensor.empty() : tensor<1x8x64x2x8xf32>   // A block buffer
    %bb = tensor.empty() : tensor<1x2x64x2x32xf32>  // B block buffer
    %pb = scf.for ... -> tensor<2x64x2x32xf32>      // B block packed by vector copies
    %pa = scf.for ... -> tensor<8x64x2x8xf32>       // A block likewise
    scf.for %n1 ... iter_args(%cn = %c) {           // nr panels of B
      scf.for %m1 ... {                             // mr panels of A
        %t = tensor.extract_slice %cm[...] [8, 32] [1, 1]
        %acc0 = vector.transfer_read %t... : tensor<8x32xf32>, vector<8x32xf32>
        %acc = scf.for %k ... iter_args(%v = %acc0) -> (vector<8x32xf32>) {
          %av = vector.transfer_read ... : tensor<2x8xf32>, vector<2x8xf32>
          %bv = vector.transfer_read ... : tensor<2x32xf32>, vector<2x32xf32>
          %s = vector.broadcast %a00 : f32 to vector<32xf32>
          %r0 = vector.fma %s, %b0, %v0 : vector<32xf32>
          ...                                       // 2 x 8 FMAs
        }
        vector.transfer_write %acc, %t ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
  let options = [
    Option<"mr", "mr", "int64_t", "0",
           "Override the register tile rows (0: the model's)">,
    Option<"nr", "nr", "int64_t", "0",
           "Override the register tile columns, rounded up to a multiple of "
           "the vector length (0: the model's)">,
    Option<"kr", "kr", "int64_t", "0",
           "Override the k unroll / K padding factor (0: the model's)">,
    Option<"mc", "mc", "int64_t", "0",
           "Override the L2 block rows of A (0: the model's)">,
    Option<"nc", "nc", "int64_t", "0",
           "Override the L3 block columns of B (0: the model's)">,
    Option<"kc", "kc", "int64_t", "0",
           "Override the k block depth (0: the model's)">,
    Option<"parallel", "parallel", "std::string", "\"\"",
           "Override the cache-block loop spread over the cores: m (the mc "
           "loop), n (the nc loop) or none (empty: the model's)">,
    Option<"packA", "pack-a", "std::string", "\"\"",
           "Override whether A is packed: always, or never (read in place "
           "where its rows allow; empty: the model's)">,
    Option<"packB", "pack-b", "std::string", "\"\"",
           "Override whether B is packed: always, or never (read in place "
           "where its rows allow; empty: the model's)">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", "true",
           "Apply the elementwise ops that consume the product to its "
           "register tiles (false: leave them to the fusion passes)">,
    Option<"skipPadding", "skip-padding", "bool", "true",
           "In a zero-padded convolution's patches, skip the work a "
           "register tile's output row or pixels read only as padding "
           "(false: multiply the zeros)">
  ];
}

def ConvertConvToNHWCPass
    : Pass<"tessel-convert-conv-to-nhwc", "::mlir::func::FuncOp"> {
  let summary = "Put NCHW convolutions between transposes to NHWC where the GPU kernel pays for them";
  let description = [{
    PyTorch's convolutions arrive as `linalg.conv_2d_nchw_fchw`, while
    `tessel-map-matmul-to-gpu` maps convolutions as NHWC implicit GEMMs
    (`linalg.conv_2d_nhwc_hwcf`, whose 16-byte copies run along the
    channels): on tensor cores for f16 and i8 (AMD: the matrix cores, f16
    -> f32 and i8 -> i32), on the SIMT cores for f32, on the f64 tensor
    cores or the SIMT cores for f64 (the faster by that pass's models, with
    its default options; AMD: the SIMT cores). It runs in the nvgpu and
    amdgpu pipelines.
    Without this pass an NCHW convolution becomes the direct loop nest on
    the GPU. On tensors, each static NCHW convolution for which that pass
    would build a kernel, and for which CostModel/GPUConvLayout estimates
    the kernel plus the transposes' traffic below a lower bound on the loop
    nest, becomes:

    - `linalg.transpose` of the input to NHWC and of the filter to HWCF;
    - the output's initial value: a `linalg.fill` of it is made on the NHWC
      tensor; anything else is transposed;
    - `linalg.conv_2d_nhwc_hwcf` with the same strides and dilations;
    - `linalg.transpose` of its result back to NCHW.

    The remark gives the model's figures either way. Convolutions of other
    types, with dynamic sizes or on buffers, and small ones the model
    finds no faster in NHWC get a remark and are left alone.

    ```mlir
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                                   strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x64x8x8xf16>, tensor<32x64x3x3xf16>)
        outs(%f : tensor<1x32x6x6xf32>) -> tensor<1x32x6x6xf32>
    // becomes, where the model finds it pays (shapes kept small here)
    %xt = linalg.transpose ins(%x : tensor<1x64x8x8xf16>)
        outs(%e0 : tensor<1x8x8x64xf16>) permutation = [0, 2, 3, 1]
    %wt = linalg.transpose ins(%w : tensor<32x64x3x3xf16>)
        outs(%e1 : tensor<3x3x64x32xf16>) permutation = [2, 3, 1, 0]
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x6x6x32xf32>)
    %c2 = linalg.conv_2d_nhwc_hwcf {...} ins(%xt, %wt : ...) outs(%f2 : ...)
    %c = linalg.transpose ins(%c2 : tensor<1x6x6x32xf32>)
        outs(%e3 : tensor<1x32x6x6xf32>) permutation = [0, 3, 1, 2]
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FoldTransposesPass
    : Pass<"tessel-fold-transposes", "::mlir::func::FuncOp"> {
  let summary = "Cancel transposes through the elementwise ops between them";
  let description = [{
    After `tessel-convert-conv-to-nhwc`, each NCHW convolution of a network
    is followed by a transpose back to NCHW, and the next one is preceded by
    a transpose to NHWC, with elementwise ops (bias, batch norm, ReLU,
    residual adds) and a padding in between. This pass moves transposes on
    tensors into the indexing maps of the `linalg.generic` ops beside them,
    so that such pairs cancel and the elementwise ops run in NHWC, where the
    first of them can be the convolution kernel's epilogue. In order:

    1. a transpose of a transpose becomes one transpose (or none); a
       transpose of a constant `tensor.pad` moves above it;
    2. a transpose folds into its producer: a fill, or an all-parallel
       generic (one result, body reading neither its output nor the loop
       indices), which then writes the transposed layout. Its other readers
       must be generics (they read it through composed maps). A generic
       read by no transpose moves when all its readers read it through the
       same permutation. A generic that reads a contraction's or
       convolution's result in place is left in that layout: it is the
       product's epilogue;
    3. the transpose of a product's result, read only by an elementwise op
       whose elements are narrower (f32 -> f16, i32 -> i8), moves below that
       op: the op becomes the epilogue and the transpose moves fewer bytes;
    4. a transpose read only by generics folds into their maps.

    Every transpose that stays gets a remark naming why.

    ```mlir
    %t = linalg.transpose ins(%c : tensor<1x6x6x32xf32>)
        outs(%e0 : tensor<1x32x6x6xf32>) permutation = [0, 3, 1, 2]
    %r = linalg.generic {maps: identity, identity} ins(%t) outs(%e1) {relu}
    %u = linalg.transpose ins(%r : tensor<1x32x6x6xf32>)
        outs(%e2 : tensor<1x6x6x32xf32>) permutation = [0, 2, 3, 1]
    // becomes
    %r = linalg.generic {maps: identity, identity} ins(%c) outs(%e3) {relu}
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvertCopyToLinalgPass
    : Pass<"tessel-convert-copy-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Turn memref.copy into linalg.copy";
  let description = [{
    Bufferization leaves copies as `memref.copy`. Upstream lowers those to
    `llvm.memcpy` or, for strided views, to a call into
    `libmlir_c_runner_utils`; on a GPU target either would run on the host
    over device memory. As `linalg.copy` they take the same road as every
    other op: affine loops on the CPU, a kernel on the GPU. Unranked copies
    are an error at the op.

    ```mlir
    memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
    // becomes
    linalg.copy ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def MapMatmulToGPUPass
    : Pass<"tessel-map-matmul-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map matmuls on memrefs to tensor-core (f32: SIMT) GPU kernels";
  let description = [{
    Replaces each matmul-like contraction on memrefs (`linalg.matmul`,
    `linalg.batch_matmul`, or a `linalg.generic` with their maps; A and B
    may be transposed; an operand without the batch dimension is shared)
    whose element types have a WMMA form on the target (f16 x f16 -> f32 or
    f16, bf16 x bf16 -> f32, i8 x i8 -> i32) with one `gpu.launch`:

    - a grid of blocks, each computing a `blockM x blockN` tile of C, in
      groups of block rows so that concurrent blocks share operands in L2;
    - `warpsM x warpsN` warps per block, each holding a grid of 16x16
      accumulators (`gpu.subgroup_mma_*`, WMMA) across the k loop;
    - A and B tiles in a ring of `stages` shared-memory buffers, rows padded
      against bank conflicts and aligned for fragment loads, filled by
      16-byte asynchronous copies (`nvgpu.device_async_copy`, cp.async)
      issued `stages - 1` k tiles ahead and zero-filled past the edges;
    - an epilogue that stages the accumulators through shared memory and
      writes C with 16-byte stores, guarded at partial tiles.

    On targets that list a wgmma shape (sm_90a), f16 x f16 -> f32 products
    and i8 x i8 -> i32 products take the Hopper form instead (unless
    `wgmma=false`): warpgroups of `nvgpu.warpgroup.mma` reading TMA-loaded,
    swizzled tiles from an mbarrier-guarded ring; an i8 B given as (k, n)
    is transposed first, by a kernel or, for a constant, at compile time.
    A product that form cannot take keeps WMMA, with a remark saying why.

    f32 x f32 -> f32 products, which tensor cores would round to TF32, take
    the SIMT form: the same blocks, ring and epilogue, with `threadsM x
    threadsN` threads each accumulating a `threadM x threadN` tile of C by
    multiply-adds (`contract`: fma.rn.f32) from 16-byte shared-memory reads (sizes from the
    GPUSimtMatmulTiling model, which needs the target's
    `simt_fma_per_cycle`; `warps-m x warps-n` fixes its warps). f64 x f64
    -> f64 products take the same form with two values per read and
    fma.rn.f64, at `simt_f64_fma_per_cycle`, unless the target lists the
    f64 tensor-core shape (`m8n8k4:f64xf64->f64`, DMMA) with a rate
    (`mma_f64_fma_per_cycle`) and the model estimates the WMMA form with
    8x8x4 fragments faster (A100, H100; `f64-tensor-cores=false` keeps
    SIMT). Both keep f64 throughout: DMMA rounds nothing.

    Products with few C tiles and a long k (a linear layer at a small
    batch, a late convolution at batch 1) would leave most SMs idle: with
    f32, i32 or f64 accumulators the model may split k among several blocks per
    tile (split-k). Each writes a partial C to a workspace, and a second,
    elementwise kernel adds the partials to the start value (the fill's,
    or C's contents) and applies the epilogue; the estimate counts its
    traffic and its launch.

    Sizes come from the GPUMatmulTiling cost model over `#tessel.target`
    (SMs, shared memory, registers, tensor-core, shared-memory and L2
    throughput, memory latency). A `linalg.fill` of C right before the
    matmul becomes the accumulators' start value. A remark gives the sizes
    and why, or why a contraction is not mapped (bf16, unaligned rows,
    dynamic sizes, no target shape, f32 or f64 on a target without its
    SIMT rate).

    Before:

    ```mlir
    linalg.fill ins(%zero : f32) outs(%c : memref<4096x4096xf32>)
    linalg.matmul ins(%a, %b : memref<4096x4096xf16>, memref<4096x4096xf16>)
                  outs(%c : memref<4096x4096xf32>)
    ```

    After (abridged):

    ```mlir
    gpu.launch blocks(...) in (%gx = %c1024, ...) threads(...) in (%tx = %c128, ...)
        dynamic_shared_memory_size %bytes {
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %a_stages = memref.view %smem[%c0][] : ... to memref<4x128x48xf16, #gpu.address_space<workgroup>>
      %t = nvgpu.device_async_copy %a[%r, %k], %a_stages[%s, %i, %j], 8, %valid {bypassL1} ...
      %acc = scf.for %kt = ... iter_args(...) {
        nvgpu.device_async_wait %g {numGroups = 2 : i32}
        gpu.barrier
        ...
        %f = gpu.subgroup_mma_load_matrix %a_stages[%s, %row, %kk] {leadDimension = 48 : index} ...
        %d = gpu.subgroup_mma_compute %f, %g, %acc ...
      }
      gpu.subgroup_mma_store_matrix ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"blockM", "block-m", "int64_t", "0",
           "Rows of C per block (0: the model's choice)">,
    Option<"blockN", "block-n", "int64_t", "0",
           "Columns of C per block (0: the model's choice)">,
    Option<"blockK", "block-k", "int64_t", "0",
           "k elements per shared-memory stage (0: the model's choice)">,
    Option<"warpsM", "warps-m", "int64_t", "0",
           "Warps along the block's rows (0: the model's choice)">,
    Option<"warpsN", "warps-n", "int64_t", "0",
           "Warps along the block's columns (0: the model's choice)">,
    Option<"stages", "stages", "int64_t", "0",
           "Shared-memory pipeline depth, at least 2 (0: the model's choice)">,
    Option<"splitK", "split-k", "int64_t", "0",
           "Blocks per C tile, each summing a share of the k tiles into a "
           "partial C that a second kernel adds up (0: the model's choice; "
           "1: no split; only accumulators of 4 bytes or more)">,
    Option<"foldFill", "fold-fill", "bool", "true",
           "Start the accumulators from a preceding linalg.fill of C instead "
           "of loading C">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", "true",
           "Apply the elementwise op that reads the product (bias, "
           "activation, conversion) to the accumulators before the store">,
    Option<"useWgmma", "wgmma", "bool", "true",
           "On targets that list a wgmma shape (sm_90a), build f16 x f16 -> "
           "f32 products, and i8 x i8 -> i32 products whose B is given as "
           "(n, k), with wgmma on TMA-loaded tiles instead of WMMA (on an "
           "H200: 0.93-0.97x cuBLAS at 4096^3, WMMA 0.32-0.37x); false "
           "keeps WMMA">,
    Option<"asyncCopies", "async-copies", "bool", "true",
           "Fill the shared-memory stages of the WMMA and SIMT kernels with "
           "cp.async copies; false: with synchronous loads, as always on AMD "
           "targets (no cp.async). wgmma kernels keep TMA">,
    Option<"f64TensorCores", "f64-tensor-cores", "bool", "true",
           "Consider the f64 tensor cores (WMMA m8n8k4, DMMA) for f64 x f64 "
           "-> f64 products on targets that list the shape and its rate, "
           "taking them where the model estimates them faster than the "
           "SIMT kernel; false: always the SIMT kernel">
  ];
}

def FoldConstantTransposesPass
    : Pass<"tessel-fold-constant-transposes", "::mlir::ModuleOp"> {
  let summary = "Compute the transposes of constant matmul operands at "
                "compile time";
  let description = [{
    8-bit wgmma reads B K-major only, so `tessel-map-matmul-to-gpu{wgmma}`
    transposes an i8 B given as (k, n) into an (n, k) temporary with a
    kernel of its own, on every call. When B is a view of a constant
    `memref.global` (a weight compiled into the program), this pass
    computes the transpose once, as a new private constant global
    (`__tessel_transpose_of_<global>`, 64-byte aligned, dense or
    dense_resource like the source), and removes the kernel, the temporary
    and its deallocation; the product's kernel reads the new constant
    instead. A private source that nothing else reads is removed. Several
    transposes of the same view share one global.

    Left alone, with a remark: a temporary that anything but reads, views,
    TMA descriptors and deallocations uses (a store, a call, or an op that
    hands it on: select, yield, return), a source read through
    `memref.view`, data that is not available (an elided dense_resource)
    or not whole bytes per element, and a marked kernel that was changed.
    Kernels whose B is not a constant are not touched.

    ```mlir
    memref.global "private" constant @w : memref<64x48xi8> = dense<...>
    %w = memref.get_global @w : memref<64x48xi8>
    %t = memref.alloc() {alignment = 64 : i64} : memref<48x64xi8>
    gpu.launch ... {tessel.transpose_kernel} { ... %w ... %t ... }
    ... the product reads %t ...
    memref.dealloc %t : memref<48x64xi8>
    // becomes
    memref.global "private" constant @__tessel_transpose_of_w
        : memref<48x64xi8> = dense<...> {alignment = 64 : i64}
    %t = memref.get_global @__tessel_transpose_of_w : memref<48x64xi8>
    ... the product reads %t ...
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def MapTilesToGPUPass
    : Pass<"tessel-map-tiles-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map fused tile loops to one GPU kernel each";
  let description = [{
    `tessel-fuse-producers` leaves each fused group as an `scf.forall` over
    the root's tiles, each tile computing its producers' slices (halos
    included) into static tile buffers and then the root. Bufferized, this
    pass makes each such loop one `gpu.launch`:

    - a block per tile: the innermost loop on x, the next on y, the others
      on z;
    - the tile buffers in dynamic shared memory (views cast to the generic
      address space, so their users keep their types);
    - each linalg op shared by the block's threads round-robin, consecutive
      threads on consecutive innermost iterations (coalesced), reductions
      run by each thread alone;
    - a `gpu.barrier` between consecutive ops (each reads what the previous
      wrote);
    - global constants the tile reads cloned into the kernel, so outlining
      copies them to the device module.

    An op run per thread may give each thread several consecutive rows at
    the same column (`rows-per-thread`, else a model of loads in flight
    and of rows shared by a vertical stencil's unrolled taps): the rows'
    bodies are jammed into the reduction loops, each iteration's loads
    issued first. When the rows are not a multiple of the count, the last
    row group reads its missing rows clamped and stores only the rows that
    exist. Likewise consecutive columns (`columns-per-thread`, else 16
    bytes of the widest element along them where every operand indexed by
    the columns has them as its unit-stride innermost index, starting
    16-byte aligned): a thread's loads and stores of a row are then
    adjacent, and each load and store gets the `alignment` it is known to
    have (the ABI's 16 bytes for entry points' buffers, a tile buffer's
    offset, the index's known divisors), so LLVM makes one vector access
    of a group (`ld.global.v4.b32`).

    Threads per block: a quarter of the largest op's iterations per tile,
    in whole warps, at most 256. A tile loop whose body holds anything else
    than subviews, tile buffers, index arithmetic and linalg ops is an error
    at the loop (fusion does not produce one). A remark gives the sizes.

    Before (bufferized blur_x_blur_y tile):

    ```mlir
    scf.forall (%c, %i, %j) = (0, 0, 0) to (3, 2044, 2044) step (1, 32, 128) {
      %buf = memref.alloc() : memref<1x36x128xf32>
      linalg.generic ... ins(%in_tile, %w ...) outs(%buf_tile ...)   // blur x
      linalg.generic ... ins(%buf_tile, %w ...) outs(%out_tile ...)  // blur y
      memref.dealloc %buf : memref<1x36x128xf32>
    }
    ```

    After (abridged):

    ```mlir
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c16, %gy = %c64, %gz = %c3)
        threads(%tx, ...) in (%sx = %c256, ...) dynamic_shared_memory_size %c18432_i32 {
      %buf = memref.memory_space_cast %view : memref<1x36x128xf32, #gpu.address_space<workgroup>> to memref<1x36x128xf32>
      scf.for %t = %tx to %n step %c256 { ... blur x ... }
      gpu.barrier
      scf.for %t = %tx to %m step %c256 { ... blur y ... }
    }
    ```
  }];
  let options = [
    Option<"threadsOverride", "threads", "int64_t", "0",
           "Threads per block, a multiple of the warp size (0: the model's "
           "choice)">,
    Option<"rowsPerThreadOverride", "rows-per-thread", "int64_t", "0",
           "Rows each thread takes at once in ops run per thread, for every "
           "such op (0: the model's choice per op; 1: one row)">,
    Option<"columnsPerThreadOverride", "columns-per-thread", "int64_t", "0",
           "Consecutive columns each thread takes at once in ops run per "
           "thread, for every such op (0: the model's choice per op; 1: one "
           "column)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def MapReductionsToGPUPass
    : Pass<"tessel-map-reductions-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map linalg ops without parallel loops (full reductions) to GPU kernels";
  let description = [{
    `convert-linalg-to-parallel-loops` gives an op without parallel loops no
    `scf.parallel`, so nothing maps it to the GPU and it would run on the
    host, reading buffers that may live in device memory only. On an
    `nvgpu` or `amdgpu` target this pass makes each such op (buffer
    semantics, outside kernels) a kernel, warps being the target's (AMD:
    wavefronts):

    - a reduction whose every output is combined by one associative,
      commutative arith op (add, mul, min, max, and, or, xor) on i1, i8,
      i16, i32, i64, f16, bf16, f32 or f64 is split over threads (a value
      narrower than 32 bits crosses lanes in an i32, the combine stays in
      its own type): each thread folds a strided share of the
      iterations (consecutive threads on consecutive iterations of the
      innermost loop), warps combine by `gpu.shuffle` and the block's warps
      through shared memory. Past 16 iterations per thread of one block it
      is two kernels: up to 8 blocks per SM fold chunks into partial
      results in a device buffer, then one block combines them with the
      outputs' values. A remark gives the sizes;
    - any other such op (a fill of a 0-d buffer, a reduction of another
      kind, with a remark saying why) runs in one GPU thread.

    An op with parallel loops whose outputs are fewer than two blocks per
    SM, each a splittable reduction of at least 256 iterations (static
    shapes), is split the same way with a row of blocks per output
    (`blockIdx.y`): tiles or the parallel-loop mapping would give each
    output one block or one thread. `tessel-fuse-producers` leaves such an
    op untiled when it has no producers to fuse.

    Before:

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                    iterator_types = ["reduction"]}
        ins(%x : memref<1048576xf32>) outs(%sum : memref<f32>) { ... addf ... }
    ```

    After (abridged):

    ```mlir
    %partials = memref.alloc() : memref<256xf32>
    gpu.launch blocks(%b, ...) in (%c256, ...) threads(%t, ...) in (%c256, ...) {
      %p = scf.for %r = ... step %c256 iter_args(%acc = %zero) -> (f32) { ... }
      %s1, %v1 = gpu.shuffle xor %p, %c16_i32, %c32_i32 : f32   // ... to 1
      ... warps' results through shared memory, shuffled again ...
      scf.if %first { memref.store %total, %partials[%b] : memref<256xf32> }
    }
    gpu.launch blocks(...) in (%c1, ...) threads(...) in (%c256, ...) {
      ... the 256 partials folded the same way, combined with %sum[] ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def MapUntiledOpsToGPUPass
    : Pass<"tessel-map-untiled-ops-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map untiled linalg ops to kernels whose threads share all "
                "of their parallel iterations";
  let description = [{
    What `tessel-fuse-producers` leaves untiled on an `nvgpu` target (ops
    too small to tile, an epilogue its contraction's kernel did not take,
    ops its model could not tile), and every op on `amdgpu`, which does not
    tile,
    reached the GPU through upstream's parallel-loop mapping: 16 x 16 tiles
    of the first two loops with the first on `threadIdx.x` (a warp's
    threads in 32 different rows: uncoalesced), 16-thread blocks for 1-D
    ops, and loops past the second run sequentially by every thread.

    On an `nvgpu` or `amdgpu` target this pass makes each linalg op with
    parallel loops (buffer semantics, on the host: not in a kernel, a tile
    loop or an `scf.parallel`) one `gpu.launch` over all of its parallel
    iterations, as one linear index space: consecutive threads
    on consecutive iterations of the innermost loop, a thread's index split
    into the loops' by the loop sizes (constants where static). The thread
    mapping is tessel-map-tiles-to-gpu's over the whole grid
    (Utils/GPUThreadLoops): per thread, or per warp by shuffles where its
    cost model prefers it for few outputs over long reductions and the
    lanes would read contiguously (every streamed input indexed innermost
    by the innermost reduction loop; not a matmul's B, not a column sum),
    never per block: blocks do not combine. Per thread, a thread takes adjacent
    columns (innermost iterations) as one 16-byte access where they start
    aligned and every block of one per multiprocessor still has a column
    group. Blocks of `threads` (256); as many blocks as the work needs, at
    most one resident wave (SMs x 2048 / threads), threads striding over
    the rest. With dynamic sizes the grid is computed at run time, and no
    kernel is launched for an empty one. A remark per op gives the plan;
    an op that cannot be generalized gets a remark and is left to the
    parallel-loop mapping after this pass.

    Before:

    ```mlir
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : memref<?x1024xf32>, memref<?x1024xf32>) outs(%c : memref<?x1024xf32>) { ... addf ... }
    ```

    After (abridged):

    ```mlir
    %groups = arith.muli %rows, %c256 : index   // 1024 columns in groups of 4
    %blocks = arith.minui (ceildiv %groups, %c256), %c1056 : index
    scf.if %any {
      gpu.launch blocks(%bx, ...) in (%blocks, ...) threads(%tx, ...) in (%c256, ...) {
        %tid = bx * 256 + tx
        scf.for %i = %tid to %groups step %c270336 {
          // row %i / 256, columns 4 * (%i mod 256) + 0..3: loads of 16 bytes
        }
      }
    }
    ```
  }];
  let options = [
    Option<"threadsOverride", "threads", "int64_t", "0",
           "Threads per block, a multiple of the warp size (0: 256)">,
    Option<"columnsPerThreadOverride", "columns-per-thread", "int64_t", "0",
           "Consecutive columns each thread takes at once in ops run per "
           "thread (0: the model's choice per op; 1: one column)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def LowerMMAToAMDGPUPass
    : Pass<"tessel-lower-mma-to-amdgpu", "::mlir::func::FuncOp"> {
  let summary = "Lower gpu.subgroup_mma fragments to AMD matrix instructions";
  let description = [{
    Gives the opaque fragments of `gpu.subgroup_mma_*` ops (the kernels
    `tessel-map-matmul-to-gpu` builds) the lane layouts of the AMD matrix
    instruction of the target's chip, read from `#tessel.target`: MFMA
    16x16x16 on CDNA (gfx908, gfx90a, gfx94x, gfx950, i8 on gfx908 and
    gfx90a only; 64-lane wavefronts) and WMMA 16x16x16 on RDNA3 (gfx11; 32
    lanes). MLIR 22 lowers these ops to NVVM only.

    - a fragment becomes a vector per lane (MFMA: 4 values of A, B and C;
      WMMA: 16 of A and B, 8 of C);
    - a fragment load or store becomes the lane's accesses: one
      `vector.load`/`vector.store` where its values are consecutive in
      memory (A stored row-major, B column-major), else one access per
      value; the memref's rows must be `leadDimension` elements apart;
    - `gpu.subgroup_mma_compute` becomes `amdgpu.mfma` or `amdgpu.wmma`,
      a constant fragment a broadcast, elementwise ops the lane's vector
      ops; `scf.for` loops carrying fragments carry the vectors.

    A chip without such an instruction, a warp size other than the
    instruction's, a fragment type without a lane layout here (16x16, A
    and B of f16 or si8, C of f32 or i32), a product whose transposition
    flags disagree with its operands' loads, or a memref the lane accesses
    cannot index is an error at the op.

    ```mlir
    %a = gpu.subgroup_mma_load_matrix %sa[%i, %k] {leadDimension = 24 : index}
        : memref<64x24xf16, 3> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %d = gpu.subgroup_mma_compute %a, %b, %c : ... -> !gpu.mma_matrix<16x16xf32, "COp">
    // becomes, on gfx90a (lane = thread id mod 64)
    %a = vector.load %sa[%i + lane mod 16, %k + 4 (lane / 16)] : memref<64x24xf16, 3>, vector<4xf16>
    %d = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::gpu::GPUDialect"];
}

def ConvertAMDGPUToROCDLPass
    : Pass<"tessel-convert-amdgpu-to-rocdl", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower amdgpu ops to ROCDL for the chip of the gpu.module's target";
  let description = [{
    Runs upstream's AMDGPU -> ROCDL patterns (those of
    `convert-amdgpu-to-rocdl`) with the chipset of the `gpu.module`'s
    `#rocdl.target`, instead of a chipset fixed in the pipeline text:
    Tessel's pipelines name no chip, `tessel-attach-target` (or
    `--target-options`) does. Run it after `tessel-attach-gpu-target` and
    before `convert-gpu-to-rocdl`, whose default chipset (gfx000) has no
    matrix instructions.

    ```mlir
    gpu.module @k [#rocdl.target<chip = "gfx90a">] {
      %d = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
    // becomes
      %d = rocdl.mfma.f32.16x16x16f16 %a, %b, %c, %c0, %c0, %c0 : (...) -> vector<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::ROCDL::ROCDLDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def EmulateGPUOnCPUPass
    : Pass<"tessel-emulate-gpu-on-cpu", "::mlir::ModuleOp"> {
  let summary = "Run gpu.launch kernels on the host CPU (a test tool)";
  let description = [{
    Rewrites every `gpu.launch` (before kernel outlining) into host code
    with the same results, so GPU kernels can be checked numerically on
    machines without a GPU (NVIDIA kernels, and AMD ones after
    `tessel-lower-mma-to-amdgpu`):

    - the grid becomes `scf.for` loops over blocks;
    - a block's threads become an `omp.parallel` team of exactly that many
      threads (checked at run time); `gpu.barrier` is `omp.barrier`;
    - dynamic shared memory is one host buffer per block;
    - `gpu.subgroup_mma_*` fragments become the 16x16 vectors of their
      matrices, which every thread of a warp loads, multiplies and stores
      in full;
    - `nvgpu.device_async_copy` is queued per thread and performed when a
      `nvgpu.device_async_wait` stops allowing its group to be pending (the
      latest moment a GPU may complete it), by the runtime helpers
      `tessel_emu_async_*` in libtessel_runtime;
    - Hopper kernels: a block's mbarriers are made before its team; TMA
      loads land when a thread waits for their mbarrier phase; wgmma groups
      are queued per thread and computed when waited for, with the operand
      layouts and accumulator store of upstream's NVGPUToNVVM lowering
      (`tessel_emu_mbarrier_*`, `tessel_emu_tma_load_2d`,
      `tessel_emu_wgmma*`);
    - `gpu.shuffle` is an exchange among a warp of the target's size (32,
      64 on CDNA); `amdgpu.mfma` / `amdgpu.wmma` 16x16x16 (f16, i8) one
      among a wavefront of 64 or 32 lanes, each lane giving its values in
      the ISA's layout (`tessel_emu_matrix_op`).

    Ops it cannot run (other nvgpu ops, multicast loads, layouts upstream's
    wgmma lowering does not take) are errors at the op.

    The module's `#tessel.target` becomes the host CPU's, so the CPU
    lowering (scf, vector, memref, OpenMP to LLVM) compiles what is left.
    `utils/tessel-compile-gpu-emulated.sh` compiles a module this way: the
    nvgpu pipeline (amdgpu for a gfx chip) cut before outlining, this
    pass, that lowering.

    ```mlir
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, ...) threads(%tx, %ty, %tz) in (%sx = %c128, ...) {
      ...
      gpu.barrier
      gpu.terminator
    }
    // becomes
    scf.for %bz = %c0 to %c1 step %c1 { scf.for %by ... { scf.for %bx = %c0 to %c4 ... {
      omp.parallel num_threads(%c128_i32 : i32) {
        %t = func.call @omp_get_thread_num() : () -> i32
        ...
        omp.barrier
        omp.terminator
      }
    } } }
    ```
  }];
  let dependentDialects = ["::mlir::tessel::TesselDialect",
                           "::mlir::omp::OpenMPDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def AllocateDeviceBuffersPass
    : Pass<"tessel-allocate-device-buffers", "::mlir::ModuleOp"> {
  let summary = "Place host-side temporaries that kernels touch in device memory";
  let description = [{
    After loops are mapped to `gpu.launch`, buffers that a host function
    allocates with `memref.alloc` are read and written by kernels, so they
    must live in device memory. This pass rewrites such allocations (and
    their deallocations) to `gpu.alloc` / `gpu.dealloc`. Buffers used only on
    the host are left alone. A constant global that a kernel reads through
    a host-side `memref.get_global` (a convolution's filter) is fetched
    inside the kernel instead, so that outlining copies it to the device
    module; a mutable global used by a kernel is an error.

    ```mlir
    %t = memref.alloc() : memref<64xf32>
    gpu.launch ... { memref.store %v, %t[%i] ... }
    memref.dealloc %t : memref<64xf32>
    // becomes
    %t = gpu.alloc () : memref<64xf32>
    ...
    gpu.dealloc %t : memref<64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def LowerTMADescriptorsPass
    : Pass<"tessel-lower-tma-descriptors", "::mlir::ModuleOp"> {
  let summary = "Lower host-side TMA descriptor creation to runtime calls";
  let description = [{
    Converts each `nvgpu.tma.create.descriptor` (host code, before
    `gpu-kernel-outlining`) to the call upstream's lowering makes, of the
    runtime's `mgpuTensorMapEncodeTiledMemref`, which encodes the tensor map
    and returns a device copy of it; the data type comes from the described
    memref's element type (signless 8-bit integers included, which
    upstream's lowering has no code for), and an element type TMA cannot
    copy is an error. Kernels that use the descriptor get the
    pointer, cast back to the descriptor type at the start of the launch
    body, so outlining passes an `!llvm.ptr` and the device-side
    `convert-nvgpu-to-nvvm` lowers the TMA ops as usual. (Upstream converts
    all nvgpu ops before outlining instead, which the WMMA kernels' loops,
    carrying `gpu.mma_matrix` values, do not survive.) A descriptor created
    inside a kernel is an error. A descriptor that several launches use is
    created again right before each of them: the runtime may reuse a
    descriptor's device copy once its thread has waited after the launch
    it was made for, so every launch asks for its own (a repeat is a hit in
    the runtime's table).

    A descriptor of a view of a constant `memref.global` (a weight compiled
    into the program) would record the constant's host address, which TMA
    cannot read: its call goes to the runtime's
    `tesselTensorMapEncodeTiledConstant` instead, with the constant's host
    address, its size and a zeroed module variable of its own
    (`__tessel_device_copy_of_<global>`); the runtime uploads the constant
    once per device and describes the view's part of the copy. A mutable
    global under a descriptor is an error.

    ```mlir
    %d = nvgpu.tma.create.descriptor %a box[%c64, %c64] : memref<*xf16> -> !map
    gpu.launch ... { nvgpu.tma.async.load %d[...] ... }
    // becomes
    %p = llvm.call @mgpuTensorMapEncodeTiledMemref(...) : (...) -> !llvm.ptr
    gpu.launch ... {
      %d = builtin.unrealized_conversion_cast %p : !llvm.ptr to !map
      nvgpu.tma.async.load %d[...] ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ConvertWarpgroupKernelsPass
    : Pass<"tessel-convert-warpgroup-kernels", "::mlir::ModuleOp"> {
  let summary = "Lower the nvgpu ops of wgmma kernels while their loops are structured";
  let description = [{
    Runs upstream's `convert-nvgpu-to-nvvm` on each outlined `gpu.module`
    that holds a warpgroup op (`nvgpu.warpgroup.mma`, its accumulator's
    init and store), before `convert-scf-to-cf`: its structural loop
    conversion turns the loop-carried `!nvgpu.warpgroup.accumulator` values
    into LLVM structs, which it cannot do for the block arguments of a CFG.
    Other modules are left to the later device conversion: the WMMA
    kernels' loops carry `gpu.mma_matrix` values, which that pass's type
    converter rejects.

    ```mlir
    gpu.module @k { gpu.func @k(...) kernel {
      %r = scf.for ... iter_args(%acc = %init) -> (!nvgpu.warpgroup.accumulator<...>) {
        %d = nvgpu.warpgroup.mma %da, %db, %acc ...
    // becomes
      %r = scf.for ... iter_args(%acc = %init) -> (!llvm.struct<(struct<(f32, ...)>)>) {
        nvvm.wgmma.fence.aligned
        %d = nvvm.wgmma.mma_async ...
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ExternalizeDynamicSharedMemoryPass
    : Pass<"tessel-externalize-dynamic-shared-memory",
           "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give the dynamic shared memory arrays of NVVM kernels "
                "external linkage";
  let description = [{
    Upstream's `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to
    an internal zero-length array in shared memory, which the NVPTX backend
    prints as a 1-byte static variable; ptxas may place other static shared
    variables (the mbarriers of `nvgpu.mbarrier.create`) after it, inside
    the range the kernel uses as its dynamic buffer. This pass gives such
    arrays (address space 3, zero length, no initializer) external linkage,
    as CUDA C++'s `extern __shared__` has, so that the backend prints
    `.extern .shared ... []`, which starts after all static shared memory.
    Runs on `gpu.module`s after their conversion to the NVVM dialect.

    ```mlir
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // becomes
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AttachGPUTargetPass : Pass<"tessel-attach-gpu-target", "::mlir::ModuleOp"> {
  let summary = "Attach the NVVM/ROCDL target of #tessel.target to gpu.modules";
  let description = [{
    Reads the module's `#tessel.target` (kind nvgpu or amdgpu) and attaches
    the matching `#nvvm.target` or `#rocdl.target` (triple, chip, features)
    to every `gpu.module`, so that `gpu-module-to-binary` serializes for the
    chip the cost models assumed: the target description stays the single
    source of truth. NVIDIA kernels without an `nvvm.maxnreg` get one: the
    registers per thread that let one block of the kernel's
    `known_block_size` fit the target's register file (in steps of 8, at
    most 255; 255 when the size is not known). A streaming kernel (no
    tensor-core op: fused tiles, reductions) gets the limit that lets as
    many of its blocks share an SM as their shared memory allows, up to
    `occupancy-threads` resident threads: memory latency is what bounds
    those kernels, and resident warps hide it.

    ```mlir
    module attributes {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_90a", ...>} {
      gpu.module @k {
        gpu.func @f() kernel attributes {known_block_size = array<i32: 1024, 1, 1>} { ... }
      }
    // becomes
      gpu.module @k [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
        gpu.func @f() kernel attributes {known_block_size = array<i32: 1024, 1, 1>,
                                         nvvm.maxnreg = 64 : i32} { ... }
      }
    ```
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
  let options = [
    Option<"optLevel", "O", "unsigned", "3", "Device code optimization level">,
    Option<"occupancyThreads", "occupancy-threads", "int64_t", "1024",
           "Resident threads per SM that streaming NVIDIA kernels' register "
           "limit aims for (0: one block's limit, as for tensor-core kernels)">
  ];
}

def FuseElementwisePass
    : Pass<"tessel-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Inline elementwise producers into their consumers' bodies "
                "where recomputing them is cheaper than storing them";
  let description = [{
    Vertical fusion before tiling. An elementwise `linalg.generic` (all
    loops parallel, output written through a permutation) whose every
    reader is a `linalg.generic` that can take its body (upstream's
    `areElementwiseOpsFusable`) is inlined into all of them by upstream's
    `fuseElementwiseOps`, and disappears: no intermediate tensor, no tile
    buffer after `tessel-fuse-producers`. A reader that reads each element
    several times (a stencil's taps) then evaluates the body that many
    times; the model in `passes/CostModel/ElementwiseFusion` fuses only when
    that recomputation costs no more than the store of the intermediate (a
    product whose consumer adds it costs nothing: they become one FMA).
    Producers read by anything else (a return, a named op), and those the
    model rejects, stay; remarks give the evaluations per element and the
    costs either way.

    ```mlir
    %ixx = linalg.generic {(i, j) -> (i, j), (i, j) -> (i, j)}
        ins(%ix) { %p = arith.mulf %x, %x ... }
    %sxx = linalg.generic {(i, j, a, b) -> (i + a, j + b), ...}
        ins(%ixx, %window) { %s = arith.addf %acc, %p ... }
    // becomes (Ix^2 recomputed per tap, as an FMA)
    %sxx = linalg.generic {(i, j, a, b) -> (i + a, j + b), ...}
        ins(%ix, %window) { %p = arith.mulf %x, %x
                            %s = arith.addf %acc, %p ... }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def MergeSiblingsPass
    : Pass<"tessel-merge-siblings", "::mlir::func::FuncOp"> {
  let summary = "Merge linalg.generic ops over the same loops that read a "
                "common input into one op with several results";
  let description = [{
    Horizontal fusion before tiling. Two top-level `linalg.generic` ops with
    the same loop ranges and iterator types that read one input through the
    same indexing map, where the second does not read what the first
    computes, become one generic yielding the results of both, at the
    second's place: the common input is loaded once per iteration, and
    `tessel-fuse-producers` then fuses one producer (one loop nest, one
    pass over a tile) where it saw two. Repeated to a fixpoint, so three box
    sums over Ix and Iy end up as one op. A merge is refused, with a remark,
    when the merged body would need more vector registers than the target
    has (one per input access, stencil taps counted, plus one accumulator
    per result; `passes/CostModel/ElementwiseFusion`).

    ```mlir
    %ix = linalg.generic {#win_in, #win_w, #win_out} ins(%gray, %sobel_x)
    %iy = linalg.generic {#win_in, #win_w, #win_out} ins(%gray, %sobel_y)
    // becomes
    %ix, %iy = linalg.generic {#win_in, #win_w, #win_w, #win_out, #win_out}
        ins(%gray, %sobel_x, %sobel_y) outs(%ix_init, %iy_init)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FuseProducersPass
    : Pass<"tessel-fuse-producers", "::mlir::func::FuncOp"> {
  let summary = "Overlapped-tile fusion of linalg producers into their consumers";
  let description = [{
    For each root (a top-level linalg op on static tensors whose result
    leaves the fusable ops), collects the producers whose every use is in
    the group (elementwise ops, stencils, reductions; not contractions or
    convolutions, which become kernels of their own), picks tile sizes for
    the root's parallel loops with the model in
    `passes/CostModel/FusionTiling` (recomputed halo work and re-read input
    against the L2 budget of the tile buffers and the load balance over the
    cores), and tiles the root into one `scf.forall` with the producers
    fused into each tile. A fused producer computes the slices its
    consumers read, halo included, once per tile over their bounding box
    (a value read with a halo and at the centre is computed once, the
    centre read being a view of it): neighbouring tiles recompute their
    overlap, and the intermediate shrinks from a full tensor to a tile
    (a tile-sized buffer after bufferization). Producers that are also used
    outside the group stay materialized and are tiled as roots of their own.
    Remarks name what fused, the tile sizes, the buffer sizes and the
    fraction of recomputed work.

    ```mlir
    %bx = linalg.generic {... (c, i, j, t) -> (c, i, j + t) ...} ins(%img, %w ...)
    %by = linalg.generic {... (c, i, j, t) -> (c, i + t, j) ...} ins(%bx, %w ...)
    // becomes
    %by = scf.forall (%c, %i, %j) = ... step (1, Ti, Tj) shared_outs(...) {
      %bx_tile = linalg.generic ... -> tensor<1x(Ti+4)xTjxf32>  // halo rows
      %by_tile = linalg.generic ins(%bx_tile ...) -> tensor<1xTixTjxf32>
      scf.forall.in_parallel { tensor.parallel_insert_slice %by_tile ... }
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect"];
  let options = [
    ListOption<"tileSizes", "tile-sizes", "int64_t",
               "Tile sizes of the root loops instead of the model's (0: not "
               "tiled); applied to every root of that loop count">,
    Option<"oncePerTile", "once-per-tile", "bool", /*default=*/"true",
           "Compute a producer read through several slices once per tile, "
           "over their union (false: once per slice, as upstream's "
           "tileConsumerAndFuseProducersUsingSCF does)">
  ];
}

def FuseAttentionPass
    : Pass<"tessel-fuse-attention", "::mlir::func::FuncOp"> {
  let summary = "Fuse softmax(Q K^T s) V into one online-softmax kernel";
  let description = [{
    Cross-reduction fusion of scaled dot-product attention. Recognizes the
    chain the frontends (and linalg.softmax's decomposition) emit: a
    `linalg.matmul` / `batch_matmul` of Q and K^T, an optional scale by a
    constant, a softmax over the last dimension as generics (row max,
    exp(x - max), row sum, division) and a product with V
    (`passes/Analysis/AttentionMatch`), and replaces it with one kernel in
    the online-softmax form (`passes/Utils/AttentionKernel`): an
    `scf.forall` over (batch, block of query rows), and inside it a loop
    over blocks of keys that computes a Br x Bc block of scores in register
    tiles, updates the running row max and sum, rescales the output
    accumulator by exp(old max - new max) and adds P V in register tiles.
    Neither the S x S scores nor the probabilities are ever materialized:
    the largest intermediate is the Br x Bc score block, sized for L1 by
    `passes/CostModel/AttentionTiling` from the target description, which
    also sizes the register tiles and the block of keys. K^T is read as the
    product's operand (the frontends' transpose of K stays, an O(S D) copy).

    A remark gives the sizes and the S x S bytes not materialized. A chain
    that cannot be fused (intermediates used elsewhere, an additive mask,
    shapes off the vector length) gets a remark saying why and is left to
    the other passes.

    ```mlir
    %s = linalg.batch_matmul ins(%q, %kt ...)       // 8x2048x2048
    %x = linalg.generic {mulf %s, 0.125}
    %m = linalg.generic {maxnumf, reduction}        // row max
    %e = linalg.generic {exp(%x - %m)}
    %l = linalg.generic {addf, reduction}           // row sum
    %p = linalg.generic {divf %e, %l}
    %o = linalg.batch_matmul ins(%p, %v ...)
    // becomes
    %o = scf.forall (%b, %i) in (8, 64) shared_outs(%out = ...) {
      %r:5 = scf.for %k = 0 to 2048 step 128 iter_args(...) {
        // 32x128 scores: 8x32 register tiles, vector.fma over d
        // per row: running max/sum, exp in place, rescale factor
        // 32x64 output accumulator += P V: 4x64 register tiles
      }
      // divide by the running sum, insert the 32x64 block
    }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"blockRows", "block-rows", "int64_t", "0",
           "Query rows per parallel iteration instead of the model's (0: the "
           "model's; must divide the query count and the register tiles)">,
    Option<"blockCols", "block-cols", "int64_t", "0",
           "Keys per step instead of the model's (0: the model's; must divide "
           "the key count and be a multiple of the score tile)">
  ];
}

def VectorizeGenericsPass
    : Pass<"tessel-vectorize-generics", "::mlir::func::FuncOp"> {
  let summary = "Vectorize elementwise, fill and stencil linalg ops in register blocks";
  let description = [{
    Turns each linalg op on tensors that is not a contraction or named
    convolution (elementwise ops, fills, generic stencils, the ops of fused
    tiles inside an `scf.forall`) into loops of vector code:

    - reduction loops of at most 64 iterations (stencil taps) are unrolled:
      each tap reads its own shifted slice of the input (an identity
      access), constant weights become scalars;
    - an output initialized by `linalg.fill` takes the fill value in the
      body and is not read;
    - on targets with FMA, a multiply whose only use is an add becomes
      `math.fma` (what C compilers do by default, -ffp-contract=on);
    - the op is tiled into register blocks of u vectors along its innermost
      loop (u up to 4, as many as the vector registers hold for its inputs
      and result) with the innermost loop peeled, so whole blocks have
      static shapes; upstream `linalg::vectorize` turns each block into
      vector transfers and arithmetic (the remainder block with masks).

    A reduction along a long innermost loop (a row max or row sum: softmax,
    layernorm) is split instead (`Utils/RowReductions`, upstream
    `scf::tileReductionUsingScf`): one row at a time, the row in blocks of
    up to 4 vectors accumulated elementwise into partial results that stay
    in registers across the row (their transfers hoisted out of the block
    loop), merged once per row by a `vector.reduction`. This reassociates
    floating-point sums; `reassociate-reductions=false` keeps such
    reductions sequential (scalar). A division by a value read through a
    map without the innermost loop (a per-row sum) becomes a multiply by
    its reciprocal, which is hoisted out of the inner loop. When the
    reduced operand is the result of an elementwise op just before it
    (softmax's exp before its row sum, layernorm's centring before its sum
    of squares), that op is computed inside the reduction's loops, one
    block at a time, and the loops also yield its whole result for its
    other users: the reduction no longer re-reads it from a tile buffer
    (`fuse-row-producers=false` keeps it a nest of its own).

    Other ops with larger reductions, or accesses that are not a constant
    shift of the loops, keep their linalg form (lowered to loops later) with
    a remark.

    ```mlir
    %y = linalg.generic {(c, i, j, t) -> (c, i, j + t), (t) ...}   // 5 taps
    // becomes
    scf.for %i ... { scf.for %j ... step 64 {
      %x0 = vector.transfer_read %in[%c, %i, %j]     : vector<1x1x64xf32>
      ...
      %x4 = vector.transfer_read %in[%c, %i, %j + 4] : vector<1x1x64xf32>
      // 5 multiply-adds by the constant taps, one write
    } }
    ```
  }];
  let options = [
    Option<"reassociateReductions", "reassociate-reductions", "bool", "true",
           "Split long innermost reductions into vector partial results "
           "(reassociates floating-point sums); false keeps them sequential">,
    Option<"fuseRowProducers", "fuse-row-producers", "bool", "true",
           "Compute the elementwise producer of a split row reduction's "
           "input inside the reduction's loops (softmax's exp in its row "
           "sum); false keeps it a nest of its own">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def PromoteBuffersToStackPass
    : Pass<"tessel-promote-buffers-to-stack", "::mlir::func::FuncOp"> {
  let summary = "Promote static heap buffers to the stack within a per-function budget";
  let description = [{
    Upstream `promote-buffers-to-stack` with a budget: allocations get no
    lifetime markers, so every promoted buffer takes its own stack slot and a
    function's stack use is their sum. Static allocations of at most
    `max-alloc-size-in-bytes` are promoted while their total stays within
    `max-stack-bytes`: buffers inside parallel loops (the tile buffers of
    fused nests, released per iteration once convert-scf-to-openmp scopes
    them) first, then those outside loops in program order. The rest stay
    on the heap; a remark says how many and how large. Buffers allocated in
    a sequential loop stay on the heap too (nothing would release an alloca
    there: the stack would grow by it every iteration), with a remark.
    Buffers that escape the function are never promoted (upstream's
    analysis).

    ```mlir
    %a = memref.alloc() : memref<64x64xf32>     // 16 KiB, fits
    %b = memref.alloc() : memref<1024x1024xf32> // 4 MiB, over the budget
    // becomes
    %a = memref.alloca() : memref<64x64xf32>
    %b = memref.alloc() : memref<1024x1024xf32>
    ```
  }];
  let options = [
    Option<"maxAllocSizeInBytes", "max-alloc-size-in-bytes", "int64_t",
           /*default=*/"1048576",
           "Largest single allocation that may be promoted">,
    Option<"maxStackBytes", "max-stack-bytes", "int64_t",
           /*default=*/"2097152",
           "Total bytes of promoted buffers per function">,
    Option<"maxRankOfAllocatedMemref", "max-rank-of-allocated-memref",
           "unsigned", /*default=*/"8",
           "Highest rank of a promoted buffer">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def PrefetchKernelRowsPass
    : Pass<"tessel-prefetch-kernel-rows", "::mlir::func::FuncOp"> {
  let summary = "Prefetch the strided operand rows a matmul kernel's k loop streams";
  let description = [{
    Runs on buffers, after bufferization. In a k loop of the matmul kernel
    (an `scf.for` with `vector.fma` in its body), a 2-D `vector.transfer_read`
    of rows at least `min-row-stride-bytes` apart, through subviews the loop's
    induction variable indexes (an operand `tessel-vectorize-matmul` reads in
    place: B of the 7x7 ResNet layers, rows 2 KiB apart), gets a
    `memref.prefetch` of each cache line of the rows it will read `distance`
    iterations later (the subviews cloned with the induction variable
    advanced, clamped to the last iteration so every address is in bounds).
    Such rows map to a few L1 sets and the hardware prefetcher does not
    follow 2-line streams at that stride; packed micro-panels (contiguous
    rows) are left alone, and so are rows no farther apart than the
    target's `stride_prefetch` (a core whose hardware prefetcher follows
    them: Zen 5; a remark counts them). A remark counts the prefetched rows.

    ```mlir
    %4 = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %z) -> (vector<7x32xf32>) {
      %row = memref.subview %b[%k, 0, 0, 0] [1, 2, 1, 32] [1, 1, 1, 1] : ...
      %r = memref.subview %row[0, 0, 0, 0] [1, 2, 1, 32] [1, 1, 1, 1] : ... to memref<2x32xf32, strided<[512, 1], offset: ?>>
      %v = vector.transfer_read %r[%c0, %c0], %pad : ..., vector<2x32xf32>
      ...
    // gets, before the read (k' = min(k + 16, 127)):
      %row2 = memref.subview %b[%k2, 0, 0, 0] [1, 2, 1, 32] [1, 1, 1, 1] : ...
      %r2 = memref.subview %row2[0, 0, 0, 0] [1, 2, 1, 32] [1, 1, 1, 1] : ...
      memref.prefetch %r2[%c0, %c0], read, locality<3>, data : ...
      memref.prefetch %r2[%c0, %c16], read, locality<3>, data : ...
      memref.prefetch %r2[%c1, %c0], read, locality<3>, data : ...
      memref.prefetch %r2[%c1, %c16], read, locality<3>, data : ...
    ```
  }];
  let options = [
    Option<"distance", "distance", "int64_t", /*default=*/"16",
           "Iterations ahead (16 k steps measured best on Zen 4: 16-32 rows "
           "of 2 KiB ahead)">,
    Option<"minRowStrideBytes", "min-row-stride-bytes", "int64_t",
           /*default=*/"1024",
           "Rows closer together than this are left to the hardware "
           "prefetcher">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def PrefetchNextTilePass
    : Pass<"tessel-prefetch-next-tile", "::mlir::func::FuncOp"> {
  let summary = "Prefetch the next tile's input during a compute-only nest";
  let description = [{
    In a tile of a parallel loop (`scf.parallel` on buffers) that reads an
    input larger than the last-level cache in several loop nests, the first
    nest fetches the tile's lines from memory and the later ones find them
    in cache: memory idles while they compute. This pass picks, among the
    later nests that re-read the input and write no output, the one with
    the most vector arithmetic, and puts before each of its reads of the
    input one `memref.prefetch` (to L2) per cache line of the address the
    same read has in the next iteration of the parallel loop (the induction
    variable advanced by one step, clamped to the last iteration). Reads
    must cover whole lines at line-aligned offsets, and two tiles of the
    input must fit in half of L2; otherwise a remark says why and nothing
    changes.

    When no nest re-reads the input without storing an output (a stencil
    tile reads it once, then computes on tile buffers), the tile's largest
    view of the input (a `memref.subview` made in the tile) is recomputed
    for the next iteration and its rows are prefetched, spread evenly over
    the outer iterations of every later nest that neither reads the input
    nor stores an output. Not when the input's rows are no farther apart
    than the target's `stride_prefetch`: the hardware prefetcher then
    keeps the first nest fed, and the next tile on top only crowds L2.

    ```mlir
    scf.parallel (%t) = (%c0) to (%c4096) step (%c8) {
      ... row max: reads %x[%t + %r, %j] from memory ...
      scf.for %r ... { scf.for %j ... step %c64 {
        %v = vector.transfer_read %x[%t + %r, %j] ...   // exp(x - max)
      } }
    // becomes, in the second nest
      %next = arith.select (%t + 8 < 4096), %t + 8, %t
        memref.prefetch %x[%next + %r, %j], read, locality<2>, data
        memref.prefetch %x[%next + %r, %j + 16], read, locality<2>, data
        ... (one per 64-byte line of the vector<64xf32>)
        %v = vector.transfer_read %x[%t + %r, %j] ...
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def PadBufferRowsPass : Pass<"tessel-pad-buffer-rows", "::mlir::func::FuncOp"> {
  let summary = "Start every row of a local tile buffer at a cache line";
  let description = [{
    A fused tile's buffers take the tile's shape: a stencil tile of whole
    2044-element f32 rows gets a `memref<1x20x2044xf32>`, whose 8176-byte
    rows start at a 64-byte line only every fourth row. Elsewhere almost
    every 64-byte vector load and store of the buffer then touches two
    lines (measured on Zen 5: blur_x_blur_y with 1x16x2044 tiles, 7.0 ->
    6.1 ms at one thread). On a CPU target this pass allocates such a
    static local buffer (`memref.alloc` or `memref.alloca`, rank >= 2,
    identity layout) with rows rounded up to whole lines, aligned to a
    line, and uses it through a subview of the original shape; subviews
    of the buffer are rebuilt with the strided types that follows. Rows
    shorter than `min-row-lines` lines are left alone (the padding would
    cost more than a line in that many), and so is a buffer with a use
    that relies on its contiguous layout (a reshape, a call, a cast):
    both with a remark. Each padded buffer gets a remark too.

    ```mlir
    %buf = memref.alloca() {alignment = 64 : i64} : memref<20x2044xf32>
    vector.transfer_write %v, %buf[%i, %j] : vector<64xf32>, memref<20x2044xf32>
    // becomes
    %pad = memref.alloca() {alignment = 64 : i64} : memref<20x2048xf32>
    %buf = memref.subview %pad[0, 0] [20, 2044] [1, 1]
        : memref<20x2048xf32> to memref<20x2044xf32, strided<[2048, 1]>>
    vector.transfer_write %v, %buf[%i, %j]
        : vector<64xf32>, memref<20x2044xf32, strided<[2048, 1]>>
    ```
  }];
  let options = [
    Option<"minRowLines", "min-row-lines", "int64_t", /*default=*/"8",
           "Rows shorter than this many cache lines are not padded">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def StreamStoresPass : Pass<"tessel-stream-stores", "::mlir::func::FuncOp"> {
  let summary = "Write large write-only outputs with non-temporal stores";
  let description = [{
    A function argument larger than the target's last-level cache that the
    function only writes (vector.transfer_write through subviews, nothing
    else) will not be read from the cache: regular stores would fetch every
    line before overwriting it (read-for-ownership) and evict useful data.
    Its writes become non-temporal `vector.store`s when each writes whole
    cache lines at offsets the pass can prove are multiples of the line
    (`offsetFromBase` over the loop bounds and steps). The buffer's own
    alignment is a run-time fact, so the loop nest holding the writes (its
    outermost `scf.for` below the parallel loop) is versioned on it, and the
    streaming version ends with an `sfence` (which
    `tessel-sink-stream-fences` later moves out of the tile loop). x86
    targets only. Every output
    over the threshold that is not streamed gets a remark saying why.

    ```mlir
    scf.for %j = %c0 to %c4096 step %c64 {
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]}
          : vector<64xf32>, memref<4096x4096xf32>
    }
    // becomes
    %p = memref.extract_aligned_pointer_as_index %out
    %aligned = arith.cmpi eq, (%p mod 64), 0
    scf.if %aligned {
      scf.for %j = %c0 to %c4096 step %c64 {
        vector.store %v, %out[%i, %j] {alignment = 64, nontemporal = true}
      }
      llvm.call_intrinsic "llvm.x86.sse.sfence"()
    } else {
      scf.for ... { vector.transfer_write ... }   // unchanged
    }
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"0",
           "Outputs of at most this many bytes keep cached stores "
           "(0: the target's last-level cache)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def HoistThreadBuffersPass
    : Pass<"tessel-hoist-thread-buffers", "::mlir::func::FuncOp"> {
  let summary = "Take static per-iteration stack buffers once per OpenMP thread";
  let description = [{
    A static `memref.alloca` inside an `omp.wsloop` (the tile buffers of
    fused nests, promoted to the stack) lives for one iteration; moving it
    to the start of the enclosing `omp.parallel` region gives each thread
    one buffer that all its iterations reuse. An iteration's
    `memref.alloca_scope` left without allocas is inlined, also when it
    holds ops of unknown memory effects (upstream's canonicalization keeps
    such a scope). Allocas with dynamic sizes stay where they are, and so
    does their scope.

    ```mlir
    omp.parallel {
      omp.wsloop { omp.loop_nest (%i) ... {
        memref.alloca_scope {
          %t = memref.alloca() : memref<1x260x256xf32>
          ...
    // becomes
    omp.parallel {
      %t = memref.alloca() : memref<1x260x256xf32>
      omp.wsloop { omp.loop_nest (%i) ... {
        ...
    ```
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect",
                           "::mlir::memref::MemRefDialect"];
}

def SinkStreamFencesPass
    : Pass<"tessel-sink-stream-fences", "::mlir::func::FuncOp"> {
  let summary = "Fence non-temporal stores once per thread, not once per tile";
  let description = [{
    `tessel-stream-stores` ends each streaming nest with an `sfence`; in
    the body of a tiled loop that fence runs once per tile and stalls the
    core until the tile's write-combining buffers have drained, so the next
    tile's loads never overlap the last tile's writes. The stores only need
    to be ordered before another thread can read them. This pass moves each
    fence past every enclosing loop (`scf.for`, `scf.while`, `affine.for`,
    through `scf.if` and `memref.alloca_scope`) whose body holds nothing
    that synchronizes with other threads (calls, atomics, other fences,
    intrinsics, OpenMP or GPU ops), up to an `omp.wsloop` directly in an
    `omp.parallel`. A wsloop becomes `nowait` and is followed by the fence
    and an `omp.barrier` (none when the parallel region ends there: its end
    is a barrier), so each thread fences its own share before the others go
    on. A fence that cannot move gets a remark saying why. Runs after
    `convert-scf-to-openmp`.

    ```mlir
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : index = (%c0) to (%c4096) step (%c1) {
          scf.for ... { vector.store ... {nontemporal = true} }
          llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
          omp.yield
        }
      }
      omp.terminator
    }
    // becomes
    omp.parallel {
      omp.wsloop nowait {
        omp.loop_nest (%i) : index = (%c0) to (%c4096) step (%c1) {
          scf.for ... { vector.store ... {nontemporal = true} }
          omp.yield
        }
      }
      llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
      omp.terminator
    }
    ```
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def CheckAllocationsPass
    : Pass<"tessel-check-allocations", "::mlir::func::FuncOp"> {
  let summary = "Stop with a message when a heap allocation returns null";
  let description = [{
    `memref.alloc` becomes a `malloc` whose result nothing checks: a
    temporary larger than the machine's memory made the compiled function
    segfault at its first store. After every heap allocation (except
    statically empty ones) this pass checks the aligned pointer and, when
    it is null, stops the program with a message naming the function, the
    buffer type and its size (`cf.assert`, which prints and aborts). One
    compare and branch per allocation.

    ```mlir
    %t = memref.alloc() : memref<1048576x1048576xf32>
    // becomes
    %t = memref.alloc() : memref<1048576x1048576xf32>
    %p = memref.extract_aligned_pointer_as_index %t : memref<1048576x1048576xf32> -> index
    %ok = arith.cmpi ne, %p, %c0 : index
    cf.assert %ok, "tessel: out of memory: @f could not allocate a memref<1048576x1048576xf32> (4398046511104 bytes)"
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::memref::MemRefDialect"];
}

def LowerFloatMinMaxPass
    : Pass<"tessel-lower-float-minmax", "::mlir::func::FuncOp"> {
  let summary = "IEEE float maximum / minimum on AVX-512DQ as vrange";
  let description = [{
    `arith.maximumf` / `arith.minimumf` (IEEE-754 2019: NaN in, NaN out; -0
    below +0) have no single x86 instruction before AVX10.2; LLVM 22 expands
    each 16 lanes into six (a sign-bit mask, blends, `vmaxps`, an unordered
    compare, a masked move). On a CPU target with AVX-512DQ and 512-bit
    vectors, this pass rewrites them on f32 (f64) vectors of a multiple of
    16 (8) lanes into one `vrangeps` (`vrangepd`) per 512 bits, which orders
    signed zeros, plus an unordered compare and a masked add that turn the
    result into NaN where an operand is a quiet NaN (vrange returns the
    number there). Three instructions instead of six: a softmax's row-max
    loop is mostly these (measured on Zen 5, softmax 4096x4096 at one
    thread: 4.0 -> 3.86 ms). With the `nnan` flag the fix-up is left out.
    Other targets, scalars and other widths are left alone.

    ```mlir
    %m = arith.maximumf %x, %acc : vector<16xf32>
    // becomes
    %r = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"
           (%x, %acc, %c5_i32, %x, %c-1_i16, %c4_i32) : (...) -> vector<16xf32>
    %u = arith.cmpf uno, %x, %acc : vector<16xf32>
    %n = arith.addf %x, %acc : vector<16xf32>
    %m = arith.select %u, %n, %r : vector<16xi1>, vector<16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def ExpandBF16ConversionsPass
    : Pass<"tessel-expand-bf16-conversions", "::mlir::func::FuncOp"> {
  let summary = "Convert f32 to bf16 with integer arithmetic where the CPU "
                "has no instruction for it";
  let description = [{
    Without AVX512-BF16 or AVX-NE-CONVERT (x86) or BF16 (AArch64), LLVM
    lowers `arith.truncf` f32 -> bf16 to a call of compiler-rt's
    `__truncsfbf2`, which GCC 12's libgcc (Debian 12) does not have: the
    object would not link. LLVM computes bf16 arithmetic in f32 and calls
    it after each op too. On a CPU target whose features lack those
    instructions, this pass first makes that f32 computation explicit
    (upstream's `arith-emulate-unsupported-floats` patterns, applied to
    math ops too: operands extended, each result truncated back to bf16),
    then rewrites `arith.truncf` to bf16 (rounding to nearest, ties to
    even; NaNs become the quiet NaN) and `arith.extf` from bf16 as integer
    shifts and adds, scalars and vectors alike
    (`arith::populateExpandBFloat16Patterns`). Upstream's
    `arith-expand{include-bf16=true}` applies them too, but also expands
    `arith.maximumf`/`minimumf` without ordering -0 below +0. Targets with
    the instructions and GPU targets are left alone; `always` expands
    regardless (CPU code emulating a GPU target).

    ```mlir
    %h = arith.truncf %x : vector<16xf32> to vector<16xbf16>
    // becomes (abridged)
    %b = arith.bitcast %x : vector<16xf32> to vector<16xi32>
    %r = arith.addi %b, (0x7fff + ((%b >> 16) & 1))   // round to nearest even
    %n = arith.select (%x is NaN), 0x7fc0, (%r >> 16)
    %h = arith.bitcast (arith.trunci %n to vector<16xi16>) to vector<16xbf16>
    ```
  }];
  let options = [
    Option<"always", "always", "bool", /*default=*/"false",
           "Expand whatever the target (CPU code emulating a GPU target)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ContractMultiplyAddsPass : Pass<"tessel-contract-multiply-adds"> {
  let summary = "Let multiplies feeding one add or subtract fuse into FMAs";
  let description = [{
    Adds the `contract` fast-math flag to each `arith.addf` / `arith.subf`
    one of whose operands is an `arith.mulf` with no other use, in the same
    block, and to that multiply, so that LLVM's backends compute the pair
    as one fused multiply-add: one rounding instead of two and one
    instruction instead of two. What nvcc does by default (`--fmad=true`,
    across statements as here). Without it the NVPTX backend prints each
    multiply and add with an explicit rounding mode (`mul.rn`, `add.rn`),
    which ptxas does not fuse, so a 5-tap stencil issued ten floating-point
    instructions per output instead of five.

    The pair is marked rather than rewritten into `math.fma`, which
    `convert-gpu-to-nvvm` lowers to a libdevice call (`__nv_fmaf`, f16
    through f32); with the flag, NVPTX emits `fma.rn` for f32, f16, f16x2,
    bf16 and f64, and AMDGPU its `v_fma` / `v_fmac`. Where an add has two
    products (`a * b - c * d`) only the first is marked.

    Contraction changes results in the last bits, and a few identities no
    longer hold exactly (`a * b - a * b` need not be 0, a rank-1 2x2
    determinant need not vanish). The GPU pipelines run it on each
    `gpu.module`; a pipeline string without the stage keeps every multiply
    and add rounded on its own.

    ```mlir
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    // becomes
    %p = arith.mulf %x, %w fastmath<contract> : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ApproximateMathPass : Pass<"tessel-approximate-math", "::mlir::func::FuncOp"> {
  let summary = "Replace f32 transcendentals by polynomial approximations";
  let description = [{
    Rewrites f32 `math` ops (tanh, erf, exp, log, sin, cos, atan, ...) into
    arithmetic: minimax polynomials and range reduction, accurate to a few
    ulp. Such code vectorizes and fuses like any other elementwise op instead
    of calling libm once per element. Upstream has these rewrites only as
    pattern sets (and a test pass), so this pass makes them a pipeline step.
    f16 and bf16 ops are computed in f32 and truncated back; f64 ops and
    ops on tensors are left alone (f64 goes to `convert-math-to-libm`).

    ```mlir
    %y = math.tanh %x : f32
    // becomes a clamped rational polynomial in %x (arith.mulf/addf/divf)
    ```

    f32 `math.erf` (GELU) is one rational function of the argument clamped
    to [-4, 4], x P(x^2) / Q(x^2) with our own coefficients, clamped to
    [-1, 1] (at most 7.2 ulp from erf over every f32): 17 instructions and
    a division, where upstream's picks one of three rational pieces by
    interval with a dozen selects (~35).

    On a CPU target with AVX-512F (`+avx512f` in the `#tessel.target`
    features), `math.exp` on f32 vectors of a multiple of 16 lanes instead
    scales its polynomial by 2^k with `x86vector.avx512.mask.scalef`
    (vscalefps), one instruction where the portable expansion builds the
    power of two from an integer and clamps k: 13 instead of 20
    vector instructions per 16 floats, the bulk of a softmax. The lowering
    then needs `convert-vector-to-llvm{enable-x86vector}`.

    ```mlir
    %e = math.exp %x : vector<1x64xf32>
    // becomes (per 16 lanes of the flattened vector)
    %k = math.roundeven %xlog2e : vector<64xf32>
    ...                                        // r = x - k ln2, 8 math.fma
    %s = x86vector.avx512.mask.scalef %y, %k, %y, %all, %c4 : vector<16xf32>
    ```
  }];
  let options = [
    Option<"targetInstructions", "target-instructions", "bool",
           /*default=*/"true",
           "Use instructions of the module's #tessel.target that shorten an "
           "approximation (AVX-512 vscalefps for f32 exp); false keeps "
           "the portable expansions only">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def FinalizeTargetPass : Pass<"tessel-finalize-target", "::mlir::ModuleOp"> {
  let summary = "Hand the target to LLVM and drop #tessel.target";
  let description = [{
    The last step of every pipeline. For a CPU target it records the
    description where LLVM reads it: the module's `llvm.target_triple`, and
    `target_cpu` / `target_features` on every defined `llvm.func`, so that
    a plain `clang -O3` on the translated module generates code for the
    chip the cost models assumed. It then removes `tessel.target`, so the
    output is pure upstream IR that stock `mlir-translate-22` accepts
    without the plugin. (GPU targets were already handed to the device
    serializer by `tessel-attach-gpu-target`.)

    ```mlir
    module attributes {tessel.target = #tessel.target<kind = "cpu",
        triple = "x86_64-pc-linux-gnu", chip = "znver4", features = "+avx512f", ...>} {
      llvm.func @f() { ... }
    }
    // becomes
    module attributes {llvm.target_triple = "x86_64-pc-linux-gnu"} {
      llvm.func @f() attributes {target_cpu = "znver4",
          target_features = #llvm.target_features<["+avx512f"]>} { ... }
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TESSEL_PASSES_TD

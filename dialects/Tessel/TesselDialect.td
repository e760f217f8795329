//===- TesselDialect.td - Tessel dialect and target description -*- tablegen -*-===//
//
// The Tessel dialect carries what Tessel's cost models read: a description of
// the machine the module is compiled for. Ops come with later transformations.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TD
#define TESSEL_DIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"

def Tessel_Dialect : Dialect {
  let name = "tessel";
  let cppNamespace = "::mlir::tessel";
  let summary = "Tessel's target description and compiler annotations";
  let description = [{
    The `tessel` dialect holds the target description (`#tessel.target`) that
    Tessel's analytical cost models read, attached to the module under the
    `tessel.target` attribute name by `tessel-attach-target`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// The module attribute name under which the target description lives.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("tessel.target");
    }
  }];
}

def Tessel_TargetAttr : AttrDef<Tessel_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "Description of the machine the cost models optimize for";
  let description = [{
    Everything a cost model may ask of the machine, in one place. Sizes are in
    bytes; `l1`/`l2` are per core, `l3` is the last-level cache shared by
    `cores` cores. For GPUs, `sm_count` is SMs (NVIDIA) or CUs (AMD),
    `smem_per_block` is shared memory / LDS available to one block,
    `registers_per_block` the 32-bit register file one block may use,
    `warp_size` the warp or wavefront width, and `mma` lists the tensor-core
    instruction shapes as `"mMnNkK:AxB->C"` strings. The throughputs are per
    SM (CU) and cycle: `mma_fma_per_cycle` dense 16-bit tensor-core
    multiply-adds, `mma_f64_fma_per_cycle` f64 ones (0: none, or not worth
    using), `simt_fma_per_cycle` f32 multiply-adds on the ordinary
    (SIMT) cores, `simt_f64_fma_per_cycle` f64 ones, `smem_bytes_per_cycle` shared memory (LDS) bandwidth,
    `l2_bytes_per_cycle` the SM's share of the L2 bandwidth,
    `dram_bytes_per_cycle` its share of the device-memory (HBM/GDDR)
    bandwidth; `memory_latency` is the cycles a global load takes from
    device memory.
    For CPUs, `stride_prefetch` is the largest row stride in bytes at which
    the core's hardware prefetcher follows a stream of short rows (a matmul
    kernel reading one or two cache lines of each row of an operand in
    place); 0 means unknown, and software prefetches are issued for such
    rows from 1 KiB apart.

    Example:

    ```mlir
    module attributes {tessel.target = #tessel.target<kind = "cpu",
        triple = "x86_64-unknown-linux-gnu", chip = "znver4",
        vector_bits = 512, vector_registers = 32, cache_line = 64,
        l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {}
    ```
  }];
  let parameters = (ins
    StringRefParameter<"cpu, nvgpu or amdgpu">:$kind,
    StringRefParameter<"target triple", "\"\"">:$triple,
    StringRefParameter<"CPU name or GPU chip (sm_90a, gfx90a)", "\"\"">:$chip,
    StringRefParameter<"LLVM target features", "\"\"">:$features,
    DefaultValuedParameter<"int64_t", "0", "vector register width in bits">:$vector_bits,
    DefaultValuedParameter<"int64_t", "0", "number of architectural vector registers">:$vector_registers,
    DefaultValuedParameter<"int64_t", "0", "cache line size in bytes">:$cache_line,
    DefaultValuedParameter<"int64_t", "0", "L1 data cache per core, bytes">:$l1,
    DefaultValuedParameter<"int64_t", "0", "L2 cache per core, bytes">:$l2,
    DefaultValuedParameter<"int64_t", "0", "last-level cache, bytes">:$l3,
    DefaultValuedParameter<"int64_t", "0", "cores (CPU) used for parallel loops">:$cores,
    DefaultValuedParameter<"int64_t", "0", "streaming multiprocessors / compute units">:$sm_count,
    DefaultValuedParameter<"int64_t", "0", "shared memory (LDS) per block, bytes">:$smem_per_block,
    DefaultValuedParameter<"int64_t", "0", "32-bit registers per block">:$registers_per_block,
    DefaultValuedParameter<"int64_t", "0", "warp or wavefront width">:$warp_size,
    DefaultValuedParameter<"int64_t", "0", "max threads per block">:$max_threads_per_block,
    DefaultValuedParameter<"int64_t", "0", "16-bit tensor-core FMAs per cycle per SM">:$mma_fma_per_cycle,
    DefaultValuedParameter<"int64_t", "0", "f64 tensor-core FMAs per cycle per SM">:$mma_f64_fma_per_cycle,
    DefaultValuedParameter<"int64_t", "0", "f32 FMAs per cycle per SM on the SIMT cores">:$simt_fma_per_cycle,
    DefaultValuedParameter<"int64_t", "0", "f64 FMAs per cycle per SM on the SIMT cores">:$simt_f64_fma_per_cycle,
    DefaultValuedParameter<"int64_t", "0", "shared memory bytes per cycle per SM">:$smem_bytes_per_cycle,
    DefaultValuedParameter<"int64_t", "0", "L2 bytes per cycle per SM">:$l2_bytes_per_cycle,
    DefaultValuedParameter<"int64_t", "0", "device-memory bytes per cycle per SM">:$dram_bytes_per_cycle,
    DefaultValuedParameter<"int64_t", "0", "device memory load latency, cycles">:$memory_latency,
    DefaultValuedParameter<"int64_t", "0", "largest row stride (bytes) the CPU's hardware prefetcher follows">:$stride_prefetch,
    OptionalParameter<"::mlir::ArrayAttr", "tensor-core shapes and types (strings)">:$mma
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isCPU() const { return getKind() == "cpu"; }
    bool isGPU() const { return getKind() == "nvgpu" || getKind() == "amdgpu"; }
    /// The target attached to `op`'s closest enclosing module, or null.
    static TargetAttr lookup(::mlir::Operation *op);
  }];
}

#endif // TESSEL_DIALECT_TD

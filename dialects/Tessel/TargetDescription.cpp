//===- TargetDescription.cpp - Host detection and GPU presets -------------===//
#include "dialects/Tessel/TargetDescription.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::tessel;

TargetAttr
TargetDescription::toAttr(MLIRContext *ctx,
                          function_ref<InFlightDiagnostic()> emitError) const {
  Builder b(ctx);
  ArrayAttr mmaAttr;
  if (!mma.empty()) {
    SmallVector<Attribute> shapes;
    for (const std::string &shape : mma)
      shapes.push_back(b.getStringAttr(shape));
    mmaAttr = b.getArrayAttr(shapes);
  }
  return TargetAttr::getChecked(
      emitError, ctx, StringRef(kind), StringRef(triple), StringRef(chip),
      StringRef(features), vectorBits, vectorRegisters, cacheLine, l1, l2, l3,
      cores, smCount, smemPerBlock, registersPerBlock, warpSize,
      maxThreadsPerBlock, mmaFmaPerCycle, mmaF64FmaPerCycle, simtFmaPerCycle,
      simtF64FmaPerCycle, smemBytesPerCycle, l2BytesPerCycle, dramBytesPerCycle,
      memoryLatency, stridePrefetch, mmaAttr);
}

/// Reads a small sysfs file; empty when absent.
static std::string readSysfs(const Twine &path) {
  auto buffer = llvm::MemoryBuffer::getFileAsStream(path);
  if (!buffer)
    return {};
  return (*buffer)->getBuffer().trim().str();
}

/// Parses sysfs cache sizes such as "32K", "1024K", "32768K", "16M".
static int64_t parseCacheSize(StringRef text) {
  int64_t multiplier = 1;
  if (text.consume_back("K"))
    multiplier = 1024;
  else if (text.consume_back("M"))
    multiplier = 1024 * 1024;
  int64_t value = 0;
  if (text.getAsInteger(10, value))
    return 0;
  return value * multiplier;
}

/// What the hardware prefetcher of `chip` (LLVM's CPU name) follows, as
/// measured with Tessel's kernels (docs/CostModels.md): on Zen 5, matmul
/// kernels reading B rows 2, 8 and 16 KiB apart in place ran 6-24% faster
/// without software prefetches of those rows (its L1 prefetchers follow
/// strided streams); on Zen 4 the prefetches made ResNet-50's stage-4 3x3
/// 17% faster, so it stays unknown (0) there and for every core not
/// measured.
static int64_t hostStridePrefetch(StringRef chip) {
  if (chip == "znver5")
    return 16 * 1024;
  return 0;
}

TargetDescription mlir::tessel::detectHostCPU() {
  TargetDescription desc;
  desc.kind = "cpu";
  desc.triple = llvm::Triple::normalize(llvm::sys::getProcessTriple());
  desc.chip = llvm::sys::getHostCPUName().str();

  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  // Disabled features are listed too: a virtual machine may hide some of
  // its CPU model's (AVX-512 on a Zen 4 guest), and the backend would
  // otherwise enable everything the model name implies (SIGILL).
  SmallVector<std::string> listed;
  for (const auto &feature : features)
    listed.push_back((feature.second ? "+" : "-") + feature.first().str());
  llvm::sort(listed);
  desc.features = llvm::join(listed, ",");

  auto has = [&](StringRef name) { return features.lookup(name); };
  if (has("avx512f")) {
    desc.vectorBits = 512;
    desc.vectorRegisters = 32;
  } else if (has("avx")) {
    desc.vectorBits = 256;
    desc.vectorRegisters = 16;
  } else if (has("neon") || has("sve")) {
    desc.vectorBits = 128;
    desc.vectorRegisters = 32;
  } else {
    desc.vectorBits = 128;
    desc.vectorRegisters = 16;
  }

  // Fallbacks are a typical modern core; sysfs overrides them when readable.
  desc.cacheLine = 64;
  desc.l1 = 32 * 1024;
  desc.l2 = 1024 * 1024;
  desc.l3 = 32 * 1024 * 1024;
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::string level = readSysfs(dir + "/level");
    if (level.empty())
      break;
    std::string type = readSysfs(dir + "/type");
    if (type == "Instruction")
      continue;
    int64_t size = parseCacheSize(readSysfs(dir + "/size"));
    if (size <= 0)
      continue;
    if (level == "1")
      desc.l1 = size;
    else if (level == "2")
      desc.l2 = size;
    else if (level == "3")
      desc.l3 = size;
    int64_t line = 0;
    if (!StringRef(readSysfs(dir + "/coherency_line_size"))
             .getAsInteger(10, line) &&
        llvm::isPowerOf2_64(line))
      desc.cacheLine = line;
  }
  desc.stridePrefetch = hostStridePrefetch(desc.chip);
  // The affinity mask, not the machine's total, bounds the cores we may use.
  desc.cores = std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  return desc;
}

namespace {
struct GPUPreset {
  const char *kind, *chip, *triple, *features;
  int64_t smCount, smemPerBlock, registersPerBlock, warpSize, maxThreads,
      cacheLine, l1, l2;
  /// Per SM and cycle: dense 16-bit and f64 tensor-core FMAs (peak TFLOPS
  /// / SMs / boost clock / 2), f32 and f64 FMAs on the SIMT cores,
  /// shared-memory bytes, L2 bytes, device-memory bytes; and device memory
  /// latency in cycles.
  int64_t mmaFmaPerCycle, mmaF64FmaPerCycle, simtFmaPerCycle,
      simtF64FmaPerCycle, smemBytesPerCycle, l2BytesPerCycle, dramBytesPerCycle,
      memoryLatency;
  const char *mma; // comma-separated
};
} // namespace

// Published per-chip figures (vendor architecture whitepapers / occupancy
// tables). l1 is the per-SM L1 left beside the shared-memory carve-out.
// Tensor-core rates are peak dense 16-bit TFLOPS / SMs / boost clock / 2
// (A100 312 TFLOPS, 108 SMs, 1.41 GHz: 1024; H100 SXM 989 TFLOPS: 2048;
// GA102/AD102 with 16-bit accumulation: 512). f64 tensor cores (DMMA):
// A100 19.5 TFLOPS: 64; H100 SXM 67 TFLOPS: 128 (a peak Hopper may reach
// only with its larger f64 mma shapes, which MLIR 22's WMMA ops do not
// emit; what m8n8k4 gets there is unmeasured); GA102/AD102 have the
// instruction (PTX mma .f64 is sm_80+) but publish no rate for it, so 0
// (f64 stays on the SIMT cores there); AMD 0, as no f64 MFMA kernel is
// built. AMD matrix rates: MI210 181 TFLOPS f16 over 104 CUs at 1.7 GHz:
// 512; MI300X 1307 TFLOPS, 304 CUs, 2.1 GHz: 1024; RX 7900 XTX 123
// TFLOPS, 96 CUs, 2.5 GHz: 256 (i8 at the same rate on gfx90a and gfx1100;
// gfx942's i8 instructions are 16x16x32 and 32x32x16, which no kernel
// here uses).
// SIMT f32 FMAs are the FP32
// lanes per SM: 64 on GA100, 128 on GA102, AD102 and GH100; 64 per CU on
// CDNA2/3 (packed f32 and RDNA3's dual issue, which would double it, are
// not counted, though the backend packs the SIMT matmul kernel's f32
// multiply-adds into v_pk_fma_f32 on gfx90a). SIMT f64 FMAs are the FP64 peak
// without tensor cores / SMs / clock / 2: A100 9.7 TFLOPS: 32; H100 SXM 34
// TFLOPS: 64; GA102/AD102 run f64 at 1/64 of f32: 2; MI210 and MI300X 64 per CU
// (vector f64 at f32's rate); RDNA3 4. Shared memory is 32 banks of
// 4 bytes per cycle. L2: A100's whitepaper gives 5120 B/clk for 108 SMs
// (47 per SM); no such figure is published for the other chips, which keep
// 48 (NVIDIA) or 64 (AMD, 128 B/clk per channel) until a GPU session measures
// it. Device memory: the datasheet bandwidth over SMs and the same boost
// clock, to the nearest byte (A100 40GB 1555 GB/s: 10; H100 SXM 3.35 TB/s
// at 1.83 GHz: 14; RTX 3090 936 GB/s: 7; RTX 4090 1008 GB/s: 3; MI210 1.6 TB/s:
// 9; MI300X 5.3 TB/s: 8; RX 7900 XTX 960 GB/s: 4). Memory latency is a round
// figure for a DRAM load (microbenchmarks put A100 near 500-600 cycles); the
// models only use it to decide how many copies to keep in flight.
// One row per chip, in GPUPreset's field order.
// clang-format off
static const GPUPreset kGPUPresets[] = {
    {"nvgpu", "sm_80", "nvptx64-nvidia-cuda", "+ptx70", 108, 166912, 65536, 32,
     1024, 128, 28 * 1024, 40 * 1024 * 1024, 1024, 64, 64, 32, 128, 48, 10, 600,
     "m16n8k16:f16xf16->f32,m16n8k16:f16xf16->f16,m16n8k32:i8xi8->i32,"
     "m16n16k16:f16xf16->f32,m16n16k16:f16xf16->f16,"
     "m16n16k16:bf16xbf16->f32,m16n16k16:i8xi8->i32,m8n8k4:f64xf64->f64"},
    {"nvgpu", "sm_86", "nvptx64-nvidia-cuda", "+ptx71", 84, 101376, 65536, 32,
     1024, 128, 28 * 1024, 6 * 1024 * 1024, 512, 0, 128, 2, 128, 48, 7, 600,
     "m16n8k16:f16xf16->f32,m16n8k16:f16xf16->f16,m16n8k32:i8xi8->i32,"
     "m16n16k16:f16xf16->f32,m16n16k16:f16xf16->f16,"
     "m16n16k16:bf16xbf16->f32,m16n16k16:i8xi8->i32,m8n8k4:f64xf64->f64"},
    {"nvgpu", "sm_89", "nvptx64-nvidia-cuda", "+ptx78", 128, 101376, 65536, 32,
     1024, 128, 28 * 1024, 72 * 1024 * 1024, 512, 0, 128, 2, 128, 48, 3, 600,
     "m16n8k16:f16xf16->f32,m16n8k16:f16xf16->f16,m16n8k32:i8xi8->i32,"
     "m16n16k16:f16xf16->f32,m16n16k16:f16xf16->f16,"
     "m16n16k16:bf16xbf16->f32,m16n16k16:i8xi8->i32,m8n8k4:f64xf64->f64"},
    {"nvgpu", "sm_90", "nvptx64-nvidia-cuda", "+ptx80", 132, 232448, 65536, 32,
     1024, 128, 28 * 1024, 50 * 1024 * 1024, 2048, 128, 128, 64, 128, 48, 14, 700,
     "m16n8k16:f16xf16->f32,m16n8k16:f16xf16->f16,m16n8k32:i8xi8->i32,"
     "m16n16k16:f16xf16->f32,m16n16k16:f16xf16->f16,"
     "m16n16k16:bf16xbf16->f32,m16n16k16:i8xi8->i32,m8n8k4:f64xf64->f64"},
    // PTX ISA 8.3 (CUDA 12.3 drivers and later): the wgmma kernels acquire
    // their tensor maps with fence.proxy.tensormap.
    {"nvgpu", "sm_90a", "nvptx64-nvidia-cuda", "+ptx83", 132, 232448, 65536, 32,
     1024, 128, 28 * 1024, 50 * 1024 * 1024, 2048, 128, 128, 64, 128, 48, 14, 700,
     "m16n8k16:f16xf16->f32,m16n8k16:f16xf16->f16,m16n8k32:i8xi8->i32,"
     "m16n16k16:f16xf16->f32,m16n16k16:f16xf16->f16,"
     "m16n16k16:bf16xbf16->f32,m16n16k16:i8xi8->i32,m8n8k4:f64xf64->f64,"
     "wgmma.m64nNk16:f16xf16->f32,wgmma.m64nNk32:i8xi8->i32"},
    {"amdgpu", "gfx90a", "amdgcn-amd-amdhsa", "", 104, 65536, 131072, 64, 1024,
     128, 16 * 1024, 8 * 1024 * 1024, 512, 0, 64, 64, 128, 64, 9, 700,
     "mfma.32x32x8:f16xf16->f32,mfma.16x16x16:f16xf16->f32,"
     "mfma.32x32x8:i8xi8->i32,mfma.16x16x16:i8xi8->i32"},
    {"amdgpu", "gfx942", "amdgcn-amd-amdhsa", "", 304, 65536, 131072, 64, 1024,
     128, 32 * 1024, 4 * 1024 * 1024, 1024, 0, 64, 64, 128, 64, 8, 700,
     "mfma.32x32x8:f16xf16->f32,mfma.16x16x16:f16xf16->f32,"
     "mfma.32x32x16:i8xi8->i32,mfma.16x16x32:i8xi8->i32"},
    {"amdgpu", "gfx1100", "amdgcn-amd-amdhsa", "", 96, 65536, 65536, 32, 1024,
     128, 32 * 1024, 6 * 1024 * 1024, 256, 0, 64, 4, 128, 64, 4, 600,
     "wmma.16x16x16:f16xf16->f32,wmma.16x16x16:i8xi8->i32"},
};
// clang-format on

FailureOr<TargetDescription>
mlir::tessel::getTargetPreset(StringRef kind, StringRef chip,
                              std::string &error) {
  if (kind == "cpu") {
    TargetDescription host = detectHostCPU();
    // A named CPU changes the name LLVM schedules for and what is known of
    // that core's prefetcher (stride_prefetch); the rest stays the host's
    // and can be overridden field by field.
    if (!chip.empty() && chip != "host") {
      host.chip = chip.str();
      host.stridePrefetch = hostStridePrefetch(chip);
    }
    return host;
  }
  if (kind != "nvgpu" && kind != "amdgpu") {
    error = ("unknown target kind '" + kind +
             "' (expected cpu, nvgpu or amdgpu)")
                .str();
    return failure();
  }
  if (chip.empty())
    chip = kind == "nvgpu" ? "sm_80" : "gfx90a";
  for (const GPUPreset &preset : kGPUPresets) {
    if (kind != preset.kind || chip != preset.chip)
      continue;
    TargetDescription desc;
    desc.kind = preset.kind;
    desc.chip = preset.chip;
    desc.triple = preset.triple;
    desc.features = preset.features;
    desc.smCount = preset.smCount;
    desc.smemPerBlock = preset.smemPerBlock;
    desc.registersPerBlock = preset.registersPerBlock;
    desc.warpSize = preset.warpSize;
    desc.maxThreadsPerBlock = preset.maxThreads;
    desc.cacheLine = preset.cacheLine;
    desc.l1 = preset.l1;
    desc.l2 = preset.l2;
    desc.mmaFmaPerCycle = preset.mmaFmaPerCycle;
    desc.mmaF64FmaPerCycle = preset.mmaF64FmaPerCycle;
    desc.simtFmaPerCycle = preset.simtFmaPerCycle;
    desc.simtF64FmaPerCycle = preset.simtF64FmaPerCycle;
    desc.smemBytesPerCycle = preset.smemBytesPerCycle;
    desc.l2BytesPerCycle = preset.l2BytesPerCycle;
    desc.dramBytesPerCycle = preset.dramBytesPerCycle;
    desc.memoryLatency = preset.memoryLatency;
    desc.vectorBits = 128; // widest global/shared access per thread
    SmallVector<StringRef> shapes;
    StringRef(preset.mma).split(shapes, ',', -1, /*KeepEmpty=*/false);
    for (StringRef shape : shapes)
      desc.mma.push_back(shape.str());
    return desc;
  }
  std::string known;
  for (const GPUPreset &preset : kGPUPresets)
    if (kind == preset.kind)
      known += (known.empty() ? "" : ", ") + std::string(preset.chip);
  error = ("unknown " + kind + " chip '" + chip + "' (known: " + known +
           ")")
              .str();
  return failure();
}

int64_t mlir::tessel::storageBytes(Type element) {
  int64_t parts = 1;
  if (auto complex = dyn_cast<ComplexType>(element)) {
    element = complex.getElementType();
    parts = 2;
  }
  if (element.isIndex())
    return 8 * parts;
  if (!element.isIntOrFloat())
    return 0;
  return parts *
         std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
}

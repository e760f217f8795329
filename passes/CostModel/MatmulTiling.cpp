//===- MatmulTiling.cpp - Analytical tile sizes for matmul on CPUs --------===//
#include "passes/CostModel/MatmulTiling.h"

#include <algorithm>

using namespace mlir::tessel;

static int64_t roundDown(int64_t x, int64_t multiple) {
  return std::max(multiple, x / multiple * multiple);
}
static int64_t roundUp(int64_t x, int64_t multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

bool mlir::tessel::computeMatmulTiling(const CPUModelParams &target, int64_t m,
                                       int64_t n, int64_t k,
                                       int64_t elementBytes,
                                       const MatmulTiling &overrides,
                                       MatmulTiling &t, std::string &why) {
  if (target.vectorBits < 8 * elementBytes || target.vectorRegisters < 4 ||
      target.l1 <= 0 || target.l2 <= 0 || target.l3 <= 0) {
    why = "the target description lacks vector_bits, vector_registers or "
          "l1/l2/l3";
    return false;
  }
  llvm::raw_string_ostream os(t.rationale);

  // Lanes of one vector register.
  int64_t lanes = target.vectorBits / (8 * elementBytes);

  // Register tile. Each k step loads nr/lanes vectors of B, broadcasts mr
  // scalars of A, and issues mr * nr/lanes FMAs into accumulators that stay
  // in registers for the whole k loop. Half of the register file holds
  // accumulators; the other half holds the B vectors and A broadcasts of the
  // kr unrolled k steps, so loads can be issued ahead without spilling.
  // Two vectors per row keep loads (2 + mr per k step) below FMAs (2 * mr)
  // and give mr * 2 >= FMA latency x pipes independent chains.
  int64_t vectorsPerRow = 2;
  int64_t accumulators = target.vectorRegisters / 2;
  t.nr = overrides.nr ? roundUp(overrides.nr, lanes) : vectorsPerRow * lanes;
  t.mr = overrides.mr ? overrides.mr
                      : std::max<int64_t>(1, accumulators / (t.nr / lanes));
  os << "register tile " << t.mr << "x" << t.nr << ": " << t.mr * (t.nr / lanes)
     << " accumulators of " << target.vectorRegisters << " " << target.vectorBits
     << "-bit registers (half the file), " << t.nr / lanes
     << " vectors per row";

  // k unroll-and-jam: two k steps per iteration so the loads of the next
  // step overlap the FMAs of this one; K is padded to a multiple of it.
  t.kr = overrides.kr ? overrides.kr : 2;
  os << "; k unrolled by " << t.kr;

  // kc: the kc x nr micro-panel of packed B is reused by every register tile
  // of an A block, so it should stay in L1; the A micro-panel (mr x kc) is
  // read once per B micro-panel and streams from L2. A deeper kc also loads
  // and stores the C tile less often (once per kc k steps), so the panel
  // takes all of L1 (measured on Zen 4: kc 128 -> 256 -> 512 gains 3% each
  // on 1024^3).
  int64_t kc = overrides.kc ? overrides.kc : target.l1 / (t.nr * elementBytes);
  t.kc = std::min(roundDown(kc, t.kr), roundUp(k, t.kr));
  os << "; kc " << t.kc << ": B micro-panel kc x nr in L1 (" << target.l1
     << " B)";

  // mc: the mc x kc block of packed A is swept once per B micro-panel, so it
  // should stay in L2: half of L2, the rest for B panels and C.
  int64_t mc = overrides.mc ? overrides.mc
                            : target.l2 / 2 / (t.kc * elementBytes);
  t.mc = std::min(roundDown(mc, t.mr), roundUp(m, t.mr));
  os << "; mc " << t.mc << ": A block mc x kc in half of L2 (" << target.l2
     << " B)";

  // nc: the kc x nc block of packed B is reused by every A block, so it
  // should stay in the last-level cache: half of it.
  int64_t nc = overrides.nc ? overrides.nc
                            : target.l3 / 2 / (t.kc * elementBytes);
  t.nc = std::min(roundDown(nc, t.nr), roundUp(n, t.nr));
  os << "; nc " << t.nc << ": B block kc x nc in half of L3 (" << target.l3
     << " B)";

  // Parallelism over `cores` (a hint: OpenMP decides the thread count at
  // run time; a multiple of `cores` equal blocks then still divides evenly
  // over fewer threads, or leaves one thread idle per extra one).
  // The mc loop is preferred, as in BLIS on few-core machines: each core
  // keeps its own mc x kc block of A in its private L2 while all share the
  // kc x nc block of B in L3, and the nc loop usually has one iteration.
  // The nc loop is the fallback when M has fewer register tiles than there
  // are cores. Below about 2^20 multiply-adds per core (~10-20 us) the
  // fork/join of a parallel region (a few us) is not worth it.
  int64_t cores = std::max<int64_t>(1, target.cores);
  int64_t mPanels = (m + t.mr - 1) / t.mr, nPanels = (n + t.nr - 1) / t.nr;
  char parallel = overrides.parallel;
  if (!parallel) {
    if (cores < 2 || m * n * k / cores < (int64_t(1) << 20))
      parallel = 'x';
    else if (mPanels >= cores)
      parallel = 'm';
    else if (nPanels >= cores)
      parallel = 'n';
    else
      parallel = 'x';
  }
  // Blocks: the loop's iteration count rounded up to a multiple of the
  // cores, the block size then evened out over them (whole register tiles).
  auto balance = [&](int64_t &block, int64_t panels, int64_t tile) {
    int64_t blocks = (panels * tile + block - 1) / block;
    blocks = std::min(panels, (blocks + cores - 1) / cores * cores);
    block = (panels + blocks - 1) / blocks * tile;
    return (panels * tile + block - 1) / block;
  };
  t.parallel = 0;
  if (parallel == 'm' && cores > 1 && mPanels > 1) {
    int64_t blocks = balance(t.mc, mPanels, t.mr);
    t.parallel = 'm';
    os << "; parallel: the mc loop (" << blocks << " blocks of " << t.mc
       << " rows for " << cores
       << " cores; each core's A block in its own L2, the B block shared)";
  } else if (parallel == 'n' && cores > 1 && nPanels > 1) {
    int64_t blocks = balance(t.nc, nPanels, t.nr);
    t.parallel = 'n';
    os << "; parallel: the nc loop (" << blocks << " blocks of " << t.nc
       << " columns for " << cores << " cores; M has too few rows)";
  } else {
    os << "; not parallel (" << (cores < 2 ? "one core" : "too little work")
       << ")";
  }
  // Packing per cache block: B's kc x nc block once per (nc, kc) iteration
  // (L3-resident; shared when the mc loop is parallel, each core's own when
  // the nc loop is), A's mc x kc block once per mc iteration (packed by the
  // core that uses it, into its own buffer slot, L2-resident). The
  // B block is a streaming copy from L3 or memory when it does not fit in
  // one core's L2: then the cores split it by micro-panels (a second core
  // adds bandwidth; the fork/join of a few us is small against it).
  int64_t bBlockBytes = t.kc * t.nc * elementBytes;
  t.parallelPackB = t.parallel == 'm' && bBlockBytes >= target.l2;
  os << "; packing per block: B " << t.kc << "x" << t.nc << " per (nc, kc) ("
     << (t.parallelPackB     ? "over the cores"
         : t.parallel == 'n' ? "by the core of its nc block"
                             : "one thread")
     << "), A " << t.mc << "x" << t.kc << " per mc block ("
     << (t.parallel == 'm'   ? "by its core"
         : t.parallel == 'n' ? "by each core for its nc blocks"
                             : "one thread")
     << ")";
  return true;
}

//===- MatmulTiling.cpp - Analytical tile sizes for matmul on CPUs --------===//
#include "passes/CostModel/MatmulTiling.h"

#include <algorithm>

using namespace mlir::tessel;

/// B micro-panels per A block below which packing A costs more than it
/// saves (measured on Zen 4, docs/CostModels.md).
static constexpr int64_t kPackAMinSweeps = 16;
/// Register tiles of M below which packing B does not pay, likewise.
static constexpr int64_t kPackBMinSweeps = 16;
/// A B block of at least L2 / this is packed over the cores: 64 KiB on
/// Zen 4, ~5 us from L3, above the fork/join of a parallel region.
static constexpr int64_t kParallelPackBFractionOfL2 = 16;

/// k steps per kc block below which a convolution's patches are copied
/// rather than read through its input: there a kc block lies within one
/// tap (kh, kw), so it is at most C long, and every block loads and stores
/// the C register tile once (2 x mr x nr/lanes accesses against
/// mr x nr/lanes x kc FMAs): at kc = 3 (the ResNet stem's channels) that
/// is most of the work, at 16 an eighth.
static constexpr int64_t kMinImplicitConvKc = 16;

bool mlir::tessel::readsConvolutionInput(const MatmulTiling &t,
                                         const MatmulOperands &operands,
                                         std::string *whyNot) {
  int64_t ow = operands.convRowLength, oh = operands.convRows,
          c = operands.convTapLength;
  std::string why;
  llvm::raw_string_ostream os(why);
  if (ow <= 0 || oh <= 0 || c <= 0)
    os << "not a convolution's patches";
  else if (t.packA)
    os << "the model packs A";
  else if (ow % t.mr != 0)
    os << "no register tile of " << t.mr / 2 << " to " << t.mr
       << " rows divides the " << ow << "-pixel output row";
  else if (c % t.kc != 0 || t.kc % t.kr != 0 || t.kc < kMinImplicitConvKc)
    os << "kc blocks within one tap of " << c << " channels would be " << t.kc
       << " k steps long (at least " << kMinImplicitConvKc << " needed)";
  else if (t.mc % ow != 0 || oh % (t.mc / ow) != 0)
    os << "mc (" << t.mc << ") is not whole output rows dividing an image";
  else
    return true;
  if (whyNot)
    *whyNot = why;
  return false;
}

/// Rows beyond M in the last of the mr-row register tiles.
static int64_t padding(int64_t m, int64_t mr) {
  return (m + mr - 1) / mr * mr - m;
}

/// The mr' in [mr/2, mr] whose tiles pad M least (the largest of equals):
/// the largest divisor of M there, when there is one.
static int64_t leastPaddingMr(int64_t m, int64_t mr) {
  int64_t best = mr;
  for (int64_t r = mr - 1; r >= std::max<int64_t>(1, mr / 2); --r)
    if (padding(m, r) < padding(m, best))
      best = r;
  return best;
}

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
                                       MatmulTiling &t, std::string &why,
                                       const MatmulOperands &operands) {
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
  const int64_t vectorsPerRow = 2;
  int64_t accumulators = target.vectorRegisters / 2;
  t.nr = overrides.nr ? roundUp(overrides.nr, lanes) : vectorsPerRow * lanes;
  t.mr = overrides.mr ? overrides.mr
                      : std::max<int64_t>(1, accumulators / (t.nr / lanes));
  // Rows of the last register tile beyond M are computed and thrown away;
  // where that is more than 1/16 of M (49 = 7x7 rows: 7 of 56), a smaller
  // mr down to half the model's that pads less (7) is taken: a few fewer
  // accumulators cost less than the wasted rows.
  if (!overrides.mr && padding(m, t.mr) * 16 > m)
    t.mr = leastPaddingMr(m, t.mr);
  // Likewise a convolution whose register tiles could skip the filter rows
  // their output row reads only as zero padding, where that is 1/16 of the
  // work or more (the 7x7 layers: 2 of 21 (output row, filter row) pairs)
  // and the kc blocks (as computed below) lie within filter rows, more
  // than two of them (the first and last compute every tile): mr down to
  // three quarters of the model's dividing the output row, so that each
  // tile lies in one row (measured on Zen 4, ResNet-50 stage 4 at batch 8:
  // mr 7 with the skip 9% faster than mr 8 without).
  bool mrDividesPaddedRow = false;
  // kc (the kc paragraph below) is needed here, before kr is known: it is
  // rounded to kr = 2, at most one k step shorter than with kr = 1.
  int64_t kcSteps =
      overrides.kc ? overrides.kc : target.l1 / (t.nr * elementBytes);
  int64_t modelKc = std::min(roundDown(kcSteps, 2), roundUp(k, 2));
  if (!overrides.mr && operands.paddedRowLength > 0 &&
      operands.paddingOnlyShare * 16 >= 1 &&
      operands.paddedFilterRowLength % modelKc == 0 && k / modelKc > 2 &&
      operands.paddedRowLength % t.mr != 0) {
    int64_t mr = leastPaddingMr(operands.paddedRowLength, t.mr);
    if (operands.paddedRowLength % mr == 0 && m % mr == 0 &&
        mr * 4 >= t.mr * 3) {
      t.mr = mr;
      mrDividesPaddedRow = true;
    }
  }

  // A packed or read in place. Packing copies each mc x kc block of A into
  // [mc/mr][kc/kr][kr][mr] (a transposing copy, ~1 ns per element
  // measured), and the block is then swept once per B micro-panel: the
  // copy pays only when there are many (nc / nr; at most N / nr). With few
  // columns (convolutions with 64-256 filters: 2-8 micro-panels) the
  // register tiles read A where it is instead: per k step one element of
  // each of mr rows at A's row stride, broadcast straight from memory,
  // streams the hardware prefetcher follows. That needs whole register
  // tiles in M: mr is lowered to the largest divisor of M down to half the
  // model's (7 for 7x7 and 14x14 feature maps), else A is packed.
  // Measured on Zen 4 (docs/CostModels.md): in place with kr = 1 beats
  // packing up to 8 micro-panels (ResNet-50 stage-1 convolutions +5 to
  // +37%) and loses 2% at 32 (1000^3).
  // A convolution's patches read through its input (implicit GEMM) need
  // whole register tiles per output row and k steps per tap instead.
  int64_t sweeps = (n + t.nr - 1) / t.nr;
  bool conv = operands.convRowLength > 0;
  int64_t rowGroup = conv ? operands.convRowLength : m;
  int64_t kGroup = conv ? operands.convTapLength : k;
  t.packA = true;
  if (operands.aRowMajor && (!overrides.kr || kGroup % overrides.kr == 0) &&
      (operands.packA ? operands.packA == 'n' : sweeps < kPackAMinSweeps)) {
    int64_t mr = overrides.mr ? t.mr : leastPaddingMr(rowGroup, t.mr);
    if (rowGroup % mr == 0 && m % mr == 0) {
      t.mr = mr;
      t.packA = false;
    }
  }
  bool implicitConv = conv && !t.packA;
  os << "register tile " << t.mr << "x" << t.nr << ": " << t.mr * (t.nr / lanes)
     << " accumulators of " << target.vectorRegisters << " " << target.vectorBits
     << "-bit registers (half the file), " << t.nr / lanes
     << " vectors per row";
  if (mrDividesPaddedRow && operands.paddedRowLength % t.mr == 0)
    os << " (mr divides the " << operands.paddedRowLength
       << "-pixel output row, so register tiles may skip zero padding)";
  if (implicitConv)
    os << "; A read through the convolution's input (implicit GEMM, not "
          "packed: only "
       << sweeps << " B micro-panels sweep it; register tiles within one "
       << "output row of " << operands.convRowLength << " pixels)";
  else if (!t.packA)
    os << "; A read in place (not packed: only " << sweeps
       << " B micro-panels sweep it)";

  // k unroll-and-jam: two k steps per iteration so the loads of the next
  // step overlap the FMAs of this one; K is padded to a multiple of it. A
  // read in place takes one k step per iteration: its elements are then
  // single loads broadcast from memory (two adjacent ones would be loaded
  // as a pair and split by shuffles, which compete with the FMAs).
  t.kr = overrides.kr ? overrides.kr : t.packA ? 2 : 1;
  os << "; k unrolled by " << t.kr;

  // B packed or read in place, likewise: a packed kc x nc block of B is
  // swept by every register tile of M (M / mr of them). With few (M of a
  // few dozen rows: late-stage convolutions, small-batch MLPs) packing
  // the block costs about what computing with it does, and the register
  // tiles read nr-wide rows of B where they are (two full vectors per k
  // step; rows whose stride maps them to few L1 sets come from L2, which
  // feeds one k step per mr FMAs easily).
  int64_t mTiles = (m + t.mr - 1) / t.mr;
  t.packB = !(operands.bRowMajor && n % t.nr == 0 && k % t.kr == 0 &&
              (operands.packB ? operands.packB == 'n'
                              : mTiles < kPackBMinSweeps));
  if (!t.packB)
    os << "; B read in place (not packed: only " << mTiles
       << " register tiles of M sweep it)";

  // Read in place, B costs one strided row fetch per k step, which the
  // register tile then uses for mr x nr/lanes FMAs. With two vectors per
  // row that is a fetch every 8 FMAs' time or less, which a core issuing
  // two 512-bit FMAs per cycle outruns (measured on Zen 5: ResNet-50's
  // stage-4 1x1 expand at batch 1 and a 64x4096x1024 matmul run 1.3-1.5x
  // faster with four): then the tile takes four vectors per row and as
  // many rows as the file holds beside them and the kr k steps' B vectors
  // (A's elements are broadcast from memory as FMA operands, which x86's
  // AVX-512 FMAs take; other 512-bit ISAs are not measured and keep the
  // narrow tile), down to half that where it pads M less or where A read
  // in place needs whole tiles in its row groups. Only where that feeds
  // more FMAs per B row than the narrow tile and B stays in place with
  // it (fewer than kPackBMinSweeps tiles of M). A's packing stays the
  // narrow tile's decision.
  if (!t.packB && !overrides.nr && !overrides.mr && vectorsPerRow == 2 &&
      target.vectorBits == 512 && n % (4 * lanes) == 0) {
    int64_t wideVectors = 4;
    int64_t maxMr =
        (target.vectorRegisters - wideVectors * t.kr) / wideVectors;
    int64_t mr = 0;
    bool skipsPadding = operands.paddedRowLength > 0 &&
                        operands.paddedRowLength % t.mr == 0;
    if (maxMr >= 4 && (!t.packA || skipsPadding)) {
      // Whole tiles per row group: A's read in place, and the output
      // row's where the narrow tile lies in one and so skips the padding.
      for (int64_t r = maxMr; r * 2 >= maxMr && !mr; --r)
        if (m % r == 0 && (t.packA || rowGroup % r == 0) &&
            (!skipsPadding || operands.paddedRowLength % r == 0))
          mr = r;
    } else if (maxMr >= 4) {
      mr = padding(m, maxMr) * 16 > m ? leastPaddingMr(m, maxMr) : maxMr;
    }
    if (mr && (mr * wideVectors <= t.mr * vectorsPerRow ||
               (m + mr - 1) / mr >= kPackBMinSweeps))
      mr = 0;
    if (mr) {
      t.mr = mr;
      t.nr = wideVectors * lanes;
      kcSteps = overrides.kc ? overrides.kc : target.l1 / (t.nr * elementBytes);
      os << "; so " << wideVectors << " vectors per row, register tile "
         << t.mr << "x" << t.nr << " (" << t.mr * wideVectors
         << " accumulators: each k step's strided B row feeds "
         << t.mr * wideVectors << " FMAs)";
    }
  }

  // kc: the kc x nr micro-panel of packed B is reused by every register tile
  // of an A block, so it should stay in L1; the A micro-panel (mr x kc) is
  // read once per B micro-panel and streams from L2. A deeper kc also loads
  // and stores the C tile less often (once per kc k steps), so the panel
  // takes all of L1 (measured on Zen 4: kc 128 -> 256 -> 512 gains 3% each
  // on 1024^3).
  t.kc = std::min(roundDown(kcSteps, t.kr), roundUp(k, t.kr));
  os << "; kc " << t.kc << ": B micro-panel kc x nr in L1 (" << target.l1
     << " B)";
  // The largest multiple of kr, at most kc, that divides `n` (kr itself
  // when none does).
  auto divisorKc = [&](int64_t n) {
    int64_t kc = std::min(t.kc, n) / t.kr * t.kr;
    while (kc > t.kr && n % kc != 0)
      kc -= t.kr;
    return kc;
  };
  // Read through the input, a kc block is (part of) one tap: the largest
  // multiple of kr that divides C and is at most that.
  if (implicitConv && kGroup % t.kc != 0) {
    t.kc = divisorKc(kGroup);
    os << ", lowered to " << t.kc << " to divide a tap's " << kGroup
       << " channels";
  }
  // Register tiles that skip a padded convolution's padding (tessel-
  // vectorize-matmul's planPaddingSkip: whole tiles per output row, kc
  // blocks within filter rows, more than two) leave out the pixels whose
  // filter column reads only padding only in kc blocks within one tap.
  // Where that is 1/16 of the work or more, kc is lowered to divide the
  // tap's C channels as above: the extra C tile loads and stores per tap
  // cost less (measured on Zen 5, ResNet-50 stage 4 3x3 at batch 8, 2 of 21
  // (output column, filter column) pairs: kc 384 -> 256 7.84 -> 7.17 ms).
  int64_t tap = operands.paddedTapLength;
  if (!implicitConv && !overrides.kc && tap > 0 &&
      operands.paddingOnlyColumnShare * 16 >= 1 && tap % t.kc != 0 &&
      operands.paddedRowLength % t.mr == 0 && m % t.mr == 0) {
    int64_t kc = divisorKc(tap);
    if (tap % kc == 0 && kc * 2 >= t.kc &&
        operands.paddedFilterRowLength % kc == 0 &&
        k / kc > 2) {
      t.kc = kc;
      os << ", lowered to " << t.kc << " to divide a tap's " << tap
         << " channels (register tiles then also skip the columns that read "
            "only padding)";
    }
  }

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
  // The busiest core's share of `panels` register tiles split over the
  // cores, relative to an even split (7 tiles on 2 cores: 4 / 3.5). The nc
  // loop is taken instead of the mc loop when it splits more than 5% more
  // evenly (M of 49 rows, N of 512 columns).
  auto imbalance = [&](int64_t panels) {
    return double((panels + cores - 1) / cores * cores) / double(panels);
  };
  int64_t mPanels = (m + t.mr - 1) / t.mr, nPanels = (n + t.nr - 1) / t.nr;
  char parallel = overrides.parallel;
  if (!parallel) {
    if (cores < 2 || m * n * k / cores < (int64_t(1) << 20))
      parallel = 'x';
    else if (mPanels >= cores &&
             (nPanels < cores ||
              imbalance(mPanels) <= 1.05 * imbalance(nPanels)))
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
       << " columns for " << cores << " cores; "
       << (mPanels < cores ? "M has too few rows" : "it splits more evenly")
       << ")";
  } else {
    os << "; not parallel (" << (cores < 2 ? "one core" : "too little work")
       << ")";
  }
  // Read through the input, an mc block is R whole output rows of one
  // image: the largest R dividing OH with R x OW at most mc (blocks that
  // split evenly above stay even when OH / R does).
  if (implicitConv) {
    int64_t rowLength = operands.convRowLength;
    int64_t rows = std::clamp<int64_t>(t.mc / rowLength, 1, operands.convRows);
    while (rows > 1 && operands.convRows % rows != 0)
      --rows;
    t.mc = rows * rowLength;
    os << "; mc blocks of " << rows << " output row" << (rows > 1 ? "s" : "")
       << " (" << t.mc << " pixels)";
  }

  // Packing per cache block: B's kc x nc block once per (nc, kc) iteration
  // (L3-resident; shared when the mc loop is parallel, each core's own when
  // the nc loop is), A's mc x kc block once per mc iteration (packed by the
  // core that uses it, into its own buffer slot, L2-resident). The B
  // block comes from L3 or memory (a weight matrix is read once per call):
  // packed by one thread, the other cores wait for it, so the cores split
  // it by micro-panels (a second core adds bandwidth too) unless it is so
  // small that the fork/join of a parallel region (a few us) costs about
  // what copying it does: below a sixteenth of L2 (64 KiB on Zen 4, ~5 us
  // from L3). Measured on Zen 4: a 512 KiB block (ResNet-50 stage-4 3x3 at
  // batch 8) packed by one thread took 5% of the 1-thread time, which at 2
  // threads is a serial 10%.
  int64_t bBlockBytes = t.kc * t.nc * elementBytes;
  t.parallelPackB =
      t.packB && t.parallel == 'm' &&
      bBlockBytes * kParallelPackBFractionOfL2 >= target.l2;
  if (t.packB || t.packA)
    os << "; packing per block:";
  if (t.packB)
    os << " B " << t.kc << "x" << t.nc << " per (nc, kc) ("
       << (t.parallelPackB     ? "over the cores"
           : t.parallel == 'n' ? "by the core of its nc block"
                               : "one thread")
       << ")";
  if (t.packA)
    os << (t.packB ? "," : "") << " A " << t.mc << "x" << t.kc
       << " per mc block ("
       << (t.parallel == 'm'   ? "by its core"
           : t.parallel == 'n' ? "by each core for its nc blocks"
                               : "one thread")
       << ")";

  return true;
}

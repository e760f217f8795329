//===- AttentionTiling.cpp - Block and register sizes of fused attention --===//
//
// The kernel computes, per block of Br query rows and per step of Bc keys:
// S = Q K^T (Br x Bc, kept in L1), the running row max and sum, P = exp(S -
// max) in place, and O = alpha O + P V in a Br x Dv accumulator. The two
// products are register-tiled like the matmul kernel (half the register
// file holds accumulators); the softmax work between them is per row and
// costs a fixed part (two reduction trees and one exponential of the
// running max) plus one exponential per score.
//
//===----------------------------------------------------------------------===//
#include "passes/CostModel/AttentionTiling.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <numeric>

using namespace mlir::tessel;

/// The largest r in [1, limit] dividing n.
static int64_t largestDivisorUpTo(int64_t n, int64_t limit) {
  for (int64_t r = std::min(n, limit); r > 1; --r)
    if (n % r == 0)
      return r;
  return 1;
}

/// The largest multiple of `unit` in [unit, limit] dividing n (n is a
/// multiple of unit).
static int64_t largestMultipleDividing(int64_t n, int64_t unit, int64_t limit) {
  for (int64_t c = std::max(unit, limit / unit * unit); c > unit; c -= unit)
    if (n % c == 0)
      return c;
  return unit;
}

bool mlir::tessel::computeAttentionTiling(const CPUModelParams &target,
                                          int64_t batch, int64_t sq,
                                          int64_t d, int64_t skv, int64_t dv,
                                          AttentionTiling &t,
                                          std::string &why) {
  if (target.vectorBits < 32 || target.vectorRegisters < 8 || target.l1 <= 0 ||
      target.l2 <= 0) {
    why = "the target description lacks vector_bits, vector_registers, l1 or "
          "l2";
    return false;
  }
  const int64_t bytes = 4;
  t.lanes = target.vectorBits / 32;
  const int64_t lanes = t.lanes;
  const int64_t accumulators = target.vectorRegisters / 2;
  if (dv % lanes != 0 || skv % lanes != 0) {
    why = "the value width (" + std::to_string(dv) + ") and the key count (" +
          std::to_string(skv) + ") must be multiples of the vector length (" +
          std::to_string(lanes) + "): the kernel has no partial vectors yet";
    return false;
  }
  const int64_t outputVectors = dv / lanes;
  if (outputVectors > accumulators) {
    why = "a row of the output (" + std::to_string(dv) +
          " values) does not fit the half of the register file that holds "
          "accumulators";
    return false;
  }
  std::string text;
  llvm::raw_string_ostream os(text);

  // S = Q K^T: two vectors of keys per row, as the matmul model (loads per
  // head step 2 + rows, FMAs 2 * rows); rows lowered to divide Sq.
  t.scoreCols = skv % (2 * lanes) == 0 ? 2 * lanes : lanes;
  int64_t scoreVectors = t.scoreCols / lanes;
  t.scoreRows = largestDivisorUpTo(sq, accumulators / scoreVectors);
  os << "score tile " << t.scoreRows << "x" << t.scoreCols << " ("
     << t.scoreRows * scoreVectors << " accumulators, half the "
     << target.vectorRegisters << " registers)";
  // O += P V: whole output rows (Dv / lanes vectors each) in registers.
  t.outputRows = largestDivisorUpTo(sq, accumulators / outputVectors);
  os << "; output tile " << t.outputRows << "x" << dv << " ("
     << t.outputRows * outputVectors << " accumulators)";

  // Bc: eight exponential vectors per row and step keep the fixed per-row
  // part of the softmax (two reduction trees, the rescale factor) small
  // against them; capped so that the step's K and V blocks stay in L2
  // (a quarter of it) while every row tile of the block reads them.
  int64_t colsTarget = 8 * lanes;
  int64_t kvRowBytes = (d + dv) * bytes;
  colsTarget = std::min(colsTarget, std::max<int64_t>(
                                        t.scoreCols, target.l2 / 4 / kvRowBytes));
  t.blockCols = largestMultipleDividing(skv, t.scoreCols, colsTarget);
  os << "; key block " << t.blockCols << " (" << t.blockCols / lanes
     << " vectors of exponentials per row and step, K and V blocks "
     << t.blockCols * kvRowBytes / 1024 << " KiB in L2)";

  // Br: the Br x Bc score block in half of L1, rows a multiple of both
  // register tiles and a divisor of Sq; smaller while the parallel loop has
  // fewer than 4 iterations per core.
  // (Both tiles divide Sq, so their lcm does.)
  int64_t unit = std::lcm(t.scoreRows, t.outputRows);
  int64_t rowsTarget =
      std::max(unit, target.l1 / 2 / (t.blockCols * bytes));
  t.blockRows = largestMultipleDividing(sq, unit, rowsTarget);
  int64_t cores = std::max<int64_t>(1, target.cores);
  while (t.blockRows > unit && batch * (sq / t.blockRows) < 4 * cores)
    t.blockRows = largestMultipleDividing(sq, unit, t.blockRows - unit);
  os << "; query block " << t.blockRows << " (score block "
     << t.blockRows * t.blockCols * bytes / 1024 << " KiB in L1, "
     << batch * (sq / t.blockRows) << " parallel iterations)";

  t.unrollHead = d % 4 == 0 ? 4 : d % 2 == 0 ? 2 : 1;
  t.unrollKeys = t.blockCols % 4 == 0 ? 4 : 1;
  t.rationale = text;
  return true;
}

//===- MatmulTiling.h - Analytical tile sizes for matmul on CPUs -*- C++ -*-===//
//
// The cache/register blocking model for a GEMM micro-kernel in the style of
// Goto & van de Geijn / BLIS ("Anatomy of high-performance matrix
// multiplication", 2008; Low et al., "Analytical modeling is enough for
// high-performance BLIS", 2016): every size follows from the target
// description (vector width, vector registers, cache sizes), never from a
// per-shape table or a search.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_COSTMODEL_MATMULTILING_H
#define TESSEL_PASSES_COSTMODEL_MATMULTILING_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace mlir::tessel {

/// What the model reads from #tessel.target (bytes and bits as there).
struct CPUModelParams {
  int64_t vectorBits = 0;
  int64_t vectorRegisters = 0;
  int64_t l1 = 0, l2 = 0, l3 = 0;
  int64_t cacheLine = 0;
  /// Cores parallel loops may use (0 or 1: none). A compile-time hint: the
  /// number of threads is OpenMP's at run time.
  int64_t cores = 0;
};

/// Sizes of C = A(MxK) * B(KxN) blocking, all in elements.
///  - mr x nr: the register tile of C, held in vector registers (nr is a
///    multiple of the vector length) for the whole k loop;
///  - kr: k unroll-and-jam factor and the K padding granularity of packing;
///  - mc x kc: the block of packed A that stays in L2;
///  - kc x nr: the micro-panel of packed B that stays in L1;
///  - kc x nc: the block of packed B that stays in L3.
/// mc, nc and kc are multiples of mr, nr and kr.
///
/// Parallelism: `parallel` names the cache-block loop whose iterations are
/// spread over the cores ('m': the mc loop, 'n': the nc loop, 0: none);
/// mc or nc is then shrunk so that the loop has a multiple of `cores`
/// iterations of nearly equal size.
///
/// Packing is per cache block, as in BLIS: the kc x nc block of B once per
/// (nc, kc) iteration, the mc x kc block of A once per mc iteration, into
/// block-sized buffers reused across iterations. `parallelPackB` says
/// whether the B block is packed over the cores (only with the mc loop
/// parallel: then all threads share it).
///
/// `packA` (`packB`) false: the register tiles read A (B) where it is, its
/// rows at their own stride, instead of a packed copy; see
/// computeMatmulTiling.
struct MatmulTiling {
  int64_t mr = 0, nr = 0, kr = 0;
  int64_t mc = 0, nc = 0, kc = 0;
  char parallel = 0;
  bool parallelPackB = false;
  bool packA = true, packB = true;
  /// One line per size saying where it came from.
  std::string rationale;
};

/// Sizes for an (m x k) * (k x n) product of `elementBytes`-wide elements.
/// Non-zero fields of `overrides` replace the model's choice (then rounded
/// to keep the multiple-of invariants). Returns false with `why` set when
/// the target description lacks what the model needs. `overrides.parallel`
/// is 'm', 'n', 'x' (no parallel loop) or 0 (the model's choice).
/// How the kernel may read the operands, which the sizes do not tell.
struct MatmulOperands {
  /// A (B) is a row-major matrix the kernel could read where it is (not a
  /// transpose). Reading it in place also needs M (N) and K to be
  /// multiples of the register tile.
  bool aRowMajor = false, bRowMajor = false;
  /// 'y': pack, 'n': read in place where possible, 0: the model's choice.
  char packA = 0, packB = 0;
  /// A is the im2col matrix of an NHWC convolution that the kernel can read
  /// through the input instead (implicit GEMM): its rows are `convRows`
  /// output rows of `convRowLength` pixels per image (OH, OW), its columns
  /// taps of `convTapLength` channels (C), contiguous in the input. Read
  /// that way, a register tile lies in one output row (mr divides OW), an
  /// mc block is whole output rows of one image (mc / OW divides OH) and a
  /// kc block lies in one tap (kc divides C). 0: not a convolution.
  int64_t convRowLength = 0, convRows = 0, convTapLength = 0;
  /// A's rows come in output rows of `paddedRowLength` pixels, of which a
  /// fraction `paddingOnlyShare` (per (output row, filter row) pair) reads
  /// only a convolution's zero padding, and its columns in filter rows of
  /// `paddedFilterRowLength` k steps (KW*C): register tiles within one
  /// output row (mr divides it) can skip that work in the kc blocks within
  /// one filter row. Of the (output column, filter column) pairs a
  /// fraction `paddingOnlyColumnShare` reads only padding: register tiles
  /// leave those pixels out in kc blocks within one tap of
  /// `paddedTapLength` channels (C). 0: none.
  int64_t paddedRowLength = 0, paddedFilterRowLength = 0, paddedTapLength = 0;
  double paddingOnlyShare = 0, paddingOnlyColumnShare = 0;
};

/// Whether `t`, computed with `operands`' conv fields set, reads the
/// convolution's patches through its input (implicit GEMM): A in place and
/// the sizes that kernel needs (mr divides OW; mc is whole output rows, a
/// divisor of OH of them; kc divides C, is a multiple of kr and at least
/// kMinImplicitConvKc k steps). Otherwise `whyNot` (when given) says why.
bool readsConvolutionInput(const MatmulTiling &t,
                           const MatmulOperands &operands,
                           std::string *whyNot = nullptr);

bool computeMatmulTiling(const CPUModelParams &target, int64_t m, int64_t n,
                         int64_t k, int64_t elementBytes,
                         const MatmulTiling &overrides, MatmulTiling &result,
                         std::string &why,
                         const MatmulOperands &operands = {});

} // namespace mlir::tessel

#endif // TESSEL_PASSES_COSTMODEL_MATMULTILING_H

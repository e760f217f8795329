//===- GPUThreadLoops.h - A linalg op run by a block's threads -*- C++ -*-===//
//
// Inside a gpu.launch, a linalg op on memrefs becomes loops that the block's
// threads share. Two mappings:
//
//   - per thread: consecutive threads take consecutive iterations of the
//     innermost parallel dimension (row-major memrefs: their accesses
//     coalesce); each runs the op's reduction dimensions alone, its results
//     in registers until the last reduction step;
//   - per warp, for reductions over many iterations with few outputs (a
//     softmax row's max and sum): a warp takes up to four outputs at once,
//     its lanes fold strided shares of their reductions (consecutive lanes
//     on consecutive iterations), and gpu.shuffle combines the lanes'
//     partial results;
//   - per block, for few outputs over long reductions (a tile of a few
//     softmax rows): the whole block takes up to four outputs at once, its
//     warps' results combined through shared memory.
//
// emitBlockReduce combines a whole block's partial results (warps by
// shuffles, then the warps' results through shared memory), for reductions
// without parallel loops (tessel-map-reductions-to-gpu).
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_PASSES_UTILS_GPUTHREADLOOPS_H
#define TESSEL_PASSES_UTILS_GPUTHREADLOOPS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir::tessel {

/// A target's warp size and most threads per block, with NVIDIA's 32 and
/// 1024 where a hand-written #tessel.target leaves them unset (0).
struct GPUBlockLimits {
  int64_t warpSize = 32;
  int64_t maxThreadsPerBlock = 1024;
};
GPUBlockLimits gpuBlockLimits(int64_t warpSize, int64_t maxThreadsPerBlock);

/// How a block's threads share a linalg op.
enum class ThreadMapping { PerThread, PerWarp, PerBlock };

/// How the outputs of a reduction that threads split combine their partial
/// results: each output by an associative, commutative arith kind (a sum,
/// a max), or two outputs together as an arg-reduction (an argmax's value
/// and the index where it first occurs).
class ReductionCombiner {
public:
  /// The next output combines by `kind`.
  void addKind(arith::AtomicRMWKind kind);
  /// Outputs `value` and `index` (positions among the outputs) are an
  /// arg-reduction: the body replaces both when the new value compares
  /// `replaces` (a strict float or integer predicate, new value on its
  /// left) against the output's, or with `nanFirst` also when the new value
  /// is a NaN and the output's is not, so the first iteration holding the
  /// extreme (or the first NaN) wins. Call once for every position of the
  /// pair, in output order.
  void addArgValue(unsigned index, bool isFloat, int64_t predicate,
                   bool nanFirst = false);
  void addArgIndex(unsigned value);

  size_t size() const { return slots.size(); }
  /// The combiner of `times` groups of these outputs side by side (a warp
  /// folding several outputs at once).
  ReductionCombiner repeated(int64_t times) const;
  /// Partial results that change nothing when combined: each kind's
  /// identity; for an arg-reduction the least value in its order (-inf for
  /// a max) at the largest index, which loses every tie.
  SmallVector<Value> identities(OpBuilder &b, Location loc,
                                TypeRange types) const;
  /// Two partial results of disjoint sets of iterations. For an
  /// arg-reduction the better value wins, and of equal values the smaller
  /// index (the first occurrence, as the body's strict comparison keeps;
  /// under nanFirst two NaNs are equal and beat every number): the result does
  /// not depend on the order of the sets, nor on which operand is which.
  SmallVector<Value> combine(OpBuilder &b, Location loc, ValueRange lhs,
                             ValueRange rhs) const;
  /// The outputs' values (`initial`, which the body would see before the
  /// first iteration) combined with the totals of all iterations: an
  /// arg-reduction's total replaces the output only where the body's
  /// comparison says so.
  SmallVector<Value> combineAfter(OpBuilder &b, Location loc,
                                  ValueRange initial, ValueRange totals) const;

private:
  struct Slot {
    enum class Role { Kind, ArgValue, ArgIndex } role = Role::Kind;
    arith::AtomicRMWKind kind = arith::AtomicRMWKind::addf;
    /// Arg-reductions: the position of the pair's other output.
    unsigned partner = 0;
    bool isFloat = false;
    /// arith::CmpFPredicate or arith::CmpIPredicate (ArgValue).
    int64_t predicate = 0;
    /// A NaN counts beyond every number (ArgValue of a float).
    bool nanFirst = false;
  };
  /// Whether the arg-reduction's `newValue` replaces `oldValue`.
  Value replaces(OpBuilder &b, Location loc, const Slot &slot, Value newValue,
                 Value oldValue) const;
  SmallVector<Slot> slots;
};

/// How the outputs of `op` combine when every output is a reduction that
/// threads may split and recombine, and its element type is i1, i8, i16,
/// i32, i64, f16, bf16, f32 or f64 (narrower than 32 bits shuffled in an
/// i32). Either the output's value is used only by one associative,
/// commutative arith op (add, mul, min, max, and, or, xor) whose result is
/// yielded for it, or two outputs are an arg-reduction over the op's one
/// reduction loop: one yields `select(c, x, value)`, the other
/// `select(c, index_cast(linalg.index r), index)`, c comparing x against
/// the value by ogt, olt, sgt, slt, ugt or ult (the first occurrence of
/// the maximum or minimum; x not computed from the outputs), or for floats
/// `(x ogt value) or (x is NaN and value is not)` (olt likewise: PyTorch's,
/// NumPy's and JAX's rule, the first NaN wins), the index
/// output holding every position (64 bits, or 32 with a static count below
/// 2^31 - 1).
/// std::nullopt otherwise, with `why` set.
std::optional<ReductionCombiner> matchSplittableReduction(linalg::LinalgOp op,
                                                          std::string &why);

/// The number of parallel (reduction) iterations of `op` at most: the
/// product of those loops' static upper bounds, or 0 when one is unbounded.
int64_t parallelIterationBound(linalg::LinalgOp op);
int64_t reductionIterationBound(linalg::LinalgOp op);

/// The mapping for `op` in a block of `threads` threads: the one whose
/// busiest thread waits the fewest cycles, for P outputs and R reduction
/// iterations, with a warp or a block folding J outputs at once
/// (outputsPerGroup). A fold of n iterations per thread and output keeps
/// J · 4 loads in flight (four chains per output) and waits ⌈n / 4⌉ times
/// for a load: `memoryLatency` cycles when an input the reduction streams
/// is in global memory (600 when 0), 30 when all are in shared memory. Per
/// thread: ⌈P / threads⌉ reductions of R, one wait when R ≤ 16 (unrolled),
/// else one per iteration; per warp: ⌈⌈P / warps⌉ / J⌉ folds of
/// ⌈R / warpSize⌉ and a shuffle tree; per block: ⌈P / J⌉ folds of
/// ⌈R / threads⌉, two shuffle trees and two barriers. Per warp and per
/// block only for splittable reductions. CostModels.md has the constants.
ThreadMapping chooseThreadMapping(linalg::LinalgOp op, int64_t threads,
                                  int64_t warpSize, int64_t memoryLatency = 0,
                                  bool perBlockAllowed = true);

/// Outputs a warp (per warp) or the block (per block) folds at once in
/// `mapping`: at most 4 (2 when an output is 64 bits wide), at most the
/// outputs there are (per warp, each warp's share); 1 per thread. Per block,
/// the scratch distributeOverThreads needs holds one slot per warp for each of
/// these outputs' values.
int64_t outputsPerGroup(linalg::LinalgOp op, ThreadMapping mapping,
                        int64_t threads, int64_t warpSize);

/// The threads `op` asks for in a block of at most `maxThreads`: a warp per
/// output where it would reduce per warp, else a quarter of its parallel
/// iterations (each thread taking four, which hides some of the loads'
/// latency behind the others).
int64_t wantedThreads(linalg::LinalgOp op, int64_t maxThreads, int64_t warpSize,
                      int64_t memoryLatency = 0);

/// Replaces `op` (buffer semantics) by loops that the block's `threads`
/// threads (a multiple of `warpSize`) share, `tid` being the thread's index,
/// with the mapping chooseThreadMapping picks. Per block needs `scratch`:
/// for each of the outputsPerGroup outputs folded at once and each output
/// operand (that order), a shared memref of one element per warp (else per
/// warp is used). A non-null `initialValues[i]` is output i's value everywhere
/// (a fill folded away): used instead of loading the output. Returns the
/// mapping used; fails (IR unchanged) when `op` cannot be generalized.
/// Every thread of the block must reach the loops (per block holds
/// barriers).
/// Per thread, `rowsPerThread` > 1 has each thread take that many
/// consecutive rows (iterations of the second-innermost parallel loop) at
/// once, their bodies jammed into the reduction loops, and
/// `columnsPerThread` > 1 that many consecutive columns (iterations of the
/// innermost parallel loop) of each row. `splitReductions` false keeps
/// every reduction within one thread (per thread) whatever the model says.
FailureOr<ThreadMapping> distributeOverThreads(
    RewriterBase &rewriter, linalg::LinalgOp op, Value tid, int64_t threads,
    int64_t warpSize, ArrayRef<Value> scratch = {},
    ArrayRef<Value> initialValues = {}, int64_t rowsPerThread = 1,
    int64_t memoryLatency = 0, int64_t columnsPerThread = 1,
    bool splitReductions = true);

/// What chooseRowsPerThread knows of the kernel and the target.
struct RowsPerThreadModel {
  /// Threads per block.
  int64_t threads = 0;
  /// Threads resident on one multiprocessor (blocks that fit, times
  /// `threads`).
  int64_t residentThreads = 0;
  /// Bytes a multiprocessor must have in flight to keep device memory busy:
  /// its load latency times its share of the bandwidth (Little's law); 0
  /// when the target does not say.
  int64_t bytesInFlight = 0;
  /// The target's global-load latency in cycles (0: not stated), which
  /// chooseThreadMapping weighs.
  int64_t memoryLatency = 0;
};

/// Rows per thread for `op` run per thread (distributeOverThreads), a power
/// of two up to 8. Two reasons to take several: loads in flight, U rows'
/// loads issued before the first is used, where the op reads global memory
/// (U such that the resident threads' rows hold `bytesInFlight`); and reuse,
/// where an input's row index moves with a reduction loop (a vertical
/// stencil of K taps reads (U + K - 1) rows for U outputs instead of U K):
/// four. At most the rows there are, and few enough that every thread of
/// the block gets a row group. 1 for ops that reduce per warp or per block
/// or have one parallel loop. Outputs with an initial value (a fill
/// folded away) are not read.
/// With `columnsPerThread` (chooseColumnsPerThread), a row's loads of the
/// operands along the columns move that many elements each.
int64_t chooseRowsPerThread(linalg::LinalgOp op,
                            const RowsPerThreadModel &model, int64_t warpSize,
                            ArrayRef<Value> initialValues = {},
                            int64_t columnsPerThread = 1);

/// Columns per thread for `op` run per thread by a block of `threads`
/// (distributeOverThreads), inside the gpu.launch of a tile: consecutive
/// iterations of the innermost parallel loop that one thread takes, so that
/// its accesses to each operand indexed by that loop are one 16-byte vector
/// access (ld.global.v4.b32; LLVM's load/store vectorizer forms them, from
/// annotateAccessAlignment's alignments) and a
/// warp's accesses still cover consecutive bytes. 16 bytes over the widest
/// such element (4 for f32), halved until every such operand takes the
/// loop as the unit-stride innermost index plus reduction loops, its runs
/// start aligned (offsetFromBase) in a buffer that is itself aligned (an
/// entry point's argument or a device allocation, by the GPU ABI, or a
/// tile buffer in shared memory), and every
/// thread of the block keeps a column group. 1 for ops not run per thread.
int64_t chooseColumnsPerThread(linalg::LinalgOp op, int64_t threads,
                               int64_t warpSize, int64_t memoryLatency = 0);

/// Gives each memref.load and memref.store under `root` the alignment its
/// address is known to have, in bytes, where that is more than its
/// element's: the buffer it views starts aligned (an entry point's
/// argument or device allocation by the GPU ABI, a tile buffer by its
/// shift in shared memory) and its offset from there is a known multiple
/// (offsetFromBase). LLVM cannot see either through a kernel's memref
/// descriptors; with it, its load/store vectorizer joins a thread's
/// adjacent accesses into one (chooseColumnsPerThread).
void annotateAccessAlignment(Operation *root);

/// Bytes of one warp's slot for a reduction result of `type` in shared
/// memory: its size rounded up to whole bytes (an i1 takes one).
int64_t reductionSlotBytes(Type type);

/// Combines `values` (one per output of `combiner`) across the lanes of each
/// warp by butterfly shuffles: every lane gets its warp's result.
SmallVector<Value> emitWarpReduce(OpBuilder &b, Location loc,
                                  const ReductionCombiner &combiner,
                                  ValueRange values, int64_t warpSize);

/// Folds iterations [begin, end) in a block of `threads` threads: thread t
/// takes begin + t, begin + t + threads, ..., `step` folding iteration r
/// into the thread's partial results (one per output of `combiner`,
/// starting from its identities); then warps combine by shuffles and the
/// warps' results go through `scratch` (per output, a shared memref of one
/// element per warp). Returns the block's results, the same in every thread.
/// Every thread of the block must reach it (it holds a gpu.barrier). With
/// `groupWidth` > 1 (`begin` 0, `end` a multiple of it), thread t takes
/// groups of that many adjacent iterations instead: t, t + threads, ...
/// in group numbers.
using ReductionStep = function_ref<SmallVector<Value>(
    OpBuilder &, Location, Value iteration, ValueRange partials)>;
SmallVector<Value> emitBlockReduce(OpBuilder &b, Location loc,
                                   const ReductionCombiner &combiner,
                                   TypeRange types, Value tid, int64_t threads,
                                   int64_t warpSize, Value begin, Value end,
                                   ArrayRef<Value> scratch, ReductionStep step,
                                   int64_t groupWidth = 1);

/// `op` as a linalg.generic (itself, or generalized in its place).
FailureOr<linalg::GenericOp> asGeneric(RewriterBase &rewriter,
                                       linalg::LinalgOp op);

/// The element types of `op`'s outputs, in order.
SmallVector<Type> outputElementTypes(linalg::LinalgOp op);

/// Where `index` is 0 (thread 0, or a warp's first lane): the outputs of
/// `op` at loop indices `ivs` combined with `totals`
/// (ReductionCombiner::combineAfter), stored; output i's value is
/// `initialValues[i]` where given, else loaded.
void emitCombineIntoOutputs(OpBuilder &b, Location loc, linalg::GenericOp op,
                            const ReductionCombiner &combiner,
                            ValueRange totals, ArrayRef<Value> ivs, Value index,
                            ArrayRef<Value> initialValues = {});

/// The body of `op` at its linearized reduction iteration `iteration`
/// (innermost loop fastest), the outputs' values being `accs`: what it
/// yields. `sizes` are the op's loop sizes; `outputIvs` (from
/// parallelLoopIndices) fix the parallel loops, and may be empty for an op
/// without them.
SmallVector<Value> emitReductionBody(OpBuilder &b, Location loc,
                                     linalg::GenericOp op,
                                     ArrayRef<Value> sizes, Value iteration,
                                     ValueRange accs,
                                     ArrayRef<Value> outputIvs = {});

/// Loop indices of `op` (one per loop) for its linearized parallel
/// iteration `output` (innermost parallel loop fastest); reduction loops at
/// 0.
SmallVector<Value> parallelLoopIndices(OpBuilder &b, Location loc,
                                       linalg::LinalgOp op,
                                       ArrayRef<Value> sizes, Value output);

/// Whether every output of `op` is indexed by each parallel loop once (and
/// constants) and by no reduction loop, so that each parallel iteration
/// owns its output elements: blocks of different parallel iterations never
/// combine into one element. Without parallel loops: all indices constant.
bool ownsOutputsPerParallelIteration(linalg::LinalgOp op);

/// Whether a GPU had better split `op`'s reductions over several blocks per
/// output (tessel-map-reductions-to-gpu) than give each output, or each
/// tile of outputs, one block or one thread: a splittable reduction with
/// static bounds whose outputs a parallel iteration owns
/// (ownsOutputsPerParallelIteration), fewer parallel iterations than two
/// blocks per SM of
/// `smCount`, and at least `threadsPerBlock` reduction iterations.
bool prefersSplitOverBlocks(linalg::LinalgOp op, int64_t smCount,
                            int64_t threadsPerBlock = 256);

} // namespace mlir::tessel

#endif // TESSEL_PASSES_UTILS_GPUTHREADLOOPS_H

#!/usr/bin/env bash
# Builds what the attention benchmark needs (Tessel, tessel-compile,
# tessel-attention-bench) and runs the harness; every argument goes to
# tessel-attention-bench.
#
#   utils/bench/run-attention-bench.sh [tessel-attention-bench options]
#   utils/bench/run-attention-bench.sh --shapes 8x2048x64 --threads 1 --reps 3
#   utils/bench/run-attention-bench.sh --json build/bench-attention/results.json
#
# Generated .mlir/.so/.log files go to <build>/bench-attention. Environment:
# TESSEL_BUILD_DIR (default: <repo>/build); CC/CXX for a fresh configure
# (default clang-22 / clang++-22); TESSEL_BENCH_SKIP_BUILD=1 runs what is
# already built.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"

if [[ "${TESSEL_BENCH_SKIP_BUILD:-0}" == 1 ]]; then
  [[ -x "$BUILD/bin/tessel-attention-bench" ]] || {
    echo "run-attention-bench.sh: $BUILD/bin/tessel-attention-bench not built" >&2; exit 1; }
else
  if [[ ! -f "$BUILD/build.ninja" ]]; then
    cmake -G Ninja -S "$ROOT" -B "$BUILD" \
      -DCMAKE_C_COMPILER="${CC:-clang-22}" -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" >/dev/null
  fi
  # tessel-attention-bench is EXCLUDE_FROM_ALL; naming it builds it.
  ninja -C "$BUILD" tessel-compile tessel-attention-bench Tessel >&2
fi

exec "$BUILD/bin/tessel-attention-bench" \
  --tessel-compile "$BUILD/bin/tessel-compile" \
  --work-dir "$BUILD/bench-attention" \
  "$@"

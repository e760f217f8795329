#!/usr/bin/env bash
# Builds what the CPU benchmark needs (Tessel, tessel-compile, tessel-bench)
# and runs the harness; every argument goes to tessel-bench.
#
#   utils/bench/run-cpu-bench.sh [tessel-bench options]
#   utils/bench/run-cpu-bench.sh --only matmul --sizes 256,1024 --threads 1
#   utils/bench/run-cpu-bench.sh --skip-large --json build/bench-cpu/results.json
#   utils/bench/run-cpu-bench.sh --help
#
# Generated modules, .so files and compile logs go to <build>/bench-cpu.
# Environment: TESSEL_BUILD_DIR (default: <repo>/build); CC/CXX for a fresh
# configure (default clang-22 / clang++-22); TESSEL_BENCH_SKIP_BUILD=1 runs
# what is already built (e.g. while someone's half-done change breaks the
# build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"

if [[ "${TESSEL_BENCH_SKIP_BUILD:-0}" == 1 ]]; then
  [[ -x "$BUILD/bin/tessel-bench" ]] || {
    echo "run-cpu-bench.sh: $BUILD/bin/tessel-bench not built" >&2; exit 1; }
elif [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_C_COMPILER="${CC:-clang-22}" -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" >/dev/null
fi
if [[ "${TESSEL_BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  # tessel-bench is EXCLUDE_FROM_ALL; naming it builds it (ninja re-runs
  # cmake first when a CMakeLists.txt changed).
  ninja -C "$BUILD" tessel-compile tessel-bench Tessel >&2
fi

exec "$BUILD/bin/tessel-bench" \
  --tessel-compile "$BUILD/bin/tessel-compile" \
  --work-dir "$BUILD/bench-cpu" \
  "$@"

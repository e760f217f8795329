#!/usr/bin/env bash
# Builds what the image-pipeline benchmark needs (Tessel, tessel-compile,
# tessel-image-bench, and the Halide variants when Halide 14 is installed)
# and runs the harness; every argument goes to tessel-image-bench.
#
#   utils/bench/run-image-bench.sh [tessel-image-bench options]
#   utils/bench/run-image-bench.sh --only blur_x_blur_y --threads 1 --reps 3
#   utils/bench/run-image-bench.sh --json build/bench-image/results.json
#   utils/bench/run-image-bench.sh --help
#
# Tessel's .so/.h/.log files go to <build>/bench-image, the Halide variants
# to <build>/bench-image-halide. Environment: TESSEL_BUILD_DIR (default:
# <repo>/build); CC/CXX for a fresh configure (default clang-22 /
# clang++-22); TESSEL_BENCH_SKIP_BUILD=1 runs what is already built (e.g.
# while someone's half-done change breaks the build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"

if [[ "${TESSEL_BENCH_SKIP_BUILD:-0}" == 1 ]]; then
  [[ -x "$BUILD/bin/tessel-image-bench" ]] || {
    echo "run-image-bench.sh: $BUILD/bin/tessel-image-bench not built" >&2; exit 1; }
elif [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_C_COMPILER="${CC:-clang-22}" -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" >/dev/null
fi
if [[ "${TESSEL_BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  # Both targets are EXCLUDE_FROM_ALL; naming them builds them (ninja re-runs
  # cmake first when a CMakeLists.txt changed).
  ninja -C "$BUILD" tessel-compile tessel-image-bench Tessel >&2
  # The Halide variants are optional: the harness reports the missing ones.
  if ninja -C "$BUILD" -t query tessel-image-bench-halide >/dev/null 2>&1; then
    ninja -C "$BUILD" tessel-image-bench-halide >&2 ||
      echo "run-image-bench.sh: the Halide variants did not build; running without them" >&2
  else
    echo "run-image-bench.sh: no Halide 14 in this build; running without Halide" >&2
  fi
fi

exec "$BUILD/bin/tessel-image-bench" \
  --tessel-compile "$BUILD/bin/tessel-compile" \
  --work-dir "$BUILD/bench-image" \
  --source-dir "$ROOT" \
  "$@"

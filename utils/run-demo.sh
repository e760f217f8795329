#!/usr/bin/env bash
# Tessel demo: builds what it needs, compiles utils/demo/{matmul,blur_x_blur_y}.mlir
# with tessel-compile for the CPU, and runs tessel-demo, which checks each
# result against a double-precision reference and times it against plain C.
#
#   utils/run-demo.sh [--runs=N] [--build-dir=DIR] [--skip-setup]
#
# Environment: TESSEL_BUILD_DIR (default: <repo>/build), CC/CXX for a fresh
# configure (default clang-22 / clang++-22).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"
RUNS=10
SETUP=1
for arg in "$@"; do
  case "$arg" in
    --runs=*) RUNS="${arg#--runs=}" ;;
    --build-dir=*) BUILD="${arg#--build-dir=}" ;;
    --skip-setup) SETUP=0 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "run-demo.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

step() { printf '\n==> %s\n' "$*"; }

if [[ $SETUP == 1 ]]; then
  step "utils/setup.sh (packages, configure $BUILD)"
  TESSEL_BUILD_DIR="$BUILD" bash "$ROOT/utils/setup.sh"
else
  step "configure ($BUILD)"
  if [[ -f "$BUILD/CMakeCache.txt" ]]; then
    cmake "$BUILD" > /dev/null
  else
    cmake -G Ninja -S "$ROOT" -B "$BUILD" \
      -DCMAKE_C_COMPILER="${CC:-clang-22}" -DCMAKE_CXX_COMPILER="${CXX:-clang++-22}" > /dev/null
  fi
fi

step "build tessel-compile, tessel_runtime, tessel-demo"
cmake --build "$BUILD" --target tessel-compile tessel_runtime tessel-demo

OUT="$BUILD/demo"
mkdir -p "$OUT"
for w in matmul blur_x_blur_y; do
  step "tessel-compile utils/demo/$w.mlir --target=cpu -o $OUT/$w.so"
  "$BUILD/bin/tessel-compile" "$ROOT/utils/demo/$w.mlir" --target=cpu \
    -o "$OUT/$w.so" --time-stages 2> "$OUT/$w.timing.txt" || {
      cat "$OUT/$w.timing.txt" >&2; exit 1; }
  grep -E 'total|LLVM optimize|codegen|link' "$OUT/$w.timing.txt" | sed 's/^/    /'
done

step "tessel-demo (median of $RUNS runs)"
"$BUILD/bin/tessel-demo" --matmul="$OUT/matmul.so" --blur="$OUT/blur_x_blur_y.so" --runs="$RUNS"

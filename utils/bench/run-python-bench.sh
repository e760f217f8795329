#!/usr/bin/env bash
# Tessel through torch.compile vs PyTorch eager and Inductor, in one process.
#   utils/bench/run-python-bench.sh [--reps N] [--json out.json] [--only blur,mlp,resnet50]
# Set TESSEL_BENCH_SKIP_BUILD=1 to skip setup and build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"
if [ -z "${TESSEL_BENCH_SKIP_BUILD:-}" ]; then
  "$root/utils/setup.sh"
  ninja -C "$build" TesselCompiler
fi
export TESSEL_BUILD_DIR="$build"
exec "${TESSEL_VENV:-$root/.venv}/bin/python" "$root/utils/bench/frameworks_bench.py" "$@"

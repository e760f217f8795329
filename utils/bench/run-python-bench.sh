#!/usr/bin/env bash
# Tessel from PyTorch, JAX and TensorFlow vs each framework's eager and JIT
# backends and IREE, in one process (frameworks_bench.py says what runs).
#   utils/bench/run-python-bench.sh [--reps N] [--json out.json] [--only torch:blur,jax,...]
# Set TESSEL_BENCH_SKIP_BUILD=1 to skip setup and build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"
if [ -z "${TESSEL_BENCH_SKIP_BUILD:-}" ]; then
  "$root/utils/setup.sh"
  "${TESSEL_VENV:-$root/.venv}/bin/pip" install -q -r "$root/python/requirements-bench.txt"
  ninja -C "$build" TesselCompiler
fi
export TESSEL_BUILD_DIR="$build"
exec "${TESSEL_VENV:-$root/.venv}/bin/python" "$root/utils/bench/frameworks_bench.py" "$@"

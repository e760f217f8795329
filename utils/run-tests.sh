#!/usr/bin/env bash
# Sets everything up, builds what the tests need and runs the whole lit suite.
# Then the Python package's tests (pytest). Prints both reports and one
# closing line 'tests: N passed, N failed, N skipped' over both.
# Exits non-zero when any test fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"

"$root/utils/setup.sh"
# Only what the suite runs (tessel-test-deps), not the benchmarks.
ninja -C "$build" tessel-test-deps

log="$build/test-results.log"
set +e
/usr/lib/llvm-22/bin/lit -sv --time-tests "$build/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# lit's summary lines look like '  Passed     : 12 (80.00%)'.
count() {
  local n
  n=$(sed -nE "s/^ *$1 *: *([0-9]+).*/\1/p" "$log" | head -n 1)
  echo "${n:-0}"
}
passed=$(( $(count Passed) + $(count 'Expectedly Failed') ))
failed=$(( $(count Failed) + $(count 'Unexpectedly Passed') + $(count Unresolved) + $(count 'Timed Out') ))
skipped=$(( $(count Unsupported) + $(count Excluded) ))

# Python: pytest's last line looks like '3 failed, 20 passed, 1 skipped in 5s'.
# (python/tests/conftest.py imports torch._dynamo before TensorFlow loads:
# the other order aborts in Triton's LLVM.)
venv="${TESSEL_VENV:-$root/.venv}"
pylog="$build/python-test-results.log"
set +e
(cd "$root/python" && TESSEL_BUILD_DIR="$build" "$venv/bin/python" -m pytest -q -p no:cacheprovider tests) 2>&1 | tee "$pylog"
pystatus=${PIPESTATUS[0]}
set -e
pycount() {
  local n
  n=$(tail -n 1 "$pylog" | grep -oE "[0-9]+ $1" | grep -oE "^[0-9]+" | head -n 1)
  echo "${n:-0}"
}
passed=$(( passed + $(pycount passed) ))
failed=$(( failed + $(pycount failed) + $(pycount error) ))
skipped=$(( skipped + $(pycount skipped) ))
if [ "$pystatus" -ne 0 ] && [ "$(pycount failed)" -eq 0 ] && [ "$(pycount error)" -eq 0 ]; then
  failed=$(( failed + 1 ))  # pytest itself failed (collection, crash, no tests)
fi
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
if [ "$status" -ne 0 ]; then exit "$status"; fi
exit "$pystatus"

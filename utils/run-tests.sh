#!/usr/bin/env bash
# Sets everything up, builds what the tests need and runs the whole lit suite.
# Prints lit's report and one closing line 'tests: N passed, N failed, N skipped'.
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
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$status"

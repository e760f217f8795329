#!/usr/bin/env bash
# Same-run A/B of a compiler change on the per-channel window workloads of
# utils/bench/windows/windows.mlir (ResNet-50's max pool after the stem and
# a 3x3 depthwise convolution, batch 1 and 8): builds them with the CPU
# pipeline (A) and with the pipeline edited by a sed expression (B), then
# times both in one process, interleaved (tessel-ab, median of rounds).
#
#   utils/bench/run-window-ab.sh SED [ROUNDS] [THREADS]
#   utils/bench/run-window-ab.sh \
#     's/tessel-convert-conv-to-matmul/&{generalize-windows=false}/' 7 1,2
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"
SED="${1:?usage: run-window-ab.sh SED [ROUNDS] [THREADS]}"
ROUNDS="${2:-7}"
THREADS="${3:-1,2}"
ninja -C "$BUILD" tessel-compile tessel-ab >/dev/null
TC="$BUILD/bin/tessel-compile"
SRC="$ROOT/utils/bench/windows/windows.mlir"
OUT="$BUILD/bench-ab"
mkdir -p "$OUT"
P=$("$TC" --print-pipeline --target=cpu)
EDITED=$(sed "$SED" <<<"$P")
[[ "$EDITED" != "$P" ]] || { echo "run-window-ab.sh: '$SED' changes nothing in the pipeline" >&2; exit 2; }
"$TC" "$SRC" --target=cpu -o "$OUT/windows.a.so" --no-header
"$TC" "$SRC" --target=cpu -o "$OUT/windows.b.so" --no-header --pass-pipeline="$EDITED"
echo "A: the CPU pipeline; B: edited by '$SED'"
for b in 1 8; do
  "$BUILD/bin/tessel-ab" "$OUT/windows.a.so" "$OUT/windows.b.so" "maxpool_b$b" \
    "${b}x112x112x64" - "${b}x56x56x64" $((80 / b)) "$ROUNDS" "$THREADS"
  "$BUILD/bin/tessel-ab" "$OUT/windows.a.so" "$OUT/windows.b.so" "depthwise_b$b" \
    "${b}x56x56x128" 3x3x128 "${b}x56x56x128" $((80 / b)) "$ROUNDS" "$THREADS"
done

#!/usr/bin/env bash
# tessel-compile with the target's pipeline (--target=..., default cpu)
# edited by the sed expression in
# TESSEL_PIPELINE_SED: for a harness's --tessel-compile option, so the
# harness builds its Tessel variants with a changed pipeline (the B side of
# an A/B), both when it asks for --print-pipeline and when it compiles with
# the default pipeline.
#
#   TESSEL_PIPELINE_SED='s/, tessel-prefetch-next-tile//' \
#     build/bin/tessel-image-bench --only harris,unsharp --threads 1,2 \
#     --reps 5 --tessel-compile utils/bench/tessel-compile-edited.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TC="${TESSEL_COMPILE:-${TESSEL_BUILD_DIR:-$ROOT/build}/bin/tessel-compile}"
edit="${TESSEL_PIPELINE_SED:?set TESSEL_PIPELINE_SED to a sed expression}"
# The pipeline of the --target=... among the arguments (cpu when none).
target=cpu
for arg in "$@"; do
  [[ "$arg" == --target=* ]] && target="${arg#--target=}"
done
edited_pipeline() {
  local printed edited
  printed=$("$TC" --print-pipeline --target="$target")
  edited=$(sed "$edit" <<<"$printed")
  [[ "$edited" != "$printed" ]] || {
    echo "tessel-compile-edited.sh: '$edit' changes nothing in the pipeline" >&2
    exit 2
  }
  printf '%s\n' "$edited"
}
for arg in "$@"; do
  [[ "$arg" == --print-pipeline ]] && { edited_pipeline; exit; }
done
for arg in "$@"; do
  [[ "$arg" == --pass-pipeline=* ]] && exec "$TC" "$@"
done
pipeline=$(edited_pipeline)
exec "$TC" "$@" --pass-pipeline="$pipeline"

#!/usr/bin/env bash
# Same-run A/B of a compiler change on one convolution or matmul workload:
# builds the workload (as tessel-bench generates it) with the CPU pipeline (A) and with
# the pipeline edited by a sed expression (B), then times both in one
# process, interleaved (tessel-ab, median of rounds).
#
#   utils/bench/run-conv-ab.sh LAYER BATCH SED [CALLS] [ROUNDS] [THREADS]
#   utils/bench/run-conv-ab.sh s1_3x3 1 \
#     's/tessel-convert-conv-to-matmul/tessel-convert-conv-to-matmul{implicit-gemm=false}/' 200 3 1,2
#   utils/bench/run-conv-ab.sh s4_3x3 1 's/, tessel-prefetch-kernel-rows//' 300 3 1,2
#   utils/bench/run-conv-ab.sh 1024x1024x1024 - 's/tessel-vectorize-matmul/&{kc=256}/' 10 5 1
#
# LAYER is a tessel-bench conv-nhwc shape name or a matmul MxNxK (BATCH is
# then ignored; see tessel-bench --list).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${TESSEL_BUILD_DIR:-$ROOT/build}"
[[ $# -ge 3 ]] || { sed -n '2,16p' "$0" >&2; exit 2; }
layer=$1 batch=$2 edit=$3 calls=${4:-100} rounds=${5:-5} threads=${6:-1,2}
ninja -C "$BUILD" tessel-compile tessel-bench tessel-ab Tessel >&2
work="$BUILD/bench-ab"
mkdir -p "$work"
if [[ "$layer" =~ ^[0-9]+x[0-9]+x[0-9]+$ ]]; then
  name="matmul_$layer" select=(--only matmul --sizes "$layer")
else
  name="conv_nhwc_${layer}_b${batch}"
  select=(--only conv-nhwc --sizes "$layer" --batch "$batch")
fi
# tessel-bench writes the workload's module while compiling it.
"$BUILD/bin/tessel-bench" "${select[@]}" --threads 1 --reps 1 --min-time 0 \
  --work-dir "$work" >/dev/null 2>&1
[[ -f "$work/$name.mlir" ]] || { echo "run-conv-ab.sh: tessel-bench wrote no $name.mlir" >&2; exit 2; }
tc="$BUILD/bin/tessel-compile"
pipeline=$("$tc" --target=cpu --print-pipeline)
edited=$(sed "$edit" <<<"$pipeline")
[[ "$edited" != "$pipeline" ]] || { echo "run-conv-ab.sh: '$edit' changes nothing in the pipeline" >&2; exit 2; }
"$tc" "$work/$name.mlir" -o "$work/$name.a.so" --no-header
"$tc" "$work/$name.mlir" -o "$work/$name.b.so" --no-header --pass-pipeline="$edited"
# The shapes from the function's signature: (x, w) -> y.
sig=$(grep -m1 "func.func @$name" "$work/$name.mlir")
mapfile -t shapes < <(grep -o 'tensor<[0-9x]*xf32>' <<<"$sig" | sed 's/tensor<\(.*\)xf32>/\1/')
echo "A: the CPU pipeline; B: edited by '$edit'"
exec "$BUILD/bin/tessel-ab" "$work/$name.a.so" "$work/$name.b.so" "$name" \
  "${shapes[0]}" "${shapes[1]}" "${shapes[2]}" "$calls" "$rounds" "$threads"

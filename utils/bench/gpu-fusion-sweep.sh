#!/usr/bin/env bash
# Times the fused kernels of gpu_fusion_bench.py (blur_x_blur_y, softmax,
# layernorm) at forced threads per block, rows and columns per thread
# beside the model's choice: the measurements behind
# tessel-map-tiles-to-gpu's block size, rows-per-thread and
# columns-per-thread models. Variants: model, 512 and 1024 threads, rows1
# (one row per thread, the kernels before the rows model) and rows4, rows8
# (every per-thread op at 4 or 8 rows), cols1 (one column per thread:
# scalar loads; the kernels before 128-bit accesses), and occ0 (each kernel's
# register limit only what one block needs, as before streaming kernels
# aimed at several blocks per SM). Two halves, like
# run-gpu-bench.sh:
#
#   utils/bench/gpu-fusion-sweep.sh --build DIR [--chip sm_90a]
#       (here, after run-gpu-bench.sh --build DIR, whose DIR/src holds the
#       workloads) one kernel directory per variant under DIR/fusion-sweep;
#   utils/bench/gpu-fusion-sweep.sh --run DIR [--reps N]
#       (GPU machine) gpu_fusion_bench.py on each variant.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"
mode="" dir="" chip="sm_90a" reps=21
while (($#)); do
  case "$1" in
    --build) mode=build; dir="$2"; shift 2 ;;
    --run) mode=run; dir="$2"; shift 2 ;;
    --chip) chip="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    *) echo "usage: $0 --build DIR [--chip CHIP] | --run DIR [--reps N]" >&2; exit 2 ;;
  esac
done
[[ -n "$mode" && -n "$dir" ]] || { echo "usage: $0 --build DIR | --run DIR" >&2; exit 2; }
variants=(model 512 1024 rows1 rows4 rows8 cols1 occ0)
if [[ "$mode" == build ]]; then
  tc="$build/bin/tessel-compile"
  dir="$(cd "$dir" && pwd)"
  src="$dir/src"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  base=$("$tc" --print-pipeline --target=nvgpu)
  base=${base/tessel-attach-target\{kind=nvgpu\}/tessel-attach-target\{kind=nvgpu chip=$chip\}}
  for v in "${variants[@]}"; do
    p="$base"
    case "$v" in
      model) ;;
      occ0) p=${base/tessel-attach-gpu-target/tessel-attach-gpu-target\{occupancy-threads=0\}} ;;
      rows*) p=${base/tessel-map-tiles-to-gpu/tessel-map-tiles-to-gpu\{rows-per-thread=${v#rows}\}} ;;
      cols1) p=${base/tessel-map-tiles-to-gpu/tessel-map-tiles-to-gpu\{columns-per-thread=1\}} ;;
      *) p=${base/tessel-map-tiles-to-gpu/tessel-map-tiles-to-gpu\{threads=$v\}} ;;
    esac
    mkdir -p "$dir/fusion-sweep/$v"
    for w in blur_x_blur_y_4096 softmax_4096 layernorm_16384; do
      "$tc" "$src/$w.mlir" --target=nvgpu --pass-pipeline="$p" \
        -o "$dir/fusion-sweep/$v/$w.so" --no-header --remarks 2>"$work/r"
      grep -q "tile loop mapped to one GPU kernel" "$work/r" || {
        echo "gpu-fusion-sweep.sh: $w at $v: not one kernel" >&2; cat "$work/r" >&2; exit 1; }
      echo "$v $w: $(grep -o 'a block of [0-9]* threads' "$work/r"), $(grep -o 'rows per thread [0-9/-]*, columns per thread [0-9/-]*' "$work/r")"
    done
  done
  exit 0
fi
dir="$(cd "$dir" && pwd)"
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for d in "$dir"/fusion-sweep/*/; do
  echo "== variant $(basename "$d")"
  python3 "$root/utils/bench/gpu_fusion_bench.py" --kernels "$d" --reps "$reps" 2>&1 |
    grep -E "^[a-z_]+ [0-9]|tessel  |FAIL" || true
done

#!/usr/bin/env bash
# Times tessel-map-matmul-to-gpu's WMMA kernel (wgmma=false) at forced block/warp/stage sizes
# beside the model's own choice, against cuBLAS, on the GPU machine: the
# measurements behind the GPU matmul model (passes/CostModel/
# GPUMatmulTiling.cpp). Two halves, like run-gpu-bench.sh:
#
#   utils/bench/gpu-matmul-sweep.sh --build DIR [--chip sm_90a] [--workload mm_f16_f32_4096]
#       (here, after run-gpu-bench.sh --build DIR, whose DIR/src holds the
#       workload) one kernel directory per variant under DIR/matmul-sweep;
#   utils/bench/gpu-matmul-sweep.sh --run DIR [--reps N]
#       (GPU machine) DIR/tessel-gpu-bench on each, a table line per variant.
#
# A variant is "block-m block-n block-k warps-m warps-n stages"; "model" is
# the model's choice. Variants the model declines (registers, shared memory)
# are listed as such.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"
mode="" dir="" chip="sm_90a" reps=11 workload="mm_f16_f32_4096"
while (($#)); do
  case "$1" in
    --build) mode=build; dir="$2"; shift 2 ;;
    --run) mode=run; dir="$2"; shift 2 ;;
    --chip) chip="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --workload) workload="$2"; shift 2 ;;
    *) echo "usage: $0 --build DIR [--chip CHIP] [--workload NAME] | --run DIR [--reps N]" >&2; exit 2 ;;
  esac
done
[[ -n "$mode" && -n "$dir" ]] || { echo "usage: $0 --build DIR | --run DIR" >&2; exit 2; }

variants=(
  "model"
  "128 128 32 4 2 2" "128 128 32 4 2 4" "128 128 32 4 2 5" "128 128 64 4 2 3"
  "64 256 32 2 4 3" "64 256 32 2 4 4" "256 64 32 4 2 4" "128 256 32 2 4 3"
  "64 128 32 2 2 4" "128 64 32 2 2 4" "128 128 32 2 4 4"
)

if [[ "$mode" == build ]]; then
  tc="$build/bin/tessel-compile"
  dir="$(cd "$dir" && pwd)"
  src="$dir/src/$workload.mlir"
  [[ -f "$src" ]] || { echo "gpu-matmul-sweep.sh: no $src (run run-gpu-bench.sh --build $dir first)" >&2; exit 1; }
  out="$dir/matmul-sweep"
  mkdir -p "$out"
  echo "$workload" >"$out/workload"
  base=$("$tc" --print-pipeline --target=nvgpu)
  base=${base/tessel-attach-target\{kind=nvgpu\}/tessel-attach-target\{kind=nvgpu chip=$chip\}}
  for v in "${variants[@]}"; do
    name=${v// /x}
    # The WMMA kernel's sizes (sm_90a would otherwise take wgmma).
    p=${base/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu\{wgmma=false\}}
    if [[ "$v" != model ]]; then
      read -r bm bn bk wm wn st <<<"$v"
      p=${base/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu\{wgmma=false block-m=$bm block-n=$bn block-k=$bk warps-m=$wm warps-n=$wn stages=$st\}}
    fi
    mkdir -p "$out/$name"
    if "$tc" "$src" --target=nvgpu --pass-pipeline="$p" -o "$out/$name/$workload.so" \
         --no-header --remarks 2>"$out/$name/remarks" &&
       grep -q "mapped to tensor cores (WMMA" "$out/$name/remarks"; then
      echo "$name: $(grep -o 'block [^;]*; [0-9]* stages' "$out/$name/remarks")"
    else
      echo "$name: declined: $(grep -o 'not mapped.*' "$out/$name/remarks" | head -1)"
      rm -rf "${out:?}/$name"
    fi
  done
  exit 0
fi

dir="$(cd "$dir" && pwd)"
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bench="$dir/tessel-gpu-bench"
workload=$(cat "$dir/matmul-sweep/workload")
printf '%-22s %s\n' variant "ms / TFLOPS / peer TFLOPS / ratio"
for d in "$dir"/matmul-sweep/*/; do
  name=$(basename "$d")
  line=$("$bench" --kernels "$d" --only "$workload" --reps "$reps" 2>&1 | grep "^$workload" || echo "failed")
  printf '%-22s %s\n' "$name" "$(awk '{print $3, $4, $5, $6, $7}' <<<"$line")"
done

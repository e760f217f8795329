#!/usr/bin/env bash
# Times tessel-map-matmul-to-gpu's kernel at forced block/warp/stage sizes
# beside the model's own choice, against cuBLAS, on the GPU machine: the
# measurements behind the GPU matmul model (passes/CostModel/
# GPUMatmulTiling.cpp). Two halves, like run-gpu-bench.sh:
#
#   utils/bench/gpu-matmul-sweep.sh --build DIR [--chip sm_90a] [--workload mm_f16_f32_4096]
#       (here) one kernel directory per variant under DIR;
#   utils/bench/gpu-matmul-sweep.sh --run DIR [--reps N]
#       (GPU machine) tessel-gpu-bench on each, one table line per variant.
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
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  read -r in acc m n k < <(sed -E 's/^mm_([a-z0-9]+)_([a-z0-9]+)_([0-9]+)$/\1 \2 \3 \3 \3/' <<<"$workload")
  zero=0.0
  [[ "$acc" == i32 ]] && zero=0
  src="$dir/$workload.mlir"
  cat >"$src" <<EOM
func.func @$workload(%a: tensor<${m}x${k}x$in>, %b: tensor<${k}x${n}x$in>) -> tensor<${m}x${n}x$acc> {
  %zero = arith.constant $zero : $acc
  %e = tensor.empty() : tensor<${m}x${n}x$acc>
  %c = linalg.fill ins(%zero : $acc) outs(%e : tensor<${m}x${n}x$acc>) -> tensor<${m}x${n}x$acc>
  %r = linalg.matmul ins(%a, %b : tensor<${m}x${k}x$in>, tensor<${k}x${n}x$in>) outs(%c : tensor<${m}x${n}x$acc>) -> tensor<${m}x${n}x$acc>
  return %r : tensor<${m}x${n}x$acc>
}
EOM
  base=$("$tc" --print-pipeline --target=nvgpu)
  base=${base/tessel-attach-target\{kind=nvgpu\}/tessel-attach-target\{kind=nvgpu chip=$chip\}}
  for v in "${variants[@]}"; do
    name=${v// /x}
    p="$base"
    if [[ "$v" != model ]]; then
      read -r bm bn bk wm wn st <<<"$v"
      p=${base/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu\{block-m=$bm block-n=$bn block-k=$bk warps-m=$wm warps-n=$wn stages=$st\}}
    fi
    mkdir -p "$dir/$name"
    if "$tc" "$src" --target=nvgpu --pass-pipeline="$p" -o "$dir/$name/$workload.so" \
         --no-header --remarks 2>"$dir/$name/remarks" &&
       grep -q "mapped to tensor cores (WMMA" "$dir/$name/remarks"; then
      echo "$name: $(grep -o 'block [^;]*; [0-9]* stages' "$dir/$name/remarks")"
    else
      echo "$name: declined: $(grep -o 'not mapped.*' "$dir/$name/remarks" | head -1)"
      rm -rf "${dir:?}/$name"
    fi
  done
  exit 0
fi

dir="$(cd "$dir" && pwd)"
bench="${TESSEL_GPU_BENCH:-$dir/../tessel-gpu-bench}"
workload=$(basename "$(ls "$dir"/*.mlir)" .mlir)
printf '%-22s %s\n' variant "ms / TFLOPS / peer TFLOPS / ratio"
for d in "$dir"/*/; do
  name=$(basename "$d")
  line=$("$bench" --kernels "$d" --only "$workload" --reps "$reps" 2>&1 | grep "^$workload" || echo "failed")
  printf '%-22s %s\n' "$name" "$(awk '{print $3, $4, $5, $6, $7}' <<<"$line")"
done

#!/usr/bin/env bash
# Compiles one large matmul per element type with tessel-map-matmul-to-gpu
# forced to each block/warp/k-tile size in a grid, runs ptxas -v on the
# kernel and prints the model's register estimate beside ptxas's count and
# spills: the data behind the register estimate of
# passes/CostModel/GPUMatmulTiling.cpp. Needs ptxas; no GPU.
#
#   utils/bench/gpu-register-sweep.sh [sm_80|sm_90a] > sweep.txt
#
# Columns: type blockM blockN blockK warpsM warpsN est=N regs=N spill=BYTES
# ('declined' when the model rejects the sizes).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tc="${TESSEL_COMPILE:-${TESSEL_BUILD_DIR:-$root/build}/bin/tessel-compile}"
ptxas="${PTXAS:-/usr/local/cuda/bin/ptxas}"
chip="${1:-sm_80}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# type name, input type, accumulator type, zero
inputs=("f16_f32 f16 f32 0.0" "f16_f16 f16 f16 0.0" "i8_i32 i8 i32 0")
for spec in "${inputs[@]}"; do
  read -r name in acc zero <<<"$spec"
  cat >"$work/$name.mlir" <<EOF
func.func @$name(%a: tensor<4096x4096x$in>, %b: tensor<4096x4096x$in>) -> tensor<4096x4096x$acc> {
  %zero = arith.constant $zero : $acc
  %e = tensor.empty() : tensor<4096x4096x$acc>
  %c = linalg.fill ins(%zero : $acc) outs(%e : tensor<4096x4096x$acc>) -> tensor<4096x4096x$acc>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096x$in>, tensor<4096x4096x$in>) outs(%c : tensor<4096x4096x$acc>) -> tensor<4096x4096x$acc>
  return %r : tensor<4096x4096x$acc>
}
EOF
done

base=$("$tc" --print-pipeline --target=nvgpu)
base=${base/tessel-attach-target\{kind=nvgpu\}/tessel-attach-target\{kind=nvgpu chip=$chip\}}
run() {
  local name=$1 bm=$2 bn=$3 bk=$4 wm=$5 wn=$6
  local opts="wgmma=false block-m=$bm block-n=$bn block-k=$bk warps-m=$wm warps-n=$wn"
  local p=${base/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu\{$opts\}}
  local d="$work/out"
  rm -rf "$d"
  mkdir -p "$d"
  if ! "$tc" "$work/$name.mlir" --target=nvgpu -o "$d/k.o" --emit-device-asm="$d" \
      --pass-pipeline="$p" --remarks 2>"$d/log"; then
    echo "$name $bm $bn $bk $wm $wn error"
    return
  fi
  if ! grep -q "mapped to tensor cores (WMMA" "$d/log"; then
    echo "$name $bm $bn $bk $wm $wn declined"
    return
  fi
  local est report regs spill
  est=$(grep -o "~[0-9]* registers" "$d/log" | head -1 | tr -dc 0-9)
  report=$("$ptxas" -arch="$chip" -v "$d/${name}_kernel.ptx" -o /dev/null 2>&1)
  regs=$(grep -o 'Used [0-9]* registers' <<<"$report" | tr -dc 0-9)
  spill=$(grep -o '[0-9]* bytes spill stores' <<<"$report" | head -1 | tr -dc 0-9)
  echo "$name $bm $bn $bk $wm $wn est=$est regs=$regs spill=$spill"
}

for spec in "${inputs[@]}"; do
  read -r name _ <<<"$spec"
  for fragments in "1 1" "1 2" "2 2" "2 4" "4 2" "4 4"; do
    read -r fm fn <<<"$fragments"
    for warps in "1 1" "2 2" "2 4"; do
      read -r wm wn <<<"$warps"
      for bk in 16 32; do
        run "$name" $((16 * fm * wm)) $((16 * fn * wn)) "$bk" "$wm" "$wn"
      done
    done
  done
done

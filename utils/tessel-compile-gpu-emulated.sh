#!/usr/bin/env bash
# tessel-compile for GPUs with the kernels run on the host CPU: the nvgpu
# pipeline (the amdgpu one for a gfx chip) up to (not including) the
# placement of buffers in device memory and kernel outlining, then
# tessel-emulate-gpu-on-cpu and the CPU lowering. The tests use it to check
# GPU kernels numerically without a GPU.
#
#   utils/tessel-compile-gpu-emulated.sh [--chip=sm_90a]
#       [--matmul-options='block-m=64 stages=3'] [--tiles-options='rows-per-thread=8']
#       [--fuse-options='tile-sizes=6,0'] [--kernels] [--print-pipeline]
#       in.mlir -o out.o [--header=out.h] [other tessel-compile options]
#
# --chip picks the GPU whose kernels are built (tessel-attach-target's
# chip; gfx90a, gfx942, gfx1100: AMD); --matmul-options are tessel-map-matmul-to-gpu's options,
# --tiles-options tessel-map-tiles-to-gpu's and --fuse-options
# tessel-fuse-producers' (forced tile sizes); --kernels
# takes input that is already kernel IR (gpu.launch ops, as the pipeline
# leaves them) and only emulates and lowers it. The output
# is host code that calls libtessel_runtime's tessel_emu_* helpers and
# libomp: write an object (-o x.o) and link it with -ltessel_runtime
# -fopenmp. A block's threads run as one OpenMP team each, so large
# programs run slowly; that is fine for tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tc="${TESSEL_COMPILE:-${TESSEL_BUILD_DIR:-$root/build}/bin/tessel-compile}"
chip=""
matmul=""
tiles=""
fuse=""
print=0
kernels_only=0
args=()
for arg in "$@"; do
  case "$arg" in
    --chip=*) chip="${arg#--chip=}" ;;
    --matmul-options=*) matmul="${arg#--matmul-options=}" ;;
    --tiles-options=*) tiles="${arg#--tiles-options=}" ;;
    --fuse-options=*) fuse="${arg#--fuse-options=}" ;;
    --print-pipeline) print=1 ;;
    --kernels) kernels_only=1 ;;
    --target=*|--pass-pipeline=*)
      echo "tessel-compile-gpu-emulated.sh: $arg is set by this script" >&2
      exit 2 ;;
    *) args+=("$arg") ;;
  esac
done

kind=nvgpu
[[ "$chip" == gfx* ]] && kind=amdgpu
pipeline=$("$tc" --print-pipeline --target=$kind)
cut=",tessel-allocate-device-buffers,"
[[ "$pipeline" == *"$cut"* ]] || {
  echo "tessel-compile-gpu-emulated.sh: the $kind pipeline has no '$cut' stage to cut at" >&2
  exit 2
}
kernels="${pipeline%%"$cut"*}"
replace() { # stage, replacement
  [[ "$kernels" == *"$1"* ]] || {
    echo "tessel-compile-gpu-emulated.sh: the $kind pipeline has no '$1' stage" >&2
    exit 2
  }
  kernels="${kernels/"$1"/$2}"
}
[[ -z "$chip" ]] || replace "tessel-attach-target{kind=$kind}" "tessel-attach-target{kind=$kind chip=$chip}"
[[ -z "$matmul" ]] || replace "tessel-map-matmul-to-gpu" "tessel-map-matmul-to-gpu{$matmul}"
[[ -z "$tiles" ]] || replace "tessel-map-tiles-to-gpu" "tessel-map-tiles-to-gpu{$tiles}"
[[ -z "$fuse" ]] || replace "tessel-fuse-producers" "tessel-fuse-producers{$fuse}"
((kernels_only)) && kernels="builtin.module(tessel-export-c-interface"
# The GPU pipelines mark the kernels' multiply-adds to fuse into FMAs in
# each gpu.module; the launches here are the kernels, and the CPU's backend
# fuses the marked pairs the same way. The kernels' f32 -> bf16 conversions
# become integer rounding: the host CPU may lack an instruction for them.
emulated="$kernels,func.func(tessel-contract-multiply-adds),tessel-emulate-gpu-on-cpu,func.func(convert-vector-to-scf{full-unroll=true},canonicalize,tessel-expand-bf16-conversions{always=true}),convert-math-to-llvm,convert-math-to-libm,expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-vector-to-llvm,convert-to-llvm,reconcile-unrealized-casts,tessel-finalize-target)"
if ((print)); then
  printf '%s\n' "$emulated"
  exit 0
fi
# -O1 by default (a later -O in the arguments wins): emulated kernels are
# long fully unrolled blocks, and LLVM's post-RA list scheduler, which runs
# from -O2 on, is quadratic in them. gpu_matmul.mlir with 2x2 warps took
# 134 s of codegen at -O2 and 10 s at -O1; the program ran equally fast.
exec "$tc" -O1 "${args[@]}" --target=cpu --pass-pipeline="$emulated"

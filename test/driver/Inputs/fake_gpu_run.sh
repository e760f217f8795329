#!/usr/bin/env bash
# fake_gpu_run.sh DIR SCRIPT ARGS...: fills DIR with stand-ins for what
# run-gpu-bench.sh --build makes (test programs, tessel-gpu-bench) and for
# python3 with PyTorch, then runs SCRIPT --run DIR/gpu ARGS... with them
# first on PATH and prints its exit status. The stand-ins pass, fail, hang
# or print fixed tables, so that the --run half's control flow (time
# limits, one process per wgmma row, the bars table) is tested without a GPU.
set -u
dir=$1 script=$2
shift 2
mkdir -p "$dir/gpu/wgmma" "$dir/bin"
stub() { printf '#!/bin/sh\n%s\n' "$2" >"$1"; chmod +x "$1"; }
# The runtime smoke test never finishes, as a kernel waiting on a barrier.
stub "$dir/gpu/tessel-gpu-runtime-smoke" 'exec sleep 60'
stub "$dir/gpu/gpu_matmul.test" 'echo PASS one; echo PASS two; echo ALL 2 CHECKS PASSED'
stub "$dir/gpu/gpu_matmul_nk.test" 'echo "CHECK FAILED: c[3] = 1 (expected 2)"; exit 1'
stub "$dir/gpu/gpu_matmul_const.test" 'echo PASS one; echo ALL 1 CHECKS PASSED'
stub "$dir/gpu/blur.test" 'echo PASS one; echo ALL 1 CHECKS PASSED'
# Fails with nothing but PASS lines (it exits non-zero).
stub "$dir/gpu/gpu_matmul_wgmma.test" 'echo PASS one; exit 1'
# tessel-gpu-bench: one row per workload named by --only, each call logged
# in DIR/calls. On the WMMA kernels the i8 row fails its check; on the wgmma
# kernels (--kernels .../wgmma) the f16 workload prints its row through
# stdio and hangs (FAKE_HANG, a C program; plain sleep without one), and
# the i8 one runs at 1.25x.
stub "$dir/gpu/tessel-gpu-bench" '
kernels="" only=""
while [ $# -gt 0 ]; do
  case "$1" in --kernels) kernels=$2; shift ;; --only) only=$2; shift ;; esac
  shift
done
echo "$(basename "$kernels") $only" >>"$(dirname "$0")/../calls"
echo "sm_90, 11 repetitions (median); ratio: Tessel TFLOPS / peer'"'"'s"
for w in $(echo "$only" | tr , " "); do
  case "$kernels:$w" in
    */wgmma:mm_f16_f32_4096) [ -n "${FAKE_HANG:-}" ] && exec "$FAKE_HANG" "$w"; exec sleep 60 ;;
    */wgmma:*) echo "$w 4096x4096x4096 0.250 549.7 440.0 1.250 PASS (vs cuBLAS 1e-3, vs double 1e-3)" ;;
    *:mm_i8_i32_4096) echo "$w 4096x4096x4096 0.650 210.0 660.0 0.318 FAIL (vs cuBLAS 1e-1, vs double 1e-1)" ;;
    *) echo "$w 4096x4096x4096 0.650 210.0 660.0 0.318 PASS (vs cuBLAS 1e-3, vs double 1e-3)" ;;
  esac
done'
for w in mm_f16_f32_4096 mm_i8_i32_4096 mm_f16_f32_8192; do
  : >"$dir/gpu/wgmma/$w.so"
done
# python3: "import torch" succeeds, the nvidia packages are missing,
# gpu_fusion_bench.py prints its "speedup" line for the workload asked, and
# gpu_kernel_time.py one line per stream mode.
stub "$dir/bin/python3" '
case "$1" in
  -c) case "$2" in "import torch") exit 0 ;; *) exit 1 ;; esac ;;
esac
script=$1 mode=""
while [ $# -gt 0 ]; do
  [ "$1" = --only ] && w=$2
  [ "$1" = --stream ] && mode=$2
  shift
done
case "$script" in
  *gpu_kernel_time.py) echo "$w kernel time (${mode:-no} stream mode)"; exit 0 ;;
esac
case "$w" in
  blur) echo "speedup blur eager=3.900 inductor=4.125" ;;
  int_mm) echo "speedup int_mm eager=0.612 inductor=0.700" ;;
  *) echo "speedup $w eager=1.050 inductor=1.200" ;;
esac'
PATH="$dir/bin:$PATH" TESSEL_GPU_STEP_TIMEOUT="${TESSEL_GPU_STEP_TIMEOUT:-8}" \
  "$script" --run "$dir/gpu" "$@"
echo "exit status $?"
echo "tessel-gpu-bench calls:"
cat "$dir/calls"

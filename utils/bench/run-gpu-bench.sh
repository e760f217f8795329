#!/usr/bin/env bash
# GPU tests and the GPU benchmark, in two halves: the compiler (which needs
# LLVM/MLIR 22) builds everything into one folder on this machine, and a
# machine with an NVIDIA GPU (and no compiler) runs it.
#
#   utils/bench/run-gpu-bench.sh --build DIR [--chip sm_90a]
#       builds the runtime, tessel-gpu-bench, every benchmark kernel
#       (tessel-compile --target=nvgpu) and the GPU test programs into DIR;
#   utils/bench/run-gpu-bench.sh --run DIR [--reps N] [--json FILE] [--only A,B]
#       on the GPU machine: runs the test programs (each must print "ALL N
#       CHECKS PASSED"), then tessel-gpu-bench (Tessel vs cuBLAS and cuDNN)
#       and gpu_fusion_bench.py (fused blur, softmax and layernorm vs
#       PyTorch eager and torch.compile), and prints the tables. Exit status 0 only when every check passed.
#   utils/bench/run-gpu-bench.sh --run DIR --bars [--reps N] [--json FILE]
#       only what the issue's unmet bars need, for a short device lease:
#       the runtime and matmul test programs, the 4096^3 f16 and i8
#       matmuls (WMMA and wgmma) against cuBLAS, blur_x_blur_y and the int8
#       matmuls against PyTorch, the blur kernel's time against its whole
#       call's, then one table of the bars, within 480 s.
#
# Every step runs under a time limit (see "Limits" below): a kernel that
# never finishes, as a wgmma kernel waiting on a barrier whose bytes never
# arrive would, costs that step, not the rest of the run.
#
# With the device tool: put DIR under the repository, ignored by git (the
# default .gpu is in .gitignore), carry it, and run
#   utils/bench/run-gpu-bench.sh --run .gpu --json $OUT/gpu.json
# The benchmark finds cuBLAS and cuDNN through TESSEL_CUBLAS / TESSEL_CUDNN,
# the library path, or the Python environment's nvidia-cublas and
# nvidia-cudnn packages (PyTorch's).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"
mode="" dir="" chip="sm_90a" reps=21 json="" only="" bars=0
while (($#)); do
  case "$1" in
    --build) mode=build; dir="$2"; shift 2 ;;
    --run) mode=run; dir="$2"; shift 2 ;;
    --chip) chip="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --json) json="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --bars) bars=1; shift ;;
    *) echo "usage: $0 --build DIR [--chip CHIP] | --run DIR [--bars] [--reps N] [--json FILE] [--only A,B]" >&2
       exit 2 ;;
  esac
done
[[ -n "$mode" && -n "$dir" ]] || { echo "usage: $0 --build DIR | --run DIR" >&2; exit 2; }

# The test programs: the integration inputs whose harnesses also run on a GPU
# (HARNESS_GPU_MANAGED), as test/integration/gpu_*.test build them.
tests=(gpu_matmul gpu_matmul_f32 gpu_matmul_f64 gpu_matmul_nk gpu_matmul_const gpu_conv gpu_conv_nchw matmul_tensor elementwise blur row_reductions reduction gpu_reductions attention mask_stencil softmax_long)

if [[ "$mode" == build ]]; then
  ninja -C "$build" tessel-compile tessel_runtime tessel_cuda_runtime tessel-gpu-bench \
    tessel-gpu-runtime-smoke
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  cp -f "$build/lib/libtessel_runtime.so" "$build/lib/libtessel_cuda_runtime.so" \
        "$build/bin/tessel-gpu-bench" "$build/bin/tessel-gpu-runtime-smoke" "$dir/"
  tc="$build/bin/tessel-compile"
  # The WMMA kernels (the "Tessel vs cuBLAS" table and the plain test
  # programs) ask for WMMA, which sm_90a would otherwise replace with
  # wgmma; the wgmma builds below ask for wgmma.
  compile_wmma() {
    TESSEL_COMPILE="$tc" \
      TESSEL_PIPELINE_SED='s/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu{wgmma=false}/' \
      "$root/utils/bench/tessel-compile-edited.sh" "$@"
  }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The workloads' sources stay in DIR/src: the sweeps
  # (gpu-matmul-sweep.sh, gpu-fusion-sweep.sh) recompile them.
  src="$dir/src"
  mkdir -p "$src"
  # compile_expecting NAME REMARK: compiles $src/NAME.mlir to $dir/NAME.so and
  # fails the build unless the compiler's remarks contain REMARK (a workload
  # that silently fell back to a slow path would make the table meaningless).
  # expect_remark NAME REMARK: fails the build unless $dir/NAME.remarks
  # has REMARK.
  expect_remark() {
    grep -q "$2" "$dir/$1.remarks" || {
      echo "run-gpu-bench.sh: $1: no remark \"$2\":" >&2
      cat "$dir/$1.remarks" >&2
      exit 1
    }
  }
  compile_expecting() {
    compile_wmma "$src/$1.mlir" --target=nvgpu --target-options="chip=$chip" \
      -o "$dir/$1.so" --no-header --remarks 2>"$dir/$1.remarks"
    expect_remark "$1" "$2"
  }
  # One shared object per benchmark workload, named as the harness lists.
  while read -r name kind rest; do
    if [[ "$kind" == matmul ]]; then
      read -r in acc m n k <<<"$rest"
      zero=0.0
      [[ "$acc" == i32 ]] && zero=0
      cat >"$src/$name.mlir" <<EOF
func.func @$name(%a: tensor<${m}x${k}x$in>, %b: tensor<${k}x${n}x$in>) -> tensor<${m}x${n}x$acc> {
  %zero = arith.constant $zero : $acc
  %e = tensor.empty() : tensor<${m}x${n}x$acc>
  %c = linalg.fill ins(%zero : $acc) outs(%e : tensor<${m}x${n}x$acc>) -> tensor<${m}x${n}x$acc>
  %r = linalg.matmul ins(%a, %b : tensor<${m}x${k}x$in>, tensor<${k}x${n}x$in>) outs(%c : tensor<${m}x${n}x$acc>) -> tensor<${m}x${n}x$acc>
  return %r : tensor<${m}x${n}x$acc>
}
EOF
    else
      # f16 NHWC convolution of a padded input: f32 sums, converted to f16
      # (the kernel's epilogue does it).
      read -r n hp wp c f k stride oh ow <<<"$rest"
      x="${n}x${hp}x${wp}x${c}xf16" w="${k}x${k}x${c}x${f}xf16"
      y32="${n}x${oh}x${ow}x${f}xf32" y16="${n}x${oh}x${ow}x${f}xf16"
      cat >"$src/$name.mlir" <<EOF
#nhwc = affine_map<(n, h, w, f) -> (n, h, w, f)>
func.func @$name(%x: tensor<$x>, %w: tensor<$w>) -> tensor<$y16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<$y32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<$y32>) -> tensor<$y32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<$stride> : tensor<2xi64>}
      ins(%x, %w : tensor<$x>, tensor<$w>) outs(%c : tensor<$y32>) -> tensor<$y32>
  %o = tensor.empty() : tensor<$y16>
  %h = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<$y32>) outs(%o : tensor<$y16>) {
  ^bb0(%v: f32, %z: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<$y16>
  return %h : tensor<$y16>
}
EOF
    fi
    if [[ "$name" == *_simt ]]; then
      # The f64 SIMT kernel, against the f64 tensor cores of the plain row.
      TESSEL_COMPILE="$tc" \
        TESSEL_PIPELINE_SED='s/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu{f64-tensor-cores=false}/' \
        "$root/utils/bench/tessel-compile-edited.sh" "$src/$name.mlir" \
        --target=nvgpu --target-options="chip=$chip" \
        -o "$dir/$name.so" --no-header --remarks 2>"$dir/$name.remarks"
      expect_remark "$name" "mapped to SIMT cores"
    elif [[ "$kind" == matmul && "$in" == f32 ]]; then
      compile_expecting "$name" "mapped to SIMT cores"
    else
      compile_expecting "$name" "mapped to tensor cores"
    fi
  done < <("$build/bin/tessel-gpu-bench" --list)
  # The fused kernels of gpu_fusion_bench.py: blur_x_blur_y at 3x4096x4096,
  # softmax and layernorm at the row-reduction benchmark's shapes; each must
  # be one kernel.
  sed -e 's/2048x2048/4096x4096/g' -e 's/2048x2044/4096x4092/g' \
      -e 's/2044x2044/4092x4092/g' "$root/utils/demo/blur_x_blur_y.mlir" \
      >"$src/blur_x_blur_y_4096.mlir"
  cp "$root/utils/bench/image/workloads/softmax.mlir" "$src/softmax_4096.mlir"
  cp "$root/utils/bench/image/workloads/layernorm.mlir" "$src/layernorm_16384.mlir"
  for fused in blur_x_blur_y_4096 softmax_4096 layernorm_16384; do
    compile_expecting "$fused" "tile loop mapped to one GPU kernel"
  done
  # gpu_fusion_bench.py's NCHW convolution (PyTorch's layout): transposed
  # to NHWC around the implicit-GEMM tensor-core kernel.
  cat >"$src/conv_nchw_resnet.mlir" <<'EOF'
#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#chan = affine_map<(n, f, h, w) -> (f)>
func.func @conv_nchw_resnet(%x: tensor<8x256x14x14xf16>, %w: tensor<256x256x3x3xf16>, %bias: tensor<256xf16>) -> tensor<8x256x14x14xf16> {
  %zh = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zh : f16
  } : tensor<8x256x14x14xf16> to tensor<8x256x16x16xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256x14x14xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<8x256x16x16xf16>, tensor<256x256x3x3xf16>) outs(%c : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  %o = tensor.empty() : tensor<8x256x14x14xf16>
  %y = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<8x256x14x14xf32>, tensor<256xf16>) outs(%o : tensor<8x256x14x14xf16>) {
  ^bb0(%v: f32, %b: f16, %z: f16):
    %b32 = arith.extf %b : f16 to f32
    %s = arith.addf %v, %b32 : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x256x14x14xf16>
  return %y : tensor<8x256x14x14xf16>
}
EOF
  compile_expecting conv_nchw_resnet "between transposes"
  grep -q "mapped to tensor cores" "$dir/conv_nchw_resnet.remarks" || {
    echo "run-gpu-bench.sh: conv_nchw_resnet: not mapped to tensor cores:" >&2
    cat "$dir/conv_nchw_resnet.remarks" >&2
    exit 1
  }
  # gpu_fusion_bench.py's NCHW residual path: two convolutions, the second
  # with the block's input added back. tessel-fold-transposes cancels the
  # transposes between them.
  cat >"$src/conv_nchw_block.mlir" <<'EOF'
#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#chan = affine_map<(n, f, h, w) -> (f)>
func.func @conv_nchw_block(%x: tensor<8x256x14x14xf16>, %w1: tensor<256x256x1x1xf16>, %b1: tensor<256xf16>, %w2: tensor<256x256x3x3xf16>, %b2: tensor<256xf16>) -> tensor<8x256x14x14xf16> {
  %zh = arith.constant 0.0 : f16
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<8x256x14x14xf16>, tensor<256x256x1x1xf16>) outs(%f : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  %o = tensor.empty() : tensor<8x256x14x14xf16>
  %y1 = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b1 : tensor<8x256x14x14xf32>, tensor<256xf16>) outs(%o : tensor<8x256x14x14xf16>) {
  ^bb0(%v: f32, %b: f16, %z: f16):
    %b32 = arith.extf %b : f16 to f32
    %s = arith.addf %v, %b32 : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x256x14x14xf16>
  %p = tensor.pad %y1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zh : f16
  } : tensor<8x256x14x14xf16> to tensor<8x256x16x16xf16>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w2 : tensor<8x256x16x16xf16>, tensor<256x256x3x3xf16>) outs(%f : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #chan, #nchw, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %b2, %x : tensor<8x256x14x14xf32>, tensor<256xf16>, tensor<8x256x14x14xf16>) outs(%o : tensor<8x256x14x14xf16>) {
  ^bb0(%v: f32, %b: f16, %r: f16, %z: f16):
    %b32 = arith.extf %b : f16 to f32
    %r32 = arith.extf %r : f16 to f32
    %s = arith.addf %v, %b32 : f32
    %s2 = arith.addf %s, %r32 : f32
    %m = arith.maximumf %s2, %zero : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x256x14x14xf16>
  return %y : tensor<8x256x14x14xf16>
}
EOF
  compile_expecting conv_nchw_block "folded into its producer"
  # gpu_fusion_bench.py's NCHW convolution in f32 (PyTorch's default type):
  # transposed to NHWC around the SIMT implicit GEMM (no TF32 rounding).
  cat >"$src/conv_nchw_resnet_f32.mlir" <<'EOF'
#nchw = affine_map<(n, f, h, w) -> (n, f, h, w)>
#chan = affine_map<(n, f, h, w) -> (f)>
func.func @conv_nchw_resnet_f32(%x: tensor<8x256x14x14xf32>, %w: tensor<256x256x3x3xf32>, %bias: tensor<256xf32>) -> tensor<8x256x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<8x256x14x14xf32> to tensor<8x256x16x16xf32>
  %e = tensor.empty() : tensor<8x256x14x14xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<8x256x16x16xf32>, tensor<256x256x3x3xf32>) outs(%c : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  %o = tensor.empty() : tensor<8x256x14x14xf32>
  %y = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %bias : tensor<8x256x14x14xf32>, tensor<256xf32>) outs(%o : tensor<8x256x14x14xf32>) {
  ^bb0(%v: f32, %b: f32, %z: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x256x14x14xf32>
  return %y : tensor<8x256x14x14xf32>
}
EOF
  compile_expecting conv_nchw_resnet_f32 "between transposes (SIMT cores"
  expect_remark conv_nchw_resnet_f32 "mapped to SIMT cores"
  # gpu_fusion_bench.py's small-batch f32 linear layer (x @ w.T + bias,
  # ReLU; w as (n, k)): 8 rows leave most SMs idle unless k is split. Built
  # as the model chooses (split-k) and with split-k=1, so that one run
  # measures what the split buys.
  cat >"$src/linear_f32_b8.mlir" <<'EOF'
#x = affine_map<(m, n, k) -> (m, k)>
#w = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#row = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @linear_f32_b8(%x: tensor<8x4096xf32>, %w: tensor<4096x4096xf32>, %bias: tensor<4096xf32>) -> tensor<8x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.generic {indexing_maps = [#x, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<8x4096xf32>, tensor<4096x4096xf32>) outs(%c : tensor<8x4096xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4096xf32>
  %o = tensor.empty() : tensor<8x4096xf32>
  %y = linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%r, %bias : tensor<8x4096xf32>, tensor<4096xf32>) outs(%o : tensor<8x4096xf32>) {
  ^bb0(%v: f32, %b: f32, %z: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x4096xf32>
  return %y : tensor<8x4096xf32>
}
EOF
  compile_expecting linear_f32_b8 "k split"
  sed 's/@linear_f32_b8(/@linear_f32_b8_nosplit(/' "$src/linear_f32_b8.mlir" \
    >"$src/linear_f32_b8_nosplit.mlir"
  TESSEL_COMPILE="$tc" \
    TESSEL_PIPELINE_SED='s/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu{split-k=1}/' \
    "$root/utils/bench/tessel-compile-edited.sh" "$src/linear_f32_b8_nosplit.mlir" \
    --target=nvgpu --target-options="chip=$chip" \
    -o "$dir/linear_f32_b8_nosplit.so" --no-header --remarks \
    2>"$dir/linear_f32_b8_nosplit.remarks"
  expect_remark linear_f32_b8_nosplit "mapped to SIMT cores"
  # gpu_fusion_bench.py's products with B given as (n, k), a linear layer's
  # weight: i8 (torch._int_mm(x, w.t()), cuBLASLt's native int8 layout) and
  # f16 with f16 results (F.linear, cuBLAS). On WMMA, and on sm_90a with
  # the wgmma kernel's K-major form (the only form 8-bit wgmma reads).
  for name in i8_bt_4096 f16_bt_4096; do
    sed -n "/^#/p; /^func.func @$name(/,/^}/p" \
      "$root/test/driver/Inputs/gpu_matmul_nk_large.mlir" >"$src/mm_$name.mlir"
    compile_expecting "mm_$name" "(WMMA m16n16k16)"
    [[ "$chip" == sm_90a ]] || continue
    TESSEL_COMPILE="$tc" \
      TESSEL_PIPELINE_SED='s/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu{wgmma=true}/' \
      "$root/utils/bench/tessel-compile-edited.sh" "$src/mm_$name.mlir" \
      --target=nvgpu --target-options="chip=$chip" \
      -o "$dir/mm_${name}_wgmma.so" --no-header --remarks \
      2>"$dir/mm_${name}_wgmma.remarks"
    grep -q "on TMA-loaded tiles" "$dir/mm_${name}_wgmma.remarks" || {
      echo "run-gpu-bench.sh: mm_$name: the wgmma kernel was not used:" >&2
      cat "$dir/mm_${name}_wgmma.remarks" >&2
      exit 1
    }
  done
  # The test programs; gpu_matmul_const's source is written by a script
  # (its constants are too large to keep as text).
  python3 "$root/test/integration/Inputs/gpu_matmul_const.py" >"$src/gpu_matmul_const.mlir"
  # gpu_matmul_f64 is gpu_matmul_f32's programs in f64 and its harness
  # built with -DHARNESS_F64 (as gpu_matmul_f64.test builds them).
  sed -e 's/f32/f64/g' "$root/test/integration/Inputs/gpu_matmul_f32.mlir" \
    >"$src/gpu_matmul_f64.mlir"
  test_source() {
    if [[ "$1" == gpu_matmul_const || "$1" == gpu_matmul_f64 ]]; then
      echo "$src/$1.mlir"
    else
      echo "$root/test/integration/Inputs/$1.mlir"
    fi
  }
  for t in "${tests[@]}"; do
    harness="$t" flags=()
    [[ "$t" == gpu_matmul_f64 ]] && harness=gpu_matmul_f32 flags=(-DHARNESS_F64)
    compile_wmma "$(test_source "$t")" --target=nvgpu \
      --target-options="chip=$chip" -o "$dir/$t.so" --header="$work/$t.h"
    clang-22 -O2 -std=c11 -DHARNESS_GPU_MANAGED "${flags[@]}" -I"$root/runtime/include" \
      -include "$work/$t.h" "$root/test/integration/Inputs/$harness.c" \
      -L"$dir" -l:"$t.so" -ltessel_cuda_runtime -ltessel_runtime \
      -Wl,-rpath,'$ORIGIN' -lm \
      -o "$dir/$t.test"
  done
  # Hopper: the wgmma kernel (tessel-map-matmul-to-gpu{wgmma=true}, the
  # default on sm_90a, spelled out): the f16 -> f32 and i8 ->
  # i32 matmul workloads into DIR/wgmma (the i8 ones, whose B is given as
  # (k, n), after a kernel that transposes B), and the matmul test programs
  # built with it.
  if [[ "$chip" == sm_90a ]]; then
    mkdir -p "$dir/wgmma"
    wg_sed='s/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu{wgmma=true}/'
    while read -r name kind in acc rest; do
      [[ "$kind" == matmul && "$in/$acc" =~ ^(f16/f32|i8/i32)$ ]] || continue
      TESSEL_COMPILE="$tc" TESSEL_PIPELINE_SED="$wg_sed" \
        "$root/utils/bench/tessel-compile-edited.sh" "$src/$name.mlir" \
        --target=nvgpu --target-options="chip=$chip" -o "$dir/wgmma/$name.so" \
        --no-header --remarks 2>"$dir/wgmma/$name.remarks"
      grep -q "on TMA-loaded tiles" "$dir/wgmma/$name.remarks" || {
        echo "run-gpu-bench.sh: $name: the wgmma kernel was not used:" >&2
        cat "$dir/wgmma/$name.remarks" >&2
        exit 1
      }
    done < <("$build/bin/tessel-gpu-bench" --list)
    # The matmul test programs built with it (f16, and i8 with B as (n, k)),
    # and gpu_matmul_nk at the sizes gpu_matmul_nk_emulated.test forces,
    # which WMMA cannot take, so that its i8 products with B given as (k, n)
    # run the transpose kernel before the wgmma kernel.
    forced='s/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu{wgmma=true block-m=128 block-n=256 warps-m=2 stages=3}/'
    # gpu_matmul_const_emulated.test's forced sizes: one warpgroup of two
    # 64-row slabs.
    forced_slabs='s/tessel-map-matmul-to-gpu/tessel-map-matmul-to-gpu{wgmma=true block-m=128 block-n=128 warps-m=1 stages=2}/'
    for variant in "gpu_matmul wgmma $wg_sed" "gpu_matmul_nk wgmma $wg_sed" \
                   "gpu_matmul_nk wgmma_forced $forced" \
                   "gpu_matmul_const wgmma $wg_sed" \
                   "gpu_matmul_const wgmma_forced $forced_slabs"; do
      read -r t suffix edit <<<"$variant"
      TESSEL_COMPILE="$tc" TESSEL_PIPELINE_SED="$edit" \
        "$root/utils/bench/tessel-compile-edited.sh" \
        "$(test_source "$t")" --target=nvgpu \
        --target-options="chip=$chip" -o "$dir/${t}_$suffix.so" \
        --header="$work/${t}_$suffix.h"
      clang-22 -O2 -std=c11 -DHARNESS_GPU_MANAGED -I"$root/runtime/include" \
        -include "$work/${t}_$suffix.h" \
        "$root/test/integration/Inputs/$t.c" -L"$dir" \
        -l:"${t}_$suffix.so" -ltessel_cuda_runtime -ltessel_runtime \
        -Wl,-rpath,'$ORIGIN' -lm -o "$dir/${t}_$suffix.test"
    done
  fi
  echo "run-gpu-bench.sh: built $(ls "$dir" | wc -l) entries in $dir for $chip"
  exit 0
fi

# --run, on the GPU machine.
dir="$(cd "$dir" && pwd)"
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if command -v python3 >/dev/null; then
  for package in cublas cudnn; do
    lib_dir=$(python3 -c "import os, nvidia.$package as p; print(os.path.join(list(p.__path__)[0], 'lib'))" 2>/dev/null || true)
    [[ -n "$lib_dir" ]] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$lib_dir"
  done
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L || true
# Limits: a step TESSEL_GPU_STEP_TIMEOUT seconds (240, or 90 with --bars),
# a test program a quarter of that, and with --bars the whole run
# TESSEL_GPU_DEADLINE seconds (480; 0 for none): the device tool kills a
# command at its own limit (at most 600 s), and the bars table, printed
# last, has to be printed before that.
step_limit="${TESSEL_GPU_STEP_TIMEOUT:-$((bars ? 90 : 240))}"
deadline="${TESSEL_GPU_DEADLINE:-$((bars ? 480 : 0))}"
[[ "$step_limit" =~ ^[1-9][0-9]*$ && "$deadline" =~ ^[0-9]+$ ]] || {
  echo "run-gpu-bench.sh: TESSEL_GPU_STEP_TIMEOUT must be a positive number of seconds and TESSEL_GPU_DEADLINE a number of seconds, not '$step_limit' and '$deadline'" >&2
  exit 2
}
test_limit=$(( step_limit / 4 > 1 ? step_limit / 4 : 1 ))
started=$SECONDS
# Line-buffered output, so that the rows a step printed before it was
# killed are kept.
line_buffered=()
command -v stdbuf >/dev/null && line_buffered=(stdbuf -oL -eL)
# run_step SECONDS NAME COMMAND...: COMMAND, killed after SECONDS (and
# SIGKILLed 10 s later) or when the run's deadline comes; says so, naming
# the step NAME, when that happened.
run_step() {
  local limit=$1 name=$2 rc=0
  shift 2
  if ((deadline)); then
    local left=$((deadline - (SECONDS - started)))
    if ((left < 5)); then
      echo "SKIPPED: $name: the run's ${deadline} s are spent"
      return 124
    fi
    ((left < limit)) && limit=$left
  fi
  PYTHONUNBUFFERED=1 timeout -k 10 "$limit" "${line_buffered[@]}" "$@" || rc=$?
  ((rc == 124 || rc == 137)) && echo "TIMEOUT: $name ran past ${limit} s and was killed"
  return $rc
}
status=0
if ((bars)); then
  tests=(gpu_matmul gpu_matmul_nk gpu_matmul_const blur)
  only="mm_f16_f32_4096,mm_i8_i32_4096"
  reps=$(( reps > 11 ? 11 : reps ))
fi
# The sm_90a build's matmul test programs, built with the wgmma kernels.
for t in gpu_matmul_wgmma gpu_matmul_nk_wgmma gpu_matmul_nk_wgmma_forced \
         gpu_matmul_const_wgmma gpu_matmul_const_wgmma_forced; do
  [[ -x "$dir/$t.test" ]] && tests+=("$t")
done
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
run_smoke_test() {
  # The runtime first: allocation (and its reuse of freed blocks), copies,
  # launches, TMA descriptors.
  if out=$(run_step "$test_limit" tessel-gpu-runtime-smoke "$dir/tessel-gpu-runtime-smoke" 2>&1) &&
     grep -q "^OK" <<<"$out"; then
    echo "PASS tessel-gpu-runtime-smoke"
  else
    status=1
    echo "FAIL tessel-gpu-runtime-smoke"
    head -20 <<<"$out"
  fi
}
run_test_programs() {
  for t in "${tests[@]}"; do
    if out=$(run_step "$test_limit" "$t" "$dir/$t.test" 2>&1) && grep -q "CHECKS PASSED" <<<"$out"; then
      echo "PASS $t ($(grep -c '^PASS' <<<"$out") checks)"
    else
      status=1
      echo "FAIL $t"
      { grep -v '^PASS' <<<"$out" || true; } | head -20
    fi
  done
}
echo "== GPU tests"
run_smoke_test
# With --bars the test programs run after the benchmarks (whose harnesses
# check their results too), so that a kernel that hangs in every test
# program cannot use up the deadline before the bars are measured.
((bars)) || run_test_programs
echo "== Tessel vs cuBLAS (matmul) and cuDNN (convolution)"
args=(--kernels "$dir" --reps "$reps")
[[ -n "$json" ]] && args+=(--json "$json")
[[ -n "$only" ]] && args+=(--only "$only")
run_step "$step_limit" tessel-gpu-bench "$dir/tessel-gpu-bench" "${args[@]}" | tee "$logs/wmma" || status=1
if [[ -d "$dir/wgmma" ]]; then
  echo "== Tessel with wgmma (sm_90a) vs cuBLAS"
  # One process per workload: a kernel that hangs or faults loses its own
  # row only.
  shopt -s nullglob
  for so in "$dir"/wgmma/*.so; do
    name=$(basename "$so" .so)
    [[ -z "$only" || ",$only," == *",$name,"* ]] || continue
    wg_args=(--kernels "$dir/wgmma" --reps "$reps" --only "$name")
    [[ -n "$json" ]] && wg_args+=(--json "${json%.json}.wgmma.$name.json")
    run_step "$step_limit" "tessel-gpu-bench (wgmma $name)" "$dir/tessel-gpu-bench" "${wg_args[@]}" \
      | tee -a "$logs/wgmma" || status=1
  done
fi
echo "== Tessel vs PyTorch eager and torch.compile (fused kernels; int8 matmul vs torch._int_mm; NCHW convolution vs cuDNN)"
if python3 -c "import torch" 2>/dev/null; then
  fusion_args=(--kernels "$dir" --reps "$reps")
  if ((bars)); then
    # A process each, as for the wgmma rows above.
    for w in blur int_mm int_mm_wgmma; do
      one=("${fusion_args[@]}" --only "$w")
      [[ -n "$json" ]] && one+=(--json "${json%.json}-fusion.$w.json")
      run_step "$step_limit" "gpu_fusion_bench.py ($w)" python3 "$root/utils/bench/gpu_fusion_bench.py" "${one[@]}" \
        | tee -a "$logs/fusion" || status=1
    done
    # The blur kernel's GPU time beside its whole call's (torch.profiler),
    # on PyTorch's stream (returning once queued, and waiting) and on the
    # runtime's own: what the host side of a call costs.
    for mode in async waits own; do
      kt=(--kernels "$dir" --only blur --calls 30 --allocations 2 --stream "$mode")
      run_step "$step_limit" "gpu_kernel_time.py (blur, $mode stream)" python3 "$root/utils/bench/gpu_kernel_time.py" "${kt[@]}" \
        | tee -a "$logs/kernel_time" || status=1
    done
  else
    [[ -n "$json" ]] && fusion_args+=(--json "${json%.json}-fusion.json")
    run_step "$((step_limit * 2))" gpu_fusion_bench.py python3 "$root/utils/bench/gpu_fusion_bench.py" "${fusion_args[@]}" \
      | tee "$logs/fusion" || status=1
  fi
else
  echo "skipped: PyTorch is not installed on this machine"
fi
if ((bars)); then
  echo "== GPU tests (the test programs)"
  run_test_programs
  # The bars, from the tables above: the matmul rows' ratio column
  # (Tessel TFLOPS / cuBLAS's) and the fusion benchmark's speedups.
  # A row whose check failed shows FAIL, not its ratio.
  bench_ratio() {
    awk -v w="$2" '$1 == w && NF >= 7 { print ($7 == "PASS" ? $6 : "FAIL") }' \
      "$logs/$1" 2>/dev/null | tail -1
  }
  fusion_ratio() {
    awk -v w="$1" -v peer="$2" '$1 == "speedup" && $2 == w {
      for (i = 3; i <= NF; ++i) if (index($i, peer "=") == 1) print substr($i, length(peer) + 2) }' \
      "$logs/fusion" 2>/dev/null | tail -1
  }
  row() { printf '%-44s %-10s %s\n' "$1" "${2:--}" "$3"; }
  echo "== Bars (ratio: above 1 means Tessel is faster)"
  row "f16 4096^3 matmul, WMMA, vs cuBLAS" "$(bench_ratio wmma mm_f16_f32_4096)" ">= 0.7"
  row "f16 4096^3 matmul, wgmma, vs cuBLAS" "$(bench_ratio wgmma mm_f16_f32_4096)" ">= 0.7 (goal 0.9)"
  row "i8 4096^3 matmul, WMMA, vs torch._int_mm" "$(fusion_ratio int_mm eager)" ">= 0.7"
  row "i8 4096^3 matmul, wgmma, vs torch._int_mm" "$(fusion_ratio int_mm_wgmma eager)" ">= 0.7"
  row "blur_x_blur_y 3x4096x4096 vs torch.compile" "$(fusion_ratio blur inductor)" ">= 5"
  echo "(not bars: the i8 kernels against cublasGemmEx, which is not torch._int_mm)"
  row "i8 4096^3 matmul, WMMA, vs cublasGemmEx" "$(bench_ratio wmma mm_i8_i32_4096)" ""
  row "i8 4096^3 matmul, wgmma, vs cublasGemmEx" "$(bench_ratio wgmma mm_i8_i32_4096)" ""
fi
exit $status

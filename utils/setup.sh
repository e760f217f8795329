#!/usr/bin/env bash
# Installs everything Tessel needs on Debian 12 (bookworm) and configures the
# build. Idempotent: packages already present are not reinstalled, and an
# existing build directory is reconfigured in place.
#
#   utils/setup.sh            # install + configure build/
#   TESSEL_BUILD_DIR=dir utils/setup.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TESSEL_BUILD_DIR:-$root/build}"

# Compiler toolchain (LLVM/MLIR 22 and friends), then the benchmark peers and
# the GPU build dependencies (HIP headers, ROCm device bitcode).
packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  libomp-22-dev libisl-dev cmake ninja-build python3 python3-venv python3-pip
  libopenblas-dev libdnnl-dev libhalide14-0-dev
  libamdhip64-dev rocm-device-libs
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
      echo "setup: need root or sudo to install: ${missing[*]}" >&2
      exit 1
    }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all Debian packages present"
fi

# CUDA is not in Debian main. Where a toolkit is present (NVIDIA's in
# /usr/local/cuda, or Debian non-free's nvidia-cuda-toolkit), CMake builds the
# CUDA runtime and the tests check generated PTX with ptxas; otherwise those
# tests report themselves unsupported. CMake's own findings are shown.
mkdir -p "$build"
if ! cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 > "$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "setup: configuring $build failed" >&2
  exit 1
fi
grep -E "^-- (Tessel|ROCm|Using MLIR)" "$build/configure.log" || true
echo "setup: configured $build"

# The Python package and the frameworks it compiles for, pinned, in a
# virtual environment of the checkout (TESSEL_VENV to put it elsewhere).
venv="${TESSEL_VENV:-$root/.venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# The pinned frameworks take 7.3 GiB installed (torch's wheel pulls 3 GiB of
# NVIDIA libraries), and pip keeps the 3.2 GiB of wheels it downloads in
# $TMPDIR until it is done: 10.5 GiB at the peak where both are one disk
# (measured with pip 26.3, without its cache, which would add another copy).
# With too little room pip fails late with a bare ENOSPC, so say so up front.
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
free_gib_at() { df -Pk "$1" | awk 'NR == 2 { printf "%.1f", $4 / 1048576 }'; }
filesystem_of() { df -P "$1" | awk 'NR == 2 { print $1 }'; }
needs_room() { # folder, GiB, what for
  if awk -v free="$(free_gib_at "$1")" -v need="$2" 'BEGIN { exit !(free < need) }'; then
    echo "setup: installing the Python frameworks needs about $2 GiB free in $1 ($3); $(free_gib_at "$1") GiB free there (TESSEL_VENV or TMPDIR to use another disk)" >&2
    exit 1
  fi
}
if [ ! -d "$site/torch" ]; then
  downloads="${TMPDIR:-/tmp}"
  if [ "$(filesystem_of "$venv")" = "$(filesystem_of "$downloads")" ]; then
    needs_room "$venv" 11 "the environment and pip's downloads"
  else
    needs_room "$venv" 8 "the environment"
    needs_room "$downloads" 4 "pip's downloads"
  fi
fi
export PIP_NO_CACHE_DIR=1
"$venv/bin/python" -m pip install -q --upgrade pip > /dev/null
"$venv/bin/python" -m pip install -q -r "$root/python/requirements.txt"
"$venv/bin/python" -m pip install -q -e "$root/python"
echo "setup: python environment $venv (tessel, $("$venv/bin/python" -c 'from importlib.metadata import version as v; print(*(f"{p} {v(p)}" for p in ("torch", "jax", "tensorflow-cpu")))'))"

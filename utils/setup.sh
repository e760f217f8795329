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
  libomp-22-dev libisl-dev cmake ninja-build python3 python3-venv
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
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all Debian packages present"
fi

# CUDA is not in Debian main: when the toolkit is present (/usr/local/cuda),
# the CUDA runtime is built and ptxas checks the generated PTX; otherwise
# those tests report themselves unsupported.
if [ -x /usr/local/cuda/bin/ptxas ]; then
  echo "setup: CUDA toolkit found at /usr/local/cuda"
else
  echo "setup: no CUDA toolkit (/usr/local/cuda): CUDA runtime and ptxas tests are skipped"
fi

cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >/dev/null
echo "setup: configured $build"

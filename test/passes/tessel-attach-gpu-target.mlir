// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-attach-gpu-target)' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-attach-gpu-target{O=1})' | FileCheck %s --check-prefix=O1

// An nvgpu target becomes #nvvm.target with its chip and features, on every
// gpu.module.

// CHECK-LABEL: module @nvgpu
// CHECK: gpu.module @first [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
// CHECK: gpu.func @k() kernel
// CHECK: gpu.module @second [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {

// O1-LABEL: module @nvgpu
// O1: gpu.module @first [#nvvm.target<O = 1, chip = "sm_90a", features = "+ptx80">] {
// O1: gpu.module @second [#nvvm.target<O = 1, chip = "sm_90a", features = "+ptx80">] {
module @nvgpu attributes {gpu.container_module, tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx80", sm_count = 132, warp_size = 32>} {
  gpu.module @first {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  gpu.module @second {
  }
}

// -----

// The triple is passed through (the default nvptx64 one is not printed).

// CHECK-LABEL: module @nvptx32
// CHECK: gpu.module @k [#nvvm.target<O = 3, triple = "nvptx-nvidia-cuda", chip = "sm_80", features = "+ptx70">] {
module @nvptx32 attributes {gpu.container_module, tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx-nvidia-cuda", chip = "sm_80", features = "+ptx70">} {
  gpu.module @k {
  }
}

// -----

// A target already on a gpu.module is replaced: the description is the one
// source of truth.

// CHECK-LABEL: module @replace
// CHECK: gpu.module @k [#nvvm.target<O = 3, chip = "sm_86", features = "+ptx71">] {
module @replace attributes {gpu.container_module, tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_86", features = "+ptx71">} {
  gpu.module @k [#nvvm.target<chip = "sm_50">] {
  }
}

// -----

// An amdgpu target becomes #rocdl.target with the ABI version Debian's
// device libraries ship (500).

// CHECK-LABEL: module @gfx90a
// CHECK: gpu.module @k [#rocdl.target<O = 3, chip = "gfx90a", abi = "500">] {
// O1-LABEL: module @gfx90a
// O1: gpu.module @k [#rocdl.target<O = 1, chip = "gfx90a", abi = "500">] {
module @gfx90a attributes {gpu.container_module, tessel.target = #tessel.target<kind = "amdgpu", triple = "amdgcn-amd-amdhsa", chip = "gfx90a", warp_size = 64>} {
  gpu.module @k {
  }
}

// -----

// CHECK-LABEL: module @gfx1100
// CHECK: gpu.module @k [#rocdl.target<O = 3, chip = "gfx1100", features = "+wavefrontsize64", abi = "500">] {
module @gfx1100 attributes {gpu.container_module, tessel.target = #tessel.target<kind = "amdgpu", triple = "amdgcn-amd-amdhsa", chip = "gfx1100", features = "+wavefrontsize64">} {
  gpu.module @k {
  }
}

// -----

// expected-error @+1 {{'builtin.module' op needs a #tessel.target of kind nvgpu or amdgpu (run tessel-attach-target{kind=nvgpu|amdgpu} first)}}
module @no_target attributes {gpu.container_module} {
  gpu.module @k {
  }
}

// -----

// expected-error @+1 {{needs a #tessel.target of kind nvgpu or amdgpu}}
module @cpu_target attributes {gpu.container_module, tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-unknown-linux-gnu", chip = "znver4">} {
  gpu.module @k {
  }
}

// -----

// A description NVVM cannot use is diagnosed, not attached.

// expected-error @+1 {{The target chip cannot be empty.}}
module @no_chip attributes {gpu.container_module, tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda">} {
  gpu.module @k {
  }
}

// -----

// NVIDIA kernels get a register limit: what one block of the kernel's known
// size may take from the register file (64K registers: 64 per thread at
// 1024 threads, 128 at 512, 168 at 384), at most 255, which is also the
// limit of a kernel whose block size is not known. A limit already stated
// stays.

// CHECK-LABEL: module @register_limits
// CHECK: gpu.func @block1024() kernel attributes {{{.*}}nvvm.maxnreg = 64 : i32}
// CHECK: gpu.func @block512() kernel attributes {{{.*}}nvvm.maxnreg = 128 : i32}
// CHECK: gpu.func @block384() kernel attributes {{{.*}}nvvm.maxnreg = 168 : i32}
// CHECK: gpu.func @block256() kernel attributes {{{.*}}nvvm.maxnreg = 255 : i32}
// CHECK: gpu.func @unknown() kernel attributes {nvvm.maxnreg = 255 : i32}
// CHECK: gpu.func @stated() kernel attributes {nvvm.maxnreg = 32 : i32}
// CHECK: gpu.func @device_function()
// CHECK-NOT: nvvm.maxnreg
// CHECK: gpu.return
module @register_limits attributes {gpu.container_module, tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx80", registers_per_block = 65536>} {
  gpu.module @k {
    gpu.func @block1024() kernel attributes {known_block_size = array<i32: 1024, 1, 1>} {
      gpu.return
    }
    gpu.func @block512() kernel attributes {known_block_size = array<i32: 32, 16, 1>} {
      gpu.return
    }
    gpu.func @block384() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
      gpu.return
    }
    gpu.func @block256() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
    gpu.func @unknown() kernel {
      gpu.return
    }
    gpu.func @stated() kernel attributes {nvvm.maxnreg = 32 : i32} {
      gpu.return
    }
    gpu.func @device_function() {
      gpu.return
    }
  }
}

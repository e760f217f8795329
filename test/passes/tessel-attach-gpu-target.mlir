// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-attach-gpu-target)' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-attach-gpu-target{O=1})' | FileCheck %s --check-prefix=O1
// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tessel-attach-gpu-target{occupancy-threads=0})' | FileCheck %s --check-prefix=NOOCC

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

// NVIDIA kernels get a register limit: what the blocks resident on an SM
// may take from the register file (64K registers), in steps of 8, at most
// 255. These kernels stream (no tensor-core op) and use no shared memory,
// so up to 1024 threads' worth of blocks share an SM (occupancy-threads):
// 64 registers at 1024, 512 and 256 threads, 80 at 384 (two blocks). 255
// where the block size is not known. A limit already stated stays.

// CHECK-LABEL: module @register_limits
// CHECK: gpu.func @block1024() kernel attributes {{{.*}}nvvm.maxnreg = 64 : i32}
// CHECK: gpu.func @block512() kernel attributes {{{.*}}nvvm.maxnreg = 64 : i32}
// CHECK: gpu.func @block384() kernel attributes {{{.*}}nvvm.maxnreg = 80 : i32}
// CHECK: gpu.func @block256() kernel attributes {{{.*}}nvvm.maxnreg = 64 : i32}
// CHECK: gpu.func @unknown() kernel attributes {nvvm.maxnreg = 255 : i32}
// CHECK: gpu.func @stated() kernel attributes {nvvm.maxnreg = 32 : i32}
// CHECK: gpu.func @device_function()
// CHECK-NOT: nvvm.maxnreg
// CHECK: gpu.return
// NOOCC-LABEL: module @register_limits
// NOOCC: gpu.func @block1024() kernel attributes {{{.*}}nvvm.maxnreg = 64 : i32}
// NOOCC: gpu.func @block512() kernel attributes {{{.*}}nvvm.maxnreg = 128 : i32}
// NOOCC: gpu.func @block384() kernel attributes {{{.*}}nvvm.maxnreg = 168 : i32}
// NOOCC: gpu.func @block256() kernel attributes {{{.*}}nvvm.maxnreg = 255 : i32}
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

// -----

// Shared memory bounds the blocks a streaming kernel aims to share an SM
// with: its launches' largest constant dynamic size plus its workgroup
// buffers, each block also taking the driver's 1 KiB, out of 227 KiB + 1 KiB
// (sm_90a). A 4096-column softmax tile's 65568 bytes fit three 256-thread
// blocks: 65536 / 768 -> 80 registers. Launches of 40000 and 100000 bytes:
// two blocks, 128. 20000 bytes of workgroup buffers and 50000 dynamic: three,
// 80. A size known only at run time leaves one block's limit, 255. So does a
// tensor-core kernel: its registers are accumulators that its tiling model
// budgets.

// CHECK-LABEL: module @shared_memory_occupancy
// CHECK: gpu.func @softmax_tile() kernel attributes {{{.*}}nvvm.maxnreg = 80 : i32}
// CHECK: gpu.func @two_launches() kernel attributes {{{.*}}nvvm.maxnreg = 128 : i32}
// CHECK: gpu.func @workgroup_buffers() workgroup
// CHECK-SAME: nvvm.maxnreg = 80 : i32
// CHECK: gpu.func @runtime_size() kernel attributes {{{.*}}nvvm.maxnreg = 255 : i32}
// CHECK: gpu.func @tensor_cores(%{{.*}}: memref<16x16xf16>) kernel attributes {{{.*}}nvvm.maxnreg = 255 : i32}
// NOOCC-LABEL: module @shared_memory_occupancy
// NOOCC: gpu.func @softmax_tile() kernel attributes {{{.*}}nvvm.maxnreg = 255 : i32}
module @shared_memory_occupancy attributes {gpu.container_module, tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx80", smem_per_block = 232448, registers_per_block = 65536>} {
  gpu.module @k {
    gpu.func @softmax_tile() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
    gpu.func @two_launches() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
    gpu.func @workgroup_buffers() workgroup(%b : memref<5000xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
    gpu.func @runtime_size() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
    gpu.func @tensor_cores(%a: memref<16x16xf16>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %f = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
      gpu.return
    }
  }
  func.func @host(%bytes: i32, %a: memref<16x16xf16>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %s65568 = arith.constant 65568 : i32
    %s40000 = arith.constant 40000 : i32
    %s100000 = arith.constant 100000 : i32
    %s50000 = arith.constant 50000 : i32
    gpu.launch_func @k::@softmax_tile blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %s65568
    gpu.launch_func @k::@two_launches blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %s40000
    gpu.launch_func @k::@two_launches blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %s100000
    gpu.launch_func @k::@workgroup_buffers blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %s50000
    gpu.launch_func @k::@runtime_size blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %bytes
    gpu.launch_func @k::@tensor_cores blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<16x16xf16>)
    return
  }
}

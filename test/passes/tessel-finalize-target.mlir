// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(tessel-finalize-target)' | FileCheck %s

// A CPU target goes where LLVM reads it: the module's triple, and CPU and
// features on every defined llvm.func (nested modules included), not on
// declarations. #tessel.target itself is gone.

// CHECK-LABEL: module @cpu attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"} {
// CHECK-NEXT: llvm.func @declaration(i32) -> i32{{$}}
// CHECK-NEXT: llvm.func @defined() attributes {target_cpu = "znver4", target_features = #llvm.target_features<["+avx2", "+fma", "-avx512f"]>} {
// CHECK: llvm.func internal @internal() attributes {target_cpu = "znver4", target_features = #llvm.target_features<["+avx2", "+fma", "-avx512f"]>} {
// CHECK: func.func @not_llvm() {
// CHECK: module @inner {
// CHECK-NEXT: llvm.func @nested() attributes {target_cpu = "znver4", target_features = #llvm.target_features<["+avx2", "+fma", "-avx512f"]>} {
// CHECK-NOT: tessel.target
module @cpu attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-unknown-linux-gnu", chip = "znver4", features = "+avx2,+fma,-avx512f", vector_bits = 256, cores = 4>} {
  llvm.func @declaration(i32) -> i32
  llvm.func @defined() {
    llvm.return
  }
  llvm.func internal @internal() {
    llvm.return
  }
  func.func @not_llvm() {
    return
  }
  module @inner {
    llvm.func @nested() {
      llvm.return
    }
  }
}

// -----

// Empty fields set nothing: no triple, no features, only the CPU.

// CHECK-LABEL: module @cpu_name_only {
// CHECK-NEXT: llvm.func @f() attributes {target_cpu = "neoverse-v2"} {
module @cpu_name_only attributes {tessel.target = #tessel.target<kind = "cpu", chip = "neoverse-v2">} {
  llvm.func @f() {
    llvm.return
  }
}

// -----

// Functions keep their other attributes; the target's values win over
// stale ones.

// CHECK-LABEL: module @overwrite attributes {llvm.target_triple = "aarch64-unknown-linux-gnu"} {
// CHECK-NEXT: llvm.func @f() attributes {passthrough = ["nounwind"], target_cpu = "neoverse-v2", target_features = #llvm.target_features<["+sve2"]>} {
module @overwrite attributes {llvm.target_triple = "x86_64-unknown-linux-gnu", tessel.target = #tessel.target<kind = "cpu", triple = "aarch64-unknown-linux-gnu", chip = "neoverse-v2", features = "+sve2">} {
  llvm.func @f() attributes {passthrough = ["nounwind"], target_cpu = "generic"} {
    llvm.return
  }
}

// -----

// A GPU target was handed to the device serializer already: it is only
// removed, and host functions are not touched.

// CHECK-LABEL: module @nvgpu attributes {gpu.container_module} {
// CHECK-NEXT: gpu.module @k [#nvvm.target<chip = "sm_90a">] {
// CHECK: llvm.func @host() {
// CHECK-NOT: tessel.target
// CHECK-NOT: target_cpu
module @nvgpu attributes {gpu.container_module, tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx80">} {
  gpu.module @k [#nvvm.target<chip = "sm_90a">] {
  }
  llvm.func @host() {
    llvm.return
  }
}

// -----

// CHECK-LABEL: module @amdgpu {
// CHECK-NEXT: llvm.func @host() {
module @amdgpu attributes {tessel.target = #tessel.target<kind = "amdgpu", triple = "amdgcn-amd-amdhsa", chip = "gfx90a">} {
  llvm.func @host() {
    llvm.return
  }
}

// -----

// Without a target the module is left as it is.

// CHECK-LABEL: module @no_target attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"} {
// CHECK-NEXT: llvm.func @f() {
// CHECK-NEXT: llvm.return
module @no_target attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  llvm.func @f() {
    llvm.return
  }
}

// -----

// A value that is not a #tessel.target under the name is dropped as well:
// the output must be plain upstream IR.

// CHECK-LABEL: module @not_a_target {
// CHECK-NOT: tessel.target
module @not_a_target attributes {tessel.target = 3 : i64} {
}

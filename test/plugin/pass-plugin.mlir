// Loaded only as a pass plugin, Tessel's passes and pipelines are available,
// and the passes load the tessel dialect themselves when they need it.
// RUN: mlir-opt --load-pass-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-attach-target{kind=nvgpu chip=sm_90a})' | FileCheck %s --check-prefix=ATTACH
// RUN: mlir-opt --load-pass-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-attach-target{kind=nvgpu chip=sm_90a},tessel-attach-gpu-target,tessel-finalize-target)' | FileCheck %s
// RUN: mlir-opt --load-pass-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-attach-target{kind=cpu chip=znver4 triple=x86_64-unknown-linux-gnu features=+avx2},func.func(tessel-approximate-math),convert-to-llvm,tessel-finalize-target)' | FileCheck %s --check-prefix=CPU

// Without the plugin, the passes do not exist.
// RUN: not mlir-opt %s --pass-pipeline='builtin.module(tessel-attach-target)' 2>&1 | FileCheck %s --check-prefix=NO-PLUGIN
// NO-PLUGIN: 'tessel-attach-target' does not refer to a registered pass or pass pipeline

// ATTACH-LABEL: module @m attributes
// ATTACH-SAME: tessel.target = #tessel.target<kind = "nvgpu", triple = "nvptx64-nvidia-cuda", chip = "sm_90a", features = "+ptx83",

// CHECK-LABEL: module @m attributes {gpu.container_module} {
// CHECK-NEXT: gpu.module @kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx83">] {
// CHECK-NOT: tessel.target

// CPU-LABEL: module @m attributes {gpu.container_module, llvm.target_triple = "x86_64-unknown-linux-gnu"} {
// CPU: llvm.func @act(%{{.*}}: f32) -> f32 attributes {target_cpu = "znver4", target_features = #llvm.target_features<["+avx2"]>} {
// CPU-NOT: math.tanh
// CPU-NOT: llvm.intr.tanh
// CPU: llvm.return
module @m attributes {gpu.container_module} {
  gpu.module @kernels {
  }
  func.func @act(%x: f32) -> f32 {
    %0 = math.tanh %x : f32
    return %0 : f32
  }
}

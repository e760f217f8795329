// Named pipelines take no options; the message says what to do instead.
// RUN: not mlir-opt --load-pass-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-cpu-pipeline{kind=cpu})' 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not mlir-opt --load-pass-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-nvgpu-pipeline{chip=sm_90a})' 2>&1 | FileCheck %s --check-prefix=NVGPU
// RUN: not mlir-opt --load-pass-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-amdgpu-pipeline{chip=gfx1100})' 2>&1 | FileCheck %s --check-prefix=AMDGPU

// CPU: error: 'tessel-cpu-pipeline' takes no options; run tessel-attach-target{...} before it to describe another machine
// CPU-NOT: module
// NVGPU: error: 'tessel-nvgpu-pipeline' takes no options; run tessel-attach-target{...} before it to describe another machine
// NVGPU-NOT: module
// AMDGPU: error: 'tessel-amdgpu-pipeline' takes no options; run tessel-attach-target{...} before it to describe another machine
// AMDGPU-NOT: module

// Without options the pipeline runs, and the advice works: a target
// attached first is the one the pipeline compiles for.
// RUN: mlir-opt --load-pass-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-attach-target{kind=cpu chip=sapphirerapids triple=x86_64-unknown-linux-gnu features=+avx512f},tessel-cpu-pipeline)' | FileCheck %s --check-prefix=ADVICE

// ADVICE-LABEL: module attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"} {
// ADVICE: llvm.func @scale({{.*}}) attributes {llvm.emit_c_interface, target_cpu = "sapphirerapids", target_features = #llvm.target_features<["+avx512f"]>} {
// ADVICE-NOT: tessel.target
func.func @scale(%a: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.add ins(%a, %a : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

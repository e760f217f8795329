// The AMD pipeline: the same mapping, kernels serialized to AMDGPU code
// objects (ELF) for gfx90a by default or another chip of #tessel.target,
// using the ROCm device bitcode that the build located.
// RUN: %tessel-opt --pass-pipeline='builtin.module(tessel-amdgpu-pipeline)' %s | FileCheck %s --check-prefixes=CHECK,GFX90A
// RUN: %tessel-opt --pass-pipeline='builtin.module(tessel-attach-target{kind=amdgpu chip=gfx1100}, tessel-amdgpu-pipeline)' %s | FileCheck %s --check-prefixes=CHECK,GFX1100
// RUN: %tessel-opt --pass-pipeline='builtin.module(tessel-amdgpu-pipeline)' %s | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: tessel.target
// CHECK: gpu.launch_func @act_kernel::@act_kernel blocks in
// CHECK: llvm.func @_mlir_ciface_act(
// GFX90A: gpu.binary @act_kernel [#gpu.object<#rocdl.target<O = 3, chip = "gfx90a", abi = "500">, bin = "\7FELF
// GFX1100: gpu.binary @act_kernel [#gpu.object<#rocdl.target<O = 3, chip = "gfx1100", abi = "500">, bin = "\7FELF

// LLVMIR: call void @mgpuLaunchKernel(
// LLVMIR: call ptr @mgpuModuleLoad(ptr @act_kernel_binary, i64 {{[0-9]+}})
func.func @act(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

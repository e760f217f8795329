// The library is loaded both ways (in either order, and more than once):
// registration is idempotent, so nothing is registered twice and everything
// works as with one loader.
// RUN: %tessel-opt %s --pass-pipeline='builtin.module(tessel-attach-target{kind=amdgpu chip=gfx1100},tessel-attach-gpu-target)' 2>&1 | FileCheck %s --implicit-check-not='already registered'
// RUN: mlir-opt --load-pass-plugin=%tessel_plugin --load-dialect-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-attach-target{kind=amdgpu chip=gfx1100},tessel-attach-gpu-target)' 2>&1 | FileCheck %s --implicit-check-not='already registered'
// RUN: mlir-opt --load-pass-plugin=%tessel_plugin --load-dialect-plugin=%tessel_plugin --load-pass-plugin=%tessel_plugin --load-dialect-plugin=%tessel_plugin %s --pass-pipeline='builtin.module(tessel-attach-target{kind=amdgpu chip=gfx1100},tessel-attach-gpu-target)' 2>&1 | FileCheck %s --implicit-check-not='already registered'

// The output (with the attribute the dialect plugin can parse) reads back
// in with both loaded.
// RUN: %tessel-opt %s --pass-pipeline='builtin.module(tessel-attach-target{kind=amdgpu chip=gfx1100})' | %tessel-opt --pass-pipeline='builtin.module(tessel-attach-gpu-target)' 2>&1 | FileCheck %s --implicit-check-not='already registered'

// The help lists each pass once.
// RUN: %tessel-opt --load-pass-plugin=%tessel_plugin --help | FileCheck %s --check-prefix=HELP
// HELP: Passes:
// HELP-COUNT-1: --tessel-validate-input
// HELP-NOT: --tessel-validate-input
// HELP: Pass Pipelines:

// CHECK-LABEL: module @m attributes
// CHECK-SAME: tessel.target = #tessel.target<kind = "amdgpu", triple = "amdgcn-amd-amdhsa", chip = "gfx1100",
// CHECK-NEXT: gpu.module @k [#rocdl.target<O = 3, chip = "gfx1100", abi = "500">] {
module @m attributes {gpu.container_module} {
  gpu.module @k {
  }
}

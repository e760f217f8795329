// Loaded as a dialect plugin, #tessel.target parses, prints and parses back.
// RUN: mlir-opt --load-dialect-plugin=%tessel_plugin %s -split-input-file | mlir-opt --load-dialect-plugin=%tessel_plugin -split-input-file | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%tessel_plugin %s -split-input-file -mlir-print-op-generic | mlir-opt --load-dialect-plugin=%tessel_plugin -split-input-file | FileCheck %s

// The dialect plugin registers the passes too, so a module that carries a
// target can be lowered with it alone.
// RUN: mlir-opt --load-dialect-plugin=%tessel_plugin %s -split-input-file --pass-pipeline='builtin.module(tessel-finalize-target)' | FileCheck %s --check-prefix=FINALIZE

// Parsing the attribute needs the dialect, which a pass plugin cannot
// register.
// RUN: not mlir-opt --load-pass-plugin=%tessel_plugin %s 2>&1 | FileCheck %s --check-prefix=PASS-ONLY
// PASS-ONLY: dialect-plugin.mlir:{{[0-9]+}}:{{[0-9]+}}: error: #"tessel"<"target<kind = "cpu",{{.*}}attribute created with unregistered dialect

// Fields at their default (0, "" or no mma list) are not printed.

// CHECK-LABEL: module @full attributes
// CHECK-SAME: {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-unknown-linux-gnu",
// CHECK-SAME: chip = "znver4", features = "+avx2,+fma", vector_bits = 256,
// CHECK-SAME: vector_registers = 16, cache_line = 64, l1 = 32768, l2 = 1048576,
// CHECK-SAME: l3 = 33554432, cores = 8>} {
// CHECK-NEXT: func.func @f()

// FINALIZE-LABEL: module @full attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"} {
// FINALIZE-NEXT: func.func @f()
module @full attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-unknown-linux-gnu", chip = "znver4", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 8>} {
  func.func @f() {
    return
  }
}

// -----

// Fields in another order, and explicit defaults.

// CHECK-LABEL: module @gpu attributes
// CHECK-SAME: {tessel.target = #tessel.target<kind = "nvgpu", chip = "sm_90a", sm_count = 132,
// CHECK-SAME: warp_size = 32, mma = ["m16n8k16:f16xf16->f32", "m16n8k32:i8xi8->i32"]>} {

// FINALIZE-LABEL: module @gpu {
module @gpu attributes {tessel.target = #tessel.target<warp_size = 32, kind = "nvgpu", sm_count = 132, chip = "sm_90a", triple = "", l3 = 0, mma = ["m16n8k16:f16xf16->f32", "m16n8k32:i8xi8->i32"]>} {
}

// -----

// CHECK-LABEL: module @minimal attributes
// CHECK-SAME: {tessel.target = #tessel.target<kind = "amdgpu">} {

// FINALIZE-LABEL: module @minimal {
module @minimal attributes {tessel.target = #tessel.target<kind = "amdgpu">} {
}

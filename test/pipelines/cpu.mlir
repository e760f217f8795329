// The CPU pipeline lowers linalg on tensors fully to the LLVM dialect, with
// the C entry point, and its output is plain upstream IR that stock
// mlir-translate-22 turns into LLVM IR for the described CPU.
// RUN: %tessel-opt --pass-pipeline='builtin.module(tessel-cpu-pipeline)' %s -split-input-file | FileCheck %s
// RUN: %tessel-opt --pass-pipeline='builtin.module(tessel-cpu-pipeline)' %s -split-input-file -o %t.mlir
// RUN: mlir-translate --mlir-to-llvmir -split-input-file %t.mlir | FileCheck %s --check-prefix=LLVMIR

// CHECK-LABEL: module attributes {llvm.target_triple = "{{.*}}"}
// CHECK-NOT: tessel.target
// CHECK: llvm.func @matmul({{.*}}attributes {llvm.emit_c_interface, target_cpu = "{{.+}}", target_features = #llvm.target_features<
// The f32 matmul is a register-tiled FMA kernel (tessel-vectorize-matmul).
// CHECK: llvm.intr.fmuladd{{.*}}vector<{{[0-9]+}}xf32>
// CHECK: llvm.func @_mlir_ciface_matmul(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-NOT: linalg.
// CHECK-NOT: affine.
// LLVMIR: define void @matmul(
// LLVMIR: define void @_mlir_ciface_matmul(ptr %{{.*}}, ptr %{{.*}}, ptr %{{.*}})
// LLVMIR: "target-cpu"=
func.func @matmul(%a: tensor<37x53xf32>, %b: tensor<53x29xf32>) -> tensor<37x29xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x29xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  %r = linalg.matmul ins(%a, %b : tensor<37x53xf32>, tensor<53x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}

// -----

// Destination-passing style over memrefs; a private helper gets no wrapper.
// CHECK-LABEL: module attributes
// CHECK: llvm.func @helper(
// CHECK: llvm.func @conv(
// CHECK: llvm.func @_mlir_ciface_conv(
// CHECK-NOT: _mlir_ciface_helper
// LLVMIR: define void @_mlir_ciface_conv(
func.func private @helper(%o: memref<1x8x8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<1x8x8x4xf32>)
  return
}
func.func @conv(%in: memref<1x10x10x3xf32>, %f: memref<3x3x3x4xf32>, %o: memref<1x8x8x4xf32>) {
  func.call @helper(%o) : (memref<1x8x8x4xf32>) -> ()
  linalg.conv_2d_nhwc_hwcf ins(%in, %f : memref<1x10x10x3xf32>, memref<3x3x3x4xf32>) outs(%o : memref<1x8x8x4xf32>)
  return
}

// -----

// TOSA enters through linalg; math.tanh is approximated, not a libm call.
// CHECK-LABEL: module attributes
// CHECK-NOT: llvm.func @tanhf
// CHECK: llvm.func @act(
// CHECK: llvm.func @_mlir_ciface_act(
func.func @act(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %s = tosa.add %a, %b : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %t = tosa.tanh %s : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %t : tensor<4x16xf32>
}

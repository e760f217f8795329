// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(tessel-export-c-interface)' | FileCheck %s

// A public function with a body gets a C entry point.

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %{{.*}}: memref<4x8xf32>, %{{.*}}: memref<8x2xf32>, %{{.*}}: memref<4x2xf32>)
// CHECK-SAME: attributes {llvm.emit_c_interface} {
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %c: memref<4x2xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>) outs(%c : memref<4x2xf32>)
  return
}

// -----

// Other attributes are kept; a function that is already marked stays marked
// once.

// CHECK-LABEL: func.func @scale(
// CHECK-SAME: attributes {llvm.emit_c_interface, tessel.note = "kept"} {
func.func @scale(%a: memref<16xf32>) attributes {tessel.note = "kept"} {
  return
}

// CHECK-LABEL: func.func @marked(
// CHECK-SAME: attributes {llvm.emit_c_interface} {
func.func @marked(%a: memref<16xf32>) attributes {llvm.emit_c_interface} {
  return
}

// -----

// Private and nested functions are internal and declarations have no body:
// none of them gets a wrapper.

// CHECK-LABEL: func.func private @helper(%{{.*}}: memref<4xf32>) {
func.func private @helper(%a: memref<4xf32>) {
  return
}

// CHECK-LABEL: func.func nested @nested_helper(%{{.*}}: memref<4xf32>) {
func.func nested @nested_helper(%a: memref<4xf32>) {
  return
}

// CHECK-LABEL: func.func private @external(memref<4xf32>){{$}}
func.func private @external(memref<4xf32>)

// CHECK-LABEL: func.func @entry(
// CHECK-SAME: attributes {llvm.emit_c_interface} {
// CHECK: call @helper
// CHECK: call @external
func.func @entry(%a: memref<4xf32>) {
  call @helper(%a) : (memref<4xf32>) -> ()
  call @external(%a) : (memref<4xf32>) -> ()
  return
}

// -----

// Tensor arguments of public functions are values: read-only buffers after
// bufferization. Memref and scalar arguments and private functions are not
// touched.

// CHECK-LABEL: func.func @tensors(
// CHECK-SAME: %{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: memref<4xf32>, %{{.*}}: f32, %{{.*}}: tensor<2xi8> {bufferization.writable = false})
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func private @private_tensors(
// CHECK-SAME: %{{.*}}: tensor<4xf32>) {
func.func @tensors(%a: tensor<4xf32>, %b: memref<4xf32>, %s: f32, %c: tensor<2xi8>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @private_tensors(%a: tensor<4xf32>) {
  return
}

// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-decompose-aggregates))' | FileCheck %s

// linalg.softmax becomes the stable four-step form: max-reduce, subtract and
// exponentiate, sum-reduce, divide.

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:.*]]: tensor<2x16xf32>)
// CHECK-NOT: linalg.softmax
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFFC00000 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x16xf32>) outs(%[[MAXINIT]] : tensor<2xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<2x16xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<2x16xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<2x16xf32>, tensor<2xf32>)
// CHECK: arith.divf
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %r : tensor<2x16xf32>
}

// -----

// Structured ops are left alone.

// CHECK-LABEL: func.func @matmul(
// CHECK: linalg.matmul
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

// On buffers (upstream decomposes tensor forms only, and mixing the two in
// one op is invalid IR): the decomposition runs on a tensor view of the
// input into a fresh tensor, whose value is written to the output buffer;
// one-shot-bufferize turns it all back into buffer ops.
// CHECK-LABEL: func.func @softmax_on_buffers(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<7x13xf32>, %[[OUT:[a-z0-9]+]]: memref<7x13xf32>
// CHECK-DAG: %[[X:.*]] = bufferization.to_tensor %[[IN]] restrict : memref<7x13xf32> to tensor<7x13xf32>
// CHECK-DAG: tensor.empty() : tensor<7x13xf32>
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[OUT]] : (tensor<7x13xf32>, memref<7x13xf32>) -> ()
// CHECK-NOT: linalg.softmax
func.func @softmax_on_buffers(%x: memref<7x13xf32>, %y: memref<7x13xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<7x13xf32>) outs(%y : memref<7x13xf32>)
  return
}

// -----

// In place (the input is the output): one view of the buffer, and a write
// without restrict (the buffer has that view), which one-shot-bufferize
// honours with a copy.
// CHECK-LABEL: func.func @softmax_in_place(
// CHECK-SAME: %[[BUF:[a-z0-9]+]]: memref<7x13xf32>
// CHECK: bufferization.to_tensor %[[BUF]] restrict : memref<7x13xf32> to tensor<7x13xf32>
// CHECK-NOT: bufferization.to_tensor
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %[[BUF]]
func.func @softmax_in_place(%x: memref<7x13xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<7x13xf32>) outs(%x : memref<7x13xf32>)
  return
}

// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-check-allocations))' | FileCheck %s

// A heap buffer's pointer is checked right after its allocation: null
// stops the program with a message naming the function, type and size.
// CHECK-LABEL: func.func @temporary(
// CHECK: %[[T:.*]] = memref.alloc() : memref<1048576x1048576xf32>
// CHECK-NEXT: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[T]] : memref<1048576x1048576xf32> -> index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi ne, %[[P]], %[[ZERO]] : index
// CHECK-NEXT: cf.assert %[[OK]], "tessel: out of memory: @temporary could not allocate a memref<1048576x1048576xf32> (4398046511104 bytes)"
func.func @temporary(%out: memref<1048576xf32>) {
  %t = memref.alloc() : memref<1048576x1048576xf32>
  memref.copy %out, %out : memref<1048576xf32> to memref<1048576xf32>
  memref.dealloc %t : memref<1048576x1048576xf32>
  return
}

// -----

// Stack buffers and empty ones are not checked (an empty one may be null).
// CHECK-LABEL: func.func @unchecked(
// CHECK-NOT: cf.assert
// CHECK: return
func.func @unchecked() {
  %s = memref.alloca() : memref<16xf32>
  %e = memref.alloc() : memref<0x4xf32>
  memref.dealloc %e : memref<0x4xf32>
  return
}

// RUN: %tessel-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect --pass-pipeline='builtin.module(tessel-validate-input)' | FileCheck %s

// A program within the input contract passes through unchanged: every
// supported element type, ops of the accepted dialects (also in nested
// regions), a private function with a strided memref (only public
// signatures are the C ABI), and a buffer of exactly 2^47 bytes.

// CHECK-LABEL: func.func @accepted(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32>, %{{.*}}: memref<8xi8>, %{{.*}}: tensor<2xi1>,
// CHECK-SAME: %{{.*}}: tensor<2xi16>, %{{.*}}: tensor<2xi32>, %{{.*}}: tensor<2xi64>,
// CHECK-SAME: %{{.*}}: memref<2xindex>, %{{.*}}: tensor<2xf16>, %{{.*}}: tensor<2xbf16>,
// CHECK-SAME: %{{.*}}: tensor<2xf64>, %{{.*}}: index) -> tensor<4x8xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[ADD:.*]] = linalg.add ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[EMPTY]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[LOOP:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ADD]]) -> (tensor<4x8xf32>) {
// CHECK:   %[[EXP:.*]] = math.exp %[[ACC]] : tensor<4x8xf32>
// CHECK:   scf.yield %[[EXP]] : tensor<4x8xf32>
// CHECK: affine.for
// CHECK:   affine.load
// CHECK: return %[[LOOP]] : tensor<4x8xf32>
func.func @accepted(%a: tensor<4x8xf32>, %b: memref<8xi8>, %c: tensor<2xi1>,
                    %d: tensor<2xi16>, %e: tensor<2xi32>, %f: tensor<2xi64>,
                    %g: memref<2xindex>, %h: tensor<2xf16>, %i: tensor<2xbf16>,
                    %j: tensor<2xf64>, %n: index) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %empty = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.add ins(%a, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %loop = scf.for %iv = %c0 to %n step %c1 iter_args(%acc = %sum) -> (tensor<4x8xf32>) {
    %exp = math.exp %acc : tensor<4x8xf32>
    scf.yield %exp : tensor<4x8xf32>
  }
  affine.for %k = 0 to 8 {
    %v = affine.load %b[%k] : memref<8xi8>
  }
  return %loop : tensor<4x8xf32>
}

// CHECK-LABEL: func.func private @strided_helper(
// CHECK-SAME: memref<4x4xf32, strided<[8, 1]>>
func.func private @strided_helper(%m: memref<4x4xf32, strided<[8, 1]>>) {
  return
}

// CHECK-LABEL: func.func private @largest_buffer(tensor<140737488355328xi8>)
func.func private @largest_buffer(tensor<140737488355328xi8>)

// -----

// expected-error @+2 {{'func.func' op argument #0 has dynamic shape tensor<?x4xf32>: Tessel needs static shapes}}
// expected-error @+1 {{'func.func' op result #0 has dynamic shape tensor<?x4xf32>: Tessel needs static shapes}}
func.func @dynamic_shape(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}

// -----

// Declarations are checked too.
// expected-error @+1 {{'func.func' op argument #1 has dynamic shape memref<8x?xf32>: Tessel needs static shapes}}
func.func private @dynamic_declaration(memref<8xf32>, memref<8x?xf32>)

// -----

// expected-error @+1 {{'func.func' op argument #0 has unranked type tensor<*xf32>: Tessel needs static shapes}}
func.func @unranked_tensor(%a: tensor<*xf32>) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #1 has unranked type memref<*xi32>: Tessel needs static shapes}}
func.func @unranked_memref(%a: memref<4xi32>, %b: memref<*xi32>) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has element type f8E4M3FN in tensor<16xf8E4M3FN>, which Tessel does not support (supported: i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)}}
func.func @fp8_elements(%a: tensor<16xf8E4M3FN>) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has element type complex<f32> in tensor<4xcomplex<f32>>, which Tessel does not support}}
func.func @complex_elements(%a: tensor<4xcomplex<f32>>) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has element type i4 in memref<32xi4>, which Tessel does not support}}
func.func @i4_elements(%a: memref<32xi4>) {
  return
}

// -----

// Scalars of unsupported types are rejected as well.
// expected-error @+2 {{'func.func' op argument #0 has type f8E5M2, which Tessel does not support}}
// expected-error @+1 {{'func.func' op argument #1 has type complex<f64>, which Tessel does not support}}
func.func @unsupported_scalars(%a: f8E5M2, %b: complex<f64>) {
  return
}

// -----

func.func @gpu_op() -> index {
  // expected-error @+1 {{'gpu.thread_id' op is from dialect 'gpu', which Tessel does not accept as input (accepted: linalg, tensor, arith, math, memref, bufferization, tosa, scf, affine, func, ml_program)}}
  %0 = gpu.thread_id x
  return %0 : index
}

// -----

func.func @vector_op(%a: f32) {
  // expected-error @+1 {{'vector.broadcast' op is from dialect 'vector', which Tessel does not accept as input}}
  %0 = vector.broadcast %a : f32 to vector<4xf32>
  return
}

// -----

func.func @unregistered_op() {
  // expected-error @+1 {{'foo.bar' op is unregistered; Tessel cannot compile it}}
  "foo.bar"() : () -> ()
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #1 has type 'memref<4x4xf32, strided<[8, 1]>>' with a non-identity layout; public functions take identity-layout memrefs}}
func.func @strided_public(%a: memref<4x4xf32>, %b: memref<4x4xf32, strided<[8, 1]>>) {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has type tensor<4294967296x4294967296xf32> larger than the 2^47-byte address space Tessel targets}}
func.func @too_large(%a: tensor<4294967296x4294967296xf32>) {
  return
}

// -----

// One byte more than the largest buffer.
// expected-error @+1 {{'func.func' op argument #0 has type memref<140737488355329xi8> larger than the 2^47-byte address space}}
func.func private @one_byte_too_large(memref<140737488355329xi8>)

// -----

// Every problem is reported, not just the first, each at its op.

// expected-error @+3 {{'func.func' op argument #0 has dynamic shape tensor<?xf32>: Tessel needs static shapes}}
// expected-error @+2 {{'func.func' op argument #1 has element type i4 in tensor<4xi4>}}
// expected-error @+1 {{'func.func' op result #0 has unranked type tensor<*xf32>}}
func.func @many(%a: tensor<?xf32>, %b: tensor<4xi4>, %n: index) -> tensor<*xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %iv = %c0 to %n step %c1 {
    // expected-error @+1 {{'gpu.barrier' op is from dialect 'gpu', which Tessel does not accept as input}}
    gpu.barrier
  }
  // expected-error @+1 {{'foo.baz' op is unregistered; Tessel cannot compile it}}
  "foo.baz"() : () -> ()
  // expected-error @+1 {{'tensor.cast' op result #0 has unranked type tensor<*xf32>}}
  %0 = tensor.cast %a : tensor<?xf32> to tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tessel places deallocations itself; explicit frees in the input are
// rejected at the op.

func.func @frees(%out: memref<4xf32>) {
  %tmp = memref.alloc() : memref<4xf32>
  memref.copy %tmp, %out : memref<4xf32> to memref<4xf32>
  // expected-error @+1 {{'memref.dealloc' op frees a buffer in the input; Tessel places deallocations itself, so remove explicit memref.dealloc ops}}
  memref.dealloc %tmp : memref<4xf32>
  return
}

// -----

// Functions of a nested module would not be compiled: rejected at the
// module.

module {
  // expected-error @+1 {{'builtin.module' op is nested in the input module; Tessel compiles the functions of one module (move them to the top level)}}
  module @inner {
    func.func @nested(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  }
}

// -----

// _mlir_ciface_<name> is the C wrapper Tessel generates for @<name>; a
// function of that name would clash with it late, in the LLVM lowering.

func.func @g(%a: memref<4xf32>) {
  return
}
// expected-error @+1 {{'func.func' op is named '_mlir_ciface_g': the prefix _mlir_ciface_ is reserved for the C entry points Tessel generates}}
func.func @_mlir_ciface_g(%a: memref<4xf32>) {
  return
}

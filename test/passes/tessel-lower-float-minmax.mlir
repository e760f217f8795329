// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-lower-float-minmax))' | FileCheck %s

// A 64-lane f32 maximum (a softmax row-max accumulator): one vrangeps per
// 16 lanes (immediate 5: max, sign from the comparison), then NaN where
// the operands are unordered.

// CHECK-LABEL: func.func @max_f32_x64(
// CHECK-SAME: %[[A:.*]]: vector<1x64xf32>, %[[B:.*]]: vector<1x64xf32>)
// CHECK-NOT: arith.maximumf
// CHECK-DAG: %[[FA:.*]] = vector.shape_cast %[[A]] : vector<1x64xf32> to vector<64xf32>
// CHECK-DAG: %[[FB:.*]] = vector.shape_cast %[[B]] : vector<1x64xf32> to vector<64xf32>
// CHECK-DAG: %[[IMM:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[ALL:.*]] = arith.constant -1 : i16
// CHECK-DAG: %[[RND:.*]] = arith.constant 4 : i32
// CHECK: %[[A0:.*]] = vector.extract_strided_slice %[[FA]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: %[[B0:.*]] = vector.extract_strided_slice %[[FB]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%[[A0]], %[[B0]], %[[IMM]], %[[A0]], %[[ALL]], %[[RND]]) : (vector<16xf32>, vector<16xf32>, i32, vector<16xf32>, i16, i32) -> vector<16xf32>
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"
// CHECK: %[[RANGE:.*]] = vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [48], strides = [1]} : vector<16xf32> into vector<64xf32>
// CHECK: %[[UNO:.*]] = arith.cmpf uno, %[[FA]], %[[FB]] : vector<64xf32>
// CHECK: %[[NAN:.*]] = arith.addf %[[FA]], %[[FB]] : vector<64xf32>
// CHECK: %[[SEL:.*]] = arith.select %[[UNO]], %[[NAN]], %[[RANGE]] : vector<64xi1>, vector<64xf32>
// CHECK: %[[R:.*]] = vector.shape_cast %[[SEL]] : vector<64xf32> to vector<1x64xf32>
// CHECK: return %[[R]]
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", features = "+avx512f,+avx512dq", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @max_f32_x64(%a: vector<1x64xf32>, %b: vector<1x64xf32>) -> vector<1x64xf32> {
    %0 = arith.maximumf %a, %b : vector<1x64xf32>
    return %0 : vector<1x64xf32>
  }
}

// -----

// f64 minimum over 8 lanes: one vrangepd (immediate 4: min), i8 lane mask;
// with nnan the NaN fix-up is left out.

// CHECK-LABEL: func.func @min_f64_x8(
// CHECK-SAME: %[[A:.*]]: vector<8xf64>, %[[B:.*]]: vector<8xf64>)
// CHECK-DAG: %[[IMM:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[ALL:.*]] = arith.constant -1 : i8
// CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.range.pd.512"(%[[A]], %[[B]], %[[IMM]], %[[A]], %[[ALL]], %{{.*}}) : (vector<8xf64>, vector<8xf64>, i32, vector<8xf64>, i8, i32) -> vector<8xf64>
// CHECK-NOT: arith.cmpf
// CHECK: return %[[R]]
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", features = "+avx512f,+avx512dq", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @min_f64_x8(%a: vector<8xf64>, %b: vector<8xf64>) -> vector<8xf64> {
    %0 = arith.minimumf %a, %b fastmath<nnan> : vector<8xf64>
    return %0 : vector<8xf64>
  }
}

// -----

// Left alone: scalars, vectors that are not whole 512-bit registers, and
// maxnumf (NaN-ignoring, which LLVM lowers well).

// CHECK-LABEL: func.func @left_alone(
// CHECK: arith.maximumf %{{.*}} : f32
// CHECK: arith.maximumf %{{.*}} : vector<8xf32>
// CHECK: arith.maxnumf %{{.*}} : vector<16xf32>
// CHECK-NOT: llvm.call_intrinsic
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", features = "+avx512f,+avx512dq", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @left_alone(%s: f32, %t: f32, %a: vector<8xf32>, %b: vector<8xf32>, %c: vector<16xf32>, %d: vector<16xf32>) -> (f32, vector<8xf32>, vector<16xf32>) {
    %0 = arith.maximumf %s, %t : f32
    %1 = arith.maximumf %a, %b : vector<8xf32>
    %2 = arith.maxnumf %c, %d : vector<16xf32>
    return %0, %1, %2 : f32, vector<8xf32>, vector<16xf32>
  }
}

// -----

// Left alone: a target without AVX-512DQ (the last +/- wins), and one that
// asks for 256-bit vectors.

// CHECK-LABEL: func.func @no_dq(
// CHECK: arith.maximumf %{{.*}} : vector<16xf32>
// CHECK-NOT: llvm.call_intrinsic
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", features = "+avx512f,+avx512dq,-avx512dq", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @no_dq(%a: vector<16xf32>, %b: vector<16xf32>) -> vector<16xf32> {
    %0 = arith.maximumf %a, %b : vector<16xf32>
    return %0 : vector<16xf32>
  }
}

// -----

// CHECK-LABEL: func.func @narrow_vectors(
// CHECK: arith.maximumf %{{.*}} : vector<16xf32>
// CHECK-NOT: llvm.call_intrinsic
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", features = "+avx512f,+avx512dq", vector_bits = 256, vector_registers = 32, cache_line = 64, l1 = 49152, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @narrow_vectors(%a: vector<16xf32>, %b: vector<16xf32>) -> vector<16xf32> {
    %0 = arith.maximumf %a, %b : vector<16xf32>
    return %0 : vector<16xf32>
  }
}

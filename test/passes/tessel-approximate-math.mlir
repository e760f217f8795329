// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-approximate-math))' | FileCheck %s
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tessel-approximate-math{target-instructions=false}))' | FileCheck %s --check-prefix=PORTABLE

// tanh: a clamped odd rational polynomial, x * P(x^2) / Q(x^2), with tanh(x)
// ~ x near zero.

// CHECK-LABEL: func.func @tanh_f32(
// CHECK-SAME: %[[X:.*]]: f32) -> f32
// CHECK-NOT: math.tanh
// CHECK: %[[LO:.*]] = arith.select %{{.*}}, %[[X]], %{{.*}} : f32
// CHECK: %[[CLAMPED:.*]] = arith.select %{{.*}}, %[[LO]], %{{.*}} : f32
// CHECK: %[[ABS:.*]] = math.absf %[[X]] : f32
// CHECK: %[[SQ:.*]] = arith.mulf %[[CLAMPED]], %[[CLAMPED]] : f32
// CHECK: math.fma %[[SQ]]
// CHECK: %[[NUM:.*]] = arith.mulf %[[CLAMPED]], %{{.*}} : f32
// CHECK: %[[RATIO:.*]] = arith.divf %[[NUM]], %{{.*}} : f32
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %[[CLAMPED]], %[[RATIO]] : f32
// CHECK-NOT: math.tanh
// CHECK: return %[[R]] : f32
func.func @tanh_f32(%x: f32) -> f32 {
  %0 = math.tanh %x : f32
  return %0 : f32
}

// -----

// erf: one rational function of the argument clamped to [-4, 4] (IEEE
// max / min: NaN passes through), x P(x^2) / Q(x^2) with P of degree 6 and
// Q of degree 4 (6 + 4 fmas), no selects, the result clamped to [-1, 1];
// vectors alike.

// CHECK-LABEL: func.func @erf_f32(
// CHECK-SAME: %[[X:.*]]: f32) -> f32
// CHECK-NOT: math.erf
// CHECK: %[[LO:.*]] = arith.maximumf %[[X]], %{{.*}} : f32
// CHECK: %[[C:.*]] = arith.minimumf %[[LO]], %{{.*}} : f32
// CHECK: %[[T:.*]] = arith.mulf %[[C]], %[[C]] : f32
// CHECK-COUNT-6: math.fma %{{.*}}, %[[T]], %{{.*}} : f32
// CHECK: %[[NUM:.*]] = arith.mulf %[[C]], %{{.*}} : f32
// CHECK-COUNT-4: math.fma %{{.*}}, %[[T]], %{{.*}} : f32
// CHECK-NOT: arith.select
// CHECK: %[[Q:.*]] = arith.divf %[[NUM]], %{{.*}} : f32
// CHECK: %[[QLO:.*]] = arith.maximumf %[[Q]], %{{.*}} : f32
// CHECK: %[[R:.*]] = arith.minimumf %[[QLO]], %{{.*}} : f32
// CHECK-NOT: math.erf
// CHECK: return %[[R]] : f32
// CHECK-LABEL: func.func @erf_vector(
// CHECK: arith.maximumf %{{.*}} : vector<16xf32>
// CHECK-COUNT-10: math.fma %{{.*}} : vector<16xf32>
// CHECK: arith.divf %{{.*}} : vector<16xf32>
// CHECK-NOT: math.erf
func.func @erf_f32(%x: f32) -> f32 {
  %0 = math.erf %x : f32
  return %0 : f32
}
func.func @erf_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// exp: range reduction x = k ln2 + r, a polynomial in r, and 2^k built in
// the exponent bits.

// CHECK-LABEL: func.func @exp_f32(
// CHECK-SAME: %[[X:.*]]: f32) -> f32
// CHECK-NOT: math.exp
// CHECK: math.floor
// CHECK: math.fma
// CHECK: %[[K:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK: %[[BIASED:.*]] = arith.addi %[[K]], %{{.*}} : i32
// CHECK: %[[BITS:.*]] = arith.shli %[[BIASED]], %{{.*}} : i32
// CHECK: %[[POW2:.*]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK: %[[R:.*]] = arith.mulf %{{.*}}, %[[POW2]] : f32
// CHECK-NOT: math.exp
// CHECK: return %[[R]] : f32
func.func @exp_f32(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}

// -----

// Vectors of f32 are approximated element-wise, in vector form.

// CHECK-LABEL: func.func @tanh_vector(
// CHECK-SAME: %[[X:.*]]: vector<8xf32>) -> vector<8xf32>
// CHECK-NOT: math.tanh
// CHECK: math.absf %[[X]] : vector<8xf32>
// CHECK: arith.divf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: math.tanh
// CHECK: return %{{.*}} : vector<8xf32>
func.func @tanh_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.tanh %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// -----

// f64 ops are left for convert-math-to-libm, also next to rewritten f32 ones.

// CHECK-LABEL: func.func @f64_stays(
// CHECK-SAME: %[[X:.*]]: f64, %[[Y:.*]]: f32)
// CHECK: %[[T:.*]] = math.tanh %[[X]] : f64
// CHECK-NEXT: %[[E:.*]] = math.erf %[[X]] : f64
// CHECK-NEXT: %[[P:.*]] = math.exp %[[X]] : f64
// CHECK-NOT: math.tanh
// CHECK: math.absf %[[Y]] : f32
// CHECK-NOT: math.tanh
// CHECK: return %[[T]], %[[E]], %[[P]], %{{.*}} : f64, f64, f64, f32
func.func @f64_stays(%x: f64, %y: f32) -> (f64, f64, f64, f32) {
  %0 = math.tanh %x : f64
  %1 = math.erf %x : f64
  %2 = math.exp %x : f64
  %3 = math.tanh %y : f32
  return %0, %1, %2, %3 : f64, f64, f64, f32
}

// Math on tensors is left alone (the upstream rewrites handle scalars and
// vectors only); convert-elementwise-to-linalg turns it into scalar code
// before this pass runs in the pipelines.

// CHECK-LABEL: func.func @tensor_left_alone(
// CHECK: math.exp %{{.*}} : tensor<4xf32>
// CHECK-NOT: math.exp %{{.*}} : f32
func.func @tensor_left_alone(%x: tensor<4xf32>, %y: f32) -> (tensor<4xf32>, f32) {
  %0 = math.exp %x : tensor<4xf32>
  %1 = math.exp %y : f32
  return %0, %1 : tensor<4xf32>, f32
}

// -----

// On an AVX-512 target, exp of a 1x64 vector is flattened and its 2^k scale
// is one vscalefps per 16 lanes: no integer exponent construction. With
// target-instructions=false the portable expansion stays.

// CHECK-LABEL: func.func @exp_avx512(
// CHECK-SAME: %[[X:.*]]: vector<1x64xf32>) -> vector<1x64xf32>
// CHECK-NOT: math.exp
// CHECK: %[[FLAT:.*]] = vector.shape_cast %[[X]] : vector<1x64xf32> to vector<64xf32>
// CHECK: %[[LO:.*]] = arith.cmpf uge, %[[FLAT]]
// CHECK: %[[K:.*]] = math.roundeven %{{.*}} : vector<64xf32>
// CHECK-COUNT-8: math.fma
// CHECK-NOT: math.fma
// CHECK-NOT: arith.fptosi
// CHECK-NOT: arith.shli
// CHECK: %[[K0:.*]] = vector.extract_strided_slice %[[K]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK: x86vector.avx512.mask.scalef %{{.*}}, %[[K0]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-3: x86vector.avx512.mask.scalef
// CHECK: %[[R:.*]] = vector.shape_cast %{{.*}} : vector<64xf32> to vector<1x64xf32>
// CHECK: return %[[R]]

// PORTABLE-LABEL: func.func @exp_avx512(
// PORTABLE-NOT: x86vector
// PORTABLE: arith.fptosi
// PORTABLE: arith.shli
// PORTABLE-NOT: x86vector
// PORTABLE: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", features = "+avx2,+avx512f,+fma", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @exp_avx512(%x: vector<1x64xf32>) -> vector<1x64xf32> {
    %0 = math.exp %x : vector<1x64xf32>
    return %0 : vector<1x64xf32>
  }
}

// -----

// Lane counts that are not a multiple of 16, scalars and targets without
// AVX-512F keep the portable expansion.

// CHECK-LABEL: func.func @exp_not_16_lanes(
// CHECK-NOT: x86vector
// CHECK: arith.fptosi %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK-NOT: x86vector
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", features = "+avx512f", vector_bits = 512, vector_registers = 32, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @exp_not_16_lanes(%x: vector<8xf32>, %y: f32) -> (vector<8xf32>, f32) {
    %0 = math.exp %x : vector<8xf32>
    %1 = math.exp %y : f32
    return %0, %1 : vector<8xf32>, f32
  }
}

// -----

// CHECK-LABEL: func.func @exp_avx2_target(
// CHECK-NOT: x86vector
// CHECK: arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK: return
module attributes {tessel.target = #tessel.target<kind = "cpu", triple = "x86_64-pc-linux-gnu", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, cache_line = 64, l1 = 32768, l2 = 1048576, l3 = 33554432, cores = 2>} {
  func.func @exp_avx2_target(%x: vector<16xf32>) -> vector<16xf32> {
    %0 = math.exp %x : vector<16xf32>
    return %0 : vector<16xf32>
  }
}

// -----

// Subnormal inputs of log: upstream's approximation clamps its input to
// the smallest normal float, so they are scaled by 2^23 first and
// 23 log(2) is subtracted from their result (log(1e-45) was -87.34, not
// -103.28).
// CHECK-LABEL: func.func @log_subnormal(
// CHECK-SAME: %[[X:[a-z0-9]+]]: vector<16xf32>
// CHECK: %[[MIN:.*]] = arith.constant dense<1.17549435E-38> : vector<16xf32>
// CHECK: %[[SUB:.*]] = arith.cmpf olt, %[[X]], %[[MIN]] : vector<16xf32>
// CHECK: %[[SCALE:.*]] = arith.constant dense<0x4B000000> : vector<16xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : vector<16xf32>
// CHECK: arith.select %[[SUB]], %[[SCALED]], %[[X]] : vector<16xi1>, vector<16xf32>
// CHECK-NOT: math.log
// CHECK: %[[LOG_SCALE:.*]] = arith.constant dense<15.9423847> : vector<16xf32>
// CHECK-NOT: math.log
// CHECK: %[[CORRECTED:.*]] = arith.subf %[[LOG:.*]], %[[LOG_SCALE]] : vector<16xf32>
// CHECK: %[[R:.*]] = arith.select %[[SUB]], %[[CORRECTED]], %[[LOG]] : vector<16xi1>, vector<16xf32>
// CHECK: return %[[R]]
// PORTABLE-LABEL: func.func @log_subnormal(
func.func @log_subnormal(%x: vector<16xf32>) -> vector<16xf32> {
  %r = math.log %x : vector<16xf32>
  return %r : vector<16xf32>
}

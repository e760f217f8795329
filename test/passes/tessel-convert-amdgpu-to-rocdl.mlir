// RUN: %tessel-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tessel-convert-amdgpu-to-rocdl))' | FileCheck %s

// The chip comes from the gpu.module's #rocdl.target: gfx90a's MFMA
// intrinsics, i8 operands packed into an i32 as the intrinsic takes them.
module {
// CHECK-LABEL: gpu.module @cdna
gpu.module @cdna [#rocdl.target<chip = "gfx90a">] {
  // CHECK-LABEL: gpu.func @f16
  // CHECK: rocdl.mfma.f32.16x16x16f16 {{.*}} : (vector<4xf16>, vector<4xf16>, vector<4xf32>, i32, i32, i32) -> vector<4xf32>
  // CHECK-NOT: amdgpu.
  gpu.func @f16(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>, %out: memref<4xf32>) kernel {
    %d = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
    %i = arith.constant 0 : index
    vector.store %d, %out[%i] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
  // CHECK-LABEL: gpu.func @i8
  // CHECK: rocdl.mfma.i32.16x16x16i8 {{.*}} : (i32, i32, vector<4xi32>, i32, i32, i32) -> vector<4xi32>
  gpu.func @i8(%a: vector<4xi8>, %b: vector<4xi8>, %c: vector<4xi32>, %out: memref<4xi32>) kernel {
    %d = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xi8>, vector<4xi8>, vector<4xi32>
    %i = arith.constant 0 : index
    vector.store %d, %out[%i] : memref<4xi32>, vector<4xi32>
    gpu.return
  }
}
}

// -----

// gfx1100: RDNA3's WMMA intrinsic.
module {
// CHECK-LABEL: gpu.module @rdna3
gpu.module @rdna3 [#rocdl.target<chip = "gfx1100">] {
  // CHECK: rocdl.wmma.f32.16x16x16.f16
  // CHECK-NOT: amdgpu.
  gpu.func @f16(%a: vector<16xf16>, %b: vector<16xf16>, %c: vector<8xf32>, %out: memref<8xf32>) kernel {
    %d = amdgpu.wmma 16x16x16 %a * %b + %c : vector<16xf16>, vector<16xf16>, vector<8xf32>
    %i = arith.constant 0 : index
    vector.store %d, %out[%i] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}
}

// -----

// No #rocdl.target: the chip is unknown, which is an error, not gfx000.
module {
gpu.module @bare {
  gpu.func @f16(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>, %out: memref<4xf32>) kernel {
    // expected-error @below {{cannot lower amdgpu ops: gpu.module @bare has no #rocdl.target naming the chip (run tessel-attach-gpu-target first)}}
    %d = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
    %i = arith.constant 0 : index
    vector.store %d, %out[%i] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
}
}

// -----

// An MFMA on a chip without it (RDNA3) is upstream's error at the op, and
// the conversion fails.
module {
gpu.module @wrong_chip [#rocdl.target<chip = "gfx1100">] {
  gpu.func @f16(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>, %out: memref<4xf32>) kernel {
    // expected-error @+2 {{'amdgpu.mfma' op MFMA only supported on gfx908+}}
    // expected-error @+1 {{failed to legalize operation 'amdgpu.mfma'}}
    %d = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
    %i = arith.constant 0 : index
    vector.store %d, %out[%i] : memref<4xf32>, vector<4xf32>
    gpu.return
  }
}
}

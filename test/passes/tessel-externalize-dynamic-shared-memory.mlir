// tessel-externalize-dynamic-shared-memory: the zero-length shared arrays
// that gpu.dynamic_shared_memory lowers to become external (PTX `.extern
// .shared ... []`, after all static shared memory); every other global
// stays as it is.
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tessel-externalize-dynamic-shared-memory))' | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
// CHECK-DAG: llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global internal @initialized() {addr_space = 3 : i32} : !llvm.array<0 x i8>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
  llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global internal @initialized() {addr_space = 3 : i32} : !llvm.array<0 x i8> {
    %0 = llvm.mlir.undef : !llvm.array<0 x i8>
    llvm.return %0 : !llvm.array<0 x i8>
  }
  llvm.func @k() attributes {nvvm.kernel} {
    %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    %1 = llvm.mlir.addressof @__mbarrier : !llvm.ptr<3>
    llvm.return
  }
}

// -----

// The form upstream's convert-gpu-to-nvvm gives it, from the op (before
// that conversion there is nothing to change).
// CHECK-LABEL: gpu.module @from_the_op
// CHECK-NOT: llvm.mlir.global
// CHECK: gpu.dynamic_shared_memory
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm, tessel-externalize-dynamic-shared-memory))' | FileCheck %s --check-prefix=CONVERTED
// The PTX (no ptxas needed): an extern array, not upstream's 1-byte static
// variable, which ptxas may follow with other static shared variables.
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm, tessel-externalize-dynamic-shared-memory, reconcile-unrealized-casts), gpu-module-to-binary{format=isa})' | FileCheck %s --check-prefix=PTX
// RUN: %tessel-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm, reconcile-unrealized-casts), gpu-module-to-binary{format=isa})' | FileCheck %s --check-prefix=UPSTREAM-PTX
// PTX: gpu.binary @from_the_op
// PTX-SAME: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// UPSTREAM-PTX: gpu.binary @from_the_op
// UPSTREAM-PTX-SAME: .shared .align 16 .b8 __dynamic_shmem__0;
// CONVERTED-LABEL: gpu.module @from_the_op
// CONVERTED: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
gpu.module @from_the_op [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%x: i8, %out: memref<64xi8>) kernel {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c1 = arith.constant 1 : index
    memref.store %x, %smem[%tid] : memref<?xi8, #gpu.address_space<workgroup>>
    gpu.barrier
    %other = arith.xori %tid, %c1 : index
    %y = memref.load %smem[%other] : memref<?xi8, #gpu.address_space<workgroup>>
    memref.store %y, %out[%tid] : memref<64xi8>
    gpu.return
  }
}

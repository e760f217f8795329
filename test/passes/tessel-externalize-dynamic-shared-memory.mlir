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
gpu.module @kernels {
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
// CONVERTED-LABEL: gpu.module @from_the_op
// CONVERTED: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
gpu.module @from_the_op {
  gpu.func @k() kernel {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %x = memref.load %smem[%c0] : memref<?xi8, #gpu.address_space<workgroup>>
    memref.store %x, %smem[%c0] : memref<?xi8, #gpu.address_space<workgroup>>
    gpu.return
  }
}

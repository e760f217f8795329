// blur_x_blur_y at 3x4096x4096 through the whole NVIDIA pipeline is one
// kernel: the x blur of each tile (and its halo rows) goes to a buffer in
// shared memory, the y blur reads it back; the 3x4096x4092 intermediate of
// the unfused program never exists. The two zero fills are folded into the
// blurs (their accumulators start at 0), so the kernel has two ops and one
// barrier (bar.sync) between them. The tile sizes and strides are sunk
// into the kernel (gpu-launch-sink-index-computations): it takes the two
// memrefs and nothing else. Unsharp and Harris likewise compile to one
// kernel each. The PTX of each assembles (sm_80 and sm_90a) without
// spills.
// RUN: sed -e 's/2048x2048/4096x4096/g' -e 's/2048x2044/4096x4092/g' -e 's/2044x2044/4092x4092/g' %tessel_src/utils/demo/blur_x_blur_y.mlir > %t.blur.mlir
// RUN: tessel-compile %t.blur.mlir --target=nvgpu -o %t.blur.out.mlir --remarks 2> %t.blur.remarks
// RUN: FileCheck %s --input-file=%t.blur.out.mlir
// RUN: FileCheck %s --check-prefix=REMARKS --input-file=%t.blur.remarks
// RUN: tessel-compile %tessel_src/utils/bench/image/workloads/unsharp.mlir --target=nvgpu -o %t.unsharp.mlir
// RUN: FileCheck %s --check-prefix=ONE --input-file=%t.unsharp.mlir
// RUN: tessel-compile %tessel_src/utils/bench/image/workloads/harris.mlir --target=nvgpu -o %t.harris.mlir
// RUN: FileCheck %s --check-prefix=ONE --input-file=%t.harris.mlir

// REQUIRES: ptxas
// RUN: rm -rf %t.ptx80 %t.ptx90
// RUN: tessel-compile %t.blur.mlir --target=nvgpu -o %t.b.o --emit-device-asm=%t.ptx80
// RUN: tessel-compile %tessel_src/utils/bench/image/workloads/unsharp.mlir --target=nvgpu -o %t.u.o --emit-device-asm=%t.ptx80
// RUN: tessel-compile %tessel_src/utils/bench/image/workloads/harris.mlir --target=nvgpu -o %t.h.o --emit-device-asm=%t.ptx80
// RUN: %python %tessel_src/test/driver/Inputs/ptxas_all.py %ptxas sm_80 %t.ptx80 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=FAIL
// RUN: tessel-compile %t.blur.mlir --target=nvgpu --target-options=chip=sm_90a -o %t.b90.o --emit-device-asm=%t.ptx90
// RUN: tessel-compile %tessel_src/utils/bench/image/workloads/harris.mlir --target=nvgpu --target-options=chip=sm_90a -o %t.h90.o --emit-device-asm=%t.ptx90
// RUN: %python %tessel_src/test/driver/Inputs/ptxas_all.py %ptxas sm_90a %t.ptx90 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=FAIL
// Every tap of both blurs is one fma (tessel-contract-multiply-adds): no
// multiply or add rounded on its own is left, and no libdevice call.
// RUN: FileCheck %s --check-prefix=FMA --implicit-check-not=mul.rn.f32 --implicit-check-not=add.rn.f32 --implicit-check-not=__nv_ --input-file=%t.ptx80/blur_x_blur_y_kernel.ptx
// RUN: FileCheck %s --check-prefix=FMA --implicit-check-not=mul.rn.f32 --implicit-check-not=add.rn.f32 --implicit-check-not=__nv_ --input-file=%t.ptx90/blur_x_blur_y_kernel.ptx

// CHECK-NOT: 4096x4092
// CHECK: llvm.func @blur_x_blur_y(
// CHECK-NOT: 4096x4092
// CHECK: gpu.launch_func @blur_x_blur_y_kernel::@blur_x_blur_y_kernel
// CHECK-SAME: args(%{{[0-9]+}} : !llvm.ptr, %{{[0-9]+}} : !llvm.ptr{{((, %[0-9]+ : i64){7})}}, %{{[0-9]+}} : !llvm.ptr, %{{[0-9]+}} : !llvm.ptr{{((, %[0-9]+ : i64){7})}})
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @blur_x_blur_y_kernel
// CHECK-NOT: gpu.binary
// CHECK-SAME: .shared
// CHECK-SAME: bar.sync
// CHECK-NOT: bar.sync

// REMARKS: fused 1 producer(s) [linalg.generic at {{.*}}] into its tiles: tile {{.*}} tiles over 216 block slots (2 per SM)), intermediates {{[0-9]+}} B per tile (budget shared memory/2 - reserve = 81920 B)
// REMARKS: tile loop mapped to one GPU kernel: a block of {{[0-9]+}} threads per tile, 2 op(s) per tile with barriers between them

// ONE-COUNT-1: gpu.launch_func
// ONE-NOT: gpu.launch_func

// PTXAS: OK blur_x_blur_y_kernel

// FMA: .entry blur_x_blur_y_kernel
// FMA: fma.rn.f32

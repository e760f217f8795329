// Harris (utils/bench/image/workloads/harris.mlir, ten linalg ops) through
// the fusion stage of the CPU pipeline: tessel-fuse-elementwise inlines the
// three products into the box sums, tessel-merge-siblings merges the two
// Sobel filters and the three box sums, and tessel-fuse-producers puts what
// remains into one parallel tile loop of four ops: luminance, the Sobel
// pair (two results), the box-sum triple (three results), the response.
// No full-size intermediate exists.
// RUN: %tessel-opt %tessel_src/utils/bench/image/workloads/harris.mlir -mlir-print-op-on-diagnostic=false --pass-pipeline='builtin.module(tessel-attach-target{kind=cpu vector-bits=512 vector-registers=32 l1=32768 l2=1048576 l3=33554432 cores=2},func.func(tessel-fuse-elementwise, tessel-merge-siblings, tessel-fuse-producers))' 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

// CHECK-LABEL: func.func @harris(
// CHECK-NOT: tensor<2046x2046xf32>
// CHECK-NOT: tensor<2048x2048xf32>
// CHECK: scf.forall
// CHECK: linalg.generic
// CHECK: %{{.*}}:2 = linalg.generic
// CHECK: %{{.*}}:3 = linalg.generic
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic

// REMARK-DAG: remark: not inlined into its consumers: each element evaluated 18 times at 5 ops
// REMARK-DAG: remark: inlined into 1 consumer(s): each element evaluated 8.98 times at 0 ops (its multiply becomes an FMA
// REMARK-DAG: remark: merged with the linalg.generic at
// REMARK-DAG: remark: fused 3 producer(s)

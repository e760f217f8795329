// RUN: %tessel-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(tessel-sink-stream-fences))' | FileCheck %s

// The fence after one tile's non-temporal stores (in the streaming version
// of the nest, inside an scf.if) leaves the worksharing loop: one fence per
// thread after its share. The loop becomes nowait; the parallel region
// ends right after it, and that end is the barrier. A pure intrinsic in
// the body (vrange) does not stop the move.

// CHECK-LABEL: func.func @worksharing(
// CHECK: omp.parallel {
// CHECK-NEXT: omp.wsloop nowait {
// CHECK: scf.if
// CHECK: vector.store {{.*}}nontemporal = true
// CHECK-NOT: llvm.x86.sse.sfence
// CHECK: omp.yield
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
// CHECK-NEXT: omp.terminator
func.func @worksharing(%aligned: i1, %in: memref<64x256xf32>, %out: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %m1 = arith.constant -1 : i16
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  omp.parallel {
    // expected-remark @+1 {{1 fence(s) of non-temporal stores moved out of the loop body: one sfence per thread after its share of the worksharing loop, not one per iteration}}
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        scf.if %aligned {
          scf.for %j = %c0 to %c256 step %c16 {
            %v = vector.load %in[%i, %j] : memref<64x256xf32>, vector<16xf32>
            %r = llvm.call_intrinsic "llvm.x86.avx512.mask.range.ps.512"(%v, %v, %c5, %v, %m1, %c4) : (vector<16xf32>, vector<16xf32>, i32, vector<16xf32>, i16, i32) -> vector<16xf32>
            vector.store %r, %out[%i, %j] {nontemporal = true} : memref<64x256xf32>, vector<16xf32>
          }
          llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
        } else {
          scf.for %j = %c0 to %c256 step %c16 {
            %v = vector.load %in[%i, %j] : memref<64x256xf32>, vector<16xf32>
            vector.store %v, %out[%i, %j] : memref<64x256xf32>, vector<16xf32>
          }
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// More work follows the worksharing loop in the same parallel region: the
// fence is followed by an explicit barrier, which the loop's own barrier
// was. A loop that already was nowait gets the fence and no barrier.

// CHECK-LABEL: func.func @work_after(
// CHECK: omp.wsloop nowait {
// CHECK: omp.yield
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: omp.barrier
// CHECK-NEXT: omp.wsloop nowait {
// CHECK: omp.yield
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: memref.store
// CHECK-NEXT: omp.terminator
func.func @work_after(%out: memref<64x16xf32>, %flag: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  %f = arith.constant 1.0 : f32
  omp.parallel {
    // expected-remark @+1 {{1 fence(s) of non-temporal stores moved out}}
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
        llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
        omp.yield
      }
    }
    // expected-remark @+1 {{1 fence(s) of non-temporal stores moved out}}
    omp.wsloop nowait {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
        llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
        omp.yield
      }
    }
    memref.store %f, %flag[%c0] : memref<1xf32>
    omp.terminator
  }
  return
}

// -----

// Sequential loops: both fences of the nest leave the outermost loop as one.

// CHECK-LABEL: func.func @sequential(
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: vector.store {{.*}}nontemporal = true{{.*}}vector<16xf32>{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: return
func.func @sequential(%out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  // expected-remark @+1 {{2 fence(s) of non-temporal stores moved out of the loop body: one sfence after the loop, not one per iteration}}
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c32 step %c16 {
      vector.store %v, %out[%i, %j] {nontemporal = true} : memref<64x32xf32>, vector<16xf32>
      llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    }
    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
  }
  return
}

// -----

// A loop whose body synchronizes (an atomic) keeps the fence of its
// iterations; a fence inside an inner loop without one still leaves that
// inner loop, and no further.

// CHECK-LABEL: func.func @atomic_in_outer(
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: vector.store {{.*}}nontemporal = true{{.*}}vector<16xf32>{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: memref.atomic_rmw
// CHECK: }
// CHECK-NEXT: return
func.func @atomic_in_outer(%out: memref<64x32xf32>, %count: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c64 step %c1 {
    // expected-remark @+1 {{1 fence(s) of non-temporal stores moved out of the loop body: one sfence after the loop, not one per iteration (not further: the next loop out holds memref.atomic_rmw, which may synchronize with other threads)}}
    scf.for %j = %c0 to %c32 step %c16 {
      vector.store %v, %out[%i, %j] {nontemporal = true} : memref<64x32xf32>, vector<16xf32>
      llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    }
    %old = memref.atomic_rmw addf %one, %count[%c0] : (f32, memref<1xf32>) -> f32
  }
  return
}

// -----

// Left in place, with the reason: a call in the loop (it might publish the
// stores to another thread), and the body of an scf.parallel (each
// iteration may run on another thread). A fence outside any loop is
// neither moved nor remarked on.

func.func private @publish()

// CHECK-LABEL: func.func @call_in_loop(
// CHECK: vector.store
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: func.call @publish()
func.func @call_in_loop(%out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
    // expected-remark @+1 {{fence of non-temporal stores left in its loop: the loop holds func.call, which may synchronize with other threads}}
    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    func.call @publish() : () -> ()
  }
  return
}

// CHECK-LABEL: func.func @parallel_body(
// CHECK: scf.parallel
// CHECK: vector.store
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
func.func @parallel_body(%out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
    // expected-remark @+1 {{fence of non-temporal stores left in its loop: it is in the body of scf.parallel, whose iterations may run on different threads}}
    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    scf.reduce
  }
  return
}

// CHECK-LABEL: func.func @no_loop(
// CHECK: vector.store
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: return
func.func @no_loop(%out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  vector.store %v, %out[%c0, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
  llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
  return
}

// -----

// More that keeps a fence in its loop: an OpenMP construct in the
// worksharing loop's body, an intrinsic that touches memory (a prefetch),
// a parallel loop that reads the rows after the fence, an op the analysis
// cannot see into.

// CHECK-LABEL: func.func @critical_in_wsloop(
// CHECK: omp.wsloop {
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: omp.critical
func.func @critical_in_wsloop(%out: memref<64x16xf32>, %count: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  %f = arith.constant 1.0 : f32
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%c64) step (%c1) {
        vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
        // expected-remark @+1 {{fence of non-temporal stores left in its loop: the loop holds omp.critical, which may synchronize with other threads}}
        llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
        omp.critical {
          memref.store %f, %count[%c0] : memref<1xf32>
          omp.terminator
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// CHECK-LABEL: func.func @prefetch_intrinsic(
// CHECK: scf.for
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: llvm.call_intrinsic "llvm.prefetch.p0"
func.func @prefetch_intrinsic(%out: memref<64x16xf32>, %p: !llvm.ptr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  %rw = arith.constant 0 : i32
  %loc = arith.constant 3 : i32
  %data = arith.constant 1 : i32
  scf.for %i = %c0 to %c64 step %c1 {
    vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
    // expected-remark @+1 {{the loop holds llvm.call_intrinsic, which may synchronize}}
    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    llvm.call_intrinsic "llvm.prefetch.p0"(%p, %rw, %loc, %data) : (!llvm.ptr, i32, i32, i32) -> ()
  }
  return
}

// CHECK-LABEL: func.func @parallel_reader(
// CHECK: scf.for
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: scf.parallel
func.func @parallel_reader(%out: memref<64x16xf32>, %sum: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
    // expected-remark @+1 {{the loop holds scf.parallel, which may synchronize}}
    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %out[%i, %j] : memref<64x16xf32>
      memref.store %x, %sum[%i, %j] : memref<64x16xf32>
      scf.reduce
    }
  }
  return
}

// CHECK-LABEL: func.func @unregistered_op(
// CHECK: scf.for
// CHECK: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: "foo.publish"()
func.func @unregistered_op(%out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
    // expected-remark @+1 {{the loop holds foo.publish, which may synchronize}}
    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    "foo.publish"() : () -> ()
  }
  return
}

// -----

// A fence already right after the loop serves the moved ones; the fence
// in an scf.while's body leaves it too.

// CHECK-LABEL: func.func @fence_after_loop(
// CHECK: scf.for
// CHECK-NEXT: vector.store {{.*}}nontemporal = true{{.*}}vector<16xf32>{{$}}
// CHECK-NEXT: }
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: scf.while
// CHECK-NOT: llvm.x86.sse.sfence
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: llvm.call_intrinsic "llvm.x86.sse.sfence"()
// CHECK-NEXT: return
func.func @fence_after_loop(%out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<16xf32>
  // expected-remark @+1 {{1 fence(s) of non-temporal stores moved out of the loop body: one sfence after the loop}}
  scf.for %i = %c0 to %c64 step %c1 {
    vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
  }
  llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
  // expected-remark @+1 {{1 fence(s) of non-temporal stores moved out of the loop body: one sfence after the loop}}
  %end = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi slt, %i, %c64 : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    vector.store %v, %out[%i, %c0] {nontemporal = true} : memref<64x16xf32>, vector<16xf32>
    llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  return
}

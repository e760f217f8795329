// A Hopper kernel whose threads read shared memory a TMA load fills: thread
// 0 arms mbarrier 0 with the box's bytes and loads rows 64..127 of `in` (36
// rows exist, the rest are zero fill), every thread waits for the phase and
// copies row t of the box, as the 128-byte swizzle leaves it in shared
// memory, to row t of `out`. gpu_emulation_hopper.test runs
// it as written and with the synchronization broken in ways that read
// stale shared memory, hang, or misalign the box.
#wg = #gpu.address_space<workgroup>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf32, #wg>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #wg, num_barriers = 2>
func.func @tma_rows(%in: memref<100x32xf32>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  // The box and the slack that lets it start on a 1024-byte boundary.
  %bytes = arith.constant 9216 : i32
  %unranked = memref.cast %in : memref<100x32xf32> to memref<*xf32>
  %map = nvgpu.tma.create.descriptor %unranked box[%c64, %c32] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%t, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %buffer = gpu.dynamic_shared_memory : memref<?xi8, #wg>
    %address = memref.extract_aligned_pointer_as_index %buffer : memref<?xi8, #wg> -> index
    %over = arith.remui %address, %c1024 : index
    %gap = arith.subi %c1024, %over : index
    %aligned = arith.remui %gap, %c1024 : index
    %misaligned = arith.addi %aligned, %c128 : index
    %tile = memref.view %buffer[%aligned][] : memref<?xi8, #wg> to memref<64x32xf32, #wg>
    %leader = arith.cmpi eq, %t, %c0 : index
    %bars = nvgpu.mbarrier.create -> !bars
    nvgpu.mbarrier.init %bars[%c0], %c1, predicate = %leader : !bars
    gpu.barrier
    %expected_bytes = arith.constant 8192 : index
    nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %expected_bytes, predicate = %leader : !bars
    nvgpu.tma.async.load %map[%c0, %c64], %bars[%c0] to %tile, predicate = %leader : !map, !bars -> memref<64x32xf32, #wg>
    %wait_parity = arith.constant false
    %ticks = arith.constant 10000000 : index
    nvgpu.mbarrier.try_wait.parity %bars[%c0], %wait_parity, %ticks : !bars
    %row = vector.load %tile[%t, %c0] : memref<64x32xf32, #wg>, vector<32xf32>
    vector.store %row, %out[%t, %c0] : memref<64x32xf32>, vector<32xf32>
    gpu.terminator
  }
  return
}

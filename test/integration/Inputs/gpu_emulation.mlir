// A kernel whose threads exchange data through shared memory filled by
// asynchronous copies: thread t copies row t of `in` into shared memory,
// waits for the copy, synchronizes, then writes row t + 1 (a neighbour's
// copy) to row t of `out`. gpu_emulation.test runs it as written and with
// a wait that lets the copy still be pending, which must read stale data.
#wg = #gpu.address_space<workgroup>
func.func @rotate_rows(%in: memref<32x4xf32>, %out: memref<32x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %bytes = arith.constant 512 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) dynamic_shared_memory_size %bytes {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #wg>
    %rows = memref.view %smem[%c0][] : memref<?xi8, #wg> to memref<32x4xf32, #wg>
    %t = nvgpu.device_async_copy %in[%tx, %c0], %rows[%tx, %c0], 4 {bypassL1} : memref<32x4xf32> to memref<32x4xf32, #wg>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.barrier
    %next = arith.addi %tx, %c1 : index
    %wrapped = arith.remui %next, %c32 : index
    %v = vector.load %rows[%wrapped, %c0] : memref<32x4xf32, #wg>, vector<4xf32>
    vector.store %v, %out[%tx, %c0] : memref<32x4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

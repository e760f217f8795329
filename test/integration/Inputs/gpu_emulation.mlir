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

// Shuffles in each mode over a block of two warps: row m of `out` holds
// what thread t received in mode m (xor 5, down 3, up 3, idx 7, width 32),
// row m of `valid` whether the source lane was in range.
func.func @shuffles(%in: memref<64xf32>, %out: memref<4x64xf32>, %valid: memref<4x64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %w = arith.constant 32 : i32
  %i3 = arith.constant 3 : i32
  %i5 = arith.constant 5 : i32
  %i7 = arith.constant 7 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %in[%tx] : memref<64xf32>
    %r0, %ok0 = gpu.shuffle xor %v, %i5, %w : f32
    %r1, %ok1 = gpu.shuffle down %v, %i3, %w : f32
    %r2, %ok2 = gpu.shuffle up %v, %i3, %w : f32
    %r3, %ok3 = gpu.shuffle idx %v, %i7, %w : f32
    memref.store %r0, %out[%c0, %tx] : memref<4x64xf32>
    memref.store %r1, %out[%c1, %tx] : memref<4x64xf32>
    memref.store %r2, %out[%c2, %tx] : memref<4x64xf32>
    memref.store %r3, %out[%c3, %tx] : memref<4x64xf32>
    %f0 = arith.extui %ok0 : i1 to i32
    %f1 = arith.extui %ok1 : i1 to i32
    %f2 = arith.extui %ok2 : i1 to i32
    %f3 = arith.extui %ok3 : i1 to i32
    memref.store %f0, %valid[%c0, %tx] : memref<4x64xi32>
    memref.store %f1, %valid[%c1, %tx] : memref<4x64xi32>
    memref.store %f2, %valid[%c2, %tx] : memref<4x64xi32>
    memref.store %f3, %valid[%c3, %tx] : memref<4x64xi32>
    gpu.terminator
  }
  return
}

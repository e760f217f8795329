/* The mgpu* ABI that MLIR 22 emits calls to, as implemented by
 * libtessel_cuda_runtime.so (CUDA driver API) and libtessel_hip_runtime.so
 * (HIP). Signatures match what `gpu-to-llvm` and the gpu.binary LLVM
 * translation (SelectObjectAttr) declare; handles are opaque pointers, as
 * the generated code sees them: CUstream/hipStream_t, CUevent and so on.
 * Modules and functions are the runtime's own handles, not
 * CUmodule/CUfunction or hipModule_t/hipFunction_t (below): pass them only
 * to the same library's mgpu* functions.
 *
 * Errors are reported on stderr as
 *   tessel-cuda: <driver call>(...) failed: <CUDA error name>
 * (tessel-hip: ... for HIP) and the call returns NULL or does nothing, like
 * upstream's wrappers: generated code has no way to receive an error. */
#ifndef TESSEL_GPU_RUNTIME_H
#define TESSEL_GPU_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tessel/runtime.h" /* TESSEL_RT_EXPORT, memref descriptors */

#ifdef __cplusplus
extern "C" {
#endif

/* Modules and kernels. `data` is a cubin/fatbin/HSA code object
 * (mgpuModuleLoad) or NUL-terminated PTX (mgpuModuleLoadJIT, CUDA only).
 * A module is loaded on the calling thread's default device at once,
 * and on another device when a kernel of it is first looked up or launched
 * there (the image is copied; mgpuModuleLoad without a size uses it in
 * place, so it must outlive the module). mgpuModuleUnload must not race
 * the module's lookups or launches. */
TESSEL_RT_EXPORT void *mgpuModuleLoad(void *data, size_t data_size);
TESSEL_RT_EXPORT void *mgpuModuleLoadJIT(void *data, int opt_level);
TESSEL_RT_EXPORT void mgpuModuleUnload(void *module);
TESSEL_RT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);

/* `params` holds one pointer per kernel argument (to the argument's value).
 * Dimensions are intptr_t because they come from MLIR `index` values. */
TESSEL_RT_EXPORT void mgpuLaunchKernel(void *function, intptr_t grid_x,
                                       intptr_t grid_y, intptr_t grid_z,
                                       intptr_t block_x, intptr_t block_y,
                                       intptr_t block_z,
                                       int32_t dynamic_shared_bytes,
                                       void *stream, void **params,
                                       void **extra, size_t param_count);
/* MLIR 22 passes no param_count here (14 arguments); the trailing parameter
 * mirrors upstream's wrapper and is ignored, which is ABI-safe because it is
 * never read. */
TESSEL_RT_EXPORT void mgpuLaunchClusterKernel(
    void *function, intptr_t cluster_x, intptr_t cluster_y,
    intptr_t cluster_z, intptr_t grid_x, intptr_t grid_y, intptr_t grid_z,
    intptr_t block_x, intptr_t block_y, intptr_t block_z,
    int32_t dynamic_shared_bytes, void *stream, void **params, void **extra,
    size_t param_count);

/* Streams and events. */
TESSEL_RT_EXPORT void *mgpuStreamCreate(void);
TESSEL_RT_EXPORT void mgpuStreamDestroy(void *stream);
TESSEL_RT_EXPORT void mgpuStreamSynchronize(void *stream);
TESSEL_RT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
TESSEL_RT_EXPORT void *mgpuEventCreate(void);
TESSEL_RT_EXPORT void mgpuEventDestroy(void *event);
TESSEL_RT_EXPORT void mgpuEventSynchronize(void *event);
TESSEL_RT_EXPORT void mgpuEventRecord(void *event, void *stream);

/* Memory. `is_host_shared` (gpu.alloc host_shared) gives managed memory that
 * the host may also dereference. Memset counts are in elements. */
TESSEL_RT_EXPORT void *mgpuMemAlloc(uint64_t size_bytes, void *stream,
                                    bool is_host_shared);
TESSEL_RT_EXPORT void mgpuMemFree(void *ptr, void *stream);
TESSEL_RT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t size_bytes,
                                 void *stream);
TESSEL_RT_EXPORT void mgpuMemset16(void *dst, uint16_t value, size_t count,
                                   void *stream);
TESSEL_RT_EXPORT void mgpuMemset32(void *dst, uint32_t value, size_t count,
                                   void *stream);

/* Page-locks host memory. The memref forms take a pointer to a ranked
 * descriptor of `rank` (gpu.host_register on memref<*xT>) and register the
 * span its sizes and strides cover. */
TESSEL_RT_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t size_bytes);
TESSEL_RT_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                                int64_t element_size_bytes);
TESSEL_RT_EXPORT void mgpuMemHostUnregister(void *ptr);
TESSEL_RT_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank,
                                                  void *descriptor,
                                                  int64_t element_size_bytes);

/* Device used by later calls on this thread. */
TESSEL_RT_EXPORT void mgpuSetDefaultDevice(int32_t device);

/* CUDA only: TMA descriptors (nvgpu.tma.create.descriptor).
 * mgpuTensorMapEncodeTiled fills a host CUtensorMap (128 bytes, 64-aligned);
 * the enum-typed parameters of cuTensorMapEncodeTiled are int-sized.
 * mgpuTensorMapEncodeTiledMemref builds one from a ranked memref descriptor
 * and box sizes (outermost first) and returns a device copy of it, which is
 * what the kernel consumes; enum values arrive as i64 from MLIR. The copy
 * is the caller's until it calls mgpuStreamSynchronize: after that, a
 * later call on the same thread may overwrite it (the runtime keeps 256
 * copies), so a caller must have synchronized every kernel that reads a
 * copy before its next synchronization, as generated code does (it waits
 * for each kernel). On a stream lent with tessel_cuda_set_stream_async,
 * where generated code's waits return at once, the copy stays the
 * caller's until an event the runtime records on that stream at the next
 * wait (or lending) has passed: kernels that read the copy must be
 * launched on the lent stream before that next wait. */
TESSEL_RT_EXPORT void mgpuTensorMapEncodeTiled(
    void *tensor_map, int32_t data_type, uint32_t rank, void *global_address,
    const uint64_t *global_dims, const uint64_t *global_strides_bytes,
    const uint32_t *box_dims, const uint32_t *element_strides,
    int32_t interleave, int32_t swizzle, int32_t l2_promotion,
    int32_t oob_fill);
TESSEL_RT_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t data_type, int64_t interleave,
    int64_t swizzle, int64_t l2_promotion, int64_t oob_fill,
    int64_t *box_dims);

/* CUDA only: the TMA descriptor of a view of a constant global (a weight
 * compiled into the program, memref.get_global). TMA reads global memory
 * on the device, and the constant's bytes [host, host + bytes) are on the
 * host: the first call uploads them to a device copy, which is kept for the
 * process's life (one per device), and every call encodes the map of the
 * view `descriptor` (a view into those bytes) over that copy, as
 * mgpuTensorMapEncodeTiledMemref does. `slot` is a zeroed 8-byte variable
 * of the compiled module, one per constant, which the runtime numbers on
 * first use: a module loaded again (at the same address, with other
 * constants) has a fresh one, so it never gets another module's copy. */
TESSEL_RT_EXPORT void *tesselTensorMapEncodeTiledConstant(
    uint64_t *slot, const void *host, int64_t bytes, int64_t rank,
    void *descriptor, int64_t data_type, int64_t interleave, int64_t swizzle,
    int64_t l2_promotion, int64_t oob_fill, int64_t *box_dims);

/* HIP only, mirroring upstream's ROCm wrappers: device view of registered
 * host memory as a 1-D memref. */
TESSEL_RT_EXPORT tessel_memref_f32_1d mgpuMemGetDeviceMemRef1dFloat(
    float *allocated, float *aligned, int64_t offset, int64_t size,
    int64_t stride);
TESSEL_RT_EXPORT tessel_memref_i32_1d mgpuMemGetDeviceMemRef1dInt32(
    int32_t *allocated, int32_t *aligned, int64_t offset, int64_t size,
    int64_t stride);

/* Tessel helpers for tests and harnesses. */

/* Number of CUDA devices; 0 (silently) when libcuda.so.1 is missing, the
 * driver fails to initialise, or there is no GPU, so tests can skip. */
TESSEL_RT_EXPORT int tessel_cuda_device_count(void);
/* "ok", or why CUDA is unusable (missing libcuda.so.1, cuInit's error, ...),
 * so a skipping test can say why instead of hiding a broken setup. */
TESSEL_RT_EXPORT const char *tessel_cuda_status(void);
/* The CUDA driver's version (cuDriverGetVersion: 12030 for 12.3), 0 when
 * there is no usable driver. */
TESSEL_RT_EXPORT int tessel_cuda_driver_version(void);
/* Returns 0 and fills major and minor on success, -1 on failure. */
TESSEL_RT_EXPORT int tessel_cuda_compute_capability(int device, int *major,
                                                    int *minor);
/* Lends the calling thread a CUDA stream of the current default device's
 * primary context, such as PyTorch's current stream (PyTorch's stream 0 is
 * the legacy default stream: pass CU_STREAM_LEGACY, (void *)1, since NULL
 * takes the lent stream back). The lending lasts until the next call: while
 * the default device is the one it was lent on, mgpuStreamCreate returns
 * it and mgpuStreamDestroy leaves it alone, so generated code runs its
 * kernels on it, in order with the caller's other work there, and the
 * caller need not synchronize its stream before calling in. Without one,
 * the runtime keeps the streams generated code destroys for its next calls
 * (TESSEL_CUDA_POOLED_STREAMS, default 16, 0 for none). */
TESSEL_RT_EXPORT void tessel_cuda_set_stream(void *stream);
/* Lends `stream` as tessel_cuda_set_stream does, and besides makes
 * generated code's waits on it (mgpuStreamSynchronize) return at once: a
 * call returns as soon as its work is queued on the stream, as a
 * framework's own operators do, and the caller synchronizes the stream
 * when it needs the results on the host (results in device memory are
 * ready for later work on the same stream). While the thread has managed
 * memory (mgpuMemAlloc host_shared) or registered host memory live, the
 * waits are real: generated code reads results from it on the host right
 * after them. What the runtime reuses after an async call is ordered
 * after its kernels by events on the stream: a freed device block's next
 * use (an allocation for the async lent stream makes the stream wait for
 * the event, on the GPU, unless the waits are real then; one for any
 * other stream waits on the host) and
 * a TMA descriptor's device copy (not overwritten before its kernels are
 * done). A pointer the runtime does not track is freed only after the
 * stream has been waited for. A kernel that faults while running is
 * reported, and counted, by whichever call meets the broken context next
 * (the caller's synchronization, or a later call into this runtime), not
 * by the call that launched it; failed launches are counted as before. */
TESSEL_RT_EXPORT void tessel_cuda_set_stream_async(void *stream);
/* The stream lent to the calling thread, or NULL. */
TESSEL_RT_EXPORT void *tessel_cuda_stream(void);
/* Errors the calling thread's calls into this runtime have reported on
 * stderr so far, and the text of the last one ("" before any), without the
 * "tessel-cuda: " prefix: generated code cannot see a failure, its caller
 * can compare the count before and after a call. While a stream is lent,
 * an error also makes the thread skip its later kernel launches until the
 * next tessel_cuda_set_stream, so that a failed call does not go on to
 * launch kernels on what it failed to make. */
TESSEL_RT_EXPORT uint64_t tessel_cuda_error_count(void);
TESSEL_RT_EXPORT const char *tessel_cuda_last_error(void);
/* Number of HIP devices; 0 when HIP reports none or fails. */
TESSEL_RT_EXPORT int tessel_hip_device_count(void);
/* The HIP runtime's counterparts of tessel_cuda_set_stream,
 * tessel_cuda_stream, tessel_cuda_error_count and tessel_cuda_last_error,
 * with the same meaning (TESSEL_HIP_POOLED_STREAMS for the kept streams;
 * "tessel-hip: " prefix). NULL takes a lent stream back; HIP's null stream
 * (PyTorch's default stream under ROCm) is lent as TESSEL_HIP_NULL_STREAM,
 * (void *)1, as CUDA's legacy stream is CU_STREAM_LEGACY (and as newer
 * HIP headers spell it, hipStreamLegacy). Each call makes
 * the thread's default device HIP's current device for its duration and
 * restores the caller's after. */
#define TESSEL_HIP_NULL_STREAM ((void *)1)
TESSEL_RT_EXPORT void tessel_hip_set_stream(void *stream);
/* tessel_cuda_set_stream_async's counterpart. The HIP runtime keeps no
 * freed blocks: a call that frees a temporary (hipFree) waits for the
 * stream first, so only calls without device temporaries return before
 * their kernels are done. */
TESSEL_RT_EXPORT void tessel_hip_set_stream_async(void *stream);
TESSEL_RT_EXPORT void *tessel_hip_stream(void);
TESSEL_RT_EXPORT uint64_t tessel_hip_error_count(void);
TESSEL_RT_EXPORT const char *tessel_hip_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_GPU_RUNTIME_H */

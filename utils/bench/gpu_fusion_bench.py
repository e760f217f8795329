"""Tessel's kernels on an NVIDIA GPU against PyTorch, same process.

    python3 utils/bench/gpu_fusion_bench.py --kernels DIR [--reps N]
        [--only blur,softmax,layernorm,int_mm,int_mm_wgmma,int_mm_nt,int_mm_nt_wgmma,
                linear_f16,linear_f16_wgmma,conv_nchw,conv_nchw_f32,
                conv_nchw_block,linear_f32_b8,linear_f32_b8_nosplit]
        [--json FILE]

DIR holds the kernels `run-gpu-bench.sh --build DIR` compiles with
tessel-compile --target=nvgpu: blur_x_blur_y at 3x4096x4096 (the x and y
blurs in one kernel), softmax over 4096x4096 and layernorm over 16384x1024
(utils/bench/image/workloads; each one kernel, rows reduced by warps or
blocks with shuffles), the i8 x i8 -> i32 matmul at 4096^3 (B as (k, n),
and B as (n, k)), an fp16 linear layer's product at 4096^3 (w as (n, k)),
each on WMMA and, on sm_90a, with the wgmma kernel (an i8 B given as
(k, n) transposed first, inside the timed call), and an fp16
NCHW convolution + bias + ReLU at a ResNet-50 layer's shape (PyTorch's
layout: Tessel transposes around its NHWC implicit GEMM), and the same in
f32 on the SIMT cores (cuDNN with TF32 off), and an f32 linear layer at
batch 8 with bias and ReLU (8x4096x4096, cuBLAS with TF32 off) built twice,
with the split of k the model chooses and with split-k=1. Peers: the same
computation in PyTorch eager and torch.compile (Inductor's Triton kernels);
for the int8 matmuls, eager is torch._int_mm (cuBLASLt), the peer of the
int8 bar; for the linear layer, F.linear (cuBLAS); for the convolution, eager is cuDNN. Every result is checked against
eager before anything is timed (the matmul's exactly). Timing: wall clock
around one call and a device synchronization, backends interleaved, median
of the repetitions after warm-ups. Tessel is timed three ways: on
PyTorch's current stream lent with tessel_cuda_set_stream_async, where a
call returns once its kernels are queued, as eager's and Inductor's do
(`tessel`: how torch.compile(backend="tessel") calls it, and what the
ratios use); on PyTorch's stream lent with tessel_cuda_set_stream, where
the generated code waits for its kernels before the call returns
(`tessel_waits`); and on a stream the runtime keeps, after synchronizing
PyTorch's (`tessel_own_stream`; with TESSEL_CUDA_POOLED_STREAMS=0 a new
stream on every call, as before the runtime kept them). Ratios from
before 2026-11-27's stream lending timed the last way, without kept
streams; those of the H200 run of 2026-11-27 too. Bandwidth is counted over the compulsory
bytes (inputs read once, output written once); the matmul's and the
convolution's rates in tera-operations per second (2 m n k, and 2 n f oh
ow c kh kw).

Python only because the peers are PyTorch's; the Tessel kernels are called
through their C interface (ctypes), as a C program would.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

TAPS = [0.0625, 0.25, 0.375, 0.25, 0.0625]


def memref_type(rank):
    """tessel_memref_f32_<rank>d (docs/ABI.md)."""
    class Memref(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p),
                    ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * rank),
                    ("strides", ctypes.c_int64 * rank)]
    return Memref


MEMREFS = {rank: memref_type(rank) for rank in (1, 2, 3, 4)}


def descriptor(t):
    """A memref descriptor of `t`; the layout is the same for every element
    type, which the callee's signature fixes."""
    assert t.is_cuda and t.is_contiguous()
    d = MEMREFS[t.dim()]()
    d.allocated = d.aligned = t.data_ptr()
    d.offset = 0
    for i in range(t.dim()):
        d.sizes[i] = t.shape[i]
        d.strides[i] = t.stride(i)
    return d


# CU_STREAM_LEGACY: PyTorch's default stream is the legacy one (handle 0),
# and tessel_cuda_set_stream(NULL) would take the lent stream back.
CU_STREAM_LEGACY = 1


STREAM_MODES = ("async", "waits", "own")


def tessel_function(kernels, library, symbol, out_shape,
                    out_dtype=torch.float32, mode="async"):
    """The compiled function as f(*inputs) -> output (a fresh tensor).

    mode: "async", Tessel's kernels run on PyTorch's current stream, in
    order with PyTorch's work, and the call returns once they are queued
    (tessel_cuda_set_stream_async); "waits", the same stream, and the call
    returns when they are done (tessel_cuda_set_stream); "own", on the
    runtime's own stream, after PyTorch's stream is synchronized."""
    if mode not in STREAM_MODES:
        raise ValueError(f"mode {mode!r} is none of {STREAM_MODES}")
    lend_stream = mode != "own"
    lib = ctypes.CDLL(os.path.join(kernels, library))
    fn = getattr(lib, "_mlir_ciface_" + symbol)
    fn.restype = None
    # Looked up through the kernel library's handle, which searches its
    # own dependencies: the runtime instance its mgpu* calls reach (a
    # runtime loaded by path could be a second copy of it).
    set_stream = (lib.tessel_cuda_set_stream_async if mode == "async"
                  else lib.tessel_cuda_set_stream)
    set_stream.argtypes = [ctypes.c_void_p]
    set_stream.restype = None
    lent_stream = lib.tessel_cuda_stream
    lent_stream.argtypes = []
    lent_stream.restype = ctypes.c_void_p
    error_count = lib.tessel_cuda_error_count
    error_count.restype = ctypes.c_uint64
    last_error = lib.tessel_cuda_last_error
    last_error.restype = ctypes.c_char_p

    def run(*inputs, poison=False):
        # The check poisons the output: a kernel that failed to launch
        # must not pass on a reused allocation that already holds the
        # reference's values (seen on an H100 with a launch that ran out
        # of registers).
        poison_value = (float("nan") if out_dtype.is_floating_point
                        else torch.iinfo(out_dtype).min)
        out = (torch.full(out_shape, poison_value, device=inputs[0].device,
                          dtype=out_dtype) if poison else
               torch.empty(out_shape, device=inputs[0].device,
                           dtype=out_dtype))
        if lend_stream:
            stream = (torch.cuda.current_stream(out.device).cuda_stream
                      or CU_STREAM_LEGACY)
            set_stream(stream)
            if lent_stream() != stream:
                raise RuntimeError("tessel_cuda_set_stream(_async) did not reach the "
                                   f"runtime that {library} uses")
        else:
            # Tessel's stream is not PyTorch's: the inputs must be ready.
            torch.cuda.current_stream().synchronize()
        errors = error_count()
        try:
            descriptors = [descriptor(t) for t in inputs + (out,)]
            fn(*[ctypes.byref(d) for d in descriptors])
        finally:
            if lend_stream:
                set_stream(None)
        # A failure the runtime reported (a launch out of resources, say)
        # must not pass as a fast call.
        if error_count() != errors:
            raise RuntimeError(f"{symbol}: {last_error().decode()}")
        return out
    return run


# --- Workloads: (title, inputs, torch definition, Tessel library, symbol,
# output shape[, output dtype, operations per call]) --------------------------

def blur_workload():
    c, h, w = 3, 4096, 4096

    def blur(img):
        kernel = torch.tensor(TAPS, device=img.device, dtype=torch.float32)
        blurx = F.conv2d(img.view(c, 1, h, w), kernel.view(1, 1, 1, 5))
        blury = F.conv2d(blurx, kernel.view(1, 1, 5, 1))
        return blury.view(c, h - 4, w - 4)
    inputs = (torch.rand(c, h, w, device="cuda"),)
    return (f"blur_x_blur_y {c}x{h}x{w}", inputs, blur,
            "blur_x_blur_y_4096.so", "blur_x_blur_y", (c, h - 4, w - 4))


def softmax_workload():
    m = n = 4096
    inputs = (torch.randn(m, n, device="cuda") * 4,)
    return (f"softmax {m}x{n}", inputs, lambda x: torch.softmax(x, dim=1),
            "softmax_4096.so", "softmax", (m, n))


def layernorm_workload():
    m, n = 16384, 1024
    inputs = (torch.randn(m, n, device="cuda"), torch.rand(n, device="cuda"),
              torch.randn(n, device="cuda"))

    def layernorm(x, gamma, beta):
        return F.layer_norm(x, (n,), gamma, beta, eps=1e-5)
    return (f"layernorm {m}x{n}", inputs, layernorm, "layernorm_16384.so",
            "layernorm", (m, n))


def int_mm_workload(library="mm_i8_i32_4096.so", kernel="WMMA"):
    m = n = k = 4096
    # Values whose sums of 4096 products stay far inside int32.
    inputs = (torch.randint(-127, 128, (m, k), device="cuda",
                            dtype=torch.int8),
              torch.randint(-127, 128, (k, n), device="cuda",
                            dtype=torch.int8))
    return (f"int8 matmul {m}x{n}x{k} (i32 sums; Tessel's {kernel} kernel)",
            inputs, torch._int_mm, library, "mm_i8_i32_4096", (m, n),
            torch.int32, 2 * m * n * k)


def int_mm_wgmma_workload():
    # B given as (k, n): Tessel transposes it first (a kernel of its own,
    # timed with the product), since 8-bit wgmma reads B only as (n, k).
    return int_mm_workload("wgmma/mm_i8_i32_4096.so",
                           "wgmma, after transposing B")


def int_mm_nt_workload(library="mm_i8_bt_4096.so", kernel="WMMA"):
    m = n = k = 4096
    # B given as (n, k), a linear layer's weight: torch._int_mm(x, w.t()),
    # cuBLASLt's native int8 layout, and the one 8-bit wgmma reads.
    inputs = (torch.randint(-127, 128, (m, k), device="cuda",
                            dtype=torch.int8),
              torch.randint(-127, 128, (n, k), device="cuda",
                            dtype=torch.int8))
    return (f"int8 matmul {m}x{n}x{k}, B as (n, k) (i32 sums; Tessel's "
            f"{kernel} kernel)", inputs,
            lambda x, w: torch._int_mm(x, w.t()), library, "i8_bt_4096",
            (m, n), torch.int32, 2 * m * n * k)


def int_mm_nt_wgmma_workload():
    return int_mm_nt_workload("mm_i8_bt_4096_wgmma.so", "wgmma")


def linear_f16_workload(library="mm_f16_bt_4096.so", kernel="WMMA"):
    m = n = k = 4096
    # x @ w.T in fp16 with f32 sums rounded to fp16, as F.linear (cuBLAS)
    # computes it; w given as (n, k).
    inputs = (torch.randn(m, k, device="cuda", dtype=torch.half),
              torch.randn(n, k, device="cuda", dtype=torch.half) * 0.05)
    return (f"fp16 linear {m}x{n}x{k}, w as (n, k) (f32 sums; Tessel's "
            f"{kernel} kernel)", inputs, lambda x, w: F.linear(x, w),
            library, "f16_bt_4096", (m, n), torch.half, 2 * m * n * k)


def linear_f16_wgmma_workload():
    return linear_f16_workload("mm_f16_bt_4096_wgmma.so", "wgmma")


def conv_nchw_workload():
    # ResNet-50 stage 3's 3x3 convolution at batch 8, padding 1, as
    # torch.nn.Conv2d + ReLU in fp16 computes it.
    n, c, h, w, f = 8, 256, 14, 14, 256
    inputs = (torch.randn(n, c, h, w, device="cuda", dtype=torch.half),
              torch.randn(f, c, 3, 3, device="cuda", dtype=torch.half) * 0.05,
              torch.randn(f, device="cuda", dtype=torch.half))

    def conv(x, weight, bias):
        return F.relu(F.conv2d(x, weight, bias, padding=1))
    return (f"conv2d NCHW {n}x{c}x{h}x{w} * {f}x{c}x3x3 + bias + ReLU (fp16)",
            inputs, conv, "conv_nchw_resnet.so", "conv_nchw_resnet",
            (n, f, h, w), torch.half, 2 * n * f * h * w * c * 9)


def conv_nchw_f32_workload():
    # The same convolution in f32, PyTorch's default type: Tessel's SIMT
    # implicit GEMM against cuDNN with TF32 off (main() turns it off for
    # this workload), so that both sides multiply in f32.
    n, c, h, w, f = 8, 256, 14, 14, 256
    inputs = (torch.randn(n, c, h, w, device="cuda"),
              torch.randn(f, c, 3, 3, device="cuda") * 0.05,
              torch.randn(f, device="cuda"))

    def conv(x, weight, bias):
        return F.relu(F.conv2d(x, weight, bias, padding=1))
    return (f"conv2d NCHW {n}x{c}x{h}x{w} * {f}x{c}x3x3 + bias + ReLU (f32)",
            inputs, conv, "conv_nchw_resnet_f32.so", "conv_nchw_resnet_f32",
            (n, f, h, w), torch.float, 2 * n * f * h * w * c * 9)


def linear_f32_b8_workload(library="linear_f32_b8.so",
                           symbol="linear_f32_b8",
                           kernel="split-k as the model chooses"):
    # A small-batch f32 linear layer with bias and ReLU, as torch.nn.Linear
    # computes it (cuBLAS, TF32 off: main() turns it off for this
    # workload): 8 rows make few C tiles, so Tessel splits k.
    m, n, k = 8, 4096, 4096
    inputs = (torch.randn(m, k, device="cuda"),
              torch.randn(n, k, device="cuda") * 0.02,
              torch.randn(n, device="cuda"))

    def linear(x, w, b):
        return F.relu(F.linear(x, w, b))
    return (f"f32 linear {m}x{n}x{k} + bias + ReLU, w as (n, k) (Tessel's "
            f"SIMT kernel, {kernel})", inputs, linear, library, symbol,
            (m, n), torch.float, 2 * m * n * k)


def linear_f32_b8_nosplit_workload():
    return linear_f32_b8_workload("linear_f32_b8_nosplit.so",
                                  "linear_f32_b8_nosplit", "split-k=1")


def conv_nchw_block_workload():
    # Two of stage 3's convolutions as a residual path, NCHW fp16: 1x1 +
    # bias + ReLU, then 3x3 (padding 1) + bias + the block's input + ReLU.
    # Tessel cancels the transposes between the two convolutions.
    n, c, h, w = 8, 256, 14, 14
    inputs = (torch.randn(n, c, h, w, device="cuda", dtype=torch.half),
              torch.randn(c, c, 1, 1, device="cuda", dtype=torch.half) * 0.06,
              torch.randn(c, device="cuda", dtype=torch.half),
              torch.randn(c, c, 3, 3, device="cuda", dtype=torch.half) * 0.02,
              torch.randn(c, device="cuda", dtype=torch.half))

    def block(x, w1, b1, w2, b2):
        y = F.relu(F.conv2d(x, w1, b1))
        return F.relu(F.conv2d(y, w2, b2, padding=1) + x)
    return (f"residual path NCHW {n}x{c}x{h}x{w}: conv 1x1 + bias + ReLU, "
            f"conv 3x3 + bias + input + ReLU (fp16)",
            inputs, block, "conv_nchw_block.so", "conv_nchw_block",
            (n, c, h, w), torch.half, 2 * n * c * h * w * c * (1 + 9))


WORKLOADS = {"blur": blur_workload, "softmax": softmax_workload,
             "layernorm": layernorm_workload, "int_mm": int_mm_workload,
             "int_mm_wgmma": int_mm_wgmma_workload,
             "int_mm_nt": int_mm_nt_workload,
             "int_mm_nt_wgmma": int_mm_nt_wgmma_workload,
             "linear_f16": linear_f16_workload,
             "linear_f16_wgmma": linear_f16_wgmma_workload,
             "conv_nchw": conv_nchw_workload,
             "conv_nchw_f32": conv_nchw_f32_workload,
             "conv_nchw_block": conv_nchw_block_workload,
             "linear_f32_b8": linear_f32_b8_workload,
             "linear_f32_b8_nosplit": linear_f32_b8_nosplit_workload}

# Workloads timed with TF32 off (cuDNN and cuBLAS multiply in f32, as
# Tessel does).
F32_WORKLOADS = {"conv_nchw_f32", "linear_f32_b8", "linear_f32_b8_nosplit"}

# Largest error allowed against eager, relative to the largest result: f32
# results agree closely; fp16 ones differ by roundings (cuDNN rounds the
# sums to fp16 before adding the bias, Tessel rounds once at the end).
TOLERANCE = {"conv_nchw": 4e-3, "conv_nchw_block": 8e-3,
             "linear_f16": 4e-3, "linear_f16_wgmma": 4e-3}


# Calls per timed sample: one call of these kernels (0.05-0.4 ms) is near
# the host timer's and the launch path's jitter.
CALLS_PER_SAMPLE = 10


def time_call(f, inputs):
    """Seconds per call, over CALLS_PER_SAMPLE calls back to back."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(CALLS_PER_SAMPLE):
        f(*inputs)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / CALLS_PER_SAMPLE


def run_workload(name, make, kernels, reps):
    title, inputs, reference_fn, library, symbol, out_shape, *rest = make()
    if not os.path.exists(os.path.join(kernels, library)):
        # The wgmma kernels are built for sm_90a only.
        print(f"skipped {name}: {library} was not built")
        return {}
    out_dtype = rest[0] if rest else torch.float32
    operations = rest[1] if len(rest) > 1 else None
    backends = {"tessel": tessel_function(kernels, library, symbol, out_shape,
                                          out_dtype),
                "tessel_waits": tessel_function(
                    kernels, library, symbol, out_shape, out_dtype,
                    mode="waits"),
                "tessel_own_stream": tessel_function(
                    kernels, library, symbol, out_shape, out_dtype,
                    mode="own"),
                "eager": reference_fn,
                "inductor": torch.compile(reference_fn, dynamic=False)}
    reference = reference_fn(*inputs)
    exact = not out_dtype.is_floating_point
    scale = reference.abs().max().item()
    for backend, f in backends.items():
        out = (f(*inputs, poison=True) if backend.startswith("tessel")
               else f(*inputs))
        err = (out.double() - reference.double()).abs().max().item()
        if out.dtype.is_floating_point and out.isnan().any().item():
            err = float("inf")
        ok = err == 0 if exact else err <= TOLERANCE.get(name, 1e-4) * scale
        print(f"check {name} {backend}: max error {err:.3g} "
              f"({'PASS' if ok else 'FAIL'})")
        if not ok:
            return None
    for f in backends.values():  # warm-ups (Inductor compiled above)
        for _ in range(2):
            f(*inputs)
    times = {backend: [] for backend in backends}
    for _ in range(reps):
        for backend, f in backends.items():
            times[backend].append(time_call(f, inputs))
    median = {backend: statistics.median(t) for backend, t in times.items()}
    gbytes = (sum(t.numel() * t.element_size() for t in inputs) +
              reference.numel() * reference.element_size()) / 1e9
    print(f"{title} ({str(reference.dtype).removeprefix('torch.')}, "
          f"{torch.cuda.get_device_name()}), median of {reps} "
          f"samples of {CALLS_PER_SAMPLE} calls:")
    for backend, t in median.items():
        rate = (f"{operations / t / 1e12:7.1f} TOP/s" if operations
                else f"{gbytes / t:7.1f} GB/s")
        print(f"  {backend:17s} {t * 1e3:8.3f} ms  {rate}")
    speedup = {peer: median[peer] / median["tessel"]
               for peer in ("eager", "inductor")}
    for peer, ratio in speedup.items():
        print(f"  tessel vs {peer}: {ratio:.2f}x")
    print(f"  (tessel: returns once queued on PyTorch's stream; as long as "
          f"that: tessel_waits, waiting for its kernels, "
          f"{median['tessel_waits'] / median['tessel']:.2f}x; "
          f"tessel_own_stream, on a stream the runtime keeps after "
          f"PyTorch's is synchronized, "
          f"{median['tessel_own_stream'] / median['tessel']:.2f}x)")
    if name.startswith("int_mm"):
        print("  (eager is torch._int_mm, cuBLASLt's int8 matmul)")
    # One line to pick out (run-gpu-bench.sh --bars reads it).
    print(f"speedup {name} " +
          " ".join(f"{peer}={ratio:.3f}" for peer, ratio in speedup.items()))
    result = {"workload": title, "median_s": median, "speedup": speedup,
              "compulsory_gbytes": gbytes}
    if operations:
        result["operations"] = operations
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", required=True)
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--json")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("gpu_fusion_bench: no CUDA device visible to PyTorch",
              file=sys.stderr)
        return 1
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    results, failed = [], False
    with torch.no_grad():
        for name in args.only.split(","):
            if name not in WORKLOADS:
                print(f"gpu_fusion_bench: unknown workload '{name}' "
                      f"(known: {', '.join(WORKLOADS)})", file=sys.stderr)
                return 2
            # The f32 convolution is compared in f32: cuDNN would otherwise
            # round its inputs to TF32, which Tessel's SIMT kernel does not.
            # Only there: the other workloads keep PyTorch's defaults, as
            # their recorded ratios did.
            torch.backends.cudnn.allow_tf32 = name not in F32_WORKLOADS
            torch.backends.cuda.matmul.allow_tf32 = False
            result = run_workload(name, WORKLOADS[name], args.kernels,
                                  args.reps)
            failed |= result is None
            if result:
                results.append(result)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"device": torch.cuda.get_device_name(),
                       "reps": args.reps, "results": results}, out, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Tessel's fused image kernels on an NVIDIA GPU against PyTorch, same process.

    python3 utils/bench/gpu_image_bench.py --kernels DIR [--reps N] [--json FILE]

DIR holds blur_x_blur_y_4096.so, which `run-gpu-bench.sh --build DIR` compiles
(tessel-compile --target=nvgpu: the x and y blurs in one kernel). Peers: the
same blur in PyTorch eager (two cuDNN convolutions) and torch.compile
(Inductor's Triton kernels). Every result is checked against eager before
anything is timed. Timing: wall clock around one call and a device
synchronization, backends interleaved, median of the repetitions after
warm-ups. Tessel's entry point synchronizes its own stream before it returns.

Python only because the peers are PyTorch's; the Tessel kernel is called
through its C interface (ctypes), as a C program would.
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
C, H, W = 3, 4096, 4096


class Memref3D(ctypes.Structure):
    """tessel_memref_f32_3d (docs/ABI.md)."""
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 3),
                ("strides", ctypes.c_int64 * 3)]


def descriptor(t):
    assert t.is_cuda and t.is_contiguous() and t.dtype == torch.float32
    d = Memref3D()
    d.allocated = d.aligned = t.data_ptr()
    d.offset = 0
    for i in range(3):
        d.sizes[i] = t.shape[i]
        d.strides[i] = t.stride(i)
    return d


def torch_blur(img):
    kernel = torch.tensor(TAPS, device=img.device, dtype=torch.float32)
    blurx = F.conv2d(img.view(C, 1, H, W), kernel.view(1, 1, 1, 5))
    blury = F.conv2d(blurx, kernel.view(1, 1, 5, 1))
    return blury.view(C, H - 4, W - 4)


def tessel_blur(kernels):
    lib = ctypes.CDLL(os.path.join(kernels, "blur_x_blur_y_4096.so"))
    fn = lib._mlir_ciface_blur_x_blur_y
    fn.argtypes = [ctypes.POINTER(Memref3D), ctypes.POINTER(Memref3D)]
    fn.restype = None

    def run(img):
        out = torch.empty((C, H - 4, W - 4), device=img.device,
                          dtype=torch.float32)
        # Tessel's stream is not PyTorch's: the input must be ready.
        torch.cuda.current_stream().synchronize()
        din, dout = descriptor(img), descriptor(out)
        fn(ctypes.byref(din), ctypes.byref(dout))
        return out
    return run


def time_call(f, x):
    torch.cuda.synchronize()
    start = time.perf_counter()
    f(x)
    torch.cuda.synchronize()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", required=True)
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--json")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("gpu_image_bench: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    img = torch.rand(C, H, W, device="cuda")
    backends = {"tessel": tessel_blur(args.kernels), "eager": torch_blur,
                "inductor": torch.compile(torch_blur, dynamic=False)}
    with torch.no_grad():
        reference = torch_blur(img)
        scale = reference.abs().max().item()
        for name, f in backends.items():
            err = (f(img) - reference).abs().max().item()
            ok = err <= 1e-4 * scale
            print(f"check {name}: max error {err:.3g} "
                  f"({'PASS' if ok else 'FAIL'})")
            if not ok:
                return 1
        for f in backends.values():  # warm-ups (Inductor compiled above)
            for _ in range(2):
                f(img)
        times = {name: [] for name in backends}
        for _ in range(args.reps):
            for name, f in backends.items():
                times[name].append(time_call(f, img))
    median = {name: statistics.median(t) for name, t in times.items()}
    gbytes = 4 * (C * H * W + C * (H - 4) * (W - 4)) / 1e9
    print(f"blur_x_blur_y {C}x{H}x{W} (f32, {torch.cuda.get_device_name()}), "
          f"median of {args.reps}:")
    for name, t in median.items():
        print(f"  {name:9s} {t * 1e3:8.3f} ms  {gbytes / t:7.1f} GB/s "
              "(compulsory bytes)")
    for peer in ("eager", "inductor"):
        print(f"  tessel vs {peer}: {median[peer] / median['tessel']:.2f}x")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"workload": f"blur_x_blur_y {C}x{H}x{W}",
                       "device": torch.cuda.get_device_name(),
                       "reps": args.reps,
                       "median_s": median,
                       "speedup": {p: median[p] / median["tessel"]
                                   for p in ("eager", "inductor")}},
                      out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

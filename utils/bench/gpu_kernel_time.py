"""Kernel time against call time for gpu_fusion_bench.py's workloads.

gpu_fusion_bench.py times Tessel's whole C call: the generated host code
asks the runtime for a stream, launches, waits and gives the stream back.
With --stream async (the default) the stream is PyTorch's, lent with
tessel_cuda_set_stream_async, and the waits return at once: the call's
wall time is the host's share only. With --stream waits it is PyTorch's
stream, lent with tessel_cuda_set_stream, and the call waits for its
kernels; with --stream own it is the runtime's own, after PyTorch's is
synchronized. This script separates the kernel from the call: it runs
the compiled function under torch.profiler (CUPTI sees every kernel of
the process, Tessel's too) and prints, per workload, the median wall time
of a call and the median GPU time of the kernels one call launches, for
several fresh input allocations in one process.

  python3 utils/bench/gpu_kernel_time.py --kernels DIR [--only blur]
      [--calls 30] [--allocations 3] [--stream async|waits|own]
"""
import argparse
import os
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_fusion_bench as bench  # noqa: E402


def kernel_times_us(prof):
    """GPU time of each kernel the profile saw, in microseconds."""
    times = []
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            times.append(event.device_time_total
                         if hasattr(event, "device_time_total")
                         else event.cuda_time_total)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernels", required=True)
    parser.add_argument("--only", default="blur")
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--allocations", type=int, default=3)
    parser.add_argument("--stream", choices=bench.STREAM_MODES, default="async")
    args = parser.parse_args()
    torch.manual_seed(0)
    with torch.no_grad():
        for name in args.only.split(","):
            for allocation in range(args.allocations):
                spec = bench.WORKLOADS[name]()
                title, inputs, _, library, symbol, out_shape = spec[:6]
                out_dtype = spec[6] if len(spec) > 6 else torch.float32
                fn = bench.tessel_function(args.kernels, library, symbol,
                                           out_shape, out_dtype,
                                           mode=args.stream)
                for _ in range(3):
                    fn(*inputs)
                torch.cuda.synchronize()
                walls = []
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(args.calls):
                        start = time.perf_counter()
                        fn(*inputs)
                        walls.append((time.perf_counter() - start) * 1e6)
                    torch.cuda.synchronize()
                kernels = kernel_times_us(prof)
                per_call = len(kernels) / args.calls
                # The output's allocation (torch.empty) launches nothing;
                # every kernel seen is Tessel's.
                kernel = statistics.median(kernels) if kernels else float("nan")
                mode = {"async": "PyTorch's stream, returns once queued",
                        "waits": "PyTorch's stream, waits",
                        "own": "own stream"}[args.stream]
                print(f"{title} ({mode}), allocation {allocation}: call "
                      f"{statistics.median(walls):.1f} us (median of "
                      f"{args.calls}), kernel {kernel:.1f} us "
                      f"({per_call:g} kernel(s) per call), input at "
                      f"{inputs[0].data_ptr():#x}", flush=True)
                del inputs, fn
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())

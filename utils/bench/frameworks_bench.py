"""Tessel vs the frameworks' own backends, same process, same inputs.

For each workload and backend: compile time (first call, including capture)
and the median of interleaved timed runs; ratios against Tessel; optional
JSON. Backends: PyTorch eager, torch.compile (Inductor), Tessel
(torch.compile(backend="tessel") / @tessel.jit_torch).

    utils/bench/run-python-bench.sh [--reps N] [--json out.json] [--only name,...]
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import tessel


def blur_workload(h=2048, w=2048):
    def blur_x_blur_y(img):
        kernel = torch.tensor([0.0625, 0.25, 0.375, 0.25, 0.0625], device=img.device).float()
        blurx = F.conv2d(img.view(3, 1, h, w), kernel.view(1, 1, 1, 5))
        blury = F.conv2d(blurx, kernel.view(1, 1, 5, 1))
        return blury.view(3, h - 4, w - 4)
    return "blur_x_blur_y 3x2048x2048", blur_x_blur_y, (torch.rand(3, h, w),)


def resnet50_workload():
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet50().eval()
    return "ResNet-50 batch 1", model, (torch.rand(1, 3, 224, 224),)


def mlp_workload():
    mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                              torch.nn.Linear(4096, 1024)).eval()
    return "MLP 64x1024-4096-1024 GELU", mlp, (torch.rand(64, 1024),)


WORKLOADS = {"blur": blur_workload, "mlp": mlp_workload, "resnet50": resnet50_workload}


def backends(fn):
    return {
        "eager": fn,
        "inductor": torch.compile(fn, dynamic=False),
        "tessel": torch.compile(fn, backend="tessel", dynamic=False),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json")
    ap.add_argument("--only", default=",".join(WORKLOADS))
    args = ap.parse_args()
    torch.set_num_threads(torch.get_num_threads())
    results = []
    for key in args.only.split(","):
        name, fn, inputs = WORKLOADS[key]()
        impls = backends(fn)
        row = {"workload": name, "threads": torch.get_num_threads(), "compile_s": {}, "ms": {}}
        outs = {}
        with torch.no_grad():
            for b, f in impls.items():
                fallbacks = tessel.stats.fallbacks
                t0 = time.perf_counter()
                outs[b] = f(*inputs)
                row["compile_s"][b] = time.perf_counter() - t0
                if b == "tessel" and tessel.stats.fallbacks != fallbacks:
                    print(f"{name}: tessel fell back to eager; not a Tessel measurement", file=sys.stderr)
                    return 1
            ref = outs["eager"]
            for b, o in outs.items():
                err = (o - ref).abs().max().item() / max(1.0, ref.abs().max().item())
                if err > 1e-3:
                    print(f"{name}: {b} differs from eager by {err:.2e}", file=sys.stderr)
                    return 1
            times = {b: [] for b in impls}
            for _ in range(args.reps):  # interleaved
                for b, f in impls.items():
                    t0 = time.perf_counter()
                    f(*inputs)
                    times[b].append(1e3 * (time.perf_counter() - t0))
        row["ms"] = {b: statistics.median(t) for b, t in times.items()}
        results.append(row)
        t = row["ms"]["tessel"]
        print(f"{name} ({row['threads']} threads, median of {args.reps})")
        for b in impls:
            print(f"  {b:9s} {row['ms'][b]:9.2f} ms   first call {row['compile_s'][b]:7.2f} s"
                  + ("" if b == "tessel" else f"   tessel speedup {row['ms'][b] / t:5.2f}x"))
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

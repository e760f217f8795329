"""Tessel vs the frameworks' own backends and IREE, same process, same inputs.

For each workload and backend: the first call's time (capture + compile +
run) and the median of interleaved timed runs; speedups of Tessel over each
peer; optional JSON. Every backend's result is checked against the
framework's eager result (max error <= 1e-3 of the largest magnitude) before
anything is timed.

  PyTorch  eager, torch.compile (Inductor), Tessel (torch.compile(backend="tessel"))
  JAX      eager (op by op), jax.jit (XLA), IREE (jax.jit's StableHLO through
           iree-base-compiler, llvm-cpu for the host CPU, local-task runtime),
           Tessel (@tessel.jit_jax)
  TF       tf.function (graph executor), tf.function(jit_compile=True) (XLA),
           Tessel (@tessel.jit_tf)

    utils/bench/run-python-bench.sh [--reps N] [--json out.json]
                                    [--only torch:blur,jax:resnet50,...]
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# torch._dynamo (Triton's LLVM) must be loaded before TensorFlow's LLVM.
import torch  # noqa: E402
import torch._dynamo  # noqa: E402,F401
import torch.nn.functional as F  # noqa: E402

import tessel  # noqa: E402

H = W = 2048
TAPS = [0.0625, 0.25, 0.375, 0.25, 0.0625]


# --- PyTorch ------------------------------------------------------------------

def torch_blur():
    def blur_x_blur_y(img):
        kernel = torch.tensor(TAPS, device=img.device).float()
        blurx = F.conv2d(img.view(3, 1, H, W), kernel.view(1, 1, 1, 5))
        blury = F.conv2d(blurx, kernel.view(1, 1, 5, 1))
        return blury.view(3, H - 4, W - 4)
    return "blur_x_blur_y 3x2048x2048", blur_x_blur_y, (torch.rand(3, H, W),)


def torch_resnet50():
    import torchvision
    torch.manual_seed(0)
    return "ResNet-50 batch 1", torchvision.models.resnet50().eval(), (torch.rand(1, 3, 224, 224),)


def torch_mlp():
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                              torch.nn.Linear(4096, 1024)).eval()
    return "MLP 64x1024-4096-1024 GELU", mlp, (torch.rand(64, 1024),)


def torch_maxpool():
    # ResNet-50's max pool after the stem (NCHW, as PyTorch runs it).
    def maxpool(x):
        return F.max_pool2d(x, 3, 2, 1)
    torch.manual_seed(0)
    return "max pool 3x3/2 pad 1, 8x64x112x112", maxpool, (torch.rand(8, 64, 112, 112),)


def torch_depthwise():
    # A MobileNet-style 3x3 depthwise convolution (NCHW, groups = channels).
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(128, 128, 3, padding=1, groups=128, bias=False).eval()
    return "depthwise 3x3 pad 1, 8x128x56x56", conv, (torch.rand(8, 128, 56, 56),)


def torch_backends(fn):
    return {"eager": fn,
            "inductor": torch.compile(fn, dynamic=False),
            "tessel": torch.compile(fn, backend="tessel", dynamic=False)}


def torch_run(f, inputs):
    with torch.no_grad():
        return f(*inputs).numpy()


# --- JAX ------------------------------------------------------------------------

def jax_blur():
    import jax
    import jax.numpy as jnp

    def blur_x_blur_y(img):
        kernel = jnp.array(TAPS, jnp.float32)
        x = img.reshape(3, 1, H, W)
        blurx = jax.lax.conv_general_dilated(x, kernel.reshape(1, 1, 1, 5), (1, 1), "VALID")
        blury = jax.lax.conv_general_dilated(blurx, kernel.reshape(1, 1, 5, 1), (1, 1), "VALID")
        return blury.reshape(3, H - 4, W - 4)
    return "blur_x_blur_y 3x2048x2048", blur_x_blur_y, (np.random.rand(3, H, W).astype(np.float32),)


def jax_mlp():
    import jax
    rng = np.random.default_rng(0)

    def mlp(params, x):
        h = jax.nn.gelu(x @ params["w1"] + params["b1"], approximate=False)
        return h @ params["w2"] + params["b2"]
    params = {"w1": rng.standard_normal((1024, 4096), np.float32) / 32,
              "b1": rng.standard_normal(4096, np.float32) * 0.1,
              "w2": rng.standard_normal((4096, 1024), np.float32) / 64,
              "b2": rng.standard_normal(1024, np.float32) * 0.1}
    return "MLP 64x1024-4096-1024 GELU", mlp, (params, rng.random((64, 1024), np.float32))


def jax_resnet50():
    """ResNet-50 v1.5 inference in plain JAX (NHWC, HWIO, batch norm as a
    per-channel scale and shift), parameters as an argument."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    rng = np.random.default_rng(0)

    def conv_w(kh, kw, cin, cout):
        return (rng.standard_normal((kh, kw, cin, cout), np.float32) * np.sqrt(2.0 / (kh * kw * cin))
                ).astype(np.float32)

    def bn_p(c):
        return {"scale": rng.uniform(0.5, 1.0, c).astype(np.float32),
                "shift": (rng.standard_normal(c) * 0.05).astype(np.float32)}

    params = {"stem": conv_w(7, 7, 3, 64), "stem_bn": bn_p(64), "blocks": []}
    cin = 64
    for stage, (width, blocks) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3))):
        for b in range(blocks):
            stride = 2 if b == 0 and stage > 0 else 1
            p = {"w1": conv_w(1, 1, cin, width), "bn1": bn_p(width),
                 "w2": conv_w(3, 3, width, width), "bn2": bn_p(width),
                 "w3": conv_w(1, 1, width, 4 * width), "bn3": bn_p(4 * width)}
            if b == 0:
                p["wd"], p["bnd"] = conv_w(1, 1, cin, 4 * width), bn_p(4 * width)
            params["blocks"].append((p, stride))
            cin = 4 * width
    params["fc_w"] = (rng.standard_normal((2048, 1000)) / np.sqrt(2048)).astype(np.float32)
    params["fc_b"] = np.zeros(1000, np.float32)
    strides = [s for _, s in params["blocks"]]
    params["blocks"] = [p for p, _ in params["blocks"]]

    def conv(x, w, stride, pad):
        return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)],
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def bn(x, p):
        return x * p["scale"] + p["shift"]

    def resnet50(params, x):
        y = jax.nn.relu(bn(conv(x, params["stem"], 2, 3), params["stem_bn"]))
        y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                              [(0, 0), (1, 1), (1, 1), (0, 0)])
        for p, s in zip(params["blocks"], strides):
            r = jax.nn.relu(bn(conv(y, p["w1"], 1, 0), p["bn1"]))
            r = jax.nn.relu(bn(conv(r, p["w2"], s, 1), p["bn2"]))
            r = bn(conv(r, p["w3"], 1, 0), p["bn3"])
            if "wd" in p:
                y = bn(conv(y, p["wd"], s, 0), p["bnd"])
            y = jax.nn.relu(y + r)
        return jnp.mean(y, axis=(1, 2)) @ params["fc_w"] + params["fc_b"]
    return "ResNet-50 batch 1 (NHWC)", resnet50, (params, rng.random((1, 224, 224, 3), np.float32))


class IreeFunction:
    """jax.jit's StableHLO compiled by IREE for this CPU and run by its
    multithreaded local-task runtime."""

    def __init__(self, fn, inputs):
        import iree.compiler as ic
        import iree.runtime as ir
        import jax
        lowered = jax.jit(fn).lower(*inputs)
        vmfb = ic.compile_str(str(lowered.compiler_ir("stablehlo")), input_type="stablehlo",
                              target_backends=["llvm-cpu"],
                              extra_args=["--iree-llvmcpu-target-cpu=host"])
        self.ctx = ir.SystemContext(config=ir.Config("local-task"))
        self.ctx.add_vm_module(ir.VmModule.copy_buffer(self.ctx.instance, vmfb))
        self.main = getattr(self.ctx.modules, [m for m in self.ctx.modules if m != "hal"][0]).main

        self.device = self.ctx.config.device
        self.uploaded = {}

    def __call__(self, *inputs):
        # Inputs go to the device once (the same host arrays every call), as
        # Tessel reads them in place: the timing is the computation's.
        import iree.runtime as ir
        import jax
        args = []
        for leaf in jax.tree_util.tree_leaves(inputs):
            if id(leaf) not in self.uploaded:
                self.uploaded[id(leaf)] = (leaf, ir.asdevicearray(self.device, leaf))
            args.append(self.uploaded[id(leaf)][1])
        return self.main(*args)


def jax_backends(fn, inputs):
    import jax
    out = {"eager": fn, "xla": jax.jit(fn)}
    try:
        out["iree"] = IreeFunction(fn, inputs)
    except ImportError:
        print("IREE (iree-base-compiler, iree-base-runtime) is not installed: no IREE column",
              file=sys.stderr)
    out["tessel"] = tessel.jit_jax(fn)
    return out


def jax_run(f, inputs):
    r = f(*inputs)
    if hasattr(r, "to_host"):  # IREE
        return r.to_host()
    return np.asarray(r.block_until_ready())


# --- TensorFlow ----------------------------------------------------------------

def tf_blur():
    import tensorflow as tf

    def blur_x_blur_y(img):
        kernel = tf.constant(TAPS, dtype=tf.float32)
        img_reshaped = tf.reshape(img, [3, H, W, 1])
        blurx = tf.nn.conv2d(img_reshaped, tf.reshape(kernel, [1, 5, 1, 1]), [1, 1, 1, 1], "VALID")
        blury = tf.nn.conv2d(blurx, tf.reshape(kernel, [5, 1, 1, 1]), [1, 1, 1, 1], "VALID")
        return tf.reshape(blury, [3, H - 4, W - 4])
    return "blur_x_blur_y 3x2048x2048", blur_x_blur_y, (np.random.rand(3, H, W).astype(np.float32),)


def tf_conv_bias_relu():
    import tensorflow as tf
    rng = np.random.default_rng(0)

    def conv_bias_add_relu(img, filters, bias):
        conv = tf.nn.conv2d(img, filters, padding="SAME", strides=(1, 1), dilations=(1, 1))
        return tf.nn.relu(tf.nn.bias_add(conv, bias))
    return ("conv3x3+bias+relu 1x56x56x64->64 NHWC", conv_bias_add_relu,
            (rng.random((1, 56, 56, 64), np.float32),
             (rng.standard_normal((3, 3, 64, 64)) * 0.05).astype(np.float32),
             rng.random(64, np.float32)))


def tf_backends(fn, inputs):
    return {"std": tessel.jit_tf(fn, compile_options={"execution_backend": "std"}),
            "xla": tessel.jit_tf(fn, compile_options={"execution_backend": "xla"}),
            "tessel": tessel.jit_tf(fn)}


def tf_run(f, inputs):
    return f(*inputs).numpy()


FRAMEWORKS = {
    "torch": ({"blur": torch_blur, "mlp": torch_mlp, "resnet50": torch_resnet50,
               "maxpool": torch_maxpool, "depthwise": torch_depthwise},
              lambda fn, inputs: torch_backends(fn), torch_run, "eager"),
    "jax": ({"blur": jax_blur, "mlp": jax_mlp, "resnet50": jax_resnet50}, jax_backends, jax_run, "eager"),
    "tf": ({"blur": tf_blur, "conv_bias_relu": tf_conv_bias_relu}, tf_backends, tf_run, "std"),
}
DEFAULT = "torch:blur,torch:mlp,torch:resnet50,jax:blur,jax:mlp,jax:resnet50,tf:blur,tf:conv_bias_relu"


def bench(framework, key, reps):
    workloads, make_backends, run, reference = FRAMEWORKS[framework]
    name, fn, inputs = workloads[key]()
    impls = make_backends(fn, inputs)
    row = {"framework": framework, "workload": name, "threads": torch.get_num_threads(),
           "first_call_s": {}, "ms": {}}
    outs = {}
    for b, f in impls.items():
        fallbacks = tessel.stats.fallbacks
        t0 = time.perf_counter()
        outs[b] = run(f, inputs)
        row["first_call_s"][b] = time.perf_counter() - t0
        if b == "tessel" and tessel.stats.fallbacks != fallbacks:
            raise SystemExit(f"{framework} {name}: tessel fell back to eager; not a Tessel measurement")
    ref = outs[reference]
    for b, o in outs.items():
        err = np.abs(o.astype(np.float64) - ref).max() / max(1.0, np.abs(ref).max())
        if o.shape != ref.shape or err > 1e-3:
            raise SystemExit(f"{framework} {name}: {b} differs from {reference} by {err:.2e}")
    times = {b: [] for b in impls}
    for _ in range(reps):  # interleaved
        for b, f in impls.items():
            t0 = time.perf_counter()
            run(f, inputs)
            times[b].append(1e3 * (time.perf_counter() - t0))
    row["ms"] = {b: statistics.median(t) for b, t in times.items()}
    t = row["ms"]["tessel"]
    print(f"{framework}: {name} ({row['threads']} threads, median of {reps})")
    for b in impls:
        print(f"  {b:9s} {row['ms'][b]:9.2f} ms   first call {row['first_call_s'][b]:7.2f} s"
              + ("" if b == "tessel" else f"   tessel speedup {row['ms'][b] / t:5.2f}x"))
    sys.stdout.flush()
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json")
    ap.add_argument("--only", default=DEFAULT,
                    help="framework:workload,... (frameworks: torch, jax, tf); a bare framework "
                         "name runs all its workloads")
    args = ap.parse_args()
    selected = []
    for item in args.only.split(","):
        fw, _, key = item.partition(":")
        if fw not in FRAMEWORKS:
            ap.error(f"unknown framework {fw!r}")
        keys = [key] if key else list(FRAMEWORKS[fw][0])
        for k in keys:
            if k not in FRAMEWORKS[fw][0]:
                ap.error(f"unknown {fw} workload {k!r}; known: {', '.join(FRAMEWORKS[fw][0])}")
            selected.append((fw, k))
    results = [bench(fw, k, args.reps) for fw, k in selected]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

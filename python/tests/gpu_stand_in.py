"""What the tests of PyTorch's CUDA and ROCm tensors share: a spy on the
backend's compiles, and a script that calls a compiled `add` (4x8 f32) in
a process of its own against a stand-in driver library."""
import os
import subprocess
import sys
from pathlib import Path

import tessel
from tessel.frontends import torch_backend


def spy_on_compiles(monkeypatch) -> dict:
    """What the backend's compile_module is asked for: target,
    target_options and cuda_device of the latest compile."""
    seen = {}
    real_compile = torch_backend.compile_module

    def compile_module(text, name, args, results, options, cuda_device=None):
        seen.update(target=options.target, target_options=options.target_options,
                    cuda_device=cuda_device)
        return real_compile(text, name, args, results, options, cuda_device=cuda_device)

    monkeypatch.setattr(torch_backend, "compile_module", compile_module)
    return seen


# The stand-in, loaded first and global, is the driver library the GPU
# runtime then binds to. `fn` is `add` compiled for the target and loaded
# for device 1; `pointers` are its arguments and result; counts(name, n)
# reads n ints of the stand-in's counter `name`.
_PREAMBLE = """
import ctypes
import numpy as np
fake = ctypes.CDLL({fake!r}, mode=ctypes.RTLD_GLOBAL)
import tessel
from tessel import compiler
from tessel.mlir import ModuleBuilder

m = ModuleBuilder()
f = m.function("add")
a = f.add_argument((4, 8), "f32")
b = f.add_argument((4, 8), "f32")
f.set_results([f.elementwise([a, b], "f32", lambda bb, x: bb.op("arith.addf", x, "f32"))])
fn = compiler.compile_module(m.text(), "add", [a.type, b.type], [r.type for r in f.results],
                             tessel.CompileOptions(target={target!r}), cuda_device=1)
x, y, out = (np.zeros((4, 8), np.float32) for _ in range(3))
pointers = [x.ctypes.data, y.ctypes.data, out.ctypes.data]
counts = lambda name, n: list((ctypes.c_int * n).in_dll(fake, name))
"""


def run_against(fake: Path, target: str, script: str) -> subprocess.CompletedProcess:
    """Runs the preamble and then `script` in a new Python process."""
    env = dict(os.environ, PYTHONPATH=str(Path(tessel.__file__).parents[1]))
    code = _PREAMBLE.format(fake=str(fake), target=target) + script
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)

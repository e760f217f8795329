"""Ahead-of-time: trace a function once on example inputs and write a shared
library plus a C header (tessel-compile's), callable from C with no Python.

The framework is recognized from the example inputs: torch tensors trace
with make_fx (ATen, core decompositions); numpy or jax arrays with a jaxpr.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import _native
from .compiler import CompileOptions


def _symbol(fn) -> str:
    name = re.sub(r"\W", "_", getattr(fn, "__name__", "") or "")
    return name if name and name != "_lambda_" and not name[0].isdigit() else "main"


def aot_compile(fn, example_inputs, target="cpu", output="out.so", compile_options=None):
    """Returns (library path, header path). The entry point is
    _mlir_ciface_<function name> (see the header for its parameters)."""
    options = dict(compile_options or {})
    options["target"] = target
    framework = _framework(example_inputs)
    opts = CompileOptions.from_dict(options, framework)
    name = _symbol(fn)
    if framework == "torch":
        import torch
        from torch._decomp import core_aten_decompositions
        from torch.fx.experimental.proxy_tensor import make_fx

        from .frontends.torch_fx import lower_graph
        with torch.no_grad():
            gm = make_fx(fn, decomposition_table=core_aten_decompositions(),
                         tracing_mode="fake")(*example_inputs)
        text, _, _, plan = lower_graph(gm, name)
        if any(p[0] != "result" for p in plan):
            raise ValueError("aot_compile: every output must be computed by the function "
                             "(an output that is an input or None has no place in the C ABI)")
    else:
        from .frontends.jax_frontend import lower
        text, _, _, _ = lower(fn, list(example_inputs), opts.static_argnums, name=name)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    src = output.with_suffix(".mlir")
    src.write_text(text)
    _native.run_compiler([str(src), *opts.compiler_args(), "-o", str(output)])
    return output, output.with_suffix(".h")


def _framework(inputs) -> str:
    for x in inputs:
        mod = type(x).__module__
        if mod.startswith("torch"):
            return "torch"
        if mod.startswith("jax") or mod.startswith("jaxlib"):
            return "jax"
    return "jax"  # numpy inputs: traced with jax.numpy semantics

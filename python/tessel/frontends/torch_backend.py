"""`torch.compile(fn, backend="tessel")` and `@tessel.jit_torch`.

TorchDynamo captures FX graphs (graph breaks are dynamo's), AOTAutograd turns
each into a functional ATen graph with the core ATen decompositions, and the
forward graph is compiled by Tessel. Dynamo's guards decide when a graph is
re-captured (new shapes, dtypes, devices); Tessel's compile cache decides
when it is recompiled.

Under torch.compile an unsupported op makes that graph run eagerly, with one
warning; @jit_torch raises tessel.UnsupportedError naming the op(s).
"""

from __future__ import annotations

import functools
import warnings

import torch

from ..compiler import CompileError, CompileOptions, compile_module, stats
from ..mlir import UnsupportedError
from .torch_fx import MLIR_TO_TORCH, lower_graph

_warned: set = set()


def _compile_aten(gm: torch.fx.GraphModule, example_inputs, options: CompileOptions):
    name = "forward"
    text, arg_types, result_types, plan = lower_graph(gm, name)
    fn = compile_module(text, name, arg_types, result_types, options)
    result_dtypes = [MLIR_TO_TORCH[t.elem] for t in result_types]
    result_shapes = [t.shape for t in result_types]
    expected = [(t.shape, MLIR_TO_TORCH[t.elem]) for t in arg_types]

    def run(args):
        ins = []
        for i, (a, (shape, dtype)) in enumerate(zip(args, expected)):
            if a.device.type != "cpu":
                raise RuntimeError(f"tessel: input {i} is on {a.device}; target 'cpu' runs host tensors")
            if tuple(a.shape) != shape or a.dtype != dtype:
                raise RuntimeError(f"tessel: input {i} is {tuple(a.shape)} {a.dtype}, "
                                   f"compiled for {shape} {dtype}")
            ins.append(a if a.is_contiguous() else a.contiguous())
        outs = [torch.empty(s, dtype=d) for s, d in zip(result_shapes, result_dtypes)]
        fn.call_pointers([t.data_ptr() for t in ins] + [o.data_ptr() for o in outs])
        res = []
        for p in plan:
            if p[0] == "result":
                res.append(outs[p[1]])
            elif p[0] == "input":
                res.append(args[p[1]])
            elif p[0] == "none":
                res.append(None)
            else:
                res.append(p[1])
        return res

    run._boxed_call = True  # AOTAutograd's boxed convention: run(list_of_args)
    return run


def make_backend(options: CompileOptions, fallback: bool):
    """A dynamo backend compiling with `options`; with `fallback`,
    unsupported graphs run eagerly after one warning."""

    def backend(gm: torch.fx.GraphModule, example_inputs):
        from torch._decomp import core_aten_decompositions
        from torch._functorch.aot_autograd import aot_module_simplified, make_boxed_func

        def fw_compiler(fw_gm, fw_inputs):
            return _compile_aten(fw_gm, fw_inputs, options)

        def bw_compiler(bw_gm, bw_inputs):
            # Training graphs: the backward runs eagerly.
            return make_boxed_func(bw_gm.forward)

        try:
            return aot_module_simplified(gm, example_inputs, fw_compiler=fw_compiler,
                                        bw_compiler=bw_compiler,
                                        decompositions=core_aten_decompositions())
        except (UnsupportedError, CompileError) as e:
            if not fallback:
                raise
            stats.fallbacks += 1
            key = tuple(getattr(e, "ops", ())) or str(e)
            if key not in _warned:
                _warned.add(key)
                warnings.warn(f"tessel: running this graph eagerly: {e}", RuntimeWarning, stacklevel=2)
            return gm.forward

    return backend


def tessel_backend(gm, example_inputs, options=None):
    """The backend registered as "tessel" (torch.compile(fn, backend="tessel",
    options={...}) passes compile options)."""
    return make_backend(CompileOptions.from_dict(options, "torch"), fallback=True)(gm, example_inputs)


def _register():
    try:
        from torch._dynamo import list_backends, register_backend
        if "tessel" not in list_backends(exclude_tags=()):
            register_backend(name="tessel")(tessel_backend)
    except Exception:  # an older or newer dynamo without this API
        pass


def jit_torch(fn=None, *, compile_options=None):
    """@tessel.jit_torch or @tessel.jit_torch(compile_options={...}), or
    tessel.jit_torch(fn, compile_options=...) at a call site."""
    options = CompileOptions.from_dict(compile_options, "torch")

    def wrap(f):
        if options.execution_backend == "std":
            return f
        if options.execution_backend == "inductor":
            return torch.compile(f, dynamic=False)
        compiled = torch.compile(f, backend=make_backend(options, fallback=False), dynamic=False)

        @functools.wraps(f)
        def call(*args, **kwargs):
            # nn.MultiheadAttention's eval fast path is one fused op
            # (aten._transformer_encoder_layer_fwd); without it dynamo sees
            # the ops it is made of, which Tessel compiles and fuses.
            fastpath = torch.backends.mha.get_fastpath_enabled()
            torch.backends.mha.set_fastpath_enabled(False)
            try:
                return compiled(*args, **kwargs)
            except Exception as e:
                inner = e
                while inner is not None and not isinstance(inner, (UnsupportedError, CompileError)):
                    inner = getattr(inner, "inner_exception", None) or inner.__cause__
                if inner is not None:
                    raise inner.with_traceback(None) from None
                raise
            finally:
                torch.backends.mha.set_fastpath_enabled(fastpath)

        call.tessel_options = options
        return call

    return wrap(fn) if fn is not None else wrap

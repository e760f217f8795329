"""Tessel from Python: one-line JIT decorators for PyTorch, JAX and
TensorFlow, and ahead-of-time compilation to a shared library + C header.

    import tessel

    @tessel.jit_torch
    def f(x): ...

    torch.compile(model, backend="tessel")

    @tessel.jit_jax(compile_options={"static_argnums": (2,)})
    def g(x, w, steps): ...

    @tessel.jit_tf(input_signature=[tf.TensorSpec([3, 64, 64], tf.float32)])
    def h(img): ...

    tessel.aot_compile(f, (x,), target="cpu", output="f.so")  # + f.h

Compilation runs in this process through libTesselCompiler.so (the
tessel-compile driver over Tessel's C API). Frameworks are imported only
when their decorator is used.
"""

from ._native import CompileError
from .compiler import CompileOptions, cache_dir, stats
from .mlir import UnsupportedError

__all__ = ["jit_torch", "jit_jax", "jit_tf", "aot_compile", "CompileError",
           "UnsupportedError", "CompileOptions", "stats", "cache_dir"]

__version__ = "0.1.0"


def jit_torch(fn=None, *, compile_options=None):
    from .frontends.torch_backend import jit_torch as impl
    return impl(fn, compile_options=compile_options)


def jit_jax(fn=None, *, compile_options=None):
    from .frontends.jax_frontend import jit_jax as impl
    return impl(fn, compile_options=compile_options)


def jit_tf(fn=None, *, input_signature=None, compile_options=None):
    from .frontends.tf_frontend import jit_tf as impl
    return impl(fn, input_signature=input_signature, compile_options=compile_options)


def aot_compile(fn, example_inputs, target="cpu", output="out.so", compile_options=None):
    from .aot import aot_compile as impl
    return impl(fn, example_inputs, target=target, output=output, compile_options=compile_options)


def tessel_torch_backend(gm, example_inputs, options=None):
    """Entry point of the `torch_dynamo_backends` group: torch.compile(...,
    backend="tessel") works without importing tessel first."""
    from .frontends.torch_backend import tessel_backend
    return tessel_backend(gm, example_inputs, options=options)


def _register_torch_backend_if_loaded():
    import sys
    if "torch" in sys.modules:
        from .frontends.torch_backend import _register
        _register()


_register_torch_backend_if_loaded()

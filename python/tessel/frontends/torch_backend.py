"""`torch.compile(fn, backend="tessel")` and `@tessel.jit_torch`.

TorchDynamo captures FX graphs (graph breaks are dynamo's), AOTAutograd turns
each into a functional ATen graph with the core ATen decompositions, and the
forward graph is compiled by Tessel. Dynamo's guards decide when a graph is
re-captured (new shapes, dtypes, devices); Tessel's compile cache decides
when it is recompiled.

Under torch.compile an unsupported op makes that graph run eagerly, with one
warning; @jit_torch raises tessel.UnsupportedError naming the op(s).

A graph on CUDA tensors compiles for target nvgpu (the device's chip) and
runs on PyTorch's current stream, lent to Tessel's CUDA runtime. Under
PyTorch's ROCm build the same tensors are on an AMD GPU: target amdgpu and
Tessel's HIP runtime.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import os
import re
import warnings

import torch

from .._native import GPU_RUNTIMES, library_dir
from ..compiler import CompileError, CompileOptions, compile_module, stats
from ..mlir import UnsupportedError
from .torch_fx import MLIR_TO_TORCH, lower_graph

_warned: set = set()


# PyTorch's default stream is 0, which the runtimes' tessel_*_set_stream
# read as "no stream": it is lent as 1, CUDA's CU_STREAM_LEGACY (the legacy
# default stream) and the HIP runtime's TESSEL_HIP_NULL_STREAM (HIP's null
# stream, PyTorch's default under ROCm).
DEFAULT_STREAM = 1


def nvgpu_chip(major: int, minor: int) -> str:
    """The NVIDIA target preset for a CUDA compute capability: the chip's
    own where Tessel has one (sm_90a, with wgmma, for Hopper), sm_90 for
    newer chips (its PTX is compiled for them by the driver; sm_90a's is
    not), sm_86 for other Ampere chips (the smaller shared memory), and an
    error below sm_80 (the tensor-core kernels need it). The device's own
    SM count and shared memory are added by options_for_device."""
    if (major, minor) < (8, 0):
        raise UnsupportedError(f"tessel: CUDA device sm_{major}{minor} is older than sm_80, "
                               "the oldest NVIDIA GPU Tessel targets")
    if (major, minor) == (9, 0):
        return "sm_90a"
    if major >= 9:
        return "sm_90"
    return {(8, 0): "sm_80", (8, 9): "sm_89"}.get((major, minor), "sm_86")


# The AMD chips Tessel has targets for. A code object runs only on the chip
# it was compiled for, so another chip (gfx1101, say) is refused rather
# than given a neighbour's.
AMDGPU_CHIPS = ("gfx90a", "gfx942", "gfx1100")


def amdgpu_chip(gcn_arch_name: str) -> str:
    """The AMD target preset for a device's gcnArchName
    ("gfx90a:sramecc+:xnack-": the chip, then its target features)."""
    chip = gcn_arch_name.split(":")[0]
    if chip not in AMDGPU_CHIPS:
        raise UnsupportedError(f"tessel: AMD GPU {chip or gcn_arch_name!r} has no Tessel target "
                               f"(there are {', '.join(AMDGPU_CHIPS)})")
    return chip


def amd_compute_units(properties) -> int:
    """The device's compute units. HIP counts RDNA chips' (gfx10 and later)
    workgroup processors instead, two compute units each, unless
    GPU_ENABLE_WGP_MODE=0 (ROCm/hip#3198): a 7900 XTX reports 48 of its
    96. Tessel's presets and models count compute units."""
    count = properties.multi_processor_count
    rdna = properties.gcnArchName.startswith("gfx1")
    if rdna and os.environ.get("GPU_ENABLE_WGP_MODE") != "0":
        count *= 2
    return count


def _mapped_files() -> set:
    """The files mapped into this process (/proc/self/maps)."""
    try:
        with open("/proc/self/maps") as maps:
            fields = [line.split(None, 5) for line in maps]
    except OSError:
        return set()
    return {f[5].strip() for f in fields if len(f) == 6}


def hip_runtime_problem() -> str | None:
    """Why Tessel's HIP runtime cannot serve PyTorch's ROCm tensors, or
    None. It links libamdhip64 directly: one built against another ROCm
    than PyTorch's brings a second HIP runtime into the process, to which
    PyTorch's streams and devices mean nothing."""
    try:
        ctypes.CDLL(str(library_dir() / GPU_RUNTIMES["amdgpu"].library))
    except OSError as e:
        return f"Tessel's HIP runtime cannot be loaded: {e}"
    hips = {os.path.realpath(f) for f in _mapped_files()
            if os.path.basename(f).startswith("libamdhip64.so")}
    if len(hips) > 1:
        return ("two HIP runtimes in one process (" + ", ".join(sorted(hips)) + "): Tessel's "
                "HIP runtime was built against another ROCm than PyTorch's; build Tessel "
                "against PyTorch's ROCm (ROCM_PATH)")
    return None


def on_rocm() -> bool:
    """PyTorch's ROCm build: its cuda devices are AMD GPUs."""
    return bool(getattr(torch.version, "hip", None))


def cuda_driver_version() -> int:
    """The CUDA driver's version as Tessel's runtime sees it (12030 for
    12.3), 0 when unknown."""
    try:
        runtime = ctypes.CDLL(str(library_dir() / "libtessel_cuda_runtime.so"))
        return int(runtime.tessel_cuda_driver_version())
    except (OSError, AttributeError):
        return 0


# sm_90a's kernels are PTX ISA 8.3, which CUDA 12.3 drivers introduced.
SM_90A_DRIVER = 12030


def _is_host_scalar(t) -> bool:
    return isinstance(t, torch.Tensor) and t.device.type == "cpu" and t.dim() == 0


def device_of(example_inputs):
    """The one device the graph's tensor inputs are on: None for host
    tensors (or none), a torch.device for CUDA ones (an AMD GPU under ROCm;
    host 0-d tensors beside them are copied to it); several devices are
    refused."""
    devices = {a.device for a in example_inputs if isinstance(a, torch.Tensor)}
    if not devices or devices == {torch.device("cpu")}:
        return None
    devices = {a.device for a in example_inputs
               if isinstance(a, torch.Tensor) and not _is_host_scalar(a)}
    if len(devices) > 1:
        raise UnsupportedError("tessel: the graph's inputs are on several devices ("
                               + ", ".join(sorted(str(d) for d in devices)) + ")")
    (device,) = devices
    if device.type != "cuda":
        raise UnsupportedError(f"tessel: inputs on {device} are not supported (host or CUDA "
                               "tensors)")
    return device if device.index is not None else torch.device("cuda", torch.cuda.current_device())


def check_one_device(gm: torch.fx.GraphModule, device) -> None:
    """Refuses a graph that makes a tensor on another device than its
    inputs' (x.cuda(), x.cpu(), torch.zeros(device=...)): Tessel runs a
    graph on one device. Host 0-d inputs of a CUDA graph are copied to it."""
    expected = device or torch.device("cpu")

    def tensors(value):
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            for v in value:
                yield from tensors(v)

    for node in gm.graph.nodes:
        for t in tensors(node.meta.get("val")):
            if t.device == expected or (node.op == "placeholder" and device is not None
                                        and _is_host_scalar(t)):
                continue
            raise UnsupportedError(f"tessel: the graph makes a tensor on {t.device} "
                                   f"({node.format_node()}); Tessel runs a graph on one "
                                   f"device, here {expected}")


def options_for_device(options: CompileOptions, device) -> CompileOptions:
    """`options` for the graph's device: CUDA tensors compile for target
    nvgpu (amdgpu under ROCm), for the device's chip, SM (compute unit)
    count and shared memory per block unless target_options say
    otherwise."""
    if device is None:
        if options.target != "cpu":
            raise UnsupportedError(f"tessel: target '{options.target}' runs GPU tensors; "
                                   "the inputs are host tensors")
        return options
    target = "amdgpu" if on_rocm() else "nvgpu"
    if options.target not in ("cpu", target):
        raise UnsupportedError(f"tessel: target '{options.target}' cannot run PyTorch's "
                               f"tensors on {device} (target '{target}' does)")
    if target == "amdgpu":
        problem = hip_runtime_problem()
        if problem:
            raise UnsupportedError("tessel: " + problem)
    given = options.target_options or ""
    given_keys = set(re.findall(r"(?:^|\s)([a-z-]+)=", given))
    described = []
    properties = torch.cuda.get_device_properties(device)
    if "chip" not in given_keys:
        if target == "amdgpu":
            chip = amdgpu_chip(properties.gcnArchName)
        else:
            chip = nvgpu_chip(*torch.cuda.get_device_capability(device))
            # An older driver cannot load sm_90a's PTX: sm_90's kernels
            # (WMMA) then, rather than a library that fails at load.
            driver = cuda_driver_version()
            if chip == "sm_90a" and 0 < driver < SM_90A_DRIVER:
                chip = "sm_90"
        described.append("chip=" + chip)
    # The preset's figures are one model's (H100 SXM for sm_90a, MI210 for
    # gfx90a); the device's own matter to the tile and occupancy models, and
    # shared memory also to whether a kernel can launch at all. (ROCm's
    # properties have no opt-in figure: a block may use all of it.)
    if "sm-count" not in given_keys:
        units = (amd_compute_units(properties) if target == "amdgpu"
                 else properties.multi_processor_count)
        described.append(f"sm-count={units}")
    shared = getattr(properties, "shared_memory_per_block" if target == "amdgpu"
                     else "shared_memory_per_block_optin", 0)
    if shared and "smem-per-block" not in given_keys:
        described.append(f"smem-per-block={shared}")
    target_options = " ".join(described + ([given] if given else []))
    return dataclasses.replace(options, target=target, target_options=target_options)


def _compile_aten(gm: torch.fx.GraphModule, example_inputs, options: CompileOptions):
    name = "forward"
    device = device_of(example_inputs)
    check_one_device(gm, device)
    options = options_for_device(options, device)
    text, arg_types, result_types, plan = lower_graph(gm, name)
    fn = compile_module(text, name, arg_types, result_types, options,
                        cuda_device=None if device is None else device.index)
    result_dtypes = [MLIR_TO_TORCH[t.elem] for t in result_types]
    result_shapes = [t.shape for t in result_types]
    expected = [(t.shape, MLIR_TO_TORCH[t.elem]) for t in arg_types]
    where = "host" if device is None else str(device)

    def run(args):
        ins = []
        for i, (a, (shape, dtype)) in enumerate(zip(args, expected)):
            if a.device != (device or torch.device("cpu")):
                if not (device is not None and _is_host_scalar(a)):
                    raise RuntimeError(f"tessel: input {i} is on {a.device}; this graph was "
                                       f"compiled for {where} tensors")
                a = a.to(device)
            if tuple(a.shape) != shape or a.dtype != dtype:
                raise RuntimeError(f"tessel: input {i} is {tuple(a.shape)} {a.dtype}, "
                                   f"compiled for {shape} {dtype}")
            if not a.is_contiguous():
                a = a.contiguous()
            # The GPU kernels' 16-byte copies need 16-byte aligned buffers
            # (docs/ABI.md); a view such as x[1:] may start anywhere.
            if device is not None and a.data_ptr() % 16:
                a = a.clone()
            ins.append(a)
        outs = [torch.empty(s, dtype=d, device=device) for s, d in zip(result_shapes, result_dtypes)]
        pointers = [t.data_ptr() for t in ins] + [o.data_ptr() for o in outs]
        if device is None:
            fn.call_pointers(pointers)
        else:
            if torch.cuda.is_current_stream_capturing():
                raise RuntimeError("tessel: a Tessel graph cannot be captured in a CUDA graph "
                                   "(its host code may allocate, and wait, on any call)")
            # On PyTorch's current stream: after the work that made the
            # inputs, before the work that reads the outputs.
            stream = torch.cuda.current_stream(device).cuda_stream or DEFAULT_STREAM
            fn.call_device_pointers(pointers, device.index, stream)
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

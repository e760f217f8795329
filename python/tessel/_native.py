"""ctypes bindings: the compiler (libTesselCompiler.so, tessel-c/Compiler.h)
and the compiled modules (their _mlir_ciface_<name> entry points)."""

from __future__ import annotations

import ctypes
import dataclasses
import os
import shlex
import threading
import types
from pathlib import Path

import numpy as np

from .mlir import contiguous, mlir_to_np_dtype

__all__ = ["CompileError", "library_dir", "run_compiler", "CompiledFunction", "aligned_empty"]


class CompileError(RuntimeError):
    """tessel-compile failed; the message holds its diagnostics and the
    equivalent command line."""


def library_dir() -> Path:
    """Where libTessel.so and libTesselCompiler.so live: $TESSEL_LIBRARY_DIR,
    else the build tree of the checkout this package comes from
    ($TESSEL_BUILD_DIR or <repo>/build)."""
    candidates = []
    if os.environ.get("TESSEL_LIBRARY_DIR"):
        candidates.append(Path(os.environ["TESSEL_LIBRARY_DIR"]))
    repo = Path(__file__).resolve().parents[2]
    if os.environ.get("TESSEL_BUILD_DIR"):
        candidates.append(Path(os.environ["TESSEL_BUILD_DIR"]) / "lib")
    candidates.append(repo / "build" / "lib")
    for c in candidates:
        if (c / "libTesselCompiler.so").exists():
            return c
    raise CompileError(
        "cannot find libTesselCompiler.so (looked in: "
        + ", ".join(str(c) for c in candidates)
        + "); build it with `ninja -C build TesselCompiler` or set TESSEL_LIBRARY_DIR")


# The compiler links LLVM/MLIR 22 (libMLIR.so, libLLVM.so.22). Frameworks
# load their own LLVM/MLIR builds with global symbols first (TensorFlow
# does); DEEPBIND makes the compiler and its dependencies resolve their own
# definitions first instead of binding to the framework's.
_LOAD_MODE = getattr(os, "RTLD_DEEPBIND", 0) | getattr(os, "RTLD_LOCAL", 0) | getattr(os, "RTLD_NOW", 0)

_lib = None
_lib_lock = threading.Lock()


def _compiler():
    global _lib
    with _lib_lock:
        if _lib is None:
            lib = ctypes.CDLL(str(library_dir() / "libTesselCompiler.so"), mode=_LOAD_MODE)
            lib.tesselCompilerRun.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                              ctypes.POINTER(ctypes.c_void_p)]
            lib.tesselCompilerRun.restype = ctypes.c_int
            lib.tesselCompilerFreeLog.argtypes = [ctypes.c_void_p]
            lib.tesselCompilerFreeLog.restype = None
            _lib = lib
    return _lib


def command_line(args) -> str:
    return "tessel-compile " + " ".join(shlex.quote(str(a)) for a in args)


def run_compiler(args) -> str:
    """Runs `tessel-compile *args` in this process; returns its log, raises
    CompileError on failure."""
    lib = _compiler()
    argv = [b"tessel-compile"] + [str(a).encode() for a in args]
    arr = (ctypes.c_char_p * len(argv))(*argv)
    log = ctypes.c_void_p()
    rc = lib.tesselCompilerRun(len(argv), arr, ctypes.byref(log))
    text = ""
    if log.value:
        text = ctypes.string_at(log.value).decode(errors="replace")
        lib.tesselCompilerFreeLog(log)
    if rc != 0:
        raise CompileError(f"{text.rstrip()}\n(compilation: {command_line(args)})")
    return text


# --- calling compiled code ---------------------------------------------------

def aligned_empty(shape, dtype, align=64) -> np.ndarray:
    """An uninitialized C-contiguous array whose data starts on an `align`
    byte boundary (DLPack consumers such as JAX require 64)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(n + align, dtype=np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + n].view(dtype).reshape(shape)


_DESCRIPTOR_TYPES: dict = {}


def descriptor_type(rank: int):
    """Upstream MLIR's strided memref descriptor for a rank (the element
    type only changes the pointer type, passed here as void*)."""
    if rank not in _DESCRIPTOR_TYPES:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
        _DESCRIPTOR_TYPES[rank] = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})
    return _DESCRIPTOR_TYPES[rank]


def make_descriptor(ptr: int, shape) -> ctypes.Structure:
    rank = len(shape)
    d = descriptor_type(rank)()
    d.allocated = ptr
    d.aligned = ptr
    d.offset = 0
    stride = 1
    for i in reversed(range(rank)):
        d.sizes[i] = shape[i]
        d.strides[i] = stride
        stride *= shape[i]
    return d


@dataclasses.dataclass(frozen=True)
class GPURuntime:
    """The runtime library a GPU target's code calls, and the prefix of its
    tessel_<prefix>_set_stream/_error_count/... functions."""
    library: str
    prefix: str
    name: str


GPU_RUNTIMES = {
    "nvgpu": GPURuntime("libtessel_cuda_runtime.so", "cuda", "CUDA"),
    "amdgpu": GPURuntime("libtessel_hip_runtime.so", "hip", "HIP"),
}


class CompiledFunction:
    """One entry point of a compiled shared library.

    `signature` lists the argument and result tensor types (TensorType); a
    call takes raw data pointers (C-contiguous buffers of exactly those
    shapes), so any array library can call it without copies."""

    def __init__(self, so_path: Path, name: str, arg_types, result_types,
                 cuda_device: int | None = None, target: str = "nvgpu"):
        self.so_path = Path(so_path)
        self.name = name
        self.arg_types = list(arg_types)
        self.result_types = list(result_types)
        self._gpu = GPU_RUNTIMES.get(target)
        if cuda_device is not None:
            # A GPU library loads its kernels when it is loaded, on the
            # loading thread's default device: make that the device the
            # calls are for, so that they are loaded there, not on device 0.
            try:
                gpu_runtime = ctypes.CDLL(str(library_dir() / self._gpu.library))
            except OSError as e:
                raise CompileError(f"{name}: Tessel's {self._gpu.name} runtime cannot be "
                                   f"loaded: {e}") from e
            gpu_runtime.mgpuSetDefaultDevice.argtypes = [ctypes.c_int32]
            gpu_runtime.mgpuSetDefaultDevice(cuda_device)
        self._lib = ctypes.CDLL(str(self.so_path))
        fn = getattr(self._lib, f"_mlir_ciface_{name}")
        n = len(self.arg_types) + len(self.result_types)
        fn.argtypes = [ctypes.c_void_p] * n
        fn.restype = None
        self._fn = fn
        # Descriptors per thread: ctypes lets go of the GIL during the call.
        self._per_thread = threading.local()

    def call_pointers(self, pointers) -> None:
        """pointers: data addresses of the arguments, then of the results."""
        descs = getattr(self._per_thread, "descriptors", None)
        if descs is None:
            descs = self._per_thread.descriptors = [
                make_descriptor(0, t.shape) for t in self.arg_types + self.result_types]
        for d, p in zip(descs, pointers):
            d.allocated = p
            d.aligned = p
        self._fn(*[ctypes.addressof(d) for d in descs])

    def call_device_pointers(self, pointers, device: int, stream: int,
                             wait: bool = False) -> None:
        """A GPU library's call (target nvgpu or amdgpu): `pointers` are
        device addresses on GPU `device` (PyTorch's cuda:N, also under
        ROCm), and the kernels run on `stream`, the caller's (a CUstream of
        that device's primary context, or a hipStream_t of that device): the
        call is ordered after the work queued there. It returns once its
        work is queued, as PyTorch's own operators do (the stream is lent
        with tessel_cuda_set_stream_async or tessel_hip_set_stream_async;
        see docs/Runtime.md for when the runtime still waits), so later work
        on the stream
        sees the results and the host sees them after synchronizing it;
        with `wait`, it returns when its work is done. 1 names the default
        stream (CUDA's legacy stream, CU_STREAM_LEGACY; HIP's null stream,
        TESSEL_HIP_NULL_STREAM); 0 is not a stream here. A failure the
        runtime reports (a launch, an allocation) raises RuntimeError; a
        fault while a kernel runs surfaces where the stream is next
        synchronized, or raises from a later call, as with PyTorch's
        kernels."""
        gpu = self._gpu
        if gpu is None:
            raise RuntimeError(f"{self.so_path} is not a GPU library (target nvgpu or amdgpu)")
        if not stream:
            raise ValueError(f"{self.name}: no stream (pass 1 for the default stream)")
        runtime = self._gpu_runtime()
        runtime.set_device(device)
        errors = runtime.error_count()
        (runtime.set_stream if wait else runtime.set_stream_async)(stream)
        try:
            if runtime.stream() != stream:
                raise RuntimeError(f"{self.name}: the {gpu.name} runtime did not take the stream")
            self.call_pointers(pointers)
        finally:
            runtime.set_stream(None)
        # The runtime reports failures on stderr (generated code cannot see
        # them); after one, the call launched nothing more and its results
        # are not to be used.
        if runtime.error_count() != errors:
            message = runtime.last_error().decode(errors="replace")
            raise RuntimeError(f"{self.name}: the call failed on {gpu.name} device {device}: "
                               f"{message}")

    def _gpu_runtime(self):
        """The runtime functions the library's kernels go through, looked up
        through the library's own handle (its dependencies), so that they
        reach the same copy of the GPU runtime library."""
        runtime = getattr(self, "_runtime", None)
        if runtime is None:
            prefix = self._gpu.prefix
            try:
                functions = {
                    "set_device": (self._lib.mgpuSetDefaultDevice, [ctypes.c_int32], None),
                    "set_stream": (getattr(self._lib, f"tessel_{prefix}_set_stream"),
                                   [ctypes.c_void_p], None),
                    "set_stream_async": (getattr(self._lib,
                                                 f"tessel_{prefix}_set_stream_async"),
                                         [ctypes.c_void_p], None),
                    "stream": (getattr(self._lib, f"tessel_{prefix}_stream"), [],
                               ctypes.c_void_p),
                    "error_count": (getattr(self._lib, f"tessel_{prefix}_error_count"), [],
                                    ctypes.c_uint64),
                    "last_error": (getattr(self._lib, f"tessel_{prefix}_last_error"), [],
                                   ctypes.c_char_p),
                }
            except AttributeError as e:
                raise RuntimeError(f"{self.so_path} does not use Tessel's {self._gpu.name} "
                                   "runtime") from e
            for function, argtypes, restype in functions.values():
                function.argtypes = argtypes
                function.restype = restype
            runtime = self._runtime = types.SimpleNamespace(
                **{name: f for name, (f, _, _) in functions.items()})
        return runtime

    def __call__(self, *arrays):
        """numpy convenience: returns new numpy results."""
        args = [contiguous(a, mlir_to_np_dtype(t.elem))
                for a, t in zip(arrays, self.arg_types)]
        for a, t in zip(args, self.arg_types):
            if tuple(a.shape) != t.shape:
                raise ValueError(f"{self.name}: argument of shape {a.shape}, compiled for {t.shape}")
        outs = [np.empty(t.shape, dtype=mlir_to_np_dtype(t.elem)) for t in self.result_types]
        self.call_pointers([a.ctypes.data for a in args] + [o.ctypes.data for o in outs])
        return outs[0] if len(outs) == 1 else tuple(outs)

"""Compile options, the compile cache and compilation itself.

A compilation is keyed on the MLIR text the frontend emitted (which encodes
the function, its input shapes and dtypes and every constant), the options
that change code, and the identity of the compiler libraries. Compiled
libraries are kept in memory and on disk under the user's cache directory
($TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel, else ~/.cache/tessel).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import _native
from ._native import CompiledFunction, CompileError
from .mlir import UnsupportedError

__all__ = ["CompileOptions", "CompileError", "compile_module", "stats", "cache_dir"]

TARGETS = ("cpu", "nvgpu", "amdgpu")
BACKENDS = ("tessel", "std", "xla", "inductor")


@dataclass
class CompileOptions:
    """compile_options accepted by every decorator.

    target            'cpu' (default), 'nvgpu', 'amdgpu'
    debug             False, True (dump under ./tessel-debug) or a directory:
                      the input MLIR and the IR after every pipeline stage
    static_argnums    (JAX) arguments treated as compile-time constants
    execution_backend 'tessel' (default); 'std' runs the framework eagerly,
                      'xla' (JAX, TF) and 'inductor' (PyTorch) the framework's
                      own JIT, to compare the same function across backends
    opt_level         LLVM optimization level 0-3 (default 3)
    target_options    tessel-attach-target options, e.g. 'cores=1'
    disable_passes    passes left out of the target's pipeline (every run,
                      wherever nested), e.g. ['tessel-fuse-producers'] (an
                      optimization switch)
    remarks           print the optimizer's remarks after compiling
    cache             use the on-disk compile cache (default True)
    """
    target: str = "cpu"
    debug: object = False
    static_argnums: tuple = ()
    execution_backend: str = "tessel"
    opt_level: int = 3
    target_options: str | None = None
    disable_passes: tuple = ()
    remarks: bool = False
    cache: bool = True

    @classmethod
    def from_dict(cls, options, framework: str) -> "CompileOptions":
        options = dict(options or {})
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown compile option(s) {unknown}; known: {sorted(known)}")
        o = cls(**options)
        if o.target not in TARGETS:
            raise ValueError(f"compile option target={o.target!r}: expected one of {TARGETS}")
        if o.execution_backend not in BACKENDS:
            raise ValueError(f"compile option execution_backend={o.execution_backend!r}: "
                             f"expected one of {BACKENDS}")
        own_jit = {"torch": "inductor", "jax": "xla", "tf": "xla"}[framework]
        if o.execution_backend in ("xla", "inductor") and o.execution_backend != own_jit:
            raise ValueError(f"execution_backend={o.execution_backend!r} is not a {framework} JIT "
                             f"(use {own_jit!r})")
        if isinstance(o.static_argnums, int):
            o.static_argnums = (o.static_argnums,)
        o.static_argnums = tuple(o.static_argnums)
        o.disable_passes = tuple(o.disable_passes)
        if not 0 <= int(o.opt_level) <= 3:
            raise ValueError("compile option opt_level: expected 0..3")
        return o

    def compiler_args(self) -> list:
        args = [f"--target={self.target}", f"-O{int(self.opt_level)}"]
        if self.target_options:
            args.append(f"--target-options={self.target_options}")
        if self.disable_passes:
            args.append(f"--pass-pipeline={self.pipeline_without(self.disable_passes)}")
        return args

    def pipeline_without(self, passes) -> str:
        """The target's pipeline with every run of each pass in `passes` left
        out (with its options, under whichever op it is nested: func.func,
        gpu.module, ...), and nestings left empty removed. Names are pass
        names: a word inside a pass's options, or a nesting op, is not one."""
        pipeline = _native.run_compiler([f"--target={self.target}", "--print-pipeline"]).strip()
        # Each pass's options ({...}) set aside as {N}, so that only entries
        # of pass lists can match, and put back at the end.
        options = re.findall(r"\{[^{}]*\}", pipeline)
        counter = iter(range(len(options)))
        masked = re.sub(r"\{[^{}]*\}", lambda _: "{%d}" % next(counter), pipeline)
        for p in passes:
            # A whole entry of a pass list: after '(' or ',', before ',' or
            # ')'. A nesting op is followed by '(' and does not match.
            run = re.compile(r"(?<=[(,])\s*" + re.escape(p) + r"(\{\d+\})?(?=\s*[,)])")
            if not run.search(masked):
                raise ValueError(f"disable_passes: '{p}' is not a pass of the {self.target} pipeline")
            masked = run.sub("", masked)
        while True:
            tidy = re.sub(r",\s*(?=,|\))", "", masked)  # ', ,' and ', )'
            tidy = re.sub(r"\(\s*,\s*", "(", tidy)  # '(, '
            tidy = re.sub(r"[\w.]+\(\s*\)", "", tidy)  # 'gpu.module()'
            if tidy == masked:
                break
            masked = tidy
        return re.sub(r"\{(\d+)\}", lambda m: options[int(m.group(1))], masked)

    def debug_dir(self) -> Path | None:
        if not self.debug:
            return None
        return Path("tessel-debug" if self.debug is True else str(self.debug))


@dataclass
class Stats:
    """Counters tests and users read: compilations actually run, hits of the
    in-memory and on-disk caches, and compile time spent."""
    compilations: int = 0
    memory_hits: int = 0
    disk_hits: int = 0
    compile_seconds: float = 0.0
    fallbacks: int = 0
    log: list = field(default_factory=list)

    def reset(self):
        self.__init__()


stats = Stats()
_memory_cache: dict = {}
_lock = threading.Lock()


def cache_dir() -> Path:
    if os.environ.get("TESSEL_CACHE_DIR"):
        return Path(os.environ["TESSEL_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tessel"


def _compiler_identity() -> str:
    d = _native.library_dir()
    parts = []
    for name in ("libTessel.so", "libTesselCompiler.so"):
        st = (d / name).stat()
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(parts)


def compile_module(text: str, name: str, arg_types, result_types,
                   options: CompileOptions, cuda_device: int | None = None) -> CompiledFunction:
    """Compiles MLIR text (one public function `name`) to a shared library,
    through the caches; returns the callable entry point. `cuda_device`:
    the GPU the caller runs it on (PyTorch's cuda:N, an AMD GPU under ROCm;
    CompiledFunction.call_device_pointers), so target 'nvgpu' or 'amdgpu'
    can be executed; the library is first loaded for that device."""
    if options.target != "cpu" and not (cuda_device is not None
                                        and options.target in _native.GPU_RUNTIMES):
        raise UnsupportedError(
            f"executing target '{options.target}' from Python is supported for PyTorch's "
            "GPU tensors (target 'nvgpu' or 'amdgpu') only; use tessel.aot_compile for "
            "other GPU uses or target='cpu'")
    args = options.compiler_args()
    key = hashlib.sha256("\0".join([text, name, " ".join(args),
                                    _compiler_identity()]).encode()).hexdigest()[:32]
    with _lock:
        debug = options.debug_dir()
        hit = _memory_cache.get(key)
        if hit is not None and not debug:  # debug asks for the dumps: compile
            stats.memory_hits += 1
            return hit
        directory = cache_dir()
        so = directory / f"{name}-{key}.so"
        if options.cache and so.exists() and not debug:
            stats.disk_hits += 1
        else:
            _compile_to(text, so, args, options, name, key)
        on_gpu = options.target in _native.GPU_RUNTIMES
        fn = CompiledFunction(so, name, arg_types, result_types,
                              cuda_device if on_gpu else None, options.target)
        _memory_cache[key] = fn
        return fn


def _compile_to(text, so: Path, args, options, name, key) -> None:
    so.parent.mkdir(parents=True, exist_ok=True)
    debug = options.debug_dir()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=so.parent, prefix="compile-") as tmp:
        tmp = Path(tmp)
        src = tmp / f"{name}.mlir"
        src.write_text(text)
        out = tmp / f"{name}.so"
        extra = []
        if debug:
            stage_dir = debug / f"{name}-{key[:8]}"
            stage_dir.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, stage_dir / "input.mlir")
            extra.append(f"--dump-dir={stage_dir}")
        if options.remarks:
            extra.append("--remarks")
        cmd = [str(src), *args, *extra, "-o", str(out)]
        log = _native.run_compiler(cmd)
        if debug:
            (stage_dir / "command.txt").write_text(
                _native.command_line([str(stage_dir / "input.mlir"), *args, "-o", f"{name}.so"]) + "\n")
        if log and (options.remarks or debug):
            sys.stderr.write(log)
        # Atomic: a concurrent process sees the old or the new library.
        os.replace(out, so)
        header = tmp / f"{name}.h"
        if header.exists():
            os.replace(header, so.with_suffix(".h"))
        os.replace(src, so.with_suffix(".mlir"))
    stats.compilations += 1
    stats.compile_seconds += time.perf_counter() - t0
    stats.log.append((name, key, time.perf_counter() - t0))


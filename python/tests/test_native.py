"""The compiler reached through libTesselCompiler.so, options and the cache."""
import re

import numpy as np
import pytest

import tessel
from tessel import _native, compiler
from tessel.mlir import ModuleBuilder


def _add_module():
    m = ModuleBuilder()
    f = m.function("add")
    a = f.add_argument((4, 8), "f32")
    b = f.add_argument((8,), "f32")
    f.set_results([f.elementwise([a, b], "f32", lambda bb, x: bb.op("arith.addf", x, "f32"))])
    return m.text(), [a.type, b.type], [r.type for r in f.results]


def test_compile_and_call_numpy(stats):
    text, args, results = _add_module()
    fn = compiler.compile_module(text, "add", args, results, tessel.CompileOptions())
    a = np.random.rand(4, 8).astype(np.float32)
    b = np.random.rand(8).astype(np.float32)
    np.testing.assert_array_equal(fn(a, b), a + b)


def test_memory_then_disk_cache(stats):
    text, args, results = _add_module()
    opts = tessel.CompileOptions(opt_level=2)
    compiler.compile_module(text, "add", args, results, opts)
    before = (stats.compilations, stats.memory_hits, stats.disk_hits)
    compiler.compile_module(text, "add", args, results, opts)
    assert stats.memory_hits == before[1] + 1
    compiler._memory_cache.clear()  # as a new process would start
    compiler.compile_module(text, "add", args, results, opts)
    assert stats.disk_hits == before[2] + 1
    assert stats.compilations == before[0]


def test_bad_mlir_names_the_command(tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text("func.func @f( {")
    with pytest.raises(tessel.CompileError, match=r"cannot parse .*\n\(compilation: tessel-compile "):
        _native.run_compiler([str(src), "-o", str(tmp_path / "bad.so")])


def test_unknown_option_is_rejected():
    with pytest.raises(ValueError, match="unknown compile option"):
        tessel.CompileOptions.from_dict({"tile": 4}, "torch")
    with pytest.raises(ValueError, match="expected one of"):
        tessel.CompileOptions.from_dict({"target": "tpu"}, "torch")
    with pytest.raises(ValueError, match="not a torch JIT"):
        tessel.CompileOptions.from_dict({"execution_backend": "xla"}, "torch")


def test_disable_passes_builds_a_pipeline_without_them():
    o = tessel.CompileOptions.from_dict({"disable_passes": ["tessel-fuse-producers"]}, "torch")
    pipeline = o.pipeline_without(o.disable_passes)
    assert "tessel-fuse-producers" not in pipeline
    assert "tessel-vectorize-generics" in pipeline
    with pytest.raises(ValueError, match="not a pass of the cpu pipeline"):
        o.pipeline_without(["tessel-no-such-pass"])
    # Not passes: a piece of a pass name, a word of a pass's options, a
    # nesting op.
    for word in ["tessel-fuse", "reassociate-fp-reductions", "hoist-static-allocs",
                 "identity-layout-map", "func.func", "builtin.module"]:
        with pytest.raises(ValueError, match="not a pass of the cpu pipeline"):
            o.pipeline_without([word])
    # Options of the passes kept stay whole.
    full = o.pipeline_without([])
    for options in re.findall(r"\{[^{}]*\}", full):
        assert options in o.pipeline_without(["tessel-fuse-producers"])


@pytest.mark.parametrize("target", ["cpu", "nvgpu", "amdgpu"])
def test_disable_passes_leaves_out_every_run_and_empty_nestings(target, tmp_path):
    """A pass alone in its nesting (gpu.module(tessel-contract-multiply-adds)
    on AMD), first in one (gpu.module(tessel-contract-multiply-adds, ...) on
    NVIDIA), run more than once, or run with options is left out wherever
    it is, and the pipeline still parses (tessel-compile runs it on an
    empty module)."""
    o = tessel.CompileOptions(target=target)
    empty = tmp_path / "empty.mlir"
    empty.write_text("module {}\n")
    full = o.pipeline_without([])
    assert full == _native.run_compiler([f"--target={target}", "--print-pipeline"]).strip()
    tessel_passes = sorted(set(re.findall(r"tessel-[a-z-]+(?=[{,)\s])", full)))
    tessel_passes.remove("tessel-attach-target")
    for p in tessel_passes + ["canonicalize", "one-shot-bufferize"]:
        pipeline = o.pipeline_without([p])
        assert not re.search(r"(?<![\w.-])" + re.escape(p) + r"(?![\w.-])", pipeline), p
        assert "()" not in pipeline and ",," not in pipeline.replace(" ", ""), pipeline
        assert len(pipeline) < len(full)
        _native.run_compiler([str(empty), f"--target={target}", f"--pass-pipeline={pipeline}",
                              "-o", str(tmp_path / "out.mlir")])
    if target != "cpu":
        pipeline = o.pipeline_without(["tessel-contract-multiply-adds"])
        assert "gpu.module(" in pipeline


def test_unit_dims_broadcast_into_a_lower_rank_result(stats):
    # A [1, 1] operand of a 0-d result (numpy drops its size-1 dims), and
    # 0-d numpy arguments through CompiledFunction's numpy call.
    m = ModuleBuilder()
    f = m.function("add")
    a, b = f.add_argument((), "f32"), f.add_argument((1, 1), "f32")
    f.set_results([f.elementwise([a, b], "f32", lambda bb, x: bb.op("arith.addf", x, "f32"),
                                 out_shape=())])
    g = ModuleBuilder().function("wrong")
    with pytest.raises(tessel.UnsupportedError, match="does not broadcast"):
        g.elementwise([g.add_argument((2,), "f32")], "f32", lambda bb, x: x[0], out_shape=())
    fn = compiler.compile_module(m.text(), "add", [a.type, b.type], [r.type for r in f.results],
                                 tessel.CompileOptions())
    out = fn(np.float32(2), np.full((1, 1), 3, np.float32))
    assert out.shape == () and out == 5

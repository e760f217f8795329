"""PyTorch's CUDA tensors: the target and chip a graph on a CUDA device
compiles for; the calling convention (the device, PyTorch's stream) checked
against the stand-in CUDA driver, without a GPU; and, where PyTorch sees a
CUDA GPU, results against eager."""
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
from gpu_stand_in import run_against, spy_on_compiles  # noqa: E402
from tessel import _native  # noqa: E402
from tessel.frontends import torch_backend  # noqa: E402


def test_chip_for_compute_capability():
    assert torch_backend.nvgpu_chip(9, 0) == "sm_90a"
    assert torch_backend.nvgpu_chip(8, 0) == "sm_80"
    assert torch_backend.nvgpu_chip(8, 6) == "sm_86"
    assert torch_backend.nvgpu_chip(8, 9) == "sm_89"
    assert torch_backend.nvgpu_chip(8, 7) == "sm_86"
    assert torch_backend.nvgpu_chip(8, 8) == "sm_86"  # unknown Ampere: the smaller preset
    # Newer than Hopper: sm_90's PTX, which the driver compiles for them.
    assert torch_backend.nvgpu_chip(10, 0) == "sm_90"
    assert torch_backend.nvgpu_chip(12, 0) == "sm_90"
    with pytest.raises(tessel.UnsupportedError, match="sm_75 is older than sm_80"):
        torch_backend.nvgpu_chip(7, 5)


class _Properties:
    multi_processor_count = 114  # an H100 PCIe
    shared_memory_per_block_optin = 232448


def _on_h100_pcie(monkeypatch, driver=12080):
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device: (9, 0))
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device: _Properties())
    monkeypatch.setattr(torch_backend, "cuda_driver_version", lambda: driver)


def test_an_old_driver_gets_sm_90(monkeypatch):
    # CUDA 12.2 cannot load sm_90a's PTX ISA 8.3.
    _on_h100_pcie(monkeypatch, driver=12020)
    options = torch_backend.options_for_device(tessel.CompileOptions(), torch.device("cuda", 0))
    assert options.target_options.startswith("chip=sm_90 ")


def test_cuda_inputs_compile_for_their_device(monkeypatch):
    _on_h100_pcie(monkeypatch)
    options = torch_backend.options_for_device(tessel.CompileOptions(), torch.device("cuda", 1))
    assert options.target == "nvgpu"
    assert options.target_options == "chip=sm_90a sm-count=114 smem-per-block=232448"
    given = tessel.CompileOptions(target_options="chip=sm_80 sm-count=108")
    options = torch_backend.options_for_device(given, torch.device("cuda", 0))
    assert options.target_options == "smem-per-block=232448 chip=sm_80 sm-count=108"
    assert torch_backend.options_for_device(tessel.CompileOptions(), None).target == "cpu"
    with pytest.raises(tessel.UnsupportedError, match="runs GPU tensors; the inputs are host"):
        torch_backend.options_for_device(tessel.CompileOptions(target="nvgpu"), None)


def test_inputs_on_several_devices_are_refused():
    assert torch_backend.device_of([torch.zeros(1), 3]) is None
    with pytest.raises(tessel.UnsupportedError, match="several devices"):
        torch_backend.device_of([torch.zeros(1), torch.zeros(1, device="meta")])
    with pytest.raises(tessel.UnsupportedError, match="inputs on meta are not supported"):
        torch_backend.device_of([torch.zeros(1, device="meta")])


def _traced(f, *inputs):
    from torch.fx.experimental.proxy_tensor import make_fx
    return make_fx(f)(*inputs)


def test_a_graph_on_one_device_only():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.empty(4, 8, device="cuda")
        scale = torch.empty((), device="cpu")
        moving = _traced(lambda t: (t.cpu() + 1,), x)
        scaled = _traced(lambda t, s: (t * s,), x, scale)
    with pytest.raises(tessel.UnsupportedError, match="makes a tensor on cpu"):
        torch_backend.check_one_device(moving, torch.device("cuda", 0))
    # A host 0-d input beside CUDA tensors is copied to the device.
    assert torch_backend.device_of([x, scale]) == torch.device("cuda", 0)
    torch_backend.check_one_device(scaled, torch.device("cuda", 0))


def test_a_cuda_graph_compiles_for_nvgpu(monkeypatch, stats):
    # Fake CUDA tensors: the graph is captured and compiled for the device
    # without one (the library is not called).
    from torch._subclasses.fake_tensor import FakeTensorMode
    _on_h100_pcie(monkeypatch)
    seen = spy_on_compiles(monkeypatch)
    with FakeTensorMode():
        x = torch.empty(64, 96, device="cuda:1")
        w = torch.empty(96, 80, device="cuda:1")
        gm = _traced(lambda a, b: (torch.relu(a @ b),), x, w)
    before = stats.compilations
    run = torch_backend._compile_aten(gm, [x, w], tessel.CompileOptions())
    assert callable(run) and stats.compilations == before + 1
    assert seen == {"target": "nvgpu", "cuda_device": 1,
                    "target_options": "chip=sm_90a sm-count=114 smem-per-block=232448"}


FAKE_DRIVER = Path(_native.library_dir()).parent / "fake-cuda" / "libcuda.so.1"

STAND_IN_CALL = """
fn.call_device_pointers(pointers, 1, 0x1234)
fn.call_device_pointers(pointers, 1, 0x1234)
print("waits", counts("fake_cuda_stream_syncs", 1))
fn.call_device_pointers(pointers, 1, 0x1234, wait=True)
print("waits with wait=True", counts("fake_cuda_stream_syncs", 1))
try:
    fn.call_device_pointers(pointers, 1, 0)
except ValueError as e:
    print("refused:", e)
print("launches", counts("fake_cuda_launches", 2))
print("module loads", counts("fake_cuda_module_loads", 2))
print("streams created", counts("fake_cuda_stream_creates", 1))
print("wrong context", counts("fake_cuda_wrong_context_uses", 1))
print("lent after the call", fn._gpu_runtime().stream())
try:
    # A device the driver does not have: the runtime's report is raised.
    fn.call_device_pointers(pointers, 5, 0x1234)
except RuntimeError as e:
    print("raised:", e)
"""


@pytest.mark.skipif(not FAKE_DRIVER.exists(), reason="the stand-in CUDA driver is not built")
def test_device_call_against_the_stand_in_driver():
    run = run_against(FAKE_DRIVER, "nvgpu", STAND_IN_CALL)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    # Both calls on device 1 (the library loaded for it: device 0 untouched),
    # on the stream given (none created), the stream taken back after each.
    # Returned once queued, as PyTorch's operators do; with wait=True, after
    # waiting for the stream.
    assert "waits [0]" in lines, run.stdout
    assert any(line.startswith("waits with wait=True [") and line != "waits with wait=True [0]"
               for line in lines), run.stdout
    assert "launches [0, 3]" in lines
    assert "module loads [0, 1]" in lines
    assert "streams created [0]" in lines
    assert "wrong context [0]" in lines
    assert "lent after the call None" in lines
    assert any(line.startswith("refused: add: no stream") for line in lines)
    assert ("raised: add: the call failed on CUDA device 5: cuDeviceGet(...) failed: "
            "CUDA_ERROR_INVALID_DEVICE") in lines, run.stdout
    # Only that call's reports reached stderr.
    assert all("CUDA_ERROR_INVALID_DEVICE" in line or "cuDeviceGet" in line
               for line in run.stderr.splitlines() if line.startswith("tessel-cuda:")), run.stderr


needs_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU visible to PyTorch")


@needs_gpu
def test_cuda_graph_matches_eager_on_the_gpu(stats):
    def f(x, w, b):
        return torch.relu(x @ w + b) * 0.5

    x = torch.randn(64, 96, device="cuda")
    w = torch.randn(96, 80, device="cuda")
    b = torch.randn(80, device="cuda")
    compiled = tessel.jit_torch(f)
    out = compiled(x, w, b)
    assert out.device == x.device
    torch.testing.assert_close(out, f(x, w, b), rtol=1e-4, atol=1e-4)

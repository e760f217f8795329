"""PyTorch's ROCm build, whose cuda devices are AMD GPUs: the target and
chip a graph on one compiles for, and the calling convention (the device,
PyTorch's stream, a failure raised) checked against the stand-in
libamdhip64, without a GPU. The PyTorch installed here is a CUDA build, so
ROCm is what the tests make torch.version.hip and the device's properties
say."""
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import tessel  # noqa: E402
from gpu_stand_in import run_against, spy_on_compiles  # noqa: E402
from tessel import _native  # noqa: E402
from tessel.frontends import torch_backend  # noqa: E402


def test_chip_for_gcn_arch_name():
    assert torch_backend.amdgpu_chip("gfx90a:sramecc+:xnack-") == "gfx90a"
    assert torch_backend.amdgpu_chip("gfx942:sramecc+:xnack-") == "gfx942"
    assert torch_backend.amdgpu_chip("gfx1100") == "gfx1100"
    # A code object runs only on its own chip: no neighbour's.
    with pytest.raises(tessel.UnsupportedError, match="'gfx1101' has no Tessel target"):
        torch_backend.amdgpu_chip("gfx1101")
    with pytest.raises(tessel.UnsupportedError, match="'gfx908' has no Tessel target"):
        torch_backend.amdgpu_chip("gfx908:sramecc+:xnack-")


class _MI210:
    # What PyTorch's ROCm build reports: no shared_memory_per_block_optin.
    gcnArchName = "gfx90a:sramecc+:xnack-"
    multi_processor_count = 104
    shared_memory_per_block = 65536


HIP_RUNTIME = Path(_native.library_dir()) / "libtessel_hip_runtime.so"
needs_hip_runtime = pytest.mark.skipif(not HIP_RUNTIME.exists(),
                                       reason="Tessel's HIP runtime is not built")


def _on_rocm(monkeypatch, properties=_MI210):
    monkeypatch.setattr(torch.version, "hip", "6.2.41133", raising=False)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device: properties())

    def no_capability(device):
        raise AssertionError("the CUDA compute capability was asked for on ROCm")

    monkeypatch.setattr(torch.cuda, "get_device_capability", no_capability)


@needs_hip_runtime
def test_rocm_inputs_compile_for_amdgpu(monkeypatch):
    _on_rocm(monkeypatch)
    options = torch_backend.options_for_device(tessel.CompileOptions(), torch.device("cuda", 1))
    assert options.target == "amdgpu"
    assert options.target_options == "chip=gfx90a sm-count=104 smem-per-block=65536"
    given = tessel.CompileOptions(target="amdgpu", target_options="chip=gfx942")
    options = torch_backend.options_for_device(given, torch.device("cuda", 0))
    assert options.target_options == "sm-count=104 smem-per-block=65536 chip=gfx942"
    with pytest.raises(tessel.UnsupportedError, match="target 'nvgpu' cannot run PyTorch's "
                                                      "tensors on cuda:0 .target 'amdgpu' does"):
        torch_backend.options_for_device(tessel.CompileOptions(target="nvgpu"),
                                         torch.device("cuda", 0))


@needs_hip_runtime
def test_rdna_counts_compute_units(monkeypatch):
    # HIP reports an RDNA chip's workgroup processors: 48 on a 7900 XTX,
    # whose 96 compute units the gfx1100 preset counts.
    class _RX7900XTX(_MI210):
        gcnArchName = "gfx1100"
        multi_processor_count = 48
    _on_rocm(monkeypatch, _RX7900XTX)
    monkeypatch.delenv("GPU_ENABLE_WGP_MODE", raising=False)
    options = torch_backend.options_for_device(tessel.CompileOptions(), torch.device("cuda", 0))
    assert options.target_options == "chip=gfx1100 sm-count=96 smem-per-block=65536"
    # In CU mode HIP counts compute units itself.
    monkeypatch.setenv("GPU_ENABLE_WGP_MODE", "0")
    options = torch_backend.options_for_device(tessel.CompileOptions(), torch.device("cuda", 0))
    assert options.target_options == "chip=gfx1100 sm-count=48 smem-per-block=65536"


@needs_hip_runtime
def test_a_second_hip_runtime_is_refused(monkeypatch, tmp_path):
    _on_rocm(monkeypatch)
    # PyTorch's libamdhip64 and another one that Tessel's runtime brought.
    monkeypatch.setattr(torch_backend, "_mapped_files", lambda: {
        "/opt/venv/torch/lib/libamdhip64.so", "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5"})
    with pytest.raises(tessel.UnsupportedError, match="two HIP runtimes in one process"):
        torch_backend.options_for_device(tessel.CompileOptions(), torch.device("cuda", 0))
    monkeypatch.setattr(torch_backend, "library_dir", lambda: tmp_path)
    with pytest.raises(tessel.UnsupportedError, match="HIP runtime cannot be loaded"):
        torch_backend.options_for_device(tessel.CompileOptions(), torch.device("cuda", 0))


@needs_hip_runtime
def test_an_unknown_amd_chip_is_refused(monkeypatch):
    class _RX7800(_MI210):
        gcnArchName = "gfx1101"
    _on_rocm(monkeypatch, _RX7800)
    with pytest.raises(tessel.UnsupportedError, match="gfx1101"):
        torch_backend.options_for_device(tessel.CompileOptions(), torch.device("cuda", 0))


def test_rocm_tensors_are_not_refused(monkeypatch):
    from torch._subclasses.fake_tensor import FakeTensorMode
    _on_rocm(monkeypatch)
    with FakeTensorMode():
        x = torch.empty(4, 8, device="cuda:1")
    assert torch_backend.device_of([x]) == torch.device("cuda", 1)


@needs_hip_runtime
def test_a_rocm_graph_compiles_for_amdgpu(monkeypatch, stats):
    # Fake tensors: the graph is captured and compiled for the device
    # without one (the library is not called).
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    _on_rocm(monkeypatch)
    seen = spy_on_compiles(monkeypatch)
    with FakeTensorMode():
        x = torch.empty(64, 96, device="cuda:1")
        w = torch.empty(64, 96, device="cuda:1")
        gm = make_fx(lambda a, b: (torch.relu(a + b),))(x, w)
    before = stats.compilations
    run = torch_backend._compile_aten(gm, [x, w], tessel.CompileOptions())
    assert callable(run) and stats.compilations == before + 1
    assert seen == {"target": "amdgpu", "cuda_device": 1,
                    "target_options": "chip=gfx90a sm-count=104 smem-per-block=65536"}


# Named after the real library's soname (libamdhip64.so.5 for Debian's).
FAKE_HIP = next((Path(_native.library_dir()).parent / "fake-hip").glob("libamdhip64.so.*"),
                Path("libamdhip64.so.missing"))

STAND_IN_CALL = """
# PyTorch's stream on device 1, made as PyTorch would.
stream = ctypes.c_void_p()
fake.hipSetDevice(1)
fake.hipStreamCreate(ctypes.byref(stream))
fake.hipSetDevice(0)
fn.call_device_pointers(pointers, 1, stream.value)
fn.call_device_pointers(pointers, 1, stream.value)
print("streams created on the lent stream's calls", counts("fake_hip_stream_creates", 1))
print("waits", counts("fake_hip_stream_syncs", 1))
fn.call_device_pointers(pointers, 1, stream.value, wait=True)
print("waits with wait=True", counts("fake_hip_stream_syncs", 1))
last = ctypes.c_void_p.in_dll(fake, "fake_hip_last_launch_stream").value
print("launched on the lent stream", last == stream.value)
# HIP's null stream, PyTorch's default, is lent as 1 (0 is no stream).
fn.call_device_pointers(pointers, 1, 1)
last = ctypes.c_void_p.in_dll(fake, "fake_hip_last_launch_stream").value
print("launched on the null stream", last is None)
try:
    fn.call_device_pointers(pointers, 1, 0)
except ValueError as e:
    print("refused:", e)
print("launches", counts("fake_hip_launches", 2))
print("module loads", counts("fake_hip_module_loads", 2))
print("streams created", counts("fake_hip_stream_creates", 1))
print("wrong device", counts("fake_hip_wrong_device_uses", 1))
device = ctypes.c_int(-1)
fake.hipGetDevice(ctypes.byref(device))
print("current device after the calls", device.value)
print("lent after the call", fn._gpu_runtime().stream())
ctypes.c_int.in_dll(fake, "fake_hip_failing_launches").value = 1
try:
    fn.call_device_pointers(pointers, 1, stream.value)
except RuntimeError as e:
    print("raised:", e)
# HIP not usable (torn down, or no GPU): the runtime's report is raised.
ctypes.c_int.in_dll(fake, "fake_hip_gone").value = 1
try:
    fn.call_device_pointers(pointers, 1, 1)
except RuntimeError as e:
    print("raised:", e)
"""


@pytest.mark.skipif(not FAKE_HIP.exists(), reason="the stand-in libamdhip64 is not built")
def test_device_call_against_the_stand_in_hip():
    run = run_against(FAKE_HIP, "amdgpu", STAND_IN_CALL)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    # The library loaded for device 1 only; the lent calls on PyTorch's
    # stream (the one the test made) or HIP's null stream, no stream of the
    # runtime's; HIP's current device left as the caller had it.
    assert "streams created on the lent stream's calls [1]" in lines, run.stdout  # the test's
    # Returned once queued, as PyTorch's operators do; with wait=True, after
    # waiting for the stream.
    assert "waits [0]" in lines, run.stdout
    assert any(line.startswith("waits with wait=True [") and line != "waits with wait=True [0]"
               for line in lines), run.stdout
    assert "launched on the lent stream True" in lines
    assert "launched on the null stream True" in lines
    assert any(line.startswith("refused: add: no stream") for line in lines)
    assert "launches [0, 4]" in lines
    assert "module loads [0, 1]" in lines
    assert "streams created [1]" in lines
    assert "wrong device [0]" in lines
    assert "current device after the calls 0" in lines
    assert "lent after the call None" in lines
    assert ("raised: add: the call failed on HIP device 1: hipModuleLaunchKernel(...) failed: "
            "hipErrorLaunchFailure") in lines, run.stdout
    assert ("raised: add: the call failed on HIP device 1: HIP is unavailable: "
            "hipGetDevice(...) failed: hipErrorDeinitialized") in lines, run.stdout
    # Only those two calls' reports reached stderr (the second's launch and
    # wait each report that HIP is unusable).
    reports = [line for line in run.stderr.splitlines() if line.startswith("tessel-hip:")]
    assert len(reports) >= 2 and "hipErrorLaunchFailure" in reports[0], run.stderr
    assert all("HIP is unavailable" in line for line in reports[1:]), run.stderr

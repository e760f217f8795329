"""PyTorch through TorchDynamo: the reference examples, models, the compile
cache and unsupported ops, compared with eager."""
import math
import warnings

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import tessel  # noqa: E402

H, W = 64, 48


@tessel.jit_torch
def blur_x_blur_y(img):
    # The reference example, unmodified except for the decorator.
    kernel = torch.tensor([0.0625, 0.25, 0.375, 0.25, 0.0625], device=img.device).float()
    blur_kernel = kernel.view(1, 1, 1, 5)
    img_reshaped = img.view(3, 1, H, W)
    blurx = F.conv2d(img_reshaped, blur_kernel, stride=1, padding=0)
    blur_kernel = kernel.view(1, 1, 5, 1)
    blury = F.conv2d(blurx, blur_kernel, stride=1, padding=0)
    return blury.view(3, H - 4, W - 4)


def close(a, b, tol=1e-4):
    assert a.shape == b.shape and a.dtype == b.dtype
    assert (a - b).abs().max().item() <= tol * max(1.0, b.abs().max().item())


def test_blur_matches_eager_and_compiles_once(stats):
    img = torch.rand(3, H, W)
    close(blur_x_blur_y(img), blur_x_blur_y.__wrapped__(img))
    n = stats.compilations
    for _ in range(3):
        img = torch.rand(3, H, W)
        close(blur_x_blur_y(img), blur_x_blur_y.__wrapped__(img))
    assert stats.compilations == n, "same shapes must not recompile"


def test_new_shape_compiles_again(stats):
    @tessel.jit_torch
    def scale(x):
        return x * 2.0 + 1.0
    scale(torch.rand(8, 8))
    n = stats.compilations
    scale(torch.rand(8, 8))
    assert stats.compilations == n
    out = scale(torch.rand(4, 16))
    assert stats.compilations == n + 1
    assert out.shape == (4, 16)


def test_conv_bias_relu():
    @tessel.jit_torch(compile_options={"target": "cpu"})
    def conv_bias_add_relu(img, filters, bias):
        return torch.relu(F.conv2d(img, filters, bias, stride=1, padding=1))
    args = (torch.rand(1, 16, 20, 20), torch.rand(24, 16, 3, 3) - 0.5, torch.rand(24))
    close(conv_bias_add_relu(*args), conv_bias_add_relu.__wrapped__(*args))


def test_mlp_and_bool_masks():
    mlp = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 10),
                              torch.nn.LogSoftmax(-1)).eval()
    f = tessel.jit_torch(lambda x: mlp(x))
    x = torch.rand(5, 32)
    with torch.no_grad():
        close(f(x), mlp(x))
    g = tessel.jit_torch(lambda s: torch.where((s > 0.5).any(-1, keepdim=True), s, -s))
    s = torch.rand(3, 4)
    close(g(s), torch.where((s > 0.5).any(-1, keepdim=True), s, -s))


@pytest.mark.parametrize("name", ["resnet18", "resnet50", "mobilenet_v2"])
def test_torchvision_models(name, stats):
    tv = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    model = getattr(tv.models, name)().eval()
    x = torch.rand(1, 3, 224, 224)
    fallbacks = stats.fallbacks
    with torch.no_grad():
        out = torch.compile(model, backend="tessel")(x)
        ref = model(x)
    assert stats.fallbacks == fallbacks, "the whole model must compile"
    close(out, ref, tol=1e-3)


def test_transformer_encoder_layer(stats):
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True).eval()
    x = torch.rand(2, 16, 64)
    fallbacks = stats.fallbacks
    with torch.no_grad():
        out = tessel.jit_torch(layer.forward)(x)
        ref = layer(x)
    assert stats.fallbacks == fallbacks
    close(out, ref, tol=1e-4)


def test_unsupported_op_error_names_it():
    f = tessel.jit_torch(lambda x: torch.cumsum(x, 0))
    with pytest.raises(tessel.UnsupportedError, match="aten.cumsum") as e:
        f(torch.rand(4))
    assert "aten.cumsum" in e.value.ops


def test_unsupported_op_falls_back_under_torch_compile(stats):
    def fn(x):
        return torch.cumsum(x * 2, 0) + 1
    x = torch.rand(6)
    fallbacks = stats.fallbacks
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = torch.compile(fn, backend="tessel")(x)
    close(out, fn(x))
    assert stats.fallbacks == fallbacks + 1
    assert sum("aten.cumsum" in str(m.message) for m in w) == 1


@pytest.mark.parametrize("backend", ["std", "inductor"])
def test_execution_backends_compare_the_same_function(backend):
    f = tessel.jit_torch(lambda x: torch.tanh(x) * 3, compile_options={"execution_backend": backend})
    x = torch.rand(7, 3)
    close(f(x), torch.tanh(x) * 3)


def test_debug_dumps_every_stage(tmp_path):
    f = tessel.jit_torch(lambda x: x * 4 - 1, compile_options={"debug": str(tmp_path), "cache": False})
    f(torch.rand(3, 5))
    (stage_dir,) = [d for d in tmp_path.iterdir() if d.is_dir()]
    names = sorted(p.name for p in stage_dir.iterdir())
    assert "input.mlir" in names and "command.txt" in names
    # One file per stage, named for its first pass (the fusion stage: its
    # first pass is tessel-fuse-elementwise).
    assert any(n.endswith("tessel-fuse-elementwise.mlir") for n in names)
    assert (stage_dir / "command.txt").read_text().startswith("tessel-compile ")


def test_attention_fuses_into_one_online_softmax_kernel(tmp_path):
    # softmax(q k^T / sqrt(d)) v over 2 x 4 heads: the frontend folds batch
    # and heads for the products and keeps a 4-D softmax in between;
    # tessel-fuse-attention takes the whole chain, so no 256 x 256 score
    # tensor exists after it.
    def attention(q, k, v):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return torch.softmax(s, dim=-1) @ v
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 256, 64) for _ in range(3))
    f = tessel.jit_torch(attention, compile_options={"debug": str(tmp_path), "cache": False})
    close(f(q, k, v), F.scaled_dot_product_attention(q, k, v), tol=1e-4)
    (stage_dir,) = [d for d in tmp_path.iterdir() if d.is_dir()]
    (fused,) = [p for p in stage_dir.iterdir() if p.name.endswith("tessel-fuse-attention.mlir")]
    text = fused.read_text()
    assert "scf.forall" in text and "x256x256xf32>" not in text


def test_argmax_argmin_first_occurrence_and_nan():
    # Ties (each row's extreme several times: the first index counts) and
    # NaNs (PyTorch counts a NaN beyond every number; the first NaN wins).
    x = torch.randint(-3, 4, (6, 257)).float()
    x[1, 100] = float("nan")
    x[1, 200] = float("nan")
    x[4, 256] = float("nan")
    x[5] = float("-inf")
    f = tessel.jit_torch(lambda t: (torch.argmax(t, 1), torch.argmin(t, 0, keepdim=True),
                                    torch.argmax(t), torch.argmin(t[2:3].int(), -1)))
    for got, want in zip(f(x), f.__wrapped__(x)):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert torch.equal(got, want), (got, want)


def test_argmax_of_booleans_rejected_as_in_eager():
    f = tessel.jit_torch(lambda t: torch.argmax(t > 0, 1))
    with pytest.raises(tessel.UnsupportedError, match="argmax.*booleans"):
        f(torch.randn(3, 5))


def test_zero_d_tensor_with_scalar_literals():
    # A Python scalar is a rank-0 operand: it broadcasts into a 0-d result.
    f = tessel.jit_torch(lambda a: (a + 1, a * 2.5 - 3, torch.where(a > 2, a, 0.0)))
    a = torch.tensor(3.0)
    for got, want in zip(f(a), f.__wrapped__(a)):
        close(got, want)


@pytest.mark.parametrize("op", ["mm", "bmm", "linear", "conv2d", "depthwise"])
def test_float16_contractions_accumulate_in_float32(op):
    # 8192 ones: an f16 sum stops growing at 2048; PyTorch sums in f32.
    k = 8192
    h = dict(dtype=torch.float16)
    fn, args = {
        "mm": (lambda a, b: a @ b, (torch.ones(4, k, **h), torch.ones(k, 4, **h))),
        "bmm": (torch.bmm, (torch.ones(2, 3, k, **h), torch.ones(2, k, 3, **h))),
        "linear": (F.linear, (torch.ones(2, k, **h), torch.ones(3, k, **h), torch.ones(3, **h))),
        "conv2d": (F.conv2d, (torch.ones(1, k // 4, 2, 2, **h), torch.ones(3, k // 4, 2, 2, **h))),
        "depthwise": (lambda x, w: F.conv2d(x, w, groups=2),
                      (torch.ones(1, 2, 64, 128, **h), torch.ones(2, 1, 64, 128, **h))),
    }[op]
    got = tessel.jit_torch(fn)(*args)
    want = fn(*(a.float() for a in args)).half()
    assert got.dtype == torch.float16 and torch.equal(got, want), (got.flatten()[:4], want.flatten()[:4])
    if op == "mm":
        assert torch.equal(got, fn(*args))


def test_boolean_compares_extremes_and_arithmetic():
    # false < true (not i1's signed order, where true is -1); bool + bool is
    # or and bool * bool is and, as in PyTorch.
    def fn(a, b):
        return (a < b, a <= b, a > b, a >= b, torch.maximum(a, b), torch.minimum(a, b),
                a + b, a * b, a.amax(), a.amin(), torch.amax(torch.stack([a, b]), 0))
    a = torch.tensor([True, False, True, False])
    b = torch.tensor([True, True, False, False])
    for got, want in zip(tessel.jit_torch(fn)(a, b), fn(a, b)):
        assert got.dtype == want.dtype and torch.equal(got, want), (got, want)


def test_integer_abs_and_pow():
    def fn(x):
        return x.abs(), x ** 2, x ** 3, x ** 0, torch.pow(x, 1)
    x = torch.tensor([-3, 5, 0, -7])
    for got, want in zip(tessel.jit_torch(fn)(x), fn(x)):
        assert got.dtype == want.dtype and torch.equal(got, want), (got, want)
    with pytest.raises(tessel.UnsupportedError, match="aten.pow"):
        tessel.jit_torch(lambda x, y: x ** y)(x, x.abs())


def test_cat_skips_zero_size_pieces():
    def fn(a, b, c):
        return torch.cat([a, b], 1), torch.cat([b, a, b, c], 1), torch.cat([b, b], 1) * 2
    args = torch.randn(2, 3), torch.randn(2, 0), torch.randn(2, 1)
    for got, want in zip(tessel.jit_torch(fn)(*args), fn(*args)):
        assert got.dtype == want.dtype and torch.equal(got, want), (got, want)

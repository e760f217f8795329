"""JAX through jaxprs: the reference examples and a small CNN, compared with
jax eager; static_argnums and the compile cache."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import tessel  # noqa: E402

H, W = 40, 36


def close(a, b, tol=1e-4):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.abs(a - b).max() <= tol * max(1.0, np.abs(b).max())


@tessel.jit_jax(compile_options={"target": "cpu"})
def blur_x_blur_y(img):
    kernel = jnp.array([0.0625, 0.25, 0.375, 0.25, 0.0625], jnp.float32)
    x = img.reshape(3, 1, H, W)
    blurx = jax.lax.conv_general_dilated(x, kernel.reshape(1, 1, 1, 5), (1, 1), "VALID")
    blury = jax.lax.conv_general_dilated(blurx, kernel.reshape(1, 1, 5, 1), (1, 1), "VALID")
    return blury.reshape(3, H - 4, W - 4)


def test_blur():
    img = jax.device_put(np.random.rand(3, H, W).astype(np.float32), jax.devices("cpu")[0])
    close(blur_x_blur_y(img), blur_x_blur_y.__wrapped__(img))


@tessel.jit_jax(compile_options={"target": "cpu", "debug": False, "static_argnums": (2, 3)})
def gradient_descent(X, D, learning_rate=0.0001, num_iterations=1000):
    w = jnp.zeros((X.shape[1],), X.dtype)
    for _ in range(num_iterations):
        w = w - learning_rate * (X.T @ (X @ w - D))
    return w


def test_gradient_descent_static_argnums(stats):
    X = jax.device_put(np.random.rand(32, 8).astype(np.float32))
    D = jax.device_put(np.random.rand(32).astype(np.float32))
    close(gradient_descent(X, D, 0.01, 12), gradient_descent.__wrapped__(X, D, 0.01, 12), tol=1e-5)
    n = stats.compilations
    gradient_descent(X, D, 0.01, 12)
    assert stats.compilations == n, "same shapes and static values must not recompile"
    close(gradient_descent(X, D, 0.01, 5), gradient_descent.__wrapped__(X, D, 0.01, 5), tol=1e-5)
    assert stats.compilations == n + 1, "a new static value compiles again"


def test_conv_bias_relu_nhwc():
    def conv_bias_relu(img, w, b):
        y = jax.lax.conv_general_dilated(img, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.relu(y + b)
    args = [np.random.rand(1, 12, 12, 8).astype(np.float32), np.random.rand(3, 3, 8, 16).astype(np.float32) - 0.5,
            np.random.rand(16).astype(np.float32)]
    close(tessel.jit_jax(conv_bias_relu)(*args), conv_bias_relu(*args))


def test_small_cnn_with_parameters_as_arguments():
    def cnn(params, x):
        y = jax.lax.conv_general_dilated(x, params["w1"], (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jax.nn.relu(y + params["b1"])
        y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        y = y.reshape(y.shape[0], -1)
        return jax.nn.softmax(y @ params["wd"] + params["bd"])
    rng = np.random.default_rng(0)
    params = {"w1": rng.standard_normal((3, 3, 3, 8), np.float32) * 0.2,
              "b1": rng.standard_normal(8, np.float32) * 0.1,
              "wd": rng.standard_normal((8 * 8 * 8, 10), np.float32) * 0.05,
              "bd": np.zeros(10, np.float32)}
    x = rng.standard_normal((2, 16, 16, 3), np.float32)
    close(tessel.jit_jax(cnn)(params, x), cnn(params, x), tol=1e-5)


def test_unsupported_primitive_is_named():
    f = tessel.jit_jax(lambda x: jnp.cumsum(x))
    with pytest.raises(tessel.UnsupportedError, match="cumsum"):
        f(np.ones(4, np.float32))


def test_xla_backend():
    f = tessel.jit_jax(lambda x: jnp.tanh(x) * 2, compile_options={"execution_backend": "xla"})
    x = np.random.rand(5).astype(np.float32)
    close(f(x), np.tanh(x) * 2, tol=1e-6)


def test_argmax_argmin_first_occurrence_and_nan():
    rng = np.random.default_rng(5)
    x = rng.integers(-3, 4, (6, 257)).astype(np.float32)
    x[1, 100] = x[1, 200] = x[4, 256] = np.nan
    x[5] = -np.inf

    def fn(t):
        return (jnp.argmax(t, 1), jnp.argmin(t, 0), jnp.argmax(t[2].astype(jnp.int32)),
                jnp.argmax(t > 2, 1), jnp.argmin(t < 3, 1))
    for got, want in zip(tessel.jit_jax(fn)(x), fn(x)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_zero_d_arrays_with_literals():
    # Literals are rank-0 operands; the mean of an empty array divides by a
    # 0-d zero.
    f = lambda a, e: (a * 2 + 1, jnp.maximum(a, 0.5), e.mean())
    args = np.float32(3), np.zeros(0, np.float32)
    for got, want in zip(tessel.jit_jax(f)(*args), f(*args)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_float16_dot_accumulates_in_float32():
    a = np.ones((4, 8192), np.float16)
    f = lambda x, y: (x @ y, jnp.einsum("bmk,bkn->bmn", x[None], y[None]))
    for got, want in zip(tessel.jit_jax(f)(a, a.T), f(a, a.T)):
        assert got.dtype == want.dtype == np.float16
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert float(got.reshape(-1)[0]) == 8192.0


def test_booleans_compare_and_reduce_as_false_below_true():
    def fn(a, b, ab):
        return (a < b, a >= b, jnp.maximum(a, b), jnp.minimum(a, b), jnp.max(a), jnp.min(a),
                jnp.max(ab, 0), jnp.min(ab, 1), jnp.any(a), jnp.all(b))
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    args = a, b, np.stack([a, b])
    for got, want in zip(tessel.jit_jax(fn)(*args), fn(*args)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_integer_abs_and_integer_pow():
    fn = lambda x: (jnp.abs(x), x ** 3, jax.lax.integer_pow(x, 0))
    x = np.array([-3, 5, 0, -7], np.int32)
    for got, want in zip(tessel.jit_jax(fn)(x), fn(x)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_concatenate_skips_zero_size_pieces():
    fn = lambda a, b, c: (jnp.concatenate([a, b], 1), jnp.concatenate([b, a, b, c], 1),
                          jnp.concatenate([b, b], 1).sum(1), jnp.concatenate([b, b], 1) + 1)
    args = (np.random.rand(2, 3).astype(np.float32), np.zeros((2, 0), np.float32),
            np.random.rand(2, 1).astype(np.float32))
    for got, want in zip(tessel.jit_jax(fn)(*args), fn(*args)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_keyword_arguments(stats):
    def f(a, n=2, b=1.0):
        return a * b + n
    g = tessel.jit_jax(f, compile_options={"static_argnums": (1,)})
    a, b = np.ones(3, np.float32), np.float32(3)
    close(g(a, b=b), f(a, b=b))
    close(g(a, 4, b=b), f(a, 4, b=b))
    n = stats.compilations
    g(a, 4, b=b)
    g(a, n=4, b=b)
    assert stats.compilations == n, "a keyword argument is its parameter's position"
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        g(a, c=b)
    with pytest.raises(TypeError, match="keyword-only"):
        tessel.jit_jax(lambda a, *, s: a * s)(a, s=b)

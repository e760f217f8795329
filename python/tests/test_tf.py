"""TensorFlow through tf.function graphs: the reference examples as written
(decorator added), a Keras CNN whose weights are variables, nested
tf.functions, the compile cache and unsupported ops, compared with TF."""
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
tf = pytest.importorskip("tensorflow")

import tessel  # noqa: E402

height, width = 40, 36


def close(a, b, tol=1e-4):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    assert np.abs(a.astype(np.float64) - b).max() <= tol * max(1.0, np.abs(b).max())


# The reference example, unmodified except for the decorator.
@tessel.jit_tf(compile_options={'target': 'cpu'})
def blur_x_blur_y(img):
    # We are doing a regular image convolution in the X direction and then in
    # the Y direction.
    kernel = tf.constant([0.0625, 0.25, 0.375, 0.25, 0.0625], dtype=tf.float32)
    blur_kernel = tf.reshape(kernel, [1, 5, 1, 1])
    img_reshaped = tf.reshape(img, [3, height, width, 1])
    # The output is two short at each end.
    blurx = tf.nn.conv2d(img_reshaped,
                         blur_kernel, [1, 1, 1, 1], "VALID")
    blur_kernel = tf.reshape(kernel, [5, 1, 1, 1])
    blury = tf.nn.conv2d(blurx, blur_kernel,
                         [1, 1, 1, 1], "VALID")
    output = tf.reshape(blury, [3, height - 4, width - 4])
    return output


def test_blur_numpy_and_tf_inputs(stats):
    img = np.random.rand(3, height, width).astype(np.float32)
    out = blur_x_blur_y(img)
    assert isinstance(out, tf.Tensor)
    close(out, blur_x_blur_y.__wrapped__(img))
    n = stats.compilations
    close(blur_x_blur_y(tf.constant(img)), blur_x_blur_y.__wrapped__(img))
    assert stats.compilations == n, "same shapes and dtypes must not recompile"


@pytest.mark.parametrize("dtype,tol", [(tf.float32, 1e-5), (tf.float16, 2e-2)])
def test_conv_bias_add_relu_input_signature(dtype, tol):
    input_shape, filter_shape, bias_shape = [2, 16, 16, 8], [3, 3, 8, 16], [16]

    @tessel.jit_tf(
        input_signature=[
            tf.TensorSpec(shape=input_shape, dtype=dtype),
            tf.TensorSpec(shape=filter_shape, dtype=dtype),
            tf.TensorSpec(shape=bias_shape, dtype=dtype),
        ],
        compile_options={"target": "cpu"},
    )
    def conv_bias_add_relu(img, filters, bias):
        conv = tf.nn.conv2d(
            img,
            filters,
            padding="SAME",
            strides=(1, 1),
            dilations=(1, 1),
        )
        conv_with_bias = tf.nn.bias_add(conv, bias)
        output = tf.nn.relu(conv_with_bias)
        return output

    npd = dtype.as_numpy_dtype
    args = [np.random.rand(*input_shape).astype(npd), (np.random.rand(*filter_shape) - 0.5).astype(npd),
            np.random.rand(*bias_shape).astype(npd)]
    close(conv_bias_add_relu(*args), conv_bias_add_relu.__wrapped__(*args), tol)
    with pytest.raises(TypeError, match="input_signature"):
        conv_bias_add_relu(np.zeros([1, 16, 16, 8], npd), *args[1:])
    with pytest.raises(TypeError, match="input_signature has 3"):
        conv_bias_add_relu(*args[:2])


def _keras_cnn():
    import keras
    model = keras.Sequential([
        keras.Input((16, 16, 3)),
        keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
        keras.layers.BatchNormalization(),
        keras.layers.MaxPooling2D(),
        keras.layers.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6"),
        keras.layers.AveragePooling2D(3, strides=2, padding="same"),
        keras.layers.Flatten(),
        keras.layers.Dense(32, activation="gelu"),
        keras.layers.Dense(10),
        keras.layers.Softmax(),
    ])
    rng = np.random.default_rng(0)
    for w in model.weights:  # non-trivial batch-norm statistics
        if "moving_variance" in w.path or "gamma" in w.path:
            w.assign(rng.uniform(0.5, 1.5, w.shape).astype(np.float32))
        elif "moving_mean" in w.path or "beta" in w.path:
            w.assign(rng.standard_normal(w.shape).astype(np.float32) * 0.1)
    return model


def test_keras_cnn_weights_are_arguments(stats):
    model = _keras_cnn()
    f = tessel.jit_tf(lambda x: model(x, training=False))
    x = np.random.rand(4, 16, 16, 3).astype(np.float32)
    close(f(x), model(x, training=False), tol=1e-5)
    n = stats.compilations
    dense = model.layers[-2]
    dense.kernel.assign(dense.kernel * 2.0)
    close(f(x), model(x, training=False), tol=1e-5)
    assert stats.compilations == n, "assigning a variable must not recompile"


def test_mlp_and_shape_ops():
    @tessel.jit_tf
    def misc(a, b):
        c = tf.matmul(a, b, transpose_b=True)
        d = tf.linalg.matmul(tf.reshape(c, [4, 4, 4]), tf.reshape(c, [4, 4, 4]), adjoint_a=True)
        e = tf.reduce_mean(d, axis=[1], keepdims=True) + tf.reduce_max(d, axis=-1)[:, None, :]
        s = tf.nn.softmax(e[:, 0, ::2]) + tf.nn.log_softmax(e[..., 1:3][:, 0])
        return {"s": s, "where": tf.where(c > 0.5, c, -c), "cat": tf.concat([a, a * 2], 1),
                "stack": tf.stack([a, b], 1), "pad": tf.pad(a, [[1, 0], [0, 2]], constant_values=3.0),
                "shape": tf.shape(c)}
    a, b = np.random.rand(8, 5).astype(np.float32), np.random.rand(8, 5).astype(np.float32)
    got, want = misc(a, b), misc.__wrapped__(tf.constant(a), tf.constant(b))
    assert sorted(got) == sorted(want)
    for k in want:
        close(got[k], want[k])


def test_python_arguments_are_trace_constants(stats):
    def f(x, n, scale=2.0):
        y = tf.reshape(x, [n, -1]) * scale
        i = tf.range(tf.shape(y)[1])
        return {"softplus": tf.nn.softplus(y * 100.0), "floordiv": tf.math.floordiv(i - 3, 2),
                "floormod": tf.math.floormod(i - 3, 3), "floordiv_f": tf.math.floordiv(y, 0.3),
                "neg": -i, "abs": tf.abs(i - 2), "flat": tf.reshape(x, [-1])}
    g = tessel.jit_tf(f)
    x = np.random.randn(4, 6).astype(np.float32)
    got, want = g(x, 2, scale=3.0), f(tf.constant(x), 2, scale=3.0)
    for k in want:
        close(got[k], want[k], tol=1e-5)
    n = stats.compilations
    g(x, 2, scale=3.0)
    assert stats.compilations == n, "same shapes and constants must not recompile"
    close(g(x, 3, scale=3.0)["softplus"], f(tf.constant(x), 3, scale=3.0)["softplus"], tol=1e-5)
    assert stats.compilations == n + 1, "a new Python value is a new trace"
    with pytest.raises(TypeError, match="positional"):
        g(x, 2, scale=tf.constant(1.0))


def test_nested_tf_function():
    @tf.function
    def inner(x, y):
        return tf.nn.relu(x) * y

    def outer(x):
        return inner(x, 2.0) + 1.0
    x = np.random.randn(16).astype(np.float32)
    close(tessel.jit_tf(outer)(x), outer(x))


def test_signature_with_unknown_dims_specializes(stats):
    f = tessel.jit_tf(lambda x: tf.nn.sigmoid(x) * 3.0,
                      input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    n = stats.compilations
    for rows in (2, 5, 2):
        x = np.random.randn(rows, 4).astype(np.float32)
        close(f(x), tf.nn.sigmoid(x) * 3.0, tol=1e-6)
    assert stats.compilations == n + 2, "one compilation per distinct shape"


def test_unsupported_op_is_named():
    f = tessel.jit_tf(lambda x: tf.math.cumsum(x))
    with pytest.raises(tessel.UnsupportedError, match="Cumsum"):
        f(np.ones(4, np.float32))


@pytest.mark.parametrize("backend", ["std", "xla"])
def test_framework_backends(backend):
    f = tessel.jit_tf(lambda x: tf.tanh(x) * 2, compile_options={"execution_backend": backend})
    x = np.random.rand(5).astype(np.float32)
    close(f(x), np.tanh(x) * 2, tol=1e-6)


def test_emitted_forms(tmp_path):
    """NHWC convolutions reach Tessel as linalg.conv_2d_nhwc_hwcf (no
    activation transposes); a one-channel convolution (the blur) stays a
    stencil generic, which the fusion engine fuses."""
    x = np.random.rand(1, 12, 12, 8).astype(np.float32)
    w = np.random.rand(3, 3, 8, 4).astype(np.float32)
    conv = tessel.jit_tf(lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"),
                         compile_options={"debug": str(tmp_path / "conv")})
    close(conv(x, w), tf.nn.conv2d(x, w, 1, "SAME"))
    text = next((tmp_path / "conv").glob("*/input.mlir")).read_text()
    assert "linalg.conv_2d_nhwc_hwcf" in text and "linalg.transpose" not in text
    blur = tessel.jit_tf(blur_x_blur_y.__wrapped__, compile_options={"debug": str(tmp_path / "blur")})
    blur(np.random.rand(3, height, width).astype(np.float32))
    text = next((tmp_path / "blur").glob("*/input.mlir")).read_text()
    assert "linalg.conv_2d" not in text and "linalg.transpose" not in text
    assert text.count("linalg.generic") == 2


def test_argmax_argmin():
    # TF leaves ties unspecified: distinct values only.
    x = np.random.default_rng(6).permutation(6 * 257).reshape(6, 257).astype(np.float32)
    f = tessel.jit_tf(lambda t: (tf.argmax(t, 1), tf.argmin(t, axis=0, output_type=tf.int32)))
    got, want = f(x), (tf.argmax(x, 1), tf.argmin(x, axis=0, output_type=tf.int32))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    # Booleans (ties everywhere): Tessel keeps the first, as NumPy does.
    f = tessel.jit_tf(lambda t: (tf.argmax(t > 700.0, 1), tf.argmin(t > 700.0, 0)))
    got = f(x)
    np.testing.assert_array_equal(np.asarray(got[0]), np.argmax(x > 700, 1))
    np.testing.assert_array_equal(np.asarray(got[1]), np.argmin(x > 700, 0))


def test_zero_d_tensors_with_constants():
    f = lambda a: (a * 2.0, tf.maximum(a, 5.0) - 1.0, tf.reduce_mean(a))
    a = np.float32(3)
    for got, want in zip(tessel.jit_tf(f)(a), f(tf.constant(a))):
        close(got, want)


def test_float16_matmul_accumulates_in_float32():
    a = np.ones((4, 8192), np.float16)
    f = lambda x, y: (tf.matmul(x, y), tf.linalg.matmul(x[None], y[None]))
    for got, want in zip(tessel.jit_tf(f)(a, a.T), f(tf.constant(a), tf.constant(a.T))):
        assert got.dtype == want.dtype == tf.float16
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_boolean_extremes_and_integer_abs():
    def f(x, y):
        a, b = x > 0, y > 0
        return (tf.equal(a, b), tf.abs(x), tf.reduce_max(x), tf.maximum(x, y),
                tf.reduce_any(a), tf.reduce_all(a), tf.reduce_any(tf.logical_and(a, b)))
    x, y = np.array([-3, 5, 0, -7], np.int32), np.array([1, -1, 2, 0], np.int32)
    for got, want in zip(tessel.jit_tf(f)(x, y), f(tf.constant(x), tf.constant(y))):
        close(got, want)


def test_concat_skips_zero_size_pieces():
    f = lambda a, b: (tf.concat([a, b], 1), tf.concat([b, a, b], 1))
    a, b = np.random.rand(2, 3).astype(np.float32), np.zeros((2, 0), np.float32)
    for got, want in zip(tessel.jit_tf(f)(a, b), f(tf.constant(a), tf.constant(b))):
        close(got, want)

"""TensorFlow: `@tessel.jit_tf` traces the function with tf.function (the
user's input_signature, else one specialized on each call's shapes and
dtypes), walks the concrete function's graph and translates each TF op to
linalg-on-tensors MLIR.

Function arguments stay arguments. Variables the function reads (Keras
weights, tf.Variable) are passed as extra arguments, read at every call, so
assigning a variable needs no recompilation. Graph constants become dense
resources; small integer tensors that only feed shapes (Reshape's shape,
Transpose's perm, reduction axes, paddings) are folded in Python.
"""

from __future__ import annotations

import functools

import numpy as np

from .._native import aligned_empty
from ..compiler import CompileOptions, compile_module
from . import registry, static_key
from ..mlir import (UnsupportedError, ModuleBuilder, contiguous, convert_scalar, extreme_reduction,
                    int_predicate, is_float, lowest, max_op, min_op, mlir_to_np_dtype,
                    np_dtype_to_mlir)


def _elem(dtype) -> str:
    if dtype.is_bool:
        return "i1"
    return np_dtype_to_mlir(np.dtype(dtype.as_numpy_dtype))


def _static_shape(t) -> tuple:
    if not t.shape.is_fully_defined():
        raise UnsupportedError(f"TF op {t.op.type} ({t.op.name}): output {t.name} has dynamic shape "
                               f"{t.shape}; Tessel compiles static shapes (give a fully defined "
                               "input_signature or call with concrete arrays)", ops=[t.op.type])
    return tuple(int(d) for d in t.shape)


class _Lowering:
    def __init__(self, name: str):
        self.module = ModuleBuilder()
        self.f = self.module.function(name)
        self.env: dict = {}      # graph tensor name -> Value
        self.consts: dict = {}   # graph tensor name -> np.ndarray (known at compile time)

    # Operands: `value` materializes an MLIR value (constants on first use),
    # `const` requires a compile-time value (shapes, axes, paddings).
    def value(self, t):
        v = self.env.get(t.name)
        if v is None:
            if t.name not in self.consts:
                raise UnsupportedError(f"TF op {t.op.type} ({t.op.name}) was not translated", ops=[t.op.type])
            v = self.env[t.name] = self.f.constant(self.consts[t.name], _elem(t.dtype))
        return v

    def const(self, t, what: str):
        if t.name not in self.consts:
            raise UnsupportedError(f"TF op {t.consumers()[0].type if t.consumers() else '?'}: {what} "
                                   f"({t.name}) must be known at compile time", ops=[t.op.type])
        return self.consts[t.name]

    def run(self, graph, inputs, outputs):
        ops = graph.get_operations()
        unsupported = sorted({op.type for op in ops if op.type not in _RULES and op.type not in _SKIP
                              and op.type not in _FOLD_ONLY and op.type != "Placeholder"})
        if unsupported:
            raise UnsupportedError("Tessel does not support the TensorFlow op(s) " + ", ".join(unsupported),
                                   ops=unsupported)
        placeholders = {t.name for t in inputs}
        for op in ops:
            if op.type in _SKIP or op.type == "Placeholder":
                if op.type == "Placeholder" and op.outputs[0].name not in placeholders:
                    raise UnsupportedError(f"TF placeholder {op.name} is not a function input",
                                           ops=["Placeholder"])
                continue
            if _try_fold(self, op):
                continue
            if op.type in _FOLD_ONLY:
                raise UnsupportedError(f"TF op {op.type} ({op.name}): its value must be known at compile "
                                       "time (static shapes, constant operands)", ops=[op.type])
            try:
                outs = _RULES[op.type](self, op)
            except UnsupportedError:
                raise
            except Exception as e:
                raise UnsupportedError(f"TF op {op.type} ({op.name}): {e}", ops=[op.type]) from e
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            for t, v in zip(op.outputs, outs):
                if v is None:
                    continue
                expect = _static_shape(t)
                if v.shape != expect:
                    raise UnsupportedError(f"TF op {op.type} ({op.name}): translated to shape {v.shape}, "
                                           f"TF says {expect}", ops=[op.type])
                self.env[t.name] = v
        return [self.value(t) for t in outputs]


_SKIP = {"NoOp", "Assert"}
# Ops with no run-time translation: they only compute compile-time values.
_FOLD_ONLY = {"Const", "Shape", "Size", "Rank", "Range"}
_RULES, rule = registry()


def _attr(op, name, default=None):
    try:
        v = op.get_attr(name)
    except ValueError:
        return default
    return v.decode() if isinstance(v, bytes) else v


# --- compile-time folding of small integer computations (shapes, axes) ------

_FOLD = {
    "Const": None, "Identity": None, "Shape": None, "Size": None, "Rank": None,
    "Reshape": None, "Cast": None, "Pack": None, "ConcatV2": None, "StridedSlice": None,
    "AddV2": np.add, "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "FloorDiv": np.floor_divide, "Maximum": np.maximum, "Minimum": np.minimum,
    "Prod": None, "Range": None, "Fill": None, "ExpandDims": None, "Squeeze": None,
}
_FOLD_LIMIT = 1 << 12  # elements: beyond this a value is computed at run time


def _try_fold(L, op) -> bool:
    t = op.type
    if t == "Const":
        import tensorflow as tf
        L.consts[op.outputs[0].name] = tf.make_ndarray(op.get_attr("value"))
        return True
    if t in ("Shape", "Size", "Rank"):
        x = op.inputs[0]
        if not x.shape.is_fully_defined():
            return False
        shape = [int(d) for d in x.shape]
        v = {"Shape": shape, "Size": int(np.prod(shape)), "Rank": len(shape)}[t]
        L.consts[op.outputs[0].name] = np.asarray(v, dtype=op.outputs[0].dtype.as_numpy_dtype)
        return True
    if t not in _FOLD or not op.inputs or any(i.name not in L.consts for i in op.inputs):
        return False
    if not op.outputs[0].shape.is_fully_defined() or op.outputs[0].shape.num_elements() > _FOLD_LIMIT:
        return False
    ins = [L.consts[i.name] for i in op.inputs]
    out_dtype = op.outputs[0].dtype.as_numpy_dtype
    fn = _FOLD[t]
    if fn is not None:
        r = fn(*ins)
    elif t == "Identity":
        r = ins[0]
    elif t in ("Reshape", "ExpandDims", "Squeeze"):
        r = ins[0].reshape(_static_shape(op.outputs[0]))
    elif t == "Cast":
        r = ins[0]
    elif t == "Pack":
        r = np.stack(ins, axis=_attr(op, "axis", 0))
    elif t == "ConcatV2":
        r = np.concatenate(ins[:-1], axis=int(ins[-1]))
    elif t == "StridedSlice":
        r = ins[0][_strided_index(op, ins[0].shape, ins[1], ins[2], ins[3])]
    elif t == "Prod":
        r = np.prod(ins[0], axis=tuple(np.atleast_1d(ins[1]).tolist()), keepdims=_attr(op, "keep_dims", False))
    elif t == "Range":
        r = np.arange(ins[0], ins[1], ins[2])
    elif t == "Fill":
        r = np.full(ins[0], ins[1])
    else:
        return False
    r = np.asarray(r).astype(out_dtype)
    if r.shape != _static_shape(op.outputs[0]):
        return False  # numpy and TF disagree (e.g. a float Range): not folded
    L.consts[op.outputs[0].name] = r
    return True


def _strided_index(op, shape, begin, end, strides):
    """The numpy index a StridedSlice denotes (masks applied)."""
    bm, em, elm = _attr(op, "begin_mask", 0), _attr(op, "end_mask", 0), _attr(op, "ellipsis_mask", 0)
    nam, sam = _attr(op, "new_axis_mask", 0), _attr(op, "shrink_axis_mask", 0)
    index = []
    for i in range(len(begin)):
        bit = 1 << i
        if elm & bit:
            index.append(Ellipsis)
        elif nam & bit:
            index.append(None)
        elif sam & bit:
            index.append(int(begin[i]))
        else:
            index.append(slice(None if bm & bit else int(begin[i]), None if em & bit else int(end[i]),
                               int(strides[i])))
    return tuple(index)


# --- elementwise ---------------------------------------------------------------

def _pointwise(L, op, operands, fn, out_elem=None):
    out = op.outputs[0]
    elem = out_elem or _elem(out.dtype)
    ce = operands[0].elem

    def body(b, args):
        cargs = [convert_scalar(b, a, v.elem, ce) for a, v in zip(args, operands)]
        return fn(b, cargs, ce)
    return L.f.elementwise(operands, elem, body, out_shape=_static_shape(out))


def _binary(fop, iop):
    """fop on floats, iop on integers: an op name, or a function of the
    element type (max/min: unsigned for booleans)."""
    def h(L, op):
        a, b = L.value(op.inputs[0]), L.value(op.inputs[1])
        if iop is None and not is_float(a.elem):
            raise UnsupportedError(f"TF op {op.type} on {a.elem} is not supported", ops=[op.type])
        name = lambda e: fop if is_float(e) else iop(e) if callable(iop) else iop
        return _pointwise(L, op, [a, b], lambda bb, x, e: bb.op(name(e), x, e))
    return h


for _n, _f, _i in [("AddV2", "arith.addf", "arith.addi"), ("Add", "arith.addf", "arith.addi"),
                   ("Sub", "arith.subf", "arith.subi"), ("Mul", "arith.mulf", "arith.muli"),
                   ("RealDiv", "arith.divf", None), ("Div", "arith.divf", None),
                   ("Maximum", "arith.maximumf", max_op), ("Minimum", "arith.minimumf", min_op),
                   ("Pow", "math.powf", None)]:
    rule(_n)(_binary(_f, _i))


@rule("FloorDiv", "FloorMod")
def _floor_div_mod(L, op):
    def fn(b, x, e):
        if is_float(e):
            q = b.op("math.floor", [b.op("arith.divf", x, e)], e)
            mul, sub = "arith.mulf", "arith.subf"
        else:
            q = b.op("arith.floordivsi", x, e)
            mul, sub = "arith.muli", "arith.subi"
        # FloorMod: x - floor(x / y) * y, with the sign of y as in TF.
        return q if op.type == "FloorDiv" else b.op(sub, [x[0], b.op(mul, [q, x[1]], e)], e)
    return _pointwise(L, op, [L.value(op.inputs[0]), L.value(op.inputs[1])], fn)


@rule("SquaredDifference")
def _sqdiff(L, op):
    def fn(b, x, e):
        d = b.op("arith.subf" if is_float(e) else "arith.subi", x, e)
        return b.op("arith.mulf" if is_float(e) else "arith.muli", [d, d], e)
    return _pointwise(L, op, [L.value(op.inputs[0]), L.value(op.inputs[1])], fn)


@rule("AddN")
def _addn(L, op):
    vals = [L.value(t) for t in op.inputs]
    return _pointwise(L, op, vals, lambda b, x, e: functools.reduce(
        lambda acc, y: b.op("arith.addf" if is_float(e) else "arith.addi", [acc, y], e), x))


@rule("BiasAdd", "BiasAddV1")
def _bias_add(L, op):
    x, bias = L.value(op.inputs[0]), L.value(op.inputs[1])
    if _attr(op, "data_format", "NHWC").startswith("NC") and x.rank > 2:
        bias = L.f.reshape(bias, (bias.shape[0],) + (1,) * (x.rank - 2))
    return _pointwise(L, op, [x, bias], lambda b, a, e: b.op(
        "arith.addf" if is_float(e) else "arith.addi", a, e))


def _float_unary(fn):
    def h(L, op):
        x = L.value(op.inputs[0])
        if not is_float(x.elem):
            raise UnsupportedError(f"TF op {op.type} on {x.elem} is not supported", ops=[op.type])
        return _pointwise(L, op, [x], lambda b, a, e: fn(b, a[0], e, op))
    return h


def _math(name):
    return lambda b, x, e, op: b.op(name, [x], e)


def _sigmoid(b, x, e, op=None):
    one = b.const(1.0, e)
    return b.op("arith.divf", [one, b.op("arith.addf", [one, b.op("math.exp", [b.op("arith.negf", [x], e)], e)], e)], e)


_UNARY = {
    "Exp": _math("math.exp"), "Log": _math("math.log"), "Sqrt": _math("math.sqrt"),
    "Rsqrt": _math("math.rsqrt"), "Tanh": _math("math.tanh"), "Erf": _math("math.erf"),
    "Erfc": _math("math.erfc"),
    "Sin": _math("math.sin"), "Cos": _math("math.cos"), "Floor": _math("math.floor"),
    "Ceil": _math("math.ceil"), "Log1p": _math("math.log1p"), "Expm1": _math("math.expm1"),
    "Abs": _math("math.absf"), "Neg": lambda b, x, e, op: b.op("arith.negf", [x], e),
    "Sigmoid": _sigmoid,
    "Square": lambda b, x, e, op: b.op("arith.mulf", [x, x], e),
    "Reciprocal": lambda b, x, e, op: b.op("arith.divf", [b.const(1.0, e), x], e),
    "Inv": lambda b, x, e, op: b.op("arith.divf", [b.const(1.0, e), x], e),
    "Relu": lambda b, x, e, op: b.op("arith.maximumf", [x, b.const(0.0, e)], e),
    "Relu6": lambda b, x, e, op: b.op("arith.minimumf", [b.op("arith.maximumf", [x, b.const(0.0, e)], e),
                                                         b.const(6.0, e)], e),
    "LeakyRelu": lambda b, x, e, op: b.op("arith.select", [
        b.op("arith.cmpf", [x, b.const(0.0, e)], e, attrs="ogt"), x,
        b.op("arith.mulf", [x, b.const(float(_attr(op, "alpha", 0.2)), e)], e)], e),
    "Elu": lambda b, x, e, op: b.op("arith.select", [
        b.op("arith.cmpf", [x, b.const(0.0, e)], e, attrs="ogt"), x, b.op("math.expm1", [x], e)], e),
    # max(x, 0) + log1p(exp(-|x|)): no overflow for large x.
    "Softplus": lambda b, x, e, op: b.op("arith.addf", [
        b.op("arith.maximumf", [x, b.const(0.0, e)], e),
        b.op("math.log1p", [b.op("math.exp", [b.op("arith.negf", [b.op("math.absf", [x], e)], e)], e)], e)], e),
}
for _n, _fn in _UNARY.items():
    rule(_n)(_float_unary(_fn))


@rule("Neg", "Abs")
def _neg_abs(L, op):
    x = L.value(op.inputs[0])
    if is_float(x.elem):
        return _RULE_FLOAT_NEG_ABS[op.type](L, op)
    return _pointwise(L, op, [x], lambda b, a, e: b.op("arith.subi", [b.const(0, e), a[0]], e)
                      if op.type == "Neg" else b.op("math.absi", a, e))


_RULE_FLOAT_NEG_ABS = {"Neg": _float_unary(_UNARY["Neg"]), "Abs": _float_unary(_UNARY["Abs"])}


@rule("Cast")
def _cast(L, op):
    return L.f.cast(L.value(op.inputs[0]), _elem(op.outputs[0].dtype))


def _compare(pf, pi):
    def h(L, op):
        a, b = L.value(op.inputs[0]), L.value(op.inputs[1])
        ce = a.elem
        return L.f.elementwise([a, b], "i1", lambda bb, x: bb.op(
            "arith.cmpf" if is_float(ce) else "arith.cmpi", x, ce,
            attrs=pf if is_float(ce) else int_predicate(pi, ce)), out_shape=_static_shape(op.outputs[0]))
    return h


for _n, _pf, _pi in [("Greater", "ogt", "sgt"), ("GreaterEqual", "oge", "sge"), ("Less", "olt", "slt"),
                     ("LessEqual", "ole", "sle"), ("Equal", "oeq", "eq"), ("NotEqual", "une", "ne")]:
    rule(_n)(_compare(_pf, _pi))


def _logical(name):
    def h(L, op):
        vals = [L.f.cast(L.value(t), "i1") for t in op.inputs]
        if name == "not":
            return L.f.elementwise(vals, "i1", lambda b, x: b.op("arith.xori", [x[0], b.const(True, "i1")], "i1"))
        return L.f.elementwise(vals, "i1", lambda b, x: b.op(name, x, "i1"),
                               out_shape=_static_shape(op.outputs[0]))
    return h


rule("LogicalAnd")(_logical("arith.andi"))
rule("LogicalOr")(_logical("arith.ori"))
rule("LogicalNot")(_logical("not"))


@rule("Select", "SelectV2")
def _select(L, op):
    c, a, b = (L.value(t) for t in op.inputs)
    out_shape = _static_shape(op.outputs[0])
    if op.type == "Select" and c.rank == 1 and len(out_shape) > 1:
        c = L.f.reshape(c, (c.shape[0],) + (1,) * (len(out_shape) - 1))  # selects rows
    c = L.f.cast(c, "i1")
    elem = _elem(op.outputs[0].dtype)
    return L.f.elementwise([c, a, b], elem, lambda bb, x: bb.op("arith.select", x, elem), out_shape=out_shape)


@rule("Identity", "StopGradient", "PreventGradient", "Snapshot", "EnsureShape", "CheckNumerics")
def _identity(L, op):
    return L.value(op.inputs[0])


@rule("IdentityN")
def _identity_n(L, op):
    return [L.value(t) for t in op.inputs]


@rule("ReadVariableOp")
def _read_variable(L, op):
    return L.value(op.inputs[0])


@rule("ZerosLike", "OnesLike")
def _zeros_like(L, op):
    out = op.outputs[0]
    return L.f.full(_static_shape(out), 0 if op.type == "ZerosLike" else 1, _elem(out.dtype))


@rule("Fill")
def _fill(L, op):
    v = L.value(op.inputs[1])
    return L.f.broadcast_to(L.f.reshape(v, ()), _static_shape(op.outputs[0]))


# --- shapes ----------------------------------------------------------------------

@rule("Reshape", "Squeeze", "ExpandDims")
def _reshape(L, op):
    return L.f.reshape(L.value(op.inputs[0]), _static_shape(op.outputs[0]))


@rule("Transpose")
def _transpose(L, op):
    return L.f.transpose(L.value(op.inputs[0]), [int(p) for p in L.const(op.inputs[1], "the permutation")])


@rule("BroadcastTo")
def _broadcast_to(L, op):
    return L.f.broadcast_to(L.value(op.inputs[0]), _static_shape(op.outputs[0]))


@rule("ConcatV2")
def _concat(L, op):
    axis = int(L.const(op.inputs[-1], "the axis"))
    return L.f.concat([L.value(t) for t in op.inputs[:-1]], axis)


@rule("Pack")
def _pack(L, op):
    axis = _attr(op, "axis", 0)
    out_shape = _static_shape(op.outputs[0])
    axis %= len(out_shape)
    parts = []
    for t in op.inputs:
        v = L.value(t)
        parts.append(L.f.reshape(v, v.shape[:axis] + (1,) + v.shape[axis:]))
    return L.f.concat(parts, axis)


@rule("Slice")
def _slice(L, op):
    x = L.value(op.inputs[0])
    begin = [int(b) for b in L.const(op.inputs[1], "the begin")]
    size = [int(s) if s >= 0 else x.shape[i] - begin[i] for i, s in enumerate(L.const(op.inputs[2], "the size"))]
    return L.f.slice(x, begin, size, [1] * x.rank)


@rule("StridedSlice")
def _strided_slice(L, op):
    x = L.value(op.inputs[0])
    begin, end, strides = (L.const(t, "the slice bounds") for t in op.inputs[1:4])
    index = list(_strided_index(op, x.shape, begin, end, strides))
    # Expand the ellipsis, then walk the index against x's dimensions.
    if Ellipsis in index:
        k = index.index(Ellipsis)
        used = sum(1 for i in index if i is not None and i is not Ellipsis)
        index[k:k + 1] = [slice(None)] * (x.rank - used)
    index += [slice(None)] * (x.rank - sum(1 for i in index if i is not None))
    offsets, sizes, steps = [], [], []
    d = 0
    for i in index:
        if i is None:
            continue
        n = x.shape[d]
        if isinstance(i, int):
            i = i + n if i < 0 else i
            offsets.append(i), sizes.append(1), steps.append(1)
        else:
            start, stop, step = i.indices(n)
            if step < 0:
                raise UnsupportedError("StridedSlice with a negative stride is not supported",
                                       ops=["StridedSlice"])
            offsets.append(start), sizes.append(len(range(start, stop, step))), steps.append(step)
        d += 1
    return L.f.reshape(L.f.slice(x, offsets, sizes, steps), _static_shape(op.outputs[0]))


@rule("Pad", "PadV2")
def _pad(L, op):
    x = L.value(op.inputs[0])
    pads = np.asarray(L.const(op.inputs[1], "the paddings"))
    value = 0
    if op.type == "PadV2":
        value = np.asarray(L.const(op.inputs[2], "the padding value")).item()
    return L.f.pad(x, pads[:, 0].tolist(), pads[:, 1].tolist(), value)


# --- reductions --------------------------------------------------------------------

def _reduction(kind):
    def h(L, op):
        x = L.value(op.inputs[0])
        axes = [int(a) % max(x.rank, 1) for a in np.atleast_1d(L.const(op.inputs[1], "the reduction axes"))]
        keep = bool(_attr(op, "keep_dims", False))
        out_shape = _static_shape(op.outputs[0])
        e = x.elem
        if kind == "mean":
            if not is_float(e):
                raise UnsupportedError(f"TF op Mean on {e} is not supported", ops=["Mean"])
            r = L.f.mean(x, axes)
        else:
            if kind in ("max", "min"):
                init, combine = extreme_reduction(kind, e)
            else:
                init, fop, iop = {"sum": (0, "arith.addf", "arith.addi"),
                                  "prod": (1, "arith.mulf", "arith.muli")}[kind]
                combine = fop if is_float(e) else iop
            r = L.f.reduce(x, axes, init, combine)
        return L.f.reshape(r, out_shape) if keep or r.shape != out_shape else r
    return h


rule("Sum")(_reduction("sum"))
rule("Mean")(_reduction("mean"))
rule("Max", "Any")(_reduction("max"))  # Any and All take booleans: or and and
rule("Min", "All")(_reduction("min"))
rule("Prod")(_reduction("prod"))


def _arg(largest):
    def h(L, op):
        x = L.value(op.inputs[0])
        axis = int(np.asarray(L.const(op.inputs[1], "the axis")).item())
        elem = _elem(op.outputs[0].dtype)
        return L.f.reshape(L.f.arg_reduce(x, axis, largest, index_elem=elem),
                           _static_shape(op.outputs[0]))
    return h


rule("ArgMax")(_arg(True))
rule("ArgMin")(_arg(False))


def _softmax_last(L, x, log: bool):
    last = x.rank - 1
    keep = x.shape[:-1] + (1,)
    e = x.elem
    m = L.f.reshape(L.f.reduce(x, [last], lowest(e), "arith.maximumf"), keep)
    shifted = L.f.elementwise([x, m], e, lambda b, a: b.op("arith.subf", a, e))
    ex = L.f.elementwise([shifted], e, lambda b, a: b.op("math.exp", a, e))
    s = L.f.reshape(L.f.reduce(ex, [last], 0, "arith.addf"), keep)
    if log:
        return L.f.elementwise([shifted, s], e, lambda b, a: b.op(
            "arith.subf", [a[0], b.op("math.log", [a[1]], e)], e))
    return L.f.elementwise([ex, s], e, lambda b, a: b.op("arith.divf", a, e))


rule("Softmax")(lambda L, op: _softmax_last(L, L.value(op.inputs[0]), log=False))
rule("LogSoftmax")(lambda L, op: _softmax_last(L, L.value(op.inputs[0]), log=True))


# --- contractions ------------------------------------------------------------------

@rule("MatMul")
def _matmul(L, op):
    a, b = L.value(op.inputs[0]), L.value(op.inputs[1])
    if _attr(op, "transpose_a", False):
        a = L.f.transpose(a, [1, 0])
    if _attr(op, "transpose_b", False):
        b = L.f.transpose(b, [1, 0])
    return L.f.matmul(a, b)


@rule("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def _batch_matmul(L, op):
    a, b = L.value(op.inputs[0]), L.value(op.inputs[1])
    elem = _elem(op.outputs[0].dtype)
    a, b = L.f.cast(a, elem), L.f.cast(b, elem)
    swap = lambda v: L.f.transpose(v, list(range(v.rank - 2)) + [v.rank - 1, v.rank - 2])
    if _attr(op, "adj_x", False):
        a = swap(a)
    if _attr(op, "adj_y", False):
        b = swap(b)
    out_shape = _static_shape(op.outputs[0])
    batch = out_shape[:-2]
    nb = int(np.prod(batch)) if batch else 1
    a = L.f.reshape(L.f.broadcast_to(L.f.reshape(a, (1,) * (len(batch) + 2 - a.rank) + a.shape),
                                     batch + a.shape[-2:]), (nb,) + a.shape[-2:])
    b = L.f.reshape(L.f.broadcast_to(L.f.reshape(b, (1,) * (len(batch) + 2 - b.rank) + b.shape),
                                     batch + b.shape[-2:]), (nb,) + b.shape[-2:])
    r = L.f.matmul(L.f.reshape(a, a.shape[1:]), L.f.reshape(b, b.shape[1:])) if nb == 1 else L.f.matmul(a, b)
    return L.f.reshape(r, out_shape)


def _same_padding(size, k, stride, dilation):
    eff = (k - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def _spatial(op, x_rank=4):
    """(to_nchw permutation, strides[2], dilations[2]) from data_format."""
    fmt = _attr(op, "data_format", "NHWC")
    strides = list(_attr(op, "strides", [1, 1, 1, 1]))
    dil = list(_attr(op, "dilations", [1, 1, 1, 1]) or [1, 1, 1, 1])
    if fmt == "NCHW":
        return [0, 1, 2, 3], strides[2:], dil[2:]
    if fmt != "NHWC":
        raise UnsupportedError(f"TF op {op.type}: data_format {fmt} is not supported", ops=[op.type])
    return [0, 3, 1, 2], strides[1:3], dil[1:3]


def _paddings(op, hw, kernel, stride, dilation, fmt_perm):
    padding = _attr(op, "padding")
    if padding == "VALID":
        return [0, 0], [0, 0]
    if padding == "SAME":
        (lh, hh), (lw, hw_) = (_same_padding(hw[i], kernel[i], stride[i], dilation[i]) for i in range(2))
        return [lh, lw], [hh, hw_]
    if padding == "EXPLICIT":
        ex = list(_attr(op, "explicit_paddings"))
        pairs = [(ex[2 * i], ex[2 * i + 1]) for i in range(4)]
        pairs = [pairs[p] for p in fmt_perm]  # to NCHW order
        return [pairs[2][0], pairs[3][0]], [pairs[2][1], pairs[3][1]]
    raise UnsupportedError(f"TF op {op.type}: padding {padding} is not supported", ops=[op.type])


def _to_format(L, y, perm):
    inv = [0] * 4
    for i, p in enumerate(perm):
        inv[p] = i
    return L.f.transpose(y, inv)


@rule("Conv2D", "DepthwiseConv2dNative")
def _conv2d(L, op):
    x, w = L.value(op.inputs[0]), L.value(op.inputs[1])
    if x.rank != 4:
        raise UnsupportedError(f"TF op {op.type}: only 4-D inputs are supported", ops=[op.type])
    perm, stride, dil = _spatial(op)
    kh, kw, cin, m = w.shape                          # HWIO (Conv2D) or HW C M (depthwise)
    if op.type == "Conv2D" and perm == [0, 3, 1, 2] and x.shape[3] == cin and (cin, m) != (1, 1):
        # NHWC / HWIO: Tessel's convolution kernels take it as it is. (One
        # input and one output channel is a stencil, below: its NCHW views
        # are reshapes of NHWC.)
        lo, hi = _paddings(op, x.shape[1:3], (kh, kw), stride, dil, perm)
        return L.f.conv2d_nhwc(L.f.pad(x, [0] + lo + [0], [0] + hi + [0], 0), w, stride, dil)
    xn = L.f.transpose(x, perm)                       # N, C, H, W
    lo, hi = _paddings(op, xn.shape[2:], (kh, kw), stride, dil, perm)
    xn = L.f.pad(xn, [0, 0] + lo, [0, 0] + hi, 0)
    c = xn.shape[1]
    if op.type == "DepthwiseConv2dNative":
        # Output channel c*M + m reads input channel c.
        wn = L.f.reshape(L.f.transpose(w, [2, 3, 0, 1]), (cin * m, 1, kh, kw))
        groups = cin
    else:
        wn = L.f.transpose(w, [3, 2, 0, 1])           # F, C/g, KH, KW
        groups = c // cin
    y = L.f.conv2d_nchw(xn, wn, stride, dil, groups)
    return _to_format(L, y, perm)


@rule("MaxPool", "AvgPool")
def _pool(L, op):
    x = L.value(op.inputs[0])
    if x.rank != 4:
        raise UnsupportedError(f"TF op {op.type}: only 4-D inputs are supported", ops=[op.type])
    perm, stride, _ = _spatial(op)
    ksize = list(_attr(op, "ksize"))
    kernel = [ksize[p] for p in perm][2:]
    h, w = x.shape[perm[2]], x.shape[perm[3]]
    lo, hi = _paddings(op, (h, w), kernel, stride, (1, 1), perm)
    kind = "max" if op.type == "MaxPool" else "sum"
    fill = lowest(x.elem) if kind == "max" else 0
    nhwc = perm == [0, 3, 1, 2]
    if nhwc:  # pooled as it is
        y = L.f.pool2d_nhwc(L.f.pad(x, [0] + lo + [0], [0] + hi + [0], fill), kernel, stride, (1, 1), kind)
    else:
        y = L.f.pool2d_nchw(L.f.pad(L.f.transpose(x, perm), [0, 0] + lo, [0, 0] + hi, fill), kernel, stride,
                            (1, 1), kind)
    if kind == "sum":
        # TF averages over the window's elements inside the input only.
        oh, ow = (y.shape[1:3] if nhwc else y.shape[2:])
        count = np.zeros((oh, ow), np.float64)
        for i in range(oh):
            rows = max(0, min(h, i * stride[0] - lo[0] + kernel[0]) - max(0, i * stride[0] - lo[0]))
            for j in range(ow):
                cols = max(0, min(w, j * stride[1] - lo[1] + kernel[1]) - max(0, j * stride[1] - lo[1]))
                count[i, j] = rows * cols
        e = y.elem
        if (count == count[0, 0]).all():
            inv = 1.0 / count[0, 0]
            y = L.f.elementwise([y], e, lambda b, a: b.op("arith.mulf", [a[0], b.const(inv, e)], e))
        else:
            scale = L.f.constant((1.0 / count).astype(mlir_to_np_dtype(e))
                                 .reshape((1, oh, ow, 1) if nhwc else (1, 1, oh, ow)))
            y = L.f.elementwise([y, scale], e, lambda b, a: b.op("arith.mulf", a, e))
    return y if nhwc else _to_format(L, y, perm)


@rule("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def _fused_batch_norm(L, op):
    if _attr(op, "is_training", True):
        raise UnsupportedError(f"TF op {op.type} in training mode (batch statistics) is not supported; "
                               "inference (is_training=False) is", ops=[op.type])
    x, scale, offset, mean, var = (L.value(t) for t in op.inputs[:5])
    eps = float(_attr(op, "epsilon", 1e-3))
    channels_first = _attr(op, "data_format", "NHWC").startswith("NC")
    shape = (scale.shape[0],) + (1,) * (x.rank - 2) if channels_first else scale.shape
    e = x.elem
    params = [L.f.reshape(L.f.cast(p, e), shape) for p in (scale, offset, mean, var)]

    def body(b, a):
        xv, s, o, m, v = a
        inv = b.op("math.rsqrt", [b.op("arith.addf", [v, b.const(eps, e)], e)], e)
        return b.op("arith.addf", [b.op("arith.mulf", [b.op("arith.mulf", [b.op("arith.subf", [xv, m], e), inv], e), s], e), o], e)
    y = L.f.elementwise([x] + params, e, body, out_shape=x.shape)
    # Inference mode passes the running statistics through.
    return [y, mean, var] + [None] * (len(op.outputs) - 3)


@rule("PartitionedCall", "StatefulPartitionedCall")
def _call(L, op):
    """A call of another tf.function: its graph is translated inline, in
    its own namespace of tensor names."""
    name = op.get_attr("f").name
    fn = op.graph._get_function(name)
    if fn is None or getattr(fn, "graph", None) is None:
        raise UnsupportedError(f"TF op {op.type}: the body of function {name} is not available", ops=[op.type])
    sub = fn.graph
    env, consts = {}, {}
    for t, arg in zip(sub.inputs, op.inputs):
        if arg.name in L.consts:
            consts[t.name] = L.consts[arg.name]
        else:
            env[t.name] = L.value(arg)
    outer = L.env, L.consts
    L.env, L.consts = env, consts
    try:
        return L.run(sub, sub.inputs, sub.outputs)
    finally:
        L.env, L.consts = outer


# --- driver --------------------------------------------------------------------------

def lower(concrete, name="main"):
    """MLIR text for a concrete function: its arguments, then the variables
    it captures, as function arguments."""
    import tensorflow as tf
    graph = concrete.graph
    n_user = len(graph.inputs) - len(concrete.captured_inputs)
    L = _Lowering(name)
    for t in graph.inputs[:n_user]:
        L.env[t.name] = L.f.add_argument(_static_shape(t), _elem(t.dtype))
    variables = []
    by_handle = {id(v.handle): v for v in concrete.variables}
    for t, cap in zip(graph.inputs[n_user:], concrete.captured_inputs):
        var = by_handle.get(id(cap))
        if var is not None:
            if not var.shape.is_fully_defined():
                raise UnsupportedError(f"TF variable {var.name} has shape {var.shape}; Tessel compiles "
                                       "static shapes", ops=["ReadVariableOp"])
            L.env[t.name] = L.f.add_argument(tuple(int(d) for d in var.shape), _elem(var.dtype))
            variables.append(var)
        elif cap.dtype != tf.resource:
            # A captured eager tensor: a constant of this compilation.
            L.consts[t.name] = cap.numpy()
        else:
            raise UnsupportedError(f"TF resource input {t.name} is not a variable", ops=["Placeholder"])
    outputs = tf.nest.flatten(concrete.structured_outputs, expand_composites=True)
    results = L.run(graph, graph.inputs, [o for o in outputs if isinstance(o, tf.Tensor)])
    L.f.set_results([L.f.copy(r) if r.name.startswith("%") and _is_constant(L, r) else r for r in results])
    return L.module.text(), [a.type for a in L.f.args], [r.type for r in L.f.results], variables, outputs


def _is_constant(L, v) -> bool:
    # Results must be computed by the function, not be constants, so each
    # is written into its caller-provided buffer by the same mechanism.
    return any(line.lstrip().startswith(f"{v.name} = arith.constant") for line in L.f.lines)


def _as_host_array(x, elem):
    """A C-contiguous numpy view of a numpy array, a TF CPU tensor or a
    variable's value (np.asarray shares a tensor's buffer; .numpy() would
    copy it), copied only where the dtype or layout differs."""
    import tensorflow as tf
    if isinstance(x, tf.Variable):
        x = x.value()
    return contiguous(x, mlir_to_np_dtype(elem))


def _is_tensor(x) -> bool:
    import tensorflow as tf
    return isinstance(x, (tf.Tensor, tf.Variable, np.ndarray, np.generic))


def jit_tf(fn=None, *, input_signature=None, compile_options=None):
    """@tessel.jit_tf, @tessel.jit_tf(input_signature=[tf.TensorSpec...],
    compile_options={...}), or tessel.jit_tf(fn, ...) at a call site."""
    options = CompileOptions.from_dict(compile_options, "tf")
    if options.static_argnums:
        raise ValueError("compile option static_argnums is for JAX; jit_tf treats arguments that are "
                         "not arrays or tensors as trace-time constants")

    def wrap(f):
        import tensorflow as tf
        if options.execution_backend == "std":
            return tf.function(f, input_signature=input_signature)
        if options.execution_backend == "xla":
            return tf.function(f, input_signature=input_signature, jit_compile=True)
        # Traced per call shape: the input_signature is checked below, and
        # its unknown dimensions take each call's sizes (one compilation per
        # distinct shape), since Tessel compiles static shapes.
        traced = tf.function(f, autograph=True)
        compiled = {}

        @functools.wraps(f)
        def call(*args, **kwargs):
            # Arrays and tensors are run-time arguments; other Python values
            # (and keyword arguments) are constants of the trace, as in
            # tf.function, and part of the cache key.
            if input_signature is not None and len(args) != len(input_signature):
                raise TypeError(f"{f.__name__}: {len(args)} positional argument(s), the input_signature "
                                f"has {len(input_signature)}")
            if any(_is_tensor(v) for v in kwargs.values()):
                raise TypeError(f"{f.__name__}: tensors must be passed positionally to a tessel.jit_tf "
                                "function (keyword arguments are trace-time constants)")
            specs, key = [], []
            for i, a in enumerate(args):
                if not _is_tensor(a):
                    if input_signature is not None:
                        a = tf.convert_to_tensor(a, dtype=input_signature[i].dtype)
                    else:
                        specs.append(a)
                        key.append(("static", type(a).__name__, static_key(a)))
                        continue
                spec = tf.TensorSpec(a.shape, tf.as_dtype(a.dtype))  # no copy of the data
                if input_signature is not None and not input_signature[i].is_compatible_with(spec):
                    raise TypeError(f"{f.__name__}: argument {i} is {spec}, the input_signature "
                                    f"says {input_signature[i]}")
                specs.append(spec)
                key.append((tuple(spec.shape), spec.dtype.name))
            key.append(tuple(sorted((k, static_key(v)) for k, v in kwargs.items())))
            key = tuple(key)
            entry = compiled.get(key)
            if entry is None:
                concrete = traced.get_concrete_function(*specs, **kwargs)
                text, arg_types, result_types, variables, outputs = lower(concrete, name="main")
                fn_c = compile_module(text, "main", arg_types, result_types, options)
                entry = compiled[key] = (fn_c, variables, concrete.structured_outputs, outputs)
            fn_c, variables, structure, outputs = entry
            tensors = [a for a in args if _is_tensor(a) or input_signature is not None]
            ins = [_as_host_array(a, t.elem) for a, t in zip(tensors + variables, fn_c.arg_types)]
            for a, t in zip(ins, fn_c.arg_types):
                if a.shape != t.shape:
                    raise RuntimeError(f"{f.__name__}: an argument or variable is {a.shape}, compiled "
                                       f"for {t.shape}")
            outs = [aligned_empty(t.shape, mlir_to_np_dtype(t.elem)) for t in fn_c.result_types]
            fn_c.call_pointers([a.ctypes.data for a in ins] + [o.ctypes.data for o in outs])
            it = iter(outs)
            leaves = [tf.experimental.dlpack.from_dlpack(next(it).__dlpack__()) if isinstance(o, tf.Tensor)
                      else o for o in outputs]
            return tf.nest.pack_sequence_as(structure, leaves, expand_composites=True)

        call.tessel_options = options
        return call

    return wrap(fn) if fn is not None else wrap

"""PyTorch: TorchDynamo captures FX graphs, AOTAutograd lowers them to ATen
(core ATen decompositions, functionalized), and this module translates the
ATen graph to linalg-on-tensors MLIR.

Every placeholder of the ATen graph (user inputs and, as dynamo lifts them,
parameters and buffers) becomes a function argument; tensors the graph holds
as attributes become constants (dense resources).
"""

from __future__ import annotations

import math
import operator

import numpy as np
import torch

from . import registry
from ..mlir import (FunctionBuilder, ModuleBuilder, TensorType, UnsupportedError,
                    Value, convert_scalar, extreme_reduction, int_predicate, is_float,
                    lowest, max_op, min_op)

aten = torch.ops.aten

_TORCH_TO_MLIR = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8",
    torch.bool: "i1",
}
MLIR_TO_TORCH = {v: k for k, v in _TORCH_TO_MLIR.items()}


def torch_elem(dtype) -> str:
    if dtype not in _TORCH_TO_MLIR:
        raise UnsupportedError(f"dtype {dtype} is not supported "
                               f"(supported: {sorted(str(d) for d in _TORCH_TO_MLIR)})")
    return _TORCH_TO_MLIR[dtype]


def _meta(node):
    val = node.meta.get("val", node.meta.get("tensor_meta"))
    return val


def _static_shape(node, what="value") -> tuple:
    val = _meta(node)
    shape = []
    for d in val.shape:
        if not isinstance(d, int):
            try:
                d = int(d)
            except Exception:
                raise UnsupportedError(f"{node.format_node()}: dynamic dimension {d} in the shape "
                                       f"of this {what} (Tessel compiles static shapes)")
        shape.append(d)
    return tuple(shape)


class _Lowering:
    def __init__(self, gm: torch.fx.GraphModule, name: str):
        self.gm = gm
        self.module = ModuleBuilder()
        self.f: FunctionBuilder = self.module.function(name)
        self.env: dict = {}

    # -- helpers -------------------------------------------------------------------
    def out_type(self, node) -> TensorType:
        val = _meta(node)
        return TensorType(_static_shape(node), torch_elem(val.dtype))

    def value(self, x, elem: str | None = None) -> Value:
        """An operand: a node's value or a Python scalar as a rank-0 constant."""
        if isinstance(x, torch.fx.Node):
            v = self.env[x]
            if not isinstance(v, Value):
                raise UnsupportedError(f"{x.format_node()}: expected a tensor")
            return v
        if isinstance(x, (bool, int, float)):
            if elem is None:
                elem = "i1" if isinstance(x, bool) else "i64" if isinstance(x, int) else "f32"
            return self.f.constant(np.array(x), elem)
        raise UnsupportedError(f"operand {x!r} of type {type(x).__name__} is not supported")

    def pointwise(self, node, operands, fn, compute_elem: str | None = None):
        """fn(b, args, elem) -> name; operands are converted to compute_elem
        (default: the result's element type)."""
        out = self.out_type(node)
        ce = compute_elem or out.elem
        vals = [self.value(x, ce) for x in operands]

        def body(b, args):
            cargs = [convert_scalar(b, a, v.elem, ce) for a, v in zip(args, vals)]
            r = fn(b, cargs, ce)
            return convert_scalar(b, r, ce, out.elem) if out.elem != ce else r

        r = self.f.elementwise(vals, out.elem, body, out_shape=out.shape)
        return r

    def promoted_elem(self, node) -> str:
        vals = [a for a in node.args if isinstance(a, torch.fx.Node)]
        metas = [_meta(a) for a in vals]
        if not metas:
            return "f32"
        dtype = metas[0].dtype
        for m in metas[1:]:
            dtype = torch.promote_types(dtype, m.dtype)
        for a in node.args:
            if isinstance(a, float) and not dtype.is_floating_point:
                dtype = torch.get_default_dtype()
        return torch_elem(dtype)

    # -- the graph -------------------------------------------------------------------
    def run(self):
        unsupported = []
        for node in self.gm.graph.nodes:
            if node.op == "call_function" and node.target is not operator.getitem:
                if _handler(node.target) is None:
                    unsupported.append(_op_name(node.target))
        if unsupported:
            names = sorted(set(unsupported))
            raise UnsupportedError("Tessel does not support the PyTorch op(s) "
                                   + ", ".join(names), ops=names)
        outputs = None
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                val = _meta(node)
                if not isinstance(val, torch.Tensor):
                    raise UnsupportedError(f"graph input '{node.name}' is a {type(val).__name__}, "
                                           "not a tensor (dynamic shapes are not handled)")
                self.env[node] = self.f.add_argument(_static_shape(node, "input"), torch_elem(val.dtype))
            elif node.op == "get_attr":
                t = getattr(self.gm, node.target)
                if not isinstance(t, torch.Tensor):
                    raise UnsupportedError(f"graph attribute {node.target} is not a tensor")
                # AOTAutograd calls compilers under its fake mode; constants are real.
                from torch._subclasses.fake_tensor import unset_fake_temporarily
                with unset_fake_temporarily():
                    data = t.detach().cpu().contiguous().numpy()
                self.env[node] = self.f.constant(data, torch_elem(t.dtype))
            elif node.op == "call_function":
                if node.target is operator.getitem:
                    self.env[node] = self.env[node.args[0]][node.args[1]]
                    continue
                try:
                    self.env[node] = _handler(node.target)(self, node, *node.args, **node.kwargs)
                except UnsupportedError:
                    raise
                except Exception as e:  # a translation bug must name the op
                    raise UnsupportedError(f"{_op_name(node.target)} ({node.format_node()}): {e}",
                                           ops=[_op_name(node.target)]) from e
            elif node.op == "output":
                outputs = node.args[0]
            else:
                raise UnsupportedError(f"FX node kind '{node.op}' is not supported")
        return outputs


def _op_name(target) -> str:
    if hasattr(target, "overloadpacket"):
        return f"aten.{target.overloadpacket.__name__}" if "aten" in str(target) else str(target)
    return getattr(target, "__name__", str(target))


# --- handlers ------------------------------------------------------------------
_HANDLERS, _register = registry()


def _handler(target):
    fn = _HANDLERS.get(target)
    if fn is None and hasattr(target, "overloadpacket"):
        fn = _HANDLERS.get(target.overloadpacket)
    return fn


def _binary(arith_f, arith_i, arith_bool=None):
    """arith_f on floats, arith_i on integers, and on booleans arith_bool:
    PyTorch's bool + bool is or, bool * bool is and (not i1's wrapping
    arithmetic); None where PyTorch rejects booleans."""
    def h(L, node, a, b, alpha=1, **kw):
        if kw.get("rounding_mode") not in (None,):
            raise UnsupportedError(f"{_op_name(node.target)} with rounding_mode is not supported")
        if L.out_type(node).elem == "i1" and arith_bool is None:
            raise UnsupportedError(f"{_op_name(node.target)} of booleans is not supported by PyTorch",
                                   ops=[_op_name(node.target)])

        def fn(bb, args, e):
            if e == "i1":
                return bb.op(arith_bool, args, e)
            y = args[1]
            if alpha != 1:
                y = bb.op("arith.mulf" if is_float(e) else "arith.muli", [y, bb.const(alpha, e)], e)
            return bb.op(arith_f if is_float(e) else arith_i, [args[0], y], e)
        return L.pointwise(node, [a, b], fn)
    return h


def _extreme(op_of):
    """maximum / minimum: op_of(elem) is the arith op (unsigned for booleans)."""
    return lambda L, node, a, b: L.pointwise(node, [a, b], lambda bb, x, e: bb.op(op_of(e), x, e))


_register(aten.add)(_binary("arith.addf", "arith.addi", "arith.ori"))
_register(aten.sub)(_binary("arith.subf", "arith.subi"))
_register(aten.mul)(_binary("arith.mulf", "arith.muli", "arith.andi"))
_register(aten.maximum)(_extreme(max_op))
_register(aten.minimum)(_extreme(min_op))


@_register(aten.div)
def _div(L, node, a, b, rounding_mode=None):
    if rounding_mode is not None:
        raise UnsupportedError(f"aten.div with rounding_mode={rounding_mode!r} is not supported")
    return L.pointwise(node, [a, b], lambda bb, x, e: bb.op("arith.divf", x, e))


def _unary(fn_float):
    def h(L, node, a, *rest, **kw):
        return L.pointwise(node, [a], lambda bb, x, e: fn_float(bb, x[0], e))
    return h


_register(aten.neg)(_unary(lambda b, x, e: b.op("arith.negf", [x], e) if is_float(e)
                           else b.op("arith.subi", [b.const(0, e), x], e)))
for _name, _op in [("exp", "math.exp"), ("log", "math.log"), ("sqrt", "math.sqrt"),
                   ("rsqrt", "math.rsqrt"), ("tanh", "math.tanh"), ("erf", "math.erf"),
                   ("sin", "math.sin"), ("cos", "math.cos"), ("floor", "math.floor"),
                   ("ceil", "math.ceil"), ("expm1", "math.expm1"), ("log1p", "math.log1p")]:
    _register(getattr(aten, _name))(_unary(lambda b, x, e, _op=_op: b.op(_op, [x], e)))
_register(aten.abs)(_unary(lambda b, x, e: b.op("math.absf" if is_float(e) else "math.absi", [x], e)))
_register(aten.reciprocal)(_unary(lambda b, x, e: b.op("arith.divf", [b.const(1.0, e), x], e)))
_register(aten.sigmoid)(_unary(lambda b, x, e: b.op(
    "arith.divf", [b.const(1.0, e), b.op("arith.addf", [b.const(1.0, e),
                                                        b.op("math.exp", [b.op("arith.negf", [x], e)], e)], e)], e)))
_register(aten.relu)(_unary(lambda b, x, e: b.op("arith.maximumf", [x, b.const(0.0, e)], e)
                            if is_float(e) else b.op("arith.maxsi", [x, b.const(0, e)], e)))
# Values are immutable SSA tensors: copies are the value itself (results that
# alias get their own copy in FunctionBuilder.set_results).
_register(aten.clone, aten.alias, aten.lift_fresh_copy, aten.detach)(
    lambda L, node, a, **kw: L.value(a))


@_register(aten.gelu)
def _gelu(L, node, a, approximate="none"):
    def fn(b, x, e):
        x = x[0]
        half = b.const(0.5, e)
        one = b.const(1.0, e)
        if approximate == "tanh":
            inner = b.op("arith.mulf", [b.const(math.sqrt(2 / math.pi), e),
                                        b.op("arith.addf", [x, b.op("arith.mulf", [b.const(0.044715, e),
                                             b.op("arith.mulf", [x, b.op("arith.mulf", [x, x], e)], e)], e)], e)], e)
            t = b.op("math.tanh", [inner], e)
        else:
            t = b.op("math.erf", [b.op("arith.mulf", [x, b.const(1 / math.sqrt(2), e)], e)], e)
        return b.op("arith.mulf", [b.op("arith.mulf", [half, x], e), b.op("arith.addf", [one, t], e)], e)
    return L.pointwise(node, [a], fn)


@_register(aten.pow)
def _pow(L, node, a, b):
    if not is_float(L.out_type(node).elem):
        return _int_pow(L, node, a, b)
    if isinstance(b, (int, float)) and float(b) == 2.0:
        return L.pointwise(node, [a], lambda bb, x, e: bb.op("arith.mulf", [x[0], x[0]], e))
    if isinstance(b, (int, float)) and float(b) == 0.5:
        return L.pointwise(node, [a], lambda bb, x, e: bb.op("math.sqrt", [x[0]], e))
    return L.pointwise(node, [a, b], lambda bb, x, e: bb.op("math.powf", x, e))


def _int_pow(L, node, a, b):
    """An integer power: repeated multiplies by a constant exponent (math.powf
    takes floats only, and nothing lowers math.ipowi everywhere)."""
    if isinstance(b, bool) or not isinstance(b, int) or b < 0 or not isinstance(a, torch.fx.Node):
        raise UnsupportedError(f"{_op_name(node.target)} of integers is supported with a constant "
                               f"non-negative integer exponent only ({node.format_node()})",
                               ops=[_op_name(node.target)])

    def fn(bb, x, e):
        r = bb.const(1, e)
        for _ in range(b):
            r = bb.op("arith.muli", [r, x[0]], e)
        return r
    return L.pointwise(node, [a], fn)


def _clamp_body(lo, hi):
    def fn(b, x, e):
        y = x[0]
        if lo is not None:
            y = b.op(max_op(e), [y, b.const(lo, e)], e)
        if hi is not None:
            y = b.op(min_op(e), [y, b.const(hi, e)], e)
        return y
    return fn


@_register(aten.clamp)
def _clamp(L, node, a, min=None, max=None):
    return L.pointwise(node, [a], _clamp_body(min, max))


_register(aten.clamp_min)(lambda L, node, a, lo: L.pointwise(node, [a], _clamp_body(lo, None)))
_register(aten.clamp_max)(lambda L, node, a, hi: L.pointwise(node, [a], _clamp_body(None, hi)))
_register(aten.hardtanh)(lambda L, node, a, lo=-1.0, hi=1.0: L.pointwise(node, [a], _clamp_body(lo, hi)))


def _compare(pred_f, pred_i):
    def h(L, node, a, b):
        return _compare_emit(L, node, [a, b], L.promoted_elem(node), pred_f, pred_i)
    return h


def _compare_emit(L, node, operands, ce, pred_f, pred_i):
    vals = [L.value(x, ce) for x in operands]
    out = L.out_type(node)

    def body(b, args):
        cargs = [convert_scalar(b, a, v.elem, ce) for a, v in zip(args, vals)]
        return b.op("arith.cmpf" if is_float(ce) else "arith.cmpi", cargs, ce,
                    attrs=pred_f if is_float(ce) else int_predicate(pred_i, ce))
    return L.f.elementwise(vals, "i1", body, out_shape=out.shape)


for _name, _pf, _pi in [("gt", "ogt", "sgt"), ("ge", "oge", "sge"), ("lt", "olt", "slt"),
                        ("le", "ole", "sle"), ("eq", "oeq", "eq"), ("ne", "une", "ne")]:
    _register(getattr(aten, _name))(_compare(_pf, _pi))


@_register(aten.where)
def _where(L, node, cond, a, b):
    out = L.out_type(node)
    c = L.value(cond, "i1")
    va, vb = L.value(a, out.elem), L.value(b, out.elem)

    def body(bb, args):
        x = convert_scalar(bb, args[1], va.elem, out.elem)
        y = convert_scalar(bb, args[2], vb.elem, out.elem)
        return bb.op("arith.select", [args[0], x, y], out.elem)
    return L.f.elementwise([c, va, vb], out.elem, body, out_shape=out.shape)


@_register(aten.logical_not)
def _logical_not(L, node, a):
    v = L.value(a)
    return L.f.elementwise([v], "i1", lambda b, x: b.op(
        "arith.xori", [convert_scalar(b, x[0], v.elem, "i1"), b.const(True, "i1")], "i1"))


@_register(aten._to_copy)
def _to_copy(L, node, a, **kw):
    out = L.out_type(node)
    return L.f.cast(L.value(a), out.elem)


@_register(aten.full)
def _full(L, node, size, value, **kw):
    out = L.out_type(node)
    return L.f.full(out.shape, value, out.elem)


@_register(aten.full_like)
def _full_like(L, node, a, value, **kw):
    out = L.out_type(node)
    return L.f.full(out.shape, value, out.elem)


@_register(aten.any, aten.all)
def _any_all(L, node, a, dim=None, keepdim=False):
    v = L.f.cast(L.value(a), "i1")
    is_any = node.target.overloadpacket is aten.any
    r = L.f.reduce(v, _dims(v, dim), not is_any, "arith.ori" if is_any else "arith.andi")
    return L.f.reshape(r, L.out_type(node).shape)


@_register(aten.scalar_tensor)
def _scalar_tensor(L, node, value, **kw):
    out = L.out_type(node)
    return L.f.full((), value, out.elem)


@_register(aten.empty, aten.empty_strided)
def _empty(L, node, *a, **kw):
    out = L.out_type(node)
    return L.f.full(out.shape, 0, out.elem)


# shapes
@_register(aten.view, aten._unsafe_view, aten.reshape, aten.squeeze, aten.unsqueeze,
           aten.flatten)
def _view(L, node, a, *rest, **kw):
    return L.f.reshape(L.value(a), L.out_type(node).shape)


@_register(aten.permute)
def _permute(L, node, a, perm):
    return L.f.transpose(L.value(a), perm)


@_register(aten.t)
def _t(L, node, a):
    v = L.value(a)
    return L.f.transpose(v, [1, 0]) if v.rank == 2 else v


@_register(aten.transpose)
def _transpose(L, node, a, d0, d1):
    v = L.value(a)
    perm = list(range(v.rank))
    perm[d0 % v.rank], perm[d1 % v.rank] = perm[d1 % v.rank], perm[d0 % v.rank]
    return L.f.transpose(v, perm)


@_register(aten.expand)
def _expand(L, node, a, size, **kw):
    return L.f.broadcast_to(L.value(a), L.out_type(node).shape)


@_register(aten.slice)
def _slice(L, node, a, dim=0, start=None, end=None, step=1):
    v = L.value(a)
    dim %= v.rank
    n = v.shape[dim]
    start = 0 if start is None else start
    end = n if end is None else end
    start = max(0, min(n, start + n if start < 0 else start))
    end = max(start, min(n, end + n if end < 0 else end))
    offs, sizes, strides = [0] * v.rank, list(v.shape), [1] * v.rank
    offs[dim] = start
    sizes[dim] = len(range(start, end, step))
    strides[dim] = step
    return L.f.slice(v, offs, sizes, strides)


@_register(aten.select)
def _select(L, node, a, dim, index):
    v = L.value(a)
    dim %= v.rank
    index = index + v.shape[dim] if index < 0 else index
    offs, sizes = [0] * v.rank, list(v.shape)
    offs[dim] = index
    sizes[dim] = 1
    s = L.f.slice(v, offs, sizes, [1] * v.rank)
    return L.f.reshape(s, L.out_type(node).shape)


@_register(aten.cat)
def _cat(L, node, tensors, dim=0):
    vals = [L.value(t) for t in tensors if _static_shape(t) != (0,)]
    return L.f.concat(vals, dim)


@_register(aten.split_with_sizes, aten.split)
def _split(L, node, a, sizes, dim=0):
    v = L.value(a)
    dim %= v.rank
    if isinstance(sizes, int):
        n = v.shape[dim]
        sizes = [min(sizes, n - i) for i in range(0, n, sizes)]
    outs, off = [], 0
    for s in sizes:
        offs, shape = [0] * v.rank, list(v.shape)
        offs[dim], shape[dim] = off, s
        outs.append(L.f.slice(v, offs, shape, [1] * v.rank))
        off += s
    return tuple(outs)


@_register(aten.constant_pad_nd)
def _pad(L, node, a, pad, value=0):
    v = L.value(a)
    low, high = [0] * v.rank, [0] * v.rank
    for i in range(len(pad) // 2):
        d = v.rank - 1 - i
        low[d], high[d] = pad[2 * i], pad[2 * i + 1]
    if any(x < 0 for x in low + high):
        raise UnsupportedError("aten.constant_pad_nd with negative padding is not supported")
    return L.f.pad(v, low, high, value)


# contractions
@_register(aten.mm, aten.bmm)
def _mm(L, node, a, b):
    return L.f.matmul(L.value(a), L.value(b))


@_register(aten.addmm)
def _addmm(L, node, bias, a, b, beta=1, alpha=1):
    m = L.f.matmul(L.value(a), L.value(b))
    out = L.out_type(node)
    bv = L.value(bias, out.elem)

    def body(bb, args):
        x, y = args
        if alpha != 1:
            x = bb.op("arith.mulf", [x, bb.const(alpha, out.elem)], out.elem)
        if beta != 1:
            y = bb.op("arith.mulf", [y, bb.const(beta, out.elem)], out.elem)
        return bb.op("arith.addf", [x, y], out.elem)
    return L.f.elementwise([m, bv], out.elem, body, out_shape=out.shape)


@_register(aten.convolution)
def _convolution(L, node, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    if transposed:
        raise UnsupportedError("aten.convolution: transposed convolution is not supported",
                               ops=["aten.convolution (transposed)"])
    xv, wv = L.value(x), L.value(w)
    if xv.rank != 4:
        raise UnsupportedError(f"aten.convolution: only 2-D convolutions are supported "
                               f"(input {xv.type})", ops=["aten.convolution (not 2-D)"])
    padded = L.f.pad(xv, [0, 0, padding[0], padding[1]], [0, 0, padding[0], padding[1]], 0)
    y = L.f.conv2d_nchw(padded, wv, stride, dilation, groups)
    if bias is not None:
        bv = L.f.reshape(L.value(bias), (wv.shape[0], 1, 1))
        y = L.f.elementwise([y, bv], y.elem, lambda b, a: b.op("arith.addf", a, y.elem))
    return y


@_register(aten._native_batch_norm_legit_no_training)
def _batch_norm(L, node, x, weight, bias, mean, var, momentum, eps):
    xv = L.value(x)
    c = xv.shape[1]
    bshape = (c,) + (1,) * (xv.rank - 2)
    e = xv.elem
    ops = [xv, L.f.reshape(L.value(mean), bshape), L.f.reshape(L.value(var), bshape)]
    has_w, has_b = weight is not None, bias is not None
    if has_w:
        ops.append(L.f.reshape(L.value(weight), bshape))
    if has_b:
        ops.append(L.f.reshape(L.value(bias), bshape))

    def body(b, a):
        y = b.op("arith.mulf", [b.op("arith.subf", [a[0], a[1]], e),
                                b.op("math.rsqrt", [b.op("arith.addf", [a[2], b.const(eps, e)], e)], e)], e)
        k = 3
        if has_w:
            y = b.op("arith.mulf", [y, a[k]], e)
            k += 1
        if has_b:
            y = b.op("arith.addf", [y, a[k]], e)
        return y
    out = L.f.elementwise(ops, e, body, out_shape=xv.shape)
    empty = L.f.full((0,), 0, e)
    return (out, empty, empty)


def _pool_padding(L, xv, kernel, stride, padding, ceil_mode, value):
    kh, kw = kernel
    sh, sw = stride
    ph, pw = padding
    h, w = xv.shape[2], xv.shape[3]
    extra = [0, 0]
    if ceil_mode:
        for i, (n, k, s, p) in enumerate([(h, kh, sh, ph), (w, kw, sw, pw)]):
            out = -(-(n + 2 * p - k) // s) + 1
            if (out - 1) * s >= n + p:
                out -= 1
            extra[i] = max(0, (out - 1) * s + k - (n + 2 * p))
    return L.f.pad(xv, [0, 0, ph, pw], [0, 0, ph + extra[0], pw + extra[1]], value)


@_register(aten.max_pool2d_with_indices)
def _max_pool(L, node, x, kernel, stride=(), padding=(0, 0), dilation=(1, 1), ceil_mode=False):
    for user in node.users:
        if user.target is operator.getitem and user.args[1] == 1 and user.users:
            raise UnsupportedError("aten.max_pool2d_with_indices: the indices output is not supported",
                                   ops=["aten.max_pool2d_with_indices (indices)"])
    xv = L.value(x)
    stride = stride or kernel
    kernel, stride = _pair(kernel), _pair(stride)
    padding, dilation = _pair(padding), _pair(dilation)
    padded = _pool_padding(L, xv, kernel, stride, padding, ceil_mode, lowest(xv.elem))
    return (L.f.pool2d_nchw(padded, kernel, stride, dilation, "max"), None)


def _pair(x):
    x = list(x) if isinstance(x, (list, tuple)) else [x]
    return tuple(x * 2 if len(x) == 1 else x)


@_register(aten.avg_pool2d)
def _avg_pool(L, node, x, kernel, stride=(), padding=(0, 0), ceil_mode=False,
              count_include_pad=True, divisor_override=None):
    xv = L.value(x)
    kernel = _pair(kernel)
    stride = _pair(stride or kernel)
    padding = _pair(padding)
    if (not count_include_pad and any(padding)) or ceil_mode:
        raise UnsupportedError("aten.avg_pool2d with ceil_mode or count_include_pad=False and "
                               "padding is not supported", ops=["aten.avg_pool2d"])
    padded = L.f.pad(xv, [0, 0, padding[0], padding[1]], [0, 0, padding[0], padding[1]], 0)
    s = L.f.pool2d_nchw(padded, kernel, stride, (1, 1), "sum")
    div = divisor_override or kernel[0] * kernel[1]
    e = xv.elem
    return L.f.elementwise([s], e, lambda b, a: b.op("arith.divf", [a[0], b.const(div, e)], e))


@_register(aten._adaptive_avg_pool2d, aten.adaptive_avg_pool2d)
def _adaptive_avg_pool(L, node, x, output_size):
    xv = L.value(x)
    oh, ow = _pair(output_size)
    h, w = xv.shape[-2:]
    if h % oh or w % ow:
        raise UnsupportedError("aten._adaptive_avg_pool2d with an output size that does not divide "
                               "the input is not supported", ops=["aten._adaptive_avg_pool2d"])
    k = (h // oh, w // ow)
    s = L.f.pool2d_nchw(xv, k, k, (1, 1), "sum")
    e = xv.elem
    return L.f.elementwise([s], e, lambda b, a: b.op("arith.divf", [a[0], b.const(k[0] * k[1], e)], e))


# reductions
def _dims(v, dim):
    if dim is None or dim == []:
        return list(range(v.rank))
    return [dim] if isinstance(dim, int) else list(dim)


@_register(aten.sum)
def _sum(L, node, a, dim=None, keepdim=False, dtype=None):
    v = L.value(a)
    out = L.out_type(node)
    return L.f.reshape(L.f.reduce(v, _dims(v, dim), 0, "arith.addf" if is_float(out.elem) else "arith.addi",
                                  out_elem=out.elem), out.shape)


@_register(aten.mean)
def _mean(L, node, a, dim=None, keepdim=False, dtype=None):
    v = L.value(a)
    out = L.out_type(node)
    return L.f.reshape(L.f.mean(v, _dims(v, dim), out_elem=out.elem), out.shape)


def _minmax(kind):
    def h(L, node, a, dim=None, keepdim=False):
        v = L.value(a)
        out = L.out_type(node)
        init, op = extreme_reduction(kind, v.elem)
        return L.f.reshape(L.f.reduce(v, _dims(v, dim), init, op), out.shape)
    return h


_register(aten.amax)(_minmax("max"))
_register(aten.amin)(_minmax("min"))


def _arg(largest):
    def h(L, node, a, dim=None, keepdim=False):
        v = L.value(a)
        if v.elem == "i1":
            # Eager PyTorch raises for booleans; a traced graph must not differ.
            raise UnsupportedError(f"{node.target}: argmax and argmin of booleans are not "
                                   "supported by PyTorch")
        out = L.out_type(node)
        r = L.f.arg_reduce(v, dim, largest, index_elem=out.elem)
        return L.f.reshape(r, out.shape)
    return h


_register(aten.argmax)(_arg(True))
_register(aten.argmin)(_arg(False))


@_register(aten.var)
def _var(L, node, a, dim=None, correction=None, keepdim=False, **kw):
    v = L.value(a)
    out = L.out_type(node)
    dims = _dims(v, dim)
    count = 1
    for d in dims:
        count *= v.shape[d]
    corr = 1 if correction is None else correction
    e = v.elem
    mean = L.f.mean(v, dims, keepdim=True)
    sq = L.f.elementwise([v, mean], e, lambda b, x: b.op(
        "arith.mulf", [b.op("arith.subf", x, e), b.op("arith.subf", x, e)], e))
    s = L.f.reduce(sq, dims, 0, "arith.addf")
    s = L.f.elementwise([s], e, lambda b, x: b.op("arith.divf", [x[0], b.const(max(count - corr, 0), e)], e))
    return L.f.reshape(s, out.shape)


def _softmax_impl(L, node, a, dim, log):
    v = L.value(a)
    e = L.out_type(node).elem
    v = L.f.cast(v, e)
    dim %= v.rank
    m = L.f.reduce(v, [dim], -math.inf, "arith.maximumf", keepdim=True)
    ex = L.f.elementwise([v, m], e, lambda b, x: b.op("math.exp", [b.op("arith.subf", x, e)], e))
    s = L.f.reduce(ex, [dim], 0.0, "arith.addf", keepdim=True)
    if log:
        return L.f.elementwise([v, m, s], e, lambda b, x: b.op(
            "arith.subf", [b.op("arith.subf", [x[0], x[1]], e), b.op("math.log", [x[2]], e)], e))
    return L.f.elementwise([ex, s], e, lambda b, x: b.op("arith.divf", x, e))


_register(aten._softmax)(lambda L, node, a, dim, half_to_float=False: _softmax_impl(L, node, a, dim, False))
_register(aten._log_softmax)(lambda L, node, a, dim, half_to_float=False: _softmax_impl(L, node, a, dim, True))


@_register(aten.native_layer_norm)
def _layer_norm(L, node, x, normalized_shape, weight, bias, eps):
    v = L.value(x)
    e = v.elem
    k = len(normalized_shape)
    dims = list(range(v.rank - k, v.rank))
    count = 1
    for d in dims:
        count *= v.shape[d]
    mean = L.f.mean(v, dims, keepdim=True)
    centered = L.f.elementwise([v, mean], e, lambda b, a: b.op("arith.subf", a, e))
    var = L.f.reduce(L.f.elementwise([centered], e, lambda b, a: b.op("arith.mulf", [a[0], a[0]], e)),
                     dims, 0.0, "arith.addf", keepdim=True)
    rstd = L.f.elementwise([var], e, lambda b, a: b.op(
        "math.rsqrt", [b.op("arith.addf", [b.op("arith.divf", [a[0], b.const(count, e)], e),
                                           b.const(eps, e)], e)], e))
    ops = [centered, rstd]
    if weight is not None:
        ops.append(L.value(weight))
    if bias is not None:
        ops.append(L.value(bias))

    def body(b, a):
        y = b.op("arith.mulf", [a[0], a[1]], e)
        i = 2
        if weight is not None:
            y = b.op("arith.mulf", [y, a[i]], e)
            i += 1
        if bias is not None:
            y = b.op("arith.addf", [y, a[i]], e)
        return y
    out = L.f.elementwise(ops, e, body, out_shape=v.shape)
    return (out, mean, rstd)


def lower_graph(gm: torch.fx.GraphModule, name: str):
    """ATen FX graph -> (MLIR text, arg types, result types, output plan).

    The output plan maps each graph output to ('result', i), ('input', j),
    ('none',) or ('scalar', value)."""
    L = _Lowering(gm, name)
    outputs = L.run()
    flat = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    plan, results = [], []
    for o in flat:
        if o is None:
            plan.append(("none",))
        elif isinstance(o, torch.fx.Node) and o.op == "placeholder":
            plan.append(("input", placeholders.index(o)))
        elif isinstance(o, torch.fx.Node):
            v = L.env[o]
            if v is None:
                plan.append(("none",))
                continue
            plan.append(("result", len(results)))
            results.append(v)
        else:
            plan.append(("scalar", o))
    L.f.set_results(results)
    return (L.module.text(), [a.type for a in L.f.args], [r.type for r in L.f.results], plan)

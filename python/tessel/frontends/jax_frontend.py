"""JAX: `@tessel.jit_jax` traces the function to a jaxpr (jax.make_jaxpr,
with static_argnums as compile-time constants) and translates it to
linalg-on-tensors MLIR. Arguments stay function arguments; values the
function closes over become constants (dense resources).
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from . import registry, static_key
from .._native import aligned_empty
from ..compiler import CompileOptions, compile_module
from ..mlir import (FunctionBuilder, ModuleBuilder, UnsupportedError, contiguous, convert_scalar,
                    extreme_reduction, int_predicate, is_float, lowest, max_op, min_op,
                    mlir_to_np_dtype, np_dtype_to_mlir)


def _elem(aval) -> str:
    return np_dtype_to_mlir(np.dtype(aval.dtype))


class _Lowering:
    def __init__(self, name):
        self.module = ModuleBuilder()
        self.f: FunctionBuilder = self.module.function(name)
        self.literals: dict = {}  # value name -> Python scalar, for literal operands

    def run(self, closed, arg_avals):
        jaxpr = closed.jaxpr
        env = {}
        for v, aval in zip(jaxpr.invars, arg_avals):
            env[v] = self.f.add_argument(aval.shape, _elem(aval))
        for v, c in zip(jaxpr.constvars, closed.consts):
            env[v] = self.f.constant(np.asarray(c))
        outs = self.jaxpr(jaxpr, env)
        return outs

    def read(self, env, x):
        from jax.extend.core import Literal
        if isinstance(x, Literal):
            v = self.f.constant(np.asarray(x.val, dtype=x.aval.dtype))
            self.literals[v.name] = np.asarray(x.val).item()
            return v
        return env[x]

    def jaxpr(self, jaxpr, env):
        unsupported = sorted({e.primitive.name for e in _walk(jaxpr) if e.primitive.name not in _RULES})
        if unsupported:
            raise UnsupportedError("Tessel does not support the JAX primitive(s) " + ", ".join(unsupported),
                                   ops=unsupported)
        for eqn in jaxpr.eqns:
            ins = [self.read(env, x) for x in eqn.invars]
            try:
                outs = _RULES[eqn.primitive.name](self, eqn, *ins, **eqn.params)
            except UnsupportedError:
                raise
            except Exception as e:
                raise UnsupportedError(f"JAX primitive {eqn.primitive.name}: {e}",
                                       ops=[eqn.primitive.name]) from e
            if not eqn.primitive.multiple_results:
                outs = [outs]
            for v, o in zip(eqn.outvars, outs):
                env[v] = o
        return [self.read(env, v) for v in jaxpr.outvars]


def _walk(jaxpr):
    for e in jaxpr.eqns:
        yield e
        for sub in _subjaxprs(e):
            yield from _walk(sub)


def _subjaxprs(eqn):
    for name in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        j = eqn.params.get(name)
        if j is not None:
            yield getattr(j, "jaxpr", j)


_RULES, rule = registry()


def _out(eqn, i=0):
    aval = eqn.outvars[i].aval
    return tuple(aval.shape), _elem(aval)


def _pointwise(L, eqn, vals, fn):
    shape, elem = _out(eqn)
    ce = vals[0].elem if vals else elem

    def body(b, args):
        cargs = [convert_scalar(b, a, v.elem, ce) for a, v in zip(args, vals)]
        r = fn(b, cargs, ce)
        return convert_scalar(b, r, ce, elem) if elem != ce and not elem == "i1" else r
    return L.f.elementwise(vals, elem, body, out_shape=shape)


def _bin(fop, iop):
    return lambda L, eqn, x, y, **p: _pointwise(
        L, eqn, [x, y], lambda b, a, e: b.op(fop if is_float(e) else iop, a, e))


rule("add", "add_any")(_bin("arith.addf", "arith.addi"))
rule("sub")(_bin("arith.subf", "arith.subi"))
rule("mul")(_bin("arith.mulf", "arith.muli"))
rule("div")(_bin("arith.divf", "arith.divsi"))
rule("max")(lambda L, eqn, x, y, **p: _pointwise(L, eqn, [x, y], lambda b, a, e: b.op(max_op(e), a, e)))
rule("min")(lambda L, eqn, x, y, **p: _pointwise(L, eqn, [x, y], lambda b, a, e: b.op(min_op(e), a, e)))
rule("pow")(_bin("math.powf", "math.ipowi"))

for _n, _m in [("exp", "math.exp"), ("log", "math.log"), ("sqrt", "math.sqrt"), ("rsqrt", "math.rsqrt"),
               ("tanh", "math.tanh"), ("erf", "math.erf"), ("erfc", "math.erfc"), ("sin", "math.sin"), ("cos", "math.cos"),
               ("floor", "math.floor"), ("ceil", "math.ceil"),
               ("log1p", "math.log1p"), ("expm1", "math.expm1")]:
    rule(_n)(lambda L, eqn, x, _m=_m, **p: _pointwise(L, eqn, [x], lambda b, a, e: b.op(_m, a, e)))
rule("abs")(lambda L, eqn, x, **p: _pointwise(L, eqn, [x], lambda b, a, e: b.op(
    "math.absf" if is_float(e) else "math.absi", a, e)))
rule("neg")(lambda L, eqn, x, **p: _pointwise(L, eqn, [x], lambda b, a, e: b.op("arith.negf", a, e)
                                              if is_float(e) else b.op("arith.subi", [b.const(0, e), a[0]], e)))
rule("logistic")(lambda L, eqn, x, **p: _pointwise(L, eqn, [x], lambda b, a, e: b.op(
    "arith.divf", [b.const(1.0, e), b.op("arith.addf", [b.const(1.0, e), b.op(
        "math.exp", [b.op("arith.negf", a, e)], e)], e)], e)))
rule("square")(lambda L, eqn, x, **p: _pointwise(L, eqn, [x], lambda b, a, e: b.op(
    "arith.mulf" if is_float(e) else "arith.muli", [a[0], a[0]], e)))


@rule("integer_pow")
def _ipow(L, eqn, x, y):
    if y < 0 and not is_float(x.elem):
        raise UnsupportedError(f"integer_pow of {x.elem} to the negative power {y} is not supported",
                               ops=["integer_pow"])

    def fn(b, a, e):
        mul = "arith.mulf" if is_float(e) else "arith.muli"
        r = b.const(1, e)
        for _ in range(abs(y)):
            r = b.op(mul, [r, a[0]], e)
        return b.op("arith.divf", [b.const(1.0, e), r], e) if y < 0 else r
    return _pointwise(L, eqn, [x], fn)


def _cmp(pf, pi):
    def h(L, eqn, x, y, **p):
        ce = x.elem
        return L.f.elementwise([x, y], "i1", lambda b, a: b.op(
            "arith.cmpf" if is_float(ce) else "arith.cmpi", a, ce,
            attrs=pf if is_float(ce) else int_predicate(pi, ce)), out_shape=_out(eqn)[0])
    return h


for _n, _pf, _pi in [("gt", "ogt", "sgt"), ("ge", "oge", "sge"), ("lt", "olt", "slt"),
                     ("le", "ole", "sle"), ("eq", "oeq", "eq"), ("ne", "une", "ne")]:
    rule(_n)(_cmp(_pf, _pi))


@rule("select_n")
def _select_n(L, eqn, pred, *cases):
    if len(cases) != 2:
        raise UnsupportedError("select_n with more than two cases is not supported", ops=["select_n"])
    shape, elem = _out(eqn)
    p = L.f.cast(pred, "i1")
    # select_n(p, a, b) is b where p else a.
    return L.f.elementwise([p, cases[0], cases[1]], elem,
                           lambda b, a: b.op("arith.select", [a[0], a[2], a[1]], elem), out_shape=shape)


@rule("convert_element_type")
def _convert(L, eqn, x, new_dtype=None, **p):
    return L.f.cast(x, _out(eqn)[1])


@rule("copy", "copy_p", "stop_gradient", "optimization_barrier")
def _identity(L, eqn, *xs, **p):
    return xs[0] if len(xs) == 1 and not eqn.primitive.multiple_results else list(xs)


@rule("broadcast_in_dim")
def _broadcast_in_dim(L, eqn, x, shape, broadcast_dimensions, **p):
    shape = tuple(shape)
    # Put x's dims at their output positions (size-1 elsewhere), then broadcast.
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return L.f.broadcast_to(L.f.reshape(x, expanded), shape)


@rule("reshape")
def _reshape(L, eqn, x, new_sizes, dimensions=None, **p):
    if dimensions is not None:
        x = L.f.transpose(x, dimensions)
    return L.f.reshape(x, new_sizes)


rule("squeeze")(lambda L, eqn, x, dimensions: L.f.reshape(x, _out(eqn)[0]))
rule("expand_dims")(lambda L, eqn, x, dimensions: L.f.reshape(x, _out(eqn)[0]))
rule("transpose")(lambda L, eqn, x, permutation: L.f.transpose(x, permutation))


@rule("slice")
def _slice(L, eqn, x, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * x.rank
    sizes = [len(range(s, e, st)) for s, e, st in zip(start_indices, limit_indices, strides)]
    return L.f.slice(x, start_indices, sizes, strides)


@rule("concatenate")
def _concat(L, eqn, *xs, dimension):
    return L.f.concat(list(xs), dimension)


@rule("pad")
def _pad(L, eqn, x, padding_value, padding_config):
    if any(i != 0 or lo < 0 or hi < 0 for lo, hi, i in padding_config):
        raise UnsupportedError("pad with interior or negative padding is not supported", ops=["pad"])
    if padding_value.name not in L.literals:
        raise UnsupportedError("pad with a padding value computed at run time is not supported",
                               ops=["pad"])
    v = L.literals[padding_value.name]
    return L.f.pad(x, [c[0] for c in padding_config], [c[1] for c in padding_config], v)


def _reduce(kind):
    """kind: 'sum', 'max' or 'min'; over booleans max is any, min is all
    (reduce_or and reduce_and, jnp.any and jnp.all, are those)."""
    def h(L, eqn, x, axes, **p):
        shape, elem = _out(eqn)
        if eqn.primitive.name in ("reduce_or", "reduce_and") and elem != "i1":
            raise UnsupportedError(f"{eqn.primitive.name} of {elem} (bitwise) is not supported",
                                   ops=[eqn.primitive.name])
        if kind == "sum":
            init, op = 0, "arith.addf" if is_float(elem) else "arith.addi"
        else:
            init, op = extreme_reduction(kind, elem)
        return L.f.reshape(L.f.reduce(x, list(axes), init, op), shape)
    return h


rule("reduce_sum")(_reduce("sum"))
rule("reduce_max", "reduce_or")(_reduce("max"))
rule("reduce_min", "reduce_and")(_reduce("min"))


def _arg(largest):
    def h(L, eqn, x, axes, index_dtype, **p):
        shape, elem = _out(eqn)
        (axis,) = axes
        return L.f.reshape(L.f.arg_reduce(x, axis, largest, index_elem=elem), shape)
    return h


rule("argmax")(_arg(True))
rule("argmin")(_arg(False))


@rule("dot_general")
def _dot_general(L, eqn, a, b, dimension_numbers, preferred_element_type=None, **p):
    (ca, cb), (ba, bb) = dimension_numbers
    shape, elem = _out(eqn)
    a, b = L.f.cast(a, elem), L.f.cast(b, elem)
    fa = [d for d in range(a.rank) if d not in ca and d not in ba]
    fb = [d for d in range(b.rank) if d not in cb and d not in bb]
    # Canonical [B, M, K] x [B, K, N] through transposes and reshapes.
    prod = lambda dims, v: int(np.prod([v.shape[d] for d in dims])) if dims else 1
    A = L.f.reshape(L.f.transpose(a, list(ba) + fa + list(ca)), (prod(ba, a), prod(fa, a), prod(ca, a)))
    B = L.f.reshape(L.f.transpose(b, list(bb) + list(cb) + fb), (prod(bb, b), prod(cb, b), prod(fb, b)))
    if A.shape[0] == 1:
        r = L.f.matmul(L.f.reshape(A, A.shape[1:]), L.f.reshape(B, B.shape[1:]))
    else:
        r = L.f.matmul(A, B)
    return L.f.reshape(r, shape)


@rule("conv_general_dilated")
def _conv(L, eqn, x, w, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
          feature_group_count, batch_group_count, **p):
    if any(d != 1 for d in lhs_dilation) or batch_group_count != 1 or x.rank != 4:
        raise UnsupportedError("conv_general_dilated: only 2-D convolutions without lhs dilation or "
                               "batch groups are supported", ops=["conv_general_dilated"])
    lhs, rhs, out = dimension_numbers.lhs_spec, dimension_numbers.rhs_spec, dimension_numbers.out_spec
    # Specs list (batch/out-feature, feature/in-feature, spatial...) positions.
    (plh, phh), (plw, phw) = padding
    if min(plh, phh, plw, phw) < 0:
        raise UnsupportedError("conv_general_dilated: negative padding", ops=["conv_general_dilated"])
    if feature_group_count == 1 and lhs[1] == 3 and (x.shape[3], w.shape[rhs[0]]) != (1, 1):
        # Channels last (NHWC / HWIO): Tessel's kernels take it as it is.
        # (One input and one output channel is a stencil, below: its NCHW
        # views are reshapes of NHWC.)
        xh = L.f.transpose(x, [lhs[0], lhs[2], lhs[3], lhs[1]])   # -> N, H, W, C
        wh = L.f.transpose(w, [rhs[2], rhs[3], rhs[1], rhs[0]])   # -> KH, KW, C, F
        xh = L.f.pad(xh, [0, plh, plw, 0], [0, phh, phw, 0], 0)
        y = L.f.conv2d_nhwc(xh, wh, window_strides, rhs_dilation)
        nhwc = [0, 2, 3, 1]  # logical (batch, feature, spatial...) order of y's dims
        return L.f.transpose(y, [nhwc.index(list(out).index(i)) for i in range(4)])
    xn = L.f.transpose(x, list(lhs))        # -> N, C, H, W
    wn = L.f.transpose(w, list(rhs))        # -> F, C/g, KH, KW
    xn = L.f.pad(xn, [0, 0, plh, plw], [0, 0, phh, phw], 0)
    y = L.f.conv2d_nchw(xn, wn, window_strides, rhs_dilation, feature_group_count)
    inv = [0] * 4
    for i, d in enumerate(out):
        inv[d] = i
    return L.f.transpose(y, inv)


@rule("reduce_window_max", "reduce_window_sum")
def _reduce_window(L, eqn, x, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
    if x.rank != 4 or window_dimensions[0] != 1 or any(d != 1 for d in base_dilation):
        raise UnsupportedError(f"{eqn.primitive.name}: only 2-D windows over NHWC or NCHW are supported",
                               ops=[eqn.primitive.name])
    # Windows over dims 2,3 (NCHW) or 1,2 (NHWC).
    spatial = [d for d in range(4) if window_dimensions[d] != 1 or window_strides[d] != 1]
    kind = "max" if eqn.primitive.name.endswith("max") else "sum"
    fill = lowest(x.elem) if kind == "max" else 0
    if spatial and max(spatial) <= 2 and window_dimensions[3] == 1:
        # NHWC as it is.
        xh = L.f.pad(x, [q[0] for q in padding], [q[1] for q in padding], fill)
        return L.f.pool2d_nhwc(xh, window_dimensions[1:3], window_strides[1:3], window_dilation[1:3], kind)
    if window_dimensions[1] != 1 or window_strides[1] != 1:
        raise UnsupportedError(f"{eqn.primitive.name}: windows over the channel dimension are not "
                               "supported", ops=[eqn.primitive.name])
    xn = L.f.pad(x, [q[0] for q in padding], [q[1] for q in padding], fill)
    return L.f.pool2d_nchw(xn, window_dimensions[2:], window_strides[2:], window_dilation[2:], kind)


@rule("pjit", "closed_call", "core_call", "custom_jvp_call", "custom_vjp_call", "remat", "checkpoint",
      "jit")
def _call(L, eqn, *xs, **params):
    sub = params.get("jaxpr") or params.get("call_jaxpr") or params.get("fun_jaxpr")
    closed = sub
    inner = getattr(sub, "jaxpr", sub)
    env = {}
    for v, x in zip(inner.invars, xs):
        env[v] = x
    for v, c in zip(inner.constvars, getattr(closed, "consts", [])):
        env[v] = L.f.constant(np.asarray(c))
    return L.jaxpr(inner, env)


def lower(fn, args, static_argnums, name="main"):
    import jax
    closed = jax.make_jaxpr(fn, static_argnums=static_argnums)(*args)
    avals = [v.aval for v in closed.jaxpr.invars]
    L = _Lowering(name)
    outs = L.run(closed, avals)
    L.f.set_results(outs)
    out_tree = jax.tree_util.tree_structure(
        jax.eval_shape(functools.partial(_call_static, fn, static_argnums, args), *_dyn(args, static_argnums)))
    return L.module.text(), [a.type for a in L.f.args], [r.type for r in L.f.results], out_tree


def _dyn(args, static_argnums):
    return [a for i, a in enumerate(args) if i not in static_argnums]


def _call_static(fn, static_argnums, args, *dyn):
    it = iter(dyn)
    full = [args[i] if i in static_argnums else next(it) for i in range(len(args))]
    return fn(*full)


def _positional(f, args, kwargs) -> tuple:
    """The call's arguments in positional order: keyword arguments bound
    to their parameters' positions (static_argnums count positions), a
    parameter left out before one given by keyword taking its default."""
    if not kwargs:
        return tuple(args)
    name = getattr(f, "__name__", "function")
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: tessel.jit_jax cannot bind keyword arguments without the "
                        "function's signature; pass them positionally") from None
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:  # a call the function itself would refuse
        raise TypeError(f"{name}(): {e}") from None
    params = list(sig.parameters.values())
    others = sorted(set(kwargs) - {p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD})
    if others:
        raise TypeError(f"{name}: tessel.jit_jax passes arguments positionally; keyword-only "
                        f"arguments ({', '.join(others)}) are not supported")
    last = max(i for i, p in enumerate(params) if p.name in bound.arguments)
    return tuple(bound.arguments.get(p.name, p.default) for p in params[:last + 1])


def jit_jax(fn=None, *, compile_options=None):
    options = CompileOptions.from_dict(compile_options, "jax")

    def wrap(f):
        import jax
        if options.execution_backend == "std":
            return f
        if options.execution_backend == "xla":
            return jax.jit(f, static_argnums=options.static_argnums)
        compiled = {}

        @functools.wraps(f)
        def call(*args, **kwargs):
            args = _positional(f, args, kwargs)
            static = options.static_argnums
            key_parts = []
            for i, a in enumerate(args):
                if i in static:
                    key_parts.append(("static", static_key(a)))
                else:
                    leaves, tree = jax.tree_util.tree_flatten(a)
                    key_parts.append((tree, tuple((tuple(np.shape(l)), str(getattr(l, "dtype", type(l).__name__))) for l in leaves)))
            key = tuple(key_parts)
            entry = compiled.get(key)
            if entry is None:
                text, arg_types, result_types, out_tree = lower(f, args, static, name="main")
                fn_c = compile_module(text, "main", arg_types, result_types, options)
                entry = compiled[key] = (fn_c, out_tree)
            fn_c, out_tree = entry
            leaves = jax.tree_util.tree_leaves(_dyn(args, static))
            ins = [contiguous(l, mlir_to_np_dtype(t.elem))
                   for l, t in zip(leaves, fn_c.arg_types)]
            outs = [aligned_empty(t.shape, mlir_to_np_dtype(t.elem)) for t in fn_c.result_types]
            fn_c.call_pointers([a.ctypes.data for a in ins] + [o.ctypes.data for o in outs])
            return jax.tree_util.tree_unflatten(out_tree, [jax.dlpack.from_dlpack(o) for o in outs])

        call.tessel_options = options
        return call

    return wrap(fn) if fn is not None else wrap

"""Builds linalg-on-tensors MLIR text, the input Tessel's pipelines take.

The frontends (torch FX, jaxprs, TF graphs) translate each framework op into
calls on a FunctionBuilder: named linalg ops where they exist (matmul,
batch_matmul, conv_2d_nchw_fchw, pooling), linalg.generic otherwise
(elementwise with numpy broadcasting, reductions, stencils), tensor ops for
shape changes. The output is plain text that `mlir-opt-22` parses, so a
compilation can be reproduced from the dumped input alone.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

__all__ = ["TensorType", "Value", "FunctionBuilder", "ModuleBuilder",
           "UnsupportedError", "np_dtype_to_mlir"]


class UnsupportedError(Exception):
    """A framework op, dtype or shape Tessel's frontends do not handle.

    `ops` lists the framework op names; the message says why."""

    def __init__(self, message: str, ops: Sequence[str] = ()):
        super().__init__(message)
        self.ops = list(ops)


_NP_TO_MLIR = {
    np.dtype("float32"): "f32",
    np.dtype("float64"): "f64",
    np.dtype("float16"): "f16",
    np.dtype("int64"): "i64",
    np.dtype("int32"): "i32",
    np.dtype("int16"): "i16",
    np.dtype("int8"): "i8",
    np.dtype("bool"): "i1",
}

_MLIR_TO_NP = {v: k for k, v in _NP_TO_MLIR.items()}


def np_dtype_to_mlir(dtype) -> str:
    dt = np.dtype(dtype)
    if dt not in _NP_TO_MLIR:
        raise UnsupportedError(f"element type {dt} is not supported "
                               f"(supported: {', '.join(sorted(_MLIR_TO_NP))})")
    return _NP_TO_MLIR[dt]


def mlir_to_np_dtype(elem: str) -> np.dtype:
    return _MLIR_TO_NP[elem]


def storage(elem: str) -> str:
    """The element type in memory. Booleans are bytes (0/1), as in numpy,
    torch and jax: an i1 memref would be packed into bits by vector stores
    but not by scalar ones. Generic bodies see i1 (see FunctionBuilder.generic)."""
    return "i8" if elem == "i1" else elem


def contiguous(array, dtype=None) -> np.ndarray:
    """A C-contiguous array of `array` (a view where it already is one).
    Unlike np.ascontiguousarray, keeps a 0-d array 0-d: a scalar operand
    must stay rank 0 to broadcast into any result."""
    return np.asarray(array, dtype=dtype, order="C")


def lowest(elem: str):
    """Identity of max: -inf, false, or the integer type's minimum."""
    if elem == "i1":
        return False
    return -np.inf if is_float(elem) else int(np.iinfo(mlir_to_np_dtype(elem)).min)


def highest(elem: str):
    """Identity of min: +inf, true, or the integer type's maximum."""
    if elem == "i1":
        return True
    return np.inf if is_float(elem) else int(np.iinfo(mlir_to_np_dtype(elem)).max)


def max_op(elem: str) -> str:
    """The arith op of a maximum. Booleans are unsigned: as a signed i1,
    true is -1."""
    return "arith.maximumf" if is_float(elem) else "arith.maxui" if elem == "i1" else "arith.maxsi"


def min_op(elem: str) -> str:
    return "arith.minimumf" if is_float(elem) else "arith.minui" if elem == "i1" else "arith.minsi"


def int_predicate(pred: str, elem: str) -> str:
    """An arith.cmpi predicate for `elem`: the signed ones (slt, sge, ...)
    become unsigned for booleans, which order false < true."""
    return "u" + pred[1:] if elem == "i1" and pred[0] == "s" else pred


def extreme_reduction(kind: str, elem: str) -> tuple:
    """(init, combining arith op) of a max or min reduction over `elem`:
    over booleans, any (ori from false) and all (andi from true)."""
    if elem == "i1":
        return (False, "arith.ori") if kind == "max" else (True, "arith.andi")
    if kind == "max":
        return lowest(elem), max_op(elem)
    return highest(elem), min_op(elem)


def accumulator(elem: str) -> str:
    """The element type a contraction sums in: f32 for 16-bit floats, as
    PyTorch, JAX and TensorFlow do (an f16 sum stops growing at 2048)."""
    return "f32" if elem in ("f16", "bf16") else elem


def is_float(elem: str) -> bool:
    return elem in ("f16", "bf16", "f32", "f64")


@dataclass(frozen=True)
class TensorType:
    shape: tuple
    elem: str

    def __str__(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        elem = storage(self.elem)
        return f"tensor<{dims}x{elem}>" if self.shape else f"tensor<{elem}>"

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True)
class Value:
    name: str
    type: TensorType

    @property
    def shape(self) -> tuple:
        return self.type.shape

    @property
    def elem(self) -> str:
        return self.type.elem

    @property
    def rank(self) -> int:
        return self.type.rank


def _float_literal(v: float, elem: str) -> str:
    v = float(v)
    if np.isnan(v) or np.isinf(v):
        # Hex literals carry NaN/inf exactly.
        if elem == "f64":
            return "0x%016X" % struct.unpack("<Q", struct.pack("<d", v))[0]
        if elem == "f16":
            return "0x%04X" % np.array(v, np.float16).view(np.uint16)
        return "0x%08X" % struct.unpack("<I", struct.pack("<f", v))[0]
    # MLIR float literals need a '.' before any exponent; round-trip precision.
    if elem == "f64":
        return f"{v:.17e}"
    return f"{float(np.float32(v)):.9e}"


def scalar_literal(v, elem: str) -> str:
    if is_float(elem):
        return _float_literal(v, elem)
    if elem == "i1":
        return "true" if bool(v) else "false"
    return str(int(v))


def _scalar_constant(v, elem: str) -> str:
    """`arith.constant <this> : elem` (i1 takes 0/1 there, true/false in dense<>)."""
    return str(int(bool(v))) if elem == "i1" else scalar_literal(v, elem)


class BodyBuilder:
    """Emits the scalar ops of a linalg.generic region."""

    def __init__(self, fn: "FunctionBuilder", lines: list):
        self._fn = fn
        self._lines = lines

    def op(self, opname: str, operands: Sequence[str], elem: str,
           attrs: str = "", result_elem: str | None = None) -> str:
        name = self._fn.fresh()
        res = result_elem or elem
        ops = ", ".join(operands)
        if opname in ("arith.extf", "arith.truncf", "arith.sitofp", "arith.fptosi",
                      "arith.uitofp", "arith.fptoui", "arith.extsi", "arith.extui",
                      "arith.trunci", "arith.index_cast"):
            self._lines.append(f"  {name} = {opname} {ops} : {elem} to {res}")
        elif opname in ("arith.cmpf", "arith.cmpi"):
            self._lines.append(f"  {name} = {opname} {attrs}, {ops} : {elem}")
        elif opname == "arith.select":
            self._lines.append(f"  {name} = arith.select {ops} : {res}")
        else:
            extra = f" {attrs}" if attrs else ""
            self._lines.append(f"  {name} = {opname} {ops}{extra} : {elem}")
        return name

    def const(self, v, elem: str) -> str:
        name = self._fn.fresh()
        self._lines.append(f"  {name} = arith.constant {_scalar_constant(v, elem)} : {elem}")
        return name

    def index(self, dim: int) -> str:
        name = self._fn.fresh()
        self._lines.append(f"  {name} = linalg.index {dim} : index")
        return name

    def raw(self, line: str) -> None:
        self._lines.append("  " + line)


def window_out(size: int, kernel: int, stride: int, dilation: int) -> int:
    """Positions of a dilated window over an (already padded) dimension."""
    return (size - dilation * (kernel - 1) - 1) // stride + 1


def _affine_map(num_dims: int, exprs: Sequence[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(num_dims))
    return f"affine_map<({dims}) -> ({', '.join(exprs)})>"


def broadcast_shapes(*shapes: Sequence[int]) -> tuple:
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        size = 1
        for s in shapes:
            j = i - (rank - len(s))
            if j < 0:
                continue
            d = s[j]
            if d == 1:
                continue
            if size != 1 and size != d:
                raise UnsupportedError(f"shapes {shapes} do not broadcast")
            size = d
        out.append(size)
    return tuple(out)


class FunctionBuilder:
    def __init__(self, module: "ModuleBuilder", name: str):
        self.module = module
        self.name = name
        self.args: list[Value] = []
        self.lines: list[str] = []
        self.results: list[Value] = []

    # -- names and arguments -------------------------------------------------
    def fresh(self) -> str:
        return self.module.fresh()

    def add_argument(self, shape, elem: str) -> Value:
        v = Value(f"%arg{len(self.args)}", TensorType(tuple(int(d) for d in shape), elem))
        self.args.append(v)
        return v

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    # -- constants -------------------------------------------------------------
    def scalar(self, v, elem: str) -> str:
        name = self.fresh()
        self.emit(f"{name} = arith.constant {_scalar_constant(v, elem)} : {elem}")
        return name

    def constant(self, array: np.ndarray, elem: str | None = None) -> Value:
        array = contiguous(array)
        elem = elem or np_dtype_to_mlir(array.dtype)
        array = array.astype(mlir_to_np_dtype(elem), copy=False)
        ty = TensorType(tuple(array.shape), elem)
        name = self.fresh()
        if elem == "i1":
            array, elem = array.astype(np.int8), "i8"
        flat = array.reshape(-1)
        if flat.size > 1 and (flat == flat[0]).all():
            self.emit(f"{name} = arith.constant dense<{scalar_literal(flat[0], elem)}> : {ty}")
        elif flat.size <= 16:
            body = self._nested_literal(array, elem)
            self.emit(f"{name} = arith.constant dense<{body}> : {ty}")
        else:
            key = self.module.add_resource(array)
            self.emit(f"{name} = arith.constant dense_resource<{key}> : {ty}")
        return Value(name, ty)

    def _nested_literal(self, array: np.ndarray, elem: str) -> str:
        if array.ndim == 0:
            return scalar_literal(array.item(), elem)
        return "[" + ", ".join(self._nested_literal(a, elem) for a in array) + "]"

    # -- tensor creation -------------------------------------------------------
    def empty(self, shape, elem: str) -> Value:
        ty = TensorType(tuple(shape), elem)
        name = self.fresh()
        self.emit(f"{name} = tensor.empty() : {ty}")
        return Value(name, ty)

    def full(self, shape, value, elem: str) -> Value:
        e = self.empty(shape, elem)
        c = self.scalar(value, storage(elem))
        name = self.fresh()
        self.emit(f"{name} = linalg.fill ins({c} : {storage(elem)}) outs({e.name} : {e.type}) -> {e.type}")
        return Value(name, e.type)

    # -- generic ---------------------------------------------------------------
    def generic(self, inputs: Sequence[Value], input_maps: Sequence[Sequence[str]],
                init: Value, out_map: Sequence[str], iterators: Sequence[str],
                body: Callable[[BodyBuilder, list, str], str]) -> Value:
        """One linalg.generic. `body(b, in_args, acc)` returns the yielded name."""
        n = len(iterators)
        maps = [_affine_map(n, m) for m in input_maps] + [_affine_map(n, out_map)]
        its = ", ".join(f'"{i}"' for i in iterators)
        name = self.fresh()
        ins = ", ".join(v.name for v in inputs)
        ins_t = ", ".join(str(v.type) for v in inputs)
        head = f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{its}]}}"
        if inputs:
            head += f" ins({ins} : {ins_t})"
        head += f" outs({init.name} : {init.type}) {{"
        self.emit(head)
        region: list = []
        b = BodyBuilder(self, region)
        in_args = [self.fresh() for _ in inputs]
        acc = self.fresh()
        params = ", ".join([f"{a}: {storage(v.elem)}" for a, v in zip(in_args, inputs)] +
                           [f"{acc}: {storage(init.elem)}"])
        self.lines.append(f"    ^bb0({params}):")
        # Booleans are stored as i8: the body sees i1 and yields i1.
        zero = None
        def as_i1(name):
            nonlocal zero
            zero = zero or b.const(0, "i8")
            return b.op("arith.cmpi", [name, zero], "i8", attrs="ne")
        in_args = [as_i1(a) if v.elem == "i1" else a for a, v in zip(in_args, inputs)]
        if init.elem == "i1":
            acc = as_i1(acc)
        result = body(b, in_args, acc)
        if init.elem == "i1":
            result = b.op("arith.extui", [result], "i1", result_elem="i8")
        for line in region:
            self.lines.append("    " + line)
        self.lines.append(f"      linalg.yield {result} : {storage(init.elem)}")
        self.lines.append(f"    }} -> {init.type}")
        return Value(name, init.type)

    def _broadcast_map(self, v: Value, out_shape: tuple) -> list:
        """v's indexing map into out_shape, numpy-broadcast (trailing dims
        aligned). Leading dims beyond the result's rank must be size 1 (a
        [1] operand of a 0-d result): they are read at index 0."""
        rank = len(out_shape)
        off = rank - v.rank
        exprs = []
        for j, d in enumerate(v.shape):
            i = j + off
            if i < 0:
                if d != 1:
                    raise UnsupportedError(f"{v.type} does not broadcast to shape {out_shape}")
                exprs.append("0")
            else:
                exprs.append("0" if (d == 1 and out_shape[i] != 1) else f"d{i}")
        return exprs

    def elementwise(self, inputs: Sequence[Value], out_elem: str,
                    fn: Callable[[BodyBuilder, list], str],
                    out_shape: tuple | None = None) -> Value:
        """Pointwise op over numpy-broadcast inputs."""
        shape = broadcast_shapes(*(v.shape for v in inputs)) if out_shape is None else tuple(out_shape)
        maps = [self._broadcast_map(v, shape) for v in inputs]
        init = self.empty(shape, out_elem)
        out_map = [f"d{i}" for i in range(len(shape))]
        return self.generic(inputs, maps, init, out_map, ["parallel"] * len(shape),
                            lambda b, args, acc: fn(b, args))

    def broadcast_to(self, v: Value, shape) -> Value:
        shape = tuple(shape)
        if v.shape == shape:
            return v
        return self.elementwise([v], v.elem, lambda b, a: a[0], out_shape=shape)

    def cast(self, v: Value, elem: str) -> Value:
        if v.elem == elem:
            return v
        return self.elementwise([v], elem, lambda b, a: convert_scalar(b, a[0], v.elem, elem))

    def copy(self, v: Value) -> Value:
        return self.elementwise([v], v.elem, lambda b, a: a[0], out_shape=v.shape)

    def reduce(self, v: Value, dims: Sequence[int], init_value, combine: str,
               keepdim: bool = False, out_elem: str | None = None) -> Value:
        """Reduction over `dims` with the arith op `combine`."""
        dims = sorted(set(d % v.rank for d in dims)) if v.rank else []
        elem = out_elem or v.elem
        out_shape = tuple(d for i, d in enumerate(v.shape) if i not in dims)
        init = self.full(out_shape, init_value, elem)
        in_map = [f"d{i}" for i in range(v.rank)]
        out_map = [f"d{i}" for i in range(v.rank) if i not in dims]
        its = ["reduction" if i in dims else "parallel" for i in range(v.rank)]

        def body(b, args, acc):
            x = args[0] if elem == v.elem else convert_scalar(b, args[0], v.elem, elem)
            return b.op(combine, [acc, x], elem)

        r = self.generic([v], [in_map], init, out_map, its, body)
        if keepdim:
            shape = tuple(1 if i in dims else d for i, d in enumerate(v.shape))
            r = self.reshape(r, shape)
        return r

    def arg_reduce(self, v: Value, dim: int | None, largest: bool,
                   index_elem: str = "i64") -> Value:
        """Index of the first maximum (`largest`) or minimum along `dim` (all
        elements, flattened, when None), with the reduced dimension dropped,
        as PyTorch, NumPy and JAX define it: a NaN counts beyond every number,
        and the first NaN wins. One linalg.generic with the extreme and its
        index as outputs; a GPU splits it over threads
        (matchSplittableReduction's arg-reductions)."""
        if dim is None:
            v = self.reshape(v, (v.type.numel,))
            dim = 0
        else:
            dim %= max(v.rank, 1)
        if v.rank == 0:
            v = self.reshape(v, (1,))
        # Booleans compare as their bytes, 0 and 1.
        elem = storage(v.elem)
        out_shape = tuple(d for i, d in enumerate(v.shape) if i != dim)
        extreme = self.full(out_shape, lowest(elem) if largest else highest(elem), elem)
        index = self.full(out_shape, 0, index_elem)
        n = v.rank
        in_map = _affine_map(n, [f"d{i}" for i in range(n)])
        out_map = _affine_map(n, [f"d{i}" for i in range(n) if i != dim])
        its = ", ".join('"reduction"' if i == dim else '"parallel"' for i in range(n))
        name = self.fresh()
        self.emit(f"{name}:2 = linalg.generic {{indexing_maps = [{in_map}, {out_map}, {out_map}], "
                  f"iterator_types = [{its}]}} ins({v.name} : {v.type}) "
                  f"outs({extreme.name}, {index.name} : {extreme.type}, {index.type}) {{")
        x, m, i = self.fresh(), self.fresh(), self.fresh()
        self.lines.append(f"    ^bb0({x}: {elem}, {m}: {elem}, {i}: {index_elem}):")
        region: list = []
        b = BodyBuilder(self, region)
        k = b.index(dim)
        position = b.op("arith.index_cast", [k], "index", result_elem=index_elem)
        if is_float(elem):
            better = b.op("arith.cmpf", [x, m], elem, attrs="ogt" if largest else "olt")
            x_nan = b.op("arith.cmpf", [x, x], elem, attrs="uno")
            m_number = b.op("arith.cmpf", [m, m], elem, attrs="ord")
            nan_first = b.op("arith.andi", [x_nan, m_number], "i1")
            wins = b.op("arith.ori", [better, nan_first], "i1")
        else:
            wins = b.op("arith.cmpi", [x, m], elem, attrs="sgt" if largest else "slt")
        new_m = b.op("arith.select", [wins, x, m], elem, result_elem=elem)
        new_i = b.op("arith.select", [wins, position, i], index_elem)
        for line in region:
            self.lines.append("    " + line)
        self.lines.append(f"      linalg.yield {new_m}, {new_i} : {elem}, {index_elem}")
        self.lines.append(f"    }} -> ({extreme.type}, {index.type})")
        return Value(f"{name}#1", index.type)

    def mean(self, v: Value, dims: Sequence[int], keepdim: bool = False,
             out_elem: str | None = None) -> Value:
        elem = out_elem or v.elem
        count = 1
        for d in dims:
            count *= v.shape[d % v.rank]
        s = self.reduce(v, dims, 0, "arith.addf", keepdim=keepdim, out_elem=elem)
        return self.elementwise([s], elem, lambda b, x: b.op("arith.divf", [x[0], b.const(count, elem)], elem))

    # -- shapes ------------------------------------------------------------------
    def reshape(self, v: Value, shape) -> Value:
        shape = tuple(int(d) for d in shape)
        if v.shape == shape:
            return v
        ty = TensorType(shape, v.elem)
        if TensorType(shape, v.elem).numel != v.type.numel:
            raise UnsupportedError(f"reshape of {v.type} to {shape} changes the element count")
        # Through rank 1 (or 0): always a valid collapse/expand pair.
        flat = v
        if v.rank != 1:
            name = self.fresh()
            flat_ty = TensorType((v.type.numel,), v.elem) if v.rank else TensorType((1,), v.elem)
            if v.rank == 0:
                self.emit(f"{name} = tensor.expand_shape {v.name} [] output_shape [1] : {v.type} into {flat_ty}")
            else:
                reassoc = "[[" + ", ".join(str(i) for i in range(v.rank)) + "]]"
                self.emit(f"{name} = tensor.collapse_shape {v.name} {reassoc} : {v.type} into {flat_ty}")
            flat = Value(name, flat_ty)
        if len(shape) == 1:
            return flat
        name = self.fresh()
        if len(shape) == 0:
            self.emit(f"{name} = tensor.collapse_shape {flat.name} [] : {flat.type} into {ty}")
        else:
            reassoc = "[[" + ", ".join(str(i) for i in range(len(shape))) + "]]"
            dims = ", ".join(str(d) for d in shape)
            self.emit(f"{name} = tensor.expand_shape {flat.name} {reassoc} output_shape [{dims}] : {flat.type} into {ty}")
        return Value(name, ty)

    def transpose(self, v: Value, perm: Sequence[int]) -> Value:
        perm = [p % v.rank for p in perm]
        if perm == list(range(v.rank)):
            return v
        shape = tuple(v.shape[p] for p in perm)
        if [p for p in perm if v.shape[p] != 1] == [d for d in range(v.rank) if v.shape[d] != 1]:
            # Only unit dimensions move (NHWC<->NCHW with one channel): the
            # data order is unchanged, a reshape is free and a copy is not.
            return self.reshape(v, shape)
        init = self.empty(shape, v.elem)
        name = self.fresh()
        self.emit(f"{name} = linalg.transpose ins({v.name} : {v.type}) outs({init.name} : {init.type}) "
                  f"permutation = [{', '.join(str(p) for p in perm)}]")
        return Value(name, init.type)

    def slice(self, v: Value, offsets, sizes, strides) -> Value:
        offsets, sizes, strides = list(offsets), list(sizes), list(strides)
        if offsets == [0] * v.rank and sizes == list(v.shape) and strides == [1] * v.rank:
            return v
        ty = TensorType(tuple(sizes), v.elem)
        name = self.fresh()
        j = lambda xs: ", ".join(str(int(x)) for x in xs)
        self.emit(f"{name} = tensor.extract_slice {v.name}[{j(offsets)}] [{j(sizes)}] [{j(strides)}] "
                  f": {v.type} to {ty}")
        return Value(name, ty)

    def insert_slice(self, src: Value, dest: Value, offsets, strides=None) -> Value:
        strides = strides or [1] * dest.rank
        name = self.fresh()
        j = lambda xs: ", ".join(str(int(x)) for x in xs)
        self.emit(f"{name} = tensor.insert_slice {src.name} into {dest.name}[{j(offsets)}] "
                  f"[{j(src.shape)}] [{j(strides)}] : {src.type} into {dest.type}")
        return Value(name, dest.type)

    def concat(self, values: Sequence[Value], dim: int) -> Value:
        dim %= values[0].rank
        shape = list(values[0].shape)
        shape[dim] = sum(v.shape[dim] for v in values)
        elem = values[0].elem
        if TensorType(tuple(shape), elem).numel == 0:
            return self.full(shape, 0, elem)
        # An empty piece has no place to go: an insert_slice at the end
        # offset would be out of bounds.
        values = [v for v in values if v.type.numel]
        if len(values) == 1:
            return values[0]
        out = self.empty(shape, elem)
        off = 0
        for v in values:
            offs = [0] * len(shape)
            offs[dim] = off
            out = self.insert_slice(v, out, offs)
            off += v.shape[dim]
        return out

    def pad(self, v: Value, low, high, value) -> Value:
        low, high = list(low), list(high)
        if not any(low) and not any(high):
            return v
        shape = tuple(d + l + h for d, l, h in zip(v.shape, low, high))
        ty = TensorType(shape, v.elem)
        c = self.scalar(value, storage(v.elem))
        name = self.fresh()
        j = lambda xs: ", ".join(str(int(x)) for x in xs)
        self.emit(f"{name} = tensor.pad {v.name} low[{j(low)}] high[{j(high)}] {{")
        self.lines.append(f"    ^bb0({', '.join(f'%i{k}_{name[1:]}: index' for k in range(v.rank))}):")
        self.lines.append(f"      tensor.yield {c} : {storage(v.elem)}")
        self.lines.append(f"    }} : {v.type} to {ty}")
        return Value(name, ty)

    # -- contractions -------------------------------------------------------------
    def matmul(self, a: Value, b: Value) -> Value:
        """[M,K] x [K,N] or [B,M,K] x [B,K,N]."""
        if a.rank == 2:
            shape, op = (a.shape[0], b.shape[1]), "linalg.matmul"
        else:
            shape, op = (a.shape[0], a.shape[1], b.shape[2]), "linalg.batch_matmul"
        return self._contraction(op, "", [a, b], shape)

    def _contraction(self, op: str, attrs: str, inputs: Sequence[Value], shape) -> Value:
        """A named linalg contraction summing in accumulator(elem): 16-bit
        float operands are extended by the op itself, the sum is rounded
        back once, in a following elementwise generic."""
        elem = inputs[0].elem
        init = self.full(shape, 0, accumulator(elem))
        name = self.fresh()
        ins = ", ".join(v.name for v in inputs)
        ins_t = ", ".join(str(v.type) for v in inputs)
        attrs = f" {attrs}" if attrs else ""
        self.emit(f"{name} = {op}{attrs} ins({ins} : {ins_t}) "
                  f"outs({init.name} : {init.type}) -> {init.type}")
        return self.cast(Value(name, init.type), elem)

    def conv2d_nchw(self, x: Value, w: Value, stride, dilation, groups: int) -> Value:
        """x [N,C,H,W] (already padded), w [F,C/groups,KH,KW] -> [N,F,OH,OW]."""
        n, c, h, wd = x.shape
        f, cg, kh, kw = w.shape
        sh, sw = stride
        dh, dw = dilation
        oh, ow = window_out(h, kh, sh, dh), window_out(wd, kw, sw, dw)
        elem = x.elem
        if cg == 1 and f // groups == 1 and groups == c:
            # Depthwise (one input and one output channel per group, the
            # separable blur is one too): a stencil linalg.generic, the form
            # Tessel's fusion engine fuses and vectorizes.
            acc_elem = accumulator(elem)
            init = self.full((n, f, oh, ow), 0, acc_elem)
            x_map = ["d0", "d1", f"d2 * {sh} + d4 * {dh}", f"d3 * {sw} + d5 * {dw}"]
            w_map = ["d1", "0", "d4", "d5"]

            def body(b, a, acc):
                xs, ws = (convert_scalar(b, v, elem, acc_elem) for v in a)
                fl = is_float(acc_elem)
                return b.op("arith.addf" if fl else "arith.addi",
                            [acc, b.op("arith.mulf" if fl else "arith.muli", [xs, ws], acc_elem)], acc_elem)
            y = self.generic([x, w], [x_map, w_map], init, ["d0", "d1", "d2", "d3"],
                             ["parallel"] * 4 + ["reduction"] * 2, body)
            return self.cast(y, elem)
        attrs = (f"{{dilations = dense<[{dh}, {dw}]> : tensor<2xi64>, "
                 f"strides = dense<[{sh}, {sw}]> : tensor<2xi64>}}")
        if groups == 1:
            return self._contraction("linalg.conv_2d_nchw_fchw", attrs, [x, w], (n, f, oh, ow))
        g = groups
        xg = self.reshape(x, (n, g, c // g, h, wd))
        wg = self.reshape(w, (g, f // g, cg, kh, kw))
        y = self._contraction("linalg.conv_2d_ngchw_gfchw", attrs, [xg, wg], (n, g, f // g, oh, ow))
        return self.reshape(y, (n, f, oh, ow))

    def conv2d_nhwc(self, x: Value, w: Value, stride, dilation) -> Value:
        """x [N,H,W,C] (already padded), w [KH,KW,C,F] -> [N,OH,OW,F]: the
        layout Tessel's convolution kernels take as they are (no transposes
        of activations)."""
        n, h, wd, c = x.shape
        kh, kw, _, f = w.shape
        (sh, sw), (dh, dw) = stride, dilation
        oh, ow = window_out(h, kh, sh, dh), window_out(wd, kw, sw, dw)
        attrs = (f"{{dilations = dense<[{dh}, {dw}]> : tensor<2xi64>, "
                 f"strides = dense<[{sh}, {sw}]> : tensor<2xi64>}}")
        return self._contraction("linalg.conv_2d_nhwc_hwcf", attrs, [x, w], (n, oh, ow, f))

    def pool2d_nhwc(self, x: Value, kernel, stride, dilation, kind: str) -> Value:
        """kind 'max' or 'sum' over an already padded x [N,H,W,C]."""
        return self._pool2d(x, kernel, stride, dilation, kind, "nhwc")

    def pool2d_nchw(self, x: Value, kernel, stride, dilation, kind: str) -> Value:
        """kind 'max' or 'sum' over an already padded x [N,C,H,W]."""
        return self._pool2d(x, kernel, stride, dilation, kind, "nchw")

    def _pool2d(self, x: Value, kernel, stride, dilation, kind: str, layout: str) -> Value:
        spatial = (1, 2) if layout == "nhwc" else (2, 3)
        (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
        h, wd = (x.shape[d] for d in spatial)
        shape = list(x.shape)
        shape[spatial[0]] = window_out(h, kh, sh, dh)
        shape[spatial[1]] = window_out(wd, kw, sw, dw)
        init = self.full(shape, lowest(x.elem) if kind == "max" else 0, x.elem)
        window = self.empty((kh, kw), x.elem)
        name = self.fresh()
        self.emit(f"{name} = linalg.pooling_{layout}_{kind} {{dilations = dense<[{dh}, {dw}]> : tensor<2xi64>, "
                  f"strides = dense<[{sh}, {sw}]> : tensor<2xi64>}} "
                  f"ins({x.name}, {window.name} : {x.type}, {window.type}) "
                  f"outs({init.name} : {init.type}) -> {init.type}")
        return Value(name, init.type)

    # -- finishing -----------------------------------------------------------------
    def set_results(self, values: Sequence[Value]) -> None:
        """Results must be distinct values computed in the function (the C
        ABI writes each into its own caller buffer): arguments and repeats
        get a copy."""
        seen = set()
        out = []
        args = {a.name for a in self.args}
        for v in values:
            if v.name in args or v.name in seen:
                v = self.copy(v)
            seen.add(v.name)
            out.append(v)
        self.results = out

    def text(self) -> str:
        params = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        rtypes = ", ".join(str(r.type) for r in self.results)
        lines = [f"  func.func @{self.name}({params}) -> ({rtypes}) {{"]
        lines += self.lines
        names = ", ".join(r.name for r in self.results)
        lines.append(f"    return {names} : {rtypes}" if self.results else "    return")
        lines.append("  }")
        return "\n".join(lines)


def convert_scalar(b: BodyBuilder, x: str, src: str, dst: str) -> str:
    if src == dst:
        return x
    fs, fd = is_float(src), is_float(dst)
    width = lambda e: {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(e) or int(e[1:])
    if fs and fd:
        return b.op("arith.extf" if width(dst) > width(src) else "arith.truncf", [x], src, result_elem=dst)
    if not fs and fd:
        return b.op("arith.uitofp" if src == "i1" else "arith.sitofp", [x], src, result_elem=dst)
    if fs and not fd:
        if dst == "i1":
            zero = b.const(0.0, src)
            return b.op("arith.cmpf", [x, zero], src, attrs="une")
        return b.op("arith.fptosi", [x], src, result_elem=dst)
    if dst == "i1":
        zero = b.const(0, src)
        return b.op("arith.cmpi", [x, zero], src, attrs="ne")
    if width(dst) > width(src):
        return b.op("arith.extui" if src == "i1" else "arith.extsi", [x], src, result_elem=dst)
    return b.op("arith.trunci", [x], src, result_elem=dst)


class ModuleBuilder:
    def __init__(self):
        self._counter = 0
        self.functions: list[FunctionBuilder] = []
        self._resources: list[tuple[str, np.ndarray]] = []

    def fresh(self) -> str:
        self._counter += 1
        return f"%{self._counter}"

    def function(self, name: str) -> FunctionBuilder:
        f = FunctionBuilder(self, name)
        self.functions.append(f)
        return f

    def add_resource(self, array: np.ndarray) -> str:
        key = f"tessel_const{len(self._resources)}"
        self._resources.append((key, contiguous(array)))
        return key

    def text(self) -> str:
        parts = ["module {"] + [f.text() for f in self.functions] + ["}"]
        if self._resources:
            parts.append("")
            parts.append("{-#")
            parts.append("  dialect_resources: {")
            parts.append("    builtin: {")
            entries = []
            for key, arr in self._resources:
                data = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
                if data.dtype == np.bool_:
                    data = data.astype(np.uint8)
                align = max(data.dtype.itemsize, 1)
                blob = struct.pack("<I", align).hex() + data.tobytes().hex()
                entries.append(f'      {key}: "0x{blob.upper()}"')
            parts.append(",\n".join(entries))
            parts.append("    }")
            parts.append("  }")
            parts.append("#-}")
        return "\n".join(parts) + "\n"

"""The shared graph corpus: named builders of small lazy limn graphs that every compiled path is diffed on.

Each `Case.build()` returns a fresh list of lazy Tensors (the sinks to realize together) with the same values on every
call, so a test builds a case once per device and compares the results. Sizes are small enough for a Python IR
interpreter and for the numpy device's unfused intermediates.
"""
from __future__ import annotations
from dataclasses import dataclass
from typing import Callable
import numpy as np
from limn import Tensor, where
from limn.ops import DType, float64, float32, float16, bfloat16, int32, int16, int8

ALL_DTYPES = (float64, float32, float16, bfloat16, int32, int16, int8)
FLOAT_DTYPES = (float64, float32, float16, bfloat16)
INT_DTYPES = (int32, int16, int8)
C_DTYPES = (float64, float32, int32, int16, int8)            # the c device declines the two half widths


@dataclass
class Case:
    name: str
    build: Callable[[], list]      # -> fresh list of lazy Tensors, identical values on every call
    dtype: DType                   # the element type the case exercises (its sinks may include other dtypes)


def tolerance(dtype: DType) -> tuple:
    "(rtol, atol) for diffing a compiled result against the numpy device: exact for ints, the width's rounding for halves."
    if dtype.is_int: return 0.0, 0.0
    if dtype is bfloat16: return 2e-2, 2e-2
    if dtype is float16: return 4e-3, 4e-3
    return 1e-5, 1e-5


def reference(case: Case) -> list:
    """The numpy device's values of the case's sinks, realized together in ONE realize (as a compiled device gets them):
    realizing them one by one would let an ASSIGN commit before a sink that must read the pre-assign value."""
    from limn import realize, use_device
    sinks = case.build()
    with use_device("numpy"):
        realize(sinks)
        return [t.numpy() for t in sinks]


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)) * 7919 % 2**32)


def _data(rng, shape, dtype: DType, low=-3, high=3) -> Tensor:
    "Random values of `dtype`: normals for floats, ints in [low, high] otherwise."
    if dtype.is_float: return Tensor(rng.standard_normal(shape).astype(dtype.np), dtype=dtype)
    return Tensor(rng.integers(low, high + 1, shape).astype(dtype.np), dtype=dtype)


def _positive(rng, shape, dtype) -> Tensor:
    return Tensor((rng.random(shape) + 0.5).astype(dtype.np), dtype=dtype)


CORPUS: list[Case] = []

def case(name: str, dtypes=ALL_DTYPES):
    "Register `fn(rng, dtype) -> Tensor | list[Tensor]` once per dtype as '<name>[<dtype>]'."
    def register(fn):
        for dt in dtypes:
            full = f"{name}[{dt.name}]"
            def build(fn=fn, dt=dt, full=full):
                out = fn(_rng(full), dt)
                return list(out) if isinstance(out, (list, tuple)) else [out]
            CORPUS.append(Case(full, build, dt))
        return fn
    return register


# --- elementwise, every dtype -----------------------------------------------------------------------------------
@case("add_mul")
def _(rng, dt):
    a, b = _data(rng, (4, 5), dt), _data(rng, (4, 5), dt)
    return a * b + a

@case("broadcast_row_col")
def _(rng, dt):
    a, row, col = _data(rng, (3, 4), dt), _data(rng, (4,), dt), _data(rng, (3, 1), dt)
    return (a + row) * col

@case("neg_cmplt_where")
def _(rng, dt):
    a, b = _data(rng, (6, 3), dt), _data(rng, (6, 3), dt)
    return where(a < b, a, -b)

@case("wraparound", INT_DTYPES)
def _(rng, dt):
    big = {int8: 100, int16: 30000, int32: 2_000_000_000}[dt]
    a = Tensor(np.array([big, -big, big // 2, 7], dtype=dt.np), dtype=dt)
    return [a + a, a * a, a * 3 + big]

# --- casts --------------------------------------------------------------------------------------------------------
@case("cast_to_float32", (float64, float16, bfloat16, int32, int16, int8))
def _(rng, dt):
    return _data(rng, (3, 4), dt).cast(float32) * 2

@case("cast_float_to_int", (float64, float32, float16, bfloat16))
def _(rng, dt):
    return [(_data(rng, (3, 4), dt) * 10).cast(int32), (_data(rng, (5,), dt) * 10).cast(int8)]

@case("cast_int_narrowing", (int32,))
def _(rng, dt):
    return _data(rng, (6,), dt, -100000, 100000).cast(int8)

# --- unary math (floats) ------------------------------------------------------------------------------------------
@case("unary_math", FLOAT_DTYPES)
def _(rng, dt):
    a, p = _data(rng, (4, 6), dt), _positive(rng, (4, 6), dt)
    return [a.exp(), p.log(), p.sqrt(), p.reciprocal(), a.relu(), a.sigmoid(), a.tanh()]

# --- reduces --------------------------------------------------------------------------------------------------------
@case("sum_keepdim")
def _(rng, dt):
    a = _data(rng, (4, 6), dt)
    return [a.sum(1, keepdim=True), a.sum(0, keepdim=True)]

@case("sum_drop")
def _(rng, dt):
    a = _data(rng, (3, 4, 5), dt)
    return [a.sum(1), a.sum((0, 2)), a.sum()]

@case("max_reduce")
def _(rng, dt):
    a = _data(rng, (5, 4), dt)
    return [a.amax(1), a.amax(0, keepdim=True), a.max()]

@case("reduce_size_one_dims", (float32, int32))
def _(rng, dt):
    a = _data(rng, (4, 1, 5), dt)
    return [a.sum(2), a.sum(1), a.max((0, 1))]

# --- matmul ----------------------------------------------------------------------------------------------------------
@case("matmul")
def _(rng, dt):
    return _data(rng, (4, 5), dt) @ _data(rng, (5, 3), dt)

@case("matmul_batched_transposed", (float64, float32, int32))
def _(rng, dt):
    a, b = _data(rng, (2, 3, 4), dt), _data(rng, (2, 5, 4), dt)
    return a @ b.transpose(-1, -2)

@case("matvec", (float32, int16))
def _(rng, dt):
    return _data(rng, (6, 4), dt) @ _data(rng, (4,), dt)

# big enough for the c device's tiled rendering (rows and columns that leave tile remainders), every operand layout
@case("matmul_tiled_layouts", (float64, float32, int32))
def _(rng, dt):
    a, b, bt, at = _data(rng, (17, 20), dt), _data(rng, (20, 18), dt), _data(rng, (18, 20), dt), _data(rng, (20, 17), dt)
    return [a @ b, a @ bt.transpose(), at.transpose() @ b, (a * 2).relu() @ b]

@case("matmul_batched_tiled", (float32,))
def _(rng, dt):
    return _data(rng, (2, 9, 24), dt) @ _data(rng, (2, 24, 21), dt)

# long reductions over a contiguous axis: laned in the IR (16 partial totals), with a remainder
@case("laned_reductions", (float64, float32, int32, int8))
def _(rng, dt):
    x, y = _data(rng, (5, 83), dt), _data(rng, (5, 83), dt)
    return [x.sum(1), (x * y).sum(1), x.amax(1), x.sum()]

# --- softmax family (floats) ----------------------------------------------------------------------------------------
@case("softmax", FLOAT_DTYPES)
def _(rng, dt):
    a = _data(rng, (4, 7), dt)
    return [a.softmax(-1), a.softmax(0)]

@case("log_softmax", FLOAT_DTYPES)
def _(rng, dt):
    return _data(rng, (3, 8), dt).log_softmax(-1)

@case("layernorm_like", (float64, float32))
def _(rng, dt):
    a = _data(rng, (4, 6), dt)
    mu = a.mean(-1, keepdim=True)
    return (a - mu) * ((a - mu).square().mean(-1, keepdim=True) + 1e-5).rsqrt()

# --- padding and movement -----------------------------------------------------------------------------------------
@case("padded_reduce")
def _(rng, dt):
    a = _data(rng, (3, 5), dt)
    return [a.pad(((1, 2), (2, 0))).sum(1), a.pad(((0, 0), (1, 1))).amax(1)]

@case("padded_conv1d", (float64, float32, int32))
def _(rng, dt):
    x, w = _data(rng, (2, 9), dt), _data(rng, (3,), dt)
    xp = x.pad(((0, 0), (1, 1)))
    return sum(xp[:, k:k + 9] * w[k] for k in range(3))

@case("movement_then_reduce")
def _(rng, dt):
    a = _data(rng, (4, 6), dt)
    return [a.transpose().reshape(3, 8).sum(1), a.permute(1, 0)[1:5].sum(0), a.reshape(2, 12).transpose().amax(1)]

@case("view_chain", (float32, int8))
def _(rng, dt):
    a = _data(rng, (3, 4, 5), dt)
    return [a.permute(2, 0, 1).reshape(6, 10) + 1, a.transpose(0, 2).reshape(60)[7:40].reshape(3, 11)]

@case("expand_and_shrink", (float32, int16))
def _(rng, dt):
    a = _data(rng, (3, 1), dt)
    return [a.expand(3, 4) * 2, _data(rng, (6, 6), dt)[1:4, 2:5].contiguous()]

@case("reduce_then_elementwise")
def _(rng, dt):
    a = _data(rng, (4, 5), dt)
    return [a - a.amax(1, keepdim=True), (a.sum(0) * 2 + 1)]

@case("noncontiguous_sink", (float32, int32))
def _(rng, dt):
    a = _data(rng, (3, 4), dt)
    return [a.transpose(), (a + 1).transpose(), a.reshape(12)]

@case("constant_sinks", (float32, int8))
def _(rng, dt):
    return [Tensor.full((2, 3), 7, dtype=dt), Tensor.zeros(4, dtype=dt) + _data(rng, (4,), dt)]

# --- gather / scatter ---------------------------------------------------------------------------------------------
@case("gather")
def _(rng, dt):
    table, idx = _data(rng, (7, 4), dt), Tensor(rng.integers(0, 7, (5,)).astype(np.int32))
    return [table.gather(idx), table.gather(idx).sum(0)]

@case("gather_2d_idx", (float32, int32))
def _(rng, dt):
    table, idx = _data(rng, (6, 3), dt), Tensor(rng.integers(0, 6, (2, 4)).astype(np.int32))
    return (table * 2).gather(idx) + 1

@case("scatter", (float64, float32, float16, int32, int16, int8))
def _(rng, dt):
    vals, idx = _data(rng, (6, 3), dt), Tensor(np.array([0, 2, 2, 4, 0, 2], np.int32))
    return [vals.scatter_rows(idx, 5), (vals * 2).scatter_rows(idx, 6).sum(1)]

# --- barriers, assign, several sinks ------------------------------------------------------------------------------
@case("assign_reads_pre_step", (float32, int32))
def _(rng, dt):
    w, g = _data(rng, (5,), dt), _data(rng, (5,), dt)
    w.realize()
    before = w * 2
    w.assign(w + g)
    return [w, before]

@case("shared_subgraph_two_sinks", (float32,))
def _(rng, dt):
    a = _data(rng, (4, 4), dt)
    e = (a * 2).exp()
    return [e.sum(1), e.amax(0), e + 1]

@case("scalar_result", (float32, int32))
def _(rng, dt):
    return (_data(rng, (3, 3), dt) * 2).sum()

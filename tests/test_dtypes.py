"""Every dtype rule of the spec, one test each: promotion, half widths, narrow-int wraparound, scalars, gradients."""
import itertools

import ml_dtypes
import numpy as np
import pytest
import torch

import limn
from limn import Tensor
from limn.ops import DTYPES, promote, float64, float32, float16, bfloat16, int32, int16, int8

rng = np.random.default_rng(0)
FLOATS, INTS = [float64, float32, float16, bfloat16], [int32, int16, int8]


def sample(dtype, shape=(5,)):
    if dtype.is_float: return rng.standard_normal(shape).astype(dtype.np)
    return rng.integers(-100, 100, size=shape).astype(dtype.np)


def wrap(values, dtype):
    "Exact two's-complement wraparound of int64 `values` into `dtype`."
    bits = 8 * dtype.itemsize
    return (((values.astype(np.int64) + 2 ** (bits - 1)) % 2 ** bits) - 2 ** (bits - 1)).astype(dtype.np)


def test_each_dtype_round_trips_through_numpy():
    for dt in DTYPES.values():
        a = sample(dt)
        out = Tensor(a).numpy()
        assert Tensor(a).dtype is dt and out.dtype == dt.np and (out == a).all()
    assert Tensor(np.zeros(2, np.float32)).bfloat16().numpy().dtype == np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES.values(), repeat=2)), ids=lambda d: d.name)
def test_binary_ops_compute_in_the_promoted_dtype(a, b):
    x, y = sample(a), sample(b)
    c = promote(a, b)
    out = Tensor(x) + Tensor(y)
    assert out.dtype is c
    expected = (x.astype(np.float32) + y.astype(np.float32)) if c.is_half else (x.astype(c.np) + y.astype(c.np))
    np.testing.assert_array_equal(out.numpy(), np.asarray(expected).astype(c.np))


def test_the_lattice():
    assert promote(float16, bfloat16) is float32                    # the two half widths meet at float32
    for half in (float16, bfloat16):
        assert promote(half, float32) is float32 and promote(half, float64) is float64
    for i in INTS:                                                  # int meets float at float32 or wider
        assert promote(i, float16) is float32 and promote(i, bfloat16) is float32
        assert promote(i, float32) is float32 and promote(i, float64) is float64
    assert promote(int8, int16) is int16 and promote(int16, int32) is int32


@pytest.mark.parametrize("dt", [int8, int16])
def test_narrow_int_arithmetic_wraps_exactly(dt):
    lo, hi = np.iinfo(dt.np).min, np.iinfo(dt.np).max
    x = rng.integers(lo, hi + 1, size=(6, 7)).astype(dt.np)
    y = rng.integers(lo, hi + 1, size=(6, 7)).astype(dt.np)
    x[0, :3], y[1, :3] = lo, lo                                 # the most negative value, where -x overflows
    X, Y = Tensor(x), Tensor(y)
    x64, y64 = x.astype(np.int64), y.astype(np.int64)
    cases = {
        "add": (X + Y, x64 + y64), "sub": (X - Y, x64 - y64), "mul": (X * Y, x64 * y64), "neg": (-X, -x64),
        "sum": (X.sum(1), x64.sum(1)), "sum_all": (X.sum(), x64.sum()), "matmul": (X @ Y.T, x64 @ y64.T),
        "square": (X ** 2, x64 ** 2), "max": (X.amax(0), x64.max(0)), "min": (X.amin(0), x64.min(0)),
        "maximum": (limn.maximum(X, Y), np.maximum(x64, y64)), "minimum": (limn.minimum(X, Y), np.minimum(x64, y64)),
    }
    for name, (mine, exact) in cases.items():
        assert mine.dtype is dt, name
        np.testing.assert_array_equal(mine.numpy(), wrap(np.asarray(exact), dt), err_msg=name)
    for name, (mine, exact) in {"cmp": (X < Y, x64 < y64), "eq": (X == X, np.ones(x64.shape, bool))}.items():
        assert mine.is_bool and mine.dtype is int8, name                # comparisons are boolean, stored as int8
        np.testing.assert_array_equal(mine.numpy(), exact, err_msg=name)
    assert Tensor(np.array([hi], dt.np)).add(1).tolist() == [lo] and (-Tensor(np.array([lo], dt.np))).tolist() == [lo]


def test_int32_wraps_too():
    x = Tensor(np.array([2 ** 31 - 1], np.int32))
    assert (x + 1).tolist() == [-2 ** 31] and (x * 2).tolist() == [-2]


def test_python_scalar_takes_the_tensors_dtype():
    x8 = Tensor(np.array([100, -3], np.int8))
    assert (x8 + 1).dtype is int8 and (x8 * 3).dtype is int8 and (2 - x8).dtype is int8
    assert (x8 + 300).tolist() == wrap(np.array([400, 297]), int8).tolist()   # 300 itself wraps to 44 in int8
    h = Tensor(np.array([1.5, 2.0], np.float16))
    assert (h * 2.5).dtype is float16 and (h + 1).dtype is float16 and (1 / h).dtype is float16
    b = Tensor(np.array([1.5], ml_dtypes.bfloat16))
    assert (b * 3.0).dtype is bfloat16
    assert (x8 + 1.5).dtype is float32                               # a float scalar meeting an int makes a float
    assert (Tensor(np.zeros(2)) + 1).dtype is float64 and (x8 / 2).dtype is float32


def half_reference(fn, *arrays, dtype):
    "fn evaluated in float32 on the widened inputs and rounded once to `dtype`: the half-width contract."
    return np.asarray(fn(*(a.astype(np.float32) for a in arrays))).astype(dtype.np)


@pytest.mark.parametrize("dt", [float16, bfloat16], ids=lambda d: d.name)
def test_half_widths_compute_in_float32_and_round_once(dt):
    x = sample(dt, (4, 64)); y = sample(dt, (4, 64))
    X, Y = Tensor(x), Tensor(y)
    for name, mine, fn in [("exp", X.exp(), np.exp), ("mul", X * Y, lambda a, b: a * b), ("add", X + Y, lambda a, b: a + b),
                           ("recip", X.reciprocal(), lambda a: 1 / a), ("sqrt", X.abs().sqrt(), lambda a: np.sqrt(np.abs(a))),
                           ("sum", X.sum(1), lambda a: a.sum(1)), ("max", X.amax(1), lambda a: a.max(1))]:
        args = (x, y) if name in ("mul", "add") else (x,)
        assert mine.dtype is dt
        np.testing.assert_array_equal(mine.numpy(), half_reference(fn, *args, dtype=dt), err_msg=name)


@pytest.mark.parametrize("dt,eps", [(float16, 2.0 ** -11), (bfloat16, 2.0 ** -8)], ids=["float16", "bfloat16"])
def test_half_widths_against_torch_at_their_own_rounding(dt, eps):
    "Composite ops (matmul, softmax, a long sum) in a half width, diffed against torch at that width's rounding."
    x, w = sample(dt, (8, 32)), sample(dt, (32, 16))
    tdt = {float16: torch.float16, bfloat16: torch.bfloat16}[dt]
    tx, tw = (torch.tensor(a.astype(np.float32)).to(tdt) for a in (x, w))
    exact = x.astype(np.float64) @ w.astype(np.float64)
    mine, theirs = (Tensor(x) @ Tensor(w)).numpy().astype(np.float64), (tx @ tw).float().numpy().astype(np.float64)
    scale = np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64))      # error bound scales with sum |x||w|
    # our product rounds each x*w to the width before the float32 sum; allow one rounding per term plus one at the end
    assert (np.abs(mine - exact) <= eps * (scale + np.abs(exact)) * 1.01).all()
    assert (np.abs(mine - theirs) <= 2 * eps * (scale + np.abs(exact))).all()
    s, ts = Tensor(x).softmax(-1).numpy().astype(np.float64), tx.softmax(-1).float().numpy()
    np.testing.assert_allclose(s, ts, rtol=4 * eps, atol=eps * 0.05)
    long = sample(dt, (4096,))
    total = Tensor(long).sum().numpy()
    assert total == np.asarray(long.astype(np.float32).sum(dtype=np.float32)).astype(dt.np)     # rounds once


def test_float_casts_carry_gradients_and_half_meets_float32():
    master = Tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
    act = Tensor(rng.standard_normal((2, 4)).astype(np.float16))
    out = act @ master.half()                                    # half activations meet a float32 master weight
    assert out.dtype is float16
    loss = out.float().sum()
    loss.backward()
    assert master.grad.dtype is float32
    expected = act.numpy().astype(np.float32).sum(0)[:, None].repeat(3, 1)
    np.testing.assert_allclose(master.grad.numpy(), expected, rtol=2 ** -10)
    b = Tensor(np.ones(3, np.float32), requires_grad=True)
    g, = limn.grad((b.bfloat16() * 3).float().sum() + (b.double() * 2).sum().float(), b)
    assert g.dtype is float32 and g.tolist() == [5, 5, 5]


def test_float64_keeps_its_width_through_gradients():
    x = Tensor(rng.standard_normal(5), requires_grad=True)
    y = (x.exp() * 3 + 1).sum()
    assert x.dtype is float64 and y.dtype is float64
    g, = limn.grad(y, x)
    assert g.dtype is float64
    np.testing.assert_allclose(g.numpy(), 3 * np.exp(x.numpy()), rtol=1e-14)


def test_ints_never_have_gradients():
    for dt in INTS:
        with pytest.raises(ValueError, match="requires_grad"): Tensor(np.zeros(2, dt.np), requires_grad=True)
        t = Tensor(np.zeros(2, dt.np))
        with pytest.raises(ValueError, match="requires_grad"): t.requires_grad = True
    x = Tensor([1.5, -2.5], requires_grad=True)
    i = x.int()
    assert i.dtype is int32 and not i.requires_grad and i.tolist() == [1, -2]          # truncates toward zero
    assert not (x < 0).requires_grad
    g, = limn.grad((x * 2).sum() + i.float().sum(), x)
    assert g.tolist() == [2, 2]                                 # the cast to int cut the second term off


def test_comparisons_and_division():
    x = Tensor(np.array([3, 4], np.int16))
    assert (x < 4).dtype is int8 and (x < 4).is_bool and (x < 4).tolist() == [True, False]
    assert (x / 2).dtype is float32 and (x / 2).tolist() == [1.5, 2.0]
    assert (Tensor(np.array([1.0], np.float16)) < 2).is_bool
    assert ((x < 4) * x).dtype is int16 and ((Tensor(np.array([1.0], np.float16)) < 2) * 1.5).dtype is float32
    assert ((x < 4) * Tensor(np.array([2.0, 2.0], np.float16))).dtype is float16      # a mask takes its partner's dtype


def _bits(x, dtype):
    "The raw bytes of `x` as unsigned ints, so NaNs compare too."
    return np.asarray(x, dtype.np).view(f"u{dtype.itemsize}")


@pytest.mark.parametrize("dt", FLOATS + INTS, ids=lambda d: d.name)
def test_numpy_op_gives_the_same_bits_on_whole_arrays_and_one_element_at_a_time(dt):
    # the numpy device applies numpy_op to whole arrays, the IR interpreter to one element at a time: they must not differ
    from limn.device import numpy_op
    from limn.ops import Ops
    arity = {Ops.NEG: 1, Ops.ADD: 2, Ops.MUL: 2, Ops.CMPLT: 2, Ops.MAX: 2, Ops.WHERE: 3}
    if dt.is_float: arity.update({Ops.EXP: 1, Ops.LOG: 1, Ops.SQRT: 1, Ops.RECIP: 1})
    for op, n in arity.items():
        args = [sample(dt, (32,)) for _ in range(n)]
        with np.errstate(all="ignore"):
            whole = numpy_op(op, args, dt)
            single = [numpy_op(op, [a[i] for a in args], dt) for i in range(32)]
        assert whole.dtype == dt.np and all(type(s) is dt.np.type for s in single), op
        np.testing.assert_array_equal(_bits(whole, dt), _bits(single, dt), err_msg=op.name)


@pytest.mark.parametrize("src,dst", list(itertools.product(FLOATS + INTS, repeat=2)), ids=lambda d: d.name)
def test_numpy_cast_gives_the_same_bits_on_whole_arrays_and_one_element_at_a_time(src, dst):
    from limn.device import numpy_cast
    x = sample(src, (32,)) * (3 if src.is_float else 1)
    with np.errstate(all="ignore"):
        whole, single = numpy_cast(x, src, dst), [numpy_cast(v, src, dst) for v in x]
    np.testing.assert_array_equal(_bits(whole, dst), _bits(single, dst))
    if src.is_float and dst.is_int:                                   # truncation toward zero, then the int's wraparound
        np.testing.assert_array_equal(whole, wrap(np.trunc(x.astype(np.float64)).astype(np.int64), dst))

"""Tensor methods under torch's names held to torch itself, forward and backward, on the numpy and c devices: boolean
masks and comparisons, max/min over a dim as (values, indices), int data outside int32, slicing with steps, and the
methods a training script reaches for (split, sort, topk, cumsum, gather, scatter_add, //, %, einsum, ...)."""
import numpy as np
import pytest
import torch

import limn
from limn import Tensor, use_device

DEVICES = ["numpy", "c"]
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)          # one shape for most checks: the c device compiles each kernel once
X[1, 2] = X[0, 1]                                            # a repeated value, so sorts and ranks meet a tie


@pytest.fixture(params=DEVICES)
def device(request):
    with use_device(request.param):
        yield request.param


def _pair(*arrays):
    "limn and torch leaves for each array; float ones require grad."
    mine = [Tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    theirs = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    return mine, theirs


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def check(fn, torch_fn, *arrays, grad=True, rtol=1e-5, atol=1e-6):
    "fn(limn tensors) against torch_fn(torch tensors): every output, then the gradients of sum(out * w) for float outputs."
    mine, theirs = _pair(*arrays)
    got, want = _outputs(fn(*mine)), _outputs(torch_fn(*theirs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape), (g.shape, tuple(w.shape))
        np.testing.assert_allclose(g.numpy().astype(np.float64), w.detach().numpy().astype(np.float64), rtol=rtol, atol=atol)
    if not grad: return
    weights = [RNG.standard_normal(w.shape).astype(np.float32) for w in want]
    loss_mine = sum((g * Tensor(c)).sum() for g, w, c in zip(got, want, weights) if w.dtype.is_floating_point)
    loss_theirs = sum((w * torch.tensor(c)).sum() for w, c in zip(want, weights) if w.dtype.is_floating_point)
    loss_mine.backward()
    loss_theirs.backward()
    for m, t in zip(mine, theirs):
        if t.grad is not None:
            np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol)


# --- booleans and masks -----------------------------------------------------------------------------------------------
def test_mask_indexing_selects_like_torch(device):
    check(lambda x: x[x > 0], lambda x: x[x > 0], X)
    rows = np.array([True, False, True])
    check(lambda x: x[Tensor(rows)], lambda x: x[torch.tensor(rows)], X)
    check(lambda x: x[:, Tensor(X[0] > 0)], lambda x: x[:, torch.tensor(X[0] > 0)], X)
    cube = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    check(lambda c: c[..., Tensor(X > 0)], lambda c: c[..., torch.tensor(X > 0)], cube)


def test_comparisons_give_torch_numbers(device):
    x, t = Tensor(X), torch.tensor(X)
    m, tm = x > 0, t > 0
    assert m.is_bool and m.numpy().dtype == np.bool_ and m.tolist() == tm.tolist()
    assert (m.sum().item(), m.sum().dtype.is_int) == (tm.sum().item(), True)
    np.testing.assert_array_equal((m * 2.5).numpy(), (tm * 2.5).numpy())
    np.testing.assert_array_equal((m * 200).numpy(), (tm * 200).numpy())          # an int8 mask must not wrap
    np.testing.assert_array_equal((x * m).numpy(), (t * tm).numpy())
    np.testing.assert_array_equal(limn.where(m, x, -x).numpy(), torch.where(tm, t, -t).numpy())
    np.testing.assert_array_equal((~m).numpy(), (~tm).numpy())
    np.testing.assert_array_equal((m & (x < 1)).numpy(), (tm & (t < 1)).numpy())
    np.testing.assert_array_equal(m.any(1).numpy(), tm.any(1).numpy())
    both, either = m * (x < 1), m + (x < 1)                                    # and, or: still masks
    assert both.tolist() == (tm * (t < 1)).tolist() and either.tolist() == (tm + (t < 1)).tolist()
    np.testing.assert_array_equal(x[either].numpy(), t[tm + (t < 1)].numpy())
    np.testing.assert_array_equal(m.all(0).numpy(), tm.all(0).numpy())
    assert (x > 0).float().dtype is limn.float32 and (x > 0).long().dtype is limn.int32
    special = np.array([np.nan, 1.0, -np.inf, np.inf, 0.0], np.float32)
    a, ta = Tensor(special), torch.tensor(special)
    b, tb = a.flip(0), ta.flip(0)
    for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        assert getattr(a, op)(b).tolist() == getattr(ta, op)(tb).tolist(), op
    assert a.isnan().tolist() == ta.isnan().tolist() and a.isinf().tolist() == ta.isinf().tolist()
    assert a.isfinite().tolist() == ta.isfinite().tolist() and a.bool().tolist() == ta.bool().tolist()


def test_masked_fill(device):
    check(lambda x: x.masked_fill(x < 0, 0.5), lambda x: x.masked_fill(x < 0, 0.5), X)
    check(lambda x: x.masked_fill(Tensor(X[0] > 0), -1.0), lambda x: x.masked_fill(torch.tensor(X[0] > 0), -1.0), X)


# --- max and min ------------------------------------------------------------------------------------------------------
def test_max_min_over_a_dim_are_values_and_indices(device):
    ties = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 0.0, -1.0], [5.0, 4.0, 5.0, 5.0]], np.float32)
    check(lambda x: x.max(dim=1), lambda x: x.max(dim=1), ties)
    check(lambda x: x.min(0), lambda x: x.min(0), ties)
    check(lambda x: x.max(1, keepdim=True), lambda x: x.max(1, keepdim=True), ties)
    v, i = Tensor(ties).max(dim=1)
    r = Tensor(ties).max(1)
    assert r.values.shape == (3,) and r.indices.tolist() == [1, 0, 0] and r[0].tolist() == v.tolist() and len(r) == 2
    check(lambda x: x.max(), lambda x: x.max(), ties)
    check(lambda x: x.amax(1), lambda x: x.amax(1), ties)                 # amax shares a tie's gradient, as torch's does
    check(lambda x: x.argmax(1), lambda x: x.argmax(1), ties, grad=False)
    check(lambda x: x.argmin(0, keepdim=True), lambda x: x.argmin(0, keepdim=True), ties, grad=False)
    check(lambda x, y: x.max(y), lambda x, y: x.max(y), X, X[::-1].copy())


# --- int data ---------------------------------------------------------------------------------------------------------
def test_int_data_outside_int32_is_refused():
    with pytest.raises(ValueError, match="int32"):
        Tensor(np.array([1, 2**31], np.int64))
    with pytest.raises(ValueError, match="int32"):
        Tensor([-(2**40)])
    assert Tensor(np.array([2**31 - 1, -(2**31)], np.int64)).tolist() == [2**31 - 1, -(2**31)]
    with pytest.raises(ValueError, match="int8"):
        Tensor(np.array([300]), dtype=limn.int8)


def test_int_power_stays_int(device):
    got = Tensor([3]) ** 70
    want = torch.tensor([3], dtype=torch.int32) ** 70
    assert got.dtype is limn.int32 and got.tolist() == want.tolist()


# --- movement ---------------------------------------------------------------------------------------------------------
def test_steps_are_views(device):
    for index in [(slice(None, None, 2),), (slice(None), slice(1, None, 2)), (slice(None, None, -1), slice(None, None, -2)),
                  (slice(2, 0, -1), slice(3, None, -3))]:
        y = Tensor(X)[index]
        assert y.node.op is limn.Ops.VIEW and y.node.srcs[0].op is limn.Ops.BUFFER
        np.testing.assert_array_equal(y.numpy(), X[index])
    check(lambda x: x[::2, 1::2] * 3, lambda x: x[::2, 1::2] * 3, X)
    check(lambda x: x[::-1, ::-2], lambda x: x.flip(0, 1)[:, ::2], X)
    check(lambda x: x.flip(1), lambda x: x.flip(1), X)
    check(lambda x: x.flip((0, 1)), lambda x: x.flip((0, 1)), X)


def test_roll_repeat_tril_triu(device):
    check(lambda x: x.roll(1, 1), lambda x: x.roll(1, 1), X)
    check(lambda x: x.roll((-1, 2), (0, 1)), lambda x: x.roll((-1, 2), (0, 1)), X)
    check(lambda x: x.roll(5), lambda x: x.roll(5), X)
    check(lambda x: x.repeat(2, 1), lambda x: x.repeat(2, 1), X)
    check(lambda x: x.repeat(2, 1, 3), lambda x: x.repeat(2, 1, 3), X)
    check(lambda x: x.tril(), lambda x: x.tril(), X)
    check(lambda x: x.triu(1), lambda x: x.triu(1), X)
    check(lambda x: x.tril(-1), lambda x: x.tril(-1), X)


def test_split_chunk_unbind(device):
    check(lambda x: x.split(3, 1), lambda x: x.split(3, 1), X)
    check(lambda x: x.split([1, 2], 0), lambda x: x.split([1, 2], 0), X)
    check(lambda x: x.chunk(3, 1), lambda x: x.chunk(3, 1), X)
    check(lambda x: x.unbind(0), lambda x: x.unbind(0), X)
    assert Tensor(X).dim() == 2 and len(Tensor(X).chunk(3, 1)) == len(torch.tensor(X).chunk(3, 1))


# --- sorting ----------------------------------------------------------------------------------------------------------
def test_sort_argsort_topk(device):
    check(lambda x: x.sort(1), lambda x: x.sort(dim=1, stable=True), X)
    check(lambda x: x.sort(0, descending=True), lambda x: x.sort(dim=0, descending=True, stable=True), X)
    check(lambda x: x.argsort(1), lambda x: x.argsort(dim=1, stable=True), X, grad=False)
    check(lambda x: x.topk(2, 1), lambda x: x.topk(2, 1), X)
    check(lambda x: x.topk(2, 0, largest=False), lambda x: x.topk(2, 0, largest=False), X)
    with_nan = np.array([[1.0, np.nan, -1.0, 3.0]], np.float32)
    v, i = Tensor(with_nan).sort(1)
    tv, ti = torch.tensor(with_nan).sort(1)
    np.testing.assert_array_equal(v.numpy(), tv.numpy())
    assert i.tolist() == ti.tolist()


# --- scans and products -----------------------------------------------------------------------------------------------
def test_cumsum_cumprod_prod_norm(device):
    check(lambda x: x.cumsum(1), lambda x: x.cumsum(1), X)
    check(lambda x: x.cumsum(0), lambda x: x.cumsum(0), X)
    check(lambda x: x.cumprod(1), lambda x: x.cumprod(1), X)
    with_zero = X.copy()
    with_zero[1, 1] = 0.0
    check(lambda x: x.cumprod(1), lambda x: x.cumprod(1), with_zero)
    check(lambda x: x.prod(1), lambda x: x.prod(1), with_zero)
    check(lambda x: x.prod(), lambda x: x.prod(), X)
    check(lambda x: x.prod(0, keepdim=True), lambda x: x.prod(0, keepdim=True), X)
    check(lambda x: x.norm(), lambda x: x.norm(), X)
    check(lambda x: x.norm(dim=1), lambda x: x.norm(dim=1), X)
    check(lambda x: x.norm(1, dim=0, keepdim=True), lambda x: x.norm(1, dim=0, keepdim=True), X)
    check(lambda x: x.norm(3, dim=1), lambda x: x.norm(3, dim=1), X, rtol=1e-4)
    check(lambda x: x.norm(float("inf"), dim=1), lambda x: x.norm(float("inf"), dim=1), X)
    zero_row = X.copy()
    zero_row[1] = 0.0
    check(lambda x: x.norm(dim=1), lambda x: x.norm(dim=1), zero_row)         # a zero gradient at 0, not nan
    check(lambda x: x.norm(3, dim=1), lambda x: x.norm(3, dim=1), zero_row, rtol=1e-4)
    assert Tensor([[True, False], [True, True]]).cumsum(1).tolist() == [[1, 1], [1, 2]]


# --- gather and scatter -----------------------------------------------------------------------------------------------
def test_gather_scatter_add(device):
    index = np.array([[3, 0, 0], [1, 2, 3], [0, 0, 1]], np.int64)
    check(lambda x: x.gather(1, Tensor(index)), lambda x: x.gather(1, torch.tensor(index)), X)
    rows = np.array([[2, 0, 1, 1], [0, 0, 2, 1]], np.int64)
    check(lambda x: x.gather(0, Tensor(rows)), lambda x: x.gather(0, torch.tensor(rows)), X)
    src = RNG.standard_normal((3, 3)).astype(np.float32)
    check(lambda x, s: x.scatter_add(1, Tensor(index), s), lambda x, s: x.scatter_add(1, torch.tensor(index), s), X, src)
    wide = RNG.standard_normal((2, 4)).astype(np.float32)
    check(lambda x, s: x.scatter_add(0, Tensor(rows), s), lambda x, s: x.scatter_add(0, torch.tensor(rows), s), X, wide)
    check(lambda x: x.index_select(1, Tensor([3, 1])), lambda x: x.index_select(1, torch.tensor([3, 1])), X)
    with pytest.raises(ValueError):
        Tensor(X).gather(1, Tensor([[4, 0, 0]])).numpy()


# --- floor division and remainder -------------------------------------------------------------------------------------
def test_floor_division_and_remainder(device):
    a = (RNG.standard_normal((3, 4)) * 10).astype(np.float32)
    b = np.where(RNG.random((3, 4)) < 0.5, -1, 1) * (RNG.random((3, 4)) * 3 + 0.1).astype(np.float32)
    b = b.astype(np.float32)
    check(lambda x, y: x // y, lambda x, y: x // y, a, b, grad=False)
    check(lambda x, y: x % y, lambda x, y: x % y, a, b)
    check(lambda x: x % 2.5, lambda x: x % 2.5, a)
    check(lambda x: x // -3, lambda x: x // -3, a, grad=False)
    ia = np.array([[7, -7, 7, -7], [0, 5, -5, 9]], np.int32)
    ib = np.array([[2, 2, -2, -2], [3, -3, 3, 4]], np.int32)
    check(lambda x, y: x // y, lambda x, y: x // y, ia, ib, grad=False)
    check(lambda x, y: x % y, lambda x, y: x % y, ia, ib, grad=False)
    check(lambda x: 7 // x, lambda x: 7 // x, ib, grad=False)
    check(lambda x: x.floor(), lambda x: x.floor(), a)
    check(lambda x: x.ceil(), lambda x: x.ceil(), a)
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1e8, -3.7], np.float32)
    check(lambda x: x.round(), lambda x: x.round(), halves)
    check(lambda x: x.trunc(), lambda x: x.trunc(), halves)


# --- the rest ---------------------------------------------------------------------------------------------------------
def test_einsum(device):
    y = RNG.standard_normal((4, 5)).astype(np.float32)
    check(lambda a, b: limn.einsum("ij,jk->ik", a, b), lambda a, b: torch.einsum("ij,jk->ik", a, b), X, y)
    check(lambda a, b: limn.einsum("ij,kj", a, b.T[:3]), lambda a, b: torch.einsum("ij,kj", a, b.T[:3]), X, y)
    check(lambda a: limn.einsum("ij->j", a), lambda a: torch.einsum("ij->j", a), X)
    batch = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    check(lambda a, b: limn.einsum("...ij,jk->...ik", a, b), lambda a, b: torch.einsum("...ij,jk->...ik", a, b), batch, y)
    check(lambda a, b: limn.einsum("bij,bij->b", a, b), lambda a, b: torch.einsum("bij,bij->b", a, b), batch, batch * 2)


def test_long_bool_dim_manual_seed():
    x = Tensor(np.array([1.5, 0.0, -2.0], np.float32))
    assert x.long().dtype is limn.int32 and x.long().tolist() == [1, 0, -2]
    assert x.bool().tolist() == [True, False, True] and x.dim() == 1
    limn.manual_seed(3)
    a = Tensor.randn(4).numpy()
    limn.manual_seed(3)
    assert np.array_equal(a, Tensor.randn(4).numpy())

"""The Tensor API against PyTorch: the spec's first example as written, and the methods a PyTorch user reaches for first."""
import contextlib, io

import numpy as np
import pytest
import torch

import limn
from limn import Tensor

FIRST_EXAMPLE = '''
from limn import Tensor

x = Tensor.randn((4, 3), requires_grad=True)
loss = ((x @ Tensor.randn((3, 2))).relu() ** 2).sum()
loss.backward()          # gradients are lazy graphs too
print(x.grad.numpy())    # nothing computes until here
'''


def test_the_spec_first_example_gives_torchs_numbers():
    limn.set_seed(42)
    out = io.StringIO()
    ns = {}
    with contextlib.redirect_stdout(out): exec(FIRST_EXAMPLE, ns)
    limn.set_seed(42)
    x, w = Tensor.randn((4, 3)).numpy(), Tensor.randn((3, 2)).numpy()      # the same two draws
    tx = torch.tensor(x, requires_grad=True)
    ((tx @ torch.tensor(w)).relu() ** 2).sum().backward()
    np.testing.assert_allclose(ns["x"].grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    printed = np.array([[float(v) for v in row.strip(" []").split()] for row in out.getvalue().strip().splitlines()])
    np.testing.assert_allclose(printed, tx.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_lazy_until_asked():
    calls = []
    class Counting(limn.device.NumpyDevice):
        name = "counting"
        def realize(self, sinks): calls.append(len(sinks)); return super().realize(sinks)
    limn.register_device("counting", Counting)
    try:
        with limn.use_device("counting"):
            x = Tensor.randn((3, 3), requires_grad=True)
            y = (x @ x).softmax(-1).sum()
            y.backward()
            assert calls == []                                    # building graphs and gradients computed nothing
            limn.realize(y, x.grad)
            assert calls == [2]
            assert y.node.op is limn.Ops.BUFFER and x.grad.node.op is limn.Ops.BUFFER
    finally:
        del limn.device._FACTORIES["counting"]


def test_methods_match_torch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    A, T = Tensor(a), torch.tensor(a)
    pairs = [
        (A.mean(), T.mean()), (A.var(1), T.var(1)), (A.std(-1, keepdim=True), T.std(-1, keepdim=True)),
        (A.var(0, correction=0), T.var(0, correction=0)), (A.max(), T.max()), (A.min(axis=(0, 2)), T.amin((0, 2))),
        (A.sum(dim=1, keepdim=True), T.sum(1, keepdim=True)), (A.logsumexp(-1), T.logsumexp(-1)),
        (A.log_softmax(1), T.log_softmax(1)), (A.softmax(0), T.softmax(0)), (A.flatten(1), T.flatten(1)),
        (A.transpose(0, 2), T.transpose(0, 2)), (A.unsqueeze(1).squeeze(), T.unsqueeze(1).squeeze()), (A[..., 1:3, None], T[..., 1:3, None]),
        (A[-1, :, -2], T[-1, :, -2]), (A.view(5, -1), T.view(5, -1)), (A.reshape(-1)[7:], T.reshape(-1)[7:]),
        (A.pad(((0, 0), (1, 1), (2, 0)), value=-1.5), torch.nn.functional.pad(T, (2, 0, 1, 1), value=-1.5)),
        (limn.stack(list(A), 2), torch.stack(list(T), 2)), (limn.cat([A, A * 2], -1), torch.cat([T, T * 2], -1)),
        (A[0].T @ A[1], T[0].T @ T[1]), (A.gelu(), torch.nn.functional.gelu(T, approximate="tanh")),
        (A.silu(), torch.nn.functional.silu(T)), (A.rsqrt().abs(), T.rsqrt().abs()), (A ** 0.5, T ** 0.5), (3 ** A, 3 ** T),
        ((A > 0.5) * A, (T > 0.5) * T), ((A != A[0]), (T != T[0]).float()), (A.expand(2, 3, 4, 5), T.expand(2, 3, 4, 5)),
        (Tensor.eye(3, 4), torch.eye(3, 4)), (Tensor.arange(2, 11, 3), torch.arange(2, 11, 3)), (Tensor.full((2, 2), 7.0), torch.full((2, 2), 7.0)),
        (A.maximum(0.1), torch.maximum(T, torch.tensor(0.1))), (A.where(A > 0, 0.0), T.where(T > 0, 0.0)),
        (A.clamp(-0.5, 0.7), T.clamp(-0.5, 0.7)), (A.clamp(max=0.2), T.clamp(max=0.2)),
        (A.argmax(1), T.argmax(1).int()), (A.argmin(-1, keepdim=True), T.argmin(-1, keepdim=True).int()), (A.argmax(), T.argmax().int()),
        (Tensor([2, 0, 2]).one_hot(3), torch.nn.functional.one_hot(torch.tensor([2, 0, 2]), 3).int()),
    ]
    for i, (mine, theirs) in enumerate(pairs):
        assert mine.shape == tuple(theirs.shape), (i, mine.shape, theirs.shape)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5, err_msg=f"pair {i}")


def test_iteration_and_unpacking_walk_dim0():
    qkv = Tensor(np.arange(24, dtype=np.float32).reshape(3, 2, 4))
    q, k, v = qkv
    assert q.shape == (2, 4) and v.tolist() == np.arange(16, 24).reshape(2, 4).tolist()
    assert len(qkv) == 3 and [r.shape for r in qkv[0]] == [(4,), (4,)]
    with pytest.raises(TypeError): list(Tensor(1.0))


def test_seeded_draws_are_reproducible():
    limn.set_seed(5); a = (Tensor.randn(3), Tensor.rand(2, 2), Tensor.randint(0, 10, (4,)), Tensor.ones(50).dropout(0.5))
    limn.set_seed(5); b = (Tensor.randn(3), Tensor.rand(2, 2), Tensor.randint(0, 10, (4,)), Tensor.ones(50).dropout(0.5))
    for x, y in zip(a, b): assert (x.numpy() == y.numpy()).all()
    assert not (Tensor.randn(3).numpy() == a[0].numpy()).all()
    assert Tensor.ones(4).dropout(0.5, training=False).tolist() == [1, 1, 1, 1]


def test_a_10000_op_chain_realizes_and_differentiates():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)      # float64: the chain's product is exact enough to check
    y = x
    for _ in range(10_000): y = y * 1.0001
    g, = limn.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), [1.0001 ** 10_000] * 2, rtol=1e-9)
    np.testing.assert_allclose(y.numpy(), np.array([1.0, 2.0]) * 1.0001 ** 10_000, rtol=1e-9)


def test_assign_transaction_through_the_tensor_api():
    p = Tensor(np.array([1.0, 2.0], np.float32))
    g = Tensor(np.array([0.5, 0.5], np.float32))
    loss = (p * p).sum()
    p.assign(p - g)
    limn.realize(p, loss)                                     # the loss sees the pre-step p, whatever the order
    assert loss.item() == 5.0 and p.tolist() == [0.5, 1.5]
    with pytest.raises(ValueError, match="same buffer"):
        q = Tensor([1.0]); a, b = q * 1, q * 1
        limn.realize(Tensor(q.node).assign(q + 1), Tensor(q.node).assign(q + 2))


def test_argmax_takes_the_first_of_ties_and_clamp_gradients():
    x = Tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    assert x.argmax(1).tolist() == [1, 0] and x.argmin(1).tolist() == [0, 2]
    assert Tensor(np.array([-128, 5, -128], np.int8)).argmin().item() == 0
    v = Tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True); tv = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
    g, = limn.grad(v.clamp(0.0, 1.0).sum(), v); tg, = torch.autograd.grad(tv.clamp(0.0, 1.0).sum(), tv)
    assert g.tolist() == tg.tolist()
    assert Tensor([1.0]).requires_grad_().requires_grad


def test_shared_constants_survive_realize_and_assign():
    z = Tensor.zeros(3)
    z.realize()
    z.assign(z + 1); z.realize()
    assert z.tolist() == [1, 1, 1] and Tensor.zeros(3).tolist() == [0, 0, 0]
    a, b = Tensor([1.0, 2.0]) * 2.0, Tensor([3.0, 4.0]) * 2.0
    assert a.node.srcs[1] is b.node.srcs[1]                         # one node for the constant 2.0 broadcast to (2,)


@pytest.mark.parametrize("device", ["numpy", "c"])
def test_a_graph_that_reads_an_assigned_tensor_sees_the_assigned_value(device):
    # the numpy device once freed the ASSIGN's value before the commit read it (KeyError: <ASSIGN float32[2]>)
    with limn.use_device(device):
        t = Tensor(np.array([1.0, 2.0], np.float32))
        buffer = t.node.arg
        t.assign(t + 1.0)
        assert (t * 10.0).tolist() == [20, 30]
        assert t.tolist() == [2, 3] and t.node.arg is buffer          # committed once, in place, not applied twice


def test_iter_of_a_0d_tensor_raises_at_iter_as_numpy_and_torch_do():
    for zero_d in (Tensor(1.0), np.array(1.0), torch.tensor(1.0)):
        with pytest.raises(TypeError): iter(zero_d)
    assert [row.tolist() for row in Tensor([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]


def _random_index(rng, shape):
    """(entries, tensor_dim): an index for `shape` with the placeholder "T" as the entry for dim `tensor_dim`, and ints
    (negative too), slices, None and ... (standing for exactly one dim) around it."""
    tensor_dim, entries, ellipsis_used = int(rng.integers(len(shape))), [], False
    for d, size in enumerate(shape):
        kind = "tensor" if d == tensor_dim else rng.choice(["int", "slice", "all", "ellipsis"])
        if kind == "tensor": entries.append("T")
        elif kind == "int": entries.append(int(rng.integers(-size, size)))
        elif kind == "slice": lo = int(rng.integers(0, size)); entries.append(slice(lo, int(rng.integers(lo, size + 1))))
        elif kind == "ellipsis" and not ellipsis_used: entries.append(Ellipsis); ellipsis_used = True
        else: entries.append(slice(None))
    if not ellipsis_used:                                   # trailing whole dims may be left out
        while entries[-1] == slice(None) and rng.random() < 0.5: entries.pop()
    for _ in range(int(rng.integers(0, 2))): entries.insert(int(rng.integers(0, len(entries) + 1)), None)
    return tuple(entries), tensor_dim


def test_a_tensor_among_ints_slices_none_and_ellipsis_indexes_as_numpy_does():
    rng = np.random.default_rng(0)
    for case in range(300):
        shape = tuple(int(s) for s in rng.integers(1, 5, size=rng.integers(1, 5)))
        a = rng.standard_normal(shape).astype(np.float32)
        entries, tensor_dim = _random_index(rng, shape)
        ids = rng.integers(0, shape[tensor_dim], size=tuple(int(s) for s in rng.integers(1, 3, size=rng.integers(0, 3)))).astype(np.int32)
        expected = a[tuple(ids if e == "T" else e for e in entries)]
        got = Tensor(a)[tuple(Tensor(ids) if e == "T" else e for e in entries)].numpy()
        assert got.shape == expected.shape, (shape, entries, ids.shape)
        np.testing.assert_array_equal(got, expected)


def test_tensor_index_gradient_and_refusals():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    ids = np.array([2, 0, 2], np.int32)
    w, tw = Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    g, = limn.grad((w[:, Tensor(ids), 1] ** 2).sum(), w)
    tg, = torch.autograd.grad((tw[:, torch.tensor(ids, dtype=torch.long), 1] ** 2).sum(), tw)
    np.testing.assert_array_equal(g.numpy(), tg.numpy())                # colliding rows add, as torch's index_put does
    x = Tensor(a)
    with pytest.raises(IndexError, match="one Tensor entry"): x[Tensor(ids), Tensor(ids)]
    with pytest.raises(TypeError, match="must hold ints"): x[Tensor([0.0]), 0]
    with pytest.raises(IndexError, match="too many indices"): x[Tensor(ids), 0, 0, 0]

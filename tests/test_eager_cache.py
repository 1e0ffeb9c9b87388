"""What an eager (uncaptured) step caches, held to what it would build afresh: a composite's replayed template makes the
very graph its build makes and torch's values, a realize with assigns finds the same held readers from the walk it
already made (inside it or outside it), and a failed realize still leaves every tensor as it was (#28)."""
import numpy as np
import pytest
import torch

import limn
from limn import Tensor, use_device, no_grad
from limn import tensor as limn_tensor
from limn.executor import graph_key
from limn.ops import placeholder

RNG = np.random.default_rng(28)
X = (RNG.standard_normal((5, 7)) * 3).astype(np.float32)

# (name, limn call, torch call): every method built through `_composite`
COMPOSITES = [
    ("tanh", lambda t: t.tanh(), torch.tanh),
    ("sigmoid", lambda t: t.sigmoid(), torch.sigmoid),
    ("silu", lambda t: t.silu(), torch.nn.functional.silu),
    ("softplus", lambda t: t.softplus(beta=2.0, threshold=3.0), lambda t: torch.nn.functional.softplus(t, 2.0, 3.0)),
    ("erf", lambda t: t.erf(), torch.erf),
    ("gelu_tanh", lambda t: t.gelu("tanh"), lambda t: torch.nn.functional.gelu(t, approximate="tanh")),
    ("gelu_none", lambda t: t.gelu("none"), torch.nn.functional.gelu),
    ("sin", lambda t: t.sin(), torch.sin),
    ("cos", lambda t: t.cos(), torch.cos),
    ("log_softmax", lambda t: t.log_softmax(1), lambda t: t.log_softmax(1)),
    ("logsumexp", lambda t: t.logsumexp(0, keepdim=True), lambda t: t.logsumexp(0, keepdim=True)),
]
BUILDS = {"tanh": limn_tensor._tanh, "sigmoid": limn_tensor._sigmoid, "silu": limn_tensor._silu,
          "erf": limn_tensor._erf, "gelu_tanh": limn_tensor._gelu_tanh, "gelu_none": limn_tensor._gelu_none}


@pytest.fixture(params=["numpy", "c"])
def device(request):
    with use_device(request.param):
        yield request.param


@pytest.mark.parametrize("name, build", list(BUILDS.items()))
@pytest.mark.parametrize("dtype", [limn.float32, limn.float64])
def test_a_replayed_template_is_the_graph_a_fresh_build_makes(name, build, dtype):
    x = Tensor(X.astype(dtype.np))
    limn_tensor._COMPOSITE_TEMPLATES.clear()
    with no_grad():
        fresh = build(x).cast(dtype).node
        recorded = limn_tensor._composite_nodes(x, build, ("test-" + name, None, dtype, x.shape))   # records, replays
        replayed = limn_tensor._composite_nodes(x, build, ("test-" + name, None, dtype, x.shape))   # replays only
    assert ("test-" + name, None, dtype, x.shape) in limn_tensor._COMPOSITE_TEMPLATES
    assert limn_tensor._COMPOSITE_TEMPLATES[("test-" + name, None, dtype, x.shape)] is not None
    assert replayed is not fresh and replayed is not recorded                # new nodes each call ...
    assert graph_key([replayed])[0] == graph_key([fresh])[0] == graph_key([recorded])[0]   # ... of the same graph


@pytest.mark.parametrize("name, mine, theirs", COMPOSITES, ids=[c[0] for c in COMPOSITES])
def test_composites_from_their_templates_hold_to_torch_forward_and_backward(name, mine, theirs, device):
    rows = X if name not in ("sin", "cos") else X * 40                       # sin and cos: reduction beyond pi/4
    for trial in range(3):                                                   # first use records; later ones replay
        x = Tensor(rows + trial, requires_grad=True)
        view = Tensor((rows + trial).T.copy(), requires_grad=True)           # a permuted VIEW as the operand too
        out, out_view = mine(x), mine(view.permute(1, 0))
        (out.sum() + out_view.sum()).backward()
        tx = torch.tensor(rows + trial, dtype=torch.float64, requires_grad=True)
        expected = theirs(tx)
        expected.sum().backward()
        np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(out_view.numpy(), expected.detach().numpy(), rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(view.grad.numpy().T, tx.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_a_half_width_composite_replays_in_float32_and_rounds_once():
    data = X.astype(np.float16)
    with use_device("numpy"):                                                # the c device declines half widths
        with no_grad():
            direct = limn_tensor._tanh(Tensor(data).cast(limn.float32)).cast(limn.float16).numpy()
        for _ in range(2):
            out = Tensor(data).tanh()
            assert out.dtype is limn.float16
            np.testing.assert_array_equal(out.numpy(), direct)
        np.testing.assert_allclose(direct.astype(np.float64), np.tanh(data.astype(np.float64)), rtol=1e-3, atol=1e-4)


def test_a_template_whose_kept_constant_was_realized_is_recorded_afresh(device):
    x = Tensor(X)
    first = x.tanh().numpy()
    key = ("tanh", None, limn.float32, x.shape)
    template = limn_tensor._COMPOSITE_TEMPLATES[key]
    assert template is not None and template.kept, "tanh's template keeps its constants"
    for node in template.kept:                                               # realize them: a replay must not read them
        Tensor(node).realize()
    assert template([x.node]) is None
    again = x.tanh().numpy()
    assert limn_tensor._COMPOSITE_TEMPLATES[key] is not template            # recorded afresh
    np.testing.assert_array_equal(first, again)


def test_a_build_that_reads_a_buffer_of_its_own_is_not_templated_and_still_right():
    table = Tensor(np.arange(35, dtype=np.float32).reshape(5, 7))
    build = lambda t: t * table                                              # reads a buffer that is not its input
    x = Tensor(X)
    key = ("test-own-buffer", None, limn.float32, x.shape)
    with no_grad():
        node = limn_tensor._composite_nodes(x, build, key)
    assert limn_tensor._COMPOSITE_TEMPLATES.get(key, "missing") is None
    np.testing.assert_array_equal(Tensor(node).numpy(), X * np.arange(35, dtype=np.float32).reshape(5, 7))


def test_the_template_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(limn_tensor, "COMPOSITE_TEMPLATES_MAX", 4)
    limn_tensor._COMPOSITE_TEMPLATES.clear()
    for n in range(1, 12):                                                   # a dynamic batch: a new shape each call
        Tensor(np.ones((n, 3), np.float32)).tanh()
        assert len(limn_tensor._COMPOSITE_TEMPLATES) <= 4


def test_held_readers_inside_and_outside_the_walk_keep_the_values_they_had(device):
    # torch computes r_in and r_out before the assign; limn, lazily, must compute both in the realize that assigns p
    p = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    r_in = p * 2                                 # read by the new value: inside the walk of the realize below
    r_out = p * 3                                # read by nothing that realize computes: outside its walk
    chained = r_out + 1                          # held, and reading p only through r_out
    p.assign(r_in + 1)
    p.realize()
    assert p.tolist() == [3, 5, 7]
    assert r_in.tolist() == [2, 4, 6] and r_out.tolist() == [3, 6, 9] and chained.tolist() == [4, 7, 10]


def test_readers_found_for_a_readers_own_assign_join_too(device):
    a = Tensor(np.array([1.0, 2.0], np.float32))
    b = Tensor(np.array([10.0, 20.0], np.float32))
    reads_b = b * 1                              # held: reads b, which a reader's own assign writes
    b_new = b + a                                # a reader of a (held), which assigns b below
    b.assign(b_new)
    a.assign(a * 0)
    limn.realize(a)
    assert a.tolist() == [0, 0]
    assert reads_b.tolist() == [10, 20] and b_new.tolist() == [11, 22]
    assert b.tolist() == [11, 22]


def test_eager_training_steps_match_torch_step_for_step(device):
    """Three eager steps of a small tanh MLP with AdamW (the benchmark's model, scaled down) against torch's: the cached
    composites, optimizer templates and reused walks change no number."""
    from limn import nn
    from limn.optim import AdamW
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((16, 8)).astype(np.float32), rng.standard_normal((16, 1)).astype(np.float32)
    limn.set_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    tmodel = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
    with torch.no_grad():
        for (_, p), tp in zip(model.named_parameters(), tmodel.parameters()):
            tp.copy_(torch.tensor(p.numpy()))
    opt, topt = AdamW(model.named_parameters(), lr=1e-2), torch.optim.AdamW(tmodel.parameters(), lr=1e-2)
    for _ in range(3):
        loss = nn.mse_loss(model(Tensor(x)), Tensor(y))
        loss.backward()
        opt.step(loss)
        opt.zero_grad()
        tloss = torch.nn.functional.mse_loss(tmodel(torch.tensor(x)), torch.tensor(y))
        topt.zero_grad()
        tloss.backward()
        topt.step()
        assert abs(loss.item() - tloss.item()) < 1e-5 * max(1.0, abs(tloss.item()))
    for (_, p), tp in zip(model.named_parameters(), tmodel.parameters()):
        np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_a_failed_eager_step_leaves_every_tensor_as_it_was():
    from limn.optim import SGD
    w = Tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)
    opt = SGD([("w", w)], lr=0.5)
    (w.tanh().sum()).backward()
    grad_before = w.grad.numpy()
    bad = Tensor(np.zeros((2, 3), np.float32))[Tensor([5])]      # a row outside the table: the device call fails
    with pytest.raises(ValueError):
        opt.step(bad)
    assert w.tolist() == [1.0, 2.0]                                 # nothing was written
    assert bad.node.op.name == "GATHER"                              # still pending
    np.testing.assert_array_equal(w.grad.numpy(), grad_before)


def _warm_memories(device_name: str):
    "The memory lists of the c device's warm plans, most recently run last."
    return [w.prepared.memories for w in limn.get_device().executor.warm.values()]


def test_a_handed_back_buffer_is_rewritten_only_once_no_one_holds_it():
    """A warm plan hands back its temporaries (a gradient, a loss); while a caller holds one, the next run writes fresh
    memory, and once it is let go the next run writes the same memory again instead of allocating (#28)."""
    import weakref
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    with use_device("c"):
        def run(values):
            return (Tensor(values) * 2 + 1).realize()           # a fresh input each call, its result handed back
        run(data)
        held = run(data)                                        # the plan is warm from here on
        held_values = held.numpy()
        memories = _warm_memories("c")[-1]
        index = next(i for i, m in enumerate(memories) if m is not None and m.base is None
                     and held.node.arg.array.base is m)
        owner = weakref.ref(memories[index])
        again = run(data)
        assert again.node.arg.array.base is not owner()         # `held` keeps its memory: the run wrote another
        np.testing.assert_array_equal(held.numpy(), held_values)
        np.testing.assert_array_equal(again.numpy(), data * 2 + 1)
        del held, again
        memories = _warm_memories("c")[-1]
        owner = weakref.ref(memories[index])
        third = run(data + 10)
        assert third.node.arg.array.base is owner()             # no one held the last one: written in place
        np.testing.assert_array_equal(third.numpy(), (data + 10) * 2 + 1)

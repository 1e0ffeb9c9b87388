"""The shared executor (limn.executor) on the interpreter and c backends: graph keys, plan and program caches, the assign
transaction, and what a realize hands back."""
import numpy as np
import pytest
import limn.backend_c  # registers "c" (and limn.executor registers "interpreter")
from limn import Tensor, use_device, realize
from limn.ops import Ops
from limn.executor import graph_key

def key(*ts): return graph_key([t.node for t in ts])[0]

def test_graph_key_ignores_contents_only():
    a, b = Tensor(np.ones((3, 4), np.float32)), Tensor(np.zeros((4, 2), np.float32))
    c, d = Tensor(np.full((3, 4), 5, np.float32)), Tensor(np.full((4, 2), 7, np.float32))
    assert key((a @ b).relu()) == key((c @ d).relu())
    assert key(a @ b) != key(a.cast(limn.float64) @ b.cast(limn.float64))         # dtype
    assert key(a + 1) != key(a + 2)                                                 # a constant is baked in
    assert key(a * a) != key(a * c)                                                 # one buffer read twice vs two
    assert key(a.sum(0)) != key(a.sum(1))                                           # reduce axes
    assert key(a[1:]) != key(a[:2])                                                 # views
    assert graph_key([(a * c + a).node])[1] == [a.node.arg, c.node.arg]             # buffers in slot order

@pytest.mark.parametrize("device", ["interpreter", "c"])
def test_plan_reused_across_contents(device):
    with use_device(device) as d:
        outs = []
        for seed in range(3):
            rng = np.random.default_rng(seed)
            x, w = rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
            outs.append(((Tensor(x) @ Tensor(w)).softmax(-1).numpy(), x, w))
            if seed == 0: first = dict(d.stats)
        assert d.stats["plans"] == first["plans"] and d.stats["compiles"] == first["compiles"]
        for got, x, w in outs:
            e = np.exp(x @ w - (x @ w).max(-1, keepdims=True))
            np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)

@pytest.mark.parametrize("device", ["interpreter", "c"])
def test_assign_transaction(device):
    with use_device(device):
        p, q = Tensor(np.arange(3, dtype=np.float32)), Tensor(np.ones(3, np.float32))
        p.realize(); q.realize()
        old_p = p.node.arg
        p_now, q_now = Tensor(p.node), Tensor(q.node)     # handles on the values before either assign
        p.assign(q_now * 2); q.assign(p_now + 10)         # each reads the other's old value
        realize(p, q)
        assert p.numpy().tolist() == [2, 2, 2] and q.numpy().tolist() == [10, 11, 12] and p.node.arg is old_p
        r = Tensor(np.zeros(2, np.float32)); r.realize()
        a, b = Tensor(r.node), Tensor(r.node)
        a.assign(Tensor(np.ones(2, np.float32))); b.assign(Tensor(np.full(2, 2, np.float32)))
        with pytest.raises(ValueError, match="two ASSIGNs to the same buffer"): realize(a, b)
        assert r.node.arg.array.tolist() == [0, 0]

@pytest.mark.parametrize("device", ["interpreter", "c"])
def test_results_never_alias_inputs(device):
    with use_device(device):
        x = Tensor(np.arange(6, dtype=np.float32)); x.realize()
        flat, same = x.reshape(2, 3), x.reshape(2, 3)
        doubled = x * 2
        realize(flat, doubled)
        x.node.arg.array[...] = -1                       # the input changes after the realize
        assert flat.numpy().tolist() == [[0, 1, 2], [3, 4, 5]] and doubled.numpy().tolist() == [0, 2, 4, 6, 8, 10]

def test_one_value_requested_twice_gives_two_buffers():
    with use_device("c") as d:
        x = Tensor(np.arange(4, dtype=np.float32))
        s = (x * 3).sum()
        buffers = d.realize([s.node, s.node])
        assert buffers[0] is not buffers[1] and not np.shares_memory(buffers[0].array, buffers[1].array)
        assert buffers[0].array.item() == buffers[1].array.item() == 18

def test_programs_shared_by_source_hash():
    with use_device("interpreter") as d:
        x = Tensor(np.ones(4, np.float32))
        (x + 1).numpy()
        compiles = d.stats["compiles"]
        realize(Tensor(np.zeros(4, np.float32)) + 1, Tensor(np.zeros(4, np.float32)).exp())
        assert d.stats["compiles"] == compiles + 1      # the +1 kernel renders alike: only exp is new


def test_custom_siblings_run_once_and_unused_outputs_get_scratch():
    import numpy as np
    from limn import Tensor, use_device, realize
    from limn.tensor import custom
    from limn.device import register_custom
    from limn.executor import CustomCall
    calls = []
    def builder(backend, inputs, params):
        def program(ins, outs):
            calls.append(sorted(outs))
            for index, value in ((0, ins[0].sum() * params["k"]), (1, ins[0].max())):
                if index in outs: outs[index][...] = value
        return program
    register_custom("interpreter", "test_sum_max", builder)
    with use_device("interpreter") as d:
        x = Tensor(np.array([1.0, 5.0, 2.0], np.float32))
        s, m = custom("test_sum_max", [x], [((), "float32"), ((), "float32")], {"k": 2})
        s2, _ = custom("test_sum_max", [x], [((), "float32"), ((), "float32")], {"k": 2})   # same kernel, same output again
        realize(s, m, s2)
        assert (s.item(), m.item(), s2.item()) == (16.0, 5.0, 16.0)
        assert calls == [[0, 1]]                                                   # one call wrote all three nodes
        (plan,) = d.executor.plans.values()
        assert sum(isinstance(p, CustomCall) for p, _, _ in plan.steps) == 1
        assert custom("test_sum_max", [x], [((), "float32"), ((), "float32")], {"k": 3})[1].item() == 5.0 and calls[-1] == [1]
        import pytest
        with pytest.raises(ValueError, match="no CUSTOM kernel 'nope'"):
            custom("nope", [x], [((), "float32")])[0].item()

def _variants():
    "Graphs that differ from the first only in shape, dtype, a constant, an op, a reduce axis, a view or which buffer is read."
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((6, 5)).astype(np.float32)
    a2 = rng.standard_normal((4, 6)).astype(np.float32)
    return [
        lambda: ((Tensor(a) @ Tensor(b)) * 2 + 1).tanh(),
        lambda: ((Tensor(a[:3]) @ Tensor(b)) * 2 + 1).tanh(),                          # shape
        lambda: ((Tensor(a).double() @ Tensor(b).double()) * 2 + 1).tanh(),            # dtype
        lambda: ((Tensor(a) @ Tensor(b)) * 2 - 1).tanh(),                              # a constant
        lambda: ((Tensor(a) @ Tensor(b)) * 2 + 1).sigmoid(),                           # a different forward
        lambda: (Tensor(a) * 2 + 1).sum(0),                                            # reduce axis 0 ...
        lambda: (Tensor(a) * 2 + 1).sum(1),                                            # ... and 1
        lambda: (Tensor(a).T[1:] * 2 + 1),                                             # a view
        lambda: (lambda t: t * t)(Tensor(a)),                                          # one buffer read twice ...
        lambda: Tensor(a) * Tensor(a2),                                                # ... and two buffers
    ]

@pytest.mark.parametrize("device", ["interpreter", "c"])
def test_cached_plans_never_serve_a_changed_structure(device):
    "Every variant on a device whose caches hold all the others gives the bits a fresh device gives."
    fresh = []
    for build in _variants():
        with use_device(device): fresh.append(build().numpy())
    with use_device(device) as d:
        for round in range(2):                       # round 1 finds every plan cached
            for build, want in zip(_variants(), fresh):
                got = build().numpy()
                assert got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()
        assert d.stats["plans"] == len(fresh)        # one plan per structure, none shared between two

@pytest.mark.parametrize("device", ["interpreter", "c"])
def test_warm_plans_rebind_what_changed(device):
    """A repeated eager step runs on its plan's warm memory: a new batch array, an input array written in place (the same
    object, new bytes), a value handed back by an earlier call, and the assigned weights must all read as torch reads them."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w0, bias = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    tw, tb = torch.tensor(w0), torch.tensor(bias)
    with use_device(device) as d:
        w, b = Tensor(w0.copy()), Tensor(bias)
        handed = []
        for step in range(4):
            x = rng.standard_normal((5, 4)).astype(np.float32)
            if step == 2:
                b.node.arg.array[...] = 2 * bias              # same host array, new bytes
                tb = torch.tensor(2 * bias)
            out = (Tensor(x) @ w + b).tanh()
            loss = out.sum()
            w.assign(w - 0.1 * (Tensor(x).T @ (1 - out * out)))
            realize(loss, out, w)
            tout = torch.tanh(torch.tensor(x) @ tw + tb)
            tw = tw - 0.1 * (torch.tensor(x).T @ (1 - tout * tout))
            handed.append((out.numpy(), tout.numpy()))
            np.testing.assert_allclose(loss.item(), float(tout.sum()), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(w.numpy(), tw.numpy(), rtol=1e-5, atol=1e-6)
        assert d.stats["plans"] == 1 and len(d.executor.warm) == 1
    for got, want in handed:                          # a later step never wrote into what an earlier one handed back
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

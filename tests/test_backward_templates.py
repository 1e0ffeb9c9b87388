"""Backward templates (limn.autograd): a gradient rebuilt from a recorded tape gives the bits of the plain walk, and a
changed tape (shape, dtype, rule, argument, requires_grad, wanted inputs) never reuses a stale template."""
import numpy as np
import pytest
import limn.backend_c  # registers "c"
from limn import Tensor, use_device, grad, realize
from limn import autograd

rng = np.random.default_rng(11)

def forwards():
    "name -> (input shapes, f(*tensors) -> scalar): each exercises other rules (reduce, max, gather, pad, views, casts)."
    idx = Tensor(np.array([2, 0, 1, 2], np.int32))
    return {
        "mlp":     ([(4, 3), (3, 5), (5,)], lambda x, w, b: ((x @ w + b).tanh() ** 2).mean()),
        "softmax": ([(4, 6)],               lambda x: (x.softmax(-1) * x).sum()),
        "max":     ([(3, 5)],               lambda x: x.amax(1).sum() + x.abs().max()),
        "gather":  ([(3, 4)],               lambda t: t[idx].exp().sum()),
        "views":   ([(2, 3, 4)],            lambda x: x.permute(2, 0, 1).reshape(4, 6).pad(((1, 0), (0, 2))).shrink(((0, 4), (1, 7))).sum()),
        "casts":   ([(5,)],                 lambda x: (x.double() * 3).exp().sum().float()),
    }

def run(name, shapes, f, dtype=np.float32, create_graph=False, wanted=None):
    xs = [Tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in shapes]
    wanted = xs if wanted is None else [xs[i] for i in wanted]
    return [g.numpy() for g in grad(f(*xs), wanted, create_graph=create_graph)]

@pytest.mark.parametrize("device", ["numpy", "c"])
def test_templated_gradients_match_the_plain_walk(device):
    "Each forward, twice (the second rebuilt from its template), gives the bits create_graph=True's plain walk gives."
    with use_device(device):
        for name, (shapes, f) in forwards().items():
            state = rng.bit_generator.state
            plain = run(name, shapes, f, create_graph=True)
            for _ in range(2):
                rng.bit_generator.state = state
                for a, b in zip(run(name, shapes, f), plain): assert a.tobytes() == b.tobytes(), name

WEIGHT = Tensor(np.arange(15, dtype=np.float32).reshape(5, 3))
CUBE = Tensor(np.arange(8, dtype=np.float32).reshape(2, 2, 2))

def test_a_changed_tape_never_reuses_a_template():
    "Shape, dtype, rule argument, a different rule, requires_grad and the wanted inputs each get their own template."
    autograd._TEMPLATES.clear()
    x64 = lambda x: (x * x).sum()
    cases = [([(4, 3)], x64, np.float32, None), ([(5, 3)], x64, np.float32, None), ([(4, 3)], x64, np.float64, None),
             ([(4, 3)], lambda x: x.sum(0).exp().sum(), np.float32, None), ([(4, 3)], lambda x: x.sum(1).exp().sum(), np.float32, None),
             ([(4, 3)], lambda x: x.sum(1).log().sum(), np.float32, None),
             ([(4, 3)], lambda x: (x.pad(((1, 0), (0, 0))) * WEIGHT).sum(), np.float32, None),      # the same shapes, another argument
             ([(4, 3)], lambda x: (x.pad(((0, 1), (0, 0))) * WEIGHT).sum(), np.float32, None),
             ([(2, 2, 2)], lambda x: (x.permute(1, 0, 2) * CUBE).sum(), np.float32, None),
             ([(2, 2, 2)], lambda x: (x.permute(0, 2, 1) * CUBE).sum(), np.float32, None),
             ([(4, 3), (4, 3)], lambda a, b: (a * b).sum(), np.float32, [0]), ([(4, 3), (4, 3)], lambda a, b: (a * b).sum(), np.float32, [1])]
    with use_device("numpy"):
        for round in range(2):
            for shapes, f, dtype, wanted in cases:
                state = rng.bit_generator.state
                got = run("", shapes, f, dtype, wanted=wanted)
                rng.bit_generator.state = state
                want = run("", shapes, f, dtype, create_graph=True, wanted=wanted)
                for a, b in zip(got, want): assert a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
        assert len(autograd._TEMPLATES) == len(cases)
        a, b = Tensor(np.ones(3, np.float32), requires_grad=True), Tensor(np.ones(3, np.float32) * 2)
        (ga,) = grad((a * b).sum(), [a])                                  # b needs no grad: a parent off the tape
        b.requires_grad = True
        ga2, gb = grad((a * b).sum(), [a, b])
        assert ga.numpy().tolist() == ga2.numpy().tolist() == [2, 2, 2] and gb.numpy().tolist() == [1, 1, 1]

def test_custom_rules_and_create_graph_take_the_plain_walk():
    "A tape with a Python-callable rule is not templated, nor is a create_graph walk."
    from limn.tensor import custom
    autograd._TEMPLATES.clear()
    x = Tensor(np.arange(3, dtype=np.float32), requires_grad=True)
    assert grad((x * x).sum(), x, create_graph=True)[0].numpy().tolist() == [0, 2, 4] and not autograd._TEMPLATES
    limn.device.register_custom("numpy", "double_it", lambda a: [a * 2])
    with use_device("numpy"):
        (y,) = custom("double_it", [x], [((3,), limn.float32)], vjp=lambda i, out, g, parents, params: (g * 2,))
        assert grad(y.sum(), x)[0].numpy().tolist() == [2, 2, 2] and not autograd._TEMPLATES

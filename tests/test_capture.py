"""limn.capture: a replayed step gives the bits an uncaptured step gives, runs no Python graph building, compiles
nothing new, and refuses what it cannot replay."""
import numpy as np
import pytest
import limn.backend_c  # registers "c"
from limn import Tensor, use_device, realize
from limn.capture import capture

def make_params(seed=0):
    rng = np.random.default_rng(seed)
    return [Tensor(rng.standard_normal((6, 12)).astype(np.float32) * 0.4), Tensor(np.zeros(12, np.float32)),
            Tensor(rng.standard_normal((12, 3)).astype(np.float32) * 0.4)]

def make_batches(count=6):
    rng = np.random.default_rng(7)
    return [(Tensor(rng.standard_normal((20, 6)).astype(np.float32)), Tensor(rng.integers(0, 3, 20).astype(np.int32)))
            for _ in range(count)]

def make_step(params, momentum, counter):
    "A classifier step: softmax cross-entropy through a gather, SGD with momentum held in device buffers."
    def step(x, labels):
        counter[0] += 1
        for p in params: p.requires_grad = True
        w1, b1, w2 = params
        logits = ((x @ w1 + b1).relu() @ w2)
        logp = logits.log_softmax(-1)
        picked = (logp * Tensor.eye(3).gather(labels)).sum(-1)
        loss = -picked.mean()
        loss.backward()
        grads = [p.grad for p in params]
        for p, m, g in zip(params, momentum, grads):
            p.requires_grad = False; p.grad = None
            m.assign(m * 0.9 + g)
            p.assign(p - m * 0.1)
        realize(loss, *params, *momentum)
        return loss, logits.argmax(-1)
    return step

def train(captured: bool, steps=6):
    params = make_params()
    momentum = [Tensor(np.zeros(p.shape, np.float32)) for p in params]
    counter = [0]
    step = make_step(params, momentum, counter)
    if captured: step = capture(step)
    losses, seconds = [], []
    with use_device("c") as device:
        stats = []
        for x, y in make_batches(steps):
            loss, second = step(x, y)
            losses.append(loss.numpy().copy()); seconds.append(second.numpy().copy())
            stats.append(dict(device.stats))
    return losses, seconds, [p.numpy() for p in params + momentum], counter[0], stats, step

def test_replay_is_bit_identical_and_skips_python():
    plain_losses, plain_second, plain_state, plain_runs, _, _ = train(False)
    losses, second, state, runs, stats, step = train(True)
    for a, b in zip(losses, plain_losses): assert a.tobytes() == b.tobytes()
    for a, b in zip(second, plain_second): assert a.tobytes() == b.tobytes()
    for a, b in zip(state, plain_state): assert a.tobytes() == b.tobytes()
    assert plain_runs == 6 and runs == 1 and step.replays == 5
    assert all(s["plans"] == stats[0]["plans"] and s["compiles"] == stats[0]["compiles"] for s in stats)
    assert losses[-1] < losses[0]

def test_results_are_fresh_tensors():
    "A replay must not overwrite what an earlier call returned."
    with use_device("c"):
        step = capture(lambda x: (x * 2).sum())
        first = step(Tensor(np.ones(4, np.float32)))
        second = step(Tensor(np.full(4, 3, np.float32)))
        assert first.item() == 8 and second.item() == 24

def test_returned_input_views_are_refreshed():
    "A sink that is an input read through a reshape is handed back as a copy; replay refreshes that copy too."
    with use_device("c"):
        step = capture(lambda x: [x.reshape(2, 2), x + 1])
        step(Tensor(np.arange(4, dtype=np.float32)))
        a, b = step(Tensor(np.arange(4, 8, dtype=np.float32)))
        assert a.numpy().tolist() == [[4, 5], [6, 7]] and b.numpy().tolist() == [5, 6, 7, 8]

def test_refusals():
    with use_device("c"):
        step = capture(lambda x, scale: x * scale)
        step(Tensor(np.ones(3, np.float32)), 2.0)
        with pytest.raises(ValueError, match="expected the recorded"): step(Tensor(np.ones(4, np.float32)), 2.0)
        with pytest.raises(ValueError, match="baked in"): step(Tensor(np.ones(3, np.float32)), 3.0)
        assert step(Tensor(np.ones(3, np.float32)), 2.0).numpy().tolist() == [2, 2, 2]
    with use_device("numpy"):
        with pytest.raises(TypeError, match="compiled device"): capture(lambda x: x)(Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="takes a function"): capture(3)

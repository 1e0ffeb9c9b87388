"""limn.capture: a replayed step gives the bits an uncaptured step gives, runs no Python graph building, compiles
nothing new, and refuses what it cannot replay."""
import numpy as np
import limn
import pytest
import limn.backend_c  # registers "c"
from limn import Tensor, use_device, realize
from limn.capture import capture, CaptureMismatch

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
    assert plain_runs == 6 and runs == 2 and step.checks == 1 and step.replays == 4     # record, check, four replays
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


def test_nested_capture_is_refused():
    "The issue's example: an outer step calling an already-recorded inner step returned the first result forever."
    with use_device("c"):
        inner = capture(lambda x: x * 2 + 1)
        inner(Tensor(np.array([4.0], np.float32)))
        outer = capture(lambda x: inner(x) * 2 - 1)
        with pytest.raises(RuntimeError, match="do not nest"): outer(Tensor(np.array([4.0], np.float32)))
        fixed = capture(lambda x: inner.fn(x) * 2 - 1)
        assert [fixed(Tensor(np.array([v], np.float32))).item() for v in (2.0, 4.0, 6.0)] == [9.0, 17.0, 25.0]
        assert inner(Tensor(np.array([1.0], np.float32))).item() == 3.0      # the refused call left nothing half-set

def test_changing_python_number_is_refused_on_the_second_call():
    with use_device("c"):
        w = Tensor(np.ones(2, np.float32))
        rates = iter([0.5, 0.25])
        def step(g): w.assign(w - g * next(rates)); realize(w)
        captured = capture(step)
        captured(Tensor(np.ones(2, np.float32)))
        with pytest.raises(CaptureMismatch, match="changed from 0.5 to 0.25"): captured(Tensor(np.ones(2, np.float32)))

def test_branch_is_refused():
    with use_device("c"):
        calls = [0]
        def step(x):
            calls[0] += 1
            return x.exp() if calls[0] == 1 else x.sqrt()
        captured = capture(step)
        captured(Tensor(np.ones(2, np.float32)))
        with pytest.raises(CaptureMismatch, match="different graph"): captured(Tensor(np.ones(2, np.float32)))

def test_host_random_draw_is_refused():
    "A mask drawn on the host enters as a fresh buffer each call: replay would reuse the first mask."
    rng = np.random.default_rng(0)
    with use_device("c"):
        captured = capture(lambda x: x * Tensor((rng.random(64) < 0.5).astype(np.float32)))
        captured(Tensor(np.ones(64, np.float32)))
        with pytest.raises(CaptureMismatch, match="mask drawn with numpy"): captured(Tensor(np.ones(64, np.float32)))

def dropout_step_run(device, captured, seed, calls=6, p=0.3):
    "A small step with two dropouts: (losses, masks per call, final weights)."
    with use_device(device):
        limn.set_seed(seed)
        w = Tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4), requires_grad=True)
        def step(x):
            h = (x @ w).dropout(p)
            loss = ((h.relu() + h.dropout(p)) ** 2).mean()
            loss.backward()
            w.assign(w - w.grad * 0.05)
            w.grad = None
            realize(w)
            return loss, h
        fn = capture(step) if captured else step
        x = Tensor(np.random.default_rng(3).standard_normal((16, 6)).astype(np.float32))
        outs = [fn(x) for _ in range(calls)]
        return [l.item() for l, _ in outs], [h.numpy() != 0 for _, h in outs], w.numpy(), fn

def test_captured_dropout_draws_a_fresh_mask_each_replay_the_masks_of_an_eager_run():
    losses, masks, w, fn = dropout_step_run("c", True, seed=5)
    assert fn.replays == 4
    assert all((masks[i] != masks[i + 1]).any() for i in range(len(masks) - 1))
    for device in ("c", "numpy"):
        e_losses, e_masks, e_w, _ = dropout_step_run(device, False, seed=5)
        assert all((a == b).all() for a, b in zip(e_masks, masks)), device
        np.testing.assert_allclose(e_losses, losses, rtol=1e-5)
        np.testing.assert_allclose(e_w, w, rtol=1e-5, atol=1e-6)
    other = dropout_step_run("c", True, seed=6)
    assert not all((a == b).all() for a, b in zip(other[1], masks))              # another seed, other masks
    again = dropout_step_run("c", True, seed=5)
    assert all((a == b).all() for a, b in zip(again[1], masks))                   # the same seed, the same masks

def test_reseeding_between_replays_restarts_the_stream_the_replay_reads():
    with use_device("c"):
        limn.set_seed(1)
        step = capture(lambda x: x.dropout(0.5))
        x = Tensor(np.ones(256, np.float32))
        masks = [step(x).numpy() != 0 for _ in range(4)]
        limn.set_seed(1)
        again = [step(x).numpy() != 0 for _ in range(2)]
    assert step.replays == 4
    assert (again[0] == masks[0]).all() and (again[1] == masks[1]).all() and (masks[0] != masks[1]).any()

def test_lazy_tensors_held_before_the_capture_do_not_change_its_graph():
    "A lazy tensor (or a dropout draw) left over from eager code is settled before recording, not taken into the step."
    with use_device("c"):
        w = Tensor(np.ones((3, 3), np.float32))
        stale = w * 2                                  # held, lazy, reads w: would join the step's first realize only
        leftover = Tensor(np.ones(5, np.float32)).dropout(0.5)
        def step(g):
            w.assign(w - g)
            realize(w)
            return w * 1
        fn = capture(step)
        for _ in range(4): fn(Tensor(np.full((3, 3), 0.5, np.float32)))
        assert fn.replays == 2
        np.testing.assert_array_equal(stale.numpy(), np.full((3, 3), 2.0))
        assert set(np.unique(leftover.numpy())) <= {0.0, 2.0}
        np.testing.assert_array_equal(w.numpy(), np.full((3, 3), -1.0))

def test_a_captured_step_returns_the_pre_step_loss():
    "Held to the plain step, which reads the loss before the assign: the loss returned is the one the update used."
    with use_device("c"):
        w = Tensor(np.array([3.0, -2.0], np.float32))
        def step(x):
            loss = ((w * x).sum() - 1) ** 2
            w.assign(w * 0.5)
            realize(w)
            return loss
        fn = capture(step)
        got = [fn(Tensor(np.array([1.0, 1.0], np.float32))).item() for _ in range(4)]
    assert got == [0.0, 0.25, 0.5625, 0.765625]       # ((3 - 2) * 0.5**k - 1)**2: w before each step

def test_rebuilt_constant_table_and_intermediate_realize_are_accepted():
    "A table rebuilt each call with the same values, and a buffer produced by an earlier realize of the same call, are fine."
    with use_device("c"):
        def step(x):
            h = (x * Tensor.eye(4)).sum(0).realize()        # realize 0 produces h; realize 1 reads it
            return h + 1
        captured = capture(step)
        outs = [captured(Tensor(np.full((4, 4), v, np.float32))).numpy().tolist() for v in (1.0, 2.0, 3.0, 4.0)]
        assert outs == [[v + 1] * 4 for v in (1.0, 2.0, 3.0, 4.0)] and captured.checks == 1 and captured.replays == 2

def test_check_every_catches_a_later_change():
    with use_device("c"):
        w = Tensor(np.ones(2, np.float32))
        rates = [0.1] * 4 + [0.01] * 10
        captured = None
        def step(g): w.assign(w - g * rates[captured.calls - 1]); realize(w)
        captured = capture(step, check_every=4)
        for _ in range(7): captured(Tensor(np.ones(2, np.float32)))      # change at call 5 (a replay), unseen until call 8
        with pytest.raises(CaptureMismatch, match="changed from 0.1 to 0.01"): captured(Tensor(np.ones(2, np.float32)))
        assert captured.checks == 3          # calls 2, 4 and 8
    with pytest.raises(ValueError, match="check_every"): capture(step, check_every=0)

def test_prepared_replay_rebinds_swapped_arguments_and_commits_into_them():
    "A replay whose argument is read by several kernels and assigned to gives the uncaptured bits and updates the caller's tensor."
    def run(captured: bool):
        w = Tensor(np.linspace(-1, 1, 8, dtype=np.float32))
        def step(x, acc):
            y = (x * w).exp().sum() + x.max()              # x read by more than one kernel
            acc.assign(acc + x * 0.5)                      # an argument that is also an assign target
            w.assign(w - x * 0.01)
            realize(acc, w, y)
            return y
        fn = capture(step) if captured else step
        outs, accs = [], []
        with use_device("c"):
            for i in range(5):
                x = Tensor(np.random.default_rng(i).standard_normal(8).astype(np.float32))
                acc = Tensor(np.full(8, float(i), np.float32)).realize()
                outs.append(fn(x, acc).numpy()); accs.append(acc.numpy())
        return outs, accs, w.numpy(), fn
    plain, captured = run(False), run(True)
    for a, b in zip(plain[0] + plain[1] + [plain[2]], captured[0] + captured[1] + [captured[2]]): assert a.tobytes() == b.tobytes()
    assert captured[3].replays == 3

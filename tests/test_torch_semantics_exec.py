"""When values are computed, held to torch: a tensor built before an assign keeps the values it was built on (the loss
read after `opt.step()`, the gradients after it), a failed realize leaves every tensor as it was, on the numpy and c
devices and under limn.capture."""
import numpy as np
import pytest
import torch
import limn
import limn.backend_c  # noqa: F401  registers "c"
from limn import Tensor, use_device, get_device, realize
from limn.optim import SGD, AdamW
from limn.capture import capture
from limn.serialize import save, load_into

DEVICES = ["numpy", "c"]
ROWS, WIDTH, OUT = 10, 4, 3


def weights(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((ROWS, WIDTH)).astype(np.float32), rng.standard_normal((WIDTH, OUT)).astype(np.float32)


def batches(n, seed=1, bad_at=None):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        ids = rng.integers(0, ROWS, size=(6,)).astype(np.int32)
        if i == bad_at: ids[2] = ROWS + 7                       # an embedding id outside the table
        out.append((ids, rng.standard_normal((6, OUT)).astype(np.float32)))
    return out


def limn_loss(emb, w, ids, target):
    return (((emb.gather(Tensor(ids)) @ w) - Tensor(target)) ** 2).mean()


def torch_run(data, make_opt):
    e0, w0 = weights()
    emb, w = torch.tensor(e0, requires_grad=True), torch.tensor(w0, requires_grad=True)
    opt = make_opt([emb, w])
    losses, grads = [], []
    for ids, target in data:
        opt.zero_grad()
        loss = (((torch.nn.functional.embedding(torch.tensor(ids, dtype=torch.long), emb) @ w) - torch.tensor(target)) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())                             # torch's order: read after the step
        grads.append(w.grad.numpy().copy())
    return losses, grads, emb.detach().numpy(), w.detach().numpy()


OPTIMIZERS = {"sgd_momentum": (lambda p: SGD(p, lr=0.1, momentum=0.9), lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)),
              "adamw": (lambda p: AdamW(p, lr=0.05), lambda p: torch.optim.AdamW(p, lr=0.05))}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_loss_and_grads_read_after_the_step_are_the_ones_the_step_was_taken_at(device, name):
    make, make_torch = OPTIMIZERS[name]
    data = batches(4)
    want_losses, want_grads, want_emb, want_w = torch_run(data, make_torch)
    with use_device(device):
        e0, w0 = weights()
        emb, w = Tensor(e0, requires_grad=True), Tensor(w0, requires_grad=True)
        opt = make([emb, w])
        for (ids, target), want_loss, want_grad in zip(data, want_losses, want_grads):
            opt.zero_grad()
            loss = limn_loss(emb, w, ids, target)
            loss.backward()
            opt.step()
            np.testing.assert_allclose(loss.item(), want_loss, rtol=1e-5)
            np.testing.assert_allclose(w.grad.numpy(), want_grad, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(emb.numpy(), want_emb, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_reading_the_loss_after_the_step_costs_no_second_forward_pass(device):
    with use_device(device):
        e0, w0 = weights()
        emb, w = Tensor(e0, requires_grad=True), Tensor(w0, requires_grad=True)
        opt = SGD([emb, w], lr=0.1)
        ids, target = batches(1)[0]
        loss = limn_loss(emb, w, ids, target)
        loss.backward()
        calls = []
        dev = get_device()
        original = dev.realize
        dev.realize = lambda sinks: calls.append(len(sinks)) or original(sinks)
        try:
            opt.step()
            value = loss.item()
            w.grad.numpy()
        finally:
            del dev.realize
        assert len(calls) == 1, f"the step and the reads made {len(calls)} device calls; the loss was computed again"
        assert loss.node.op.name == "BUFFER" and w.grad.node.op.name == "BUFFER"
    e, tw = torch.tensor(e0, requires_grad=True), torch.tensor(w0)
    want = (((torch.nn.functional.embedding(torch.tensor(ids, dtype=torch.long), e) @ tw) - torch.tensor(target)) ** 2).mean()
    np.testing.assert_allclose(value, want.item(), rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_any_held_lazy_tensor_keeps_the_values_it_was_built_on(device):
    with use_device(device):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        p, q = Tensor(a.copy()), Tensor(a.copy() + 1)
        doubled, row, total = p * 2, p[1], (p @ q.transpose()).sum()
        kept = [p.exp()]                                      # held by a list, not a name
        p.assign(p + 100)
        q.assign(q * 0)
        realize(p, q)                                        # the assigns commit: every held reader computes first
        np.testing.assert_array_equal(doubled.numpy(), a * 2)
        np.testing.assert_array_equal(row.numpy(), a[1])
        np.testing.assert_allclose(total.item(), (a @ (a + 1).T).sum())
        np.testing.assert_allclose(kept[0].numpy(), np.exp(a), rtol=1e-6)
        after = p * 2                                        # built after the commit: the new values
        np.testing.assert_array_equal(after.numpy(), (a + 100) * 2)
        np.testing.assert_array_equal(q.numpy(), np.zeros_like(a))


@pytest.mark.parametrize("device", DEVICES)
def test_a_pending_assign_that_reads_an_assigned_buffer_keeps_its_old_operand(device):
    with use_device(device):
        p, s = Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32))
        s.assign(s + p)                                      # pending: reads p as it is now
        p.assign(p * 5)
        p.realize()
        np.testing.assert_array_equal(s.numpy(), np.ones(3))
        np.testing.assert_array_equal(p.numpy(), np.full(3, 5.0))


def captured_losses(data, make_opt):
    e0, w0 = weights()
    emb, w = Tensor(e0, requires_grad=True), Tensor(w0, requires_grad=True)
    opt = make_opt([emb, w])

    def step(ids, target):
        loss = (((emb.gather(ids) @ w) - target) ** 2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    fn = capture(step)
    losses = [fn(Tensor(ids), Tensor(target)).item() for ids, target in data]
    return losses, fn, emb.numpy(), w.numpy()


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_a_captured_step_returns_the_loss_its_gradients_were_taken_at(name):
    make, make_torch = OPTIMIZERS[name]
    data = batches(5)
    want_losses, _, want_emb, want_w = torch_run(data, make_torch)
    with use_device("c"):
        losses, fn, emb, w = captured_losses(data, make)
    assert fn.replays == 3
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    np.testing.assert_allclose(emb, want_emb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=1e-6)


# --- a failed realize ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_a_failed_step_leaves_the_model_as_it_was_and_the_next_step_works(device, name, tmp_path):
    make, make_torch = OPTIMIZERS[name]
    data = batches(3, bad_at=1)
    good = [data[0], data[2]]
    want_losses, _, want_emb, want_w = torch_run(good, make_torch)
    with use_device(device):
        e0, w0 = weights()
        emb, w = Tensor(e0, requires_grad=True), Tensor(w0, requires_grad=True)
        opt = make([emb, w])
        losses = []
        for i, (ids, target) in enumerate(data):
            opt.zero_grad()
            loss = limn_loss(emb, w, ids, target)
            loss.backward()
            if i != 1:
                opt.step()
                losses.append(loss.item())
                continue
            before = emb.numpy(), w.numpy(), [t.numpy() for t in opt.state["0"].values()]
            with pytest.raises(ValueError, match="index|range"):
                opt.step()
            assert emb.node.op.name == "BUFFER" and w.node.op.name == "BUFFER"
            np.testing.assert_array_equal(emb.numpy(), before[0])            # reads work, and give pre-step values
            np.testing.assert_array_equal(w.numpy(), before[1])
            for t, was in zip(opt.state["0"].values(), before[2]): np.testing.assert_array_equal(t.numpy(), was)
        np.testing.assert_allclose(losses, want_losses, rtol=1e-5)           # the good steps as if the bad one never ran
        np.testing.assert_allclose(emb.numpy(), want_emb, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-5, atol=1e-6)
        path = tmp_path / "ckpt.safetensors"
        save(path, {"emb": Tensor(e0), "w": Tensor(w0)})

        class Model:
            def named_parameters(self): return [("emb", emb), ("w", w)]
            def state_dict(self): return dict(self.named_parameters())
        opt.zero_grad()
        loss = limn_loss(emb, w, *data[1])
        loss.backward()
        with pytest.raises(ValueError):
            opt.step()
        load_into(path, Model())                                             # the model is not lost: a checkpoint loads
        np.testing.assert_array_equal(emb.numpy(), e0)
        np.testing.assert_array_equal(w.numpy(), w0)


@pytest.mark.parametrize("device", DEVICES)
def test_a_failed_realize_says_its_assigns_were_dropped(device):
    with use_device(device):
        table = Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
        rows = table.gather(Tensor(np.array([0, 5], np.int32)))
        table.assign(table * 2)
        with pytest.raises(ValueError) as caught:
            realize(table, rows)
        assert any("dropped" in note for note in getattr(caught.value, "__notes__", []))
        np.testing.assert_array_equal(table.numpy(), np.arange(6).reshape(3, 2))
        table.assign(table + 1).realize()
        np.testing.assert_array_equal(table.numpy(), np.arange(6).reshape(3, 2) + 1)

"""torch's nn API in limn held to torch itself: limn.nn's layers and containers, limn.nn.functional, state_dict and
load_state_dict, clip_grad_norm_, param_groups and the lr schedulers, each forward and backward against torch on the
numpy and c devices, plus a CNN with BatchNorm trained under capture step for step beside its torch twin."""
import math
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
import limn.backend_c  # registers "c"
import limn.nn.functional as F
from limn import Tensor, nn, use_device, set_seed
from limn.capture import capture
from limn.nn.utils import clip_grad_norm_
from limn.optim import SGD, AdamW, Adam
from limn.optim.lr_scheduler import StepLR, CosineAnnealingLR, LambdaLR, LinearLR, OneCycleLR

DEVICES = ["numpy", "c"]
rng = np.random.default_rng(0)

def arr(*shape, scale=1.0, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)

def both(ours, theirs, *inputs, device="numpy", rtol=1e-5, atol=1e-6, grad=True):
    "Run ours on limn tensors and theirs on torch tensors made from `inputs`; compare outputs and input gradients."
    with use_device(device):
        xs = [Tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in inputs]
        ts = [torch.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in inputs]
        out, tout = ours(*xs), theirs(*ts)
        np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=rtol, atol=atol)
        if grad:
            weights = arr(*tout.shape, seed=99) if tout.ndim else np.float32(1.0)
            (out * Tensor(weights)).sum().backward()
            (tout * torch.tensor(weights)).sum().backward()
            for x, t in zip(xs, ts):
                if t.grad is not None:
                    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=rtol * 10, atol=atol * 10)

def copy_weights(model, twin):
    "Load the torch twin's weights into the limn model through load_state_dict (the test of that as well)."
    model.load_state_dict(twin.state_dict())

# --- Module: names, buffers, state dicts -------------------------------------------------------------------------------

def test_named_parameters_include_underscored_attributes():
    class Net(nn.Module):
        def __init__(self): self._body, self.head = nn.Linear(3, 4), nn.Linear(4, 2)
    names = [n for n, _ in Net().named_parameters()]
    assert names == ["_body.weight", "_body.bias", "head.weight", "head.bias"]

def test_load_state_dict_is_strict_and_names_every_key():
    twin = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    assert list(model.state_dict()) == list(twin.state_dict())
    copy_weights(model, twin)
    before = model[2].weight.numpy().copy()
    bad = dict(twin.state_dict())
    bad["2.weight"] = torch.zeros(5, 4)
    bad["extra"] = torch.zeros(1)
    del bad["1.running_var"]
    with pytest.raises(RuntimeError) as e:
        model.load_state_dict(bad)
    assert '"1.running_var"' in str(e.value) and '"extra"' in str(e.value) and "size mismatch for 2.weight" in str(e.value)
    np.testing.assert_array_equal(model[2].weight.numpy(), before)             # a refused load writes nothing
    del bad["2.weight"], bad["extra"]
    result = model.load_state_dict(bad, strict=False)
    assert result.missing_keys == ["1.running_var", "2.weight"] and result.unexpected_keys == []

def test_module_to_zero_grad_train_eval_children():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Dropout(0.5), nn.Linear(4, 1))
    weight = model[0].weight
    model.to("float64")
    assert model[0].weight is weight and weight.dtype.name == "float64"
    (model(Tensor(arr(2, 3).astype(np.float64))) ** 2).sum().backward()
    assert weight.grad is not None
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    model.eval()
    assert not any(m.training for m in model.modules())
    assert len(model.children()) == 4 and len(model.modules()) == 5
    with pytest.raises(TypeError):
        model.to("cuda")

def test_containers_index_iterate_and_name_like_torch():
    seq = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and [type(m).__name__ for m in seq] == ["Linear", "Tanh", "Linear"]
    assert [n for n, _ in seq[1:].named_parameters()] == ["2.weight", "2.bias"]
    from collections import OrderedDict
    named = nn.Sequential(OrderedDict(fc=nn.Linear(2, 2), act=nn.GELU()))
    assert [n for n, _ in named.named_parameters()] == ["fc.weight", "fc.bias"]
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.Linear(2, 1))
    assert len(layers) == 4 and [n for n, _ in layers.named_parameters()][-1] == "3.bias"
    heads = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.Linear(2, 3)})
    assert list(heads) == ["a", "b"] and "b" in heads and heads["b"].out_features == 3
    with pytest.raises(IndexError):
        seq[3]

# --- functional: forward and gradients against torch -------------------------------------------------------------------

ACTIVATIONS = [(nn.ReLU(), torch.nn.ReLU()), (nn.GELU(), torch.nn.GELU()), (nn.GELU("tanh"), torch.nn.GELU("tanh")),
               (nn.SiLU(), torch.nn.SiLU()), (nn.Tanh(), torch.nn.Tanh()), (nn.Sigmoid(), torch.nn.Sigmoid()),
               (nn.Softmax(1), torch.nn.Softmax(1)), (nn.LogSoftmax(1), torch.nn.LogSoftmax(1)),
               (nn.Identity(), torch.nn.Identity()), (nn.Flatten(), torch.nn.Flatten())]

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("pair", ACTIVATIONS, ids=[type(a).__name__ + getattr(a, "approximate", "") for a, _ in ACTIVATIONS])
def test_activations(pair, device):
    both(pair[0], pair[1], arr(3, 4, 2, scale=3), device=device)

@pytest.mark.parametrize("device", DEVICES)
def test_linear_embedding_pad_dropout(device):
    both(lambda x, w, b: F.linear(x, w, b), TF.linear, arr(2, 5, 3), arr(4, 3, seed=1), arr(4, seed=2), device=device)
    ids = np.array([[0, 3], [3, 1]], np.int32)
    both(lambda w: F.embedding(Tensor(ids), w), lambda w: TF.embedding(torch.tensor(ids).long(), w), arr(4, 3), device=device)
    for spec in [(1, 2), (2, 0, 0, 1), (-1, 2, 1, -1)]:
        both(lambda x: F.pad(x, spec, value=0.25), lambda x: TF.pad(x, spec, value=0.25), arr(2, 3, 4), device=device)
    both(lambda x: F.dropout(x, 0.3, training=False), lambda x: TF.dropout(x, 0.3, training=False), arr(5), device=device)

POOLS = [(nn.MaxPool2d(2), torch.nn.MaxPool2d(2)), (nn.MaxPool2d(3, 2, 1), torch.nn.MaxPool2d(3, 2, 1)),
         (nn.MaxPool2d((2, 3), (1, 2)), torch.nn.MaxPool2d((2, 3), (1, 2))),
         (nn.AvgPool2d(2), torch.nn.AvgPool2d(2)), (nn.AvgPool2d(3, 2, 1), torch.nn.AvgPool2d(3, 2, 1)),
         (nn.AvgPool2d(3, 2, 1, count_include_pad=False), torch.nn.AvgPool2d(3, 2, 1, count_include_pad=False)),
         (nn.AdaptiveAvgPool2d((2, 3)), torch.nn.AdaptiveAvgPool2d((2, 3))), (nn.AdaptiveAvgPool2d(1), torch.nn.AdaptiveAvgPool2d(1)),
         (nn.AdaptiveAvgPool2d((3, None)), torch.nn.AdaptiveAvgPool2d((3, None)))]

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("pair", POOLS, ids=[repr(t) for _, t in POOLS])
def test_pool2d(pair, device):
    both(pair[0], pair[1], arr(2, 2, 7, 6), device=device)

@pytest.mark.parametrize("device", DEVICES)
def test_pool1d(device):
    both(nn.MaxPool1d(3, 2), torch.nn.MaxPool1d(3, 2), arr(2, 3, 9), device=device)
    both(nn.AvgPool1d(4, 3, 2), torch.nn.AvgPool1d(4, 3, 2), arr(2, 3, 9), device=device)
    both(lambda x: F.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2), arr(3, 4, 4), device=device)     # unbatched

@pytest.mark.parametrize("device", DEVICES)
def test_norms(device):
    x = arr(3, 4, 5, scale=2)
    w, b = arr(5, seed=1), arr(5, seed=2)
    both(lambda x, w, b: F.layer_norm(x, (5,), w, b), lambda x, w, b: TF.layer_norm(x, (5,), w, b), x, w, b, device=device)
    both(lambda x, w: F.rms_norm(x, (5,), w), lambda x, w: TF.rms_norm(x, (5,), w), x, w, device=device)
    both(lambda x, w: F.rms_norm(x, (4, 5), w, 1e-3), lambda x, w: TF.rms_norm(x, (4, 5), w, 1e-3), x, arr(4, 5), device=device)
    gw, gb = arr(4, seed=3), arr(4, seed=4)
    both(lambda x, w, b: F.group_norm(x, 2, w, b), lambda x, w, b: TF.group_norm(x, 2, w, b), x, gw, gb, device=device)

def _bn_pair(cls, tcls, **kw):
    twin = tcls(3, **kw)
    with torch.no_grad():
        if twin.weight is not None:
            twin.weight.copy_(torch.tensor(arr(3, seed=5)))
            twin.bias.copy_(torch.tensor(arr(3, seed=6)))
    model = cls(3, **kw)
    copy_weights(model, twin)
    return model, twin

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kind,shape,kw", [("1d", (6, 3), {}), ("1d", (4, 3, 5), {"momentum": 0.3}), ("2d", (4, 3, 2, 3), {}),
                                           ("2d", (2, 3, 2, 2), {"momentum": None}), ("2d", (2, 3, 2, 2), {"affine": False}),
                                           ("1d", (5, 3), {"track_running_stats": False})])
def test_batchnorm_train_eval_and_running_stats(kind, shape, kw, device):
    cls, tcls = (nn.BatchNorm1d, torch.nn.BatchNorm1d) if kind == "1d" else (nn.BatchNorm2d, torch.nn.BatchNorm2d)
    model, twin = _bn_pair(cls, tcls, **kw)
    with use_device(device):
        for step in range(3):
            both(model, twin, arr(*shape, scale=2, seed=10 + step) + 1, device=device, rtol=1e-4, atol=1e-5)
            if model.weight is not None:
                np.testing.assert_allclose(model.weight.grad.numpy(), twin.weight.grad.numpy(), rtol=1e-4, atol=1e-5)
                model.zero_grad()
                twin.zero_grad()
        assert list(model.state_dict()) == list(twin.state_dict())
        for name, value in twin.state_dict().items():
            np.testing.assert_allclose(model.state_dict()[name].numpy(), value.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
        model.eval()
        twin.eval()
        both(model, twin, arr(*shape, seed=20), device=device, rtol=1e-4, atol=1e-5)

# --- losses -----------------------------------------------------------------------------------------------------------

def _ce_args(kw):
    ours = {k: Tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    return ours, theirs

CE_CASES = [{}, {"reduction": "sum"}, {"reduction": "none"}, {"label_smoothing": 0.15},
            {"weight": np.array([0.2, 1.5, 1.0], np.float32)},
            {"weight": np.array([0.2, 1.5, 1.0], np.float32), "label_smoothing": 0.3},
            {"weight": np.array([0.2, 1.5, 1.0], np.float32), "label_smoothing": 0.3, "reduction": "none"},
            {"ignore_index": 1}]

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kw", CE_CASES, ids=[str(sorted(k)) + str(k.get("reduction", "")) for k in CE_CASES])
def test_cross_entropy_class_ids_on_dim_1(kw, device):
    ids = np.array([[0, 2, -100, 1], [1, 1, 0, 2]], np.int32)                 # -100: ignored by default
    if "ignore_index" in kw:
        ids[ids == -100] = 0                                                  # else -100 is out of bounds, in torch too
    ours, theirs = _ce_args(kw)
    both(lambda x: F.cross_entropy(x, Tensor(ids), **ours), lambda x: TF.cross_entropy(x, torch.tensor(ids).long(), **theirs),
         arr(2, 3, 4, scale=2), device=device)                                 # (B, C, T): classes on dim 1
    flat = np.array([2, 0, 1, 1, 0], np.int32)
    both(lambda x: F.cross_entropy(x, Tensor(flat), **ours), lambda x: TF.cross_entropy(x, torch.tensor(flat).long(), **theirs),
         arr(5, 3, scale=2), device=device)

@pytest.mark.parametrize("device", DEVICES)
def test_cross_entropy_probabilities_unbatched_and_nll(device):
    p = np.random.default_rng(1).dirichlet(np.ones(3), size=(4,)).astype(np.float32)
    for kw in [{}, {"label_smoothing": 0.2}, {"reduction": "sum"}, {"weight": np.array([1.0, 2.0, 0.5], np.float32)}]:
        ours, theirs = _ce_args(kw)
        both(lambda x: F.cross_entropy(x, Tensor(p), **ours), lambda x: TF.cross_entropy(x, torch.tensor(p), **theirs),
             arr(4, 3), device=device)
    both(lambda x: F.cross_entropy(x, Tensor(np.array(2, np.int32))), lambda x: TF.cross_entropy(x, torch.tensor(2)), arr(3), device=device)
    ids = np.array([1, 0, 2, -100], np.int32)
    both(lambda x: F.nll_loss(x.log_softmax(1), Tensor(ids)), lambda x: TF.nll_loss(x.log_softmax(1), torch.tensor(ids).long()),
         arr(4, 3), device=device)
    both(lambda x: nn.CrossEntropyLoss(label_smoothing=0.1)(x, Tensor(ids)),
         lambda x: torch.nn.CrossEntropyLoss(label_smoothing=0.1)(x, torch.tensor(ids).long()), arr(4, 3), device=device)

def test_cross_entropy_refuses_targets_outside_the_classes():
    logits = Tensor(arr(4, 3))
    for bad in ([0, 7, 1, 2], [0, -1, 1, 2], [3, 0, 0, 0]):
        with pytest.raises(IndexError, match="out of bounds"):
            F.cross_entropy(logits, Tensor(np.array(bad, np.int32)))
        with pytest.raises(IndexError):
            TF.cross_entropy(torch.tensor(logits.numpy()), torch.tensor(bad))
    with pytest.raises(IndexError):
        F.cross_entropy(Tensor(arr(2, 3, 4)), Tensor(np.full((2, 4), 3, np.int32)))
    with pytest.raises(ValueError):                                           # (B, T, C) logits with (B, T) targets: dim 1 is classes
        F.cross_entropy(Tensor(arr(2, 5, 3)), Tensor(np.zeros((2, 5), np.int32)))
    assert math.isnan(F.cross_entropy(logits, Tensor(np.full(4, -100, np.int32))).item())      # torch: nan when all are ignored

@pytest.mark.parametrize("device", DEVICES)
def test_regression_and_binary_losses(device):
    x, y = arr(4, 3, scale=3), arr(4, 3, seed=1)
    for ours, theirs in [(F.mse_loss, TF.mse_loss), (F.l1_loss, TF.l1_loss), (F.smooth_l1_loss, TF.smooth_l1_loss),
                         (lambda a, b: F.smooth_l1_loss(a, b, beta=0.5, reduction="none"),
                          lambda a, b: TF.smooth_l1_loss(a, b, beta=0.5, reduction="none")),
                         (lambda a, b: F.mse_loss(a, b, reduction="sum"), lambda a, b: TF.mse_loss(a, b, reduction="sum"))]:
        both(ours, theirs, x, y, device=device)
    t = (y > 0).astype(np.float32)
    w, pw = np.abs(arr(3, seed=2)), np.abs(arr(3, seed=3)) + 0.5
    both(lambda a: F.binary_cross_entropy_with_logits(a, Tensor(t)), lambda a: TF.binary_cross_entropy_with_logits(a, torch.tensor(t)),
         x * 10, device=device)
    both(lambda a: F.binary_cross_entropy_with_logits(a, Tensor(t), weight=Tensor(w), pos_weight=Tensor(pw), reduction="sum"),
         lambda a: TF.binary_cross_entropy_with_logits(a, torch.tensor(t), weight=torch.tensor(w), pos_weight=torch.tensor(pw), reduction="sum"),
         x, device=device)
    both(lambda a: F.binary_cross_entropy(a.sigmoid(), Tensor(t)), lambda a: TF.binary_cross_entropy(a.sigmoid(), torch.tensor(t)),
         x, device=device, rtol=1e-4)

# --- attention ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_scaled_dot_product_attention(device):
    q, k, v = arr(2, 2, 5, 4), arr(2, 2, 6, 4, seed=1), arr(2, 2, 6, 3, seed=2)
    pairs = np.random.default_rng(3).random((5, 6)) > 0.4
    pairs[:, 0] = True
    keys = np.ones((2, 1, 1, 6), bool)
    keys[0, ..., 4:] = False
    for kw in [{}, {"is_causal": True}, {"attn_mask": pairs}, {"attn_mask": keys}, {"attn_mask": arr(5, 6, seed=4)}, {"scale": 0.3}]:
        ours = {a: Tensor(b) if a == "attn_mask" and b.dtype != np.bool_ else b for a, b in kw.items()}
        theirs = {a: torch.tensor(b) if a == "attn_mask" else b for a, b in kw.items()}
        both(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **ours),
             lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, **theirs), q, k, v, device=device, rtol=1e-4, atol=1e-5)

# --- clipping, param groups, schedulers, and all of it under capture --------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("max_norm,norm_type", [(0.3, 2.0), (50.0, 2.0), (0.3, math.inf), (0.3, 1.0)])
def test_clip_grad_norm_matches_torch(max_norm, norm_type, device):
    shapes = [(3, 4), (4,), (2, 2, 2)]
    with use_device(device):
        ours = [Tensor(arr(*s, seed=i), requires_grad=True) for i, s in enumerate(shapes)]
        theirs = [torch.tensor(arr(*s, seed=i), requires_grad=True) for i, s in enumerate(shapes)]
        sum((p * p * p).sum() for p in ours).backward()
        sum((p * p * p).sum() for p in theirs).backward()
        total = clip_grad_norm_(ours, max_norm, norm_type)
        np.testing.assert_allclose(total.item(), torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type).item(), rtol=1e-5)
        for p, q in zip(ours, theirs):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)

SCHEDULES = [(lambda o: StepLR(o, 3, 0.5), lambda o: torch.optim.lr_scheduler.StepLR(o, 3, 0.5)),
             (lambda o: CosineAnnealingLR(o, 4, 0.01), lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 4, 0.01)),
             (lambda o: LambdaLR(o, lambda e: 1 / (1 + e)), lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (1 + e))),
             (lambda o: LinearLR(o, 0.25, 1.0, 5), lambda o: torch.optim.lr_scheduler.LinearLR(o, 0.25, 1.0, 5)),
             (lambda o: OneCycleLR(o, 0.5, 10, cycle_momentum=False), lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.5, 10, cycle_momentum=False)),
             (lambda o: OneCycleLR(o, 0.5, 10, pct_start=0.4, anneal_strategy="linear", three_phase=True, cycle_momentum=False),
              lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.5, 10, pct_start=0.4, anneal_strategy="linear", three_phase=True, cycle_momentum=False))]

@pytest.mark.parametrize("make", SCHEDULES, ids=["step", "cosine", "lambda", "linear", "onecycle", "onecycle3"])
def test_schedules_give_torchs_rates(make):
    ours, theirs = make
    w, tw = Tensor(np.ones(2, np.float32), requires_grad=True), torch.ones(2, requires_grad=True)
    groups = lambda p: [{"params": [p]}]
    opt, topt = SGD(groups(w), lr=0.1, momentum=0.9), torch.optim.SGD(groups(tw), lr=0.1, momentum=0.9)
    s, ts = ours(opt), theirs(topt)
    for _ in range(10):
        assert s.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
        assert opt.param_groups[0]["lr"] == pytest.approx(topt.param_groups[0]["lr"], rel=1e-12, abs=1e-15)
        (w * w).sum().backward()
        opt.step()
        opt.zero_grad()
        (tw * tw).sum().backward()
        topt.step()
        topt.zero_grad()
        s.step()
        ts.step()
    np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-5)

@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_onecycle_cycles_sgd_momentum_as_torch(momentum):
    "torch's default cycle_momentum=True, momentum off at the start or on; the trajectory, rates and momenta match."
    start = arr(2, 3)
    w, tw = Tensor(start, requires_grad=True), torch.tensor(start, requires_grad=True)
    opt, topt = SGD([w], lr=0.1, momentum=momentum), torch.optim.SGD([tw], lr=0.1, momentum=momentum)
    s, ts = OneCycleLR(opt, 0.2, 8), torch.optim.lr_scheduler.OneCycleLR(topt, 0.2, 8)
    for _ in range(8):
        (w * w * w).sum().backward()
        opt.step()
        opt.zero_grad()
        (tw * tw * tw).sum().backward()
        topt.step()
        topt.zero_grad()
        s.step()
        ts.step()
        assert s.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
        assert opt.param_groups[0]["momentum"] == pytest.approx(topt.param_groups[0]["momentum"], rel=1e-12)
    np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-5, atol=1e-6)

def test_options_built_into_a_captured_step_refuse_to_change():
    "After a step is captured, a momentum a replay would ignore raises; the rate (a device buffer) still changes."
    w = Tensor(np.ones(3, np.float32), requires_grad=True)
    opt = SGD([w], lr=0.1, momentum=0.9)
    def step(x):
        (w * x).sum().backward()
        opt.step()
        opt.zero_grad()
    with use_device("c"):
        fn = capture(step)
        for _ in range(3):
            fn(Tensor(np.ones(3, np.float32)))
        opt.param_groups[0]["lr"] = 0.05
        with pytest.raises(ValueError, match="captured"):
            opt.param_groups[0]["momentum"] = 0.5
    with pytest.raises(ValueError, match="cycle_momentum=False"):
        OneCycleLR(AdamW([w], lr=0.1), 0.1, 10)

class TorchCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Conv2d(1, 3, 3, padding=1, bias=False), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
                                        torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(12, 3))
    def forward(self, x): return self.body(x)

class CNN(nn.Module):
    def __init__(self):
        self.body = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1, bias=False), nn.BatchNorm2d(3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                                  nn.Linear(12, 3))
    def forward(self, x): return self.body(x)

@pytest.mark.parametrize("device,captured", [("numpy", False), ("c", False), ("c", True)])
def test_param_groups_schedule_clip_and_batchnorm_under_capture(device, captured):
    """Per-group lr and weight decay, a schedule, clipping and BatchNorm's running statistics, step for step with torch
    (the conv has no bias: before a batch norm its gradient is rounding noise, which Adam would amplify)."""
    torch.manual_seed(0)
    twin, model = TorchCNN(), CNN()
    copy_weights(model, twin)
    def groups(m):
        decay = [p for n, p in m.named_parameters() if n.endswith("weight") and "1." not in n]
        rest = [p for n, p in m.named_parameters() if not (n.endswith("weight") and "1." not in n)]
        return [{"params": decay}, {"params": rest, "weight_decay": 0.0, "lr": 0.02}]
    opt, topt = AdamW(groups(model), lr=0.01, weight_decay=0.1), torch.optim.AdamW(groups(twin), lr=0.01, weight_decay=0.1)
    sched, tsched = CosineAnnealingLR(opt, 6), torch.optim.lr_scheduler.CosineAnnealingLR(topt, 6)
    def step(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        return loss
    data = np.random.default_rng(1)
    with use_device(device):
        fn = capture(step) if captured else step
        for i in range(6):
            x, y = data.standard_normal((4, 1, 4, 4)).astype(np.float32), data.integers(0, 3, 4).astype(np.int32)
            loss = fn(Tensor(x), Tensor(y))
            topt.zero_grad()
            tloss = TF.cross_entropy(twin(torch.tensor(x)), torch.tensor(y).long())
            tloss.backward()
            torch.nn.utils.clip_grad_norm_(twin.parameters(), 0.5)
            topt.step()
            sched.step()
            tsched.step()
            np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5, err_msg=f"step {i}")
        for name, value in twin.state_dict().items():
            np.testing.assert_allclose(model.state_dict()[name].numpy(), value.detach().numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
    if captured:
        assert fn.replays == 4

def test_train_cnn_example_matches_torch_under_capture():
    "examples/train_cnn.py, shortened: the c device under capture, every step's loss within 1e-5 of torch's."
    import importlib.util, pathlib
    path = pathlib.Path(__file__).parents[1] / "examples" / "train_cnn.py"
    spec = importlib.util.spec_from_file_location("train_cnn", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    with use_device("numpy"):     # the example's main() sets the c device; the block puts the caller's back after it
        result = example.main(["--steps", "12", "--batch", "16"])
    assert result["worst"] <= 1e-5 and result["replays"] == 10 and len(result["losses"]) == 12

def test_checkpoint_carries_batchnorm_buffers(tmp_path):
    "save_checkpoint / load_into carry state_dict(), buffers included: a resumed BatchNorm evaluates as the saved one."
    from limn.serialize import save_checkpoint, load_into
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    model(Tensor(arr(8, 3) + 2))
    AdamW(model.parameters(), lr=0.1).step()                      # commits the running statistics
    save_checkpoint(tmp_path / "ckpt.safetensors", model)
    fresh = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    load_into(tmp_path / "ckpt.safetensors", fresh)
    for (name, a), (_, b) in zip(model.state_dict().items(), fresh.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
    assert fresh[1].num_batches_tracked.item() == 1
    model.eval()
    fresh.eval()
    np.testing.assert_array_equal(model(Tensor(arr(2, 3))).numpy(), fresh(Tensor(arr(2, 3))).numpy())

@pytest.mark.parametrize("device", DEVICES)
def test_functional_convolutions(device):
    both(lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), lambda x, w, b: TF.conv2d(x, w, b, stride=2, padding=1),
         arr(2, 3, 5, 6), arr(4, 3, 3, 3, seed=1), arr(4, seed=2), device=device, rtol=1e-5, atol=1e-5)
    both(lambda x, w: F.conv1d(x, w), lambda x, w: TF.conv1d(x, w), arr(3, 7), arr(2, 3, 2, seed=1), device=device, atol=1e-5)

@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
def test_adam_matches_torch(weight_decay):
    start = arr(3, 2)
    w, tw = Tensor(start, requires_grad=True), torch.tensor(start, requires_grad=True)
    opt, topt = Adam([w], lr=0.05, weight_decay=weight_decay), torch.optim.Adam([tw], lr=0.05, weight_decay=weight_decay)
    for _ in range(5):
        (w * w * w).sum().backward()
        opt.step()
        opt.zero_grad()
        (tw * tw * tw).sum().backward()
        topt.step()
        topt.zero_grad()
    np.testing.assert_allclose(w.numpy(), tw.detach().numpy(), rtol=1e-5, atol=1e-6)

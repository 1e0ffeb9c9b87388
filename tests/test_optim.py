"""limn.optim held to torch.optim step for step (SGD, AdamW) and Muon to a float64 numpy reference of the same algorithm:
the same initial weights, the same ten batches, parameters agreeing to 1e-5 relative after every step, on the numpy
device, the c device and the c device under capture. Also: a step is one realize, a learning-rate schedule reaches a
captured step, state dicts round-trip."""
import numpy as np
import pytest
import torch
import limn.backend_c  # registers "c"
from limn import Tensor, set_seed, use_device, get_device
from limn.capture import capture
from limn import nn
from limn.optim import SGD, AdamW, Muon, OptimizerGroup, muon_with_adamw, newton_schulz, NS_COEFFICIENTS

MODES = [("numpy", False), ("c", False), ("c", True)]
STEPS = 10

class MLP(nn.Module):
    def __init__(self, bias=True): self.fc1, self.fc2 = nn.Linear(6, 8, bias=bias), nn.Linear(8, 3, bias=bias)
    def forward(self, x): return self.fc2(self.fc1(x).tanh())

class TorchMLP(torch.nn.Module):
    def __init__(self, bias=True, dtype=torch.float32):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(6, 8, bias=bias, dtype=dtype), torch.nn.Linear(8, 3, bias=bias, dtype=dtype)
    def forward(self, x): return self.fc2(torch.tanh(self.fc1(x)))

def batches(seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((10, 6)).astype(np.float32), rng.standard_normal((10, 3)).astype(np.float32)) for _ in range(STEPS)]

def twins(bias=True, dtype=torch.float32):
    set_seed(0)
    model, twin = MLP(bias), TorchMLP(bias, dtype)
    with torch.no_grad():
        for (name, p), (tname, tp) in zip(model.named_parameters(), twin.named_parameters()):
            assert name == tname
            tp.copy_(torch.tensor(p.numpy(), dtype=dtype))
    return model, twin

def limn_steps(model, opt, data, device, captured, schedule=None):
    "Train; after each step yield {name: params}. `schedule[i]` (if given) is set as lr before step i."
    def step(x, y):
        loss = nn.mse_loss(model(x), y)
        loss.backward(); opt.step(loss); opt.zero_grad()
        return loss
    with use_device(device):
        fn = capture(step) if captured else step
        for i, (x, y) in enumerate(data):
            if schedule is not None: opt.lr = schedule[i]
            fn(Tensor(x), Tensor(y))
            yield {n: p.numpy() for n, p in model.named_parameters()}
        if captured: assert fn.replays == len(data) - 2

def torch_steps(twin, opt, data, schedule=None):
    for i, (x, y) in enumerate(data):
        if schedule is not None:
            for group in opt.param_groups: group["lr"] = schedule[i]
        dtype = next(twin.parameters()).dtype
        loss = torch.nn.functional.mse_loss(twin(torch.tensor(x, dtype=dtype)), torch.tensor(y, dtype=dtype))
        opt.zero_grad(); loss.backward(); opt.step()
        yield {n: p.detach().numpy().copy() for n, p in twin.named_parameters()}

def assert_same_trajectory(ours, theirs, rtol=1e-5):
    count = 0
    for i, (a, b) in enumerate(zip(ours, theirs)):
        for name in b: np.testing.assert_allclose(a[name], b[name], rtol=rtol, atol=1e-6, err_msg=f"{name} after step {i}")
        count += 1
    assert count == STEPS

CONFIGS = [
    ("sgd", dict(lr=0.1)),
    ("sgd", dict(lr=0.05, momentum=0.9)),
    ("sgd", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("adamw", dict()),
    ("adamw", dict(lr=0.02, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1)),
]
CLASSES = {"sgd": (SGD, torch.optim.SGD), "adamw": (AdamW, torch.optim.AdamW)}

@pytest.mark.parametrize("device,captured", MODES)
@pytest.mark.parametrize("kind,kwargs", CONFIGS)
def test_held_to_torch(kind, kwargs, device, captured):
    ours, theirs = CLASSES[kind]
    model, twin = twins()
    data = batches()
    assert_same_trajectory(limn_steps(model, ours(model.named_parameters(), **kwargs), data, device, captured),
                           torch_steps(twin, theirs(twin.parameters(), **kwargs), data))

@pytest.mark.parametrize("device,captured", MODES)
def test_lr_schedule_reaches_a_captured_step(device, captured):
    "The learning rate lives on the device: a schedule set between steps is seen by every replay, as torch sees it."
    schedule = [0.02 * (0.7 ** i) for i in range(STEPS)]
    model, twin = twins()
    data = batches(1)
    assert_same_trajectory(limn_steps(model, AdamW(model.named_parameters(), lr=1.0), data, device, captured, schedule),
                           torch_steps(twin, torch.optim.AdamW(twin.parameters(), lr=1.0), data, schedule))

# --- Muon against a float64 numpy reference of the same algorithm ------------------------------------------------------

def reference_newton_schulz(g, steps=5, eps=1e-7):
    a, b, c = NS_COEFFICIENTS
    x = g.T if g.shape[0] > g.shape[1] else g
    x = x / max(np.sqrt((x * x).sum()), eps)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return x.T if g.shape[0] > g.shape[1] else x

class ReferenceMuon:
    "Muon in float64 numpy, written from torch.optim.Muon's description: lerp momentum, Nesterov lerp, NS5, sqrt(max(1, A/B))."
    def __init__(self, params, lr, momentum=0.95, nesterov=True, weight_decay=0.0):
        self.params, self.lr, self.momentum, self.nesterov, self.wd = params, lr, momentum, nesterov, weight_decay
        self.buffers = [np.zeros_like(p.detach().numpy()) for p in params]
    def step(self):
        with torch.no_grad():
            for p, buf in zip(self.params, self.buffers):
                g = p.grad.numpy()
                buf += (g - buf) * (1 - self.momentum)
                direction = g + (buf - g) * self.momentum if self.nesterov else buf
                update = reference_newton_schulz(direction)
                scale = np.sqrt(max(1.0, p.shape[0] / p.shape[1]))
                p.mul_(1 - self.lr * self.wd).sub_(torch.tensor(update * self.lr * scale))
    def zero_grad(self):
        for p in self.params: p.grad = None
    @property
    def param_groups(self): return []

@pytest.mark.parametrize("device,captured", MODES)
@pytest.mark.parametrize("kwargs", [dict(lr=0.02), dict(lr=0.01, nesterov=False, weight_decay=0.1, momentum=0.9)])
def test_muon_against_float64_reference(kwargs, device, captured):
    model, twin = twins(bias=False, dtype=torch.float64)
    data = batches(2)
    assert_same_trajectory(limn_steps(model, Muon(model.named_parameters(), **kwargs), data, device, captured),
                           torch_steps(twin, ReferenceMuon(list(twin.parameters()), **kwargs), data))

class ReferenceGroup:
    def __init__(self, members): self.members = members
    def step(self):
        for m in self.members: m.step()
    def zero_grad(self):
        for m in self.members: m.zero_grad()
    @property
    def param_groups(self): return []

@pytest.mark.parametrize("device,captured", MODES)
def test_muon_with_adamw_routes_matrices(device, captured):
    model, twin = twins(bias=True, dtype=torch.float64)
    opt = muon_with_adamw(model.named_parameters(), lr=0.02, adamw_lr=0.01)
    assert [n for n, _ in opt.optimizers["muon"].named] == ["fc1.weight", "fc2.weight"]
    assert [n for n, _ in opt.optimizers["adamw"].named] == ["fc1.bias", "fc2.bias"]
    matrices = [p for n, p in twin.named_parameters() if p.ndim == 2]
    vectors = [p for n, p in twin.named_parameters() if p.ndim != 2]
    reference = ReferenceGroup([ReferenceMuon(matrices, lr=0.02), torch.optim.AdamW(vectors, lr=0.01)])
    data = batches(3)
    assert_same_trajectory(limn_steps(model, opt, data, device, captured), torch_steps(twin, reference, data))
    excluded = muon_with_adamw(model.named_parameters(), exclude=("fc2",))
    assert [n for n, _ in excluded.optimizers["muon"].named] == ["fc1.weight"]

def test_newton_schulz_matches_reference_and_orthogonalises():
    g = np.random.default_rng(0).standard_normal((12, 5))
    ours = newton_schulz(Tensor(g.astype(np.float64))).numpy()
    np.testing.assert_allclose(ours, reference_newton_schulz(g), rtol=1e-10, atol=1e-12)
    s = np.linalg.svd(ours, compute_uv=False)
    assert s.min() > 0.6 and s.max() < 1.25

# --- structure ---------------------------------------------------------------------------------------------------------

def test_a_step_is_one_realize_with_extras():
    "step(loss) realizes every update and the loss in one device call; every update reads pre-step values."
    calls = []
    model, _ = twins()
    opt = AdamW(model.named_parameters(), lr=0.01)
    x, y = (Tensor(a) for a in batches()[0])
    loss = nn.mse_loss(model(x), y)
    loss.backward()
    device = get_device()
    original = device.realize
    device.realize = lambda sinks: calls.append(len(sinks)) or original(sinks)
    try: opt.step(loss)
    finally: del device.realize
    assert calls == [1 + 4 + 4 * 4 + 4]      # the loss, 4 parameters, 4 pieces of AdamW state each, the 4 grads (held in .grad)
    assert loss.node.op.name == "BUFFER"

def test_state_dict_round_trip_and_checks():
    model, _ = twins()
    opt = AdamW(model.named_parameters(), lr=0.01)
    data = batches()
    list(limn_steps(model, opt, data[:3], "numpy", False))
    state = opt.state_dict()
    assert sorted(state) == sorted([f"{n}.{k}" for n in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
                                    for k in ("exp_avg", "exp_avg_sq", "beta1_power", "beta2_power")] + ["lr"])
    np.testing.assert_allclose(state["fc1.weight.beta1_power"].item(), 0.9 ** 3, rtol=1e-15)
    other = AdamW(model.named_parameters(), lr=0.5)
    other.load_state_dict({k: Tensor(v.numpy(), dtype=v.dtype) for k, v in state.items()})
    assert other.lr == 0.01
    for k, v in other.state_dict().items(): assert v.numpy().tobytes() == state[k].numpy().tobytes(), k
    with pytest.raises(ValueError, match="missing"): other.load_state_dict({})
    bad = dict(state); bad["lr"] = Tensor(np.zeros(2))
    with pytest.raises(ValueError, match="'lr' is float64\\[2\\], expected float64\\[\\]"): other.load_state_dict(bad)
    group = muon_with_adamw(MLP().named_parameters())
    assert {"muon.lr", "adamw.lr", "fc1.weight.momentum_buffer", "fc1.bias.exp_avg"} <= set(group.state_dict())

def test_float64_parameters_keep_float64_state():
    w = Tensor(np.ones(3), dtype="float64", requires_grad=True)
    opt = AdamW([w], lr=0.1)
    (w * w).sum().backward(); opt.step()
    assert all(v.dtype.name == "float64" for v in opt.state_dict().values()) and w.dtype.name == "float64"

def test_errors_name_the_mistake():
    w = Tensor(np.ones(3, np.float32), requires_grad=True)
    with pytest.raises(ValueError, match="empty"): SGD([], lr=0.1)
    with pytest.raises(TypeError, match="single Tensor"): SGD(w, lr=0.1)
    with pytest.raises(TypeError, match="only float"): SGD([Tensor(np.ones(2, np.int32))], lr=0.1)
    with pytest.raises(ValueError, match="lr=-1"): SGD([w], lr=-1)
    with pytest.raises(ValueError, match="nesterov"): SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="betas"): AdamW([w], betas=(0.9,))
    with pytest.raises(ValueError, match="betas\\[1\\]=1.5"): AdamW([w], betas=(0.9, 1.5))
    with pytest.raises(ValueError, match="Muon optimizes matrices"): Muon([w])
    with pytest.raises(ValueError, match="twice"): SGD([w, w], lr=0.1)
    opt = SGD([w], lr=0.1)
    with pytest.raises(ValueError, match="lr"): opt.lr = -0.5
    with pytest.raises(TypeError, match="expected an Optimizer"): OptimizerGroup(a=3)

from limn.executor import graph_key
from limn.tensor import realize

def _optimizers():
    return [lambda ps: SGD(ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01), lambda ps: AdamW(ps, lr=1e-2),
            lambda ps: Muon([p for p in ps if p.ndim == 2], lr=0.02), lambda ps: AdamW(ps, lr=1e-2, weight_decay=0.0)]

@pytest.mark.parametrize("make", range(4))
def test_update_templates_rebuild_the_fresh_graph(make):
    "A templated step builds the graph a Tensor-op build makes (equal graph keys) and gives its bits, through hyperparameter changes."
    def run(cached: bool):
        set_seed(1)
        model = MLP()
        opt = _optimizers()[make](list(model.parameters()))
        opt.cache_updates = cached
        keys, data = [], batches(3)
        with use_device("c"):
            for step, (x, y) in enumerate(data[:4]):
                if step == 2:                                  # a changed hyperparameter must not reuse the old template
                    for attr in ("momentum", "beta1", "weight_decay"):
                        if hasattr(opt, attr): setattr(opt, attr, getattr(opt, attr) * 0.5)
                nn.mse_loss(model(Tensor(x)), Tensor(y)).backward()
                ups = opt.updates()
                keys.append(graph_key([t.node for t in ups])[0])
                realize(*ups); opt.zero_grad()
        return keys, [p.numpy() for p in model.parameters()], opt
    fresh_keys, fresh, _ = run(False)
    keys, got, opt = run(True)
    assert keys == fresh_keys
    for a, b in zip(got, fresh): assert a.tobytes() == b.tobytes()
    assert len(opt._templates) == 2 * len({(p.shape, p.dtype) for p in opt.params})    # one per shape, again after the change

def test_update_template_refuses_a_stale_kept_node_and_foreign_buffers():
    "A kept constant realized and assigned to since recording voids its template; an update reading a buffer it was not given is not templated."
    from limn.ops import GraphTemplate
    from limn.ops import Ops, Node
    def step(o):
        p = o.params[0]; (p * p).sum().backward(); o.step(); o.zero_grad()
    opt = SGD([Tensor(np.ones(3, np.float32), requires_grad=True)], lr=0.5, momentum=0.9, weight_decay=0.1)
    plain = SGD([Tensor(np.ones(3, np.float32), requires_grad=True)], lr=0.5, momentum=0.9, weight_decay=0.1)
    plain.cache_updates = False
    step(opt); step(plain)
    (template,) = opt._templates.values()
    assert template.kept and all(n.op in (Ops.CONST, Ops.VIEW) for n in template.kept)
    for node in template.kept:                                 # someone realizes the shared constants and assigns to them
        t = Tensor(node).realize(); t.assign(t * 0 + 7).realize()
    step(opt); step(plain)
    assert opt.params[0].numpy().tobytes() == plain.params[0].numpy().tobytes()
    foreign = Tensor(np.ones(3, np.float32)).realize()
    a = Node(Ops.BUFFER, (), None, foreign.dtype, (3,))
    with pytest.raises(ValueError, match="not one of its inputs"): GraphTemplate([a], [Node(Ops.ADD, (a, foreign.node), None, foreign.dtype, (3,))])

def test_a_subclass_with_its_own_update_is_not_templated():
    "cache_updates is not inherited by a class that writes its own update()."
    class Halve(SGD):
        def update(self, p, g, state, lr): return p * 0.5
    class Quiet(AdamW): pass
    assert not Halve.cache_updates and Quiet.cache_updates and AdamW.cache_updates

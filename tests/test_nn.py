"""limn.nn held to torch.nn step for step: every layer in a small model, the same initial weights copied into a torch
twin, the same ten batches, SGD with momentum in both; the parameters must agree to 1e-5 relative after every step,
on the numpy device, the c device, and the c device under capture."""
import numpy as np
import pytest
import torch
import limn.backend_c  # registers "c"
from limn import Tensor, set_seed, use_device, no_grad
from limn.capture import capture
from limn.optim import SGD
from limn import nn

MODES = [("numpy", False), ("c", False), ("c", True)]
STEPS = 10

def copy_into_torch(model, twin):
    "Copy limn's initial weights into the torch twin by name; the two must name their parameters identically."
    ours = dict(model.named_parameters())
    theirs = dict(twin.named_parameters())
    assert list(ours) == list(theirs), (list(ours), list(theirs))
    with torch.no_grad():
        for name, p in theirs.items(): p.copy_(torch.tensor(ours[name].numpy()))

def assert_close(model, twin, step):
    theirs = dict(twin.named_parameters())
    for name, p in model.named_parameters():
        np.testing.assert_allclose(p.numpy(), theirs[name].detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=f"{name} after step {step}")

def run(make, make_twin, batches, loss_fn, torch_loss_fn, device, captured):
    set_seed(0)
    model, twin = make(), make_twin()
    copy_into_torch(model, twin)
    opt = SGD(model.named_parameters(), lr=0.05, momentum=0.9)
    topt = torch.optim.SGD(twin.parameters(), lr=0.05, momentum=0.9)
    def step(x, y):
        loss = loss_fn(model(x), y)
        loss.backward(); opt.step(loss); opt.zero_grad()
        return loss
    with use_device(device):
        fn = capture(step) if captured else step
        for i, (x, y) in enumerate(batches):
            loss = fn(Tensor(x), Tensor(y))
            tloss = torch_loss_fn(twin(torch.tensor(x)), torch.tensor(y))
            topt.zero_grad(); tloss.backward(); topt.step()
            np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
            assert_close(model, twin, i)
    if captured: assert fn.replays == STEPS - 2

def float_batches(x_shape, y_shape, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(y_shape).astype(np.float32)) for _ in range(STEPS)]

def mse(a, b): return nn.mse_loss(a, b)
def torch_mse(a, b): return torch.nn.functional.mse_loss(a, b)

# --- the models: each pair names its parameters the same way ---------------------------------------------------------

class LinearModel(nn.Module):
    def __init__(self): self.fc1, self.fc2 = nn.Linear(5, 7), nn.Linear(7, 3, bias=False)
    def forward(self, x): return self.fc2(self.fc1(x).tanh())
class TorchLinearModel(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.fc1, self.fc2 = torch.nn.Linear(5, 7), torch.nn.Linear(7, 3, bias=False)
    def forward(self, x): return self.fc2(torch.tanh(self.fc1(x)))

class NormModel(nn.Module):
    def __init__(self): self.fc, self.norm = nn.Linear(6, 6), nn.LayerNorm(6)
    def forward(self, x): return self.norm(self.fc(x)) * 1.5
class TorchNormModel(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.fc, self.norm = torch.nn.Linear(6, 6), torch.nn.LayerNorm(6)
    def forward(self, x): return self.norm(self.fc(x)) * 1.5

class EmbeddingModel(nn.Module):
    def __init__(self): self.embed, self.head = nn.Embedding(11, 4), nn.Linear(4, 5)
    def forward(self, idx): return self.head(self.embed(idx))
class TorchEmbeddingModel(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.embed, self.head = torch.nn.Embedding(11, 4), torch.nn.Linear(4, 5)
    def forward(self, idx): return self.head(self.embed(idx.long()))

class Conv1dModel(nn.Module):
    def __init__(self): self.conv = [nn.Conv1d(2, 3, kernel_size=3, stride=2, padding=1), nn.Conv1d(3, 2, kernel_size=2)]
    def forward(self, x): return self.conv[1](self.conv[0](x).relu())
class TorchConv1dModel(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.conv = torch.nn.ModuleList([torch.nn.Conv1d(2, 3, 3, stride=2, padding=1), torch.nn.Conv1d(3, 2, 2)])
    def forward(self, x): return self.conv[1](torch.relu(self.conv[0](x)))

class Conv2dModel(nn.Module):
    def __init__(self): self.conv = nn.Conv2d(2, 3, kernel_size=(3, 2), stride=(2, 1), padding=1)
    def forward(self, x): return self.conv(x)
class TorchConv2dModel(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.conv = torch.nn.Conv2d(2, 3, (3, 2), stride=(2, 1), padding=1)
    def forward(self, x): return self.conv(x)

class DropoutModel(nn.Module):
    "Dropout in eval mode is the identity: the model must train exactly as without it."
    def __init__(self): self.fc, self.drop = nn.Linear(4, 2), nn.Dropout(0.5)
    def forward(self, x): return self.drop(self.fc(x))
class TorchDropoutModel(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.fc, self.drop = torch.nn.Linear(4, 2), torch.nn.Dropout(0.5)
    def forward(self, x): return self.drop(self.fc(x))

@pytest.mark.parametrize("device,captured", MODES)
def test_linear(device, captured):
    run(LinearModel, TorchLinearModel, float_batches((8, 5), (8, 3)), mse, torch_mse, device, captured)

@pytest.mark.parametrize("device,captured", MODES)
def test_layernorm(device, captured):
    run(NormModel, TorchNormModel, float_batches((4, 3, 6), (4, 3, 6)), mse, torch_mse, device, captured)

@pytest.mark.parametrize("device,captured", MODES)
def test_embedding_gather_forward_scatter_backward(device, captured):
    rng = np.random.default_rng(3)
    batches = [(rng.integers(0, 11, (6, 3)).astype(np.int32), rng.integers(0, 5, (6, 3)).astype(np.int32)) for _ in range(STEPS)]
    ce = lambda logits, y: nn.cross_entropy(logits.flatten(0, 1), y.flatten())
    tce = lambda logits, y: torch.nn.functional.cross_entropy(logits.reshape(-1, 5), y.long().reshape(-1))
    run(EmbeddingModel, TorchEmbeddingModel, batches, ce, tce, device, captured)

@pytest.mark.parametrize("device,captured", MODES)
def test_conv1d(device, captured):
    run(Conv1dModel, TorchConv1dModel, float_batches((3, 2, 9), (3, 2, 4)), mse, torch_mse, device, captured)

@pytest.mark.parametrize("device,captured", MODES)
def test_conv2d(device, captured):
    run(Conv2dModel, TorchConv2dModel, float_batches((2, 2, 7, 5), (2, 3, 4, 6)), mse, torch_mse, device, captured)

@pytest.mark.parametrize("device,captured", MODES)
def test_dropout_eval(device, captured):
    def make(): return DropoutModel().eval()
    def make_twin(): return TorchDropoutModel().eval()
    run(make, make_twin, float_batches((5, 4), (5, 2)), mse, torch_mse, device, captured)

def test_dropout_train_gradient_matches_its_mask():
    "In training mode the gradient through dropout is the mask scaled by 1/(1-p), exactly as torch's for the same mask."
    set_seed(5)
    drop = nn.Dropout(0.3)
    x = Tensor(np.random.default_rng(0).standard_normal((50, 4)).astype(np.float32), requires_grad=True)
    y = drop(x)
    (y * y).sum().backward()
    out = y.numpy()
    mask = (out != 0).astype(np.float32)
    np.testing.assert_allclose(out, x.numpy() * mask / 0.7, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() * mask / 0.7 / 0.7, rtol=1e-5)
    assert 0.2 < 1 - mask.mean() < 0.4

def test_init_distributions_match_torch():
    """Every layer's initial weights follow torch's law: the same bound (checked against torch's own draws and against
    1/sqrt(fan_in)) and, for tensors big enough to measure, the same spread."""
    torch.manual_seed(0); set_seed(0)
    pairs = [(nn.Linear(300, 200), torch.nn.Linear(300, 200)), (nn.Conv2d(8, 16, 3), torch.nn.Conv2d(8, 16, 3)),
             (nn.Conv1d(20, 30, 5), torch.nn.Conv1d(20, 30, 5)), (nn.Embedding(500, 64), torch.nn.Embedding(500, 64)),
             (nn.LayerNorm(32), torch.nn.LayerNorm(32))]
    for ours, theirs in pairs:
        tp = dict(theirs.named_parameters())
        fan_in = int(np.prod(ours.weight.shape[1:]))
        for name, p in ours.named_parameters():
            a, b = p.numpy(), tp[name].detach().numpy()
            what = (type(ours).__name__, name)
            assert a.shape == b.shape and a.dtype == b.dtype, what
            if b.std() == 0: assert np.array_equal(a, b), what; continue
            if isinstance(ours, nn.Embedding): assert abs(a.std() - 1) < 0.02 and abs(a.mean()) < 0.02, what; continue
            bound = 1 / np.sqrt(fan_in)
            assert np.abs(a).max() <= bound and np.abs(b).max() <= bound, what
            if a.size >= 100: assert np.abs(a).max() > 0.9 * bound, what
            if a.size >= 1000: assert abs(a.std() / b.std() - 1) < 0.05 and abs(a.std() - bound / np.sqrt(3)) < 0.05 * bound, what

def test_parameters_walk_names_and_dedup():
    class Shared(nn.Module):
        def __init__(self):
            self.a = nn.Linear(2, 2)
            self.layers = [self.a, nn.Linear(2, 1)]
            self.table = {"x": nn.LayerNorm(2)}
            self.mask = Tensor(np.ones(3, np.float32))          # not trainable: not a parameter
    m = Shared()
    assert [n for n, _ in m.named_parameters()] == ["a.weight", "a.bias", "layers.1.weight", "layers.1.bias", "table.x.weight", "table.x.bias"]
    assert len(m.parameters()) == 6 and len(m.modules()) == 4
    assert m.eval() is m and not any(x.training for x in m.modules())

def test_errors_name_the_mistake():
    with pytest.raises(ValueError, match="in_features=0"): nn.Linear(0, 3)
    with pytest.raises(ValueError, match="last dim must be 4"): nn.Linear(4, 2)(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="trailing dims"): nn.LayerNorm(5)(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError, match="int tensor"): nn.Embedding(4, 2)(Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="p=1.5"): nn.Dropout(1.5)
    with pytest.raises(ValueError, match="smaller than the kernel"): nn.Conv2d(1, 1, 5)(Tensor(np.ones((1, 1, 3, 3), np.float32)))
    with pytest.raises(ValueError, match="expects input"): nn.Conv1d(2, 1, 2)(Tensor(np.ones((1, 3, 5), np.float32)))
    with pytest.raises(ValueError, match="stride"): nn.Conv1d(2, 1, 2, stride=0)
    with pytest.raises(TypeError, match="float dtype"): nn.Linear(2, 2, dtype="int32")
    with pytest.raises(NotImplementedError, match="defines no forward"): nn.Module()(1)

@pytest.mark.parametrize("fused", [True, False], ids=["fused-attention", "composed-attention"])
def test_example_gpt_matches_torch(fused):
    "The byte-level GPT of examples/train_stories.py (fused attention, or composed from the tensor API) against the same model in torch."
    import importlib.util, pathlib, sys
    examples = pathlib.Path(__file__).parents[1] / "examples"
    sys.path.insert(0, str(examples))
    try:
        spec = importlib.util.spec_from_file_location("bench_train", examples / "bench_train.py")
        bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
    finally: sys.path.remove(str(examples))
    set_seed(0)
    model, twin = bench.GPT(256, 16, 32, 2, 4, fused_attention=fused), bench.TorchGPT(256, 16, 32, 2, 4)
    copy_into_torch(model, twin)
    ids = np.random.default_rng(0).integers(0, 256, (3, 17)).astype(np.int32)
    opt = SGD(model.named_parameters(), lr=0.1)
    topt = torch.optim.SGD(twin.parameters(), lr=0.1)
    for _ in range(3):
        loss = nn.cross_entropy(model(Tensor(ids[:, :-1])).flatten(0, 1), Tensor(ids[:, 1:]).flatten())
        loss.backward(); opt.step(loss); opt.zero_grad()
        tloss = torch.nn.functional.cross_entropy(twin(torch.tensor(ids[:, :-1]).long()).reshape(-1, 256), torch.tensor(ids[:, 1:]).long().reshape(-1))
        topt.zero_grad(); tloss.backward(); topt.step()
        np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    assert_close(model, twin, 3)
    changed = ids.copy(); changed[:, 10:] = 0                     # causality: positions before 10 cannot see the change
    with no_grad():
        a, b = model(Tensor(ids[:, :-1])).numpy(), model(Tensor(changed[:, :-1])).numpy()
    np.testing.assert_array_equal(a[:, :10], b[:, :10])
    assert not np.allclose(a[:, 10:], b[:, 10:])

"""Second (and third) derivatives through create_graph=True, held to torch.autograd.grad(..., create_graph=True).

Each expression f maps inputs to a scalar. We compare the gradient, a Hessian-vector product
(grad of <grad f, v>), and for some a third-order term, in float64 so the comparison is tight.
"""
import numpy as np
import pytest
import torch

import limn
from limn import Tensor

rng = np.random.default_rng(7)
X = rng.standard_normal((3, 4))
W1, B1, W2, B2 = rng.standard_normal((4, 5)), rng.standard_normal(5), rng.standard_normal((5, 2)), rng.standard_normal(2)
Y = rng.standard_normal((3, 2))
ONEHOT = np.eye(4)[[1, 3, 0]]
IDX = np.array([2, 0, 2, 1], np.int32)

# name -> (limn f, torch f); both take the list of inputs (x first) and return a scalar
EXPRESSIONS = {
    "cube": (lambda x: (x ** 3).sum(), lambda x: (x ** 3).sum()),
    "x_exp_x": (lambda x: (x.exp() * x).sum(), lambda x: (x.exp() * x).sum()),
    "sigmoid": (lambda x: (x.sigmoid() * x).sum(), lambda x: (x.sigmoid() * x).sum()),
    "tanh_sq": (lambda x: (x.tanh() ** 2).sum(), lambda x: (x.tanh() ** 2).sum()),
    "log_sqrt": (lambda x: ((x * x + 1).log() * (x * x + 2).sqrt()).sum(), lambda x: ((x * x + 1).log() * (x * x + 2).sqrt()).sum()),
    "recip": (lambda x: (1 / (1 + x * x)).sum(), lambda x: (1 / (1 + x * x)).sum()),
    "softmax": (lambda x: (x.softmax(-1) * Tensor(W1[:3, :4])).sum(), lambda x: (x.softmax(-1) * torch.tensor(W1[:3, :4])).sum()),
    "cross_entropy": (lambda x: -(x.log_softmax(-1) * Tensor(ONEHOT)).sum(1).mean(),
                      lambda x: -(x.log_softmax(-1) * torch.tensor(ONEHOT)).sum(1).mean()),
    "matmul_gram": (lambda x: ((x @ x.T) ** 2).sum(), lambda x: ((x @ x.T) ** 2).sum()),
    "matmul_weight": (lambda x: ((x @ Tensor(W1)).tanh() ** 2).sum(), lambda x: ((x @ torch.tensor(W1)).tanh() ** 2).sum()),
    "mlp_loss": (lambda x, w1, w2: ((((x @ w1 + Tensor(B1)).gelu() @ w2) + Tensor(B2) - Tensor(Y)) ** 2).mean(),
                 lambda x, w1, w2: ((((x @ w1 + torch.tensor(B1)).nn_gelu() @ w2) + torch.tensor(B2) - torch.tensor(Y)) ** 2).mean()),
    "var_max": (lambda x: x.var(-1).sum() + (x.amax(-1) ** 2).sum(), lambda x: x.var(-1).sum() + (x.amax(-1) ** 2).sum()),
    "maximum_where": (lambda x: (limn.maximum(x, 0.3 * x) ** 2 + limn.where(x < 0, x * x * x, x)).sum(),
                      lambda x: (torch.maximum(x, 0.3 * x) ** 2 + torch.where(x < 0, x * x * x, x)).sum()),
    "movement": (lambda x: (x.T.reshape(2, 6).pad(((1, 0), (0, 2)))[:, 1:] ** 3).sum(),
                 lambda x: (torch.nn.functional.pad(x.T.reshape(2, 6), (0, 2, 1, 0))[:, 1:] ** 3).sum()),
    "gather": (lambda x: (x.T[Tensor(IDX)].tanh() ** 3).sum(), lambda x: (x.T[torch.tensor(IDX).long()].tanh() ** 3).sum()),
}
torch.Tensor.nn_gelu = lambda self: torch.nn.functional.gelu(self, approximate="tanh")
THIRD_ORDER = {"cube", "x_exp_x", "sigmoid", "softmax", "mlp_loss", "gather"}


def inputs(name):
    return [X, W1, W2] if name == "mlp_loss" else [X]


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_higher_derivatives_match_torch(name):
    f, tf = EXPRESSIONS[name]
    data = inputs(name)
    xs = [Tensor(d, requires_grad=True) for d in data]
    ts = [torch.tensor(d, requires_grad=True) for d in data]
    vs = [np.random.default_rng(i).standard_normal(d.shape) for i, d in enumerate(data)]

    grads = limn.grad(f(*xs), xs, create_graph=True)
    tgrads = torch.autograd.grad(tf(*ts), ts, create_graph=True)
    assert all(g.requires_grad for g in grads), "create_graph=True must give differentiable gradients"
    # Hessian-vector product: d/dx <grad f, v>
    hvp_out = sum(((g * Tensor(v)).sum() for g, v in zip(grads, vs)), Tensor(np.float64(0)))
    thvp_out = sum((g * torch.tensor(v)).sum() for g, v in zip(tgrads, vs))
    hvps = limn.grad(hvp_out, xs, create_graph=True, allow_unused=True)
    thvps = torch.autograd.grad(thvp_out, ts, create_graph=True, allow_unused=True)
    for g, tg in zip(grads, tgrads): np.testing.assert_allclose(g.numpy(), tg.detach().numpy(), rtol=1e-8, atol=1e-10)
    for h, th in zip(hvps, thvps):
        expected = np.zeros_like(X) if th is None else th.detach().numpy()
        np.testing.assert_allclose(0 if h is None else h.numpy(), expected, rtol=1e-8, atol=1e-10, err_msg="second derivative")
    if name in THIRD_ORDER:
        third = limn.grad((hvps[0] * hvps[0]).sum(), xs[0])[0]
        tthird = torch.autograd.grad((thvps[0] * thvps[0]).sum(), ts[0])[0]
        np.testing.assert_allclose(third.numpy(), tthird.numpy(), rtol=1e-8, atol=1e-10, err_msg="third derivative")


def test_without_create_graph_gradients_have_no_history():
    x = Tensor(X, requires_grad=True)
    g, = limn.grad((x ** 3).sum(), x)
    assert not g.requires_grad and g._ctx is None
    with pytest.raises(ValueError, match="does not require grad"):
        limn.grad(g.sum(), x)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_backward_create_graph_then_grad_of_grad():
    x = Tensor(X, requires_grad=True); t = torch.tensor(X, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True); (t ** 3).sum().backward(create_graph=True)
    second, = limn.grad(x.grad.sum(), x); tsecond, = torch.autograd.grad(t.grad.sum(), t)
    np.testing.assert_allclose(second.numpy(), tsecond.numpy(), rtol=1e-10)

"""The tour `make demo` runs: limn's first example, a short training run, the IR a matmul compiles to, the c device,
and litmus on a corpus kernel (its bound, its safety report, the standard test that misses the bug, the answer-key
input that exposes it, and litmus's own verdict).

    python examples/tour.py                    # litmus looks at softmax_nomaxsub
    python examples/tour.py vadd_nomask        # or any corpus kernel (python -c "from litmus import corpus; print(corpus.names())")
"""
import sys
import numpy as np

from limn import Tensor, nn, set_device, set_seed
from limn.optim import AdamW
from limn.codegen import ir
from litmus import GPUSafetyCheck, ToleranceBound, corpus, simulate
from litmus.check import check


def section(title): print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


section("limn: the first example (lazy until .numpy())")
x = Tensor.randn((4, 3), requires_grad=True)
loss = ((x @ Tensor.randn((3, 2))).relu() ** 2).sum()
loss.backward()
print(x.grad.numpy())

section("limn: a linear layer learns the weights that made its data (AdamW, 100 steps)")
set_seed(0)
model = nn.Linear(3, 1)
opt = AdamW(model.named_parameters(), lr=0.1)
x = Tensor(np.random.default_rng(0).standard_normal((64, 3)).astype(np.float32))
y = x @ Tensor(np.array([[1.0], [-2.0], [0.5]], np.float32)) + 0.3
for step in range(100):
    loss = nn.mse_loss(model(x), y)
    loss.backward(); opt.step(loss); opt.zero_grad()
print(f"loss {loss.item():.5f}  weight {model.weight.numpy().round(2)} (made with [1, -2, 0.5])  bias {model.bias.numpy().round(2)} (0.3)")

section("limn: a matmul is one fused loop nest")
print(ir(Tensor.randn((4, 5)) @ Tensor.randn((5, 3))))

section("limn: the c device against the numpy reference")
data = np.random.default_rng(0).random((64, 32), dtype=np.float32)
results = {}
for device in ("numpy", "c"):
    set_device(device)
    x = Tensor(data)
    results[device] = (x @ x.transpose()).sum().item()
    print(f"{device:>5}: (x @ x.T).sum() = {results[device]:.6f}")
set_device("numpy")
assert abs(results["c"] - results["numpy"]) <= 1e-5 * abs(results["numpy"])

name = sys.argv[1] if len(sys.argv) > 1 else "softmax_nomaxsub"
kernel = corpus.get(name)
section(f"litmus: {name} ({kernel.label})")
print(kernel.why)
if kernel.spec:
    print(ToleranceBound(kernel.spec, kernel.args[0]["dtype"], domain=kernel.domain, dims=kernel.dims))
print("memory safety (all shapes, without running the kernel):", GPUSafetyCheck(kernel).run())
standard = simulate.check(kernel, corpus.standard_dims(kernel))
print(f"standard test (power-of-two shape, uniform [0,1) inputs): {'FAIL' if standard.fails else 'pass'}   {standard}")
if kernel.answer_key:
    dims, inputs = corpus.answer_key_inputs(kernel)
    exposed = simulate.check(kernel, dims, inputs)
    print(f"answer-key input:                                         {'FAIL' if exposed.fails else 'pass'}   {exposed}")

section(f"litmus check {name} --quick (the verdict, without the answer key)")
print(check(kernel, quick=True))

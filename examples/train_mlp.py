"""AdamW on a toy regression with limn: an MLP learns y = sin(2 x0) cos(x1) + 0.5 x2 x3 from 512 noisy samples.

The loss must drop at least 20x; the script exits non-zero otherwise. It prints the loss and the steps per second
as it goes. --device picks numpy (the reference interpreter) or c (compiled); --capture records the step once and
replays its kernels (c only), with the learning rate scheduled on the device.

    python examples/train_mlp.py                     # numpy device
    python examples/train_mlp.py --device c --capture
"""
from __future__ import annotations
import argparse, os, sys, time
os.environ.setdefault("OMP_WAIT_POLICY", "passive")   # idle OpenMP threads sleep instead of spinning (matters on shared machines)
import numpy as np
from limn import Tensor, set_seed, set_device
from limn import nn
from limn.optim import AdamW
from limn.capture import capture

class MLP(nn.Module):
    def __init__(self, inputs: int = 4, hidden: int = 64):
        self.fc1, self.fc2, self.fc3 = nn.Linear(inputs, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, 1)
    def forward(self, x): return self.fc3(self.fc2(self.fc1(x).tanh()).tanh())

def dataset(n: int = 512, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.5, 1.5, (n, 4)).astype(np.float32)
    y = np.sin(2 * x[:, 0]) * np.cos(x[:, 1]) + 0.5 * x[:, 2] * x[:, 3] + rng.normal(0, 0.01, n)
    return x, y.astype(np.float32)[:, None]

def main(argv=None) -> float:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=["numpy", "c"], default="numpy")
    ap.add_argument("--capture", action="store_true", help="record the step on its first call and replay it (c device)")
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.capture and args.device != "c": ap.error("--capture needs --device c (it replays compiled kernels)")
    set_device(args.device)
    set_seed(args.seed)
    x_all, y_all = dataset(seed=args.seed)
    model = MLP()
    opt = AdamW(model.named_parameters(), lr=args.lr, weight_decay=1e-4)

    def step(x, y):
        loss = nn.mse_loss(model(x), y)
        loss.backward(); opt.step(loss); opt.zero_grad()
        return loss
    step_fn = capture(step) if args.capture else step
    rng = np.random.default_rng(args.seed + 1)
    print(f"MLP 4 -> 64 -> 64 -> 1, AdamW lr {args.lr}, batch {args.batch}, device {args.device}{' + capture' if args.capture else ''}")
    losses, began, mark = [], time.perf_counter(), time.perf_counter()
    for i in range(args.steps):
        opt.lr = args.lr * (0.05 + 0.95 * (1 - i / args.steps))          # linear decay, held on the device
        pick = rng.integers(0, len(x_all), args.batch)
        losses.append(step_fn(Tensor(x_all[pick]), Tensor(y_all[pick])).item())
        if (i + 1) % 50 == 0 or i == 0:
            now = time.perf_counter()
            rate = (1 if i == 0 else 50) / (now - mark)
            print(f"step {i + 1:4d}  loss {losses[-1]:.5f}  {rate:7.1f} steps/s", flush=True); mark = now
    first, last = float(np.mean(losses[:5])), float(np.mean(losses[-20:]))
    seconds = time.perf_counter() - began
    print(f"loss {first:.4f} -> {last:.5f}: dropped {first / last:.1f}x in {args.steps} steps, {args.steps / seconds:.1f} steps/s overall")
    if first / last < 20: sys.exit(f"FAIL: the loss dropped only {first / last:.1f}x (expected at least 20x)")
    return first / last

if __name__ == "__main__":
    main()

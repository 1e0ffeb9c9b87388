"""A PyTorch training script, run by limn and by torch: a small CNN (Conv2d, BatchNorm2d, ReLU, MaxPool2d, Sequential)
learns ten digit glyphs drawn at random offsets with noise, with F.cross_entropy, SGD with momentum, a OneCycleLR
schedule and clip_grad_norm_.

The training code below is written once against torch's names (`nn`, `F`, `optim`, `lr_scheduler`,
`clip_grad_norm_`) and handed either torch's modules or limn's. limn runs it on the c device with the step under
`limn.capture` (recorded once, replayed after); torch runs the same code eagerly from the same initial weights
(torch's own init, loaded into limn with `load_state_dict`). With torch installed the script asserts that the
two agree on every step's loss to --rtol and exits non-zero otherwise; it prints the losses and the test accuracy.

    python examples/train_cnn.py                      # c device, captured, compared with torch
    python examples/train_cnn.py --steps 20 --no-capture --device numpy
"""
from __future__ import annotations
import argparse, os, sys, types
os.environ.setdefault("OMP_WAIT_POLICY", "passive")   # idle OpenMP threads sleep instead of spinning (matters on shared machines)
import numpy as np

GLYPHS = ["111101101101111", "010110010010111", "111001111100111", "111001111001111", "101101111001001",
          "111100111001111", "111100111101111", "111001001001001", "111101111101111", "111101111001111"]

def digits(n: int, seed: int, size: int = 12) -> tuple[np.ndarray, np.ndarray]:
    "n images (n, 1, size, size) of the 3x5 digit glyphs scaled 2x, at random offsets, with noise; labels int32 (n,)."
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.int32)
    images = rng.normal(0, 0.3, (n, 1, size, size)).astype(np.float32)
    for i, label in enumerate(labels):
        glyph = np.array([int(c) for c in GLYPHS[label]], np.float32).reshape(5, 3).repeat(2, 0).repeat(2, 1)
        top, left = rng.integers(0, size - 10 + 1), rng.integers(0, size - 6 + 1)
        images[i, 0, top:top + 10, left:left + 6] += glyph * rng.uniform(0.7, 1.3)
    return images, labels

def make_model(nn):
    "The CNN, in torch's names: whichever `nn` is passed builds it."
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),       # 12x12 -> 6x6
        nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),     # 6x6 -> 3x3
        nn.Flatten(), nn.Linear(16 * 9, 10))

def make_training(lib, model, steps: int, lr: float):
    "The optimizer, the schedule and one training step, written once in torch's names (`lib` holds torch's or limn's)."
    opt = lib.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
    sched = lib.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, cycle_momentum=False)
    def train_step(x, y):
        opt.zero_grad()
        loss = lib.F.cross_entropy(model(x), y, label_smoothing=0.05)
        loss.backward()
        lib.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss
    return opt, sched, train_step

def torch_lib():
    import torch
    return types.SimpleNamespace(nn=torch.nn, F=torch.nn.functional, optim=torch.optim, lr_scheduler=torch.optim.lr_scheduler,
                                 clip_grad_norm_=torch.nn.utils.clip_grad_norm_, tensor=torch.tensor, torch=torch)

def limn_lib():
    import limn
    import limn.nn.functional as F
    from limn.nn.utils import clip_grad_norm_
    return types.SimpleNamespace(nn=limn.nn, F=F, optim=limn.optim, lr_scheduler=limn.optim.lr_scheduler,
                                 clip_grad_norm_=clip_grad_norm_, tensor=limn.Tensor)

def batches(x, y, steps: int, batch: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        pick = rng.choice(len(x), batch, replace=False)
        yield x[pick], y[pick]

def run_limn(args, data, initial_state):
    import limn
    from limn.capture import capture
    lib = limn_lib()
    limn.set_device(args.device)
    limn.set_seed(args.seed)
    model = make_model(lib.nn)
    if initial_state is not None:
        model.load_state_dict(initial_state)
    opt, sched, train_step = make_training(lib, model, args.steps, args.lr)
    step = capture(train_step) if args.capture else train_step
    losses = []
    for x, y in batches(*data[0], args.steps, args.batch, args.seed):
        losses.append(step(lib.tensor(x), lib.tensor(y)).item())
        sched.step()
    model.eval()
    accuracy = float((model(lib.tensor(data[1][0])).numpy().argmax(1) == data[1][1]).mean())
    return losses, accuracy, getattr(step, "replays", 0)

def run_torch(args, data, model):
    lib = torch_lib()
    opt, sched, train_step = make_training(lib, model, args.steps, args.lr)
    losses = []
    for x, y in batches(*data[0], args.steps, args.batch, args.seed):
        losses.append(train_step(lib.tensor(x), lib.tensor(y).long()).item())
        sched.step()
    model.eval()
    with lib.torch.no_grad():
        accuracy = float((model(lib.tensor(data[1][0])).argmax(1).numpy() == data[1][1]).mean())
    return losses, accuracy

def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=["numpy", "c"], default="c")
    ap.add_argument("--no-capture", dest="capture", action="store_false", help="run the step eagerly instead of replaying it")
    ap.add_argument("--no-torch", dest="torch", action="store_false", help="train limn alone (limn's own initial weights)")
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--rtol", type=float, default=1e-5, help="per-step relative agreement of the losses with torch")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.capture and args.device == "numpy":
        ap.error("capture replays compiled kernels: use --device c, or --no-capture")
    data = digits(512, args.seed), digits(256, args.seed + 1)
    twin = None
    if args.torch:
        lib = torch_lib()
        lib.torch.manual_seed(args.seed)
        twin = make_model(lib.nn)
    losses, accuracy, replays = run_limn(args, data, None if twin is None else twin.state_dict())
    result = {"losses": losses, "accuracy": accuracy, "replays": replays}
    if twin is not None:
        result["torch_losses"], result["torch_accuracy"] = run_torch(args, data, twin)
    for i in range(0, args.steps, max(1, args.steps // 10)):
        theirs = f"   torch {result['torch_losses'][i]:.6f}" if twin is not None else ""
        print(f"step {i:4d}   limn {losses[i]:.6f}{theirs}")
    print(f"test accuracy: limn {accuracy:.3f}" + (f", torch {result['torch_accuracy']:.3f}" if twin is not None else "")
          + f"   ({args.device}{', captured: %d replays' % replays if args.capture else ''})")
    if twin is not None:
        worst = max(abs(a - b) / abs(b) for a, b in zip(losses, result["torch_losses"]))
        print(f"worst per-step relative loss difference from torch: {worst:.2e} (allowed {args.rtol:.0e})")
        result["worst"] = worst
        if worst > args.rtol:
            sys.exit(f"limn's losses left torch's: {worst:.2e} > {args.rtol:.0e}")
    return result

if __name__ == "__main__":
    main()

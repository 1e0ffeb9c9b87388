"""Milliseconds per training step, limn against PyTorch CPU, measured in the same run.

Two workloads, each a full step (forward, backward, AdamW update, the loss read back):
  mlp  batch 256, 64 -> 256 -> 256 -> 1 (tanh), MSE
  gpt  the byte-level GPT of train_stories.py: vocab 256, context 64, dim 128, 2 layers, 4 heads, batch 8
Variants: limn on the numpy device, on the c device, on the c device under limn.capture, and torch on the CPU; for
the gpt also limn c+capture with the attention composed from tensor ops instead of limn's fused kernels
("c+cap compose"; torch composes it the same way).
Rounds are interleaved (every variant runs once per round, in a rotated order) so that load on a shared machine
hits all of them alike; the table gives the median over rounds and the ratio to torch.

Thread settings are fixed before torch and limn load (OpenMP reads them once): OMP_WAIT_POLICY=passive, so an idle
worker sleeps instead of spinning on the core the other library needs, and with --threads N both limn's OpenMP and
torch use N threads. --threads 1,2 runs the whole table once per setting, each in a fresh process.

    python examples/bench_train.py               # both workloads, 5 rounds, threads as the environment says
    python examples/bench_train.py --rounds 9 --only gpt
    python examples/bench_train.py --threads 1,2 --no-numpy
    python examples/bench_train.py --profile     # and where each eager step's time goes: kernels, or Python
    python examples/bench_train.py --cold --only gpt --rounds 9   # the first step on an empty kernel cache, 3 times
"""
from __future__ import annotations
import argparse, os, pathlib, platform, statistics, subprocess, sys, time

def _threads_argument(argv) -> str | None:
    "The value of --threads in `argv`, read before the imports below so it can set OMP_NUM_THREADS in time."
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv): return argv[i + 1]
        if a.startswith("--threads="): return a.split("=", 1)[1]
    return None

os.environ.setdefault("OMP_WAIT_POLICY", "passive")   # limn's c kernels and torch use OpenMP: idle threads sleep rather than spin
_THREADS = _threads_argument(sys.argv[1:])
if _THREADS is not None and "," not in _THREADS: os.environ["OMP_NUM_THREADS"] = _THREADS
import numpy as np
import torch
if _THREADS is not None and "," not in _THREADS: torch.set_num_threads(int(_THREADS))
from limn import Tensor, set_seed, set_device, use_device, known_devices, register_device
from limn import nn
from limn.optim import AdamW
from limn.capture import capture
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from train_stories import GPT

# --- the workloads, in limn and in torch ------------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self): self.fc1, self.fc2, self.fc3 = nn.Linear(64, 256), nn.Linear(256, 256), nn.Linear(256, 1)
    def forward(self, x): return self.fc3(self.fc2(self.fc1(x).tanh()).tanh())

class TorchMLP(torch.nn.Module):
    def __init__(self):
        super().__init__(); self.fc1, self.fc2, self.fc3 = torch.nn.Linear(64, 256), torch.nn.Linear(256, 256), torch.nn.Linear(256, 1)
    def forward(self, x): return self.fc3(torch.tanh(self.fc2(torch.tanh(self.fc1(x)))))

class TorchBlock(torch.nn.Module):
    def __init__(self, dim, heads):
        super().__init__(); self.heads = heads
        self.ln1, self.attn, self.proj = torch.nn.LayerNorm(dim), torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.ln2, self.fc, self.out = torch.nn.LayerNorm(dim), torch.nn.Linear(dim, 4 * dim), torch.nn.Linear(4 * dim, dim)
    def forward(self, x, causal):
        b, t, d = x.shape; hd = d // self.heads
        q, k, v = self.attn(self.ln1(x)).reshape(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        w = ((q @ k.transpose(-1, -2)) / hd ** 0.5).masked_fill(~causal, float("-inf")).softmax(-1)
        x = x + self.proj((w @ v).permute(0, 2, 1, 3).reshape(b, t, d))
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))

class TorchGPT(torch.nn.Module):
    "The same architecture as train_stories.GPT, with the attention composed the same way (no fused sdpa)."
    def __init__(self, vocab, context, dim, layers, heads):
        super().__init__()
        self.tok, self.pos = torch.nn.Embedding(vocab, dim), torch.nn.Embedding(context, dim)
        self.blocks = torch.nn.ModuleList([TorchBlock(dim, heads) for _ in range(layers)])
        self.ln, self.head = torch.nn.LayerNorm(dim), torch.nn.Linear(dim, vocab, bias=False)
        self.register_buffer("causal", torch.tril(torch.ones(context, context, dtype=torch.bool)))
    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for block in self.blocks: x = block(x, self.causal)
        return self.head(self.ln(x))

def workload(name: str):
    "(make limn model, make torch model, inputs as numpy, limn loss, torch loss)."
    rng = np.random.default_rng(0)
    if name == "mlp":
        x, y = rng.standard_normal((256, 64)).astype(np.float32), rng.standard_normal((256, 1)).astype(np.float32)
        return MLP, TorchMLP, (x, y), nn.mse_loss, torch.nn.functional.mse_loss
    ids = rng.integers(0, 256, (8, 65)).astype(np.int32)
    torch_ce = lambda logits, y: torch.nn.functional.cross_entropy(logits.reshape(-1, 256), y.reshape(-1).long())
    return (lambda: GPT(256, 64, 128, 2, 4)), (lambda: TorchGPT(256, 64, 128, 2, 4)), (ids[:, :-1], ids[:, 1:]), lambda logits, y: nn.cross_entropy(logits.flatten(0, 1), y.flatten()), torch_ce

_PINNED: dict = {}

def pinned(device: str) -> str:
    """A device name whose factory hands back one device object every time, so switching between variants keeps each
    variant's compiled programs, plans and capture (use_device(name) otherwise builds a fresh device)."""
    if device not in _PINNED:
        with use_device(device) as dev: _PINNED[device] = dev
        register_device(f"bench-{device}", lambda: _PINNED[device])
    return f"bench-{device}"

def limn_runner(name: str, device: str, captured: bool, composed_attention: bool = False):
    make, _, (x, y), loss_fn, _ = workload(name)
    if composed_attention: make = lambda: GPT(256, 64, 128, 2, 4, fused_attention=False)
    set_seed(0)
    device = pinned(device)
    model = make()
    opt = AdamW(model.named_parameters(), lr=1e-4)
    def step(x, y):
        loss = loss_fn(model(x), y)
        loss.backward(); opt.step(loss); opt.zero_grad()
        return loss
    fn = capture(step) if captured else step
    def run():
        with use_device(device): return fn(Tensor(x), Tensor(y)).item()
    return run

def torch_runner(name: str):
    _, make, (x, y), _, loss_fn = workload(name)
    torch.manual_seed(0)
    model = make()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tx, ty = torch.tensor(x), torch.tensor(y)
    def run():
        loss = loss_fn(model(tx), ty)
        opt.zero_grad(); loss.backward(); opt.step()
        return loss.item()
    return run

def measure(runners: dict, rounds: int, steps: dict) -> dict:
    "Median ms/step per variant over `rounds` interleaved rounds (order rotated each round)."
    times = {name: [] for name in runners}
    names = list(runners)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            n = steps[name]
            t0 = time.perf_counter()
            for _ in range(n): runners[name]()
            times[name].append((time.perf_counter() - t0) * 1000 / n)
    return {name: statistics.median(v) for name, v in times.items()}

class StepSplits:
    """Where a limn step's wall time goes, by perf_counter splits around the executor's entry points (patched in for
    the profile only): the kernels (`run_prepared`, `run`), the device call's own Python (graph key, plan lookup,
    binding), and everything outside the device call: building the graph, the tape, the optimizer's updates and the
    Tensor layer's realize (walk, held readers)."""
    def __init__(self):
        from limn import executor
        self.executor, self.seconds, self.saved = executor, {"device call": 0.0, "kernels": 0.0, "graph_key": 0.0}, {}
    def _timed(self, owner, name, label):
        original = getattr(owner, name)
        self.saved[(owner, name)] = original
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[label] += time.perf_counter() - start
        setattr(owner, name, timed)
    def __enter__(self):
        ex = self.executor
        self._timed(ex.Executor, "realize", "device call")
        self._timed(ex.Executor, "run_prepared", "kernels")
        self._timed(ex.Executor, "run", "kernels")
        self._timed(ex, "graph_key", "graph_key")
        return self
    def __exit__(self, *exc):
        for (owner, name), original in self.saved.items():
            setattr(owner, name, original)

def profile(runners: dict, rounds: int, steps: dict) -> None:
    "Per uncaptured limn variant: ms/step, and the share of it that is Python rather than kernels (medians over rounds)."
    print(f"{'':8} {'profile (eager)':20} {'ms/step':>10} {'kernels':>9} {'python':>9} {'share':>6} | {'outside device':>14} {'device call':>11} {'graph_key':>9}")
    for variant, run in runners.items():
        if not variant.startswith("limn") or "+cap" in variant:       # eager variants only
            continue
        rows = []
        for _ in range(rounds):
            n = steps[variant]
            with StepSplits() as splits:
                start = time.perf_counter()
                for _ in range(n): run()
                total = time.perf_counter() - start
            sec = splits.seconds
            rows.append([total, sec["kernels"], total - sec["kernels"], total - sec["device call"],
                         sec["device call"] - sec["kernels"], sec["graph_key"]])
        total, kernels, python, outside, device, key = (statistics.median(r[i] for r in rows) * 1000 / steps[variant] for i in range(6))
        print(f"{'':8} {variant:20} {total:10.2f} {kernels:9.2f} {python:9.2f} {python / total:6.0%} | {outside:14.2f} {device:11.2f} {key:9.2f}", flush=True)

def cold_worker(name: str, captured: bool) -> None:
    "One first step on the empty kernel cache the parent made (LIMN_CACHE_DIR): every kernel of the step is compiled."
    import logging, resource
    log = logging.getLogger("limn")
    log.setLevel(logging.INFO)
    log.addHandler(logging.StreamHandler(sys.stdout))       # what is compiling, and how long it took
    start = time.perf_counter()
    run = limn_runner(name, "c", captured)
    built = time.perf_counter()
    run()
    first = time.perf_counter()
    run()
    second = time.perf_counter()
    cc = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"{name:8} {'c+capture' if captured else 'c':10} model {built - start:6.2f} s  first step {first - built:6.2f} s  "
          f"second step {second - first:6.3f} s  cc CPU {cc.ru_utime + cc.ru_stime:5.1f} s", flush=True)

def cold(names: list, rounds: int) -> None:
    "The first step of each workload in a fresh process on an empty kernel cache, captured and not, `rounds` times each."
    import tempfile
    for name in names:
        for captured in (True, False):
            for _ in range(rounds):
                with tempfile.TemporaryDirectory(prefix="limn-cold-") as cache:
                    env = dict(os.environ, LIMN_CACHE_DIR=cache)
                    worker = [sys.executable, __file__, "--cold-worker", name] + (["--captured"] if captured else [])
                    out = subprocess.run(worker, env=env, capture_output=True, text=True, check=True).stdout.splitlines()
                print("\n".join(line for line in out if not line.startswith("limn c: compiling ")), flush=True)

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", choices=["mlp", "gpt"])
    ap.add_argument("--no-numpy", action="store_true", help="skip the numpy device (slow on the gpt workload)")
    ap.add_argument("--profile", action="store_true", help="also split each eager limn step into kernels and Python")
    ap.add_argument("--threads", help="threads for limn's OpenMP and torch: N, or a list like 1,2 (one fresh process each)")
    ap.add_argument("--cold", action="store_true", help="instead: the first step on an empty kernel cache (fresh processes)")
    ap.add_argument("--cold-worker", help=argparse.SUPPRESS)
    ap.add_argument("--captured", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.cold_worker:
        return cold_worker(args.cold_worker, args.captured)
    if args.threads is not None and "," in args.threads:
        rest = [a for i, a in enumerate(sys.argv[1:]) if not (a.startswith("--threads") or (i and sys.argv[i] == "--threads"))]
        for n in args.threads.split(","):
            print(f"--- {n} thread{'s' if n != '1' else ''} ---", flush=True)
            subprocess.run([sys.executable, __file__, "--threads", n.strip(), *rest], check=True)
        return
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus | OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')} "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset (one per core)')} | torch {torch.__version__} with {torch.get_num_threads()} threads"
          f" | load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (the machine may be shared)")
    if args.cold:
        return cold(["mlp", "gpt"] if args.only is None else [args.only], max(1, args.rounds // 3))
    print(f"{'workload':8} {'variant':20} {'ms/step':>10} {'vs torch':>9}")
    for name in ["mlp", "gpt"] if args.only is None else [args.only]:
        runners = {"torch cpu": torch_runner(name)}
        if not args.no_numpy: runners["limn numpy"] = limn_runner(name, "numpy", False)
        if "c" in known_devices():
            runners["limn c"] = limn_runner(name, "c", False)
            runners["limn c+capture"] = limn_runner(name, "c", True)
            if name == "gpt": runners["limn c+cap compose"] = limn_runner(name, "c", True, composed_attention=True)
        for run in runners.values():                    # warm up: compile, record, check, one replay
            for _ in range(3): run()
        steps = {k: (1 if k == "limn numpy" and name == "gpt" else 3 if k.startswith("limn") else 10) for k in runners}
        medians = measure(runners, args.rounds, steps)
        for variant, ms in medians.items():
            print(f"{name:8} {variant:20} {ms:10.2f} {ms / medians['torch cpu']:8.2f}x", flush=True)
        if args.profile:
            profile(runners, args.rounds, steps)

if __name__ == "__main__":
    main()

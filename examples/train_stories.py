"""Train a byte-level GPT with limn, from token embeddings to sampled text.

The model is a small GPT-2-shaped transformer over raw bytes (vocabulary 256): token and position embeddings,
pre-LayerNorm blocks of causal self-attention (limn's fused attention kernels, or with --composed-attention the
same thing spelled in the tensor API: matmul, a masked softmax, matmul)
and a GELU MLP, a final LayerNorm and a linear head. AdamW trains it (or Muon for the hidden matrices with --muon),
under a warmup + cosine learning-rate schedule that lives on the device, so the captured step sees it.

By default it trains on the complete works of Shakespeare shipped in examples/data (public domain, 1.6 MB
compressed) and stops after --steps or --max-seconds, whichever comes first: the default run takes under five
minutes on two cores. --tinystories trains on TinyStories instead (downloaded once into ~/.cache/limn where the
machine can reach the Hugging Face hub), --data PATH on any text file. A checkpoint (weights + optimizer state, one
safetensors file) is written every --checkpoint-every steps; --resume continues from it. At the end it prints the
validation loss and a sampled text, and writes the loss curve to <out>/loss.png.

    python examples/train_stories.py                      # the default run
    python examples/train_stories.py --muon --steps 400   # Muon for the 2D hidden weights, AdamW for the rest
    python examples/train_stories.py --resume             # continue the last run from its checkpoint
    python examples/train_stories.py --full --tinystories # a bigger model for a long run on a faster machine
"""
from __future__ import annotations
import argparse, json, lzma, math, os, pathlib, sys, time, urllib.request
os.environ.setdefault("OMP_WAIT_POLICY", "passive")   # idle OpenMP threads sleep instead of spinning: on a shared machine spinning costs 4x
import numpy as np
import limn.attention  # noqa: F401  (installs Tensor.attention and the devices' fused attention kernels)
from limn import Tensor, set_seed, set_device, known_devices, where, no_grad
from limn import nn
from limn.optim import AdamW, muon_with_adamw
from limn.serialize import save_checkpoint, load_into, metadata
from limn.capture import capture

HERE = pathlib.Path(__file__).resolve().parent
SHAKESPEARE = HERE / "data" / "shakespeare.txt.xz"
TINYSTORIES_URL = "https://huggingface.co/datasets/roneneldan/TinyStories/resolve/main/TinyStories-valid.txt"

# --- the model ----------------------------------------------------------------------------------------------------------

class Block(nn.Module):
    "Pre-LN transformer block: x + attention(LN(x)), then x + MLP(LN(x))."
    def __init__(self, dim: int, heads: int, fused: bool = True):
        if dim % heads: raise ValueError(f"dim={dim} must be a multiple of heads={heads}")
        self.heads, self.fused = heads, fused
        self.ln1, self.attn, self.proj = nn.LayerNorm(dim), nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.ln2, self.fc, self.out = nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def attention(self, q: Tensor, k: Tensor, v: Tensor, causal: Tensor) -> Tensor:
        "softmax(q k^T / sqrt(d), masked to the past) v: limn's fused kernels, or the same thing composed from the tensor API."
        if self.fused: return q.attention(k, v, causal=True)
        scores = (q @ k.transpose(-1, -2)) * (1 / math.sqrt(q.shape[-1]))       # (batch, heads, time, time)
        return where(causal, scores, float("-inf")).softmax(-1) @ v             # a position sees itself and the past

    def forward(self, x: Tensor, causal: Tensor) -> Tensor:
        batch, time_, dim = x.shape
        q, k, v = self.attn(self.ln1(x)).reshape(batch, time_, 3, self.heads, dim // self.heads).permute(2, 0, 3, 1, 4)
        y = self.attention(q, k, v, causal).permute(0, 2, 1, 3).reshape(batch, time_, dim)
        x = x + self.proj(y)
        return x + self.out(self.fc(self.ln2(x)).gelu())

class GPT(nn.Module):
    def __init__(self, vocab: int, context: int, dim: int, layers: int, heads: int, fused_attention: bool = True):
        self.context = context
        self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(context, dim)
        self.blocks = [Block(dim, heads, fused_attention) for _ in range(layers)]
        self.ln, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab, bias=False)
        self.causal = Tensor(np.tril(np.ones((context, context), np.int32)))      # not trainable: not a parameter
        self.positions = Tensor(np.arange(context, dtype=np.int32))

    def forward(self, idx: Tensor) -> Tensor:
        if idx.ndim != 2 or idx.shape[1] != self.context:
            raise ValueError(f"GPT takes (batch, {self.context}) token ids, got shape {idx.shape}")
        x = self.tok(idx) + self.pos(self.positions)
        for block in self.blocks: x = block(x, self.causal)
        return self.head(self.ln(x))

# --- data ---------------------------------------------------------------------------------------------------------------

def load_corpus(args) -> tuple[bytes, str]:
    if args.data:
        path = pathlib.Path(args.data)
        raw = path.read_bytes()
        return (lzma.decompress(raw) if path.suffix == ".xz" else raw), str(path)
    if args.tinystories:
        cache = pathlib.Path(os.environ.get("LIMN_CACHE", pathlib.Path.home() / ".cache" / "limn")) / "TinyStories-valid.txt"
        if not cache.exists():
            cache.parent.mkdir(parents=True, exist_ok=True)
            print(f"downloading {TINYSTORIES_URL} -> {cache}", file=sys.stderr)
            try: urllib.request.urlretrieve(TINYSTORIES_URL, cache.with_suffix(".part"))
            except OSError as e: sys.exit(f"could not download TinyStories ({e}); pass --data PATH to a local copy instead")
            cache.with_suffix(".part").rename(cache)
        return cache.read_bytes(), f"TinyStories ({cache})"
    return lzma.decompress(SHAKESPEARE.read_bytes()), f"Shakespeare ({SHAKESPEARE.name})"

def batch_at(tokens: np.ndarray, step: int, batch: int, context: int, seed: int) -> tuple[Tensor, Tensor]:
    "The batch of step `step`: a function of (seed, step) alone, so a resumed run sees the batches the straight run saw."
    starts = np.random.default_rng([seed, step]).integers(0, len(tokens) - context - 1, batch)
    windows = np.stack([tokens[s:s + context + 1] for s in starts])
    return Tensor(windows[:, :-1]), Tensor(windows[:, 1:])

def lr_at(step: int, total: int, peak: float, warmup: int) -> float:
    "Linear warmup to `peak`, then a cosine down to a tenth of it."
    if step < warmup: return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))

# --- evaluation and sampling: one sequence at a time, a (1, context) forward captured once and replayed -----------------

class Inference:
    "The model's (1, context) forward under no_grad, captured on the c device (replayed per byte), called plain on numpy."
    def __init__(self, model: GPT, device: str):
        self.model = model
        def logits(ids):
            with no_grad(): return model(ids)
        def loss(ids, targets):
            with no_grad(): return nn.cross_entropy(model(ids).flatten(0, 1), targets.flatten())
        self.logits, self.loss = (capture(logits), capture(loss)) if device != "numpy" else (logits, loss)

    def validation_loss(self, tokens: np.ndarray, windows: int = 32) -> float:
        starts = np.random.default_rng(1234).integers(0, len(tokens) - self.model.context - 1, windows)
        return float(np.mean([self.loss(Tensor(tokens[s:s + self.model.context][None]), Tensor(tokens[s + 1:s + self.model.context + 1][None])).item()
                              for s in starts]))

    def sample(self, prompt: bytes, length: int, temperature: float = 0.8, seed: int = 0) -> bytes:
        """`length` bytes after `prompt`. The window is always `context` long: the text sits at its start, zeros after;
        causal attention makes position n blind to what follows it, so the logits read at n are exact."""
        rng, out, context = np.random.default_rng(seed), list(prompt), self.model.context
        for _ in range(length):
            window = out[-context:]
            ids = np.zeros((1, context), np.int32); ids[0, :len(window)] = window
            logits = self.logits(Tensor(ids)).numpy()[0, len(window) - 1].astype(np.float64) / temperature
            p = np.exp(logits - logits.max()); p /= p.sum()
            out.append(int(rng.choice(256, p=p)))
        return bytes(out)

# --- the run ------------------------------------------------------------------------------------------------------------

class Progress:
    "A one-line progress bar on a terminal; a plain line every `every` steps elsewhere (logs stay readable)."
    def __init__(self, total: int, every: int = 25):
        self.total, self.every, self.tty = total, every, sys.stderr.isatty()
    def update(self, step: int, loss: float, tokens_per_second: float, lr: float):
        done = step + 1
        bar = "#" * int(30 * done / self.total)
        text = f"step {done:5d}/{self.total} [{bar:<30}] loss {loss:.3f}  {tokens_per_second:7.0f} tok/s  lr {lr:.2e}"
        if self.tty: print("\r" + text, end="", file=sys.stderr, flush=True)
        elif done % self.every == 0 or done == self.total: print(text, file=sys.stderr, flush=True)
    def close(self):
        if self.tty: print(file=sys.stderr)

def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="c" if "c" in known_devices() else "numpy", help="numpy or c (default: c when a C compiler is found)")
    ap.add_argument("--no-capture", action="store_true", help="build the step graph in Python every step instead of replaying a capture")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--max-seconds", type=float, default=210.0, help="stop training after this long (the default run then samples and exits)")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--context", type=int, default=64)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--lr", type=float, default=6e-3)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--composed-attention", action="store_true", help="attention spelled in tensor ops instead of limn's fused kernels")
    ap.add_argument("--muon", action="store_true", help="Muon for the blocks' 2D weights, AdamW for embeddings, head, norms and biases")
    ap.add_argument("--full", action="store_true", help="a bigger model for a long run: context 128, dim 192, 4 layers, 6 heads, 5000 steps")
    ap.add_argument("--data", help="train on this text file (.xz is decompressed)")
    ap.add_argument("--tinystories", action="store_true", help="train on TinyStories (downloaded once)")
    ap.add_argument("--checkpoint-every", type=int, default=100)
    ap.add_argument("--resume", action="store_true", help="continue from <out>/checkpoint.safetensors")
    ap.add_argument("--out", default="runs/stories", help="folder for the checkpoint, the loss log and loss.png")
    ap.add_argument("--sample-bytes", type=int, default=300)
    ap.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (lower: safer, more repetitive text)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.full: args.context, args.dim, args.layers, args.heads, args.steps, args.max_seconds = 128, 192, 4, 6, 5000, float("inf")
    return args

def make_optimizer(model: GPT, args):
    if args.muon: return muon_with_adamw(model.named_parameters(), lr=0.02, adamw_lr=args.lr, exclude=("tok", "pos", "head"))
    return AdamW(model.named_parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)

def set_lr(opt, lr: float, args):
    if args.muon: opt.optimizers["adamw"].lr = lr; opt.optimizers["muon"].lr = 0.02 * lr / args.lr
    else: opt.lr = lr

def plot(losses: list, path: pathlib.Path, title: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.5))
    steps = np.arange(1, len(losses) + 1)
    ax.plot(steps, losses, lw=0.6, alpha=0.4, label="loss per step")
    if len(losses) >= 20:
        smooth = np.convolve(losses, np.ones(20) / 20, mode="valid")
        ax.plot(steps[19:], smooth, lw=1.5, label="20-step mean")
    ax.set_xlabel("step"); ax.set_ylabel("cross-entropy (nats/byte)"); ax.set_title(title, fontsize=10); ax.legend()
    fig.tight_layout(); fig.savefig(path, dpi=120); plt.close(fig)

def main(argv=None):
    args = parse(argv)
    set_device(args.device)
    out = pathlib.Path(args.out); out.mkdir(parents=True, exist_ok=True)
    checkpoint, log = out / "checkpoint.safetensors", out / "losses.json"
    text, source = load_corpus(args)
    tokens = np.frombuffer(text, np.uint8).astype(np.int32)
    split = int(len(tokens) * 0.95)
    train_tokens, val_tokens = tokens[:split], tokens[split:]
    set_seed(args.seed)
    model = GPT(256, args.context, args.dim, args.layers, args.heads, fused_attention=not args.composed_attention)
    opt = make_optimizer(model, args)
    start, losses = 0, []
    if args.resume:
        if not checkpoint.exists(): sys.exit(f"--resume: no checkpoint at {checkpoint}")
        load_into(checkpoint, model, opt)
        start = int(metadata(checkpoint)["step"])
        losses = json.loads(log.read_text())[:start] if log.exists() else []
        print(f"resumed from {checkpoint} at step {start}", file=sys.stderr)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{source}: {len(tokens):,} bytes | GPT {n_params:,} params (context {args.context}, dim {args.dim}, {args.layers} layers, "
          f"{args.heads} heads) | {'Muon+AdamW' if args.muon else 'AdamW'} | device {args.device}{'' if args.no_capture or args.device == 'numpy' else ' + capture'}")

    def train_step(x, y):
        loss = nn.cross_entropy(model(x).flatten(0, 1), y.flatten())      # classes on dim 1, as torch takes them
        loss.backward(); opt.step(loss); opt.zero_grad()
        return loss
    step_fn = train_step if args.no_capture or args.device == "numpy" else capture(train_step)

    def save(step):
        save_checkpoint(checkpoint, model, opt, metadata={"step": str(step), "config": json.dumps(vars(args))})
        log.write_text(json.dumps(losses))

    progress, began, step = Progress(args.steps), time.perf_counter(), start
    for step in range(start, args.steps):
        t0 = time.perf_counter()
        lr = lr_at(step, args.steps, args.lr, args.warmup)
        set_lr(opt, lr, args)
        loss = step_fn(*batch_at(train_tokens, step, args.batch, args.context, args.seed)).item()
        losses.append(loss)
        progress.update(step, loss, args.batch * args.context / (time.perf_counter() - t0), lr)
        if (step + 1) % args.checkpoint_every == 0: save(step + 1)
        if time.perf_counter() - began > args.max_seconds:
            progress.close(); print(f"stopping at step {step + 1}: --max-seconds {args.max_seconds:g} reached", file=sys.stderr); break
    else: progress.close()
    done = len(losses)
    save(done)
    seconds = time.perf_counter() - began
    first, last = np.mean(losses[:10]), np.mean(losses[-20:])
    inference = Inference(model, args.device)
    val = inference.validation_loss(val_tokens)
    plot(losses, out / "loss.png", f"byte-level GPT on {source.split(' ')[0]}: {done} steps")
    print(f"trained {done - start} steps in {seconds:.0f} s ({(done - start) * args.batch * args.context / seconds:.0f} tok/s); "
          f"train loss {first:.3f} -> {last:.3f} nats/byte; validation loss {val:.3f} ({val / math.log(2):.2f} bits/byte)")
    print(f"checkpoint {checkpoint}, loss curve {out / 'loss.png'}")
    prompt = b"ROMEO.\n" if source.startswith("Shakespeare") else b"Once upon a time"
    print("--- sample ---")
    print(inference.sample(prompt, args.sample_bytes, args.temperature, seed=args.seed).decode("utf-8", errors="replace"))
    return {"losses": losses, "validation": val}

if __name__ == "__main__":
    main()

"""The cuda device's checks, for a machine with an NVIDIA GPU: one command, under five minutes.

    .venv/bin/python examples/gpu_check.py

Where there is no GPU (or no NVRTC) it prints one line saying so and exits 0. Otherwise it diffs against the numpy
device: the shared graph corpus; tiled matmuls across both tile widths and tails (float32 and float64, and bit for bit
against the c device where cc exists); an elementwise op over more cells than one launch has threads (grid-stride);
atomic scatter collisions on a single row; fused attention forward and backward against the numpy reference (ragged
tiles, rows past one block, rectangular keys, key masks, each width), twice for the same bits; a short training loop.
It prints what it checked, failures, and timings, and exits 1 if anything failed.
"""
import contextlib, pathlib, sys, time
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
import limn, limn.attention
from limn import Tensor, realize, grad
from limn.backend_cuda import CudaUnavailable

FAILURES, TIMES = [], {}
# `--device c` runs every check with the c device standing in for cuda: a dry run of this script where there is no GPU
TARGET = sys.argv[sys.argv.index("--device") + 1] if "--device" in sys.argv else "cuda"


def check(name, ok, detail=""):
    if not ok: FAILURES.append(f"{name}: {detail}")
    return ok


def section(title):
    def wrap(fn):
        def run():
            start = time.perf_counter()
            count = fn()
            TIMES[title] = time.perf_counter() - start
            print(f"{title:<34} {count:>5} checks  {TIMES[title]:7.2f} s  ({len(FAILURES)} failures so far)", flush=True)
        return run
    return wrap


DEVICES = {}


@contextlib.contextmanager
def device_named(name):
    "Make one long-lived device per name current (set_device makes a fresh one, which would recompile every kernel)."
    from limn import device as registry
    name = TARGET if name == "cuda" else name
    previous = registry._CURRENT[0]
    try:
        if name not in DEVICES: DEVICES[name] = limn.set_device(name)
        registry._CURRENT[0] = DEVICES[name]
        yield DEVICES[name]
    finally: registry._CURRENT[0] = previous


def on(device, build):
    "Values of the lazy tensors `build()` returns, realized together on `device`."
    with device_named(device):
        outs = build(); realize(*outs)
        return [t.numpy() for t in outs]


@section("graph corpus vs numpy")
def corpus():
    from graph_corpus import CORPUS, tolerance, reference
    n = 0
    for case in CORPUS:
        want = reference(case)
        try: got = on("cuda", case.build)
        except TypeError as e:                                   # the declines the spec names (half / narrow-int scatters)
            check(case.name, "scatter" in str(e) or (TARGET != "cuda" and "does not take" in str(e)), str(e)); n += 1; continue
        rtol, atol = tolerance(case.dtype)                       # exact for the ints: modular arithmetic leaves nothing to rounding
        for a, b in zip(got, want):
            n += 1
            check(f"corpus {case.name}[{case.dtype.name}]", a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True),
                  f"max diff {np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))) if a.shape == b.shape else a.shape}")
    return n


@section("tiled matmuls, widths and tails")
def matmuls():
    import shutil
    n, rng = 0, np.random.default_rng(1)
    sizes = [(16, 16, 8), (31, 33, 17), (32, 32, 16), (63, 65, 40), (64, 64, 64), (65, 129, 33), (130, 70, 300), (256, 200, 96)]
    for dtype, tol in ((np.float32, 1e-4), (np.float64, 1e-12)):
        for m, nn, k in sizes:
            a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, nn)).astype(dtype)
            for build in (lambda: [Tensor(a) @ Tensor(b)], lambda: [Tensor(a) @ Tensor(b.T.copy()).T], lambda: [Tensor(np.stack([a, a])) @ Tensor(b)]):
                got = on("cuda", build)[0]
                n += check(f"matmul {m}x{k}x{nn} {np.dtype(dtype).name}", np.allclose(got, on("numpy", build)[0], rtol=tol, atol=tol))
                if shutil.which("cc"):
                    n += check(f"matmul {m}x{k}x{nn} bits vs c", np.array_equal(got, on("c", build)[0]), "differs from the c device")
    return n


@section("grid-stride coverage")
def grid_stride():
    from limn.cuda_emit import THREADS, MAX_BLOCKS
    cells = THREADS * MAX_BLOCKS * 2 + 12345
    x = np.arange(cells, dtype=np.float32)
    got = on("cuda", lambda: [Tensor(x) * 2 + 1])[0]
    check("grid-stride", np.array_equal(got, x * 2 + 1), f"{np.count_nonzero(got != x * 2 + 1)} cells wrong of {cells}")
    return 1


@section("atomic scatter collisions")
def scatter():
    n = 0
    for dtype, tol in ((np.float32, 1e-3), (np.float64, 1e-10), (np.int32, 0)):
        vals = (np.arange(20000 * 3) % 7 - 3).astype(dtype).reshape(20000, 3)
        rows = np.zeros(20000, np.int32); rows[::5] = 1
        build = lambda: [Tensor(vals).scatter_rows(Tensor(rows), 2)]
        n += check(f"scatter {np.dtype(dtype).name}", np.allclose(on("cuda", build)[0], on("numpy", build)[0], rtol=tol, atol=tol))
    return n


@section("fused attention vs numpy reference")
def attention():
    n, rng = 0, np.random.default_rng(2)
    for d in (16, 32, 64):
        for (tq, tk) in ((37, 150), (200, 200), (130, 65)):
            for causal, masked in ((False, False), (True, False), (True, True), (False, True)):
                qa, ka, va = (rng.standard_normal((2, 3, t, d)).astype(np.float32) for t in (tq, tk, tk))
                mask = (rng.random((2, 3, tk)) < 0.8).astype(np.float32) if masked else None
                if masked: mask[..., 0] = 1
                seed = np.cos(np.arange(qa.size)).reshape(qa.shape).astype(np.float32)
                def build():
                    q, k, v = (Tensor(a, requires_grad=True) for a in (qa, ka, va))
                    o = q.attention(k, v, causal=causal, key_mask=None if mask is None else Tensor(mask), fused=True)
                    return [o, *grad((o * Tensor(seed)).sum(), [q, k, v])]
                want, got, again = on("numpy", build), on("cuda", build), on("cuda", build)
                for name, a, b, c in zip(("o", "dq", "dk", "dv"), got, want, again):
                    n += check(f"attention {name} d={d} {tq}x{tk} causal={causal} mask={masked}", np.allclose(a, b, rtol=1e-3, atol=1e-4),
                               f"max diff {np.abs(a - b).max()}")
                    n += check(f"attention {name} d={d} {tq}x{tk} same bits twice", np.array_equal(a, c))
    return n


@section("training loop on the device")
def training():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((256, 16)).astype(np.float32), rng.standard_normal((256, 1)).astype(np.float32)
    w1, w2 = rng.standard_normal((16, 32)).astype(np.float32) * 0.3, rng.standard_normal((32, 1)).astype(np.float32) * 0.3
    losses = {}
    for device in ("numpy", "cuda"):
        with device_named(device):
            p1, p2, trace = Tensor(w1.copy()), Tensor(w2.copy()), []
            for _ in range(30):
                p1.requires_grad = p2.requires_grad = True
                loss = (((Tensor(x) @ p1).relu() @ p2 - Tensor(y)) ** 2).mean()
                g1, g2 = grad(loss, [p1, p2])
                p1.requires_grad = p2.requires_grad = False
                p1.assign(p1 - g1 * 0.05); p2.assign(p2 - g2 * 0.05)
                realize(p1, p2, loss); trace.append(loss.item())
        losses[device] = trace
    check("training loss trajectory", np.allclose(losses["cuda"], losses["numpy"], rtol=1e-4), f"{losses['cuda'][-1]} vs {losses['numpy'][-1]}")
    check("training loss falls", losses["cuda"][-1] < losses["cuda"][0] * 0.9)
    return 2


def main():
    start = time.perf_counter()
    try:
        with device_named("cuda") as device: pass
    except CudaUnavailable as e:
        print(f"no GPU: {e}"); return 0
    b = device.backend
    if TARGET == "cuda":
        print(f"cuda device: compute capability {b.driver.capability}, driver {b.driver.version}, NVRTC {b.nvrtc.version}, "
              f"compiling for {'sm' if b.kind == 'cubin' else 'compute'}_{b.arch} ({b.kind})")
    else: print(f"dry run: the {TARGET} device stands in for cuda")
    for run in (corpus, matmuls, grid_stride, scatter, attention, training): run()
    if TARGET == "cuda": print(f"NVRTC: {b.nvrtc.compiles} compiles, {b.nvrtc.seconds:.2f} s")
    print(f"total {time.perf_counter() - start:.1f} s")
    for failure in FAILURES[:40]: print("FAIL", failure)
    print("all checks passed" if not FAILURES else f"{len(FAILURES)} checks failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())

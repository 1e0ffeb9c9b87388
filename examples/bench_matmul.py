"""float32 matmul on the c device against numpy (OpenBLAS) in the same process, for every operand layout, with 1 and
with 2 threads; the matmul shapes a training step emits; and a padded conv with and without the c backend's mask cut.
Every table prints the peer measured in the same run and the ratio c / numpy (higher is better for c).

    python examples/bench_matmul.py                 # n = 256, 512, 1024; 1 and 2 threads
    python examples/bench_matmul.py --quick         # n = 256, 512 only, fewer rounds
    python examples/bench_matmul.py --threads 1     # one thread setting only

Each thread setting runs in a subprocess of its own, with OMP_NUM_THREADS, OPENBLAS_NUM_THREADS,
OMP_WAIT_POLICY=passive and OPENBLAS_THREAD_TIMEOUT=4 set before numpy or limn is imported: an idle worker of either
library would otherwise spin on the core the other one needs right after its call (OpenMP's by default; OpenBLAS's for
about 2**28 cycles unless the timeout is cut to 2**4, its minimum). Within a setting the c device and numpy alternate round by round, one call each,
after a warm-up call (which also compiles); the figure is the median over the rounds. The c timing is a whole `realize`
of an already-built graph (plan lookup, output allocation, the kernel), not the kernel alone; numpy's includes its
output allocation too. A third column times the same compiled kernel launched alone (`kernel / numpy`): what the
c backend's code costs apart from the executor's per-call Python (graph key, plan lookup, allocation), which the first
ratio includes. Unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE if your environment sets them.
"""
import argparse, os, subprocess, sys, time

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT")

def median_times(fns, rounds: int) -> list:
    "Median wall time of each of `fns`, called in turn once per round (interleaved) after one warm-up call each."
    for fn in fns: fn()
    times = [[] for _ in fns]
    for _ in range(rounds):
        for fn, ts in zip(fns, times):
            t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return [sorted(ts)[len(ts) // 2] for ts in times]

LAYOUTS = {                                   # name: (limn graph from A, B; numpy's product) for (n, n) float32 A and B
    "A@B": (lambda A, B: A @ B, lambda a, b: a @ b),
    "A@B^T": (lambda A, B: A @ B.transpose(), lambda a, b: a @ b.T),
    "A^T@B": (lambda A, B: A.transpose() @ B, lambda a, b: a.T @ b),
}

def kernel_alone(device, np, node, schedule):
    "The node's one kernel, compiled by `device`'s backend (the realize's own library, cached) and launched on its inputs."
    kernel = schedule([node]).kernels[-1]
    backend = device.backend
    program = backend.compile(backend.render(kernel), kernel)
    out = np.empty(kernel.args[-1][1].numel, kernel.args[-1][1].dtype.np)
    memories = [out if ref.buffer is None else np.ascontiguousarray(ref.buffer.array) for _, ref in kernel.args]
    return backend.launcher(program, memories), out

def matmul_rows(device, np, Tensor, sizes, rounds, schedule):
    "One row per (layout, n): GFLOP/s of the c device (a whole realize, then the kernel alone) and of numpy."
    rng, rows = np.random.default_rng(0), []
    for n in sizes:
        a, b = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
        for name, (limn_fn, np_fn) in LAYOUTS.items():
            node = limn_fn(Tensor(a), Tensor(b)).node
            got = device.realize([node])[0].array
            np.testing.assert_allclose(got, np_fn(a, b), rtol=1e-3, atol=1e-3 * np.sqrt(n))     # the timed thing is right
            launch, out = kernel_alone(device, np, node, schedule)
            launch()
            assert out.tobytes() == got.tobytes(), "the kernel alone differs from the realize"
            fns = [lambda: device.realize([node]), launch, lambda: np_fn(a, b)]
            t_c, t_k, t_np = median_times(fns, rounds if n < 1024 else max(5, rounds // 2))
            rows.append((name, n, 2 * n ** 3 / t_c / 1e9, 2 * n ** 3 / t_k / 1e9, 2 * n ** 3 / t_np / 1e9))
    return rows

# the matmuls of examples/bench_train.py's steps: MLP 256x64 -> 256 -> 256 -> 1 (batch 256), byte-GPT B8 T64 D128
STEP_SHAPES = {
    "mlp x@W1^T (256x64 @ 64x256)": ((256, 64), (256, 64), "A@B^T"),
    "mlp g@W2 (256x256 @ 256x256)": ((256, 256), (256, 256), "A@B"),
    "mlp h^T@g (256x256^T @ 256x256)": ((256, 256), (256, 256), "A^T@B"),
    "mlp x^T@g (256x64^T @ 256x256)": ((256, 64), (256, 256), "A^T@B"),
    "gpt qkv (512x128 @ 384x128^T)": ((512, 128), (384, 128), "A@B^T"),
    "gpt mlp up (512x128 @ 512x128^T)": ((512, 128), (512, 128), "A@B^T"),
    "gpt dW (512x512^T @ 512x128)": ((512, 512), (512, 128), "A^T@B"),
    "gpt head (512x128 @ 256x128^T)": ((512, 128), (256, 128), "A@B^T"),
}

def step_rows(device, np, Tensor, rounds, schedule):
    rng, rows = np.random.default_rng(1), []
    for label, (sa, sb, layout) in STEP_SHAPES.items():
        a, b = rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32)
        limn_fn, np_fn = LAYOUTS[layout]
        node = limn_fn(Tensor(a), Tensor(b)).node
        want = np_fn(a, b)
        got = device.realize([node])[0].array
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-3, atol=1e-3 * np.sqrt(sa[1]))
        launch, out = kernel_alone(device, np, node, schedule)
        launch()
        assert out.tobytes() == got.tobytes(), "the kernel alone differs from the realize"
        flops = 2 * want.size * (sa[0] if layout == "A^T@B" else sa[1])
        t_c, t_k, t_np = median_times([lambda: device.realize([node]), launch, lambda: np_fn(a, b)], rounds)
        rows.append((label, flops / t_c / 1e9, flops / t_k / 1e9, flops / t_np / 1e9))
    return rows

def conv_table(np, Tensor, CDevice, rounds):
    "A 3x3 conv over a zero-padded image (N, C, H, W), as limn composes it: pad, nine shifted views, multiply, add."
    rng = np.random.default_rng(1)
    n, c, h, w = 8, 16, 128, 128
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    X, K = Tensor(x), Tensor(rng.standard_normal((3, 3)).astype(np.float32))
    def graph():
        xp = X.pad(((0, 0), (0, 0), (1, 1), (1, 1)))
        return sum(xp[:, :, i:i + h, j:j + w] * K[i, j] for i in range(3) for j in range(3))
    def unpadded():                                  # the same arithmetic with no mask: the cut's target
        return sum(X[:, :, 1:h - 1, 1:w - 1] * K[i, j] for i in range(3) for j in range(3))
    print(f"\n3x3 conv over a padded {n}x{c}x{h}x{w} float32 image (one fused kernel)")
    print(f"{'variant':>28} {'ms':>8} {'GB/s read':>10}")
    variants = {"c, masks cut": (CDevice(split_masks=True), graph().node), "c, masks checked": (CDevice(split_masks=False), graph().node),
                "c, unpadded twin": (CDevice(), unpadded().node)}
    results = {name: dev.realize([node])[0].array for name, (dev, node) in variants.items()}
    times = median_times([lambda d=d, n=n: d.realize([n]) for d, n in variants.values()], rounds)
    for name, t in zip(variants, times): print(f"{name:>28} {t * 1e3:>8.2f} {x.nbytes / t / 1e9:>10.1f}")
    assert np.array_equal(results["c, masks cut"], results["c, masks checked"]), "the cut changed a bit"
    print("cut and checked results are bit-identical")

def worker(args):
    "One thread setting: the environment was set by the parent before anything below was imported."
    import numpy as np
    import limn.backend_c  # registers the "c" device
    from limn import Tensor
    from limn.backend_c import CDevice, vector_isa
    from limn.schedule import schedule
    device = CDevice()
    print(f"threads: " + " ".join(f"{v}={os.environ.get(v)}" for v in THREAD_VARS))
    print(f"c device: {device.backend.cc} {' '.join(device.backend.flags)}; tile ISA {vector_isa()}; numpy {np.__version__}")
    print(f"{'layout':>7} {'n':>5} {'c GFLOP/s':>10} {'kernel GFLOP/s':>15} {'numpy GFLOP/s':>14} {'c / numpy':>10} {'kernel / numpy':>15}")
    for name, n, c, k, p in matmul_rows(device, np, Tensor, args.sizes, args.rounds, schedule):
        print(f"{name:>7} {n:>5} {c:>10.1f} {k:>15.1f} {p:>14.1f} {c / p:>10.2f} {k / p:>15.2f}")
    print(f"\nthe matmuls of a training step (examples/bench_train.py's shapes)")
    print(f"{'kernel':>34} {'c GFLOP/s':>10} {'kernel GFLOP/s':>15} {'numpy GFLOP/s':>14} {'c / numpy':>10} {'kernel / numpy':>15}")
    for label, c, k, p in step_rows(device, np, Tensor, args.rounds, schedule):
        print(f"{label:>34} {c:>10.1f} {k:>15.1f} {p:>14.1f} {c / p:>10.2f} {k / p:>15.2f}")
    if args.conv: conv_table(np, Tensor, CDevice, args.rounds)

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 256 and 512 only, fewer rounds")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts, one subprocess each")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--conv", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.sizes = [256, 512] if args.quick else [256, 512, 1024]
    if args.quick: args.rounds = min(args.rounds, 7)
    if args.worker: worker(args); sys.exit(0)
    for i, t in enumerate(int(x) for x in args.threads.split(",")):
        env = {**os.environ, "OMP_NUM_THREADS": str(t), "OPENBLAS_NUM_THREADS": str(t), "OMP_WAIT_POLICY": "passive", "OPENBLAS_THREAD_TIMEOUT": "4"}
        print(f"\n=== {t} thread{'s' if t > 1 else ''} ===", flush=True)
        cmd = [sys.executable, __file__, "--worker", "--rounds", str(args.rounds)] + (["--quick"] if args.quick else [])
        subprocess.run(cmd + (["--conv"] if i == 0 else []), env=env, check=True)

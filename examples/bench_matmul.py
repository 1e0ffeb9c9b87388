"""float32 matmul on the c device against numpy (OpenBLAS) in the same run, and a padded conv with and without the
c backend's mask cut. Prints two tables; the ratio column is c / numpy (higher is better for c).

    python examples/bench_matmul.py            # n = 256, 512, 1024
    python examples/bench_matmul.py --quick    # n = 256, 512 only

Each figure is the best of several runs after a warm-up (which also compiles), with the c device and numpy runs
interleaved so both see the same machine; on a shared machine the best run is the one least disturbed. The c timing is
a whole `realize` of an already-built graph (plan lookup, output allocation, the kernel), not the kernel alone.
Unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for this command if your environment sets them, so numpy runs its native
kernels.
"""
import argparse, os, time
import numpy as np
import limn.backend_c  # registers the "c" device
from limn import Tensor
from limn.backend_c import CDevice

def best_times(fns, repeats: int) -> list:
    "Best wall time of each of `fns`, run in turn `repeats` times (interleaved) after one warm-up call each."
    for fn in fns: fn()                           # warm-up: plans, compiles, faults pages in
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, ts in zip(fns, times):
            t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return [min(ts) for ts in times]

def matmul_table(sizes, repeats):
    device = CDevice()
    print(f"float32 matmul, c device ({device.backend.cc} {' '.join(device.backend.flags)}; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}) vs numpy {np.__version__}")
    print(f"{'n':>6} {'c GFLOP/s':>10} {'numpy GFLOP/s':>14} {'c / numpy':>10}")
    rng = np.random.default_rng(0)
    ratios = {}
    for n in sizes:
        a, b = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
        product = (Tensor(a) @ Tensor(b)).node
        out = device.realize([product])[0].array
        np.testing.assert_allclose(out, a @ b, rtol=1e-3, atol=1e-3 * np.sqrt(n))   # the timed thing is right
        t_c, t_np = best_times([lambda: device.realize([product]), lambda: a @ b], repeats if n < 1024 else max(3, repeats // 2))
        flops = 2 * n ** 3
        ratios[n] = t_np / t_c
        print(f"{n:>6} {flops / t_c / 1e9:>10.1f} {flops / t_np / 1e9:>14.1f} {ratios[n]:>10.2f}")
    return ratios

def conv_table(repeats):
    "A 3x3 conv over a zero-padded image (N, C, H, W), as limn composes it: pad, nine shifted views, multiply, add."
    rng = np.random.default_rng(1)
    n, c, h, w = 8, 16, 128, 128
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    k = rng.standard_normal((3, 3)).astype(np.float32)
    X, K = Tensor(x), Tensor(k)
    def graph():
        xp = X.pad(((0, 0), (0, 0), (1, 1), (1, 1)))
        return sum(xp[:, :, i:i + h, j:j + w] * K[i, j] for i in range(3) for j in range(3))
    def unpadded():                                  # the same arithmetic with no mask: the cut's target
        return sum(X[:, :, 1:h - 1, 1:w - 1] * K[i, j] for i in range(3) for j in range(3))
    results = {}
    print(f"\n3x3 conv over a padded {n}x{c}x{h}x{w} float32 image (one fused kernel)")
    print(f"{'variant':>28} {'ms':>8} {'GB/s read':>10}")
    padded, twin = graph().node, unpadded().node
    variants = {"c, masks cut": (CDevice(split_masks=True), padded), "c, masks checked": (CDevice(split_masks=False), padded),
                "c, unpadded twin": (CDevice(), twin)}
    for name, (device, node) in variants.items(): results[name] = device.realize([node])[0].array
    times = best_times([lambda d=d, n=n: d.realize([n]) for d, n in variants.values()], repeats)
    for name, t in zip(variants, times): print(f"{name:>28} {t * 1e3:>8.2f} {x.nbytes / t / 1e9:>10.1f}")
    assert np.array_equal(results["c, masks cut"], results["c, masks checked"]), "the cut changed a bit"
    print("cut and checked results are bit-identical")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip n = 1024")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    ratios = matmul_table([256, 512] if args.quick else [256, 512, 1024], args.repeats)
    conv_table(args.repeats)
    print(f"\nc / numpy at n = 512: {ratios[512]:.2f}x (the bar is 0.25x)")

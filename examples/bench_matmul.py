"""float32 matmul on the c device against numpy (OpenBLAS) in the same run, and a padded conv with and without the
c backend's mask cut. Prints two tables; the ratio column is c / numpy (higher is better for c).

    python examples/bench_matmul.py            # n = 256, 512, 1024
    python examples/bench_matmul.py --quick    # n = 256, 512 only

Timings are the best of several runs after a warm-up (which also compiles). Unset OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE for this command if your environment sets them, so numpy runs its native kernels.
"""
import argparse, os, time
import numpy as np
import limn.backend_c  # registers the "c" device
from limn import Tensor
from limn.backend_c import CDevice

def best_time(fn, repeats: int) -> float:
    fn()                                          # warm-up: plans, compiles, faults pages in
    times = []
    for _ in range(repeats):
        t = time.perf_counter(); fn(); times.append(time.perf_counter() - t)
    return min(times)

def matmul_table(sizes, repeats):
    device = CDevice()
    print(f"float32 matmul, c device ({device.backend.cc} {' '.join(device.backend.flags)}; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}) vs numpy {np.__version__}")
    print(f"{'n':>6} {'c GFLOP/s':>10} {'numpy GFLOP/s':>14} {'c / numpy':>10}")
    rng = np.random.default_rng(0)
    ratios = {}
    for n in sizes:
        a, b = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
        A, B = Tensor(a), Tensor(b)
        out = device.realize([(A @ B).node])[0].array
        np.testing.assert_allclose(out, a @ b, rtol=1e-3, atol=1e-3 * np.sqrt(n))   # the timed thing is right
        t_c = best_time(lambda: device.realize([(A @ B).node]), repeats)
        t_np = best_time(lambda: a @ b, repeats)
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
    for name, split in (("c, masks cut", True), ("c, masks checked", False)):
        device = CDevice(split_masks=split)
        outs = device.realize([graph().node])[0].array
        results[name] = outs
        t = best_time(lambda: device.realize([graph().node]), repeats)
        print(f"{name:>28} {t * 1e3:>8.2f} {x.nbytes / t / 1e9:>10.1f}")
    device = CDevice()
    t = best_time(lambda: device.realize([unpadded().node]), repeats)
    print(f"{'c, unpadded twin':>28} {t * 1e3:>8.2f} {x.nbytes / t / 1e9:>10.1f}")
    assert np.array_equal(results["c, masks cut"], results["c, masks checked"]), "the cut changed a bit"
    print("cut and checked results are bit-identical")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip n = 1024")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    ratios = matmul_table([256, 512] if args.quick else [256, 512, 1024], args.repeats)
    conv_table(args.repeats)
    print(f"\nc / numpy at n = 512: {ratios[512]:.2f}x (the bar is 0.25x)")

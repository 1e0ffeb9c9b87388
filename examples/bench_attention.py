"""Peak memory and time of attention, fused against composed, forward and forward+backward, beside torch's SDPA.

    .venv/bin/python examples/bench_attention.py [--T 256,1024,4096] [--reps 3] [--device c] [--impls ...] [--verify]

Causal self-attention, B=1 H=6 d=32, float32. Each (implementation, T, pass) runs in a fresh child process: it builds the
inputs, runs the pass once to warm up (plans, compiles), resets the kernel's peak-RSS mark (/proc/self/clear_refs), runs
it `reps` times, and reports the peak resident memory above what it held before the timed runs, and the median time.
Implementations: limn fused (`q.attention`, the CUSTOM kernels of the device), limn composed (`q @ k.T * scale`, a causal
`where`, softmax, `@ v`), torch's `scaled_dot_product_attention` and torch composed, all on the CPU. Children are
interleaved (for each T: limn fused, torch sdpa, limn composed, torch composed), and the ratio column compares each limn
figure with torch SDPA's from the same run.
"""
import argparse, json, os, subprocess, sys, time

B, H, D = 1, 6, 32


def rss_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field): return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def child(impl: str, T: int, backward: bool, reps: int, device: str) -> dict:
    import numpy as np
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((B, H, T, D)).astype(np.float32) for _ in range(3)]
    if impl.startswith("torch"):
        import torch
        def run():
            q, k, v = (torch.tensor(a, requires_grad=backward) for a in arrays)
            if impl == "torch_sdpa": o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                s = (q @ k.transpose(-1, -2)) * D ** -0.5
                s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
                o = s.softmax(-1) @ v
            if backward: o.sum().backward(); return [x.grad for x in (q, k, v)]
            return [o]
    else:
        import limn, limn.attention
        from limn import Tensor, grad, realize
        limn.set_device(device)
        def run():
            q, k, v = (Tensor(a, requires_grad=backward) for a in arrays)
            o = q.attention(k, v, causal=True, fused=impl == "limn_fused")
            outs = grad(o.sum(), [q, k, v]) if backward else (o,)
            realize(*outs)                                    # values land in host Buffers, as torch's land in tensors
            return outs
    run()                                                     # warm up: plans, compiled kernels, allocator pools
    base = rss_kb("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as f: f.write("5")   # reset VmHWM to the current RSS
    except OSError: pass
    times = []
    for _ in range(reps):
        start = time.perf_counter(); run(); times.append(time.perf_counter() - start)
    return {"peak_mb": (rss_kb("VmHWM") - base) / 1024, "seconds": sorted(times)[len(times) // 2]}


def verify_kernels(T: int, device: str = "c"):
    """litmus.bridge's report on every kernel both limn implementations run here at `T` (forward and forward+backward, one
    realize each): nothing is run, the graphs are scheduled and lowered as the device would."""
    import numpy as np, limn, limn.attention
    from limn import Tensor, grad
    from litmus.bridge import Report, verify
    arrays = [np.random.default_rng(0).standard_normal((B, H, T, D)).astype(np.float32) for _ in range(3)]
    kernels = []
    with limn.use_device(device):
        for fused in (True, False):
            q, k, v = (Tensor(a, requires_grad=True) for a in arrays)
            o = q.attention(k, v, causal=True, fused=fused)
            kernels += verify(o).kernels + verify(list(grad(o.sum(), [q, k, v]))).kernels
    return Report(kernels)


def measure(impl: str, T: int, backward: bool, reps: int, device: str) -> dict:
    cmd = [sys.executable, __file__, "--child", impl, str(T), str(int(backward)), str(reps), device]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if r.returncode != 0: return {"error": (r.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--T", default="256,1024,4096")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--device", default="c")
    ap.add_argument("--child", nargs=5)
    ap.add_argument("--impls", default="limn_fused,torch_sdpa,limn_composed,torch_composed",
                    help="comma-separated implementations to run (torch_sdpa, the reference, is always run)")
    ap.add_argument("--verify", action="store_true", help="prove every kernel (litmus.bridge) at each T instead of timing")
    args = ap.parse_args()
    if args.verify:
        for T in [int(t) for t in args.T.split(",")]:
            report = verify_kernels(T, args.device)
            print(f"T={T}: {len(report.kernels)} kernels, {report.counts()}, {sum(k.every_size for k in report.kernels)} for every size")
        return
    if args.child:
        impl, T, backward, reps, device = args.child
        print(json.dumps(child(impl, int(T), bool(int(backward)), int(reps), device))); return
    import torch
    print(f"attention B={B} H={H} d={D} causal float32; limn on the {args.device} device, OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', 'unset (one per physical core)')}; torch {torch.__version__} CPU, "
          f"{torch.get_num_threads()} threads; {os.cpu_count()} CPUs; median of {args.reps} runs; peak = resident memory above the warm baseline")
    print(f"{'T':>5} {'pass':>8} {'implementation':>14} {'peak MB':>9} {'seconds':>9} {'peak/sdpa':>10} {'time/sdpa':>10}")
    known = ["limn_fused", "torch_sdpa", "limn_composed", "torch_composed"]
    wanted = set(args.impls.split(",")) | {"torch_sdpa"}
    if unknown := wanted - set(known):
        ap.error(f"unknown implementations {sorted(unknown)}; expected some of {known}")
    impls = [impl for impl in known if impl in wanted]
    for T in [int(t) for t in args.T.split(",")]:
        for backward in (False, True):
            rows = {impl: measure(impl, T, backward, args.reps, args.device) for impl in impls}
            ref = rows["torch_sdpa"]
            for impl, row in rows.items():
                if "error" in row: print(f"{T:>5} {'fwd+bwd' if backward else 'fwd':>8} {impl:>14}  error: {row['error']}"); continue
                ratio = lambda key: f"{row[key] / ref[key]:.2f}x" if "error" not in ref and ref[key] > 0 else "-"
                print(f"{T:>5} {'fwd+bwd' if backward else 'fwd':>8} {impl:>14} {row['peak_mb']:>9.1f} {row['seconds']:>9.4f} "
                      f"{ratio('peak_mb'):>10} {ratio('seconds'):>10}", flush=True)


if __name__ == "__main__":
    main()

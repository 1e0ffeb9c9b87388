"""litmus at RL scale: what one check costs, piece by piece, and completions per second against workers.

    python benchmarks/rewards.py            # breakdown, cold CLI check, LitmusReward at 1 and 2 workers and on Ray (2 CPUs)
    python benchmarks/rewards.py --no-ray   # without Ray
    python benchmarks/rewards.py --histogram  # also: the histogram search with its launch and reference overlapped

Each LitmusReward figure is a batch of 8 distinct completions of one corpus task (quick mode, the cache cold: every
completion differs from all others by a comment). "cold" is a fresh LitmusReward (its pool or Ray actors start inside
the timing); "warm" is a second batch of new completions on the same, started pool. Every figure is printed with the
machine's load average at the time (`uptime`), since the machine may be shared.
"""
import argparse, os, platform, statistics, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ("vadd", "softmax", "layernorm", "matmul")


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    return f"{platform.node()}: {model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def load() -> str:
    return "load " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def fenced(source: str) -> str:
    return "```python\n" + source + "\n```"


def breakdown(names):
    "Seconds per stage of one quick `check` in this (warm) process; 'search' excludes the box starts and launches inside it."
    from litmus import check as C, falsify, sandbox
    spent = {}
    def timed(owner, name, label):
        original = getattr(owner, name)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - start
        setattr(owner, name, wrapper)
        return original
    patches = [(C, "load_kernel", "parse"), (falsify.Target, "bound", "bound"), (C, "_safety", "proof"),
               (falsify.TargetedFalsification, "run", "search"), (sandbox.Box, "_start", "box start"),
               (falsify.TargetedFalsification, "_execute", "launches"), (falsify.Target, "reference", "reference")]
    originals = [(owner, name, timed(owner, name, label)) for owner, name, label in patches]
    rows = []
    try:
        for name in names:
            spent.clear()
            start = time.perf_counter()
            verdict = C.check(name, quick=True).verdict
            total = time.perf_counter() - start
            rows.append((name, verdict, total, dict(spent)))
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)
    print(f"\nper-kernel cost of one quick check (seconds, warm process; {load()})")
    cols = ["parse", "bound", "proof", "box start", "launches", "reference", "search", "total"]
    print(f"{'kernel':10s} {'verdict':8s} " + " ".join(f"{c:>9s}" for c in cols))
    for name, verdict, total, s in rows:
        box = s.get("box start", 0.0)
        s["launches"] = s.get("launches", 0.0) - box        # box starts happen inside the first launch of each box
        s["search"] = s.get("search", 0.0) - s["launches"] - box - s.get("reference", 0.0)
        print(f"{name:10s} {verdict:8s} " + " ".join(f"{s.get(c, total if c == 'total' else 0.0):9.3f}" for c in cols))


def imports():
    "Seconds to start Python and import litmus.check, in a fresh process, against a bare interpreter (median of 3)."
    def run(code):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - start)
        return statistics.median(times)
    bare, numpy, litmus = run("pass"), run("import numpy"), run("import litmus.check")
    print(f"\nimports (fresh process, median of 3; {load()}): python {bare:.3f} s, +numpy {numpy - bare:.3f} s, "
          f"+litmus.check {litmus - bare:.3f} s")


def cold_cli(rounds=5):
    "Wall clock of `litmus check` of corpus kernels from the shell (a cold process each time)."
    from litmus import corpus
    exe = str(Path(sys.executable).parent / "litmus")
    for name in ("vadd", "softmax"):
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            subprocess.run([exe, "check", str(corpus.get(name).path), "--quick"], capture_output=True, check=False)
            times.append(time.perf_counter() - start)
        print(f"cold `litmus check {name}.py --quick`: median {statistics.median(times):.2f} s of {rounds} ({load()})")


def throughput(backends, batch=8):
    "Completions per second for each backend and kernel, cold and warm."
    from litmus import corpus
    from litmus.rewards import LitmusReward, task_of
    print(f"\nLitmusReward, quick, {batch} distinct completions per batch (completions/s)")
    print(f"{'backend':14s} {'kernel':10s} {'cold':>7s} {'warm':>7s}  scores  load")
    for label, options in backends:
        for name in KERNELS:
            source, task = corpus.get(name).source, task_of(name)
            reward = LitmusReward(**options, **task)
            try:
                rates, scores = [], set()
                for round_ in ("cold", "warm"):
                    completions = [fenced(source + f"\n# {label} {round_} completion {i}\n") for i in range(batch)]
                    start = time.perf_counter()
                    scores |= set(reward(completions=completions))
                    rates.append(batch / (time.perf_counter() - start))
            finally:
                reward.close()
            print(f"{label:14s} {name:10s} {rates[0]:7.2f} {rates[1]:7.2f}  {sorted(scores)}  {load()}", flush=True)


def overlapped_histogram():
    """The histogram search as it is (launch, then reference, one after the other) and with each launch's reference
    request sent before either answer is read (sandbox.exchange), patched in here the way falsify would call it."""
    from litmus import corpus, falsify
    from litmus.sandbox import Box, exchange
    def execute(self, case, original=falsify.TargetedFalsification._execute):
        target = self.target
        if self.runner is not None or not self.sandbox or target.spec is not None or self._box is None:
            return original(self, case)
        key = next((k for k, v in self._variants.items() if v is case.kernel), None)
        if key is None:
            return original(self, case)
        if target._reference_box is None:
            target._reference_box = Box(target._reference_job, target.limits)
        launch, reference = exchange([(self._box, (key, case.dims, case.inputs, self.race_search)), (target._reference_box, case.inputs)])
        target._ready = (id(case), corpus._checked_reference(self.kernel, case.dims, reference))
        return falsify._checked_launch(case.kernel, case.dims, launch, self._launch(case.kernel, case.dims))
    def reference(self, case, launch, original=falsify.Target.reference):
        ready = getattr(self, "_ready", None)
        if ready is not None and ready[0] == id(case):
            self._ready = None
            return ready[1]
        return original(self, case, launch)
    def run():
        start = time.perf_counter()
        r = falsify.TargetedFalsification("histogram", budget=40).run()
        return time.perf_counter() - start, r
    plain = [run() for _ in range(3)]
    saved = falsify.TargetedFalsification._execute, falsify.Target.reference
    falsify.TargetedFalsification._execute, falsify.Target.reference = execute, reference
    try:
        both = [run() for _ in range(3)]
    finally:
        falsify.TargetedFalsification._execute, falsify.Target.reference = saved
    same = [(a.found, a.evaluations, a.worst_ratio) for _, a in plain] == [(b.found, b.evaluations, b.worst_ratio) for _, b in both]
    print(f"\nhistogram search (budget 40): sequential {statistics.median(t for t, _ in plain):.3f} s, overlapped "
          f"{statistics.median(t for t, _ in both):.3f} s (median of 3; same result: {same}; {load()})")


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--no-ray", action="store_true")
    a.add_argument("--histogram", action="store_true")
    a.add_argument("--skip-cli", action="store_true")
    args = a.parse_args()
    print(f"machine: {machine()}\n{load()}")
    if not args.skip_cli:
        imports()
        cold_cli()
    breakdown(KERNELS + ("histogram",))
    if args.histogram:
        overlapped_histogram()
    backends = [("local, 1", {"workers": 1}), ("local, 2", {"workers": 2})]
    if not args.no_ray:
        try:
            import ray
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            backends.append(("ray, 2 CPUs", {"workers": 2, "backend": "ray"}))
        except Exception as e:      # ImportError, or a Ray that cannot start on this machine now
            print(f"Ray: not measured ({type(e).__name__}: {str(e).splitlines()[0][:200]})")
    throughput(backends)


if __name__ == "__main__":      # the reward's worker pool imports this file again in each worker
    main()

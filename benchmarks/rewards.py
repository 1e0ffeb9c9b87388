"""litmus at RL scale: what one check costs, piece by piece, and completions per second against workers.

    python benchmarks/rewards.py              # everything: imports, cold CLI, breakdown, throughput, the corpus
    python benchmarks/rewards.py --brief      # one round of each, two kernels: a smoke run on a busy machine
    python benchmarks/rewards.py --no-ray     # without Ray
    python benchmarks/rewards.py --histogram  # also: the histogram search with its launch and reference overlapped
    python benchmarks/rewards.py --cli-corpus # the cold CLI over every corpus kernel (one round), not only the four
    python benchmarks/rewards.py --kernels vadd,softmax --skip-cli --skip-corpus --skip-breakdown   # throughput only

The breakdowns: one of a second quick check in a warm process (wall seconds per stage), and one of a cold, distinct
completion on one worker (CPU ms per stage, the boxes' CPU beside the parent's): what a worker spends on one it has never seen.

Each LitmusReward figure is a batch of 8 distinct completions of one corpus task (quick mode, the cache cold: every
completion differs from all others by a comment). "cold" is the first batch of a fresh LitmusReward (its pool or Ray
actors start inside the timing); "warm" is the median over later batches of new completions on the same, started pool.
The backends (local 1 worker, local 2 workers, Ray with 2 CPUs) are measured in interleaved rounds, so a change in the
machine's load falls on all of them alike, and each is printed as a ratio against one local worker from the same rounds.
Every figure is printed with the machine's load average at the time, since the machine may be shared. Beside each rate,
the CPU seconds its scoring processes (and their boxes) spent per completion: load does not inflate it much, so
workers / CPU per completion is the rate the backend reaches with its cores to itself, and equal CPU per completion
for one and two workers says the pool adds no work of its own.
"""
import argparse, os, platform, statistics, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ("vadd", "softmax", "layernorm", "matmul")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_WAIT_POLICY")


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    threads = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in THREAD_VARIABLES)
    # an editable install under PYTHONDONTWRITEBYTECODE=1 compiles every litmus module from source at each start
    cached = any((ROOT / "src" / "litmus" / "__pycache__").glob("check.*.pyc")) or bool(os.environ.get("PYTHONPYCACHEPREFIX"))
    return (f"{platform.node()}: {model}, {os.cpu_count()} cores, Python {platform.python_version()}; {threads}; "
            f"bytecode cache: {'written' if not sys.flags.dont_write_bytecode else 'not written'} "
            f"(litmus .pyc {'present' if cached else 'absent'})")


def load() -> str:
    return "load " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def fenced(source: str) -> str:
    return "```python\n" + source + "\n```"


def breakdown(names):
    """Seconds per stage of one quick `check` in this (warm) process; 'search' excludes the box starts and launches inside it.
    The stages are wall clock; 'CPU' is the check's CPU seconds, its boxes included (the figure to trust on a busy machine)."""
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
            C.check(name, quick=True)          # warm: the first check of a kernel in a process fills caches
            spent.clear()
            start, cpu_start = time.perf_counter(), _cpu_with_boxes()
            result = C.check(name, quick=True)
            total = time.perf_counter() - start
            spent["CPU"] = _cpu_with_boxes() - cpu_start
            rows.append((name, result.verdict, result.falsification.evaluations if result.falsification else 0, total, dict(spent)))
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)
    print(f"\nper-kernel cost of one quick check (seconds, second check in a warm process; {load()})")
    cols = ["parse", "bound", "proof", "box start", "launches", "reference", "search", "total", "CPU"]
    print(f"{'kernel':10s} {'verdict':8s} {'launches':>8s} " + " ".join(f"{c:>9s}" for c in cols) + "  per launch")
    for name, verdict, count, total, s in rows:
        box = s.get("box start", 0.0)
        s["launches"] = s.get("launches", 0.0) - box        # box starts happen inside the first launch of each box
        s["search"] = s.get("search", 0.0) - s["launches"] - box - s.get("reference", 0.0)
        per = s["launches"] / count if count else 0.0
        print(f"{name:10s} {verdict:8s} {count:8d} " + " ".join(f"{s.get(c, total if c == 'total' else 0.0):9.3f}" for c in cols)
              + f"  {1000 * per:7.2f} ms")


def cold_breakdown(names, batch=6):
    """CPU seconds of a cold, distinct completion (LitmusReward's path with one worker, in this process), stage by stage:
    what a worker spends on a completion it has never seen, its box included. Stages are CPU of this process (a busy
    machine barely inflates them); 'box' is the CPU of the boxes the batch forked and reaped."""
    import resource

    from litmus import check as C
    from litmus import corpus, falsify
    from litmus import rewards as R
    from litmus.rewards import LitmusReward, task_of
    def own():
        u = resource.getrusage(resource.RUSAGE_SELF)
        return u.ru_utime + u.ru_stime
    def boxes():
        u = resource.getrusage(resource.RUSAGE_CHILDREN)
        return u.ru_utime + u.ru_stime
    spent = {}
    def timed(owner, name, label):
        original = getattr(owner, name)
        def wrapper(*args, **kwargs):
            start = own()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + own() - start
        setattr(owner, name, wrapper)
        return original
    patches = [(R, "load_completion", "load"), (C, "_safety", "proof"), (falsify.SymbolicShapeSpace, "__init__", "shapes"),
               (falsify.Target, "reference", "reference"), (falsify.Target, "compare", "compare")]
    originals = [(owner, name, timed(owner, name, label)) for owner, name, label in patches]
    print(f"\ncold distinct completion, one worker in this process (CPU ms per completion, {batch} per kernel; {load()})")
    cols = ["load", "proof", "shapes", "reference", "compare"]
    print(f"{'kernel':10s} " + " ".join(f"{c:>9s}" for c in cols) + f" {'parent':>8s} {'box':>8s} {'total':>8s} {'wall':>8s}")
    try:
        for name in names:
            source, task = corpus.get(name).source, task_of(name)
            reward = LitmusReward(workers=1, **task)
            reward(completions=[fenced(source + "\n# warm-up\n")])
            spent.clear()
            parent, box, wall = own(), boxes(), time.perf_counter()
            reward(completions=[fenced(source + f"\n# cold breakdown {i}\n") for i in range(batch)])
            parent, box, wall = own() - parent, boxes() - box, time.perf_counter() - wall
            reward.close()
            compare = spent.get("compare", 0.0) - spent.get("reference", 0.0)   # compare calls reference inside
            figures = [spent.get(c, 0.0) if c != "compare" else compare for c in cols] + [parent, box, parent + box, wall]
            print(f"{name:10s} " + " ".join(f"{1000 * v / batch:9.0f}" for v in figures[:5])
                  + " ".join(f"{1000 * v / batch:9.0f}" for v in figures[5:]), flush=True)
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def _cpu_with_boxes() -> float:
    "CPU seconds of this process and of its reaped children (a check's boxes are reaped when it ends): load barely moves it."
    import resource
    own, boxes = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + boxes.ru_utime + boxes.ru_stime


def _median_wall(commands, rounds, env=None):
    "Median wall seconds of each command line, run in interleaved rounds (a fresh process each time)."
    times = {label: [] for label, _ in commands}
    for _ in range(rounds):
        for label, argv in commands:
            start = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=False, env=env)
            times[label].append(time.perf_counter() - start)
    return {label: statistics.median(t) for label, t in times.items()}


def compiled_env():
    """The environment of an installed litmus when this checkout runs without bytecode (PYTHONDONTWRITEBYTECODE=1 with
    an editable install compiles every module at every start; pip compiles a wheel's modules once, at install): the
    modules compiled into a private pycache, which Python then reads. None when bytecode is written here anyway."""
    if not sys.flags.dont_write_bytecode:
        return None
    import compileall, tempfile
    env = {**os.environ, "PYTHONPYCACHEPREFIX": tempfile.mkdtemp(prefix="litmus-pycache-")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-c", f"import compileall; compileall.compile_dir({str(ROOT / 'src')!r}, quiet=1)"],
                   env=env, check=True)
    return env


def imports(rounds=3):
    "Seconds to start Python and import litmus's pieces, each in a fresh process, against a bare interpreter."
    py = sys.executable
    steps = [("python", "pass"), ("numpy", "import numpy"), ("litmus.cli (litmus --help)", "import litmus.cli"),
             ("litmus.check", "import litmus.check")]
    got = _median_wall([(label, [py, "-c", code]) for label, code in steps], rounds)
    bare = got["python"]
    print(f"\nimports (fresh process, median of {rounds}; {load()}): python {bare:.3f} s, then "
          + ", ".join(f"+{label} {got[label] - bare:.3f} s" for label, _ in steps[1:]))


def cold_cli(names=("vadd", "softmax", "layernorm", "matmul"), rounds=5):
    """Wall clock of `litmus check` of corpus kernels from the shell (a cold process each time), default and --quick;
    where this checkout writes no bytecode, also as pip would install it (compiled once)."""
    from litmus import corpus
    exe = str(Path(sys.executable).parent / "litmus")
    commands = [(f"{name}{flag}", [exe, "check", str(corpus.get(name).path), *flag.split()])
                for name in names for flag in ("", " --quick")]
    runs = [("as this checkout runs", None)]
    env = compiled_env()
    if env is not None:
        runs.append(("bytecode compiled, as installed", env))
    for what, environment in runs:
        got = _median_wall(commands, rounds, environment)
        print(f"\ncold `litmus check FILE`, {what} (wall clock, median of {rounds} interleaved rounds; {load()})")
        shown = got.items() if len(names) <= 8 else sorted(got.items(), key=lambda kv: -kv[1])[:6]
        for label, seconds in shown:
            print(f"  {label:28s} {seconds:6.2f} s")
        if len(names) > 8:
            print(f"  (the six slowest of {len(got)} runs)")
        default = statistics.median(v for k, v in got.items() if "--quick" not in k)
        quick = statistics.median(v for k, v in got.items() if "--quick" in k)
        print(f"  median over these kernels: default {default:.2f} s, --quick {quick:.2f} s")


def _process_cpu(pid: int) -> float:
    "User + system CPU seconds of process `pid` and its reaped children (its boxes), from /proc; 0.0 once it is gone."
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def worker_cpu(reward) -> float:
    """CPU seconds spent so far by the processes that score `reward`'s completions: this one (one local worker scores in
    this process), the pool's workers, or the Ray actors (local to this machine), each with the boxes it reaped."""
    import resource
    if reward.backend == "ray":
        return sum(_process_cpu(pid) for pid in (reward._ray_pool.pids if reward._ray_pool else []))
    if reward._pool is not None:
        return sum(_process_cpu(pid) for pid in list(reward._pool._processes or {}))
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def throughput(backends, names=KERNELS, batch=8, rounds=4):
    """Completions per second for each backend and kernel: the first batch cold, then `rounds` - 1 warm batches, the
    backends interleaved inside each round; each rate also per worker and as a ratio against one local worker. "CPU/c" is
    the CPU seconds the scoring processes spent per warm completion (their boxes included): a cost the machine's load does
    not inflate, so "bound" (workers / CPU per completion) is the rate this backend reaches with its cores to itself."""
    from litmus import corpus
    from litmus.rewards import LitmusReward, task_of
    print(f"\nLitmusReward, quick, {batch} distinct completions per batch (completions/s; warm: median of {rounds - 1} "
          f"interleaved rounds)")
    print(f"{'backend':14s} {'kernel':10s} {'cold':>7s} {'warm':>7s} {'/worker':>8s} {'vs 1 local':>10s} {'CPU/c':>7s} "
          f"{'bound':>7s}  scores  load")
    for name in names:
        source, task = corpus.get(name).source, task_of(name)
        rewards = {label: LitmusReward(**options, **task) for label, options, _ in backends}
        rates, cpus = {label: [] for label, _, _ in backends}, {label: [] for label, _, _ in backends}
        scores = {label: set() for label, _, _ in backends}
        try:
            for round_ in range(rounds):
                for label, _, _ in backends:
                    completions = [fenced(source + f"\n# {label} round {round_} completion {i}\n") for i in range(batch)]
                    cpu_before = worker_cpu(rewards[label])
                    start = time.perf_counter()
                    scores[label] |= set(rewards[label](completions=completions))
                    rates[label].append(batch / (time.perf_counter() - start))
                    cpus[label].append((worker_cpu(rewards[label]) - cpu_before) / batch)
        finally:
            for reward in rewards.values():
                reward.close()
        base = statistics.median(rates[backends[0][0]][1:])
        for label, _, workers in backends:
            warm, cpu = statistics.median(rates[label][1:]), statistics.median(cpus[label][1:])
            bound = workers / cpu if cpu > 0 else float("nan")
            print(f"{label:14s} {name:10s} {rates[label][0]:7.2f} {warm:7.2f} {warm / workers:8.2f} {warm / base:9.2f}x "
                  f"{cpu:7.3f} {bound:7.2f}  {sorted(scores[label])}  {load()}", flush=True)


def whole_corpus(ray: bool, workers=(1, 2)):
    "check_many over the corpus at the budgets of the benchmark's condition C (not quick): wall clock and per-kernel p50/p95."
    from litmus import corpus
    from litmus.cli import check_many
    paths = [k.path for k in corpus.kernels()]
    print(f"\nthe corpus ({len(paths)} kernels) through check_many, condition C's budgets ({load()})")
    runs = [(f"local, {n}", dict(workers=n)) for n in workers] + ([("ray, 2 CPUs", dict(ray="auto", workers=2))] if ray else [])
    verdicts = {}
    for label, options in runs:
        batch = check_many(paths, **options)
        s = batch.summary
        verdicts[label] = [r["verdict"] for r in batch.results]
        print(f"  {label:12s} wall {s['wall_seconds']:6.2f} s  per kernel p50 {s['p50_seconds']:.2f} s p95 {s['p95_seconds']:.2f} s"
              f"  sum {sum(r['seconds'] for r in batch.results):6.2f} s  {s['verdicts']}  {load()}", flush=True)
    same = len({tuple(v) for v in verdicts.values()}) == 1
    print(f"  the same verdict on every kernel in every run: {same}")


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
    a.add_argument("--skip-corpus", action="store_true")
    a.add_argument("--brief", action="store_true", help="one cold and one warm round, vadd and matmul only (a smoke run)")
    a.add_argument("--kernels", help=f"comma-separated corpus kernels (default: {','.join(KERNELS)})")
    a.add_argument("--skip-breakdown", action="store_true")
    a.add_argument("--cli-corpus", action="store_true", help="the cold CLI over every corpus kernel, one round")
    args = a.parse_args()
    print(f"machine: {machine()}\n{load()}")
    names = tuple(args.kernels.split(",")) if args.kernels else ("vadd", "matmul") if args.brief else KERNELS
    if not args.skip_cli:
        imports(1 if args.brief else 3)
        cold_cli(names, 1 if args.brief else 5)
        if args.cli_corpus:
            from litmus import corpus
            cold_cli(tuple(k.name for k in corpus.kernels()), 1)
    if not args.skip_breakdown:
        breakdown(names + (() if args.brief else ("histogram",)))
        cold_breakdown(names, 3 if args.brief else 6)
    if args.histogram:
        overlapped_histogram()
    backends = [("local, 1", {"workers": 1}, 1), ("local, 2", {"workers": 2}, 2)]
    ray = False
    if not args.no_ray:
        try:
            import ray as ray_module, tempfile
            # a session folder of its own: nodes that other users of a shared machine start under /tmp/ray stay apart
            ray_module.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                            _temp_dir=tempfile.mkdtemp(prefix="ray-bench-", dir="/tmp"))
            backends.append(("ray, 2 CPUs", {"workers": 2, "backend": "ray"}, 2))
            ray = True
        except Exception as e:      # ImportError, or a Ray that cannot start on this machine now
            print(f"Ray: not measured ({type(e).__name__}: {str(e).splitlines()[0][:200]})")
    throughput(backends, names, rounds=2 if args.brief else 4)
    if not args.skip_corpus and not args.brief:
        whole_corpus(ray)


if __name__ == "__main__":      # the reward's worker pool imports this file again in each worker
    main()

"""What one quick litmus check costs per corpus kernel, against a base commit (issue #23's "no more than 1.5x" acceptance).

    python benchmarks/search_cost.py                       # base db6ec74 (worktree /work/tmp/base), 11 rounds, all kernels
    python benchmarks/search_cost.py --rounds 5 --kernels vadd,matmul
    python benchmarks/search_cost.py --base-tree PATH      # a checkout of the base commit (git worktree add PATH db6ec74)

Two long-lived worker processes, one importing litmus from the base tree and one from this tree, each time
`litmus.check.check(corpus.get(name), quick=True)` for a kernel the parent names. The parent alternates base and head
kernel by kernel (the one going first alternates too), so a change in the machine's load falls on both alike; one
warm-up round is discarded, and each figure is the median of the rounds. Thread pools are pinned to one thread
(OMP_NUM_THREADS=1 and friends, OMP_WAIT_POLICY=passive) and printed with the machine. A ratio is head / base; verdicts of
both are printed and any change is flagged.
"""
import argparse, json, os, platform, statistics, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OMP_WAIT_POLICY": "passive"}

WORKER = r"""
import json, sys, time
from litmus import check as C, corpus
print(json.dumps({"names": corpus.names(), "file": C.__file__}), flush=True)
for line in sys.stdin:
    name = line.strip()
    kernel = corpus.get(name)
    start = time.perf_counter()
    result = C.check(kernel, quick=True)
    seconds = time.perf_counter() - start
    print(json.dumps({"name": name, "seconds": seconds, "verdict": result.verdict}), flush=True)
"""


def source_root(tree: Path) -> Path:
    "The folder to put on PYTHONPATH: `src/` for the src layout, the tree itself before it."
    return tree / "src" if (tree / "src" / "litmus").is_dir() else tree


class Worker:
    "A python process importing litmus from one tree, answering one timing per kernel name."
    def __init__(self, tree: Path):
        env = dict(os.environ, **THREADS, PYTHONPATH=str(source_root(tree)))
        self.process = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env=env, text=True, cwd=str(tree))
        hello = json.loads(self.process.stdout.readline())
        self.names = hello["names"]
        self.file = hello["file"]

    def time(self, name: str) -> dict:
        self.process.stdin.write(name + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker for {self.file} died while checking {name}")
        return json.loads(line)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 platform.processor())
    threads = ", ".join(f"{k}={v}" for k, v in THREADS.items())
    return f"{platform.node()}: {model}, {os.cpu_count()} cores, Python {platform.python_version()}; {threads}"


def load() -> str:
    return "load " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-tree", default="/work/tmp/base", help="a checkout of the base commit (default db6ec74's worktree)")
    parser.add_argument("--rounds", type=int, default=11, help="timed rounds after the discarded warm-up (default 11)")
    parser.add_argument("--kernels", default="", help="comma-separated corpus names (default: every kernel both trees have)")
    args = parser.parse_args(argv)
    base_tree = Path(args.base_tree)
    if not (source_root(base_tree) / "litmus" / "check.py").is_file():
        parser.error(f"--base-tree {base_tree} holds no litmus package (expected litmus/check.py or src/litmus/check.py)")
    print(machine())
    print(f"base tree {base_tree}, head tree {ROOT}; {load()}")
    base = Worker(base_tree)
    head = Worker(ROOT)
    print(f"base imports {base.file}\nhead imports {head.file}")
    names = [n for n in head.names if n in base.names]
    if args.kernels:
        wanted = args.kernels.split(",")
        unknown = [n for n in wanted if n not in names]
        if unknown:
            parser.error(f"--kernels: {unknown} are not corpus kernels of both trees (known: {names})")
        names = wanted
    times = {side: {n: [] for n in names} for side in ("base", "head")}
    verdicts = {side: {} for side in ("base", "head")}
    started = time.perf_counter()
    for round_index in range(args.rounds + 1):
        for position, name in enumerate(names):
            order = [("base", base), ("head", head)]
            if (round_index + position) % 2:
                order.reverse()
            for side, worker in order:
                answer = worker.time(name)
                verdicts[side].setdefault(name, set()).add(answer["verdict"])
                if round_index > 0:
                    times[side][name].append(answer["seconds"])
        print(f"round {round_index}{' (warm-up, discarded)' if round_index == 0 else ''} done, "
              f"{time.perf_counter() - started:.0f} s, {load()}", file=sys.stderr, flush=True)
    base.close()
    head.close()
    print(f"\nmedians of {args.rounds} interleaved rounds, one quick check each; {load()} (label figures 'under load' unless idle)")
    print(f"{'kernel':28s} {'base s':>8s} {'head s':>8s} {'ratio':>6s}  verdict base/head")
    total = {"base": 0.0, "head": 0.0}
    changed = []
    ratios = {}
    for name in names:
        b = statistics.median(times["base"][name])
        h = statistics.median(times["head"][name])
        total["base"] += b
        total["head"] += h
        ratios[name] = h / b
        vb = "/".join(sorted(verdicts["base"][name]))
        vh = "/".join(sorted(verdicts["head"][name]))
        flag = "" if vb == vh else "  CHANGED"
        if flag:
            changed.append(name)
        print(f"{name:28s} {b:8.3f} {h:8.3f} {h / b:6.2f}  {vb}/{vh}{flag}")
    print(f"{'total':28s} {total['base']:8.3f} {total['head']:8.3f} {total['head'] / total['base']:6.2f}")
    worst = max(ratios, key=ratios.get)
    print(f"worst ratio {ratios[worst]:.2f} ({worst}); over 1.5x: {[n for n in names if ratios[n] > 1.5] or 'none'}; "
          f"verdicts changed: {changed or 'none'}")


if __name__ == "__main__":
    main()

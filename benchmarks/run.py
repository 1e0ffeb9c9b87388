"""litmus's A/B/C benchmark over the corpus, its table and its five figures.

(A) standard:  power-of-two shapes, uniform [0, 1) inputs, allclose(rtol=1e-2)          (litmus.simulate.condition_a)
(B) fuzzing+:  random non-power-of-two shapes, normal inputs drawn from the declared domain, float64 reference,
               a tolerance that grows with the reduction length                         (litmus.simulate.condition_b)
(C) litmus:    certified bound + symbolic safety + targeted falsification  (litmus.check.check, run through
               litmus.cli.check_many in two warm worker processes: --workers)

A construct the model cannot run is not a detection under any condition. Condition C never reads a kernel's label or
answer key; the labels are used here only to score the conditions.

    python benchmarks/run.py            # full budgets: table, benchmarks/results.json, benchmarks/figures/*.png
    python benchmarks/run.py --quick    # CI-sized budgets
"""
import argparse, json, math, os, statistics, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIGURES = ("fig1_headline_gap.png", "fig2_detection_by_bug_class.png", "fig3_bound_tightness.png",
           "fig4_verification_time.png", "fig5_counterexample_size.png")


def condition_c(kernels, quick=False, progress=None, workers=2):
    """litmus check on every kernel through `check_many`, in `workers` warm worker processes (each kernel's launches in
    boxes of its own): {name: the check's plain result (CheckResult.as_dict() with its wall and CPU seconds)}."""
    from litmus.cli import check_many
    batch = check_many([k.path for k in kernels], workers=workers, quick=quick, progress=progress)
    return {k.name: r for k, r in zip(kernels, batch.results)}


def _ratio(value) -> float:
    "A ratio from a plain result: a non-finite one arrives as its string ('inf')."
    return float(value)


def summarise(kernels, outcomes, results, seconds):
    "The benchmark's numbers as plain data: per-condition detection, false positives, wall clock, and C's extras."
    by_name = {k.name: k for k in kernels}
    buggy = [k for k in kernels if k.buggy]
    numeric = [k for k in buggy if (k.answer_key or {}).get("observable", "numeric") == "numeric"]
    correct = [k for k in kernels if not k.buggy]
    table = {}
    for cond, outs in outcomes.items():
        flagged = {o.kernel: o.flagged for o in outs}
        rate = lambda ks: sum(flagged[k.name] for k in ks) / len(ks) if ks else float("nan")
        table[cond] = {"detection": rate(buggy), "detection_numeric": rate(numeric), "false_positives": rate(correct),
                       "seconds": seconds[cond],
                       "by_family": {f: [sum(flagged[k.name] for k in buggy if k.label == f), sum(k.label == f for k in buggy)]
                                     for f in sorted({k.label for k in buggy})}}
    certified = [r for r in results.values() if r.get("certified")]
    tightness = {}
    for name, r in results.items():
        f = r.get("falsification")
        if r.get("certified") and not by_name[name].buggy and f and f["counterexample"] is None and _ratio(f["worst_ratio"]) > 0:
            tightness[name] = 1.0 / _ratio(f["worst_ratio"])
    cx = lambda r: (r.get("falsification") or {}).get("counterexample")
    sizes = {name: cx(r)["elements"] for name, r in results.items() if cx(r) is not None}
    rejects = [r for r in results.values() if r["verdict"] == "REJECT"]
    return {"kernels": len(kernels), "buggy": len(buggy), "correct": len(correct), "numeric": len(numeric), "table": table,
            "certified_coverage": len(certified) / len(results), "tightness": tightness,
            "median_tightness": statistics.median(tightness.values()) if tightness else None,
            "counterexample_sizes": sizes, "median_counterexample": statistics.median(sizes.values()) if sizes else None,
            "rejects_with_witness": sum(bool(r.get("witness")) for r in rejects), "rejects": len(rejects),
            "verdicts": {n: r["verdict"] for n, r in results.items()}, "check_seconds": {n: r["seconds"] for n, r in results.items()},
            "labels": {k.name: k.label for k in kernels}}


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its reaped children (the boxes): a cost that machine load does not
    inflate. Condition C's workers are the forkserver's children, so their CPU (and their boxes') is counted per check."""
    import resource
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def print_table(s, out=sys.stdout):
    conds = list(s["table"])
    pct = lambda v: "n/a" if v != v else f"{100 * v:.0f}%"
    rows = [("metric", *[{"A": "(A) standard", "B": "(B) fuzzing+", "C": "(C) litmus"}[c] for c in conds]),
            ("bug detection rate", *[pct(s["table"][c]["detection"]) for c in conds]),
            ("detection, numerically observable bugs only", *[pct(s["table"][c]["detection_numeric"]) for c in conds]),
            ("false positives on correct kernels", *[pct(s["table"][c]["false_positives"]) for c in conds]),
            ("wall clock, whole corpus", *[f"{s['table'][c]['seconds']:.1f}s" for c in conds])]
    if "cpu_seconds" in s: rows.append(("CPU time (this process + its boxes)", *[f"{s['cpu_seconds'][c]:.1f}s" for c in conds]))
    width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    if "load_average" in s: print(f"machine: {os.cpu_count()} cores, load average {s['load_average'][0]:.1f} during the run (other work shares the cores)", file=out)
    print(f"corpus: {s['kernels']} kernels ({s['correct']} correct, {s['buggy']} with planted bugs, {s['numeric']} numerically observable)", file=out)
    for r in rows: print("  ".join(cell.ljust(w) for cell, w in zip(r, width)), file=out)
    print("per family (detected / planted):", file=out)
    for fam in s["table"][conds[0]]["by_family"]:
        print(f"  {fam:18s}" + "  ".join(f"{c}: {s['table'][c]['by_family'][fam][0]}/{s['table'][c]['by_family'][fam][1]}" for c in conds), file=out)
    t = s["median_tightness"]
    print(f"certified bound available for {100 * s['certified_coverage']:.0f}% of kernels; median tightness (bound / worst deviation "
          f"the search measured on a correct kernel) {'n/a' if t is None else f'{t:.3g}'}", file=out)
    print(f"median counterexample size {s['median_counterexample']} elements; {s['rejects_with_witness']}/{s['rejects']} REJECTs carry a witness", file=out)


def figures(s, folder: Path):
    "The five figures as PNGs in `folder`."
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    folder.mkdir(parents=True, exist_ok=True)
    conds = list(s["table"]); colours = {"A": "#9e9e9e", "B": "#5b8bd0", "C": "#2e9d5b"}
    names = {"A": "(A) standard", "B": "(B) fuzzing+", "C": "(C) litmus"}
    # 1: pass rate vs truth
    fig, ax = plt.subplots(figsize=(6, 3.4))
    passed = [1 - (s["table"][c]["detection"] * s["buggy"] + s["table"][c]["false_positives"] * s["correct"]) / s["kernels"] for c in conds]
    ax.bar([names[c] for c in conds], [100 * p for p in passed], color=[colours[c] for c in conds])
    ax.axhline(100 * s["correct"] / s["kernels"], color="k", ls="--", label="actually correct")
    ax.set_ylabel("kernels passing (%)"); ax.set_ylim(0, 105); ax.legend(loc="upper right"); ax.set_title("pass rate vs. truth")
    fig.tight_layout(); fig.savefig(folder / FIGURES[0], dpi=90); plt.close(fig)
    # 2: detection by bug family
    fams = list(s["table"][conds[0]]["by_family"])
    fig, ax = plt.subplots(figsize=(8, 3.4))
    w = 0.8 / len(conds)
    for i, c in enumerate(conds):
        vals = [100 * a / b for a, b in (s["table"][c]["by_family"][f] for f in fams)]
        ax.bar([j + i * w for j in range(len(fams))], vals, w, color=colours[c], label=names[c])
    ax.set_xticks([j + w * (len(conds) - 1) / 2 for j in range(len(fams))]); ax.set_xticklabels(fams, rotation=20, fontsize=8)
    ax.set_ylabel("planted bugs detected (%)"); ax.set_ylim(0, 105); ax.set_title("detection by bug family")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout(); fig.savefig(folder / FIGURES[1], dpi=90); plt.close(fig)
    # 3: bound tightness on correct kernels
    fig, ax = plt.subplots(figsize=(7, 3.4))
    items = sorted(s["tightness"].items(), key=lambda kv: kv[1])
    ax.bar([k for k, _ in items], [v for _, v in items], color=colours["C"])
    ax.axhline(1, color="k", ls="--", label="bound = worst measured deviation")
    ax.set_yscale("log"); ax.set_ylabel("bound / worst measured"); ax.tick_params(axis="x", rotation=30, labelsize=8)
    ax.legend(fontsize=8); ax.set_title("every certified bound above its measured maximum")
    fig.tight_layout(); fig.savefig(folder / FIGURES[2], dpi=90); plt.close(fig)
    # 4: verification time
    items = sorted(s["check_seconds"].items(), key=lambda kv: kv[1])
    fig, ax = plt.subplots(figsize=(7, 0.2 * len(items) + 1.2))
    ax.barh([k for k, _ in items], [v for _, v in items], color=[colours["C"] if s["labels"][k] == "correct" else "#c0504d" for k, _ in items])
    ax.set_xlabel("litmus check, seconds (green: correct kernel, red: planted bug)"); ax.tick_params(axis="y", labelsize=7)
    ax.set_title("CI cost per kernel; whole corpus " + ", ".join(f"{c} {s['table'][c]['seconds']:.1f} s" for c in conds), fontsize=10)
    fig.tight_layout(); fig.savefig(folder / FIGURES[3], dpi=90); plt.close(fig)
    # 5: counterexample sizes
    fig, ax = plt.subplots(figsize=(6, 3.4))
    sizes = list(s["counterexample_sizes"].values())
    top = max(sizes + [2])
    ax.hist(sizes, bins=[b - 0.5 for b in range(0, top + 2)], color=colours["C"], rwidth=0.85)
    ax.set_xlabel("input entries that matter (0: any input of that shape)"); ax.set_ylabel("REJECTed kernels")
    ax.set_title(f"minimal counterexamples (median {s['median_counterexample']})")
    fig.tight_layout(); fig.savefig(folder / FIGURES[4], dpi=90); plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="CI-sized budgets")
    p.add_argument("--out", default=str(HERE / "figures"), help="folder for the PNGs")
    p.add_argument("--no-figures", action="store_true")
    p.add_argument("--workers", type=int, default=2, help="condition C's worker processes (check_many; default 2)")
    p.add_argument("--figures-only", action="store_true", help="redraw the figures from benchmarks/results.json, run nothing")
    a = p.parse_args(argv)
    if a.figures_only:
        s = json.loads((HERE / "results.json").read_text())
        print_table(s); figures(s, Path(a.out)); return 0
    import numpy as np
    from litmus import corpus, simulate
    np.seterr(all="ignore")
    say = lambda m: print(f"bench: {m}", file=sys.stderr, flush=True)
    kernels = corpus.kernels()
    print(f"{os.cpu_count()} cores; A and B run one kernel at a time, C through check_many with {a.workers} worker(s); numpy "
          f"threads as configured (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')})", file=sys.stderr)
    outcomes, seconds, cpu = {}, {}, {}
    def timed(cond, run, elsewhere=lambda out: 0.0):
        "Run a condition: its wall seconds, and its CPU seconds here plus `elsewhere(out)` (its workers' own)."
        t, c = time.perf_counter(), cpu_seconds()
        out = run()
        seconds[cond], cpu[cond] = time.perf_counter() - t, cpu_seconds() - c + elsewhere(out)
        say(f"{cond} done in {seconds[cond]:.1f} s wall, {cpu[cond]:.1f} s CPU")
        return out
    outcomes["A"] = timed("A", lambda: simulate.condition_a(kernels))
    outcomes["B"] = timed("B", lambda: simulate.condition_b(kernels, trials=2 if a.quick else 5))
    workers_cpu = lambda results: sum(r.get("cpu_seconds", 0.0) for r in results.values()) if a.workers > 1 else 0.0
    results = timed("C", lambda: condition_c(kernels, a.quick, say, a.workers), workers_cpu)
    outcomes["C"] = [simulate.Outcome(k.name, k.label, results[k.name]["verdict"] == "REJECT", results[k.name]["verdict"]) for k in kernels]
    s = summarise(kernels, outcomes, results, seconds)
    s["cpu_seconds"], s["load_average"] = cpu, os.getloadavg()
    print_table(s)
    for k in kernels:
        r = results[k.name]
        if (r["verdict"] == "REJECT") != k.buggy: print(f"  MISMATCH {k.name} ({k.label}): {r['verdict']}; " + "; ".join(r["reasons"]))
    saved = HERE / ("results_quick.json" if a.quick else "results.json")
    if saved.is_file():
        before = json.loads(saved.read_text()).get("verdicts", {})
        changed = {n: f"{before.get(n)} -> {v}" for n, v in s["verdicts"].items() if before.get(n) != v}
        print(f"verdicts against the last {saved.name}: {changed or 'all the same'}")
    saved.write_text(json.dumps(s, indent=1, default=str, allow_nan=True))
    if not a.no_figures: figures(s, Path(a.out)); say(f"figures in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A sampled mutation check over the core of limn and litmus: does a one-token change to the code make a test fail?

Each mutant changes one token of one line of a core module (an arithmetic or comparison operator, `and`/`or`,
`True`/`False`, `min`/`max`, a number) in the module *and* in the notebook cell it was exported from, since the
chapters run their own cells. It then runs the fast tests mapped to that module (pytest files first, then the
module's chapter under nbdev-test) in a scratch copy of the working tree, so the checkout itself is never touched.
A mutant some test fails on is killed; one that outlives a time limit counts as killed (it hung); one that every
test passes survives and is listed with its line, unless `tools/mutants_allow.txt` names it as equivalent (the
mutated program computes the same thing) with a one-line reason.

The whole set of mutants is far too many to run on two cores, so a seeded draw picks `--sample` of them,
spread over the modules in proportion to their size. `make mutants` runs the default draw (about 30 minutes).

    python tools/mutants.py                       # the default seeded draw, two workers, report to stdout
    python tools/mutants.py --sample 40 --modules litmus.affine --jobs 1
    python tools/mutants.py --list                # count the candidate mutants per module, run nothing
"""
from __future__ import annotations
import argparse, io, json, os, random, re, shutil, subprocess, sys, tempfile, time, tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ALLOW = ROOT / "tools" / "mutants_allow.txt"

# module -> (its chapter, the fast pytest files that exercise it). The chapter runs only when pytest did not kill.
TESTS = {
    "limn.ops":         ("nbs/limn/00_ops.ipynb",      ["tests/test_tensor_api.py", "tests/test_dtypes.py", "tests/test_schedule.py"]),
    "limn.view":        ("nbs/limn/01_view.ipynb",     ["tests/test_tensor_api.py", "tests/test_ir_interpreter.py"]),
    "limn.autograd":    ("nbs/limn/03_autograd.ipynb", ["tests/test_second_derivatives.py", "tests/test_autograd_fuzz.py"]),
    "limn.schedule":    ("nbs/limn/05_schedule.ipynb", ["tests/test_schedule.py", "tests/test_ir_interpreter.py"]),
    "limn.codegen":     ("nbs/limn/06_codegen.ipynb",  ["tests/test_ir_interpreter.py", "tests/test_schedule.py"]),
    "limn.jit":         ("nbs/limn/07_jit.ipynb",      ["tests/test_jit.py", "tests/test_capture.py"]),
    "limn.backend_c":   ("nbs/limn/08_backend_c.ipynb", ["tests/test_backend_c.py"]),
    "litmus.affine":    ("nbs/litmus/00_affine.ipynb", ["tests/test_bounds_fuzz.py"]),
    "litmus.bounds":    ("nbs/litmus/02_bounds.ipynb", ["tests/test_bounds_soundness.py", "tests/test_bounds_fuzz.py"]),
    "litmus.prove":     ("nbs/litmus/04_prove.ipynb",  ["tests/test_safety.py"]),
    "litmus.smt":       ("nbs/litmus/05_smt.ipynb",    ["tests/test_safety.py"]),
    "litmus.simulate":  ("nbs/litmus/08_simulate.ipynb", ["tests/test_simulate.py", "tests/test_corpus.py"]),
}

SWAPS = {"+": "-", "-": "+", "*": "/", "/": "*", "//": "/", "%": "//", "<": "<=", "<=": "<", ">": ">=", ">=": ">",
         "==": "!=", "!=": "==", "and": "or", "or": "and", "True": "False", "False": "True", "min": "max", "max": "min",
         "is": "is not", "in": "not in"}


@dataclass(frozen=True)
class Mutant:
    module: str
    line: int            # 1-based line in the module
    col: int
    old: str
    new: str
    before: str          # the whole line, unmutated
    after: str           # the whole line, mutated

    @property
    def key(self) -> str: return f"{self.module}:{self.before.strip()} :: {self.old} -> {self.new}"


def module_path(module: str) -> Path: return ROOT / (module.replace(".", "/") + ".py")


def mutated_number(text: str) -> str | None:
    "An int moves by one; a float is scaled by ten (a tolerance ten times looser, a bound ten times tighter)."
    try: value = int(text, 0)
    except ValueError:
        try: value = float(text)
        except ValueError: return None
        return repr(value * 10 if value else 1.0)
    return str(value + 1)


def candidates(module: str) -> list[Mutant]:
    "Every one-token mutant of `module` that still compiles, skipping docstrings, comments, imports and __all__."
    source = module_path(module).read_text()
    lines = source.splitlines(keepends=True)
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        row, col = tok.start
        if row > len(lines): break
        line = lines[row - 1]
        if re.match(r"\s*(import|from|__all__|assert)\b", line): continue
        if tok.type == tokenize.NUMBER: new = mutated_number(tok.string)
        elif tok.type in (tokenize.OP, tokenize.NAME): new = SWAPS.get(tok.string)
        else: continue
        if new is None or tok.end[0] != row: continue
        after = line[:col] + new + line[tok.end[1]:]
        mutated = "".join(lines[:row - 1] + [after] + lines[row:])
        try: compile(mutated, str(module_path(module)), "exec")
        except SyntaxError: continue
        found.append(Mutant(module, row, col, tok.string, new, line, after))
    return found


def draw(modules: list[str], sample: int, seed: int) -> list[Mutant]:
    "A seeded draw of `sample` mutants, spread over the modules in proportion to their number of candidates."
    pools = {m: candidates(m) for m in modules}
    total = sum(map(len, pools.values()))
    rng, picked = random.Random(seed), []
    for m, pool in pools.items():
        share = max(1, round(sample * len(pool) / max(total, 1)))
        picked += rng.sample(pool, min(share, len(pool)))
    return picked


def allowed() -> dict[str, str]:
    "The equivalent mutants: `key<TAB>reason` per line, `#` comments."
    if not ALLOW.exists(): return {}
    out = {}
    for raw in ALLOW.read_text().splitlines():
        if raw.strip() and not raw.startswith("#"):
            key, _, reason = raw.partition("\t")
            out[key.strip()] = reason.strip()
    return out


class Sandbox:
    "A scratch copy of the working tree (no .git, .venv or site) in which one mutant at a time is applied and tested."
    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="limn-mutants-"))
        shutil.copytree(ROOT, self.root, symlinks=True, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".git", ".venv", "docs", "_proc", "__pycache__", ".pytest_cache"))
        self.env = dict(os.environ, PYTHONPATH=str(self.root), PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1")

    def run(self, command: list[str], limit: float) -> str:
        "'pass', 'fail' or 'timeout' for one command, run in its own process group so a hang is killed whole."
        proc = subprocess.Popen(command, cwd=self.root, env=self.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        try: return "pass" if proc.wait(timeout=limit) == 0 else "fail"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9); proc.wait()
            return "timeout"

    def commands(self, module: str) -> list[list[str]]:
        chapter, files = TESTS[module]
        return [[str(BIN / "python"), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *files],
                [str(BIN / "nbdev-test"), chapter]]

    def apply(self, m: Mutant, undo: bool = False) -> bool:
        "Swap the line in the module and in its chapter's cell; True when the chapter held the line too."
        old, new = (m.after, m.before) if undo else (m.before, m.after)
        path = self.root / module_path(m.module).relative_to(ROOT)
        lines = path.read_text().splitlines(keepends=True)
        lines[m.line - 1] = new
        path.write_text("".join(lines))
        chapter = self.root / TESTS[m.module][0]
        nb = json.loads(chapter.read_text())
        for cell in nb["cells"]:
            src = cell["source"] if isinstance(cell["source"], list) else cell["source"].splitlines(keepends=True)
            hits = [i for i, s in enumerate(src) if s.rstrip("\n") == old.rstrip("\n")]
            if cell["cell_type"] == "code" and len(hits) == 1:
                src[hits[0]] = new if new.endswith("\n") or hits[0] == len(src) - 1 else new + "\n"
                cell["source"] = src
                chapter.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
                return True
        return False


def baseline(box: Sandbox, module: str) -> float:
    "Seconds the unmutated tests of `module` take; every test of them must pass, or the check means nothing."
    start = time.time()
    for cmd in box.commands(module):
        if box.run(cmd, 3600) != "pass": raise SystemExit(f"unmutated tests fail for {module}: {' '.join(cmd)}")
    return time.time() - start


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=240)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--modules", nargs="*", default=list(TESTS))
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    unknown = set(args.modules) - set(TESTS)
    if unknown: ap.error(f"no test map for {sorted(unknown)}; known modules: {', '.join(TESTS)}")
    if args.list:
        for m in args.modules: print(f"{m:18} {len(candidates(m)):5} candidate mutants")
        return 0
    mutants, allow = draw(args.modules, args.sample, args.seed), allowed()
    boxes = [Sandbox() for _ in range(max(args.jobs, 1))]
    limits = {m: 3 * baseline(boxes[0], m) + 20 for m in sorted({m.module for m in mutants})}
    print(f"{len(mutants)} mutants (seed {args.seed}) over {len(limits)} modules; {args.jobs} workers", flush=True)
    free, results = list(boxes), {}

    def judge(m: Mutant) -> tuple[Mutant, str, bool]:
        box = free.pop()
        try:
            in_chapter = box.apply(m)
            verdict, spent = "survived", 0.0
            for cmd in box.commands(m.module):
                start = time.time()
                outcome = box.run(cmd, max(limits[m.module] - spent, 10))
                spent += time.time() - start
                if outcome != "pass": verdict = "killed" if outcome == "fail" else "timeout"; break
            box.apply(m, undo=True)
            return m, verdict, in_chapter
        finally: free.append(box)

    with ThreadPoolExecutor(len(boxes)) as pool:
        for i, (m, verdict, in_chapter) in enumerate(pool.map(judge, mutants), 1):
            results[m] = verdict
            print(f"[{i}/{len(mutants)}] {verdict:8} {m.module}:{m.line} {m.old} -> {m.new}"
                  + ("" if in_chapter else "  (module only)"), flush=True)
    for box in boxes: shutil.rmtree(box.root, ignore_errors=True)
    return report(results, allow)


def report(results: dict, allow: dict) -> int:
    "Score per module, the survivors with their lines, and the allow-listed equivalents; exit 1 under 95%."
    print("\n| module | mutants | killed | equivalent (allowed) | survived | score |\n|---|---|---|---|---|---|")
    total_killed = total_judged = 0
    for module in sorted({m.module for m in results}):
        mine = [(m, v) for m, v in results.items() if m.module == module]
        equivalent = sum(v == "survived" and m.key in allow for m, v in mine)
        killed = sum(v != "survived" for m, v in mine)
        survived = len(mine) - killed - equivalent
        judged = len(mine) - equivalent
        total_killed, total_judged = total_killed + killed, total_judged + judged
        print(f"| {module} | {len(mine)} | {killed} | {equivalent} | {survived} | {killed / max(judged, 1):.0%} |")
    score = total_killed / max(total_judged, 1)
    print(f"\nscore: {total_killed}/{total_judged} non-equivalent mutants killed = {score:.1%}")
    survivors = [m for m, v in results.items() if v == "survived" and m.key not in allow]
    if survivors:
        print("\nsurvivors (each is a missing test, or an equivalent mutant for tools/mutants_allow.txt):")
        for m in survivors: print(f"  {m.module}:{m.line}: {m.before.strip()}   [{m.old} -> {m.new}]\n    key: {m.key}")
    return 0 if score >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())

"""A sampled mutation check over the core of limn and litmus: does a one-token change to the code make a test fail?

Each mutant changes one token of one line of a core module (an arithmetic or comparison operator, `and`/`or`,
`True`/`False`, `min`/`max`, a number) in the module *and* in the notebook cell it was exported from, since the
chapters run their own cells. It then runs the fast tests mapped to that module (pytest files first, then the
module's chapter under nbdev-test) in a scratch copy of a commit (`--ref`, default HEAD, taken with `git archive`), so
neither the checkout nor a half-edited file in it can change a verdict; `--ref worktree` copies the live tree instead.
A mutant some test fails on is killed; one that outlives a time limit counts as killed (it hung); one that every
test passes survives and is listed with its line, unless `tools/mutants_allow.txt` names it as equivalent (the
mutated program computes the same thing) with a one-line reason.

The whole set of mutants is far too many to run on two cores, so a seeded draw picks `--sample` of them: half split
evenly over the modules (a small module gets a fair share), half in proportion to their size, and within a module one
mutant from each of as many runs of consecutive candidates, so the draw spreads over the whole file (each module draws
from its own seeded generator, so editing one module never moves another's draw). The report names the test (or
chapter) that killed each mutant; `--out` also writes it as markdown. `make mutants` runs the default draw.

A long run can be done a module at a time: `--only` runs just those modules' part of the draw, and `--cache FILE`
records each verdict with the hash of the module it mutated. A later run with the same cache reuses a kill whose module
is byte-identical (tests only ever get added, so a kill stays a kill) and re-runs every survivor and everything else.

    python tools/mutants.py                       # the default seeded draw, two workers, report to stdout
    python tools/mutants.py --sample 40 --modules litmus.affine --jobs 1 --out mutants-report.md
    python tools/mutants.py --modules limn.executor --match 'graph_key'   # re-run every candidate whose key matches
    python tools/mutants.py --only litmus.bounds --cache /tmp/mutants.jsonl   # one module's share of the default draw
    python tools/mutants.py --cache /tmp/mutants.jsonl --out report.md       # the whole draw, reusing those kills
    python tools/mutants.py --list                # count the candidate mutants per module, run nothing
"""
from __future__ import annotations
import argparse, hashlib, io, json, os, random, re, shutil, signal, subprocess, sys, tempfile, time, tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT          # the tree mutants are drawn from and copied out of; `snapshot` points it at a commit's files
BIN = Path(sys.executable).parent
ALLOW = ROOT / "tools" / "mutants_allow.txt"

# module -> (its chapter, the fast pytest targets that exercise it, fastest killers first). pytest runs with -x and
# stops at the first failure; the chapter runs only when pytest did not kill. A target is a file or a file::test node.
# A module is covered by the tests of every module that calls it: litmus.affine is exercised through bounds. The slow
# suites (the random-spec fuzzer, the mixed-format sweep, the autograd fuzzer) stay out where a faster test covers the rule.
TESTS = {
    "limn.ops":         ("nbs/limn/00_ops.ipynb",      ["tests/test_mutation_kills.py::TestOps", "tests/test_dtypes.py", "tests/test_schedule.py",
                                                        "tests/test_tensor_api.py"]),
    "limn.view":        ("nbs/limn/01_view.ipynb",     ["tests/test_mutation_kills.py::TestView", "tests/test_tensor_api.py",
                                                        "tests/test_ir_interpreter.py"]),
    "limn.autograd":    ("nbs/limn/02_autograd.ipynb", ["tests/test_mutation_kills.py::TestAutograd", "tests/test_second_derivatives.py",
                                                        "tests/test_optim.py", "tests/test_autograd_fuzz.py"]),
    "limn.schedule":    ("nbs/limn/05_schedule.ipynb", ["tests/test_mutation_kills.py::TestSchedule", "tests/test_schedule.py",
                                                        "tests/test_ir_interpreter.py", "tests/test_jit.py"]),
    "limn.codegen":     ("nbs/limn/06_codegen.ipynb",  ["tests/test_mutation_kills.py::TestCodegen", "tests/test_ir_interpreter.py", "tests/test_schedule.py", "tests/test_backend_c.py"]),
    "limn.executor":         ("nbs/limn/07_executor.ipynb",      ["tests/test_mutation_kills.py::TestJit", "tests/test_jit.py", "tests/test_capture.py",
                                                        "tests/test_attention.py"]),
    "limn.backend_c":   ("nbs/limn/08_backend_c.ipynb", ["tests/test_mutation_kills.py::TestBackendC", "tests/test_backend_c.py", "tests/test_jit.py"]),
    "litmus.affine":    ("nbs/litmus/00_affine.ipynb", ["tests/test_mutation_kills.py::TestAffine",
                                                        "tests/test_bounds_soundness.py::test_threshold_sits_at_the_bound",
                                                        "tests/test_bounds_soundness.py::test_bounds_are_tight_enough_that_a_tenfold_looser_one_fails",
                                                        "tests/test_bounds_soundness.py::test_the_suite_can_fail"]),
    "litmus.bounds":    ("nbs/litmus/02_bounds.ipynb", ["tests/test_mutation_kills.py::TestBounds", "tests/test_bounds_rules.py",
                                                        "tests/test_bounds_composites.py", "tests/test_bounds_inputs.py", "tests/test_bounds_layernorm.py", *(f"tests/test_bounds_soundness.py::{t}" for t in (
                                                        "test_threshold_sits_at_the_bound", "test_entry_point_contract",
                                                        "test_bounds_are_tight_enough_that_a_tenfold_looser_one_fails",
                                                        "test_scan_bound_grows_with_length_and_a_half_accumulator_breaks_it",
                                                        "test_logsumexp_spellings_share_one_certified_bound",
                                                        "test_no_correct_implementation_exceeds_the_bound"))]),
    "litmus.prove":     ("nbs/litmus/07_prove.ipynb",  ["tests/test_mutation_kills.py::TestProve", "tests/test_prove_edges.py", *(f"tests/test_safety.py::{t}" for t in (
                                                        "test_race_proof_distance_zero_one_two", "test_proofs_sound_by_enumeration",
                                                        "test_mutants_never_accepted_when_enumeration_finds_a_defect")),
                                                        "tests/test_safety.py", "tests/test_hostile_static.py"]),
    "litmus.smt":       ("nbs/litmus/09_smt.ipynb",    ["tests/test_mutation_kills.py::TestSmt", *(f"tests/test_safety.py::{t}" for t in (
                                                        "test_bounded_never_claims_unsat", "test_race_proof_distance_zero_one_two",
                                                        "test_shape_space_is_small_and_witnessed")),
                                                        "tests/test_safety.py", "tests/test_hostile_static.py"]),
    "litmus.simulate":  ("nbs/litmus/08_simulate.ipynb", ["tests/test_mutation_kills.py::TestSimulate", "tests/test_simulate.py"]),   # test_corpus/test_hostile_run: 10+ min each
}

SWAPS = {"+": "-", "-": "+", "*": "/", "/": "*", "//": "/", "%": "//", "<": "<=", "<=": "<", ">": ">=", ">=": ">",
         "==": "!=", "!=": "==", "and": "or", "or": "and", "True": "False", "False": "True", "min": "max", "max": "min",
         "is": "is not", "in": "not in"}


# Only these swaps can break the syntax (`*args`, `for x in`, `is not`); every other swap yields a valid program.
RISKY = {"*", "/", "in", "is"}


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
    def key(self) -> str:
        "Stable across edits elsewhere in the file: the line's text, the swap, and which occurrence of the token (#2, #3)."
        k = self.before[:self.col].count(self.old)
        return f"{self.module}:{self.before.strip()} :: {self.old} -> {self.new}" + (f" #{k + 1}" if k else "")


def module_path(module: str) -> Path: return SOURCE / "src" / (module.replace(".", "/") + ".py")


def module_hash(module: str) -> str: return hashlib.sha256(module_path(module).read_bytes()).hexdigest()[:16]


def snapshot(ref: str) -> str:
    """Point SOURCE at a fresh copy of commit `ref` (`git archive`), so a file another hand is editing cannot leak into a
    run; 'worktree' keeps the live tree. Returns the commit's short hash, or 'worktree'."""
    global SOURCE
    if ref == "worktree": SOURCE = ROOT; return "worktree"
    commit = subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True)
    if commit.returncode: raise SystemExit(f"--ref {ref!r} is not a commit of {ROOT}: {commit.stderr.strip()}")
    SOURCE = Path(tempfile.mkdtemp(prefix="limn-mutants-src-"))
    archive = subprocess.Popen(["git", "archive", ref], cwd=ROOT, stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(SOURCE)], stdin=archive.stdout, check=True)
    if archive.wait(): raise SystemExit(f"git archive {ref} failed")
    return commit.stdout.strip()


def mutated_number(text: str) -> str | None:
    "An int moves by one; a float is scaled by ten (a tolerance ten times looser, a bound ten times tighter)."
    try: value = int(text, 0)
    except ValueError:
        try: value = float(text)
        except ValueError: return None
        return repr(value * 10 if value else 1.0)
    return str(value + 1)


def candidates(module: str, source: str | None = None, lines_like: set[str] | None = None) -> list[Mutant]:
    """Every one-token mutant of `module` (or of its `source` text) that still compiles, skipping docstrings, comments,
    imports and __all__. `lines_like`: only the mutants of lines whose stripped text is in the set (a key names its
    line by that text, so this finds the same keys for those lines without compiling a mutant of every other line)."""
    source = module_path(module).read_text() if source is None else source
    lines = source.splitlines(keepends=True)
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        row, col = tok.start
        if row > len(lines): break
        line = lines[row - 1]
        if lines_like is not None and line.strip() not in lines_like: continue
        if re.match(r"\s*(import|from|__all__|assert)\b", line): continue
        if tok.type == tokenize.NUMBER: new = mutated_number(tok.string)
        elif tok.type in (tokenize.OP, tokenize.NAME): new = SWAPS.get(tok.string)
        else: continue
        if new is None or tok.end[0] != row: continue
        after = line[:col] + new + line[tok.end[1]:]
        if tok.string in RISKY or "f'" in line or 'f"' in line:
            try: compile("".join(lines[:row - 1] + [after] + lines[row:]), str(module_path(module)), "exec")
            except SyntaxError: continue
        found.append(Mutant(module, row, col, tok.string, new, line, after))
    return found


def shares(sizes: dict[str, int], sample: int) -> dict[str, int]:
    """How many mutants each module gets: half of `sample` split evenly (a small module gets a fair share), half in
    proportion to its number of candidates; never more than it has, and what a small module cannot use goes on."""
    total = sum(sizes.values()) or 1
    want = {m: sample / 2 / len(sizes) + sample / 2 * n / total for m, n in sizes.items()}
    out = {m: min(n, max(1, round(want[m]))) for m, n in sizes.items()}
    spare = sample - sum(out.values())
    for m in sorted(sizes, key=lambda m: sizes[m] - out[m], reverse=True):
        extra = max(0, min(spare, sizes[m] - out[m])); out[m] += extra; spare -= extra
    return out


def stratified(pool: list[Mutant], k: int, rng: random.Random) -> list[Mutant]:
    "k mutants, one drawn from each of k runs of consecutive candidates, so the draw spreads over the whole file."
    edges = [round(i * len(pool) / k) for i in range(k + 1)]
    return [pool[rng.randrange(a, b)] for a, b in zip(edges, edges[1:]) if b > a]


def sizes_at(modules: list[str], ref: str) -> dict[str, int]:
    "Candidate counts of the modules as they were at commit `ref` (what --shares-from pins the shares to)."
    out = {}
    for m in modules:
        text = subprocess.run(["git", "show", f"{ref}:src/{m.replace('.', '/')}.py"], cwd=ROOT, capture_output=True, text=True)
        if text.returncode: raise SystemExit(f"--shares-from {ref}: {m} is not in that commit")
        out[m] = len(candidates(m, text.stdout))
    return out


def draw(modules: list[str], sample: int, seed: int, shares_from: str | None = None) -> list[Mutant]:
    """A seeded draw of `sample` mutants, stratified by module (see `shares`) and by position within each module; each
    module has its own generator, seeded by (seed, module), so one module's draw depends on nothing else but its share.
    With `shares_from` the shares come from the modules' sizes at that commit, so another module's edit moves nothing."""
    pools = {m: candidates(m) for m in modules}
    sizes = sizes_at(modules, shares_from) if shares_from else {m: len(p) for m, p in pools.items()}
    return [mu for m, k in shares(sizes, sample).items() for mu in stratified(pools[m], min(k, len(pools[m])), random.Random(f"{seed}:{m}"))]


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
    "A scratch copy of SOURCE (no .git, .venv or site) in which one mutant at a time is applied and tested."
    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="limn-mutants-"))
        shutil.copytree(SOURCE, self.root, symlinks=True, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(".git", ".venv", "docs", "_proc", "build", "test-output",
                                                               "__pycache__", ".pytest_cache"))
        # every mutant's tests share one compiled-kernel cache (keyed by source hash, so a mutated kernel gets its own
        # entry); without it tests/conftest.py would give each mutant's pytest run a fresh, empty one
        cache = os.environ.get("LIMN_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "limn", "c")
        self.env = dict(os.environ, PYTHONPATH=str(self.root / "src"), PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1",
                        LIMN_CACHE_DIR=cache)

    def run(self, command: list[str], limit: float) -> tuple[str, str]:
        """('pass' | 'fail' | 'timeout', what failed) for one command, run in its own process group so a hang is
        killed whole. What failed is pytest's first FAILED/ERROR line, or the chapter's name."""
        proc = subprocess.Popen(command, cwd=self.root, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try: out = proc.communicate(timeout=limit)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9); proc.communicate()
            return "timeout", command[-1]
        if proc.returncode == 0: return "pass", ""
        failed = re.search(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
        return "fail", failed.group(1) if failed else command[-1]

    def commands(self, module: str) -> list[list[str]]:
        chapter, files = TESTS[module]
        return [[str(BIN / "python"), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *files],
                [str(BIN / "nbdev-test"), chapter]]

    def apply(self, m: Mutant, undo: bool = False) -> bool:
        "Swap the line in the module and in its chapter's cell; True when the chapter held the line too."
        old, new = (m.after, m.before) if undo else (m.before, m.after)
        path = self.root / module_path(m.module).relative_to(SOURCE)
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
        if box.run(cmd, 3600)[0] != "pass": raise SystemExit(f"unmutated tests fail for {module}: {' '.join(cmd)}")
    return time.time() - start


def judge(box: Sandbox, m: Mutant, limit: float) -> tuple[str, str, bool]:
    "(verdict, what failed, whether the chapter held the line) for one mutant; the sandbox is restored after."
    in_chapter = box.apply(m)
    verdict, by, spent = "survived", "", 0.0
    try:
        for cmd in box.commands(m.module):
            start = time.time()
            outcome, by = box.run(cmd, max(limit - spent, 10))
            spent += time.time() - start
            if outcome != "pass": verdict = "killed" if outcome == "fail" else "timeout"; break
    finally: box.apply(m, undo=True)
    return verdict, by, in_chapter


def select(args) -> list[Mutant]:
    """The seeded draw over --modules (or with --match every candidate whose key matches the pattern, to re-run named
    survivors), narrowed to the modules named by --only."""
    if args.match: chosen = [m for module in args.modules for m in candidates(module) if re.search(args.match, m.key)]
    else: chosen = draw(args.modules, args.sample, args.seed, args.shares_from)
    return [m for m in chosen if not args.only or m.module in args.only]


def cached(path: str | None) -> dict[tuple[str, str], tuple[str, str, bool]]:
    "Earlier kills from the --cache file: (mutant key, module hash) -> (verdict, what killed it, in chapter)."
    if not path or not Path(path).exists(): return {}
    out = {}
    for raw in Path(path).read_text().splitlines():
        rec = json.loads(raw)
        if rec["verdict"] != "survived": out[rec["key"], rec["hash"]] = (rec["verdict"], rec["by"], rec["in_chapter"])
    return out


def recorded(path: str | None) -> dict[tuple[str, str], tuple[str, str]]:
    "Every verdict in the --cache file, survivors included (the last one of a mutant wins): (key, hash) -> (verdict, by)."
    if not path or not Path(path).exists(): return {}
    return {(r["key"], r["hash"]): (r["verdict"], r["by"]) for r in map(json.loads, Path(path).read_text().splitlines())}


def report_only(mutants: list[Mutant], args) -> tuple[dict, int]:
    """The draw judged from the --cache file alone, running nothing. Each module is judged at the commit (this one, or one
    the cache has verdicts from) whose text of it has the most verdicts, its draw taken from the module as it was there
    (`REFS` names it); a mutant with no verdict is 'not run'."""
    known = recorded(args.cache)
    records = [json.loads(r) for r in Path(args.cache).read_text().splitlines()] if args.cache and Path(args.cache).exists() else []
    hashes = {m: module_hash(m) for m in {mu.module for mu in mutants}}
    out = []
    for module in dict.fromkeys(m.module for m in mutants):
        mine = [m for m in mutants if m.module == module]
        best = (sum((m.key, hashes[module]) in known for m in mine), None, mine, hashes[module])
        for ref in dict.fromkeys(r["ref"] for r in records if r["key"].startswith(module + ":")):
            text = subprocess.run(["git", "show", f"{ref}:src/{module.replace('.', '/')}.py"], cwd=ROOT, capture_output=True, text=True).stdout
            h = hashlib.sha256(text.encode()).hexdigest()[:16]
            if h == hashes[module]: continue
            theirs = stratified(candidates(module, text), len(mine), random.Random(f"{args.seed}:{module}"))
            n = sum((m.key, h) in known for m in theirs)
            if n > best[0]: best = (n, ref, theirs, h)
        _, ref, mine, h = best
        if ref: REFS[module] = ref
        out += [(m, known.get((m.key, h), ("not run", ""))) for m in mine]
    results = dict(out)
    return results, sum(v != "not run" for v, _ in results.values())


REFS: dict[str, str] = {}   # modules --report-only judged at another commit than --ref


def run_all(mutants: list[Mutant], args, ref: str) -> tuple[dict, int]:
    "Judge every mutant (reusing cached kills), in --jobs scratch trees; returns the verdicts and how many were reused."
    hashes = {m: module_hash(m) for m in {mu.module for mu in mutants}}
    known, results = cached(args.cache), {}
    todo = [m for m in mutants if (m.key, hashes[m.module]) not in known]
    for m in mutants:
        if m not in todo: results[m] = known[m.key, hashes[m.module]][:2]
    print(f"{len(mutants)} mutants (seed {args.seed}, ref {ref}); {len(mutants) - len(todo)} kills reused from the cache, "
          f"{len(todo)} to run with {args.jobs} workers", flush=True)
    if not todo: return results, len(mutants)
    boxes = [Sandbox() for _ in range(max(args.jobs, 1))]
    free = list(boxes)

    def one(m: Mutant):
        box = free.pop()
        try: return m, *judge(box, m, limits[m.module])
        finally: free.append(box)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))      # a killed run still removes its scratch trees
    try:
        limits = {m: args.no_baseline or 3 * baseline(boxes[0], m) + 20 for m in sorted({m.module for m in todo})}
        with ThreadPoolExecutor(len(boxes)) as pool:
            for i, (m, verdict, by, in_chapter) in enumerate(pool.map(one, todo), 1):
                results[m] = (verdict, by)
                print(f"[{i}/{len(todo)}] {verdict:8} {m.module}:{m.line} {m.old} -> {m.new}  {by}"
                      + ("" if in_chapter else "  (module only)"), flush=True)
                if args.cache:
                    with open(args.cache, "a") as f:
                        f.write(json.dumps(dict(key=m.key, hash=hashes[m.module], verdict=verdict, by=by,
                                                in_chapter=in_chapter, ref=ref)) + "\n")
    finally:
        for box in boxes: shutil.rmtree(box.root, ignore_errors=True)
    return results, len(mutants) - len(todo)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=300, help="how many mutants to draw over all the modules")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="scratch trees tested at once")
    ap.add_argument("--modules", nargs="*", default=list(TESTS), help="the modules the draw is spread over")
    ap.add_argument("--only", nargs="*", help="run only these modules' part of the draw")
    ap.add_argument("--match", help="instead of a draw, every candidate whose key matches this regular expression")
    ap.add_argument("--ref", default="HEAD", help="the commit to mutate and test ('worktree': the live checkout)")
    ap.add_argument("--cache", help="a JSON-lines file of verdicts: kills of an unchanged module are reused, new ones added")
    ap.add_argument("--out", help="also write the report as markdown to this file")
    ap.add_argument("--list", action="store_true", help="count the candidates per module and run nothing")
    ap.add_argument("--shares-from", help="a commit whose module sizes fix each module's share of the draw (default: the tree's own)")
    ap.add_argument("--no-baseline", type=float, metavar="SECONDS", help="skip the unmutated run (its tests passed at this commit "
                    "already) and give each mutant this time limit")
    ap.add_argument("--report-only", action="store_true", help="judge the draw from the --cache verdicts alone, running nothing")
    args = ap.parse_args(argv)
    unknown = (set(args.modules) | set(args.only or ())) - set(TESTS)
    if unknown: ap.error(f"no test map for {sorted(unknown)}; known modules: {', '.join(TESTS)}")
    began, ref = time.time(), snapshot(args.ref)
    try:
        if args.list:
            for m in args.modules: print(f"{m:18} {len(candidates(m)):5} candidate mutants")
            return 0
        results, reused = report_only(select(args), args) if args.report_only else run_all(select(args), args, ref)
    finally:
        if SOURCE != ROOT: shutil.rmtree(SOURCE, ignore_errors=True)
    text, score = report(results, allowed(), time.time() - began, args, ref, reused)
    print(text)
    if args.out: Path(args.out).write_text(text)
    return 0 if score >= 0.95 else 1


def table(results: dict, allow: dict) -> tuple[list[str], float]:
    """The per-module rows and the overall score: killed / (mutants - allowed). An allowed survivor is equivalent (the
    program computes the same thing) or, where its reason starts with 'slack:', changes only a margin the bound does
    not need; the last column counts the slack ones as survivors, so the reader sees both figures. An allowed mutant that
    timed out is allowed, not killed: an equivalent program can only have run slower (new C text misses the compile
    cache, for one), and a timeout is no evidence that a test saw it."""
    rows, totals = [], [0, 0, 0, 0, 0, 0]
    for module in sorted({m.module for m in results}):
        mine = [(m, v) for m, (v, _) in results.items() if m.module == module]
        allowed_ = [m for m, v in mine if v in ("survived", "timeout") and m.key in allow]   # an equivalent that only ran slow
        slack = sum(allow[m.key].startswith("slack:") for m in allowed_)
        killed = sum(v == "killed" or (v == "timeout" and m.key not in allow) for m, v in mine)
        judged = len(mine) - len(allowed_) - sum(v == "not run" for m, v in mine)
        notrun = sum(v == "not run" for m, v in mine)
        for i, n in enumerate((len(mine), killed, len(allowed_) - slack, slack, judged, notrun)): totals[i] += n
        rows.append(f"| {module}{' @' + REFS[module] if module in REFS else ''} | {len(mine)} | {killed} | {len(allowed_) - slack} | {slack} | {judged - killed} | {notrun} "
                    f"| {killed / max(judged, 1):.0%} | {killed / max(judged + slack, 1):.0%} |")
    n, killed, equivalent, slack, judged, notrun = totals
    score = killed / max(judged, 1)
    rows.append(f"| **all** | {n} | {killed} | {equivalent} | {slack} | {judged - killed} | {notrun} | {score:.1%} "
                f"| {killed / max(judged + slack, 1):.1%} |")
    return rows, score


def report(results: dict, allow: dict, seconds: float, args, ref: str = "worktree", reused: int = 0) -> tuple[str, float]:
    "Markdown: the score per module, each survivor with its line, the allow-listed equivalents met, and what killed."
    rows, score = table(results, allow)
    how = f"`--match {args.match}`" if args.match else f"seed {args.seed}, sample {args.sample}" + (
        f", shares from {args.shares_from}" if args.shares_from else "")
    how += f", only {' '.join(args.only)}" if args.only else ""
    out = [f"# Mutation check ({how}; ref {ref}; {seconds / 60:.1f} min wall"
           + (f"; {reused} verdicts read from {args.cache}" if getattr(args, "report_only", False)
              else f"; {reused} kills reused from {args.cache}" if reused else "") + ")", "",
           "| module | mutants | killed | equivalent (allowed) | slack (allowed) | survived | not run | score | score, slack as survivors |",
           "|---|---|---|---|---|---|---|---|---|", *rows, ""]
    survivors = [m for m, (v, _) in results.items() if v == "survived" and m.key not in allow]
    out += ["## Survivors (each is a missing test, or an equivalent mutant for tools/mutants_allow.txt)", ""]
    out += [f"- `{m.module}:{m.line}`: `{m.before.strip()}` [`{m.old}` -> `{m.new}`]\n  key: `{m.key}`" for m in survivors] or ["none"]
    equivalents = [m for m, (v, _) in results.items() if v == "survived" and m.key in allow]
    out += ["", "## Allowed: equivalent, or slack (tools/mutants_allow.txt)", ""]
    out += [f"- `{m.module}:{m.line}` [`{m.old}` -> `{m.new}`]: {allow[m.key]}" for m in equivalents] or ["none"]
    notrun = [m for m, (v, _) in results.items() if v == "not run"]
    if notrun:
        out += ["", "## Not run (no verdict in the cache for this module text; out of the score)", ""]
        out += [f"- `{m.module}:{m.line}` [`{m.old}` -> `{m.new}`]" for m in notrun]
    out += ["", "## Killed, and by what", ""]
    out += [f"- `{m.module}:{m.line}` [`{m.old}` -> `{m.new}`] {v} by `{by}`" for m, (v, by) in results.items() if v in ("killed", "timeout")]
    return "\n".join(out) + "\n", score


if __name__ == "__main__":
    sys.exit(main())

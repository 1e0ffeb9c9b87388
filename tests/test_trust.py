"""Issue 23, the launch half: litmus cannot be gamed by a kernel file. Code in defaults, keyword-only defaults, decorator
arguments and module names is refused before anything runs; the box gives a hostile kernel no effect (files, processes,
sockets, signals, patching litmus) and no score above 0.10; a trainer survives a hostile batch; a kernel wrong only at
the declared size and one that writes its input are REJECTed with a witness; a search that ran no launch or skipped a
class is UNKNOWN; a completion's own launch cannot shrink the search; `litmus check` works under `ulimit -v`.
Chapters: nbs/litmus/03_kernelfile, 04_sandbox, 12_falsify, 13_check, 16_rewards."""
import os, signal, subprocess, sys, textwrap
from pathlib import Path
import numpy as np
import pytest
from litmus import corpus
from litmus.rewards import litmus_reward, task_of, COUNTEREXAMPLE_CAP, UNMODELLED_CAP

ROOT = Path(__file__).resolve().parents[1]
VADD = corpus.get("vadd").source
TASK = task_of("vadd")

def fenced(source: str) -> str:
    return f"```python\n{source}\n```"

def score(source: str, **task):
    return litmus_reward(fenced(source), **(task or TASK))

# ---- code in the def line or the module is refused before anything runs ----

def _marker_code(marker: Path) -> str:
    return f"open({str(marker)!r}, 'w').write('ran')"

DEFINITION_CODE = {
    "default": lambda m: VADD.replace("BLOCK: tl.constexpr", f"BLOCK: tl.constexpr = len([{_marker_code(m)}]) * 128"),
    "kwonly_default": lambda m: VADD.replace("n, BLOCK: tl.constexpr", f"n, BLOCK: tl.constexpr, *, spare=[{_marker_code(m)}]"),
    "lambda_default": lambda m: VADD.replace("n, BLOCK: tl.constexpr", f"n, BLOCK: tl.constexpr, hook=lambda: {_marker_code(m)}"),
    "decorator_argument": lambda m: VADD.replace("@triton.jit", f"@triton.jit(debug={_marker_code(m)})"),
    "annotation_call": lambda m: VADD.replace("BLOCK: tl.constexpr", f"BLOCK: {_marker_code(m)}"),
    "module_name": lambda m: VADD.replace("@triton.jit", f"SCALE = {_marker_code(m)}\n@triton.jit").replace("x + y,", "x + y + SCALE,"),
}

@pytest.mark.parametrize("case", sorted(DEFINITION_CODE))
def test_code_in_the_def_line_or_module_is_refused_before_anything_runs(tmp_path, case):
    marker = tmp_path / "ran"
    path = tmp_path / "vadd.py"
    path.write_text(DEFINITION_CODE[case](marker))
    from litmus.tritonsource import read_kernel
    for reader in (corpus.load, read_kernel):
        with pytest.raises(corpus.KernelFileError, match=r"line \d+: .*(definition time|reads `SCALE`)"):
            reader(path)
    b = score(path.read_text())
    assert b.score == 0.0 and b.verdict == "UNREADABLE", str(b)
    assert not marker.exists()

# ---- the box: a hostile kernel has no effect and no score ----

def _hostile(what):
    import socket
    try:
        if what == "signal_parent": os.kill(os.getppid(), signal.SIGTERM)
        elif what == "write_outside": open(f"/tmp/litmus-trust-escape-{os.getppid()}", "w").write("x")
        elif what == "socket": socket.create_connection(("127.0.0.1", 9), timeout=1)
        elif what == "spawn": subprocess.run(["sh", "-c", "sleep 60"], check=False)
        elif what == "patch_litmus": corpus.deviation = lambda *a: 0.0
        return {"done": True}
    except OSError as e:
        return {"done": False, "error": f"{type(e).__name__}: {e}"}

@pytest.mark.parametrize("what", ["signal_parent", "write_outside", "socket", "spawn", "patch_litmus"])
def test_the_box_gives_a_hostile_function_no_effect(what):
    from litmus.sandbox import Box
    before = corpus.deviation
    with Box(_hostile) as box:
        answer = box(what)
    assert answer.ok, answer.error
    if what == "patch_litmus":
        assert corpus.deviation is before       # the child's module was patched, not ours
    else:
        assert answer.value["done"] is False, answer.value
    assert not Path(f"/tmp/litmus-trust-escape-{os.getpid()}").exists()
    assert not any("sleep 60" in p.read_text(errors="replace") for p in Path("/proc").glob("[0-9]*/cmdline") if p.exists())

def _discard(text):
    with open(os.devnull, "w") as null:     # what torch and other libraries do on import to silence output
        return null.write(text)

def test_the_box_lets_a_library_write_to_dev_null_and_nowhere_else():
    from litmus.sandbox import Box
    with Box(_discard) as box:
        answer = box("quiet")
    assert answer.ok and answer.value == 5, answer
    with Box(_hostile) as box:
        assert box("write_outside").value["done"] is False

BODY_ATTACKS = {
    "setattr_in_body": VADD.replace("x + y,", "x + y + [setattr][0](tl, 'load', tl.load),"),
    "class_walk": VADD.replace("x + y,", "x + y + n.__class__.__base__,"),
    "open_in_body": VADD.replace("x + y,", "x + y + len(open('/etc/hostname').read()),"),
    "import_in_body": VADD.replace("    mask = offs < n", "    import os\n    mask = offs < n"),
    "generator_frame": VADD.replace("    mask = offs < n", "    g = (v for v in [1])\n    mask = offs < n"),
    "builtin_escape": VADD.replace("x + y,", "x + y + eval('1'),"),
    "builtins_subscript": VADD.replace("x + y,", "x + y + __builtins__['__imp' + 'ort__']('os').getpid(),"),
}

@pytest.mark.parametrize("case", sorted(BODY_ATTACKS))
def test_a_hostile_body_scores_at_most_the_counterexample_cap(case):
    b = score(BODY_ATTACKS[case])
    assert b.score <= COUNTEREXAMPLE_CAP and b.verdict != "ACCEPT", str(b)

def test_the_trainer_survives_a_hostile_batch():
    "A LitmusReward(workers=2) batch with completions that try to kill the trainer: the trainer lives, they score 0."
    imp = "__builtins__['__imp' + 'ort__']('os')"          # a name built at run time: no `__import__` for a walker to see
    hostile_default = VADD.replace("n, BLOCK: tl.constexpr", f"n, BLOCK: tl.constexpr, *, hook={imp}.kill({imp}.getppid(), 15)")
    hostile_body = VADD.replace("x + y,", f"x + y + {imp}.kill({imp}.getppid(), 15),")
    script = textwrap.dedent(f"""
        from litmus.rewards import LitmusReward, task_of
        task = task_of("vadd")
        reward = LitmusReward(workers=2, **task)
        scores = reward(completions=[{fenced(VADD)!r}, {fenced(hostile_default)!r}, {fenced(hostile_body)!r}])
        reward.close()
        print("SCORES", scores)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    scores = eval(out.stdout.split("SCORES", 1)[1])
    assert scores[0] == 1.0 and max(scores[1:]) <= COUNTEREXAMPLE_CAP, scores

# ---- the search has no blind spot at the declared size, in the inputs, or in its own size ----

def test_a_kernel_wrong_only_at_the_declared_size_is_rejected():
    wrong = VADD.replace("x + y,", "tl.where(n == 1000, x + y + 1.0, x + y),")
    b = score(wrong)
    assert b.verdict == "REJECT" and b.gate == "counterexample" and "N=1000" in b.counterexample, str(b)

def test_an_input_clobbering_kernel_is_rejected_with_a_witness():
    clobber = VADD.replace("    tl.store(out_ptr + offs, x + y, mask=mask)",
                           "    tl.store(out_ptr + offs, x + y, mask=mask)\n    tl.store(x_ptr + offs, x * 0.0, mask=mask)")
    b = score(clobber)
    assert b.verdict == "REJECT" and b.score == 0.0 and "x_ptr" in b.counterexample, str(b)

def test_the_search_sees_inputs_after_the_launch(tmp_path):
    "The falsifier itself (not only the prover) reports a written input, with the element and its values."
    path = tmp_path / "vadd.py"
    path.write_text(VADD.replace("    tl.store(out_ptr + offs, x + y, mask=mask)",
                                 "    tl.store(out_ptr + offs, x + y, mask=mask)\n    tl.store(y_ptr + offs, y + 1.0, mask=mask)"))
    from litmus.falsify import TargetedFalsification
    r = TargetedFalsification(path).run()
    assert r.found and r.counterexample.kind == "input_write" and "y_ptr" in r.counterexample.detail, str(r)

def test_a_search_that_runs_no_launch_is_unknown(tmp_path):
    "Every shape class is past what the model runs (2M elements of padding): no launch, so UNKNOWN, never ACCEPT."
    big = VADD.replace('"shape": ["N"]', '"shape": ["N + 2000000"]')
    path = tmp_path / "vadd.py"
    path.write_text(big)
    from litmus.check import check
    r = check(path, quick=True)
    assert r.verdict == "UNKNOWN" and r.falsification.skipped, str(r)
    assert any("could not run the shape/dtype classes" in reason or "ran no launch" in reason for reason in r.reasons), r.reasons
    task = {"spec": TASK["spec"], "domain": TASK["domain"], "dims": None, "launch": None}
    b = score(big, **task)
    assert b.score <= UNMODELLED_CAP and b.verdict != "ACCEPT", str(b)

def test_a_completions_own_launch_cannot_shrink_the_search():
    "Without a task launch: a pad declaration is dropped and a pinned size caps the score; a kernel wrong past N=128 is caught."
    task = {"spec": TASK["spec"], "domain": TASK["domain"], "dims": None, "launch": None}
    wrong_big = VADD.replace("x + y,", "tl.where(offs > 128, x + y + 1.0, x + y),")
    padded = wrong_big.replace('"dims": {"N": 1000},', '"dims": {"N": 100}, "pads": ["N"],')
    assert padded != wrong_big
    b = score(padded, **task)
    assert b.score <= COUNTEREXAMPLE_CAP and b.verdict == "REJECT", str(b)
    pinned = VADD.replace('"shape": ["N"]', '"shape": ["64"]').replace('"value": "N"', '"value": "64"')
    assert pinned != VADD
    b = score(pinned, **task)
    assert b.verdict != "ACCEPT" and b.score <= UNMODELLED_CAP, str(b)

# ---- limits a caller already set are respected ----

def test_litmus_check_accepts_under_a_callers_address_space_limit():
    cmd = f"ulimit -v 4000000 && {Path(sys.executable).parent / 'litmus'} check {corpus.get('vadd').path} --quick"
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0 and "ACCEPT" in out.stdout, (out.returncode, out.stdout[-1500:], out.stderr[-1500:])

# ---- issue 30: the same on Ray (conftest's `ray_node`: a local instance with two CPUs) ----

def _both_backends(sources):
    from litmus.rewards import LitmusReward
    out = []
    for backend in ("local", "ray"):
        reward = LitmusReward(workers=2, backend=backend, **TASK)
        try:
            scores = reward(completions=[fenced(s) for s in sources])
            out.append([(s, b.verdict, b.gate) for s, b in zip(scores, reward.last)])
        finally:
            reward.close()
    return out

def test_a_hostile_batch_on_ray_scores_as_on_the_local_pool(ray_node):
    "The trainer's own process lives, and Ray's actors give the hostile completions the local pool's scores."
    imp = "__builtins__['__imp' + 'ort__']('os')"
    hostile = [VADD, VADD.replace("x + y,", f"x + y + {imp}.kill({imp}.getppid(), 15),"), BODY_ATTACKS["setattr_in_body"]]
    local, ray_ = _both_backends(hostile)
    assert local == ray_, (local, ray_)
    assert ray_[0][0] == 1.0 and max(s for s, _, _ in ray_[1:]) <= COUNTEREXAMPLE_CAP

@pytest.mark.long
def test_every_hostile_body_scores_the_same_on_ray(ray_node):
    local, ray_ = _both_backends([BODY_ATTACKS[c] for c in sorted(BODY_ATTACKS)])
    assert local == ray_ and all(s <= COUNTEREXAMPLE_CAP for s, _, _ in ray_)

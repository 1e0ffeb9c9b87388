"""The check pipeline (chapter 11): the three verdicts and their evidence, hostile kernel files, the schema check on
what the box returns, and the verdict text."""
import json, os, textwrap, time
import numpy as np
import pytest
from litmus import corpus
from litmus.check import check, CheckResult, _validated, MEANING, EXIT_CODES, reference_arg, load_kernel

HEADER = '''import triton
import triton.language as tl


'''
LAUNCH = '''
LITMUS = {
    "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": "x * 2",
    "domain": {"x": [-10.0, 10.0]},
}
'''

def kernel_file(tmp_path, name, body, prelude="", launch=LAUNCH):
    src = HEADER + prelude + f"@triton.jit\ndef {name}(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n" + textwrap.indent(textwrap.dedent(body), "    ") + "\n" + launch
    path = tmp_path / f"{name}.py"
    path.write_text(src)
    return path

GOOD = """
pid = tl.program_id(0)
offs = pid * BLOCK + tl.arange(0, BLOCK)
mask = offs < n
tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)
"""


def test_the_three_verdicts_on_the_corpus():
    accept, reject = check("softmax"), check("softmax_nomaxsub")
    assert (accept.verdict, accept.exit_code, accept.reasons) == ("ACCEPT", 0, [])
    assert accept.certified and accept.falsification.evaluations > 50 and not accept.witness
    assert reject.verdict == "REJECT" and reject.exit_code == 1 and reject.counterexample.kind == "numeric"
    assert reject.counterexample.elements <= 2 and "x_ptr" in reject.witness
    race = check("rowsum_race")
    assert race.verdict == "REJECT" and any(d.kind == "race" for d in race.safety.defects) and "race" in race.witness
    unknown = check("softmax", ref=lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True))
    assert unknown.verdict == "UNKNOWN" and not unknown.certified and any("no certified bound" in r for r in unknown.reasons)
    assert not unknown.falsification.found           # the search still ran, against the labelled tolerance


def test_accept_says_what_it_does_not_mean():
    text = str(check("vadd"))
    assert "ACCEPT" in text and "does not mean the kernel is proved correct" in text
    for verdict in MEANING: assert verdict in EXIT_CODES


def test_a_user_kernel_file(tmp_path):
    good = kernel_file(tmp_path, "double", GOOD)
    assert check(good).verdict == "ACCEPT"
    wrong = kernel_file(tmp_path, "double_wrong", GOOD.replace("* 2,", "* 2.0001,"))
    r = check(wrong)
    assert r.verdict == "REJECT" and r.counterexample.kind == "numeric"
    assert check(good, ref="x * 3").verdict == "REJECT"                    # --ref overrides the file's spec
    assert check(good, domain="x in [-1e30, 1e30]").verdict in ("ACCEPT", "REJECT")


def test_a_wild_store_is_rejected_with_a_witness(tmp_path):
    wild = kernel_file(tmp_path, "wild", GOOD + "tl.store(y_ptr + 100000 + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)\n")
    r = check(wild)
    assert r.verdict == "REJECT" and "out_of_bounds" in r.witness


def test_top_level_code_never_runs_in_the_verifier(tmp_path):
    marker = tmp_path / "ran"
    hostile = kernel_file(tmp_path, "hostile", GOOD, prelude=f"import sys\nopen({str(marker)!r}, 'w').write('x')\nsys.exit(0)\n\n")
    pid = os.getpid()
    k = load_kernel(hostile)
    from litmus.safety import GPUSafetyCheck
    GPUSafetyCheck(k).run()
    assert not marker.exists()                        # loading and the static check parse; nothing ran
    r = check(hostile)
    assert os.getpid() == pid and r.verdict in EXIT_CODES and isinstance(r.exit_code, int)


def test_a_kernel_that_never_ends_gets_a_verdict_in_time(tmp_path):
    spin = kernel_file(tmp_path, "spin", GOOD + "while pid >= 0:\n    pid = pid + 0\n")
    start = time.monotonic()
    r = check(spin, timeout=4.0)
    assert time.monotonic() - start < 30
    assert r.verdict == "UNKNOWN" and r.reasons


def test_a_crashing_kernel_gets_a_verdict(tmp_path):
    crash = kernel_file(tmp_path, "crash", GOOD, prelude="import ctypes\n\n")
    crash.write_text(crash.read_text().replace("tl.store(y_ptr", "ctypes.string_at(0)\n    tl.store(y_ptr"))
    with pytest.raises(corpus.KernelFileError, match="line 13: .*ctypes"):    # a module the kernel reads: refused before it runs
        check(crash, timeout=10.0)
    crash.write_text(crash.read_text().replace("ctypes.string_at(0)", "[][1]").replace("import ctypes", ""))
    r = check(crash, timeout=10.0)                      # a kernel that fails inside the box: a verdict, never ACCEPT
    assert r.verdict in ("UNKNOWN", "REJECT") and r.verdict != "ACCEPT" and r.reasons


def test_what_the_box_returns_is_checked():
    good = {"kernel": "k", "counterexample": None, "evaluations": 3, "configs": 1, "worst_ratio": 0.5, "worst_case": "",
            "tolerance_kind": "certified", "failure": "", "notes": [], "seconds": 0.1}
    assert _validated(good).evaluations == 3
    with pytest.raises((TypeError, ValueError, KeyError)): _validated({**good, "evaluations": "3"})
    with pytest.raises((TypeError, ValueError, KeyError)): _validated({"kernel": "k"})
    forged = {**good, "counterexample": {"kind": "numeric", "kernel": "k", "config": "c", "dims": {}, "dtype": "float32",
              "generator": "g", "inputs": {}, "background": {}, "elements": 1, "error": 0.1, "threshold": 0.5,
              "tolerance_kind": "certified", "bound": "", "element": 0, "observed": 0.0, "expected": 0.0, "detail": ""}}
    with pytest.raises(ValueError): _validated(forged)        # a numeric counterexample under its threshold is no evidence
    with pytest.raises(ValueError): _validated({**forged, "counterexample": {**forged["counterexample"], "kind": "vibes"}})


def test_the_report_is_json_data():
    for name in ("softmax_nomaxsub", "sum_race"):
        d = check(name).as_dict()
        text = json.dumps(d, allow_nan=False)             # non-finite numbers are strings, so strict JSON holds
        assert json.loads(text)["verdict"] == "REJECT" and d["exit_code"] == 1 and d["witness"]


def test_bad_arguments_are_errors_naming_the_problem(tmp_path):
    with pytest.raises(TypeError, match="kernel must be"): check(3.5)
    with pytest.raises(ValueError, match="no corpus kernel"): check("no_such_kernel")
    with pytest.raises(ValueError, match="does not exist"): reference_arg(str(tmp_path / "missing.py"))
    with pytest.raises(ValueError, match="not a valid expression"): check("softmax", ref="softmax(x")
    with pytest.raises(ValueError): check("softmax", domain="x in [1, 0]")
    with pytest.raises(corpus.KernelFileError): check(str(tmp_path / "nope.py"))


PERSISTENT = '''import triton
import triton.language as tl


@triton.jit
def persistent_vadd(x_ptr, y_ptr, out_ptr, n, NUM_SMS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for tile in range(pid, tl.cdiv(n, BLOCK), NUM_SMS):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=MASK)


LITMUS = {
    "dims": {"N": 1000, "NUM_SMS": 64},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "NUM_SMS", "kind": "constexpr", "value": "NUM_SMS"},
        {"name": "BLOCK", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["GRID"],
    "spec": "x + y",
    "domain": {"x_ptr": [-1000.0, 1000.0], "y_ptr": [-1000.0, 1000.0]},
}
'''


def test_a_literal_grid_tied_to_a_dim_holds_that_dim(tmp_path):
    """A persistent kernel launched on a literal grid of 64 programs with NUM_SMS declared 64 is correct as shipped; the
    search and the proof shrank NUM_SMS under the fixed grid and REJECTed it for a race the kernel never has. The dim
    is held (UNKNOWN, naming it), and a real bug is still REJECTed at the held value."""
    correct = tmp_path / "persistent_vadd.py"
    correct.write_text(PERSISTENT.replace("MASK", "mask").replace("GRID", "64"))
    r = check(correct, quick=True)
    assert r.verdict == "UNKNOWN" and any("NUM_SMS=64 held" in reason for reason in r.reasons), (r.verdict, r.reasons)
    buggy = tmp_path / "persistent_vadd_nomask.py"
    buggy.write_text(PERSISTENT.replace("MASK", "offs < n + 1").replace("GRID", "64"))
    r = check(buggy, quick=True)
    assert r.verdict == "REJECT" and "out_of_bounds" in r.witness, (r.verdict, r.witness)
    named = tmp_path / "persistent_vadd_named.py"      # the grid written as the dim: nothing is held, every NUM_SMS is searched
    named.write_text(PERSISTENT.replace("MASK", "mask").replace("GRID", "NUM_SMS"))
    r = check(named, quick=True)
    assert r.verdict != "REJECT" and not any("held" in reason for reason in r.reasons), (r.verdict, r.reasons)

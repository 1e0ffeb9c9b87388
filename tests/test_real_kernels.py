"""The real-kernel suite (tests/real_kernels/, issues #26 and #27): litmus on kernels from Liger-Kernel, FlagGems and
tutorial-style files, each correct kernel with a planted-bug sibling.

Three things are held here.
- Soundness, hard: no ACCEPT of a buggy kernel, no REJECT of a correct one, every REJECT with a witness.
- No regression: `EXPECTED` records the verdict litmus reached on each file; a definite verdict (ACCEPT/REJECT) must
  stay, an UNKNOWN may only become the sound definite verdict, a REFUSED (the loader refuses the file) may only move up.
  Update the table when a verdict improves (`python tests/real_kernels/report.py` prints them all).
- The labels themselves, against Triton's interpreter (tests/real_kernels/oracle.py): each correct kernel matches its
  float64 reference without touching memory outside its tensors, each planted bug shows on its answer key.

The default run is a representative short form (a few seconds); the whole suite is `@pytest.mark.long`."""
import ast, json, os, subprocess, sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "real_kernels"
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import report  # noqa: E402
import plant_bugs  # noqa: E402

# What litmus reaches on each file today (quick=True). Update as verdicts improve; never to hide a regression.
EXPECTED = {
    "fg_addmm": "ACCEPT", "fg_addmm_stride": "REJECT",
    "fg_argmax": "ACCEPT", "fg_argmax_zeroinit": "REJECT",
    "fg_dot": "ACCEPT", "fg_dot_mask": "REJECT",
    "fg_index_select": "UNKNOWN", "fg_index_select_stride": "REJECT",
    "fg_l2norm": "ACCEPT", "fg_l2norm_stride": "REJECT",
    "fg_mean_dim": "ACCEPT", "fg_mean_dim_other1": "REJECT",
    "fg_softmax": "UNKNOWN", "fg_softmax_zeroinit": "REJECT",
    "fg_transpose": "ACCEPT", "fg_transpose_mask": "REJECT",
    "fg_vdot": "ACCEPT", "fg_vdot_race": "REJECT",
    "liger_cross_entropy": "UNKNOWN", "liger_cross_entropy_zeroinit": "UNKNOWN",
    "liger_dyt": "ACCEPT", "liger_dyt_mask": "REJECT",
    "liger_dyt_autotuned": "ACCEPT", "liger_dyt_autotuned_mask": "REJECT",
    "liger_geglu": "ACCEPT", "liger_geglu_nostoremask": "REJECT",
    "liger_layernorm": "ACCEPT", "liger_layernorm_varmask": "REJECT",
    "liger_rmsnorm": "ACCEPT", "liger_rmsnorm_blockdiv": "REJECT",
    "liger_softmax": "ACCEPT", "liger_softmax_nomaxsub": "REJECT",
    "liger_swiglu": "ACCEPT", "liger_swiglu_mask": "REJECT",
    "tut_cross_entropy": "UNKNOWN", "tut_cross_entropy_nomaxsub": "REJECT",
    "tut_cumsum": "ACCEPT", "tut_cumsum_mask": "REJECT",
    "tut_l2normalize_fp16": "ACCEPT", "tut_l2normalize_fp16_fp16acc": "REJECT",
    "tut_logsumexp_exp2": "ACCEPT", "tut_logsumexp_exp2_nomaxsub": "REJECT",
    "tut_stencil": "ACCEPT", "tut_stencil_leftmask": "REJECT",
    "tut_layernorm": "ACCEPT", "tut_layernorm_varmask": "REJECT",
    "tut_matmul_leaky": "ACCEPT", "tut_matmul_leaky_fp16acc": "REJECT",
    "tut_online_softmax": "ACCEPT", "tut_online_softmax_zeroinit": "REJECT",
    "tut_rmsnorm": "ACCEPT", "tut_rmsnorm_stride": "REJECT",
    "tut_rowmean_fp16": "ACCEPT", "tut_rowmean_fp16_fp16acc": "REJECT",
    "tut_softmax": "ACCEPT", "tut_softmax_nomaxsub": "REJECT",
    "tut_splitk_matmul": "ACCEPT", "tut_splitk_matmul_race": "REJECT",
    "tut_vadd": "ACCEPT", "tut_vadd_nomask": "REJECT",
}

# Known false verdicts of today's litmus, each a strict xfail: when litmus is fixed the test XPASSes and fails, and
# the entry moves to EXPECTED with its new verdict.
KNOWN_FALSE = {}

# The labels Triton's interpreter cannot confirm, and why: it cannot run the file at all (compiled Triton can).
_DTYPE_VALUE = ("the interpreter passes a dtype argument of a jit helper as a tl.dtype, not a tl.constexpr, so "
                "get_dtype_min's `dtype.value` fails (compiled Triton wraps it in constexpr)")
INTERPRETER_DIVERGES = {"fg_argmax": _DTYPE_VALUE, "fg_argmax_zeroinit": _DTYPE_VALUE}

# Verdicts reached within the prover's wall-clock budget on a loaded machine: an UNKNOWN that says the budget ran out
# is not counted as a regression for these (it says nothing about the kernel).
BUDGET_BOUND = {"tut_matmul_leaky", "tut_matmul_leaky_fp16acc", "fg_addmm", "fg_addmm_stride"}

SHORT = ["liger_softmax", "liger_softmax_nomaxsub", "liger_swiglu", "liger_geglu", "fg_vdot_race", "fg_dot_mask",
         "fg_mean_dim", "fg_index_select"]
SHORT_ORACLE = ["tut_vadd", "tut_vadd_nomask"]
RANK = {"REFUSED": 0, "UNKNOWN": 1, "ACCEPT": 2, "REJECT": 2}


def _param(case):
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_FALSE[case])] if case in KNOWN_FALSE else []
    return pytest.param(case, marks=marks, id=case)


def _hold(case):
    row = report.run_case(case)
    assert not report.is_false(row), f"{case}: {report.is_false(row)}: {row['reasons']}\n{row['witness']}"
    want, got = EXPECTED[case], row["verdict"]
    if case in BUDGET_BOUND and got == "UNKNOWN" and any("time budget" in r for r in row["reasons"]):
        pytest.skip(f"{case}: the prover's time budget ran out on this machine: {row['reasons']}")
    if RANK[want] == 2:
        assert got == want, f"{case}: litmus said {got}, it said {want} before (a regression): {row['reasons']}"
    else:
        assert RANK[got] >= RANK[want], f"{case}: litmus said {got}, it said {want} before (a regression): {row['reasons']}"


def test_every_case_has_an_expected_verdict_and_a_label():
    cases = report.cases()
    assert sorted(cases) == sorted(EXPECTED), set(cases) ^ set(EXPECTED)
    labels = {c: report.label(c) for c in cases}
    for case, lab in labels.items():
        assert lab == (plant_bugs.BUGS[case][1] if case in plant_bugs.BUGS else "correct"), (case, lab)
    assert {c for c, lab in labels.items() if lab != "correct"} == set(plant_bugs.BUGS)
    assert set(KNOWN_FALSE) <= set(EXPECTED) and set(SHORT) <= set(EXPECTED)


def test_each_buggy_file_is_its_correct_sibling_with_one_edit():
    for case in plant_bugs.BUGS:
        assert plant_bugs.target(case).read_text() == plant_bugs.planted(case), f"{case} drifted; rerun plant_bugs.py"
        correct = report.kernel_file(plant_bugs.BUGS[case][0]).read_text().split("\nLITMUS = {")[0]
        buggy = plant_bugs.target(case).read_text().split("\nLITMUS = {")[0]
        changed = [(a, b) for a, b in zip(correct.splitlines(), buggy.splitlines()) if a != b]
        assert len(correct.splitlines()) == len(buggy.splitlines()) and len(changed) == 2, (case, changed)  # docstring + edit


def test_every_file_is_listed_in_the_readme_and_carries_its_upstream():
    text = (HERE / "README.md").read_text()
    for case in report.cases():
        if case in plant_bugs.BUGS:
            continue
        assert f"| {case} |" in text or f"`{case}`" in text, f"{case} is not described in README.md"
        doc = ast.get_docstring(ast.parse(report.kernel_file(case).read_text()))
        assert ("Liger-Kernel 0.8.5" in doc or "FlagGems 5.0.2" in doc) if not case.startswith("tut_") else "tutorial" in doc


@pytest.mark.parametrize("case", [_param(c) for c in SHORT])
def test_soundness_and_no_regression_short(case):
    _hold(case)


@pytest.mark.long
@pytest.mark.parametrize("case", [_param(c) for c in sorted(EXPECTED) if c not in SHORT])
def test_soundness_and_no_regression(case):
    _hold(case)


def _oracle(cases):
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(HERE / "oracle.py"), *cases], capture_output=True, text=True, env=env,
                         timeout=1800, cwd=ROOT)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert [r["case"] for r in rows] == list(cases), out.stderr[-2000:]
    return rows


def _confirm(rows):
    wrong = [r for r in rows if not r["confirmed"] and r["case"] not in INTERPRETER_DIVERGES]
    assert not wrong, json.dumps(wrong, default=str)[:3000]
    now_run = [r["case"] for r in rows if r["confirmed"] and r["case"] in INTERPRETER_DIVERGES]
    assert not now_run, f"the interpreter now confirms {now_run}: drop them from INTERPRETER_DIVERGES"


def test_labels_hold_in_triton_interpreter_short():
    pytest.importorskip("triton")
    pytest.importorskip("torch")
    _confirm(_oracle(SHORT_ORACLE))


@pytest.mark.long
def test_labels_hold_in_triton_interpreter():
    pytest.importorskip("triton")
    pytest.importorskip("torch")
    _confirm(_oracle([c for c in report.cases() if c not in SHORT_ORACLE]))

"""The corpus: the parse-only loader and its errors, launches and their limits, inputs, the boxed reference, and (through
litmus.simulate) the answer keys under the model and the interpreter and conditions A and B."""
import dataclasses, re
from pathlib import Path

import numpy as np
import pytest

from litmus import corpus, simulate
from litmus.corpus import FAMILIES, KernelFileError, evaluate, get, kernels, load
from litmus.simulate import triton_available

needs_triton = pytest.mark.skipif(not triton_available(), reason="triton is not installed (pip install triton==3.9.0)")


def test_the_corpus_shape():
    ks = kernels()
    assert len(ks) >= 25 and sum(k.buggy for k in ks) >= 16 and {k.family for k in ks if k.buggy} == set(FAMILIES)
    assert len(corpus.names()) == len(ks) == len(set(corpus.names()))
    assert get("softmax_nomaxsub").family == "no_max_subtract" and get("softmax").family is None
    for k in ks:
        assert "@triton.jit" in k.source and k.path.parent == corpus.KERNEL_DIR
        launch = corpus.resolve(k)
        assert all(t.span > 0 for t in launch.tensors) and all(g >= 1 for g in launch.grid)
        if k.buggy:
            assert k.answer_key["observable"] in ("numeric", "oob_write", "divergent_barrier") and k.why


def test_get_names_the_known_kernels():
    with pytest.raises(ValueError, match="known kernels are .*softmax_nomaxsub"):
        get("no_such_kernel")


GOOD = (corpus.KERNEL_DIR / "vadd.py").read_text()


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace("def vadd(", "def vadd(("), "does not parse \\(line"),
    (lambda s: s.replace("@triton.jit\n", ""), "no @triton.jit function"),
    (lambda s: s.replace("LITMUS = {", "META = {"), "missing the LITMUS"),
    (lambda s: s.replace('"grid": ["cdiv(N, BLOCK)"],', '"grid": "cdiv(N, BLOCK)",'), "grid"),
    (lambda s: s.replace('"grid": ["cdiv(N, BLOCK)"],', ""), r"missing \['grid'\]"),
    (lambda s: s.replace('"dims": {"N": 1000},', ""), r"missing \['dims'\]"),
    (lambda s: s.replace('"label": "correct"', '"label": "typo"'), "label"),
    (lambda s: s.replace('"label": "correct"', '"label": "race"'), "answer_key"),
    (lambda s: s.replace('"value": "128"', '"value": BLOCK_SIZE'), "not a plain literal"),
    (lambda s: s.replace('{"name": "n", "kind": "scalar", "value": "N"},', ""), "do not match the kernel's parameters"),
    (lambda s: s.replace('{"name": "n", "kind": "scalar", "value": "N"}', '{"name": "n", "kind": "scalar"}'), "missing its 'value'"),
    (lambda s: s.replace('"dtype": "float32", "shape": ["N"], "role": "out"', '"dtype": "float32", "shape": ["N"]'), r"missing \['role'\]"),
    (lambda s: s.replace('"role": "out"', '"role": "output"'), "role"),
    (lambda s: s.replace('"dtype": "float32", "shape": ["N"], "role": "out"', '"dtype": "fp32", "shape": ["N"], "role": "out"'), "dtype 'fp32'"),
    (lambda s: s.replace("def reference(x, y):", "def ref(x, y):"), "def reference"),
    (lambda s: s.replace("def vadd(", "def add(") + "\n@triton.jit\ndef other(x):\n    pass\n", "none is named"),
    (lambda s: s + "\n\ndef vadd(x_ptr, y_ptr, out_ptr, n, BLOCK):\n    pass\n", "'vadd' is bound again by a second def"),
    (lambda s: s.replace("@triton.jit\n", "@functools.lru_cache\n@triton.jit\n"), "functools.lru_cache"),
    (lambda s: s + "\ndef f():\n    global vadd\n    vadd = None\n", "`global vadd` lets a function rebind"),
    (lambda s: s + "\ntl = None\n", "'tl' is bound again"),
    (lambda s: s + "\nLITMUS.update(label='race')\n", "LITMUS is used after its literal"),
    (lambda s: s + "\nfrom os import *\n", "import \\*"),
    (lambda s: s.replace('"dims": {"N": 1000}', '"dims": {"N": "1000"}'), "non-negative integers"),
    (lambda s: s.replace('"grid": ["cdiv(N, BLOCK)"]', '"grid": ["0 - N"]'), "negative"),
    (lambda s: s.replace('"domain": {', '"domain": {"z": [1e999, 0], '), "domain"),
    (lambda s: s.replace('LITMUS = {', 'LITMUS = ' + '[' * 200 + ']' * 200 + ' or {'), "line [0-9]+: code nested more than"),
])
def test_loader_errors_name_the_file_and_what_is_missing(tmp_path, edit, message):
    p = tmp_path / "vadd.py"
    p.write_text(edit(GOOD))
    with pytest.raises(KernelFileError, match=message) as e:
        load(p)
    assert str(e.value).startswith(f"kernel file {p}: ")


def test_the_loader_reads_bytes_not_code(tmp_path):
    "A byte-order mark is fine; bytes that are not UTF-8, a file too large, and deep nesting are KernelFileErrors."
    p = tmp_path / "vadd.py"
    marker = tmp_path / "ran"
    p.write_bytes(b"\xef\xbb\xbf" + f"open({str(marker)!r}, 'w').write('x')\nimport sys\nsys.exit(0)\n".encode() + GOOD.encode())
    assert load(p).name == "vadd" and not marker.exists()
    for data, message in [(GOOD.encode() + b"\n# \xff\n", "not UTF-8"), (b"x = 1\n" * 200_000, "bytes, more than the"),
                          (b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n", "does not parse|nested more than"),
                          (GOOD.encode().replace(b"import numpy", b"import\x00numpy"), "does not parse|nested more than")]:
        p.write_bytes(data)
        with pytest.raises(KernelFileError, match=message):
            load(p)


def test_limits_are_checked_before_anything_is_allocated():
    with pytest.raises(corpus.LaunchError, match="programs; the limit"):
        corpus.resolve(get("vadd"), {"N": 10 ** 12})
    with pytest.raises(corpus.LaunchError, match="non-negative"):
        corpus.resolve(get("vadd"), {"N": -1})
    with pytest.raises(corpus.LaunchError, match="elements; the limit"):
        corpus.resolve(get("softmax"), {"M": 1, "N": 1 << 28})


def test_the_boxed_reference_agrees_with_the_method_and_refuses_garbage(tmp_path):
    k = get("softmax")
    x = corpus.make_inputs(k, {"M": 2, "N": 7}, {"x_ptr": {"dist": "normal"}})
    via_cases = corpus.references([(k, {"M": 2, "N": 7}, x)])[0]["y_ptr"]
    assert np.array_equal(via_cases, k.reference(x["x_ptr"])) and np.allclose(via_cases.sum(axis=1), 1)
    p = tmp_path / "vadd.py"
    p.write_text(GOOD.replace("    return x + y", "    return 'not an array'"))
    with pytest.raises(ValueError, match="not a float64 array|could not convert"):
        corpus.reference_outputs(load(p), {"x_ptr": np.ones(4), "y_ptr": np.ones(4)}, {"N": 4})


def test_the_reference_runs_without_the_module_constants_that_need_triton(tmp_path):
    "A module-level `LOG2E = tl.constexpr(...)` serves the kernel; the reference's box (which has no Triton) skips it."
    p = tmp_path / "vadd.py"
    p.write_text(GOOD.replace("import triton.language as tl\n", "import triton.language as tl\nLOG2E = tl.constexpr(1.4426950408889634)\n", 1))
    assert "LOG2E = tl.constexpr" in p.read_text()
    out = corpus.reference_outputs(load(p), {"x_ptr": np.ones(4), "y_ptr": np.full(4, 2.0)}, {"N": 4})
    assert np.array_equal(list(out.values())[0], np.full(4, 3.0))


def test_a_declared_accumulator_never_loosens_the_tolerance(tmp_path):
    "LITMUS['accumulate'] is the judged file's own claim: a narrower accumulator than the output must not buy slack."
    p = tmp_path / "vadd.py"
    p.write_text(GOOD.replace('"reduce": "1"', '"reduce": "N", "accumulate": "float16"'))
    q = tmp_path / "plain" / "vadd.py"; q.parent.mkdir()
    q.write_text(GOOD.replace('"reduce": "1"', '"reduce": "N"'))
    assert corpus.tolerance(load(p)) == corpus.tolerance(load(q)) == 16 * (1000 + 4) * 2.0 ** -24
    q.write_text(GOOD.replace('"reduce": "1"', '"reduce": "N", "accumulate": "float64"'))
    assert corpus.tolerance(load(q)) < corpus.tolerance(load(p))


def test_launch_errors_name_the_file(tmp_path):
    p = tmp_path / "vadd.py"
    p.write_text(GOOD.replace('"grid": ["cdiv(N, BLOCK)"]', '"grid": ["cdiv(N, BLK)"]'))
    with pytest.raises(KernelFileError, match=r"kernel file .*vadd.py: launch info: .*unknown name 'BLK'"):
        load(p)
    with pytest.raises(ValueError, match="has no dims"):
        corpus.resolve(get("vadd"), {"M": 3})


def test_evaluate():
    env = {"N": 1000, "BLOCK": 128}
    assert evaluate("cdiv(N, BLOCK) * BLOCK - N", env) == 24 and evaluate("max(min(N, 7), 3) % 4", env) == 3
    with pytest.raises(ValueError, match="allowed are"):
        evaluate("N.bit_length()", env)


def test_answer_keys_in_the_model():
    cases = simulate.answer_key_cases()
    assert len(cases) == sum(k.buggy for k in kernels())
    verdicts = simulate.check_many([(k, d, x) for k, _, d, x in cases] + [(s, d, x) for _, s, d, x in cases], "model")
    for (k, s, d, x), vb, vs in zip(cases, verdicts[:len(cases)], verdicts[len(cases):]):
        assert simulate.exposed(k, vb), vb
        if k.answer_key["observable"] == "numeric":
            assert vb.deviation > 1
        assert not vs.fails, vs


@needs_triton
def test_answer_keys_in_the_interpreter():
    "Every buggy kernel the interpreter can expose (not the lost-update races: programs run in order there)."
    cases = [c for c in simulate.answer_key_cases() if not (c[0].label == "race" and c[0].answer_key["observable"] == "numeric")]
    assert len(cases) >= 14
    verdicts = simulate.check_many([(k, d, x) for k, _, d, x in cases] + [(s, d, x) for _, s, d, x in cases], "interpreter")
    for (k, s, d, x), vb, vs in zip(cases, verdicts[:len(cases)], verdicts[len(cases):]):
        assert vb.backend == simulate.backend_for(k)[0] and simulate.exposed(k, vb), vb
        assert not vs.fails, vs


@pytest.fixture(scope="module")
def condition_a_in_the_model():
    "Condition A under the model: the same seeded run for both tests below that read it, so it runs once."
    return simulate.condition_a()


def test_conditions_a_and_b(condition_a_in_the_model):
    a, b = condition_a_in_the_model, simulate.condition_b()
    flagged = lambda outs, buggy: sum(o.flagged for o in outs if (o.label != "correct") == buggy)
    n_bugs, n_correct = sum(k.buggy for k in kernels()), sum(not k.buggy for k in kernels())
    assert flagged(a, False) == 0 and flagged(b, False) == 0, "no false positives on the correct kernels"
    assert n_bugs - flagged(a, True) >= 0.75 * n_bugs, "the standard test lets most planted bugs through"
    assert flagged(b, True) > flagged(a, True), "the fuzzing baseline catches more"
    by_name = {o.kernel: o for o in a}
    for name in ("softmax_nomaxsub", "rowmax_zeroinit", "softmax_stride", "vadd_nomask", "softmax_barrier"):
        assert not by_name[name].flagged, name
    assert {o.kernel for o in b if o.flagged} >= {o.kernel for o in a if o.flagged}
    table = simulate.detection_table({"A": a, "B": b})
    assert re.search(rf"false positives \(correct\)\s+0/{n_correct}\s+0/{n_correct}", table), table


def test_inputs_are_rounded_to_the_tensor_dtype_and_seeded():
    k = get("softmax")
    x1, x2 = corpus.make_inputs(k, {"M": 2, "N": 5}, seed=4), corpus.make_inputs(k, {"M": 2, "N": 5}, seed=4)
    assert (x1["x_ptr"] == x2["x_ptr"]).all() and (x1["x_ptr"].astype("float32") == x1["x_ptr"]).all()
    with pytest.raises(ValueError, match="not inputs of softmax"):
        corpus.make_inputs(k, None, {"w_ptr": {"dist": "normal"}})
    with pytest.raises(ValueError, match="expected 'uniform', 'normal', 'const' or 'integers'"):
        corpus.make_inputs(k, None, {"x_ptr": {"dist": "cauchy"}})


@needs_triton
def test_every_kernel_passes_tritons_front_end():
    "The corpus is real Triton: each kernel lowers to TTIR through triton's own front end (no GPU needed)."
    from litmus.tritonsource import ttir
    for k in kernels():
        assert f"tt.func public @{k.fn_name}" in ttir(k), k.name


@needs_triton
@pytest.mark.parametrize("trials", [1, pytest.param(5, marks=pytest.mark.long)])
def test_conditions_under_the_interpreter_differ_from_the_model_only_on_races(trials, condition_a_in_the_model):
    """Condition B's trials are a seeded prefix (trial t of a kernel is the same draw for any count). Over all five, the
    model and the interpreter disagree on exactly the (kernel, trial) pairs of the two lost-update races, rowsum_race and
    sum_race, on every trial from the first, and on nothing else; so `make test` runs one trial, `make test-long` five."""
    runs = [(condition_a_in_the_model, simulate.condition_a(backend="interpreter")),
            (simulate.condition_b(trials=trials), simulate.condition_b(trials=trials, backend="interpreter"))]
    for model, interp in runs:
        differ = {m.kernel for m, i in zip(model, interp) if m.flagged != i.flagged}
        assert differ and all(get(n).label == "race" and get(n).answer_key["observable"] == "numeric" for n in differ), differ
        assert not any(i.flagged for i in interp if i.label == "correct")


def test_a_users_file_needs_no_label_spec_or_reference(tmp_path):
    "litmus check FILE --ref REF: the launch is all a user's file must state; a corpus file must be labelled."
    p = tmp_path / "vadd.py"
    p.write_text(GOOD.replace('"label": "correct",', "").replace('"spec": "x + y",', "").replace("def reference(x, y):", "def helper(x, y):"))
    k = load(p)
    assert k.label is None and not k.buggy and k.family is None and not k.has_reference
    with pytest.raises(ValueError, match="has no `def reference"):
        corpus.reference_outputs(k, {"x_ptr": np.ones(4), "y_ptr": np.ones(4)})


def test_assumptions_bound_every_generated_size(tmp_path):
    "A kernel whose launcher guarantees N % BLOCK == 0: condition A's and B's sizes, and every resolved launch, obey it."
    text = (corpus.KERNEL_DIR / "vadd.py").read_text().replace('"dims": {"N": 1000}', '"dims": {"N": 992}')
    text = text.replace('"grid":', '"assume": ["N % 32 == 0", "N >= 64"],\n    "grid":', 1)
    (tmp_path / "vadd.py").write_text(text)
    k = corpus.load(tmp_path / "vadd.py")
    assert k.assume == ("N % 32 == 0", "N >= 64") and corpus.violated(k, {"N": 96}) == []
    rng = np.random.default_rng(0)
    for _ in range(20):
        dims = corpus.fuzz_dims(k, rng)
        assert dims["N"] % 32 == 0 and dims["N"] >= 64, dims
    assert not corpus.violated(k, corpus.standard_dims(k))
    with pytest.raises(corpus.AssumptionError, match="N >= 64"):
        corpus.resolve(k, {"N": 32})


def test_boolean_and_string_constexprs_reach_the_launch(tmp_path):
    k = corpus.get("vadd")
    flag = dataclasses.replace(k, args=[{**a, "value": True} if a["name"] == "BLOCK" else a for a in k.args])
    assert corpus.resolve(flag).values["BLOCK"] is True and corpus.resolve(flag).env["BLOCK"] == 1
    word = dataclasses.replace(k, args=[{**a, "value": "'gelu'"} if a["name"] == "BLOCK" else a for a in k.args])
    env, values = corpus._environment(word, word.dims)
    assert values["BLOCK"] == "gelu" and "BLOCK" not in env        # a string is a value, never a size
    with pytest.raises(ValueError, match="unknown name 'BLOCK'"):
        corpus.resolve(word)                                           # so a grid that divides by it is refused

"""Soundness of ToleranceBound on random specs (claim C2), beyond the hand-picked fragments.

A seeded generator writes random expressions from the DSL (nested + - * / max min and every function of one
argument, over three inputs and constants), optionally wrapped in a row sum, mean, max, softmax, logsumexp or cumsum, picks a
domain, a row length, and an input format among float32, float16 and bfloat16 with its own or a float32
accumulator, and sometimes an output format of its own. Every certified bound is then held against the adversarial search under four reduction orders.
Whatever cannot be certified must say why. A few hundred specs, a few seconds.
"""
import random
import numpy as np

from litmus.bounds import ToleranceBound, measure

UNARY = ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "abs", "neg"]
DOMAINS = ["x in [-3, 3]; y in [0.5, 2]; w in [-1, 1]", "x in [0.1, 10]; y in [1, 5]; w in [-20, 20]",
           "x in [-100, 100]; y in [-1, 1]; w in [1e-3, 1]"]
DTYPES = [("float32", None, None), ("float16", "float32", None), ("float16", None, None), ("bfloat16", "float32", None), ("bfloat16", None, None),
          ("float16", "float32", "float32"), ("float32", None, "float16"), ("bfloat16", "float32", "float32")]   # (input, accumulator, output)


def random_expr(rnd, depth):
    if depth == 0 or rnd.random() < 0.25:
        return rnd.choice(["x", "y", "w"]) if rnd.random() < 0.7 else repr(round(rnd.uniform(-3, 3), 3))
    if rnd.random() < 0.55:
        op = rnd.choice(["+", "-", "*", "/", "max", "min"])
        a, b = random_expr(rnd, depth - 1), random_expr(rnd, depth - 1)
        return f"({a} {op} {b})" if op in "+-*/" else f"{op}({a}, {b})"
    f, a = rnd.choice(UNARY), random_expr(rnd, depth - 1)
    return f"(-{a})" if f == "neg" else f"{f}({a})"


def random_spec(rnd):
    body, wrap = random_expr(rnd, rnd.randint(1, 4)), rnd.random()
    if wrap < 0.5: return body
    return (f"sum({body})" if wrap < 0.65 else f"mean({body})" if wrap < 0.72 else f"max({body})" if wrap < 0.77
            else f"softmax({body})" if wrap < 0.84 else f"logsumexp({body})" if wrap < 0.89 else f"cumsum({body})" if wrap < 0.94
            else f"{body} + sum(x)")


def test_random_specs_never_exceed_their_bound():
    rnd = random.Random(20261130)
    certified = tried = cases = 0
    tightness = []
    while tried < 400:
        text = random_spec(rnd)
        dt, acc, out = rnd.choice(DTYPES)
        tb = ToleranceBound(text, dt, acc, domain=rnd.choice(DOMAINS), dims=f"N={rnd.choice([7, 64, 300])}", out_dtype=out)
        tried += 1
        if not tb.certified:
            assert tb.status in ("DIVERGENT", "not certified") and tb.reason and tb.tolerance_kind == "heuristic"
            continue
        certified += 1
        m = measure(tb, rows=4, seed=rnd.randint(0, 10_000), orders=("sequential", "pairwise", "perm0", "online16"))
        cases += m.cases
        assert m.violations == 0, f"{tb!r}: measured {m.worst:.4g} at {m.worst_case}"
        if m.worst > 0: tightness.append(m.tightness)
    assert certified >= 200 and cases >= 40_000, (certified, cases)
    assert np.median(tightness) < 100          # bounds on random specs are not vacuous either


# ---- hostile specs (issue 17): malformed or oversized spec text gets a ValueError naming the problem, within budget ----
import math
import time
import pytest
from litmus.spec import Spec, parse, parse_domain, parse_dims, MAX_TEXT, MAX_DEPTH

BAD_SPECS = {   # text -> a phrase the ValueError must contain
    "x +": "not a valid expression", "1e999": "finite", "x * 1e999": "finite", "9" * 400: "finite",
    "layernorm(x, eps=1e999)": "finite positive", "layernorm(x, eps=-1)": "finite positive", "rmsnorm(x, eps=0)": "finite positive",
    "layernorm(x, eps=x)": "eps must be a number", "-" * 3000 + "x": "nested too deeply", "x" + "+x" * 1500: "nests deeper",
    "x" * (MAX_TEXT + 1): "limit", "f(*x)": "no * or **", "sum(x, **k)": "no * or **", "x\x00": "not a valid expression",
    "np.exp(x)": "plain function names", "x[0]": "unsupported syntax", "lambda: x": "unsupported syntax", "x ** 4": "powers",
    "'a'": "numeric", "True + x": "numeric", "1j * x": "numeric", "sum(x, x)": "unknown function", "exp(x)" + ")" * 3: "not a valid expression",
}


@pytest.mark.parametrize("text", list(BAD_SPECS), ids=[repr(t[:20]) for t in BAD_SPECS])
def test_malformed_spec_text_is_a_value_error_naming_the_problem(text):
    with pytest.raises(ValueError) as err: ToleranceBound(text, domain="x in [-1, 1]", dims="N=8")
    assert BAD_SPECS[text] in str(err.value) and len(str(err.value)) < 400, err.value


@pytest.mark.parametrize("domain,dims,phrase", [
    ("x in [-1e999, 1]", "N=8", "finite"), ("x in [nan, 1]", "N=8", "finite"), ("x in [a, 1]", "N=8", "must be a number"),
    ({"x": (None, 1)}, "N=8", "must be a number"), ({"x": (1,)}, "N=8", "pair"), ({"x": "ab"}, "N=8", "pair"), ({3: (0, 1)}, "N=8", "identifier"),
    ("x in [-1, 1]", {"N": 1e300}, "up to 2**53"), ("x in [-1, 1]", {"N": float("inf")}, "up to 2**53"), ("x in [-1, 1]", "N=" + "9" * 30, "should read like"),
    ("x in [-1, 1]", {"N": -3}, "non-negative"), ("x in [-1, 1]; " * 400, "N=8", "limit")])
def test_malformed_domain_and_dims_are_value_errors(domain, dims, phrase):
    with pytest.raises(ValueError) as err: ToleranceBound("sum(x)", domain=domain, dims=dims)
    assert phrase in str(err.value), err.value


def test_shared_subexpressions_are_walked_once():
    "A 101-character spec describing a DAG with 2**20 paths: parse, Spec and ToleranceBound visit each distinct node once."
    text = "(" * 20 + "x" + "**2)" * 20
    assert len(text) == 101
    start = time.perf_counter()
    for dom in ("x in [-1, 1]", "x in [-2, 2]"):
        tb = ToleranceBound(text, domain=dom)
        assert tb.status in ("certified", "not certified") and math.isfinite(tb.threshold) and len(repr(tb)) < 600
    assert len(tb.spec.expr.walk()) == 21 and tb.spec.expr.depth() == 21
    assert time.perf_counter() - start < 5      # a budget, not a benchmark: the old hash walk took 33 s
    assert parse(text) is parse(text)           # hash-consed: equal specs are one object


def test_deep_or_huge_expressions_built_in_python_are_refused():
    from litmus.spec import var, Expr
    e = var("x")
    for _ in range(MAX_DEPTH + 5): e = e + 1.0
    with pytest.raises(ValueError, match="depth"): Spec(e, domain="x in [0, 1]")
    with pytest.raises(ValueError, match="finite"): var("x") * float("inf")
    with pytest.raises(TypeError, match="must be an Expr"): Expr("add", ("x", "y"))
    assert "..." in repr(e) and len(repr(e)) < 400      # describe() cuts, never walks every path


def test_bad_arguments_to_the_entry_points_name_the_problem():
    import numpy as np
    for call, phrase in [(lambda: ToleranceBound("sum(x)", domain="x in [0, 1]", dims="N=4", lemmas=123), "lemmas"),
                         (lambda: ToleranceBound("sum(x)", domain="x in [0, 1]", dims="N=4", lemmas=["R9"]), "lemmas"),
                         (lambda: ToleranceBound("sum(x)", "int8", domain="x in [0, 1]", dims="N=4"), "float format"),
                         (lambda: ToleranceBound("sum(x)", domain="x in [0, 1]", dims="N=4", out_dtype="float8"), "dtype must be"),
                         (lambda: Spec("x + y", domain="x in [0, 1]; y in [0, 1]").evaluate({"x": np.ones(3)}), "missing"),
                         (lambda: Spec("sum(x)", domain="x in [0, 1]", dims="N=4", dtypes="acc=float32; io=float16"), "'in', 'acc' and 'out'"),
                         (lambda: ToleranceBound("sum(x)", domain="x in [0, 1]", dims="N=4").at("N=-1"), "should read like")]:
        with pytest.raises(ValueError) as err: call()
        assert phrase in str(err.value), err.value

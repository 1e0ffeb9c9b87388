"""Soundness of ToleranceBound on random specs (claim C2), beyond the hand-picked fragments.

A seeded generator writes random expressions from the DSL (nested + - * / max min and every function of one
argument, over three inputs and constants), optionally wrapped in a row sum, mean, max or softmax, picks a
domain, a row length, and a dtype pair among float32, float16 and bfloat16 with their own or a float32
accumulator. Every certified bound is then held against the adversarial search under four reduction orders.
Whatever cannot be certified must say why. A few hundred specs, a few seconds.
"""
import random
import numpy as np

from litmus.bounds import ToleranceBound, measure

UNARY = ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "abs", "neg"]
DOMAINS = ["x in [-3, 3]; y in [0.5, 2]; w in [-1, 1]", "x in [0.1, 10]; y in [1, 5]; w in [-20, 20]",
           "x in [-100, 100]; y in [-1, 1]; w in [1e-3, 1]"]
DTYPES = [("float32", None), ("float16", "float32"), ("float16", None), ("bfloat16", "float32"), ("bfloat16", None)]


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
    return (f"sum({body})" if wrap < 0.7 else f"mean({body})" if wrap < 0.8 else f"max({body})" if wrap < 0.85
            else f"softmax({body})" if wrap < 0.93 else f"{body} + sum(x)")


def test_random_specs_never_exceed_their_bound():
    rnd = random.Random(20261130)
    certified = tried = cases = 0
    tightness = []
    while tried < 400:
        text = random_spec(rnd)
        dt, acc = rnd.choice(DTYPES)
        tb = ToleranceBound(text, dt, acc, domain=rnd.choice(DOMAINS), dims=f"N={rnd.choice([7, 64, 300])}")
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

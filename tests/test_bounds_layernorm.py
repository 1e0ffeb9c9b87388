"""These tests hold litmus.bounds' layernorm and cast-split rules at the points where a one-token change shows, against mpmath or exact oracles."""
import math
from fractions import Fraction as F

import mpmath
import pytest
import numpy as np

from litmus.bounds import ToleranceBound, measure, adversarial_rows
from litmus.spec import DTYPES, LIBM_ULPS, Spec


def test_layernorm_r3_bound_is_within_a_few_times_what_real_implementations_reach():
    """Where eps dominates the mean's error, lemma R3's sweep over sigma gives a bound that float32 and float16 (float32
    accumulator) implementations, under every summation order and generator, never exceed and reach more than a tenth
    of (about a quarter, measured). The triangle fallback (|y~| + |y| <= about 2 sqrt(N)) is thousands of times wider,
    so a sweep that stops undercutting it shows (kills the shift term's `D * np.minimum(...)` -> `D / np.minimum(...)`,
    which makes the sweep explode at large sigma and hands the choice to the triangle)."""
    for text, dt, acc, dom, dims in [("layernorm(x, eps=1e-5)", "float32", None, "x in [-10, 10]", "N=64"),
                                     ("layernorm(x, eps=1e-5)", "float16", "float32", "x in [-1, 1]", "N=256")]:
        tb = ToleranceBound(text, dt, acc, domain=dom, dims=dims)
        assert tb.certified and "triangle" not in tb.notes[-1], tb.notes
        m = measure(tb, rows=6, seed=0)
        assert m.violations == 0 and m.worst > 0, m
        assert tb.total <= 10 * m.worst, (text, dt, tb.total, m.worst, m.worst_case)


def test_layernorm_triangle_fallback_takes_the_smaller_of_its_two_candidates():
    """Where R3 is out of reach the triangle fallback bounds |y~_i - y_i| by |y~_i| + |y_i| two ways: |y~_i| <= sqrt(N)
    (the computed variance holds y~_i^2 among N terms) or |y~_i| <= |d~_i| / sqrt(eps). It must take the smaller:
    float16 with eps = 2**-24 (the subnormal eps makes the variance's relative error reach 1, so R3 is off) and rows in
    [-1, 1], where W/sqrt(eps) is 8192 and sqrt(N) wins; float16 over N=1016 terms of [0, 0.01] with eps = 1, where
    the sum's gamma is 0.98 and the eps form wins. Each bound covers every generator and order measured, and is within
    ten (first) and fifty (second, about 23 measured) times the worst error seen (kills `tri = min(tri, ...)` ->
    `max(tri, ...)`: 8262 and 0.17 where the real bounds are 7.9 and 0.03)."""
    for text, dom, dims, factor in [("layernorm(x, eps=5.9604644775390625e-08)", "x in [-1, 1]", "N=16", 10),
                                    ("layernorm(x, eps=1.0)", "x in [0, 0.01]", "N=1016", 50)]:
        tb = ToleranceBound(text, "float16", domain=dom, dims=dims)
        assert tb.certified and "triangle" in tb.notes[-1], (text, tb.notes)
        m = measure(tb, rows=6, seed=0)
        assert m.violations == 0 and m.worst > 0, m
        assert tb.total <= factor * m.worst, (text, tb.total, m.worst, m.worst_case)


def _layernorm_exact(row, eps):
    "layernorm of one row in mpmath (50 digits), no weight or bias."
    xs = [mpmath.mpf(float(v)) for v in row]
    n = len(xs); mu = mpmath.fsum(xs) / n
    var = mpmath.fsum((v - mu) ** 2 for v in xs) / n
    return [(v - mu) / mpmath.sqrt(var + mpmath.mpf(eps)) for v in xs]


def test_layernorm_output_range_holds_every_exact_and_computed_output_and_is_reached():
    """layernorm's output range is [-Y, Y] with Y = min(sqrt(N-1), W/sqrt(eps)): it holds the exact output (mpmath) and
    the float32 output of a correct implementation (every order) for one-outlier rows (which reach +-sqrt(N-1), up to
    the eps term) and for adversarial and uniform rows, negative outputs included; the outlier rows reach both ends to
    1e-6 (kills `Interval(-Y, Y)` -> `Interval(+Y, Y)`, a range of one point)."""
    mpmath.mp.dps = 50
    N, lo, hi = 8, -10.0, 10.0
    spec = Spec("layernorm(x, eps=1e-5)", domain=f"x in [{lo}, {hi}]", dims=f"N={N}")
    tb = ToleranceBound(spec, "float32")
    assert tb.certified, tb
    rng = tb.output_range
    rows = [[hi] + [lo] * (N - 1), [lo] + [hi] * (N - 1)]
    rows += adversarial_rows("cancellation", lo, hi, 3, N, "float32", seed=1).tolist()
    rows += adversarial_rows("uniform", lo, hi, 3, N, "float32", seed=2).tolist()
    x = np.array(rows, np.float32)
    exact = np.array([[float(y) for y in _layernorm_exact(r, 1e-5)] for r in x])
    assert exact.min() < 0 < exact.max()
    computed = [spec.evaluate({"x": x}, "float32", order=o).astype(np.float64) for o in ("sequential", "reversed", "pairwise")]
    for ys in [exact] + computed:
        assert (rng.lo <= ys).all() and (ys <= rng.hi).all(), (rng, ys.min(), ys.max())
    assert exact.max() >= rng.hi * (1 - 1e-6) and exact.min() <= rng.lo * (1 - 1e-6), (rng, exact.min(), exact.max())


def test_rmsnorm_output_range_holds_every_exact_and_computed_output_and_is_reached():
    """rmsnorm's output range is [-Y, Y] with Y = min(sqrt(N), max|x| / sqrt(eps)): it holds the exact output (mpmath)
    and the float32 output of a correct implementation (every order) of one-spike rows, which reach +-sqrt(N) up to the
    eps term, and of uniform rows, negative outputs included (kills rmsnorm's `Interval(-Y, Y)` -> `Interval(+Y, Y)`)."""
    mpmath.mp.dps = 50
    N, lo, hi, eps = 8, -10.0, 10.0, 1e-5
    spec = Spec(f"rmsnorm(x, eps={eps})", domain=f"x in [{lo}, {hi}]", dims=f"N={N}")
    tb = ToleranceBound(spec, "float32")
    assert tb.certified, tb
    rng = tb.output_range
    rows = [[hi] + [0.0] * (N - 1), [lo] + [0.0] * (N - 1)] + adversarial_rows("uniform", lo, hi, 4, N, "float32", seed=3).tolist()
    x = np.array(rows, np.float32)
    exact = np.array([[float(mpmath.mpf(float(v)) / mpmath.sqrt(mpmath.fsum(mpmath.mpf(float(w)) ** 2 for w in r) / N + eps))
                       for v in r] for r in x])
    assert exact.min() < 0 < exact.max()
    computed = [spec.evaluate({"x": x}, "float32", order=o).astype(np.float64) for o in ("sequential", "reversed", "pairwise")]
    for ys in [exact] + computed:
        assert (rng.lo <= ys).all() and (ys <= rng.hi).all(), (rng, ys.min(), ys.max())
    assert exact.max() >= rng.hi * (1 - 1e-6) and exact.min() <= rng.lo * (1 - 1e-6), (rng, exact.min(), exact.max())


def _rmsnorm_corner(N, eps, u, L):
    """|y~_1 - y_1| for the row (1, 2**-6, ..., 2**-6) at the worst corner of the bound's rounding model, in mpmath:
    every square, every addition of a sequential sum, fl(1/N), the product by it and the addition of eps each rounded
    down by u (so the rsqrt argument is as small as the model allows), rsqrt L high, the final product u high."""
    xs = [mpmath.mpf(1)] + [mpmath.mpf(2) ** -6] * (N - 1)
    s = xs[0] ** 2 * (1 - u)
    for v in xs[1:]: s = (s + v * v * (1 - u)) * (1 - u)
    ms = s * (mpmath.mpf(1) / N * (1 - u)) * (1 - u)
    got = xs[0] * (1 + L) / mpmath.sqrt((ms + eps) * (1 - u)) * (1 + u)
    exact = xs[0] / mpmath.sqrt(mpmath.fsum(v * v for v in xs) / N + eps)
    return got - exact


def test_rmsnorm_bound_is_the_worst_corner_of_its_rounding_model():
    """rms-norm's relative bound at the largest output: for a row with one dominant entry (|y_1| near sqrt(N) = Y), in
    float16, bfloat16 and float32 with N = 3 and 7 (1/N inexact), the certified bound covers the model's worst corner
    computed in mpmath (_rmsnorm_corner: N + 3 roundings of the mean square and eps's sum, one of the rsqrt, one of the
    product) and exceeds it by less than 2u*Y (eps's own rounding, which the corner cannot use while the squares
    dominate, and float16's subnormal-eps term). Kills the mean of squares' `(1 + u) * (1 + g2) - 1` ->
    `(1 + u) / (1 + g2) - 1` (about 1.5u*Y under the corner) and kap's `(1 + u) * (1 + rr) - 1 - rr` -> `... + 1 - rr`
    (a bound of 2Y)."""
    mpmath.mp.prec = 300
    for dt, eps in (("float16", 2.0 ** -14), ("bfloat16", 2.0 ** -14), ("float32", 2.0 ** -20)):
        p = DTYPES[dt]; u = mpmath.mpf(p.u); L = 2 * LIBM_ULPS["rsqrt"] * u
        for N in (3, 7):
            tb = ToleranceBound(f"rmsnorm(x, eps={eps!r})", dt, domain="x in [-1, 1]", dims=f"N={N}")
            assert tb.certified, tb
            err, Y = _rmsnorm_corner(N, mpmath.mpf(eps), u, L), mpmath.sqrt(N)
            assert err <= tb.total <= err + 2 * u * Y, (dt, N, tb.total, float(err), float((tb.total - err) / (u * Y)))


def test_matmul_dtype_cast_share_is_what_the_two_input_casts_cost():
    """float32 inputs contracted in a float16 accumulator are cast twice per product; the bound books those casts to
    dtype_cast and the product's rounding to rounding. Every component is >= 0 and they add up to the total; dtype_cast
    covers the error the two casts alone cause on the worst inputs (each entry the float32 just below the float16
    midpoint 1 + 2**-11, so each cast loses almost u; exact Fractions), and exceeds it by no more than gamma's growth,
    4Ku (kills `g_v[CAST] = rest * casts / max(...)` -> `rest * casts * max(...)`, which books nine times the casts' cost
    to dtype_cast and a negative rounding)."""
    top = 1 + 2.0 ** -11
    v = np.nextafter(np.float32(top), np.float32(0))
    u = DTYPES["float16"].u
    assert F(float(np.float16(v))) == 1                                 # the cast rounds down by almost u
    for K in (4, 16, 64):
        tb = ToleranceBound("matmul(a, b)", "float32", "float16", domain=f"a in [0, {top!r}]; b in [0, {top!r}]", dims=f"K={K}")
        assert tb.certified, tb
        assert all(c >= 0 for c in tb.components.values()), (K, tb.components)
        assert math.isclose(sum(tb.components.values()), tb.total, rel_tol=1e-8), (K, tb.components, tb.total)
        cast_error = float(K * F(float(v)) ** 2 - K * F(float(np.float16(v))) ** 2)
        assert cast_error <= tb.components["dtype_cast"] <= cast_error * (1 + 4 * K * u), (K, tb.components, cast_error)


def test_heuristic_tolerance_where_no_range_is_known_scales_with_the_domain():
    """x / y with y in [0, 2] has no range (the divisor reaches 0), so the heuristic tolerance's scale falls back to the
    domain's largest magnitude (times the accumulation length, here 1), the larger end of each variable's range. It
    still covers a correct float32 evaluation on rows with y in [0.5, 2] and x up to 1000 (errors near u * 2000, against
    an exact float64 quotient of the float32 inputs), and it doubles with the domain's larger end (kills `mag = max(...)`
    -> `min(...)`, a scale of 1 whatever the domain, and the inner `max(abs(lo), abs(hi))` -> `min`, which reads x in
    [-1, 1000] as magnitude 1)."""
    h = {}
    for big in (1000.0, 2000.0):
        spec = Spec("x / y", domain=f"x in [-1, {big}]; y in [0, 2]")
        tb = ToleranceBound(spec, "float32")
        assert not tb.certified and tb.tolerance_kind == "heuristic", tb
        h[big] = tb.threshold
        r = np.random.default_rng(0)
        x = (r.uniform(0.9, 1.0, 4096) * big).astype(np.float32)
        y = r.uniform(0.5, 2.0, 4096).astype(np.float32)
        got = spec.evaluate({"x": x, "y": y}, "float32").astype(np.float64)
        err = np.abs(got - x.astype(np.float64) / y.astype(np.float64)).max()
        assert 0 < err <= tb.threshold, (big, err, tb.threshold)
    assert math.isclose(h[2000.0], 2 * h[1000.0], rel_tol=1e-12), h


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_a_rows_variance_and_rstd_are_certified_and_sound(dt):
    """A layer norm that also stores its rstd: `rsqrt(mean((x - mean(x)) * (x - mean(x))) + eps)`, a nested reduction.
    The variance is bounded by lemma R3 (the mean's error enters squared, as sum_j (d_j - e)^2 = N*(s2 + e^2)), the
    rstd and the standard deviation from it by the generic rules (R3's computed variance, a mean of squares of computed
    deviations, is never negative, so its root is certified); all certified with a float32 accumulator and held to the float64 reference by
    `measure` over every generator (constant rows, where the variance is 0, included) and every summation order.
    R3's variance bound is several times tighter than the generic one (kills dropping the R3 pattern); a nesting with
    a composite inside stays refused (kills letting every nested reduction through)."""
    for text in ("mean((x - mean(x)) * (x - mean(x)))", "rsqrt(mean((x - mean(x)) * (x - mean(x))) + 1e-05)",
                 "sqrt(mean((x - mean(x)) * (x - mean(x))))"):
        tb = ToleranceBound(text, dt, "float32", domain="x in [-10, 10]", dims="N=512")
        assert tb.certified, (text, dt, tb.reason)
        m = measure(tb, rows=3)
        assert m.violations == 0 and m.worst > 0, (text, dt, m)
    var = "mean((x - mean(x)) * (x - mean(x)))"
    r3 = ToleranceBound(var, dt, "float32", domain="x in [-10, 10]", dims="N=512")
    generic = ToleranceBound(var, dt, "float32", domain="x in [-10, 10]", dims="N=512", lemmas=("R1",))
    assert generic.certified and generic.total > 1.5 * r3.total
    assert "R3" in " ".join(r3.notes)
    std = "sqrt(mean((x - mean(x)) * (x - mean(x))))"   # R3's variance is never negative; the generic one may be
    assert not ToleranceBound(std, dt, "float32", domain="x in [-10, 10]", dims="N=512", lemmas=("R1",)).certified
    assert not ToleranceBound("mean(softmax(x) * x)", dt, "float32", domain="x in [-1, 1]", dims="N=64").certified
    assert not ToleranceBound("mean(cumsum(x))", dt, "float32", domain="x in [-1, 1]", dims="N=64").certified

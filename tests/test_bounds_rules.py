"""These tests hold litmus.bounds' per-operation error rules at the points where a one-token change shows, against exact or mpmath oracles."""
from fractions import Fraction as F

import numpy as np
import pytest

from litmus.affine import Interval
from litmus.bounds import Analysis, Err, Info, LEMMAS, RND, CAST, LIB, ToleranceBound, precision
from litmus.spec import Spec


def all_float16_in(lo, hi):
    "Every finite float16 in [lo, hi], from all 65536 bit patterns, as a sorted float16 array (0 once)."
    bits = np.arange(0, 0x10000, dtype=np.uint32).astype(np.uint16).view(np.float16)
    with np.errstate(invalid="ignore"): keep = np.isfinite(bits) & (bits >= lo) & (bits <= hi)
    return np.unique(bits[keep])


def err(A, R):
    "An Err whose absolute and relative parts are spread over several components (the rules must treat each alike)."
    e = Err(); e.A[RND], e.A[CAST] = A / 2, A / 2; e.R[RND], e.R[LIB] = R / 2, R / 2
    return e


@pytest.mark.parametrize("text,lo,hi", [("x + 0.1", 0.0001, 0.001), ("x + 0.3", 0.0001, 0.001), ("x - 0.1", -0.001, -0.0001)])
def test_adding_an_inexact_constant_covers_every_float16_input(text, lo, hi):
    """x + c and x - c in float16 with c = 0.1 or 0.3 (not float16 numbers, so the constant carries an absolute error of
    its own) and x of the sign that makes the operation sign-coherent: for every float16 x in the domain,
    |fl(x +- fl(c)) - (x +- c)| in exact Fractions is within the certified bound. Coherent operands' absolute errors add
    (kills `ea.A + eb.A` -> `ea.A - eb.A` in the coherent branch of _addsub, which subtracts the constant's error)."""
    xs = all_float16_in(lo, hi)
    assert len(xs) > 3000
    tb = ToleranceBound(text, "float16", domain=f"x in [{lo}, {hi}]")
    assert tb.certified, tb
    c = text.split()[-1]; sign = 1 if "+" in text else -1
    cf = float(np.float16(float(c)))
    assert F(cf) != F(c)                                                        # the constant's own error is live
    got = (xs.astype(np.float64) + sign * cf).astype(np.float16)               # exact float64 sum, one rounding to float16
    worst = max(abs(F(float(g)) - F(float(x)) - sign * F(c)) for g, x in zip(got, xs))
    assert worst <= F(tb.total), (text, float(worst), tb.total)


def test_coherent_addition_is_the_worst_case_of_its_rounding_model():
    """a + b (and a - b with b of the other sign) for sign-coherent operands carrying absolute errors Aa, Ab and the same
    relative error R: the bound at |a + b| equals, to 1e-12, the model's worst corner in exact Fractions (each operand at
    the top of its error ball, Aa + R|a| and Ab + R|b| away in the same direction, and the sum rounded up by u), and is
    never below it by more than the float64 rounding of the bound's own arithmetic (1e-15, which SAFETY covers). Kills `ea.A + eb.A` -> `ea.A - eb.A` in the coherent branch."""
    for dt in ("float16", "float32"):
        p = precision(dt); u = F(p.u)
        for text, (al, ah), (bl, bh), Aa, Ab, R in [("x + y", (0.5, 2.0), (1.0, 3.0), 0.01, 0.02, 0.005),
                                                    ("x + y", (-2.0, -0.5), (-3.0, -1.0), 0.003, 0.04, 0.0),
                                                    ("x - y", (0.25, 1.0), (-4.0, -2.0), 0.0, 0.05, 0.01)]:
            spec = Spec(text, domain={"x": (al, ah), "y": (bl, bh)})
            an = Analysis(spec, dt, dt, LEMMAS)
            a, b = Info(Interval(al, ah), [err(Aa, R)], 1), Info(Interval(bl, bh), [err(Ab, R)], 1)
            out = an.op_sub(spec.expr, a, b) if "-" in text else an.op_add(spec.expr, a, b)
            x = F(ah) if ah > 0 else F(al); y = F(bh) if abs(bh) >= abs(bl) else F(bl)     # the largest |operands|
            sign = 1 if x > 0 else -1
            exact = x - y if "-" in text else x + y
            xt = x + sign * (F(Aa) + F(R) * abs(x))
            yt = y - sign * (F(Ab) + F(R) * abs(y)) if "-" in text else y + sign * (F(Ab) + F(R) * abs(y))
            worst = abs((xt - yt if "-" in text else xt + yt) * (1 + u) - exact)
            assert F(out.m) >= abs(exact)
            bound = min(F(e.total(abs(exact))) for e in out.errs)
            assert worst * (1 - F(1, 10**15)) <= bound <= worst * (1 + F(1, 10**12)), (dt, text, float(bound), float(worst))


@pytest.mark.parametrize("divisor,domain", [("1.0", "x in [-1, 1]"), ("2.0", "x in [-1, 1]"), ("-1.0", "x in [-1, 1]"),
                                            ("0.5", "x in [-1, 1]"), ("y", "x in [-1, 1]; y in [1, 2]"),
                                            ("y", "x in [-1, 1]; y in [0.0009765625, 1]")])
def test_a_divisor_bounded_away_from_zero_is_certified_and_sound(divisor, domain):
    """A divisor whose range stays away from 0 (constants, among them exactly 1.0 whose range is [1, 1], and inputs whose
    range starts above 0) is certified, and every sampled float32 quotient fl(x / y) is within the bound of x / y in
    exact Fractions (kills the divisor guard `b.rng.mig == 0` -> `== 1`, which refuses a divisor of exactly 1)."""
    tb = ToleranceBound(f"x / {divisor}", "float32", domain=domain)
    assert tb.certified, tb
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 2000).astype(np.float32)
    if divisor == "y":
        ylo = float(tb.spec.domain["y"][0])
        y = np.concatenate([[np.float32(ylo)], rng.uniform(ylo, 2 if ylo == 1 else 1, 1999)]).astype(np.float32)
        yx = [F(float(v)) for v in y]
    else:
        y = np.full(2000, np.float32(float(divisor))); yx = [F(divisor)] * 2000
    got = x / y
    worst = max(abs(F(float(g)) - F(float(a)) / b) for g, a, b in zip(got, x, yx))
    assert worst <= F(tb.total), (divisor, float(worst), tb.total)


@pytest.mark.parametrize("domain", ["y in [0, 1]", "y in [-1, 0]", "y in [-1, 1]", "y in [-0.5, 2]"])
def test_a_divisor_whose_range_reaches_zero_is_refused(domain):
    """x / y where y's range touches or contains 0 has no certified bound (the quotient is unbounded), and the reason names
    the divisor, not a NaN that happened to fail the overflow check (kills the divisor guard `b.rng.mig == 0` -> `== 1`,
    under which the guard is skipped and 0/0 in the error terms is what refuses)."""
    tb = ToleranceBound("x / y", "float32", domain=f"x in [-1, 1]; {domain}")
    assert tb.status == "not certified" and "divisor 'y'" in tb.reason, tb


def test_division_is_the_worst_case_of_its_rounding_model():
    """a / b for operands carrying absolute and relative errors (float16, bfloat16, float32): at the largest quotient
    (a at the top of its range, b at its smallest magnitude) the bound equals, to 1e-12, the model's worst corner in
    exact Fractions: a~ = a + Aa + Ra|a|, b~ = b(1 - rho) with rho = Ab/|b| + Rb, the quotient rounded up by u plus
    eta; and it is never below it by more than the float64 rounding of the bound's own arithmetic (1e-15). The numerator's relative error grows by the divisor's 1/(1 - rho) (kills
    `ea.R * (1 + rp)` -> `ea.R / (1 + rp)` in op_div; a divisor range [1, 3] also kills `b.rng.mig == 0` -> `== 1`)."""
    for dt in ("float16", "bfloat16", "float32"):
        p = precision(dt); u, eta = F(p.u), F(p.eta)
        for (al, ah), (bl, bh), Aa, Ra, Ab, Rb in [((0.5, 2.0), (1.0, 3.0), 0.01, 0.01, 0.005, 0.01),
                                                   ((1.0, 4.0), (0.25, 0.5), 0.0, 0.03, 0.0, 0.02),
                                                   ((-3.0, -1.0), (2.0, 5.0), 0.02, 0.05, 0.04, 0.0)]:
            spec = Spec("x / y", domain={"x": (al, ah), "y": (bl, bh)})
            an = Analysis(spec, dt, dt, LEMMAS)
            out = an.op_div(spec.expr, Info(Interval(al, ah), [err(Aa, Ra)], 1), Info(Interval(bl, bh), [err(Ab, Rb)], 1))
            a = F(ah) if abs(ah) >= abs(al) else F(al); b = F(bl)
            q = a / b
            rho = F(Ab) / abs(b) + F(Rb)
            at = a + (1 if a > 0 else -1) * (F(Aa) + F(Ra) * abs(a))
            worst = abs(at / (b * (1 - rho)) * (1 + u) + (1 if q > 0 else -1) * eta - q)
            assert F(out.m) >= abs(q)
            bound = min(F(e.total(abs(q))) for e in out.errs)
            assert worst * (1 - F(1, 10**15)) <= bound <= worst * (1 + F(1, 10**12)), (dt, al, ah, float(bound), float(worst))


def test_negation_keeps_the_affine_form_exact():
    """-x carries the affine form of -x, so the range of an expression built on it encloses every exact value: for
    -x + 1.0, -x + y, y - (-x) and (-x) * 3.0 + x, float64 values at sampled inputs (and at the domain's corners) lie in
    the certified output range, and a sqrt of -x + 2.0 is refused once x may exceed 2 (kills `-a.aff` -> `+a.aff` in
    op_neg, whose wrong form x + 1.0 shrinks the range of -x + 1.0 over [0, 1] to [1, 1])."""
    rng = np.random.default_rng(1)
    x = np.concatenate([[0.0, 1.0], rng.uniform(0, 1, 500)])
    y = np.concatenate([[-1.0, 2.0], rng.uniform(-1, 2, 500)])
    for text, f in [("-x + 1.0", lambda x, y: -x + 1.0), ("-x + y", lambda x, y: -x + y),
                    ("y - (-x)", lambda x, y: y + x), ("(-x) * 3.0 + x", lambda x, y: -2 * x)]:
        tb = ToleranceBound(text, "float32", domain="x in [0, 1]; y in [-1, 2]")
        assert tb.certified, tb
        v = f(x, y)
        assert tb.output_range.lo <= v.min() and v.max() <= tb.output_range.hi, (text, tb.output_range, v.min(), v.max())
    assert ToleranceBound("sqrt(-x + 2.0)", "float32", domain="x in [0, 1]").certified
    assert ToleranceBound("sqrt(-x + 2.0)", "float32", domain="x in [0, 3]").status == "not certified"


def test_sqrt_is_refused_exactly_when_its_argument_may_be_off_by_100_percent():
    """sqrt(abs(sum(abs(x)))) in float16: the argument's range starts exactly at 0, its absolute error is 0 and its relative
    error is gamma_{N-1} = (N-1)u / (1 - (N-1)u). The rule certifies while that is below 1 and refuses (not certified,
    never an exception) from the first N where it reaches 1, N - 1 = 1/(2u) = 1024 found here in exact Fractions, until
    the sum's chain of N - 1 roundings diverges at N - 1 = 1/u (kills the guard `e.r >= 1` -> `e.r >= 2` in op_sqrt, under which
    1 <= r < 2 reaches sqrt(1 - r) and raises)."""
    u = F(precision("float16").u)
    first = next(n for n in range(2, 4096) if (n - 1) * u / (1 - (n - 1) * u) >= 1)
    diverge = next(n for n in range(2, 4096) if (n - 1) * u >= 1)
    assert first == 1025 and diverge == 2049
    over_two = next(n for n in range(2, 4096) if (n - 1) * u / (1 - (n - 1) * u) >= 2)
    arg = Spec("abs(sum(abs(x)))", domain="x in [-0.01, 0.01]", dims=f"N={first}")
    info = Analysis(arg, "float16", "float16", LEMMAS).run()
    assert info.rng.lo == 0 and [e.a for e in info.errs] == [0.0] and 1 <= info.errs[0].r < 2   # the premise: lo = 0, A = 0
    at = lambda n: ToleranceBound("sqrt(abs(sum(abs(x))))", "float16", domain="x in [-0.01, 0.01]", dims=f"N={n}")
    for n in (2, 512, first - 1):
        assert at(n).certified, at(n)
    for n in (first, first + 1, (first + over_two) // 2, over_two - 1, over_two, diverge - 1):
        tb = at(n)
        assert tb.status == "not certified" and "relative error" in tb.reason, (n, tb)
    assert at(diverge).status == "DIVERGENT"


def test_a_sum_of_terms_carrying_relative_error_is_the_worst_case_of_its_model():
    """sum over N of same-sign terms x~_i = x_i(1 + R) + A (float16, bfloat16, float32): by Higham's Thm 4.1 any order is
    within gamma_{N-1} sum|x~_i| of sum x~_i, so the worst corner, every x_i at the top of the range, every x~_i at the
    top of its error and the sum gamma_{N-1} high (gamma exact in Fractions), is N*((hi(1 + R) + A)(1 + gamma) - hi).
    The bound at N*hi is never below it and above it by no more than gamma's 1e-9 safety factor. The terms' relative
    error is carried through the sum as R(1 + gamma) (kills `e.R * (1 + g)` -> `e.R / (1 + g)` in _sum_errs)."""
    for dt, N in (("float16", 64), ("bfloat16", 16), ("float32", 4096)):
        p = precision(dt); u = F(p.u)
        g = (N - 1) * u / (1 - (N - 1) * u)
        for lo, hi, A, R in [(0.5, 2.0, 0.0, 0.01), (1.0, 1.5, 0.004, 0.02), (-3.0, -1.0, 0.01, 0.005)]:
            spec = Spec("sum(x)", domain={"x": (lo, hi)}, dims=f"N={N}")
            an = Analysis(spec, dt, dt, LEMMAS)
            out = an.op_sum(spec.expr, Info(Interval(lo, hi), [err(A, R)], 1))
            top = max(abs(F(lo)), abs(F(hi)))
            worst = N * ((top * (1 + F(R)) + F(A)) * (1 + g) - top)
            assert F(out.m) >= N * top
            bound = min(F(e.total(N * top)) for e in out.errs)
            assert worst <= bound <= worst * (1 + F(1, 10**8)), (dt, N, lo, hi, float(bound), float(worst))


@pytest.mark.parametrize("text", ["sqrt(sum(x * x))", "sqrt(mean(x * x))", "sqrt(max(x * x, y * y))", "sqrt(sum(abs(x) * exp(y)))"])
def test_a_root_of_a_never_negative_argument_reaching_zero_is_certified_and_sound(text):
    """A norm's argument reaches 0 (a zero row) and carries an absolute error (underflow), so the range alone cannot
    rule out a negative computed argument; its structure can (a square, sums and maxima of nonnegatives, abs, exp).
    Certified in float16 over a domain holding 0, and every float16 evaluation under every summation order, on rows
    that are zero, subnormal, tiny and large, stays within the bound of the float64 reference (kills dropping
    `not never_negative` in op_sqrt, which refuses these, and a bound that ignores the clamp at 0)."""
    spec = Spec(text, domain="x in [-4, 4], y in [-4, 4]", dims="N=64")
    tb = ToleranceBound(spec, "float16")
    assert tb.certified, tb.reason
    rng = np.random.default_rng(7)
    rows = [np.zeros(64), np.full(64, 6e-8), rng.uniform(-1e-4, 1e-4, 64), rng.uniform(-4, 4, 64), np.r_[np.zeros(63), 4.0]]
    xs = np.array(rows)
    ys = np.array([np.zeros(64), np.full(64, -4.0), rng.uniform(-4, 4, 64), rng.uniform(-4, 4, 64), np.zeros(64)])
    inputs = {"x": xs.astype(np.float16), "y": ys.astype(np.float16)}
    ref = spec.reference({k: v.astype(np.float64) for k, v in inputs.items()})
    for order in ("sequential", "reversed", "pairwise", "block8"):
        got = spec.evaluate(inputs, "float16", "float16", order).astype(np.float64)
        assert np.isfinite(got).all() and (np.abs(got - ref) <= tb.total).all(), (order, got, ref, tb.total)


def test_never_negative_holds_on_every_evaluation_it_claims():
    """`never_negative` is a claim about every rounding: on random specs over inputs of both signs (and one input that
    is nonnegative), whenever it says True, float16 evaluation in four summation orders never yields a value below 0;
    it says False for differences, tanh, log and a reduction used twice (`sum(x) * sum(x)`: two roundings of a value
    near 0 may differ in sign). Kills dropping `not self.reduces(...)` in the square rule and putting sub or neg among
    the sign-keeping operations."""
    rng = np.random.default_rng(3)
    leaves = ["x", "p", "x * x", "abs(x)", "exp(x)", "0.5"]
    ops = ["({a} + {b})", "({a} * {b})", "({a} - {b})", "max({a}, {b})", "min({a}, {b})", "sqrt({a})", "tanh({a})",
           "sum({a})", "mean({a})", "({a} / (1 + {b}))"]
    claimed = 0
    for trial in range(120):
        text = rng.choice(leaves)
        for _ in range(rng.integers(1, 4)):
            text = rng.choice(ops).format(a=text, b=rng.choice(leaves))
        try:
            spec = Spec(text, domain="x in [-2, 2], p in [0, 2]", dims="N=16")
            an = Analysis(spec, "float16", "float16", LEMMAS)
            says = an.never_negative(spec.expr)
        except ValueError:
            continue   # a nested reduction the DSL refuses
        if not says:
            continue
        claimed += 1
        xs = np.r_[rng.uniform(-2, 2, (3, 16)), np.zeros((1, 16)), np.full((1, 16), -1e-7)]
        inputs = {"x": xs.astype(np.float16), "p": np.abs(xs).astype(np.float16)}
        for order in ("sequential", "reversed", "pairwise", "block8"):
            with np.errstate(all="ignore"):
                got = spec.evaluate(inputs, "float16", "float16", order).astype(np.float64)
            assert not (got < 0).any(), (text, order)
    assert claimed >= 20
    dims = {"N": 8}
    for text in ("x - x * x", "tanh(x * x)", "log(1 + x * x)", "sum(x) * sum(x)", "-(x * x)"):
        spec = Spec(text, domain="x in [-1, 1]", dims=dims)
        assert not Analysis(spec, "float32", "float32", LEMMAS).never_negative(spec.expr), text
    both = Spec("p + x", domain="x in [-1, 1], p in [0, 1]")
    an = Analysis(both, "float32", "float32", LEMMAS)
    assert [an.never_negative(s) for s in both.expr.srcs] == [True, False]   # the declared domain of an input decides


def test_the_root_bound_covers_tritons_fast_sqrt():
    """`tl.sqrt` is Triton's fast root (sqrt.approx.ftz.f32), not the correctly rounded one: emulated as the float64
    root of the float32 argument flushed to 0 below the normal range, moved by the full SQRT_APPROX_U*u relative budget
    either way, it stays within the certified bound of sqrt(x) at every input, subnormal ones included; the budget is
    what covers it (kills dropping `_fast_root`: a correctly-rounded-only bound is exceeded at both ends)."""
    from litmus.bounds import SQRT_APPROX_U
    f32 = precision("float32")
    assert ToleranceBound("sqrt(x)", "float32", domain="x in [0, 4]").certified
    x = np.r_[np.array([0.0, 1e-45, 1e-40, 5e-39, 1.1e-38, 1.2e-38]), np.linspace(0, 4, 2001)].astype(np.float32)
    flushed = np.where(x < f32.smallest_normal, 0.0, x.astype(np.float64))
    exact = np.sqrt(x.astype(np.float64))
    for side in (1, -1):
        approx = np.sqrt(flushed) * (1 + side * SQRT_APPROX_U * f32.u)
        info = Analysis(Spec("sqrt(x)", domain="x in [0, 4]"), "float32", "float32", LEMMAS).run()
        bound = np.min([e.a + e.r * exact for e in info.errs], axis=0)
        assert (np.abs(approx - exact) <= bound).all(), side
    assert np.abs(np.sqrt(flushed) - exact).max() > 1e-20   # the flush moves a subnormal's root: the absolute term

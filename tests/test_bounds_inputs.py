"""These tests hold the adversarial input distributions and the error-ratio rule of litmus.bounds to their stated properties."""
from fractions import Fraction as F

import numpy as np
import pytest

from litmus.bounds import GENERATORS, ToleranceBound, adversarial_rows, precision
from litmus.spec import ORDERS, Spec

# Domains as a spec declares them (measure draws each input from spec.domain[name]): one straddling zero symmetrically,
# one straddling it lopsidedly, one wholly negative, one wholly positive, and a small one at the origin.
DOMAINS = "a in [-1e3, 1e3]; b in [-1, 5]; c in [-3, -1]; d in [1, 2]; e in [0, 0.5]"
BOUNDS = Spec("a + b + c + d + e", domain=DOMAINS).domain


def _rows(kind, name, rows, n, dtype, seed=0):
    lo, hi = BOUNDS[name]
    return lo, hi, adversarial_rows(kind, lo, hi, rows, n, dtype, seed)


@pytest.mark.parametrize("kind", GENERATORS)
def test_every_kind_draws_rows_of_the_asked_shape_inside_the_domain(kind):
    """Whatever the row length (1, odd, even) and the format, a generator returns `rows` x `n` values of the format, every
    one inside the declared [lo, hi]: a drawn input outside the domain would test the kernel where the bound claims
    nothing. (kills `(n + 1) // 2` -> `(n - 1) // 2` in the cancellation kind, which draws too few columns for any n)"""
    for name in BOUNDS:
        for dtype in ("float32", "float16"):
            for n in (1, 2, 7, 16):
                lo, hi, x = _rows(kind, name, 3, n, dtype, seed=n)
                assert x.shape == (3, n) and x.dtype == precision(dtype).dtype, (kind, name, dtype, n, x.shape, x.dtype)
                assert np.isfinite(x).all() and (x.astype(np.float64) >= lo).all() and (x.astype(np.float64) <= hi).all(), (kind, name, dtype, n)


def test_all_negative_rows_are_all_negative_wherever_the_domain_allows():
    """`all_negative` draws only values below zero whenever the domain has any (lo < 0), also when it straddles zero;
    where it has none (lo >= 0) it stays in the lowest eighth of the domain. (kills `min(hi, lo / 2)` -> `max(hi, lo / 2)`,
    which draws from the whole [lo, hi] of a straddling domain)"""
    for name in BOUNDS:
        for dtype in ("float32", "float16"):
            lo, hi, x = _rows("all_negative", name, 8, 64, dtype, seed=5)
            x = x.astype(np.float64)
            if lo < 0: assert (x < 0).all(), (name, dtype, x.max())
            else: assert (x <= lo + (hi - lo) / 8 * (1 + 2 * precision(dtype).u)).all(), (name, dtype, x.max())


def test_subnormal_rows_are_as_near_zero_as_the_domain_allows_and_still_random():
    """`subnormal` draws, where the domain holds zero, values no larger in magnitude than the format's smallest normal
    (subnormals, many of them nonzero; rounding may reach the smallest normal itself); on a domain [lo, hi] with 0 < lo
    it draws from the sliver [lo, lo + 1e-6 (hi - lo)], the values nearest zero, and still a random draw over that
    sliver, not the one value lo repeated (that is the `constant` kind's job). (kills `lo + (hi - lo) * 1e-6` ->
    `lo - (hi - lo) * 1e-6`, whose draws all clip to lo)"""
    for dtype in ("float32", "float16"):
        P = precision(dtype)
        for name in ("a", "b", "e"):
            _, _, x = _rows("subnormal", name, 8, 64, dtype, seed=2)
            x = x.astype(np.float64)
            assert (np.abs(x) <= P.smallest_normal).all() and (x != 0).mean() > 0.3, (name, dtype)   # [0, hi] clips the negative half to 0
    for dtype in ("float32", "float64"):
        lo, hi, x = _rows("subnormal", "d", 8, 64, dtype, seed=2)
        x = x.astype(np.float64)
        top = lo + (hi - lo) * 1e-6
        assert (x >= lo).all() and (x <= top + np.spacing(top)).all(), dtype
        assert len(np.unique(x)) > 1 and x.max() - lo > (top - lo) / 2, (dtype, np.unique(x))


def test_ill_conditioned_pairs_nearly_cancel_leaving_a_residue_the_format_resolves():
    """`ill_conditioned` rows (even length, a domain symmetric about zero) are pairs v, -v(1 - d) that nearly cancel:
    with the exact sums held in Fractions, the condition number sum|x| / |sum x| is large (>= 2**8), yet finite and below
    1 / gamma_n, so the residue is a real number the format carries and a correct float32 sum still gets right in sign
    and in its leading bits; an exactly cancelling row (sum 0) tests nothing about ill-conditioning. (kills
    `2.0 ** -10` -> `20.0 ** -10`, whose pairs round to exact negatives in float32 and sum to 0)"""
    n, u = 64, F(2) ** -24
    gamma_n = n * u / (1 - n * u)
    for name in ("a",):
        for seed in range(3):
            _, _, x = _rows("ill_conditioned", name, 8, n, "float32", seed=seed)
            for row in x:
                exact, absum = sum(F(float(v)) for v in row), sum(abs(F(float(v))) for v in row)
                assert exact != 0, (seed, row)
                cond = absum / abs(exact)
                assert 2 ** 8 <= cond and cond * gamma_n < 1, (seed, float(cond))
                assert sum(1 for v in row if v > 0) == sum(1 for v in row if v < 0) == n // 2, seed


def test_error_ratio_against_a_zero_bound_is_zero_for_no_error_and_inf_for_any():
    """A bound of 0 (max(x), -x, abs(x): exact in any format and any order) divides nothing: `exceeded_by` is 0 when the
    output equals the reference (every correct implementation, under every reduction order, and NaN where both are NaN)
    and inf when any element differs at all, even by one ulp. (kills `0.0` -> `1.0` in the zero-threshold branch)"""
    for text in ("max(x)", "-x", "abs(x)"):
        spec = Spec(text, domain="x in [-1e3, 1e3]", dims="N=64")
        tb = ToleranceBound(spec, "float32")
        assert tb.certified and tb.total == 0 and tb.threshold == 0, tb
        for kind in ("uniform", "cancellation", "all_negative"):
            x = adversarial_rows(kind, -1e3, 1e3, 4, 64, "float32", seed=3)
            ref = spec.reference({"x": x.astype(np.float64)})
            for order in ORDERS:
                got = spec.evaluate({"x": x}, "float32", order=order)
                assert tb.exceeded_by(got, ref) == 0.0, (text, kind, order)
            off, first = np.array(ref, np.float64, copy=True), (0,) * np.ndim(ref)
            off[first] = np.nextafter(np.float32(off[first]), np.float32(np.inf))
            assert tb.exceeded_by(off, ref) == np.inf, (text, kind)
    nan_ref = np.array([np.nan, 1.0])
    assert tb.exceeded_by(nan_ref.copy(), nan_ref) == 0.0 and tb.exceeded_by(np.array([], np.float64), np.array([], np.float64)) == 0.0


def _ulp(y: F, digits: int) -> F:
    "The ulp of the exact positive y in a format of `digits` significand bits (exponent range unbounded): 2**(e - p + 1), 2**e <= y < 2**(e + 1)."
    e = y.numerator.bit_length() - y.denominator.bit_length()
    if F(2) ** e > y: e -= 1
    return F(2) ** (e - digits + 1)


def _round(y: F, digits: int) -> F:
    "y rounded to nearest (ties to even) with `digits` significand bits: the format's fl(y) for a y in its normal range."
    if y == 0: return y
    step = _ulp(abs(y), digits)
    return round(y / step) * step   # Fraction.__round__ rounds half to even


# Domains that hold the tails (they lie between 0 and the larger end): symmetric, lopsided either way, one ending at 0,
# one starting at 0 whose larger end is a power of two; small enough that big**2 is finite in float16.
TAIL_DOMAINS = [(-100.0, 100.0), (-1.0, 5.0), (-7.0, 2.0), (-3.0, 0.0), (0.0, 0.5)]


@pytest.mark.parametrize("kind", ["half_ulp_tail", "half_ulp_square_tail"])
def test_half_ulp_tails_sit_just_above_half_an_ulp_of_the_running_sum(kind):
    """A half-ulp row is one leading entry b (the running sum's first value) then n - 1 equal tails t of b's sign. Held
    exactly in Fractions in the row's own format: `half_ulp_tail` has ulp(b)/2 < |t| < 4 ulp(b), and
    `half_ulp_square_tail` has ulp(fl(b**2))/2 < t**2 < 4 ulp(fl(b**2)), so each addition of a tail (of its square) to
    the running sum (of squares) must round, by about half an ulp, while the sum keeps b's leading bits; a tail of b's
    own size rounds nothing worth testing; and some rows sit within a fifth of an ulp above the half, the case the kind
    is for. (kills `big * np.sqrt(eps * ...)` -> `big / np.sqrt(eps * ...)`, whose tails clip to the domain's end, and
    `eps * rng.choice(...)` -> `eps / rng.choice(...)`, whose smallest tail sits two thirds of an ulp up)"""
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        ratios = []
        for lo, hi in TAIL_DOMAINS:
            P = precision(dtype)
            x = adversarial_rows(kind, lo, hi, 16, 9, dtype, seed=7)
            assert x.shape == (16, 9) and (x.astype(P.dtype).astype(np.float64) == x.astype(np.float64)).all(), (kind, lo, hi, dtype)
            for row in x:
                b, tails = F(float(row[0])), {F(float(v)) for v in row[1:]}
                assert len(tails) == 1 and b != 0, (kind, lo, hi, dtype, row)
                t = tails.pop()
                assert t * b > 0, (kind, lo, hi, dtype, row)   # tails share the leading entry's sign
                if kind == "half_ulp_tail": size, ulp = abs(t), _ulp(abs(b), P.digits)
                else: size, ulp = t * t, _ulp(_round(b * b, P.digits), P.digits)
                assert ulp / 2 < size < 4 * ulp, (kind, lo, hi, dtype, float(size / ulp))
                ratios.append(size / ulp)
        assert min(ratios) < F(3, 5), (kind, dtype, float(min(ratios)))   # some tails within a fifth above the half ulp


@pytest.mark.parametrize("kind", ["half_ulp_tail", "half_ulp_square_tail"])
def test_half_ulp_leading_entries_are_random_draws_over_the_domains_top_tenth(kind):
    """The leading entry b of a half-ulp row is drawn from the top tenth of the domain, between 0.9 and 1 times its
    larger end (in magnitude, with that end's sign), and the rows really are spread over it: ulp(b) / |b| changes by up
    to a factor 2 across a binade, so only leading entries at many positions make the tails land at many distances above
    half an ulp; rows that all start at the domain's end test one such distance. (kills `big = top * rng.uniform(0.9,
    1.0, ...)` -> `big = top / rng.uniform(...)`, whose leading entries all clip to the domain's end)"""
    for lo, hi in TAIL_DOMAINS + [(-1e3, 1e3), (1.0, 2.0), (-3.0, -1.0)]:
        top = hi if abs(hi) >= abs(lo) else lo
        for dtype in ("float32", "float16", "bfloat16"):
            P = precision(dtype)
            lead = adversarial_rows(kind, lo, hi, 32, 4, dtype, seed=11)[:, 0].astype(np.float64)
            slack = 2 * P.u * abs(top)   # rounding b to the format
            assert (np.sign(lead) == np.sign(top)).all(), (kind, lo, hi, dtype)
            assert (np.abs(lead) >= 0.9 * abs(top) - slack).all() and (np.abs(lead) <= abs(top)).all(), (kind, lo, hi, dtype)
            assert len(np.unique(lead)) > 8 and np.ptp(lead) > 0.05 * abs(top), (kind, lo, hi, dtype, np.unique(lead))


@pytest.mark.parametrize("kind", ["steered", "steered_constant"])
def test_steered_rows_take_the_sign_of_the_domains_larger_end(kind):
    """Steered rows sit near the domain's end of larger magnitude (hi on a tie), with its sign: every entry's sign bit
    is that end's, and every entry lies in [lo, hi]. That holds for a domain whose larger end is lo = -3 while hi is 0,
    and for a degenerate domain whose larger end is itself a zero: `x in [-0, 0]` gives rows of +0.0 (hi's sign), never
    -0.0, whose sums and reciprocals differ from +0.0's. (kills `top >= 0` -> `top > 0`, which flips a zero top to
    rows of -0.0)"""
    domains = ["x in [-1e3, 1e3]", "x in [-1, 5]", "x in [-5, 1]", "x in [-3, -1]", "x in [1, 2]", "x in [-3, 0]",
               "x in [-3, -0]", "x in [0, 0.5]", "x in [-0, 0]", "x in [0, 0]", "x in [-0, -0]"]
    for text in domains:
        lo, hi = Spec("x + 1", domain=text).domain["x"]
        top = hi if abs(hi) >= abs(lo) else lo
        for dtype in ("float32", "float16", "bfloat16", "float64"):
            x = adversarial_rows(kind, lo, hi, 4, 12, dtype, seed=3).astype(np.float64)
            assert x.shape == (4, 12), (text, dtype)
            assert (x >= lo).all() and (x <= hi).all(), (text, dtype)
            assert (np.signbit(x) == np.signbit(top)).all(), (kind, text, dtype, x[0])

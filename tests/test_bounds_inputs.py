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

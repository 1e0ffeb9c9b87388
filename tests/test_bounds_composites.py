"""These tests hold litmus.bounds' composite rules (softmax, logsumexp, layernorm) at the points where a one-token change shows, against mpmath or exact oracles."""
import math

import mpmath
import numpy as np

from litmus.bounds import Analysis, LEMMAS, LIB, ToleranceBound, measure
from litmus.spec import DTYPES, LIBM_ULPS, Spec


def test_written_out_layernorm_encloses_the_exact_output_and_its_error():
    """With lemma R3 switched off, layernorm is analysed as written out, d * rsqrt(mean(d*d) + eps) with d = x - mean(x):
    on rows in [0, 0.01] (where d is small and 1/sqrt(var + eps) large), the output range holds the exact layernorm
    (mpmath, 50 digits) of every row, the one-outlier row reaching |y| = 1.4 included, and a float32 evaluation of the
    written-out formula stays within the certified bound (kills written_out's `d * rsqrt(...)` -> `d / rsqrt(...)`,
    whose range is +-1e-4)."""
    N, eps = 4, 1e-5
    tb = ToleranceBound("layernorm(x, eps=1e-5)", "float32", domain="x in [0, 0.01]", dims=f"N={N}", lemmas=("R1", "R2", "R4"))
    assert tb.certified, tb
    rows = [[0.01, 0, 0, 0], [0, 0.01, 0.01, 0.01], [0.01, 0, 0.01, 0], [0.002, 0.0, 0.0031, 0.0099]]
    rows += np.random.default_rng(0).uniform(0, 0.01, (12, N)).tolist()
    x = np.array(rows).astype(np.float32)
    f32 = np.float32
    mpmath.mp.dps = 50
    biggest = 0.0
    for row in x:
        xs = [mpmath.mpf(float(v)) for v in row]
        mu = mpmath.fsum(xs) / N; var = mpmath.fsum((v - mu) ** 2 for v in xs) / N
        exact = [(v - mu) / mpmath.sqrt(var + mpmath.mpf(eps)) for v in xs]
        assert all(tb.output_range.lo <= float(y) <= tb.output_range.hi for y in exact), (row, exact, tb.output_range)
        biggest = max(biggest, max(abs(float(y)) for y in exact))
        m = f32(0)
        for v in row: m = f32(m + v)
        m = f32(m / f32(N)); d = (row - m).astype(f32)
        s = f32(0)
        for v in d: s = f32(s + f32(v * v))
        r = f32(1 / math.sqrt(float(f32(f32(s / f32(N)) + f32(eps)))))
        got = (d * r).astype(np.float64)
        assert max(abs(float(g - y)) for g, y in zip(got, exact)) <= tb.total, (row, got, exact, tb.total)
    assert biggest > 1.3, biggest                                                   # the outlier row reaches |y| = 1.4


def test_softmax_books_the_libm_share_of_the_propagated_error_to_libm():
    """softmax's error pair |p~_i - p_i| <= A + R p_i, component by component: an execution whose only error is the
    libm's (exp's argument scaled by (1 +- h), h = 2u(1 + u), the exp2 scaling booked to libm, and its result off by
    (1 +- 2*ulps*u); d, the sum and the quotient exact in mpmath) stays within the libm part A[LIB] + R[LIB] p_i at
    every d in the domain, N = 2, float32 and float64. From d = -8 down the relative error h|d| + 2L outgrows R[LIB] and
    only the absolute part's libm share covers it (kills `spread(G * (1 + L) / s_min, a_v + r_v)` -> `a_v - r_v`, which books
    that share to rounding)."""
    mpmath.mp.prec = 200
    for dt, dom in [("float32", "x in [-50, 50]"), ("float64", "x in [-1e3, 1e3]")]:
        spec = Spec("softmax(x)", domain=dom, dims="N=2")
        info = Analysis(spec, dt, dt, LEMMAS).node(spec.expr)
        (e,) = info.errs
        u = mpmath.mpf(DTYPES[dt].u); h = 2 * u * (1 + u); L = 2 * LIBM_ULPS["exp"] * u
        ex = lambda t, s: mpmath.exp(t * (1 + s * h)) * (1 + s * L)
        lo, _ = spec.domain["x"]
        for d in (-mpmath.mpf(k) / 4 for k in range(0, 4 * min(120, int(-2 * lo)))):
            p = mpmath.exp(d) / (1 + mpmath.exp(d))
            worst = max(abs(ex(d, s1) / (ex(0, s0) + ex(d, s1)) - p) for s0 in (-1, 1) for s1 in (-1, 1))
            assert worst <= e.A[LIB] + e.R[LIB] * p, (dt, float(d), float(worst), e.A[LIB], e.R[LIB])


def test_logsumexp_output_range_holds_the_extreme_rows():
    """logsumexp(x) = max(x) + log S with S in [S_min, N]: its output range holds the exact value (mpmath) of the rows at
    the corners of the domain, all at lo (the minimum, lo + log N), all at hi, and one at hi with the rest at lo, on
    domains narrow enough that S_min**2 > N and wide ones (kills the lower end `log(s_min) * (1 - 1e-12)` -> `(2 - 1e-12)`:
    where S_min**2 > N the range [2 log S_min, log N] it adds is empty and the analysis raises; elsewhere its lower end
    stays below lo + log N, so the crash is the only way it shows)."""
    mpmath.mp.dps = 40
    for lo, hi, n in [(-0.5, 0.5, 4), (0.0, 0.001, 4), (-1.0, 1.0, 8), (2.0, 2.5, 16), (-3.0, 3.0, 1000)]:
        tb = ToleranceBound("logsumexp(x)", "float32", domain=f"x in [{lo}, {hi}]", dims=f"N={n}")
        assert tb.certified, tb
        lse = lambda row: mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(v)) for v in row))
        for row in ([lo] * n, [hi] * n, [hi] + [lo] * (n - 1)):
            v = float(lse(row))
            assert tb.output_range.lo <= v <= tb.output_range.hi, (lo, hi, n, v, tb.output_range)


def test_layernorm_covers_a_mean_rounded_three_times_the_same_way():
    """layernorm's mean error allowance e_m, near 1024 in float32, N = 3: a correct implementation may compute the mean
    as ((x1 + x2) + x3) * fl(1/3), two ties of the sum and fl(1/3) > 1/3 and the product all rounding up. A search over
    float32 rows in [1024, 1024.006] finds one whose computed mean is over 2.5 u M off (M = max |x|); on that nearly
    constant row y = (x - mu~) / sqrt(var + eps) moves by that error / sqrt(eps), and the certified bound covers the
    float32 evaluation against mpmath (kills e_m's rounding part `g2 * M` -> `g2 / M`, which leaves only the sum's
    order term, 2uM)."""
    f32 = np.float32
    N, eps, u = 3, 1e-5, 2.0 ** -24
    tb = ToleranceBound("layernorm(x, eps=1e-5)", "float32", domain="x in [1024, 1025]", dims=f"N={N}")
    assert tb.certified, tb
    k = np.arange(48, dtype=np.float64)
    K1, K2, K3 = np.meshgrid(k, k, k, indexing="ij")
    x1, x2, x3 = [(1024 + K * 2.0 ** -13).astype(f32) for K in (K1, K2, K3)]
    third = f32(1 / 3)
    err = (((x1 + x2) + x3) * third).astype(np.float64) - (x1.astype(np.float64) + x2 + x3) / 3   # exact: the sum fits in float64
    i = np.unravel_index(np.argmax(np.abs(err)), err.shape)
    row = np.array([x1[i], x2[i], x3[i]], f32)
    M = tb.spec.domain["x"][1]
    assert abs(err[i]) > 2.5 * u * M, err[i]                                      # the row is adversarial: the term is live
    mu = ((row[0] + row[1]) + row[2]) * third
    d = row - mu
    var = ((d[0] * d[0] + d[1] * d[1]) + d[2] * d[2]) * third
    r = f32(1 / math.sqrt(float(var + f32(eps))))                                  # rsqrt correctly rounded
    got = (d * r).astype(np.float64)
    mpmath.mp.dps = 50
    xs = [mpmath.mpf(float(v)) for v in row]
    m = mpmath.fsum(xs) / N; s2 = mpmath.fsum((v - m) ** 2 for v in xs) / N
    exact = [(v - m) / mpmath.sqrt(s2 + mpmath.mpf(eps)) for v in xs]
    worst = max(abs(float(g - y)) for g, y in zip(got, exact))
    assert worst <= tb.total, (row, worst, tb.total)


def test_softmax_and_logsumexp_keep_the_best_cut_of_the_exp_error():
    """R2's exp error is cut at several points (relative above the cut, absolute below); the rule keeps the candidate
    with the smallest relative error of the sum. On a wide domain with N = 2 only a cut near the top is tight: the
    certified bound stays sound and within 10x of the worst error correct implementations reach over every generator
    and reduction order (kills the comparison `rho_v.sum() < best[0].sum()` -> `best[1]`, which keeps the first,
    all-relative candidate: 266x looser for softmax, 7x for logsumexp)."""
    for text in ("softmax(x)", "logsumexp(x)"):
        tb = ToleranceBound(text, "float32", domain="x in [-1e3, 1e3]", dims="N=2")
        m = measure(tb, rows=8, seed=0)
        assert m.violations == 0 and m.worst > tb.total / 10, (text, m)

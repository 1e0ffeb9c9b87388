"""The newer spec operations held to oracles above them: movement (transpose, shift, gather) and argmax/argmin have a
certified bound of exactly zero, checked against numpy's own movement and argmax; exp2, log2, sin and cos against
mpmath; l2 normalisation with half-width inputs and a float32 accumulator against the float64 fsum reference over every
summation order and adversarial rows."""
import math
import mpmath
import numpy as np
import pytest
from litmus.bounds import ToleranceBound, adversarial_rows
from litmus.spec import Spec, ORDERS

RNG = np.random.default_rng(26)

@pytest.mark.parametrize("text, fn", [
    ("transpose(x)", lambda x, i: x.T),
    ("shift(x, 2)", lambda x, i: np.pad(x, ((0, 0), (2, 0)))[:, :x.shape[1]]),
    ("shift(x, -3)", lambda x, i: np.pad(x, ((0, 0), (0, 3)))[:, 3:]),
    ("gather(x, i)", lambda x, i: np.take_along_axis(x, i.astype(int), axis=1)),
    ("argmax(x)", lambda x, i: np.argmax(x, axis=1)[:, None]),
    ("argmin(x)", lambda x, i: np.argmin(x, axis=1)[:, None])])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_movement_and_argmax_are_certified_at_exactly_zero(text, fn, dtype):
    spec = Spec(text, "x in [-1e3, 1e3]; i in [0, 47]", "N=48")
    tb = ToleranceBound(spec, dtype, "float32")
    assert tb.certified and tb.total == 0.0, tb
    for kind in ("uniform", "constant", "sorted", "one_dominant"):
        x = adversarial_rows(kind, -1e3, 1e3, 4, 48, dtype, seed=1)
        i = RNG.integers(0, 48, (4, 48)).astype(np.float64)
        want = fn(x, i)                                   # numpy's own movement: the oracle
        for order in ("sequential", "pairwise"):
            got = spec.evaluate({"x": x, "i": i}, dtype if dtype != "bfloat16" else "float32", "float32", order=order)
            assert np.array_equal(np.asarray(got, np.float64), want) and np.array_equal(spec.reference({"x": x, "i": i}), want)

def test_movement_refuses_what_it_cannot_certify():
    assert not ToleranceBound("argmax(x * 0.1)", "float32", domain="x in [-1, 1]", dims="N=8").certified    # rounding may reorder
    assert not ToleranceBound("gather(x, i)", "float32", domain="x in [-1, 1]; i in [0, 8]", dims="N=8").certified   # i = 8 is past the row
    assert not ToleranceBound("gather(x, i * 2)", "float32", domain="x in [-1, 1]; i in [0, 3]", dims="N=8").certified
    with pytest.raises(ValueError, match="gather's indices"):
        Spec("gather(x, i)", "x in [0, 1]; i in [0, 3]", "N=4").reference({"x": np.ones((1, 4)), "i": np.array([[4.0]])})

MP = {"sin": mpmath.sin, "cos": mpmath.cos, "exp2": lambda v: mpmath.power(2, v), "log2": lambda v: mpmath.log(v, 2)}

@pytest.mark.parametrize("op, lo, hi", [("sin", -100.0, 100.0), ("cos", -100.0, 100.0), ("exp2", -30.0, 60.0), ("log2", 1e-3, 1e6),
                                        ("sin", -1.0, 1.0), ("exp2", -126.0, 0.0)])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_exp2_log2_sin_cos_bounds_hold_against_mpmath(op, lo, hi, dtype):
    if dtype == "float16":      # float16 ends at 65504
        hi = min(hi, 15.0 if op == "exp2" else 6e4)
    tb = ToleranceBound(f"{op}(x)", dtype, domain=f"x in [{lo}, {hi}]", dims="N=1")
    assert tb.certified, tb
    spec = tb.spec
    x = np.concatenate([np.linspace(lo, hi, 600), RNG.uniform(lo, hi, 200), [lo, hi]])[None]
    x = x.astype(np.float32 if dtype == "float32" else np.float16).astype(np.float64)
    mpmath.mp.dps = 40
    exact = np.array([[float(MP[op](mpmath.mpf(float(v)))) for v in x[0]]])
    for seed in range(3):     # a libm anywhere inside its ulp budget (Spec.evaluate perturbs by whole ulps)
        got = np.asarray(spec.evaluate({"x": x}, dtype, seed=seed), np.float64)
        assert np.abs(got - exact).max() <= tb.total, (op, np.abs(got - exact).max(), tb.total)
    assert tb.total < 1e-2 * max(1.0, float(np.abs(exact).max()))     # and not vacuous

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_l2_normalisation_with_half_inputs_is_certified_and_holds(dtype):
    spec = Spec("x / sqrt(sum(x * x) + 1e-6)", "x in [-4, 4]", "N=300")
    tb = ToleranceBound(spec, dtype, "float32", out_dtype=dtype)
    assert tb.certified and tb.total < 0.02 and "R5" in " ".join(tb.notes), tb
    worst = 0.0
    for kind in ("uniform", "large_same_sign", "one_dominant", "near_constant", "subnormal", "cancellation"):
        x = adversarial_rows(kind, -4.0, 4.0, 3, 300, dtype, seed=2)
        ref = spec.reference({"x": x})
        for order in ORDERS[:6]:
            got = np.asarray(spec.evaluate({"x": x}, dtype, "float32", order=order, out_dtype=dtype), np.float64)
            worst = max(worst, float(np.abs(got - ref).max()))
    assert worst <= tb.total, (worst, tb.total)
    assert not ToleranceBound(spec, dtype, dtype).certified       # a half-width accumulator is what stopped it before

@pytest.mark.parametrize("text", ["x / (sqrt(sum(x * x)) + 1e-6)", "x / (1e-6 + sqrt(sum(x * x)))"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_l2_normalisation_with_eps_outside_the_root_is_bounded_by_one(text, dtype):
    """torch's x / (vector_norm(x) + eps): every exact output lies in [-1, 1] (R5), so the bound is relative to 1, not to
    max|x| / eps; held to the float64 fsum reference over summation orders and adversarial rows, with an exact zero row."""
    spec = Spec(text, "x in [-100, 100]", "N=300")
    tb = ToleranceBound(spec, dtype, "float32", out_dtype=dtype)
    assert tb.certified and tb.total < 0.01 and "R5" in " ".join(tb.notes), tb
    assert not ToleranceBound(Spec(text.replace("1e-6", "-1e-6"), "x in [-100, 100]", "N=300"), dtype, "float32").certified
    worst = 0.0
    for kind in ("uniform", "large_same_sign", "one_dominant", "near_constant", "subnormal", "cancellation"):
        x = adversarial_rows(kind, -100.0, 100.0, 3, 300, dtype, seed=4)
        x[0] = 0.0 if kind == "subnormal" else x[0]
        ref = spec.reference({"x": x})
        assert np.abs(ref).max() <= 1.0
        for order in ORDERS:
            got = np.asarray(spec.evaluate({"x": x}, dtype, "float32", order=order, out_dtype=dtype), np.float64)
            worst = max(worst, float(np.abs(got - ref).max()))
    assert worst <= tb.total, (worst, tb.total)


def test_a_sum_of_nonnegative_terms_keeps_its_sign_and_relative_error():
    tb = ToleranceBound("sum(x * x)", "float32", domain="x in [-1, 1]", dims="N=1024")
    assert tb.certified and tb.output_range.lo >= 0
    x = adversarial_rows("large_same_sign", -1.0, 1.0, 2, 1024, "float32", seed=3)
    exact = np.array([float(mpmath.fsum([mpmath.mpf(float(v)) ** 2 for v in r])) for r in x])
    got = np.asarray(tb.spec.evaluate({"x": x}, "float32", order="sequential"), np.float64).ravel()
    assert np.abs(got - exact).max() <= tb.total <= 1e-3 * exact.max()     # relative: about gamma_1023 * the sum

@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_pick_reads_one_element_per_row_and_cross_entropy_holds_its_bound(dtype):
    "pick(x, t) is x[b, t[b]] exactly (bound 0); logsumexp(x) - pick(x, t) held to mpmath over orders and adversarial rows."
    assert ToleranceBound(Spec("pick(x, t)", "x in [-1e3, 1e3]; t in [0, 47]", "N=48"), dtype, "float32").total == 0.0
    assert not ToleranceBound("pick(x, t)", "float32", domain="x in [-1, 1]; t in [0, 48]", dims="N=48").certified
    spec = Spec("logsumexp(x) - pick(x, t)", "x in [-100, 100]; t in [0, 47]", "N=48")
    tb = ToleranceBound(spec, dtype, "float32")
    assert tb.certified, tb
    for kind in ("uniform", "constant", "sorted", "one_dominant"):
        x = adversarial_rows(kind, -100, 100, 6, 48, dtype, seed=3)
        t = RNG.integers(0, 48, 6).astype(np.float64)
        exact = np.array([float(mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(v)) for v in row)) - row[int(k)])
                          for row, k in zip(x.astype(np.float64), t)])
        np.testing.assert_allclose(spec.reference({"x": x, "t": t})[:, 0], exact, rtol=1e-12, atol=1e-12)
        for order in ORDERS:
            got = np.asarray(spec.evaluate({"x": x, "t": t}, dtype, "float32", order=order), np.float64)[:, 0]
            assert (np.abs(got - exact) <= tb.total).all(), (kind, order, np.abs(got - exact).max(), tb.total)

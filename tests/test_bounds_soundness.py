"""Soundness of ToleranceBound (claim C2): no correct implementation exceeds the certified bound.

For every certified fragment (elementwise chains, row sum/mean/max/min, softmax, log-softmax, logsumexp, layernorm,
rms-norm, scans, matmul with an epilogue; float32, float16 with a float32 accumulator, and float16 throughout, including a
float16 accumulator matmul; inputs that carry error into a composite, such as softmax(x*0.1); and mixed formats with the
input, accumulator and output stated separately), every adversarial generator in litmus.bounds.GENERATORS draws rows inside the domain, and
Spec.evaluate runs them under every reduction order in litmus.spec.ORDERS (sequential, reversed, pairwise, three
block sizes, two random permutations, two online-softmax tilings) with a libm perturbed within its ULP budget. The
reference is float64 with math.fsum sums, itself held to mpmath at 50 digits below. Zero violations are allowed.
The suite is seeded and takes well under a minute.
"""
import math
import mpmath
import numpy as np
import pytest

from litmus.bounds import ToleranceBound, measure, adversarial_rows, GENERATORS
from litmus.spec import Spec, ORDERS, reduce_sum

D = "x in [-1e3, 1e3]; y in [0.5, 4]; a in [-1, 1]; b in [-1, 1]; bias in [-1, 1]; w in [-2, 2]; c in [0, 10]"
LN = "x in [-10, 10]; w in [-10, 10]; b in [-10, 10]"
FRAGMENTS = [  # (spec, dims, domain)
    ("x + x*x", "N=64", D), ("x*y + x/y - sqrt(y)", "N=64", D), ("tanh(x*0.001)*w + sigmoid(x*0.01) - erf(w)", "N=64", D),
    ("x / (abs(x) + 1)", "N=64", D), ("log(y) * rsqrt(y) + exp(w)", "N=64", D), ("max(x, 0.0) - min(w, 1.5)", "N=64", D),
    ("sum(x)", "N=1024", D), ("sum(c)", "N=1024", D), ("mean(x)", "N=1000", D), ("max(x)", "N=1024", D), ("min(x) + 1", "N=333", D),
    ("sum(x*x)", "N=512", D), ("mean(exp(w))", "N=256", D), ("max(x) - min(x)", "N=100", D),
    ("softmax(x)", "N=1024", D), ("softmax(x)", "N=100", "x in [-1, 1]"), ("log_softmax(x)", "N=1024", D), ("softmax(x*0.5)", "N=1000", D),
    ("log_softmax(x)", "N=77", "x in [-3, 5]"),
    ("layernorm(x, eps=1e-5)", "N=1024", "x in [-10, 10]"), ("layernorm(x, w, b, eps=1e-5)", "N=1000", LN),
    ("layernorm(x, eps=1e-5)", "N=256", "x in [-1e3, 1e3]"), ("layernorm(x, eps=1e-3)", "N=50", "x in [0, 1]"),
    ("rmsnorm(x)", "N=1024", D), ("rmsnorm(x, w, eps=1e-5)", "N=1000", D),
    ("matmul(a, b) + bias", "K=256", D), ("relu(matmul(a, b) + bias)", "K=100", D), ("matmul(a, b)", "K=72", "a in [-100, 100]; b in [-100, 100]"),
    ("sigmoid(matmul(a, b))", "K=64", D), ("matmul(a, b) * 0.5 + bias", "K=300", "a in [0, 2]; b in [0, 3]; bias in [-1, 1]"),
    ("softmax(x*0.1)", "N=64", D), ("log_softmax(x*0.1)", "N=64", D),
    ("log(sum(exp(x)))", "N=1000", D), ("max(x) + log(sum(exp(x - max(x))))", "N=100", D), ("logsumexp(x)", "N=256", "x in [-5, 5]"),
    ("logsumexp(x*0.1) - x", "N=64", D), ("cumsum(x)", "N=100", D), ("cumsum(c)", "N=1000", D), ("cumsum(x*y) + cummax(x)", "N=64", D),
]
DTYPES = [("float32", None), ("float16", "float32"), ("float16", None)]
# every fragment the issue names must be certified in float32 and (with a float32 accumulator) float16
MUST_CERTIFY = {"x*y + x/y - sqrt(y)", "sum(x)", "mean(x)", "max(x)", "softmax(x)", "log_softmax(x)", "layernorm(x, eps=1e-5)",
                "rmsnorm(x)", "matmul(a, b) + bias", "relu(matmul(a, b) + bias)", "log(sum(exp(x)))", "cumsum(x)"}
ROWS, SEEDS = 8, (0, 1, 2)

@pytest.mark.parametrize("text,dims,domain", FRAGMENTS, ids=[f"{t}|{d}" for t, d, _ in FRAGMENTS])
@pytest.mark.parametrize("dtype,acc", DTYPES, ids=["f32", "f16-acc32", "f16"])
def test_no_correct_implementation_exceeds_the_bound(text, dims, domain, dtype, acc):
    tb = ToleranceBound(text, dtype, acc, domain=domain, dims=dims)
    if not tb.certified:
        assert tb.status in ("DIVERGENT", "not certified") and tb.reason and tb.total is None
        assert tb.tolerance_kind == "heuristic" and tb.threshold == tb.heuristic > 0
        assert not (text in MUST_CERTIFY and domain is D and (dtype, acc) != ("float16", None) and "overflow" not in tb.reason), tb
        return
    assert tb.tolerance_kind == "certified" and math.isfinite(tb.total) and tb.total >= 0
    assert abs(sum(tb.components.values()) - tb.total) <= 1e-8 * tb.total
    for seed in SEEDS:
        m = measure(tb, rows=ROWS, seed=seed)
        assert m.violations == 0, f"{tb!r}: measured {m.worst:.4g} > bound {tb.total:.4g} at {m.worst_case} (seed {seed})"


def test_the_suite_runs_thousands_of_cases():
    "The soundness claim rests on many cases: count what the parametrised test above runs (self-contained, any order)."
    certified = sum(ToleranceBound(t, dt, acc, domain=dom, dims=d).certified for t, d, dom in FRAGMENTS for dt, acc in DTYPES)
    cases = certified * len(SEEDS) * len(GENERATORS) * len(ORDERS) * ROWS
    assert certified >= 80 and cases >= 100_000, (certified, cases)


MIXED = [  # (spec, dims, domain, input, accumulator, output): reductions with the three formats stated separately
    ("sum(x)", "N=1024", "x in [-50, 50]", "float16", "float32", "float16"), ("sum(x)", "N=1024", "x in [-100, 100]", "float16", "float32", "float32"),
    ("sum(x)", "N=1024", "x in [0, 50]", "float32", "float32", "float16"), ("mean(x)", "N=1000", "x in [-1e3, 1e3]", "bfloat16", "float32", "bfloat16"),
    ("softmax(x)", "N=512", "x in [-1e3, 1e3]", "float16", "float32", "float16"), ("logsumexp(x)", "N=512", "x in [-1e3, 1e3]", "float16", "float32", "float32"),
    ("cumsum(x)", "N=256", "x in [-10, 10]", "float16", "float32", "float16"), ("rmsnorm(x)", "N=512", "x in [-100, 100]", "bfloat16", "float32", "bfloat16"),
    ("matmul(a, b) + bias", "K=256", "a in [-1, 1]; b in [-1, 1]; bias in [-1, 1]", "float16", "float32", "float16"),
]


@pytest.mark.parametrize("text,dims,domain,dt,acc,out", MIXED, ids=[f"{t}|{i}/{a}/{o}" for t, _, _, i, a, o in MIXED])
def test_mixed_formats_are_sound_and_each_format_counts(text, dims, domain, dt, acc, out):
    tb = ToleranceBound(Spec(text, domain=domain, dims=dims, dtypes=f"in={dt}, acc={acc}, out={out}"))
    assert tb.certified and (tb.dtype, tb.acc_dtype, tb.out_dtype) == (dt, acc, out), tb
    for seed in SEEDS[:2]:
        m = measure(tb, rows=ROWS, seed=seed)
        assert m.violations == 0, f"{tb!r}: measured {m.worst:.4g} > bound {tb.total:.4g} at {m.worst_case}"
    wide_out = ToleranceBound(text, dt, acc, domain=domain, dims=dims, out_dtype="float64")
    assert wide_out.components["dtype_cast"] <= tb.components["dtype_cast"]               # a narrower store costs a dtype_cast term
    assert (tb.components["dtype_cast"] > 0) == (out != acc)



def test_fp16_accumulation_at_2048_is_divergent():
    for text, dt, acc, dims in [("matmul(a, b)", "float16", None, "K=2048"), ("matmul(a, b) + bias", "float32", "float16", "K=4096"),
                                ("sum(x)", "float32", "float16", "N=2048"), ("mean(x)", "float16", None, "N=2048")]:
        tb = ToleranceBound(text, dt, acc, domain="x in [-1e-3, 1e-3]; a in [-1, 1]; b in [-1, 1]; bias in [-1, 1]", dims=dims)
        assert tb.status == "DIVERGENT" and tb.total is None and tb.components is None and "n*u" in tb.reason, tb
    assert ToleranceBound("matmul(a, b)", "float16", domain="a in [-1, 1]; b in [-1, 1]", dims="K=1024").certified


def test_reference_is_exact_enough():
    "The float64 reference, against mpmath at 50 digits, on the rows most likely to hurt it: its own error is < 1e-6 of any bound."
    mpmath.mp.dps = 50
    cases = [("softmax(x)", "x in [-1e3, 1e3]"), ("log_softmax(x)", "x in [-1e3, 1e3]"), ("layernorm(x, eps=1e-5)", "x in [-10, 10]"),
             ("rmsnorm(x)", "x in [-1e3, 1e3]"), ("sum(x*x)", "x in [-1e3, 1e3]"), ("mean(x)", "x in [-1e3, 1e3]")]
    for text, dom in cases:
        spec = Spec(text, domain=dom, dims="N=96")
        bound = ToleranceBound(spec, "float32").total
        lo, hi = spec.domain["x"]
        for kind in ("cancellation", "ill_conditioned", "near_constant", "one_dominant", "half_ulp_tail"):
            x = adversarial_rows(kind, lo, hi, 2, 96, "float32", seed=3).astype(np.float64)
            ref = spec.reference({"x": x})
            for i in range(2):
                xs = [mpmath.mpf(float(v)) for v in x[i]]
                n = len(xs)
                if text == "softmax(x)" or text == "log_softmax(x)":
                    mx = max(xs); tot = mpmath.fsum(mpmath.exp(v - mx) for v in xs)
                    exact = [mpmath.exp(v - mx) / tot for v in xs] if text == "softmax(x)" else [v - mx - mpmath.log(tot) for v in xs]
                elif text.startswith("layernorm"):
                    mu = mpmath.fsum(xs) / n; var = mpmath.fsum((v - mu) ** 2 for v in xs) / n
                    exact = [(v - mu) / mpmath.sqrt(var + mpmath.mpf(1e-5)) for v in xs]
                elif text == "rmsnorm(x)":
                    ms = mpmath.fsum(v * v for v in xs) / n
                    exact = [v / mpmath.sqrt(ms + mpmath.mpf(1e-6)) for v in xs]
                elif text == "sum(x*x)": exact = [mpmath.fsum(v * v for v in xs)]
                else: exact = [mpmath.fsum(xs) / n]
                gap = max(abs(float(e - r)) for e, r in zip(exact, np.ravel(ref[i])))
                assert gap <= 1e-6 * bound, (text, kind, gap, bound)


@pytest.mark.parametrize("order", ORDERS)
def test_reduction_orders_are_real_and_within_higham(order):
    x = adversarial_rows("large_same_sign", -1e3, 1e3, 16, 777, "float32", seed=5)
    got = reduce_sum(x, order).astype(np.float64)
    exact = np.array([math.fsum(r) for r in x.astype(np.float64)])
    g = 776 * 2.0 ** -24 / (1 - 776 * 2.0 ** -24)
    assert (np.abs(got - exact) <= g * np.abs(x.astype(np.float64)).sum(axis=1)).all()


def _worst_error(spec, dtype, run):
    worst = 0.0
    for kind in GENERATORS:
        inputs = {k: adversarial_rows(kind, *spec.domain[k], 8, spec.dims["N"], dtype, seed=11) for k in spec.inputs}
        ref = spec.reference({k: v.astype(np.float64) for k, v in inputs.items()})
        with np.errstate(all="ignore"):
            err = np.abs(run(inputs).astype(np.float64) - ref)
        worst = max(worst, float(np.nan_to_num(err, nan=np.inf).max()))
    return worst


def test_the_suite_can_fail():
    "Incorrect implementations do exceed the bound, so the zero above is not vacuous."
    s = Spec("sum(x)", domain="x in [-1e3, 1e3]", dims="N=4096")
    tb = ToleranceBound(s, "float32")
    assert _worst_error(s, "float32", lambda inp: s.evaluate(inp, "float32", acc_dtype="float16")) > tb.total   # fp16 accumulator
    s = Spec("layernorm(x, eps=1e-5)", domain="x in [-10, 10]", dims="N=64")
    tb = ToleranceBound(s, "float32")
    def unbiased(inp):   # torch.var's default: divides by N-1, so |y| is off by about |y|/(2N)
        x = inp["x"].astype(np.float32); mu = reduce_sum(x, "sequential")[:, None] / np.float32(64)
        d = x - mu; var = reduce_sum(d * d, "sequential")[:, None] / np.float32(63)
        return d / np.sqrt(var + np.float32(1e-5))
    assert _worst_error(s, "float32", unbiased) > tb.total
    s = Spec("softmax(x)", domain="x in [-1e3, 1e3]", dims="N=1024")
    tb = ToleranceBound(s, "float32")
    def no_max_shift(inp):
        with np.errstate(all="ignore"):
            e = np.exp(inp["x"].astype(np.float32)); return e / reduce_sum(e, "pairwise")[:, None]
    assert _worst_error(s, "float32", no_max_shift) > tb.total
    s = Spec("logsumexp(x)", domain="x in [-1e3, 1e3]", dims="N=256")
    tb = ToleranceBound(s, "float32")
    def lse_no_shift(inp):
        with np.errstate(all="ignore"): return np.log(reduce_sum(np.exp(inp["x"].astype(np.float32)), "pairwise"))[:, None]
    assert _worst_error(s, "float32", lse_no_shift) > tb.total
    s = Spec("sum(x)", domain="x in [-10, 10]", dims="N=1024")
    tb = ToleranceBound(s, "float16", "float32", out_dtype="float32")       # fp16 in, fp32 accumulate, fp32 out
    assert _worst_error(s, "float16", lambda inp: s.evaluate(inp, "float16", "float32", out_dtype="float16")) > tb.total


def test_entry_point_contract():
    "What the falsifier reads: total, components, status, tolerance_kind, threshold, pairwise; spec text or object."
    tb = ToleranceBound("softmax(x)", "float16", "float32", domain={"x_ptr": [-1e3, 1e3]}, dims={"M": 4, "N": 1000, "P": 0})
    assert tb.status == "certified" and tb.certified and tb.tolerance_kind == "certified"
    assert set(tb.components) == {"rounding", "reduction_order", "libm", "dtype_cast"} and tb.components["dtype_cast"] > 0
    assert tb.threshold == tb.total and tb.pairwise == 2 * tb.total and tb.fragment.kind == "norm:softmax"
    same = ToleranceBound(Spec("softmax(x)", domain="x in [-1e3, 1e3]", dims="N=1000"), np.float16, np.float32)
    assert same.total == tb.total
    assert ToleranceBound(same.spec, "float16", "float32", dims="N=10").total < tb.total    # dims override
    nc = ToleranceBound("where(x > 0, x, 0)", domain="x in [-1, 1]")
    assert nc.status == "not certified" and "control flow" in nc.reason and nc.tolerance_kind == "heuristic"


def test_bounds_are_tight_enough_that_a_tenfold_looser_one_fails():
    "A tolerance 10x too loose must be caught: on every certified fragment kind the adversarial search reaches more than a tenth of the bound."
    for text, dims, dom, dt, acc in [("sum(x)", "N=1024", "x in [-1e3, 1e3]", "float32", None), ("mean(x)", "N=1000", "x in [-1e3, 1e3]", "float32", None),
                                     ("cumsum(x)", "N=512", "x in [0, 1e3]", "float32", None), ("sum(c)", "N=1024", "c in [0, 10]", "float16", None),
                                     ("x*y + x/y - sqrt(y)", "N=64", "x in [-1e3, 1e3]; y in [0.5, 4]", "float32", None),
                                     ("exp(x*0.1)", "N=64", "x in [-10, 10]", "float32", None), ("log(y)", "N=64", "y in [0.5, 4]", "float32", None),
                                     ("softmax(x)", "N=64", "x in [-10, 10]", "float32", None), ("softmax(x)", "N=64", "x in [-10, 10]", "float16", "float32"),
                                     ("log_softmax(x)", "N=64", "x in [-10, 10]", "float32", None), ("logsumexp(x)", "N=64", "x in [-10, 10]", "float32", None),
                                     ("layernorm(x, eps=1e-5)", "N=64", "x in [-10, 10]", "float32", None), ("rmsnorm(x)", "N=64", "x in [-10, 10]", "float32", None),
                                     ("layernorm(x, eps=1e-5)", "N=256", "x in [-1, 1]", "float16", "float32"),
                                     ("matmul(a, b)", "K=64", "a in [0, 1]; b in [0, 1]", "float32", None),
                                     ("matmul(a, b)", "K=64", "a in [0, 1]; b in [0, 1]", "float16", "float32"),
                                     ("matmul(a, b)", "K=64", "a in [0, 1]; b in [0, 1]", "float16", None)]:
        tb = ToleranceBound(text, dt, acc, domain=dom, dims=dims)
        m = measure(tb, rows=ROWS, seed=0)
        assert m.violations == 0 and m.tightness < 10, (tb, m)


def test_threshold_sits_at_the_bound():
    "An output 0.9x the tolerance away from the reference passes, 1.1x fails, for certified and heuristic tolerances alike."
    rng = np.random.default_rng(0)
    for tb in [ToleranceBound("softmax(x)", "float32", domain="x in [-1e3, 1e3]", dims="N=1024"),
               ToleranceBound("cumsum(x)", "float16", "float32", domain="x in [-10, 10]", dims="N=100"),
               ToleranceBound("sort(x)", "float32", domain="x in [-1, 1]", dims="N=100")]:
        ref = rng.uniform(-1, 1, (3, 100))
        sign = rng.choice([-1.0, 1.0], ref.shape)
        for k in (0.9, 1.1):
            got = ref.copy(); got[1, 7] += sign[1, 7] * k * tb.threshold
            assert (tb.exceeded_by(got, ref) > 1) == (k > 1), (tb, k)


def test_scan_bound_grows_with_length_and_a_half_accumulator_breaks_it():
    "gamma_{k-1} per prefix, worst at N: a correct float32 cumsum of 100 is inside, a float16 accumulator is not."
    totals = [ToleranceBound("cumsum(x)", "float32", domain="x in [0, 1e3]", dims=f"N={n}").total for n in (10, 100, 1000)]
    assert totals[0] * 50 < totals[1] and totals[1] * 50 < totals[2]          # ~ N * gamma_{N-1}: quadratic in N
    s = Spec("cumsum(x)", domain="x in [0, 100]", dims="N=100")          # prefix sums stay finite in float16
    tb = ToleranceBound(s, "float32")
    x = adversarial_rows("large_same_sign", 0, 100, 8, 100, "float32", seed=4)
    ref = s.reference({"x": x})
    for order in ORDERS:
        assert tb.exceeded_by(s.evaluate({"x": x}, "float32", order=order), ref) <= 1, order
    half = s.evaluate({"x": x}, "float32", acc_dtype="float16")
    assert np.isfinite(half).all() and tb.exceeded_by(half, ref) > 1
    assert np.allclose(ref[:, -1], s.reference({"x": x})[:, -1]) and ref.shape == x.shape


def test_logsumexp_spellings_share_one_certified_bound():
    "log(sum(exp(x))), the max-shifted form and logsumexp(x) are one function with one bound; without R4 there is none."
    bounds = [ToleranceBound(t, "float32", domain="x in [-1e3, 1e3]", dims="N=1000")
              for t in ("log(sum(exp(x)))", "max(x) + log(sum(exp(x - max(x))))", "log(sum(exp(x - max(x)))) + max(x)", "logsumexp(x)")]
    assert all(b.certified and b.fragment.kind == "norm:logsumexp" for b in bounds) and len({b.total for b in bounds}) == 1
    assert ToleranceBound("logsumexp(x)", domain="x in [-1e3, 1e3]", dims="N=1000", lemmas=("R1", "R2", "R3")).status == "not certified"
    assert Spec("x - log(sum(exp(x)))", domain="x in [-1, 1]", dims="N=4").classify().kind == "norm:log_softmax"

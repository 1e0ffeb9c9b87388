"""Every composed transcendental of limn.tensor (tanh, sigmoid, SiLU, softplus, erf, GELU in both forms, sin, cos,
log_softmax, logsumexp) is within ULP_BOUND float32 ulps of its float64 (or mpmath) value over a dense sweep of the whole
float32 range, subnormals, both signs, the extreme ends, inf and NaN included, on the numpy and c devices; float64 inputs
of tanh, sigmoid, sin and cos stay within F64_BOUND float64 ulps; every gradient matches torch's, and a gradient through two
tanh calls is as close to float64 as torch's float32 one; and powers follow torch (a negative base to an integer power is
real, an int base wraps in its own dtype, a float x ** n is within half an ulp and a sliver of the exact power).

The bound is set by the primitives, not by the compositions: numpy's float32 exp and log are themselves within 2.3 and
3 ulps (the c device's glibc within 1), and a composition adds a division or two. The sweep: every power of two from
2**-149 to 2**127 times 1 and 1.5 and the float just below it, the largest float, 20000 random bit patterns (uniform over
the float32 encodings, so every binade is hit as often as every other), 20000 draws from [-20, 20] and 5000 from
[-1e-3, 1e-3] (where tanh used to cancel), each with both signs, plus +-0, +-inf and NaN.

Below them, the c device's own EXP and LOG (limn.backend_c's LIMN_EXP and LIMN_LOG, branch-free code that GCC vectorises)
are held to limn.backend_c.ULP_BOUNDS against mpmath: float32 on every threshold and special value, every power of two and
a dense sample; float64 on a sample with its overflow and underflow thresholds; C99's values at the specials; the loops
vectorised by the device's flags; and, under -m long, all 2**32 float32 inputs against glibc's double exp and log."""
import math
import numpy as np
import pytest
import mpmath
import torch
from limn import Tensor, use_device, grad
from limn.ops import float64

ULP_BOUND = 5.0
F64_BOUND = 4.0
DEVICES = ["numpy", "c"]


def float32_sweep() -> np.ndarray:
    rng = np.random.default_rng(25)
    powers = np.ldexp(1.0, np.arange(-149, 128)).astype(np.float32)
    below = np.nextafter(powers, np.float32(0))
    bits = rng.integers(0, 0x7F800000, 20000).astype(np.uint32).view(np.float32)      # every finite positive encoding
    dense = rng.uniform(0, 20, 20000).astype(np.float32)
    tiny = rng.uniform(0, 1e-3, 5000).astype(np.float32)
    positive = np.concatenate([powers, powers[:-1] * np.float32(1.5), below, [np.finfo(np.float32).max], bits, dense, tiny])
    return np.concatenate([positive, -positive, [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)


X32 = float32_sweep()
X = X32.astype(np.float64)


def ulps(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    "float32 ulps between `got` and the float64 `exact` (a subnormal's ulp is 2**-149); NaN against NaN and equal infinities are 0."
    with np.errstate(all="ignore"):
        e32 = exact.astype(np.float32)
        step = np.maximum(np.spacing(np.abs(np.where(np.isinf(e32), np.float32(3e38), e32))).astype(np.float64), 2.0 ** -149)
        err = np.abs(got.astype(np.float64) - exact) / step
    err = np.where((np.isnan(got) & np.isnan(exact)) | (np.isinf(got) & (got == e32)), 0, err)
    return np.where(np.isnan(got) != np.isnan(exact), np.inf, err)


def softplus64(x):
    with np.errstate(all="ignore"): return np.where(x > 20, x, np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))))


def exact_values(x=X) -> dict:
    "Each function's float64 value at x, by formulas that do not cancel in float64 over float32's range."
    with np.errstate(all="ignore"):
        erfc = np.vectorize(math.erfc)
        sig = np.where(x < 0, np.exp(x) / (1 + np.exp(x)), 1 / (1 + np.exp(-x)))
        inner = 2 * math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)
        return {"tanh": np.tanh(x), "sigmoid": sig, "silu": x * sig, "softplus": softplus64(x),
                "erf": np.vectorize(math.erf)(x), "gelu_none": x * 0.5 * erfc(-x / math.sqrt(2)),
                "gelu_tanh": x * np.where(inner < 0, np.exp(inner) / (1 + np.exp(inner)), 1 / (1 + np.exp(-inner))),
                "sin": np.sin(x), "cos": np.cos(x),
                "log_softmax": -softplus64(-x), "logsumexp": softplus64(x)}


def with_torch_specials(exact: dict) -> dict:
    "At +-inf and NaN the answer is a convention, not a number: torch's (in float64) is the one to follow."
    special = ~np.isfinite(X)
    for name, values in exact.items():
        values[special] = TORCH[name](torch.tensor(X[special])).numpy()
    return exact


FUNCTIONS = {
    "tanh": lambda t: t.tanh(), "sigmoid": lambda t: t.sigmoid(), "silu": lambda t: t.silu(), "softplus": lambda t: t.softplus(),
    "erf": lambda t: t.erf(), "gelu_none": lambda t: t.gelu(approximate="none"), "gelu_tanh": lambda t: t.gelu(approximate="tanh"),
    "sin": lambda t: t.sin(), "cos": lambda t: t.cos(),
    "log_softmax": lambda t: Tensor.stack([t, t.zeros_like()], 1).log_softmax(1)[:, 0],     # log_softmax([x, 0])[0]
    "logsumexp": lambda t: Tensor.stack([t, t.zeros_like()], 1).logsumexp(1),                # logsumexp([x, 0])
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_worst_ulp_error_over_the_float32_range(name, device):
    with use_device(device), np.errstate(all="ignore"):
        got = FUNCTIONS[name](Tensor(X32)).numpy()
    err = ulps(got, EXACT[name])
    worst = int(np.argmax(err))
    print(f"{name} on {device}: worst {err[worst]:.2f} ulps at x = {X32[worst]!r}")
    assert err[worst] <= ULP_BOUND, f"{name}({X32[worst]!r}) = {got[worst]!r}, exact {EXACT[name][worst]!r}: {err[worst]:.1f} ulps"


def test_sin_cos_at_huge_arguments_against_mpmath():
    mpmath.mp.prec = 200
    rng = np.random.default_rng(7)
    x = np.concatenate([np.ldexp(rng.uniform(1, 2, 300), rng.integers(20, 128, 300)), [np.finfo(np.float32).max,
                        np.float32(16367173.0), np.float32(2 ** 24 + 1)]]).astype(np.float32)   # 16367173 is close to a multiple of pi/2
    for fn, ref in (("sin", mpmath.sin), ("cos", mpmath.cos)):
        got = getattr(Tensor(x), fn)().numpy()
        exact = np.array([float(ref(mpmath.mpf(float(v)))) for v in x])
        assert ulps(got, exact).max() <= 1.0, fn


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "sin", "cos"])
def test_float64_inputs_stay_within_a_few_float64_ulps(name):
    rng = np.random.default_rng(3)
    x = np.concatenate([np.ldexp(1.0, np.arange(-1074, 127, 5)), rng.uniform(-20, 20, 3000), rng.uniform(-1e6, 1e6, 1000),
                        np.ldexp(rng.uniform(1, 2, 500), rng.integers(-60, 127, 500))])
    x = np.concatenate([x, -x])
    with np.errstate(all="ignore"):
        exact = {"tanh": np.tanh(x), "sigmoid": np.where(x < 0, np.exp(x) / (1 + np.exp(x)), 1 / (1 + np.exp(-x))),
                 "sin": np.sin(x), "cos": np.cos(x)}[name]
    got = FUNCTIONS[name](Tensor(x)).numpy()
    assert got.dtype == np.float64
    err = np.abs(got - exact) / np.maximum(np.spacing(np.abs(exact)), 2.0 ** -1074)
    assert err.max() <= F64_BOUND, (name, err.max(), x[np.argmax(err)])


TORCH = {"tanh": torch.tanh, "sigmoid": torch.sigmoid, "silu": torch.nn.functional.silu, "softplus": torch.nn.functional.softplus,
         "erf": torch.erf, "gelu_none": torch.nn.functional.gelu, "gelu_tanh": lambda t: torch.nn.functional.gelu(t, approximate="tanh"),
         "sin": torch.sin, "cos": torch.cos,
         "log_softmax": lambda t: torch.stack([t, torch.zeros_like(t)], 1).log_softmax(1)[:, 0],
         "logsumexp": lambda t: torch.stack([t, torch.zeros_like(t)], 1).logsumexp(1)}


EXACT = with_torch_specials(exact_values())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_gradient_matches_torch(name, device):
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-8, 8, 400), rng.uniform(-1e-3, 1e-3, 50), [-30.0, -5.0, 0.0, 5.0, 30.0, 1e4]]).astype(np.float32)
    w = rng.standard_normal(x.size).astype(np.float32)
    with use_device(device):
        t = Tensor(x, requires_grad=True)
        (FUNCTIONS[name](t) * Tensor(w)).sum().backward()
        g = t.grad.numpy()
    tt = torch.tensor(x, requires_grad=True)                                      # torch's float32 gradient, the same formulas
    (TORCH[name](tt) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(g, tt.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_log_softmax_of_a_confident_row_keeps_its_digits():
    row = np.array([[30.0, 0.0, -5.0]], np.float32)                              # p(top) = 1 - 9.4e-14
    got = Tensor(row).log_softmax(1).numpy()[0, 0]
    exact = -math.log1p(math.exp(-30.0) + math.exp(-35.0))
    assert abs(got - exact) <= 2 * np.spacing(np.float32(abs(exact))), (got, exact)
    assert Tensor([[-math.inf, -math.inf], [math.inf, 0.0]]).logsumexp(1).tolist() == [-math.inf, math.inf]


def test_gradient_through_two_tanh_calls_is_close_to_float64():
    x = np.linspace(-3, 3, 601, dtype=np.float32)
    t = Tensor(x, requires_grad=True)
    t.tanh().tanh().sum().backward()
    t64 = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    t64.tanh().tanh().sum().backward()
    t32 = torch.tensor(x, requires_grad=True)
    t32.tanh().tanh().sum().backward()
    ours = np.abs(t.grad.numpy() - t64.grad.numpy()).max() / np.abs(t64.grad.numpy()).max()
    theirs = np.abs(t32.grad.numpy() - t64.grad.numpy()).max() / np.abs(t64.grad.numpy()).max()
    assert ours <= max(2 * theirs, 2.5e-7), (ours, theirs)        # it was 3.3e-4 with tanh = 2 sigmoid(2x) - 1


def test_float_dtype_follows_the_input_and_ints_become_float32():
    assert Tensor([1, 2]).tanh().dtype.name == "float32" and Tensor(np.array([0.5])).sin().dtype is float64
    with pytest.raises(ValueError, match="approximate"): Tensor([1.0]).gelu(approximate="erf")


@pytest.mark.parametrize("device", DEVICES)
def test_powers_follow_torch(device):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(5000) * 3).astype(np.float32)
    with use_device(device):
        assert (Tensor([-2.0]) ** 65).item() == torch.tensor([-2.0]).pow(65).item() == -(2.0 ** 65)
        wrapped = Tensor([3, -7]) ** 70
        assert wrapped.dtype.name == "int32"                                       # never silently a float
        assert wrapped.tolist() == (torch.tensor([3, -7], dtype=torch.int32) ** 70).tolist()   # 3**70 mod 2**32, as torch's int32
        assert (Tensor(np.array([2], np.int8)) ** 7).tolist() == [-128]
        with pytest.raises(ValueError, match="negative int power"): Tensor([2]) ** -1
        for n in (3, 5, -3, 13, 65, -65, 1000):
            got = (Tensor(x) ** n).numpy()
            with np.errstate(all="ignore"): exact = x.astype(np.float64) ** n
            assert ulps(got, exact).max() <= 0.5 + 2 ** -5, n             # float64 squarings, rounded once
        base = np.array([-2.0, 2.0, -3.0, 0.0, -2.0, 5.0, np.nan, np.inf, 2.0], np.float32)
        expo = np.array([3.0, 0.5, 2.0, 0.0, 2.5, -1.0, 0.0, 0.0, np.nan], np.float32)
        got = (Tensor(base) ** Tensor(expo)).numpy()
    np.testing.assert_array_equal(got, (torch.tensor(base) ** torch.tensor(expo)).numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_power_gradients_match_torch(device):
    x = np.array([-2.5, -1.0, 0.5, 1.5, 3.0], np.float32)
    e = np.array([2.0, 3.0, 0.0, -1.5, 2.0], np.float32)                           # d/de of x ** e at e = 0 is log x
    for spell in (lambda a, b: a ** 3, lambda a, b: a ** -2, lambda a, b: a ** 65, lambda a, b: a.abs() ** b, lambda a, b: 2 ** a,
                  lambda a, b: 3 ** b):
        with use_device(device):
            t, te = Tensor(x, requires_grad=True), Tensor(e, requires_grad=True)
            out = spell(t, te)
            gs = [g.numpy() for g in grad(out.sum(), [t, te], allow_unused=True) if g is not None]
        tt, tte = torch.tensor(x, requires_grad=True), torch.tensor(e, requires_grad=True)
        tg = [g.numpy() for g in torch.autograd.grad(spell(tt, tte).sum(), [tt, tte], allow_unused=True) if g is not None]
        for a, b in zip(gs, tg): np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_widths_compute_in_float32_and_round_once(dtype):
    x = np.concatenate([np.linspace(-12, 12, 481), [-0.01, 1e-3, 3e-5]]).astype(np.float32)
    tdt = getattr(torch, dtype)
    half = Tensor(x).cast(dtype)
    exact = exact_values(torch.tensor(x).to(tdt).double().numpy())          # at the half-width inputs
    for name in ("tanh", "sigmoid", "silu", "softplus", "erf", "gelu_none", "gelu_tanh", "sin", "cos", "log_softmax", "logsumexp"):
        got = FUNCTIONS[name](half)
        assert got.dtype.name == dtype
        want = torch.tensor(exact[name]).float().to(tdt)                      # the float32 answer, rounded once more
        np.testing.assert_array_equal(got.cast("float32").numpy(), want.float().numpy(), err_msg=name)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_every_composition_compiles_for_cuda_under_nvrtc(dtype):
    "The cuda device has no GPU here, but its source must compile: float64 working precision, the rounding constant, casts."
    from limn.schedule import schedule
    from limn.codegen import lower_schedule
    from limn.cuda_emit import emit
    from limn.backend_cuda import Nvrtc, CudaUnavailable
    try: nvrtc = Nvrtc()
    except CudaUnavailable as e: pytest.skip(f"NVRTC is not installed here ({e})")
    x = Tensor(np.linspace(-5, 5, 64, dtype=np.float32)).cast(dtype)
    for name, build in FUNCTIONS.items():
        for kernel in lower_schedule(schedule([build(x).node])).kernels:
            nvrtc.compile(emit(kernel).source, max(nvrtc.archs))


# --- the c device's own exp and log (limn.backend_c.LIMN_EXP / LIMN_LOG): ulp bounds, specials, vectorisation ---

from limn.backend_c import ULP_BOUNDS, PRELUDE, find_cc, probe_flags


def primitive_sweep32() -> np.ndarray:
    "Every exp/log threshold and special value, each binade's ends, and a dense sample (uniform over the bit patterns)."
    rng = np.random.default_rng(28)
    f = np.float32
    edges = np.array([88.72283, 88.722839, 88.72284, -87.33654, -87.33655, -103.27893, -103.97207, -103.972084, -104.0,
                      1e-45, 1.1754942e-38, 1.17549435e-38, 3.4028235e38, 1.0, 2.0 ** -24, 0.5, 0.70710677, 1.4142135],
                     np.float32)
    with np.errstate(over="ignore"):                                       # the float after the largest is inf
        edges = np.concatenate([edges, np.nextafter(edges, f(np.inf)), np.nextafter(edges, f(-np.inf))])
    powers = np.ldexp(1.0, np.arange(-149, 128)).astype(np.float32)
    bits = rng.integers(0, 0x7F800000, 30000).astype(np.uint32).view(np.float32)
    dense = rng.uniform(-104, 89, 20000).astype(np.float32)
    near_one = (1 + rng.uniform(-0.3, 0.42, 5000)).astype(np.float32)
    positive = np.concatenate([edges, powers, np.nextafter(powers, f(0)), bits, near_one])
    return np.concatenate([positive, -positive, dense, [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)


def mp_exact(name: str, x: np.ndarray) -> np.ndarray:
    "exp or log at every x by mpmath at 80 bits (a float64 result, exact to well under a float32 ulp), C99's specials."
    mpmath.mp.prec = 80
    fn = {"exp": mpmath.exp, "log": mpmath.log}[name]
    out = np.empty(x.size)
    for i, v in enumerate(x.astype(np.float64)):
        if not math.isfinite(v) or (name == "log" and v <= 0):
            with np.errstate(all="ignore"):
                out[i] = np.exp(v) if name == "exp" else np.log(v)
        else:
            out[i] = float(fn(mpmath.mpf(v)))
    return out


def ulps64(got: np.ndarray, exact_mp) -> float:
    "The worst float64 ulp error of `got` against mpmath values (a list of mpf); NaN against NaN and equal infinities count 0."
    worst = 0.0
    for g, e in zip(got, exact_mp):
        if isinstance(e, float) and (math.isnan(e) or math.isinf(e)):
            assert (math.isnan(g) and math.isnan(e)) or g == e, (g, e)
            continue
        fe = float(e)
        step = max(math.ulp(abs(fe)) if math.isfinite(fe) else math.ulp(1.7976931348623157e308), 2.0 ** -1074)
        worst = max(worst, float(abs(mpmath.mpf(g) - e) / step)) if math.isfinite(g) else math.inf
    return worst


@pytest.mark.parametrize("name", ["exp", "log"])
def test_c_exp_log_float32_within_their_stated_ulps_against_mpmath(name):
    x = primitive_sweep32()
    with use_device("c"), np.errstate(all="ignore"):
        got = getattr(Tensor(x), name)().numpy()
    exact = mp_exact(name, x)
    err = ulps(got, exact)
    worst = int(np.argmax(err))
    assert err[worst] <= ULP_BOUNDS["float32"][name], f"{name}({x[worst]!r}) = {got[worst]!r}, exact {exact[worst]!r}: {err[worst]:.3f} ulps"
    with np.errstate(all="ignore"):
        libm = getattr(np, name)(x.astype(np.float64)).astype(np.float32)        # C99/torch semantics at the specials
    special = ~np.isfinite(libm) | (libm == 0) | ~np.isfinite(x) | (x == 0)
    np.testing.assert_array_equal(got[special], libm[special])
    assert np.array_equal(np.signbit(got[special & (got == 0)]), np.signbit(libm[special & (libm == 0)]))


@pytest.mark.parametrize("name", ["exp", "log"])
def test_c_exp_log_float64_within_their_stated_ulps_against_mpmath(name):
    rng = np.random.default_rng(64)
    if name == "exp":
        x = np.concatenate([rng.uniform(-746, 710, 3000), rng.uniform(-1, 1, 1000), rng.uniform(-1e-8, 1e-8, 200),
                            [709.782712893384, np.nextafter(709.782712893384, 800), -745.1332191019411, -745.1332191019412,
                             -708.3964185322641, -708.39641853226, 0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0]])
    else:
        x = np.concatenate([rng.integers(0, 0x7FF0000000000000, 3000, dtype=np.int64).view(np.float64),
                            1 + rng.uniform(-0.3, 0.42, 1000), [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                            np.nextafter(1.0, 2), np.nextafter(1.0, 0), 0.0, -0.0, -1.0, np.inf, -np.inf, np.nan]])
    with use_device("c"), np.errstate(all="ignore"):
        got = getattr(Tensor(x), name)().numpy()
    mpmath.mp.prec = 120
    fn = {"exp": mpmath.exp, "log": mpmath.log}[name]
    with np.errstate(all="ignore"):
        libm = getattr(np, name)(x)
    exact = [fn(mpmath.mpf(v)) if math.isfinite(v) and (name == "exp" or v > 0) and math.isfinite(l) and l != 0 else float(l)
             for v, l in zip(x, libm)]
    assert ulps64(got, exact) <= ULP_BOUNDS["float64"][name]
    flushed = np.isfinite(libm) & (libm == 0)                 # exp's underflow to 0 at the same inputs as libm
    np.testing.assert_array_equal(got[flushed], libm[flushed])


def test_c_exp_log_loops_vectorise(tmp_path):
    "A loop over exp, log or sqrt of either float width compiles to vector code with the device's flags (GCC's report)."
    cc = find_cc()
    if "clang" in subprocess_output([cc, "--version"]).lower():
        pytest.skip("the vectoriser report is GCC's -fopt-info-vec")
    body = "".join(f"void k_{f}_{T}(const {T} *restrict a, {T} *restrict o, long n) {{ for (long i = 0; i < n; i++) o[i] = {f}(a[i]); }}\n"
                   for f, T in (("limn_expf", "float"), ("limn_logf", "float"), ("limn_exp", "double"), ("limn_log", "double"),
                                ("sqrtf", "float"), ("sqrt", "double")))
    src = tmp_path / "k.c"
    src.write_text(PRELUDE + body)
    report = subprocess_output([cc, *probe_flags(cc), "-fopt-info-vec-optimized", "-shared", "-fPIC", str(src), "-o", str(tmp_path / "k.so")])
    lines = len(PRELUDE.splitlines())
    vectorised = {int(m) - lines for m in __import__("re").findall(r"k\.c:(\d+):\d+: optimized: loop vectorized", report)}
    assert vectorised == set(range(1, 7)), report


def subprocess_output(cmd) -> str:
    import subprocess
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout + r.stderr


EXHAUSTIVE = r"""
#include <stdio.h>
#include <string.h>
static double ulp_err(float g, double e) {          /* float32 ulps of g from glibc's double result e (< 1 double ulp) */
  float ef = (float)e;
  if (isnan(g) || isnan(e)) return isnan(g) && isnan(e) ? 0 : 1e30;
  if (isinf(g) || isinf(ef)) return g == ef ? 0 : 1e30;
  double step = fabsf(ef) == 0x1.fffffep127f ? 0x1p104 : (double)nextafterf(fabsf(ef), INFINITY) - fabsf(ef);
  return fabs((double)g - e) / (step < 0x1p-149 ? 0x1p-149 : step);
}
int main(void) {
  double worst[2] = {0, 0};
  #pragma omp parallel for schedule(static) reduction(max:worst[:2])
  for (int64_t b = 0; b < (1LL << 32); b++) {
    uint32_t u = (uint32_t)b; float x; memcpy(&x, &u, 4);
    double e0 = ulp_err(limn_expf(x), exp((double)x)), e1 = ulp_err(limn_logf(x), log((double)x));
    worst[0] = e0 > worst[0] ? e0 : worst[0];
    worst[1] = e1 > worst[1] ? e1 : worst[1];
  }
  printf("%.6f %.6f\n", worst[0], worst[1]);
  return 0;
}
"""


@pytest.mark.long
def test_c_expf_logf_over_all_float32_inputs(tmp_path):
    "All 2**32 float32 bit patterns against glibc's double exp and log (each under 1 double ulp): about a minute on two cores."
    cc = find_cc()
    (tmp_path / "x.c").write_text(PRELUDE + EXHAUSTIVE)
    subprocess_output([cc, *probe_flags(cc), str(tmp_path / "x.c"), "-o", str(tmp_path / "x"), "-lm"])
    exp_worst, log_worst = map(float, subprocess_output([str(tmp_path / "x")]).split())
    print(f"over all float32: expf {exp_worst:.4f} ulps, logf {log_worst:.4f} ulps")
    assert exp_worst <= ULP_BOUNDS["float32"]["exp"] and log_worst <= ULP_BOUNDS["float32"]["log"]

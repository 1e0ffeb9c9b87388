"""Tests written to kill the survivors of `make mutants` (tools/mutants.py): each holds a rule of the core at the exact
point where a one-token change to it shows (an endpoint, a remainder, a boundary value), against an oracle above the
code (exact Fractions, float64 numpy, mpmath). One class per module, so the mutation check runs only that module's
class (`tests/test_mutation_kills.py::TestAffine`). Each test names, in its docstring, the mutant it was written for."""
import math, random, re
from fractions import Fraction as F
import pytest

import numpy as np
from litmus.affine import Interval, Affine, up, down


def floats(seed, n=200):
    "Seeded floats over many binades and both signs, with the awkward ones (0, +-tiny, exact halves) mixed in."
    rng = random.Random(seed)
    out = [0.0, -0.0, 0.1, -0.1, 0.3, 1.0, 2.0 ** -1074, -(2.0 ** -1074), 1e300, -1e300]
    out += [rng.choice([-1, 1]) * rng.random() * 10.0 ** rng.randint(-8, 8) for _ in range(n)]
    return out


def within_one_ulp_outside(iv: Interval, exact_lo: F, exact_hi: F):
    """Contains [exact_lo, exact_hi], and each finite bound is at most 2 ulps outside it (the outward step plus the
    rounding); an infinite bound is allowed only where the exact value is beyond the largest float."""
    big = F(1.7976931348623157e308)
    ulp = lambda v: F(math.ulp(float(max(-big, min(big, v)))))
    if math.isinf(iv.lo): assert iv.lo < 0 and exact_lo < -big, (iv, float(exact_lo))
    else:
        assert F(iv.lo) <= exact_lo, (iv, float(exact_lo))
        assert exact_lo - F(iv.lo) <= 2 * ulp(exact_lo), (iv.lo, float(exact_lo))
    if math.isinf(iv.hi): assert iv.hi > 0 and exact_hi > big, (iv, float(exact_hi))
    else:
        assert exact_hi <= F(iv.hi), (iv, float(exact_hi))
        assert F(iv.hi) - exact_hi <= 2 * ulp(exact_hi), (iv.hi, float(exact_hi))


class TestAffine:
    def test_interval_arithmetic_encloses_exact_endpoint_results(self):
        """+, -, * and / of intervals against exact Fractions at the endpoints, where outward rounding matters, and
        no looser than two ulps (kills a bound not rounded outward, and an endpoint or sign swapped)."""
        xs = floats(1)
        rng = random.Random(2)
        for _ in range(300):
            a, b = sorted(rng.sample(xs, 2)); c, d = sorted(rng.sample(xs, 2))
            x, y = Interval(a, b), Interval(c, d)
            ends = [F(p) * F(q) for p in (a, b) for q in (c, d)]
            within_one_ulp_outside(x + y, F(a) + F(c), F(b) + F(d))
            within_one_ulp_outside(x - y, F(a) - F(d), F(b) - F(c))
            within_one_ulp_outside(x * y, min(ends), max(ends))
            assert (-x).lo == -b and (-x).hi == -a
            if c > 0 or d < 0:
                q = x / y
                quots = [F(p) / F(r) for p in (a, b) for r in (c, d)]
                assert (q.lo == -math.inf or F(q.lo) <= min(quots)) and (q.hi == math.inf or max(quots) <= F(q.hi))

    def test_square_abs_min_max_at_the_endpoints(self):
        "sqr, abs, mag, mig, maximum, minimum, hull, meet on intervals that straddle, touch and miss zero."
        for a, b in [(-3.0, 2.0), (-2.0, 3.0), (0.0, 0.1), (-0.1, 0.0), (0.3, 0.7), (-0.7, -0.3), (0.5, 2.0), (-2.0, -0.5), (-1e-300, 1e300)]:
            x = Interval(a, b)
            squares = [F(a) ** 2, F(b) ** 2] + ([F(0)] if a <= 0 <= b else [])
            within_one_ulp_outside(x.sqr(), min(squares), max(squares))
            mig = 0.0 if a <= 0 <= b else min(abs(a), abs(b))
            assert (x.mag, x.mig) == (max(abs(a), abs(b)), mig)
            assert (abs(x).lo, abs(x).hi) == (mig, max(abs(a), abs(b)))
            y = Interval(0.5 * a - 0.1, 0.5 * b + 0.05)
            assert (x.maximum(y).lo, x.maximum(y).hi) == (max(a, y.lo), max(b, y.hi))
            assert (x.minimum(y).lo, x.minimum(y).hi) == (min(a, y.lo), min(b, y.hi))
            assert (x.hull(y).lo, x.hull(y).hi) == (min(a, y.lo), max(b, y.hi))
            assert x.nonneg() == (a >= 0) and x.nonpos() == (b <= 0)
            assert (a in x) and (b in x) and (up(b) not in x) and (down(a) not in x)
        assert Interval(1, 3).meet(Interval(2, 5)) == Interval(2, 3)
        assert Interval(1, 2).meet(Interval(2, 5)) == Interval(2, 2)          # touching intervals meet in a point
        with pytest.raises(ValueError): Interval(1, 2).meet(Interval(up(2.0), 5))
        w = Interval(1, 2).widen(0.5)
        assert w.lo < 0.5 and w.hi > 2.5 and 0.5 - w.lo <= 2 * math.ulp(0.5) and w.hi - 2.5 <= 2 * math.ulp(2.5)
        assert Interval(1, 2).width >= 1 and Interval(1, 2).width - 1 <= math.ulp(1.0)

    def test_interval_refuses_nan_and_reversed_bounds(self):
        "Either bound NaN, or lo > hi, is a ValueError naming both (kills `or` -> `and` in the check)."
        for lo, hi in [(math.nan, 1.0), (0.0, math.nan), (2.0, 1.0), (math.nan, math.nan)]:
            with pytest.raises(ValueError, match="lo <= hi"): Interval(lo, hi)
        assert (Interval(3).lo, Interval(3).hi) == (3.0, 3.0) and Interval(-math.inf, math.inf).mag == math.inf

    def test_affine_forms_hold_the_exact_value_at_every_corner_of_the_noise(self):
        """An affine result is a relation, not just a range: at each assignment of the shared noise symbols (corners +-1 and
        random points), the exact value of the operation (Fractions, or mpmath at 60 digits for exp/log/sqrt/rsqrt) lies
        within the result's r of its linear part. Kills a coefficient with a wrong sign, a dropped rounding or
        quadratic term, and a linearisation slope or offset that is off."""
        import mpmath
        mpmath.mp.dps = 60
        rng = random.Random(3)
        M = lambda v: mpmath.mpf(F(v).numerator) / F(v).denominator
        def value(form, e):   # the linear part at noise e, exactly
            return F(form.c) + sum(F(a) * F(e.get(k, 0)) for k, a in form.terms.items())
        def holds(form, exact, e):   # a fresh symbol (x*x, tanh, abs across 0) is free: its coefficient joins r
            slack = M(form.r) + sum(M(abs(a)) for k, a in form.terms.items() if k not in e)
            shared = value(Affine(form.c, {k: a for k, a in form.terms.items() if k in e}), e)
            gap = abs(M(shared) - exact) if not isinstance(exact, F) else M(abs(shared - exact))
            assert gap <= slack * (1 + mpmath.mpf(2) ** -50), (form, float(gap), float(slack))
        for a, b, c, d in [(0.1, 0.7, -0.3, 0.2), (1.5, 2.5, 0.25, 3.0), (-3.0, -1.0, -2.0, 5.0), (0.01, 4.0, 0.5, 0.5000001)]:
            x = Affine.from_interval(Interval(a, b), symbol="x")
            y = Affine.from_interval(Interval(c, d), symbol="y")
            k = 0.1 * (1 + rng.random())
            for e in [{"x": sx, "y": sy} for sx in (-1, 1) for sy in (-1, 1)] + [{"x": rng.uniform(-1, 1), "y": rng.uniform(-1, 1)}
                                                                             for _ in range(6)]:
                vx, vy = value(x, e), value(y, e)
                for form, exact in [(x + y, vx + vy), (x - y, vx - vy), (y - x, vy - vx), (3.0 - x, 3 - vx), (x + 0.1, vx + F(0.1)),
                                    (x * y, vx * vy), (x.scale(k), F(k) * vx), (x * k, F(k) * vx), (-x, -vx), (x * x, vx * vx)]:
                    holds(form, exact, e)
                if vx > 0:
                    holds(x.exp(), mpmath.exp(M(vx)), e); holds(x.log(), mpmath.log(M(vx)), e)
                    holds(x.sqrt(), mpmath.sqrt(M(vx)), e); holds(x.rsqrt(), 1 / mpmath.sqrt(M(vx)), e)
                    holds(x.apply("exp"), mpmath.exp(M(vx)), e)
                holds(x.apply("neg"), -M(vx), e); holds(x.apply("abs"), abs(M(vx)), e)
                holds(x.apply("tanh"), mpmath.tanh(M(vx)), e)
            if a > 0:   # min-range linearisation is tight: the image of [a, b] to 1e-12 of its width (kills a looser slack)
                for name, f in [("exp", math.exp), ("log", math.log), ("sqrt", math.sqrt), ("rsqrt", lambda v: v ** -0.5)]:
                    iv, (lo, hi) = getattr(x, name)().interval(), sorted([f(a), f(b)])
                    assert lo - iv.lo <= 1e-12 * (hi - lo) and iv.hi - hi <= 1e-12 * (hi - lo), (name, a, b, iv)
            iv = (x - x).interval()
            narrow = Affine.from_interval(Interval(a, a + 1e-9 * abs(a)), symbol="n")    # a slack that scales badly shows here
            for name, f in [("exp", math.exp), ("log", math.log), ("sqrt", math.sqrt), ("rsqrt", lambda v: v ** -0.5)]:
                if a > 0:
                    out, (lo, hi) = getattr(narrow, name)().interval(), sorted([f(a), f(a + 1e-9 * abs(a))])
                    assert out.hi - out.lo <= 1.01 * (hi - lo) + 16 * math.ulp(hi), (name, a, out, lo, hi)
            assert iv.lo <= 0 <= iv.hi and iv.hi - iv.lo <= 8 * math.ulp(max(abs(a), abs(b)))     # x - x is 0, up to rounding
            assert F(x.interval().lo) <= F(a) and F(b) <= F(x.interval().hi)

    def test_libm_functions_enclose_mpmath_and_step_out_exactly_two_ulps(self):
        """exp, log, sqrt, rsqrt, tanh, sigmoid, erf over finite, infinite and domain-edge intervals: each bound holds the
        60-digit value, is the float64 result moved out by exactly the documented two ulps (a looser step is a looser
        tolerance, so it is caught too), and respects the function's floor and ceiling. Outside the domain: ValueError."""
        import mpmath
        mpmath.mp.dps = 60
        two_down, two_up = (lambda v: down(down(v))), (lambda v: up(up(v)))
        funcs = {"exp": (lambda v: math.exp(v) if v <= 709.78 else math.inf, mpmath.exp, 0.0, math.inf),
                 "log": (math.log, mpmath.log, -math.inf, math.inf), "sqrt": (math.sqrt, mpmath.sqrt, 0.0, math.inf),
                 "tanh": (math.tanh, mpmath.tanh, -1.0, 1.0), "erf": (math.erf, mpmath.erf, -1.0, 1.0),
                 "sigmoid": (lambda v: 1 / (1 + math.exp(-v)) if v >= -700 else 0.0, lambda v: 1 / (1 + mpmath.exp(-v)), 0.0, 1.0)}
        for name, (f, exact, floor, ceil) in funcs.items():
            for a, b in [(0.1, 0.7), (1.0, 3.0), (2.5, 20.0), (1e-3, 1e3), (0.5, math.inf)] + \
                        ([(-3.0, -0.25), (-0.5, 2.0), (-math.inf, 1.0), (-800.0, -750.0)] if name not in ("log", "sqrt") else []):
                iv = getattr(Interval(a, b), name)()
                want_lo = floor if a == -math.inf else max(floor, two_down(f(a)))
                want_hi = ceil if b == math.inf else min(ceil, two_up(f(b)))
                assert (iv.lo, iv.hi) == (want_lo, want_hi), (name, a, b, iv)
                if a != -math.inf: assert iv.lo <= exact(mpmath.mpf(a)), (name, a)
                if b != math.inf and iv.hi != math.inf: assert exact(mpmath.mpf(b)) <= iv.hi, (name, b)
        assert Interval(0.0, 4.0).sqrt().lo == 0.0 and Interval(709.9, 710.0).exp().hi == math.inf
        assert Interval(709.9, 710.0).exp().lo > 1e308     # e**709.9 is past the largest float: the lower bound stays huge
        for a, b in [(0.25, 4.0), (1e-3, 1e3), (2.0, math.inf)]:
            iv = Interval(a, b).rsqrt()
            assert iv.hi == two_up(1 / math.sqrt(a)) and iv.lo == (0.0 if b == math.inf else two_down(1 / math.sqrt(b)))
            assert iv.lo <= 1 / mpmath.sqrt(mpmath.mpf(b)) and 1 / mpmath.sqrt(mpmath.mpf(a)) <= iv.hi
        for name, (a, b) in [("log", (0.0, 1.0)), ("log", (-1.0, 1.0)), ("sqrt", (-1e-300, 1.0)), ("rsqrt", (0.0, 1.0))]:
            with pytest.raises(ValueError, match="needs an interval"): getattr(Interval(a, b), name)()

    def test_abs_of_a_one_signed_form_keeps_its_symbol(self):
        """abs of a form that never changes sign is the form (or its negation), so x - abs(x) is 0, not a fresh range;
        a range whose end is exactly 0 counts as one-signed (kills `lo >= 0` -> `lo > 0` and `hi <= 0` -> `hi < 0`)."""
        tiny = 2.0 ** -1074                           # a range ends exactly at 0 only where the outward step lands on it
        for sign in (1, -1):
            x = Affine(sign * 3 * tiny, {"x": tiny})
            assert (x.interval().lo, x.interval().hi)[sign < 0] == 0.0
            assert x.apply("abs").terms == {"x": sign * tiny} and x.apply("abs").c == 3 * tiny
        for a, b, sign in [(0.25, 0.75, 1), (0.5, 0.625, 1), (2.0, 3.0, 1), (-0.75, -0.25, -1), (-3.0, -2.0, -1)]:
            x = Affine.from_interval(Interval(a, b), symbol="x")
            iv = (x * sign - x.apply("abs")).interval()
            assert iv.hi - iv.lo <= 8 * math.ulp(max(abs(a), abs(b))), (a, b, iv)
        y = Affine.from_interval(Interval(-1.0, 2.0), symbol="y").apply("abs").interval()
        assert y.lo <= 0.0 and 2.0 <= y.hi

    def test_a_form_from_an_interval_holds_both_endpoints_exactly(self):
        """The centre lo/2 + hi/2 rounds, so the two half-widths differ by up to an ulp of it and the radius must be the
        larger: intervals of adjacent floats (where the centre rounds onto an endpoint) and random ones keep both ends,
        compared as exact Fractions (kills max -> min in from_interval, which gave [1, 1 + ulp] radius 0)."""
        rng = random.Random(5)
        cases = [(v, math.nextafter(v, math.inf)) for v in (1.0, 3.0, -1.0, 0.1, 1e300, -2.0 ** -1070)]
        cases += [tuple(sorted(rng.sample(floats(6), 2))) for _ in range(200)]
        for a, b in cases:
            form = Affine.from_interval(Interval(a, b))
            rad = sum(F(abs(v)) for v in form.terms.values()) + F(form.r)
            assert F(form.c) - rad <= F(a) and F(b) <= F(form.c) + rad, (a, b, form.c, float(rad))

    def test_products_of_forms_with_error_terms_enclose_every_product(self):
        """x*y for forms that carry an anonymous error r beside their centre: every product of a point of x and a point of
        y lies in the result, checked exactly at the corners, where the cross terms |c_x| r_y + |c_y| r_x are needed in full
        (kills `+` -> `-` between the two cross terms)."""
        for (cx, rx), (cy, ry) in [((2.0, 1.0), (3.0, 1.0)), ((-5.0, 0.5), (4.0, 2.0)), ((0.1, 0.3), (-7.0, 0.25))]:
            x, y = Affine(cx, {"s": 0.5}, rx), Affine(cy, {"t": 0.25}, ry)
            out = (x * y).interval()
            xs = [F(cx) + sx * F(0.5) + ex * F(rx) for sx in (-1, 1) for ex in (-1, 1)]
            ys = [F(cy) + sy * F(0.25) + ey * F(ry) for sy in (-1, 1) for ey in (-1, 1)]
            products = [p * q for p in xs for q in ys]
            assert F(out.lo) <= min(products) and max(products) <= F(out.hi), (cx, rx, cy, ry, out, float(max(products)))

    def test_affine_form_of_a_half_infinite_interval_is_refused(self):
        "One infinite end is enough to have no affine form (kills `and` -> `or` in the finiteness check)."
        for lo, hi in [(0.0, math.inf), (-math.inf, 0.0), (-math.inf, math.inf)]:
            with pytest.raises(ValueError, match="bounded interval"): Affine.from_interval(Interval(lo, hi))

    def test_division_by_an_interval_touching_zero_is_the_whole_line(self):
        "A divisor interval that reaches 0 at either end gives (-inf, inf), never a ZeroDivisionError (kills `<=` -> `<`)."
        for d in [Interval(0.0, 2.0), Interval(-2.0, 0.0), Interval(0.0, 0.0), Interval(-1.0, 1.0)]:
            q = Interval(1.0, 2.0) / d
            assert (q.lo, q.hi) == (-math.inf, math.inf), d
        q = Interval(1.0, 2.0) / Interval(up(0.0), 2.0)                     # just off zero: finite below, huge above
        assert q.lo == down(0.5) and q.hi == math.inf or q.hi > 1e300

    def test_zero_times_an_infinite_bound_is_zero(self):
        "[0, 0] * [1, inf] is [0, 0] and [0, 1] * [1, inf] is [0, inf] (to one subnormal): 0*inf counts as 0, never NaN (kills `or` -> `and`)."
        for z in [Interval(0.0, 0.0) * Interval(1.0, math.inf), Interval(-math.inf, math.inf) * Interval(0.0, 0.0),
                  Interval(0.0, 0.0) * Interval(-math.inf, math.inf)]:   # outward rounding leaves it one subnormal wide
            assert z.lo <= 0.0 <= z.hi and max(-z.lo, z.hi) <= 5e-324
        w = Interval(0.0, 1.0) * Interval(1.0, math.inf)
        assert w.lo <= 0.0 and -w.lo <= 5e-324 and w.hi == math.inf

    def test_exp_of_a_form_reaching_709_stays_finite_and_encloses(self):
        """exp of a form whose range ends at exactly 709 (the last argument whose exp is finite in float64) is a finite
        enclosure of exp over the range, checked with mpmath; past it the form is unbounded (kills `<= 709` -> `< 709`)."""
        import mpmath
        mpmath.mp.prec = 80
        c = math.nextafter(709.0, 0.0)
        form = Affine(c); assert form.interval().hi == 709.0                # its range, rounded outward, ends at exactly 709
        iv = form.exp().interval()
        assert math.isfinite(iv.hi) and iv.lo <= mpmath.exp(c) and mpmath.exp(709) <= iv.hi, iv
        with pytest.raises(OverflowError): Affine(709.5).exp()

    def test_abs_of_a_form_that_straddles_zero_encloses_every_point(self):
        """abs of a form over [-2, 0.5] (and others that straddle 0) holds |x| at every value of x's own noise symbol, with
        the other symbols free, checked at the corners and 0 (kills a form reaching above 0 taken as negative, `<= 0` -> `<= 1`)."""
        for lo, hi in [(-2.0, 0.5), (-0.5, 2.0), (-1.0, 0.9)]:
            x = Affine.from_interval(Interval(lo, hi), symbol="x")
            y = x.apply("abs")
            for e in (-1.0, 0.0, 1.0):
                xv = x.c + x.terms["x"] * e
                yc = y.c + y.terms.get("x", 0.0) * e
                rest = y.r + sum(abs(a) for k, a in y.terms.items() if k != "x")
                assert yc - rest - 1e-12 <= abs(xv) <= yc + rest + 1e-12, (lo, hi, e, xv, y.c, y.terms, y.r)

class TestOps:
    def test_numpy_aliases_map_to_int32_and_strangers_are_refused(self):
        "int64, bool and unsigned numpy dtypes land on int32 (kills `in` -> `not in` on the alias table); others raise."
        from limn.ops import to_dtype, int32, DTYPES
        for npd in (np.int64, np.bool_, np.uint8, np.uint16, np.uint32):
            assert to_dtype(npd) is int32 and to_dtype(np.dtype(npd)) is int32
        for name, d in DTYPES.items(): assert to_dtype(name) is d and to_dtype(d.np) is d and to_dtype(d) is d
        for bad in (np.complex64, "float8", object):
            with pytest.raises(TypeError, match="not a limn dtype"): to_dtype(bad)

    def test_node_repr_shows_the_argument_except_for_views(self):
        "A CONST shows its value, a VIEW hides its View, a node without arg shows none (kills `is` -> `is not` in repr)."
        from limn.ops import Node, Ops, float32, int32
        c = Node(Ops.CONST, (), 2.5, float32, (2, 3))
        assert repr(c) == "<CONST 2.5 float32[2, 3]>"
        assert repr(Node(Ops.VIEW, (c,), "a view", float32, (6,))) == "<VIEW float32[6]>"
        assert repr(Node(Ops.ADD, (c, c), None, int32, ())) == "<ADD int32[]>"


class TestAutograd:
    def test_backward_on_a_leaf_itself_returns_its_seed(self):
        """A tape of one tensor (backward called on a leaf) records a template and then reuses it: the leaf's gradient
        is the seed both times (kills order[0] -> order[1] where autograd's templates take the tensor type)."""
        from limn import Tensor
        for seed in (2.0, -3.5):                      # the second leaf has the same structure: a template hit
            x = Tensor(np.arange(3, dtype=np.float32), requires_grad=True)
            x.backward(Tensor(np.full(3, seed, np.float32)))
            np.testing.assert_array_equal(x.grad.numpy(), np.full(3, seed, np.float32))

    def test_templates_tell_apart_tapes_whose_off_tape_parents_trade_places(self):
        """`where(c, b, e)` and `where(c, e, b)` over the same tape differ only in which branch is the tape tensor b:
        the template key numbers the off-tape parents (e0, c, e) past the tape, so the two never share a recorded
        backward. Numbering them down from the tape's end (`len(order) - len(extra)`) gives e the position of b, the
        second tape reuses the first one's template and x's gradient lands on the wrong branch."""
        from limn import Tensor
        cond, scale = np.array([True, False, True]), np.array([2.0, 3.0, 4.0], np.float32)
        for b_first in (True, False):                 # same dtypes, shapes and rules: only the branch order differs
            x = Tensor(np.array([1.0, 2.0, 3.0], np.float32), requires_grad=True)
            b, e, c = x * Tensor(scale), Tensor(np.full(3, 7.0, np.float32)), Tensor(cond)
            (b.where(c, e) if b_first else e.where(c, b)).backward(gradient=np.ones(3, np.float32))
            np.testing.assert_array_equal(x.grad.numpy(), np.where(cond == b_first, scale, 0))

    def test_sigmoid_and_tanh_gradients_match_their_float64_derivatives(self):
        """The composites recorded as one step (sigmoid, tanh) have their own backward rules: each gradient is within
        float32 rounding of the derivative computed in float64 from the input, with a seed that is not all ones (kills
        a changed constant in either rule, e.g. (1 - out) -> (2 - out), which no other fast test of autograd reaches)."""
        from limn import Tensor
        x64 = np.linspace(-4, 4, 17)
        seed = np.linspace(0.5, 2.0, 17).astype(np.float32)
        s, t = 1 / (1 + np.exp(-x64)), np.tanh(x64)
        for name, derivative in (("sigmoid", s * (1 - s)), ("tanh", 1 - t * t)):
            x = Tensor(x64.astype(np.float32), requires_grad=True)
            getattr(x, name)().backward(Tensor(seed))
            np.testing.assert_allclose(x.grad.numpy(), seed * derivative, rtol=1e-5, atol=5e-7, err_msg=name)   # 1 - t*t cancels near |x| = 4

    def test_grad_returns_gradients_without_history_unless_create_graph(self):
        """torch.autograd.grad's default: the gradients it returns record no history (requires_grad False), and with
        create_graph=True they do, so a second derivative can be taken (kills the default create_graph False -> True)."""
        import limn
        from limn import Tensor
        x = Tensor(np.array([1.0, 2.0, 3.0], np.float32), requires_grad=True)
        (g,) = limn.autograd.grad((x * x * x).sum(), x)
        assert not g.requires_grad
        np.testing.assert_array_equal(g.numpy(), np.array([3.0, 12.0, 27.0], np.float32))
        (g2,) = limn.autograd.grad((x * x * x).sum(), x, create_graph=True)
        assert g2.requires_grad
        (h,) = limn.autograd.grad(g2.sum(), x)
        np.testing.assert_array_equal(h.numpy(), np.array([6.0, 12.0, 18.0], np.float32))

    def test_the_template_cache_never_holds_more_than_256_tapes(self):
        """Backward templates are kept for at most 256 tapes: a training loop that meets ever new shapes cannot grow the
        cache without bound (kills the clearing test `>= 256` -> `> 256`, which lets it reach 257)."""
        import limn.autograd as autograd
        from limn import Tensor
        autograd._TEMPLATES.clear()
        sizes = []
        for n in range(1, 300):                       # each length is a new tape shape, so a new template
            x = Tensor(np.ones(n, np.float32), requires_grad=True)
            (x * x).sum().backward()
            np.testing.assert_array_equal(x.grad.numpy(), np.full(n, 2, np.float32))
            sizes.append(len(autograd._TEMPLATES))
        assert max(sizes) == 256 and sizes[255] == 256 and sizes[256] == 1
        autograd._TEMPLATES.clear()

    def test_enable_grad_inside_no_grad_records_history(self):
        "enable_grad() turns recording back on inside no_grad() and restores it after (kills True -> False in enable_grad)."
        import limn
        from limn import Tensor
        from limn.autograd import is_grad_enabled
        x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
        with limn.no_grad():
            assert not is_grad_enabled() and not (x * 2).requires_grad
            with limn.enable_grad():
                assert is_grad_enabled()
                y = (x * x).sum()
            assert not is_grad_enabled()
        assert is_grad_enabled() and y.requires_grad
        g, = limn.grad(y, x)
        np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])

    def test_backward_accumulates_and_needs_a_gradient_for_non_scalars(self):
        """Two backward calls add into .grad (kills a replaced accumulation); a non-scalar output needs gradient=, a
        one-element one does not (kills `!=` -> `==` on numel)."""
        from limn import Tensor
        x = Tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
        (x * x).sum().backward(); (x * 3).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [2.0 + 3, -4.0 + 3, 6.0 + 3])
        with pytest.raises(ValueError, match="non-scalar"): (x * x).backward()
        y = Tensor(np.array([[2.0]]), requires_grad=True)
        (y * y * y).backward()
        np.testing.assert_array_equal(y.grad.numpy(), [[12.0]])
        z = Tensor(np.array([1.0, 2.0]), requires_grad=True)
        (z * z).backward(gradient=np.array([1.0, 10.0]))
        np.testing.assert_array_equal(z.grad.numpy(), [2.0, 40.0])


class TestBounds:
    def test_pareto_keeps_both_ends_of_the_trade_off(self):
        """Thinning a long Pareto set keeps its best-A and best-R pairs and drops the dominated ones: losing an end
        loosens every bound built on it (kills an off-by-one in the spread of kept indices)."""
        from litmus.bounds import Err, pareto
        errs = [Err([float(i), 0, 0, 0], [float(20 - i), 0, 0, 0]) for i in range(20)]
        errs += [Err([5.5, 0, 0, 0], [30.0, 0, 0, 0])]                   # dominated: worse in both than (5, 15)
        kept = pareto(errs, keep=6)
        assert len(kept) == 6 and (kept[0].a, kept[0].r) == (0.0, 20.0) and (kept[-1].a, kept[-1].r) == (19.0, 1.0)
        assert all(b.a > a.a and b.r < a.r for a, b in zip(kept, kept[1:]))
        assert [(e.a, e.r) for e in pareto(errs[:4], keep=6)] == [(0.0, 20.0), (1.0, 19.0), (2.0, 18.0), (3.0, 17.0)]

    def test_a_bound_as_wide_as_the_whole_output_range_is_vacuous(self):
        "At exactly twice the output's magnitude the bound says nothing; just below it still does (kills `>=` -> `>`)."
        from litmus.bounds import ToleranceBound
        tb = ToleranceBound("sum(x)", "float32", domain="x in [-1, 1]", dims="N=64")
        assert tb.certified and not tb.vacuous()
        edge = 2 * tb.output_range.mag
        tb.total = edge; assert tb.vacuous()
        tb.total = down(edge); assert not tb.vacuous()
        tb.total = math.inf; assert tb.vacuous()

    def test_adversarial_generators_do_what_they_are_for(self):
        """`steered` rows make (almost) every float32 addition of a sequential sum round up, to over a quarter of Higham's
        (n-1)u*sum|x|; `cancellation` rows are ill-conditioned (sum|x| / |sum x| in the thousands), checked exactly with
        Fractions. Kills a steering target moved the wrong way and a cancellation noise ten times too large."""
        from litmus.bounds import adversarial_rows
        n, u = 200, F(2) ** -24
        for kind, lo in [("steered", -1e3), ("steered_constant", -1e3), ("steered", 0.0), ("steered_constant", 0.0)]:
            for row in adversarial_rows(kind, lo, 1e3, 4, n, "float32", seed=1):
                s, ups = np.float32(0), 0
                for v in row:
                    t = s + v; ups += F(float(t)) > F(float(s)) + F(float(v)); s = t
                exact, absum = sum(F(float(v)) for v in row), sum(abs(F(float(v))) for v in row)
                assert ups >= 0.95 * (n - 1) and abs(F(float(s)) - exact) >= F(1, 4) * (n - 1) * u * absum, (kind, ups)
        conds = []
        for row in adversarial_rows("cancellation", -1e3, 1e3, 8, n, "float32", seed=1):
            exact = sum(F(float(v)) for v in row)
            conds.append(math.inf if exact == 0 else float(sum(abs(F(float(v))) for v in row) / abs(exact)))
        assert sorted(conds)[len(conds) // 2] > 3000, conds

    def test_softmax_r1_term_is_reached_by_an_input_that_carries_error(self):
        """R1's variable term for softmax(x * 0.1): two float32 inputs whose products with fl(0.1) round in opposite
        directions shift d = x - max(x) by more than half the term, and never by more (the chapter's cell, here so
        that a halved term fails under pytest too)."""
        from litmus.bounds import Analysis, LEMMAS
        from litmus.spec import Spec, parse
        an = Analysis(Spec("softmax(x * 0.1)", domain="x in [-1e3, 1e3]", dims="N=2"), "float32", "float32", LEMMAS)
        a_shift = an._softmax_parts(an.node(parse("x * 0.1")))[1].sum()
        c = np.float32(0.1)
        near = lambda v, k: np.nextafter(np.float32(v), np.float32(0)) - np.arange(k, dtype=np.float32) * np.spacing(np.float32(v))
        lows, highs = -near(1000, 4000), near(1000, 4000)
        err = lambda x: (c * x).astype(np.float64) - 0.1 * x.astype(np.float64)
        xi, xm = lows[np.argmin(err(lows))], highs[np.argmax(err(highs))]
        shift_err = abs(float(err(np.array([xi]))[0] - err(np.array([xm]))[0]))
        assert a_shift / 2 < shift_err <= a_shift, (shift_err, a_shift)


    def test_exp_of_an_argument_with_error_is_the_worst_case_of_its_rounding_model(self):
        """op_exp for an argument carrying absolute and relative error, in float16 and bfloat16 (where u**2 is far above
        float64 noise): the bound covers the model's worst corner computed in mpmath (x~ at the top of its error ball,
        fl(log2 e) and the product x~*log2(e) both rounded up by u, the libm result 2*ulps*u high), and is looser than
        it by at most u**2 per unit of argument (the lemma's h = 2u(1+u) against (1+u)**2 - 1). Kills every constant of
        the exp2 scaling moved by about u: (1 + h) -> (1 - h), * -> /, h = 2u(1 - u)."""
        import mpmath
        from litmus.bounds import Analysis, Err, Info, LEMMAS, RND, CAST
        from litmus.spec import DTYPES, LIBM_ULPS, Spec
        mpmath.mp.prec = 200
        for dt in ("float16", "bfloat16"):
            for lo, hi, A, R in [(0.5, 2.0, 0.01, 0.01), (-1.0, 3.0, 0.02, 0.005), (1.0, 1.5, 0.0, 0.03)]:
                spec = Spec("exp(x)", domain={"x": (lo, hi)})
                e = Err(); e.A[RND] = e.A[CAST] = A / 2; e.R[RND] = R
                out = Analysis(spec, dt, dt, LEMMAS).op_exp(spec.expr, Info(Interval(lo, hi), [e], 1))
                bound = min(err.total(out.m) for err in out.errs)
                p = DTYPES[dt]; u = mpmath.mpf(p.u); L = 2 * LIBM_ULPS["exp"] * u
                top = hi + A + R * abs(hi)                                     # x~ at the top of its error ball, at x = hi
                worst = mpmath.exp(top * (1 + u) ** 2) * (1 + L) - mpmath.exp(hi)
                slack = mpmath.exp(top * (1 + 2 * u * (1 + u))) * (1 + L) - mpmath.exp(top * (1 + u) ** 2) * (1 + L)
                assert worst <= bound <= worst + slack * (1 + 1e-9) + LIBM_ULPS["exp"] * p.smallest_subnormal, (dt, lo, hi, bound, worst)

    def test_softmax_shift_argument_error_is_the_worst_case_of_its_rounding_model(self):
        """R1's argument error for softmax(x * 0.3) in float16 and bfloat16: over d = x_i - max(x) in [lo - hi, 0], the
        pair (a, r) with |t~ - d| <= a + r|d| covers the worst corner of the model computed in mpmath (x~_i and the max
        each Ex off in opposite directions, the subtraction and both roundings of the exp2 scaling u high), and exceeds it
        by at most 2u**2 (2Ex + |d|). Kills the constants of a_v and r_v moved by about u (the (1 + u) and (1 + h)
        factors, their signs, * -> /)."""
        import mpmath
        from litmus.bounds import Analysis, LEMMAS
        from litmus.spec import DTYPES, Spec, parse
        mpmath.mp.prec = 200
        for dt in ("float16", "bfloat16"):
            an = Analysis(Spec("softmax(x * 0.3)", domain="x in [-20, 30]", dims="N=64"), dt, dt, LEMMAS)
            x = an.node(parse("x * 0.3"))
            _, a_v, r_v, Ex, _ = an._softmax_parts(x)
            a, r, Ex, u = mpmath.mpf(a_v.sum()), mpmath.mpf(r_v.sum()), mpmath.mpf(Ex.sum()), mpmath.mpf(DTYPES[dt].u)
            assert Ex > 0                                                       # the input carries error: the term is live
            for d in mpmath.linspace(x.rng.lo - x.rng.hi, 0, 41):
                worst = max(abs((d + s * 2 * Ex) * (1 + t * u) ** 3 - d) for s in (-1, 1) for t in (-1, 1))
                assert worst <= a + r * abs(d) <= worst + 2 * u ** 2 * (2 * Ex + abs(d)), (dt, d)

    def test_softmax_smallest_denominator_is_the_exact_minimum(self):
        """R2 sharpened: S = sum exp(x_j - max x) is at least 1 + (N-1) exp(lo - hi), reached when one input sits at hi and
        the rest at lo. The S_min used is below that exact minimum (mpmath) by no more than its 1e-12 rounding guard
        (kills any constant of the S_min formula moved, the guard ten times wider included)."""
        import mpmath
        from litmus.bounds import Analysis, LEMMAS
        from litmus.spec import Spec, parse
        mpmath.mp.prec = 100
        for lo, hi, n in [(-1.0, 1.0, 64), (-0.1, 0.2, 1000), (-5.0, 5.0, 7), (2.0, 2.5, 2)]:
            an = Analysis(Spec("softmax(x)", domain=f"x in [{lo}, {hi}]", dims=f"N={n}"), "float32", "float32", LEMMAS)
            x = an.node(parse("x"))
            s_min = an._softmax_parts(x)[4]
            exact = 1 + (n - 1) * mpmath.exp(mpmath.mpf(x.rng.lo) - mpmath.mpf(x.rng.hi))
            assert exact * (1 - 2e-12) <= s_min <= exact, (lo, hi, n, s_min, exact)

    def test_a_value_minus_itself_is_exact_unless_it_holds_a_reduction(self):
        """x - x is exactly 0 (one computed value minus itself); sum(x) - sum(x) is not, since the two sums may be
        computed in different orders: its bound is positive and covers two orders measured (kills the reduce test broken)."""
        from litmus.bounds import ToleranceBound
        from litmus.spec import Spec
        assert ToleranceBound("x - x", "float32", domain="x in [-1, 1]", dims="N=8").total == 0.0
        s = Spec("sum(x) - sum(x)", domain="x in [-1, 1]", dims="N=64")
        tb = ToleranceBound(s, "float32")
        assert tb.certified and tb.total > 0
        x = np.random.default_rng(0).uniform(-1, 1, (16, 64)).astype(np.float32)
        a, b = np.cumsum(x, axis=1, dtype=np.float32)[:, -1], np.cumsum(x[:, ::-1], axis=1, dtype=np.float32)[:, -1]
        assert 0 < np.abs(a.astype(np.float64) - b).max() <= tb.total

    def test_a_downcast_input_counts_one_rounding_on_the_chain(self):
        """Inputs cast into a narrower accumulator start their chain at one rounding: sum(x) over N adds N - 1 more, so a
        float32 input summed in float16 is certified while N <= 1/u and DIVERGENT from N + 1 = 2048 roundings on (kills the
        cast counted twice)."""
        from litmus.bounds import ToleranceBound
        at = lambda n: ToleranceBound("sum(x)", "float32", "float16", domain="x in [0, 0.01]", dims=f"N={n}", out_dtype="float32")
        assert at(2047).certified and at(2048).status == "DIVERGENT"

    def test_heuristic_tolerance_of_an_index_output_scales_with_the_row(self):
        """argmax returns an index in [0, N): the heuristic tolerance's scale is N (at least 1), so doubling a short row
        doubles it (kills the scale floor moved from 1 to 10)."""
        from litmus.bounds import ToleranceBound
        h = {n: ToleranceBound("argmax(x)", "float32", domain="x in [-1, 1]", dims=f"N={n}").heuristic for n in (1, 2, 4)}
        assert h[4] == 2 * h[2] and h[2] == 2 * h[1], h


    def test_one_rounding_is_the_worst_case_of_its_model(self):
        """rounded(): |fl(v~) - v| <= |v~ - v|(1 + u) + u|v| + eta is met with equality when v~ sits at the top of its error
        and fl rounds up by u, checked in exact Fractions for float16 and float32 (kills (1 + u) moved, * -> /, + -> -)."""
        from litmus.bounds import Err, rounded, precision
        for dt in ("float16", "float32"):
            p = precision(dt); u = F(p.u)
            for A, R, v in [(0.01, 0.002, 3.0), (0.0, 0.01, 0.5), (0.003, 0.0, 1.0)]:
                e = rounded(Err([A, 0, 0, 0], [R, 0, 0, 0]), p, eta=p.eta)
                top = F(v) + F(A) + F(R) * F(v)                                   # v~ at the top of its error ball
                worst = abs(top * (1 + u) + F(p.eta) - F(v))
                assert abs(F(e.total(v)) - worst) <= worst * F(1, 10**12), (dt, A, R, v, e.total(v), float(worst))

    def test_derivative_bounds_of_tanh_sigmoid_erf_hold_the_steepest_slope(self):
        """_deriv_max(op, iv) bounds |f'| over iv from above and is tight to float64 rounding: the peak is at the point of
        iv nearest 0, evaluated with mpmath at 40 digits, over intervals that straddle, touch and miss 0 (kills a
        derivative formula off by a constant, e.g. sigmoid's s = 2 / (1 + exp(-m)), or a guard too small to survive
        rounding: at 0, float64's 2/sqrt(pi) is below the true slope and adding 1e-16 to it changes nothing)."""
        import mpmath
        from litmus.bounds import _deriv_max
        mpmath.mp.dps = 40
        slope = {"tanh": lambda m: 1 - mpmath.tanh(m) ** 2, "sigmoid": lambda m: mpmath.exp(-m) / (1 + mpmath.exp(-m)) ** 2,
                 "erf": lambda m: 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-m * m)}
        for lo, hi in [(-1.0, 2.0), (0.0, 3.0), (-4.0, 0.0), (0.3, 0.9), (-2.5, -0.7), (1.5, 6.0), (7.0, 9.0), (-40.0, -30.0)]:
            iv = Interval(lo, hi)
            for op, f in slope.items():
                got, exact = _deriv_max(op, iv), f(mpmath.mpf(iv.mig))
                assert exact <= got <= exact * (1 + mpmath.mpf(10) ** -12) + 2.0 ** -49, (op, lo, hi, got, float(exact))

    def test_the_breakdown_is_nonnegative_and_adds_up_to_the_total(self):
        """A certified bound's components (rounding, reduction order, libm, dtype cast) are sizes of error, so each is >= 0
        and together they make the total, for the composite fragments in float32 and float16."""
        from litmus.bounds import ToleranceBound
        for spec, domain, n in [("layernorm(x, eps=1e-5)", "x in [-10, 10]", 1024), ("layernorm(x, eps=1e-3)", "x in [0, 1]", 50),
                                ("softmax(x)", "x in [-10, 10]", 100), ("logsumexp(x)", "x in [-10, 10]", 100), ("sum(x * 0.1)", "x in [-1, 1]", 100)]:
            for dt in ("float32", "float16"):
                b = ToleranceBound(spec, dt, domain=domain, dims=f"N={n}")
                if not b.certified: continue
                assert all(v >= 0 for v in b.components.values()), (spec, dt, b.components)
                assert math.isclose(sum(b.components.values()), b.total, rel_tol=1e-6), (spec, dt, b.total, b.components)

    def test_layernorm_blames_libm_only_for_libm_error(self, monkeypatch):
        """With library functions taken as exact (every LIBM_ULPS entry 0), layernorm's libm component is 0 and the rest
        is split between rounding and reduction order; with the real ulps, the libm share is what rsqrt's ulps add (kills
        the split's `(1 - tau) ** -0.5 - 1` -> `(1 + tau) ...`, which keeps the total but books part of it to libm)."""
        import litmus.bounds as bounds
        from litmus.bounds import ToleranceBound
        real = ToleranceBound("layernorm(x, eps=1e-3)", "float16", domain="x in [0, 1]", dims="N=50")
        monkeypatch.setattr(bounds, "LIBM_ULPS", {k: 0 for k in bounds.LIBM_ULPS})
        for dt in ("float32", "float16"):
            b = ToleranceBound("layernorm(x, eps=1e-3)", dt, domain="x in [0, 1]", dims="N=50")
            assert b.certified and b.components["libm"] == 0 and b.components["rounding"] > 0, (dt, b.components)
        exact_libm = ToleranceBound("layernorm(x, eps=1e-3)", "float16", domain="x in [0, 1]", dims="N=50")
        assert real.components["libm"] <= real.total - exact_libm.total + 1e-12 * real.total, (real.components, real.total, exact_libm.total)

    def test_adding_an_exact_zero_is_no_rounding(self):
        """x + 0.0 is exactly x in floating point, so it adds nothing to the error and no rounding to the chain: its float16
        sum turns DIVERGENT at the same N as sum(x) (kills the constant's `exact=err == 0` -> `err == 1`)."""
        from litmus.bounds import ToleranceBound
        at = lambda text, n: ToleranceBound(text, "float16", domain="x in [0, 0.001]", dims=f"N={n}")
        for n in (2047, 2048, 2049):
            plain, plus_zero = at("sum(x)", n), at("sum(x + 0.0)", n)
            assert plain.status == plus_zero.status and (plain.total is None or math.isclose(plain.total, plus_zero.total, rel_tol=1e-12)), (n, plain, plus_zero)
        assert (at("sum(x)", 2048).status, at("sum(x)", 2049).status) == ("certified", "DIVERGENT")

    def test_an_inexact_constant_counts_one_rounding_on_the_chain(self):
        """0.1 is not a float16, so x * 0.1 is two roundings deep: its float16 sum over 2047 terms reaches 2048 roundings
        and is DIVERGENT, while x * 2.0 (exact) is certified there and diverges one term later (kills the constant's
        rounding counted only for errors above 1)."""
        from litmus.bounds import ToleranceBound
        at = lambda text, n: ToleranceBound(text, "float16", domain="x in [0, 0.001]", dims=f"N={n}").status
        assert (at("sum(x * 0.1)", 2046), at("sum(x * 0.1)", 2047)) == ("certified", "DIVERGENT")
        assert (at("sum(x * 2.0)", 2047), at("sum(x * 2.0)", 2048)) == ("certified", "DIVERGENT")


class TestSmt:
    def test_box_size_counts_every_point_of_the_box(self):
        """box_size is the number of integer points (hi - lo + 1 per variable, 0 for an empty range): the safety check
        declines a bounded search whose box exceeds its budget by this count (kills hi - lo + 1 -> hi + lo + 1)."""
        from litmus.smt import Problem
        assert Problem([("x", 3, 9), ("y", -2, 2)], []).box_size() == 7 * 5
        assert Problem([("x", 5, 4)], []).box_size() == 0

    def test_both_backends_find_the_enumerated_smallest_witness_with_every_atom(self):
        """Problems over //, %, min and max: the bounded search and z3 return the lexicographically smallest solution that
        a plain Python enumeration of the box finds, or both find none (kills a wrong encoding of an atom in either
        backend, e.g. max(a, b) as a)."""
        import itertools
        from litmus.smt import Problem, solve, z3_available
        from litmus.tritonsource import Poly, make_atom, compare, evaluate_formula
        x, y = Poly.var("x"), Poly.var("y")
        cases = [(make_atom("max", x, y), "==", 5), (make_atom("max", y - 2, x), "==", 6), (make_atom("min", x, y), "==", 3),
                 (make_atom("min", x - y, y), "==", -2), (make_atom("//", x + 3, y + 1), "==", 4), (make_atom("%", x * 3, y + 2), "==", 1)]
        box = [("x", 0, 9), ("y", 0, 9)]
        for atom, op, k in cases:
            for extra in ([], [compare(y, ">=", 4)], [compare(x - y, ">", 0)]):
                cons = [compare(atom, op, k), *extra]
                want = next(({"x": a, "y": b} for a, b in itertools.product(range(10), range(10))
                             if all(evaluate_formula(c, {"x": a, "y": b}) for c in cons)), None)
                for backend in ["bounded"] + (["z3"] if z3_available() else []):
                    r = solve(Problem(box, cons), backend)
                    assert r.model == want and r.status == ("sat" if want else "unsat"), (str(atom), extra, backend, r)

    def test_a_deadline_already_past_gives_unknown_without_solving(self):
        "z3 is never started past its deadline: the answer is 'unknown', not a solution (kills now added to the deadline)."
        import time
        from litmus.smt import Problem, solve, z3_available
        from litmus.tritonsource import Poly, compare
        if not z3_available(): pytest.skip("z3-solver is not installed")   # the dev extra installs it (see test_safety)
        p = Problem([("x", 0, 9)], [compare(Poly.var("x"), "==", 3)])
        r = solve(p, "z3", deadline=time.monotonic() - 1)
        assert r.status == "unknown" and r.model is None and "time budget" in r.note
        assert solve(p, "z3", deadline=time.monotonic() + 30).model == {"x": 3}

    def test_an_opaque_condition_is_a_free_boolean_in_both_backends(self):
        "<c> holds when c != 0 in both backends, so both pick the same smallest witness (kills `!=` -> `==` in either)."
        from litmus.smt import Problem, solve, z3_available
        from litmus.tritonsource import Poly, Opaque, Not, compare
        x = Poly.var("x")
        for cons, want in [([Opaque("c")], {"c": 1, "x": 0}), ([Not(Opaque("c"))], {"c": 0, "x": 0}),
                           ([Opaque("c"), compare(x, ">=", 2)], {"c": 1, "x": 2})]:
            for backend in ["bounded"] + (["z3"] if z3_available() else []):
                r = solve(Problem([("c", 0, 1), ("x", 0, 3)], cons), backend)
                assert r.status == "sat" and r.model == want, (cons, backend, r)

    def test_bounded_search_handles_a_conjunction_inside_a_disjunction(self):
        "(x >= 3 and y >= 2) or x == 9: the bounded search compiles the nested `and` and agrees with enumeration (kills a broken And)."
        import itertools
        from litmus.smt import Problem, solve
        from litmus.tritonsource import Poly, And, Or, compare, evaluate_formula
        x, y = Poly.var("x"), Poly.var("y")
        for cons in [Or((And((compare(x, ">=", 3), compare(y, ">=", 2))), compare(x, "==", 9))),
                     Or((compare(y, "==", 7), And((compare(x, "==", 1), compare(y, "<=", 0)))))]:
            want = next({"x": a, "y": b} for a, b in itertools.product(range(10), range(10)) if evaluate_formula(cons, {"x": a, "y": b}))
            assert solve(Problem([("x", 0, 9), ("y", 0, 9)], [cons]), "bounded").model == want

    def test_bounded_search_counts_exactly_the_assignments_it_tried(self):
        """explored is the number of assignments tried: 6 to reach x = 5 in [0, 9], all 10 when none fits; a budget of
        exactly the box finishes, one less gives up (kills the count starting at 1)."""
        from litmus.smt import Problem, solve_bounded
        from litmus.tritonsource import Poly, compare
        x = Poly.var("x")
        assert solve_bounded(Problem([("x", 0, 9)], [compare(x, ">=", 5)])).explored == 6
        none = Problem([("x", 0, 9)], [compare(x, ">=", 10)])
        assert solve_bounded(none).explored == 10 and solve_bounded(none, budget=10).status == "unsat"
        assert solve_bounded(none, budget=9).status == "unknown"

    def test_division_by_zero_is_never_a_solution(self):
        """x // y == 0 over y in [0, 3]: y = 0 would fault, so the smallest witness is x = 0, y = 1, as the enumeration that
        skips faulting points finds (kills a ZeroDivisionError read as satisfied)."""
        from litmus.smt import Problem, solve
        from litmus.tritonsource import Poly, make_atom, compare
        x, y = Poly.var("x"), Poly.var("y")
        r = solve(Problem([("x", 0, 3), ("y", 0, 3)], [compare(make_atom("//", x, y), "==", 0)]), "bounded")
        assert r.status == "sat" and r.model == {"x": 0, "y": 1}, r


class TestJit:
    def test_graph_key_tells_custom_kernels_apart_by_name_output_and_params(self):
        """Two CUSTOM nodes that differ only in the kernel's name, its output index or its params must not share a plan
        (kills a key built from the wrong parts of the node's arg); same name, index and params, other contents: one key."""
        from limn.ops import Node, Ops, Buffer, float32
        from limn.executor import graph_key
        def graph(name, index, params, values=(1.0, 2.0, 3.0)):
            src = Node(Ops.BUFFER, (), Buffer(np.array(values, np.float32)), float32, (3,))
            return [Node(Ops.CUSTOM, (src,), (name, index, params), float32, (3,))]
        key = lambda *a: graph_key(graph(*a))[0]
        base = key("minmax", 0, {"k": 1})
        assert base == key("minmax", 0, {"k": 1}, (7.0, 8.0, 9.0))
        assert len({base, key("maxmin", 0, {"k": 1}), key("minmax", 1, {"k": 1}), key("minmax", 0, {"k": 2})}) == 4

    def test_executor_counts_from_zero(self):
        "A fresh executor's stats are zero; one graph realized twice is one plan, its kernels run twice (kills a count starting at 1)."
        from limn.ops import Node, Ops, Buffer, float32
        from limn.executor import Executor, InterpreterBackend
        ex = Executor(InterpreterBackend())
        assert ex.stats == {"plans": 0, "compiles": 0, "kernels": 0}
        def graph():
            a = Node(Ops.BUFFER, (), Buffer(np.array([1.0, 2.0], np.float32)), float32, (2,))
            return [Node(Ops.ADD, (a, a), None, float32, (2,))]
        out = ex.realize(graph()); ex.realize(graph())
        np.testing.assert_array_equal(out[0].array, [2.0, 4.0])
        assert ex.stats["plans"] == 1 and ex.stats["compiles"] == 1 and ex.stats["kernels"] == 2, ex.stats


class TestProve:
    @staticmethod
    def goal(k, slack):
        "sum_i min(lane_i, B - 1) - k*(B - 1) + slack <= 0 over lanes in [0, B - 1]: k nested min splits; true iff slack <= 0."
        from litmus.prove import Prover
        from litmus.tritonsource import Poly, Symbol, make_atom
        B = Poly.var("B"); syms = {"B": Symbol("B", "param", Poly.const(1))}; p = Poly.const(slack)
        for i in range(k):
            syms[f"lane{i}"] = Symbol(f"lane{i}", "lane", Poly.const(0), B - 1)
            p = p + make_atom("min", Poly.var(f"lane{i}"), B - 1) - (B - 1)
        return Prover(syms), p, syms

    def test_a_guard_yields_only_what_it_guarantees(self):
        """`a <= 0` gives the fact a <= 0, `a == 0` gives a <= 0 and -a <= 0, and `a != 0` gives nothing: from x == 3 the
        prover gets both x <= 3 and x >= 3, from x != 3 neither (kills `isinstance(c, Cmp) and c.op == '<='` -> `or`,
        which read x != 3 as x - 3 <= 0 and an equality as one side only)."""
        from litmus.prove import Prover, hypotheses
        from litmus.tritonsource import Cmp, Poly, Symbol
        x = Poly.var("x"); prover = Prover({"x": Symbol("x", "loop", Poly.const(0), Poly.const(10))})
        assert hypotheses(Cmp(x - 3, "!=")) == [] and hypotheses(Cmp(x - 3, "<=")) == [x - 3]
        assert hypotheses(Cmp(x - 3, "==")) == [x - 3, 3 - x]
        for goal in (x - 3, 3 - x):
            assert prover.le0(goal, hyps=hypotheses(Cmp(x - 3, "==")))
            assert not prover.le0(goal, hyps=hypotheses(Cmp(x - 3, "!=")))

    def test_a_floor_quotient_is_at_least_one_only_once_the_dividend_reaches_the_divisor(self):
        """i // 4 for i in [0, 7] can be 0, so 1 - i // 4 <= 0 is false and must not be proved; for i in [4, 7] it is true
        and is proved; enumeration decides both (kills the quotient's lower bound `1 if ... else 0` -> `else 1`)."""
        from litmus.prove import Prover
        from litmus.tritonsource import Poly, Symbol, make_atom
        i = Poly.var("i"); goal = 1 - make_atom("//", i, 4)
        for lo, holds in ((0, False), (4, True)):
            prover = Prover({"i": Symbol("i", "loop", Poly.const(lo), Poly.const(7))})
            assert all(1 - v // 4 <= 0 for v in range(lo, 8)) == holds
            assert prover.le0(goal) == holds, lo

    def test_a_size_without_a_numeric_lower_bound_proves_nothing(self):
        """C ranges over [B, oo) with B >= 1 a size: C - 2 <= 0 is false (C = 3) and C - B + 1 <= 0 too, so neither is
        proved; B - C <= 0 (true) may be; enumeration over small sizes confirms which are false (kills the size
        check's give-up `return False` -> `True` when a factor's lower bound is not a number)."""
        from litmus.prove import Prover
        from litmus.tritonsource import Poly, Symbol, evaluate_poly
        B, C = Poly.var("B"), Poly.var("C")
        prover = Prover({"B": Symbol("B", "param", Poly.const(1)), "C": Symbol("C", "param", B)})
        for goal in (C - 2, C - B + 1, C * B - 3):
            assert any(evaluate_poly(goal, {"B": b, "C": c}) > 0 for b in range(1, 4) for c in range(b, 6))
            assert not prover.le0(goal), goal
        assert all(evaluate_poly(B - C, {"B": b, "C": c}) <= 0 for b in range(1, 4) for c in range(b, 6))

    def test_a_lane_is_told_apart_only_by_its_quotient_and_its_remainder_together(self):
        """A store to out[i // 2] (lanes i in [0, 8)) has lanes 0 and 1 writing one cell: it is not proved race-free and
        the check finds the race; out[(i // 2) * 2 + i % 2] writes one cell per lane and is proved race-free, by
        enumeration of the lanes' addresses (kills `covered(e // c) and covered(e % c)` -> `or`, which took the quotient alone)."""
        from litmus.tritonsource import build_model
        from litmus.prove import ModelProver
        from litmus.safety import GPUSafetyCheck
        from inline_kernels import lanes_kernel
        for address, shared in (("i // 2", True), ("(i // 2) * 2 + i % 2", False)):
            lanes = [eval(address, {"i": i}) for i in range(8)]
            assert (len(set(lanes)) < 8) == shared and all(0 <= a < 8 for a in lanes)
            kernel = lanes_kernel(f"tl.store(out_ptr + {address}, i * 1.0)")
            model = build_model(kernel)
            store = [a for a in model.accesses if a.kind == "store"][0]
            assert ModelProver(model).race_free(store, []).proved == (not shared), address
            verdict = GPUSafetyCheck(kernel).run()       # (the in-bounds side of the second is not this test's question)
            assert (verdict.verdict == "REJECT") == shared and [d.kind for d in verdict.defects] == (["race"] if shared else []), str(verdict)

    def test_a_store_is_not_race_free_when_another_lane_reads_its_cell(self):
        """out[7 - i] is loaded and out[i] stored by lanes i in [0, 8): lane 0 writes the cell lane 7 reads, so the store
        is not race-free with that load beside it, and the explanation names the load's line and its other address;
        with a load of out[i] (the same map) it is proved (kills the explanation's `steps + [...]` -> `-`)."""
        from litmus.tritonsource import build_model
        from litmus.prove import ModelProver
        from inline_kernels import lanes_kernel
        for read, shared in (("7 - i", True), ("i", False)):
            assert any(eval(read, {"i": i}) != i for i in range(8)) == shared     # lane i reads the cell lane `read` writes
            model = build_model(lanes_kernel(f"x = tl.load(out_ptr + {read})\ntl.store(out_ptr + i, x + 1.0)"))
            store, load = [a for a in model.accesses if a.kind == "store"][0], [a for a in model.accesses if a.kind == "load"][0]
            proof = ModelProver(model).race_free(store, [load])
            assert proof.proved == (not shared), (read, proof)
            assert any(f"line {load.line} (load) uses a different address" in step for step in proof.steps) == shared, proof.steps

    def test_a_lane_squared_is_not_a_digit_and_the_proof_says_so(self):
        """out[i * i] for lanes i in [0, 8) writes distinct cells, but i is not a linear digit of the address, so the
        mixed-radix argument does not apply: the race proof is left open (never claimed) and its explanation names the
        non-linear lane (kills the explanation's `steps + [...]` -> `-`, which raised instead)."""
        from litmus.tritonsource import build_model
        from litmus.prove import ModelProver
        from inline_kernels import lanes_kernel
        model = build_model(lanes_kernel("tl.store(out_ptr + i * i, i * 1.0)", cells=64))
        store = [a for a in model.accesses if a.kind == "store"][0]
        proof = ModelProver(model).race_free(store, [])
        assert not proof.proved and any("is not linear" in step for step in proof.steps), proof.steps

    def test_two_guards_together_prove_what_neither_proves_alone(self):
        """x + y <= 2 follows from x <= 1 and y <= 1 taken together, not from either alone (x, y in [0, 10]): le0 tries
        pairs of hypotheses by default (kills the default `pairs=True` -> `False`)."""
        from litmus.prove import Prover
        from litmus.tritonsource import Poly, Symbol
        x, y = Poly.var("x"), Poly.var("y")
        prover = Prover({n: Symbol(n, "loop", Poly.const(0), Poly.const(10)) for n in "xy"})
        assert prover.le0(x + y - 2, hyps=(x - 1, y - 1))
        assert not prover.le0(x + y - 2, hyps=(x - 1, y - 1), pairs=False) and not prover.le0(x + y - 2, hyps=(x - 1,))

    def test_min_max_splits_stop_at_depth_six_and_never_prove_a_false_goal(self):
        """le0 splits one min/max per level, each split doubling the work, and gives up below depth 6 (its budget): a true
        goal needing six splits is proved, one needing seven is left unproved, and a false goal is never proved at any
        depth, checked by enumeration (kills `depth > 6` -> `>= 6`, the limit moved to 7, and the give-up returning True)."""
        import itertools
        from litmus.tritonsource import evaluate_poly
        for k in range(1, 9):
            prover, true_goal, _ = self.goal(k, 0)
            assert prover.le0(true_goal) == (k <= 6), k
            prover, false_goal, syms = self.goal(k, 1)
            assert not prover.le0(false_goal), k
            lanes = [s for s in syms if s.startswith("lane")]
            for b in (1, 2):   # enumeration confirms both: the true goal holds everywhere, the false one fails somewhere
                envs = [dict(zip(lanes, v), B=b) for v in itertools.product(range(b), repeat=k)]
                assert all(evaluate_poly(true_goal, env) <= 0 for env in envs)
                assert any(evaluate_poly(false_goal, env) > 0 for env in envs)


class TestView:
    def test_index_refuses_a_wrong_length_and_an_out_of_range_entry(self):
        "View.index raises IndexError for too few indices and for one entry outside its axis, each alone (kills `or` -> `and`)."
        from limn.view import View
        v = View.contiguous((3, 4))
        assert v.index((2, 3)) == (11, True)
        for bad in [(1,), (1, 2, 0), (3, 0), (0, 4), (-1, 0)]:
            with pytest.raises(IndexError): v.index(bad)


class TestCodegen:
    def test_ir_of_a_list_is_the_ir_of_its_tensors(self):
        "`ir([a, b])` and `ir(a, b)` print the same schedule, and `ir([a])` that of `a` (kills tensors[0] -> tensors[1])."
        from limn import Tensor
        from limn.codegen import ir
        a, b = Tensor(np.ones((2, 3), np.float32)) + 1, Tensor(np.ones(4, np.float32)) * 2
        assert ir([a, b]) == ir(a, b) and ir([a]) == ir(a) and ir((b,)) == ir(b)

    def test_the_ir_interpreter_reads_zero_outside_a_padded_constant(self):
        """A constant read through a pad is 0 where the pad's check fails and the constant inside, as the numpy device
        computes it (kills the interpreter's value for a failed check moved from 0 to 1)."""
        from limn import Tensor, use_device
        from limn.codegen import run_ir
        for build in (lambda: Tensor.ones(3).pad(((1, 2),)), lambda: Tensor.full((2, 2), 2.5).pad(((0, 1), (2, 0))) * 3):
            with use_device("numpy"): want = build().numpy()
            got = run_ir([build().node])[0]
            np.testing.assert_array_equal(got, want)
            assert (want == 0).any() and (want != 0).any()

    def test_a_read_no_counter_can_make_valid_is_no_read(self):
        """Shrinking to the pad alone leaves a read whose range check fails for every loop counter: lowering folds it to
        the constant 0, so the kernel loads nothing from the input and still gives the numpy device's values (kills
        never()'s `or` -> `and`, which kept it as a LOAD guarded by `0 <= i0 < 0`)."""
        from limn import Tensor, use_device
        from limn.codegen import Load, Const, lower_schedule, run_ir
        from limn.schedule import schedule
        build = lambda: Tensor(np.arange(4, dtype=np.float32)).pad(((5, 0),)).shrink(((0, 5),)) + 1
        with use_device("numpy"): want = build().numpy()
        kernel, = lower_schedule(schedule([build().node])).kernels
        assert not any(isinstance(i, Load) for i in kernel.instrs), [str(i) for i in kernel.instrs]
        assert any(isinstance(i, Const) and i.value == 0 and not i.valid for i in kernel.instrs)
        np.testing.assert_array_equal(run_ir([build().node])[0], want)

    def test_a_floor_of_a_floor_is_one_floor_by_the_product(self):
        """(i // 4) // 5 simplifies to i // 20 and (3i // 2) // 7 stays a floor of a floor; every value is the one Python's
        nested floors give, for every i of the loop (kills the simplification reading the coefficient for the atom)."""
        from limn.codegen import Var, Index
        i = Var("i0", 200)
        for idx, want in [((Index.of(i) // 4) // 5, lambda v: (v // 4) // 5), ((Index.of(i) * 3 // 2) // 7, lambda v: (3 * v // 2) // 7),
                          ((Index.of(i) + 3) // 4 // 5, lambda v: ((v + 3) // 4) // 5)]:
            assert all(idx.eval({"i0": v}) == want(v) for v in range(200)), idx.render()
        assert (Index.of(i) // 4) // 5 == Index.of(i) // 20

    def test_reduction_error_is_reached_by_a_two_term_sum(self):
        """gamma_1 for two terms: 1 + (2**-p)(1 + 2**-10) rounds up by almost u, so float32 and float16 sums of such
        pairs reach over 99% of reduction_error(2) * sum|x| and never exceed it, checked with exact Fractions (kills u
        doubled and gamma's denominator 1 - mu moved to 2 - mu)."""
        from limn.codegen import reduction_error
        from limn.ops import float32 as f32, float16 as f16
        for dt, np_dt, p in [(f32, np.float32, 24), (f16, np.float16, 11)]:
            a, b = np_dt(1.0), np_dt(2.0 ** -p * (1 + 2.0 ** -10))
            assert F(float(b)) == F(2) ** -p * (1 + F(2) ** -10)              # both terms exact in the format
            err = abs(F(float(a + b)) - (F(float(a)) + F(float(b))))
            bound = F(reduction_error(2, dt)) * (F(float(a)) + F(float(b)))
            assert F(99, 100) * bound < err <= bound, (dt, float(err), float(bound))

    def test_the_nest_picture_draws_every_value_from_the_instruction_that_made_it(self):
        """draw_nest: for each instruction, every operand made earlier in the nest is a grey edge from its maker, and there
        is no other grey edge (kills the `in made` test inverted, which draws no dataflow at all or fails)."""
        import re
        from limn import Tensor
        from limn.schedule import schedule
        from limn.codegen import draw_nest, lower
        t = (Tensor(np.ones((2, 3), np.float32)) * 2 + 1).exp().sum(1)
        k = schedule([t.node]).kernels[-1]
        instrs = lower(k)
        made, want = {}, set()
        for pc, ins in enumerate(instrs):
            for field in ("srcs", "src", "cond", "a", "b", "acc"):
                names = getattr(ins, field, None)
                for v in ([names] if isinstance(names, str) else names or []):
                    if v in made and made[v] != f"{k.name}_{pc}": want.add((made[v], f"{k.name}_{pc}"))
            dst = getattr(ins, "dst", None) or getattr(ins, "acc", None)
            if isinstance(dst, str): made[dst] = f"{k.name}_{pc}"
        got = set(re.findall(r'"(\S+)" -> "(\S+)" \[color="#999999"\]', draw_nest(k).source))
        assert got == want and len(want) >= 3, (got, want)


class TestBackendC:
    def test_the_stated_ulp_bounds_are_inside_litmus_budget_and_near_what_is_measured(self):
        """ULP_BOUNDS is what the bridge feeds litmus's libm term: every stated bound sits inside litmus's LIBM_ULPS (the
        any-order certificate covers the c device), and the c device's exp and log, measured against mpmath on 4096
        inputs spread over their range, reach at least half of what is stated (kills a stated bound raised tenfold,
        e.g. float64 exp 1.0 -> 10.0, which every 'measured <= stated' test still passes)."""
        import mpmath
        import limn
        import limn.backend_c as backend_c
        from limn import Tensor, use_device
        from litmus.spec import LIBM_ULPS
        for dtype, bounds in backend_c.ULP_BOUNDS.items():
            for op, ulps in bounds.items():
                assert ulps <= LIBM_ULPS[op], (dtype, op, ulps)
        rng = np.random.default_rng(0)
        mpmath.mp.prec = 160
        for dtype, top in (("float32", 80.0), ("float64", 700.0)):
            np_type = np.dtype(dtype).type
            inputs = {"exp": rng.uniform(-top, top, 4096).astype(np_type), "log": (10.0 ** rng.uniform(-top / 3, top / 3, 4096)).astype(np_type)}
            for op, x in inputs.items():
                with use_device("c"): y = getattr(Tensor(x), op)().numpy()
                exact = [getattr(mpmath, op)(mpmath.mpf(float(v))) for v in x]
                ulp = np.spacing(np.abs(np.array([float(e) for e in exact])).astype(np_type)).astype(np.float64)
                worst = max(float(abs(mpmath.mpf(float(c)) - e) / u) for c, e, u in zip(y, exact, ulp))   # in mpmath: no rounding of the error
                assert worst <= backend_c.ULP_BOUNDS[dtype][op] <= 2 * worst, (dtype, op, worst, backend_c.ULP_BOUNDS[dtype][op])

    def test_host_id_without_cpuinfo_is_the_machine_and_processor(self, monkeypatch):
        "Where /proc/cpuinfo says nothing, the compiled-kernel cache keys on platform.machine() + platform.processor() (kills + -> -)."
        import platform
        import limn.backend_c as backend_c
        monkeypatch.setattr(backend_c, "cpuinfo", lambda: ())
        backend_c.host_id.cache_clear()
        try: assert backend_c.host_id() == platform.machine() + platform.processor()
        finally: backend_c.host_id.cache_clear()


    def test_physical_cores_count_each_core_of_each_package_once(self, monkeypatch):
        """Two packages of two cores with two hardware threads each are 4 cores: a core id counts once per package, its
        sibling thread not again, and the same core id in the other package does count (kills `key == "physical id"`
        -> `!=`, which read every other field as the package)."""
        import limn.backend_c as backend_c
        info = [(k, v) for package in ("0", "1") for core in ("0", "1") for thread in range(2)
                for k, v in (("processor", str(thread)), ("physical id", package), ("siblings", "4"), ("core id", core), ("flags", "avx2"))]
        monkeypatch.setattr(backend_c, "cpuinfo", lambda: tuple(info))
        assert backend_c.physical_cores() == 4

    def test_a_matmul_wider_than_any_packed_panel_matches_the_plain_nest(self):
        """4104 columns of float32 are more than one packed block of B holds at any K block (4096 columns at most): the
        tiled kernel walks several column blocks and a ragged last strip, and gives the plain nest's bits (kills the
        block width's `kc * itemsize` -> `kc / itemsize`, a float width that no C array size accepts)."""
        from limn import Tensor
        from limn.backend_c import CDevice, PLAIN
        rng = np.random.default_rng(7)
        a, b = rng.standard_normal((6, 300)).astype(np.float32), rng.standard_normal((300, 4104)).astype(np.float32)
        graph = lambda: [(Tensor(a) @ Tensor(b)).node]
        tiled, plain = CDevice().realize(graph())[0].array, CDevice(**PLAIN).realize(graph())[0].array
        assert tiled.tobytes() == plain.tobytes()
        np.testing.assert_allclose(tiled, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)

    def test_a_compiler_that_fails_is_quoted_in_its_own_words(self, monkeypatch, tmp_path):
        """A C compiler that cannot build a shared library is named at set_device with what it printed, as text (kills
        the probe's `text=True` -> `False`, which quoted the bytes object, b'...')."""
        import limn
        from limn.backend_c import CompilerNotFound
        cc = tmp_path / "broken-cc"
        cc.write_text("#!/bin/sh\necho 'broken-cc: cannot write the library' >&2\nexit 1\n"); cc.chmod(0o755)
        monkeypatch.setenv("CC", str(cc))
        with pytest.raises(CompilerNotFound) as e: limn.set_device("c")
        assert str(cc) in str(e.value) and str(e.value).endswith(": broken-cc: cannot write the library"), str(e.value)


class TestSchedule:
    def test_the_drawing_labels_a_constant_by_its_value_and_other_nodes_by_their_op(self):
        """draw_schedule shows a fused constant as `CONST 2.5` and every other node as its op, dtype and shape (kills
        `_label`'s `is` -> `is not`, which called every other node a CONST)."""
        from limn import Tensor
        from limn.schedule import schedule, draw_schedule
        y = (Tensor(np.ones((2, 3), np.float32)) * 2.5).sum(axis=1)
        labels = re.findall(r'"k0_\d+" \[label="([^"]*)"', draw_schedule(schedule([y.node])).source)
        assert sorted(labels) == sorted(["SUM axes=[1]\\nfloat32[2, 1]", "MUL\\nfloat32[2, 3]", "VIEW\\nfloat32[2, 3]", "CONST 2.5"]), labels


class TestSimulate:
    def test_max_and_min_with_their_indices_are_the_extremes_and_the_first_place_of_each(self):
        """tl.max / tl.min with return_indices=True give (the extreme along the axis, where it first occurs: Triton's
        default tie_break_left), the indices int32, on a block with ties (kills np.max -> np.min in tl.max's indexed form)."""
        from litmus.simulate import TL
        block = np.array([[3.0, -1.0, 7.0, 7.0], [2.0, 5.0, -4.0, 5.0], [3.0, 5.0, -4.0, 0.5]], np.float32)
        for axis in (0, 1):
            for name, extreme, first in (("max", np.max, np.argmax), ("min", np.min, np.argmin)):
                values, indices = getattr(TL, name)(block, axis=axis, return_indices=True)
                np.testing.assert_array_equal(np.asarray(values), extreme(block, axis=axis), err_msg=f"{name} axis {axis}")
                np.testing.assert_array_equal(np.asarray(indices), first(block, axis=axis), err_msg=f"{name} axis {axis}")
                assert np.asarray(indices).dtype == np.int32

    def test_philox_gives_the_published_known_answers(self):
        """tl.rand's generator is Philox 4x32 with 10 rounds: the model reproduces the known-answer vectors published with
        Random123 (counter and key all zeros, all ones, and the digits of pi), the key packed into Triton's 64-bit seed
        low word first (kills the rounds moved to 11)."""
        from litmus.simulate import philox
        vectors = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
                   ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
                   ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0), (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]
        for counter, (k0, k1), want in vectors:
            seed = (k1 << 32 | k0) - (1 << 64 if k1 >= 1 << 31 else 0)       # the 64-bit seed as Triton's signed int64
            assert tuple(int(w) for w in philox(np.int64(seed), *counter)) == want

    def test_an_interpreter_output_holding_a_pickle_is_refused_unread(self, tmp_path):
        """The interpreter worker hands outputs back as .npy files; one that holds a pickled object (which would run code as
        it is loaded) is reported as an unreadable output and never unpickled (kills `allow_pickle=False` -> `True`)."""
        import builtins, json, pickle
        from litmus import corpus
        from litmus.simulate import Limits, _read_interpreted

        class Payload:                                # unpickling this runs code: it sets a flag the test can see
            def __reduce__(self): return (exec, ("import builtins; builtins._litmus_unpickled = True",))
        kernel = corpus.kernels()[0]
        out_name = next(a["name"] for a in kernel.args if a.get("role") == "out")
        np.save(tmp_path / f"out0_{out_name}.npy", np.array([Payload()], dtype=object), allow_pickle=True)
        results = tmp_path / "results.jsonl"
        results.write_text(json.dumps({"token": "t", "index": 0, "ok": True, "value": {}, "outputs": [out_name]}) + "\n")
        run, = _read_interpreted([(kernel, None, {})], [{"dims": {}, "directory": str(tmp_path)}], results, "t", Limits(), None)
        assert not getattr(builtins, "_litmus_unpickled", False)
        assert run.error and "unreadable output" in run.error, run.error

    def test_a_box_answer_with_a_malformed_violation_is_refused(self):
        """What a box sends back is checked field by field before it is believed: a violation is [op, argument, element,
        program, lanes] with a known op, one of the kernel's tensors, an int, a program inside the grid and lanes >= 1;
        a five-item list that breaks any one of these makes the run an error, and a well-formed one is kept (kills
        `len(item) == 5 and item[0] in _OPS` -> `or`, which believed any five-item list)."""
        from litmus import corpus
        from litmus.simulate import Boxed, NP_DTYPES, _checked_run, resolve
        kernel = corpus.kernels()[0]
        launch = resolve(kernel, None)
        outputs = {t.name: np.zeros(t.shape, NP_DTYPES[t.dtype]) for t in launch.tensors if t.role != "in"}
        arg = launch.tensors[0].name
        good = ["load", arg, 3, [0, 0, 0], 1]
        run = lambda item: _checked_run(kernel, None, Boxed(True, {"outputs": outputs, "violations": [item]}, None, False), "model")
        assert run(good).error is None and len(run(good).violations) == 1
        for bad in (["jump", arg, 3, [0, 0, 0], 1], ["load", "no_such_tensor", 3, [0, 0, 0], 1], ["load", arg, "3", [0, 0, 0], 1],
                    ["load", arg, 3, [10 ** 9, 0, 0], 1], ["load", arg, 3, [0, 0, 0], 0]):
            assert "malformed result from the box: violation" in (run(bad).error or ""), bad

    def test_out_of_bounds_accesses_are_listed_up_to_a_thousand(self):
        """A kernel that keeps stepping outside its buffer gets its first 1000 violations listed, in order, and no more:
        a hostile kernel cannot grow the list without bound (kills the cap moved to 1001)."""
        from litmus.simulate import Memory, Buffer, Ptr
        buf = Buffer("x", np.float32, np.zeros(8))
        memory = Memory({"x": buf})
        for step in range(1005):                     # each store: lane 0 inside, lane 1 past the end
            memory.store(Ptr(buf, [0, 8 + step]), np.ones(2), None)
        assert len(memory.violations) == 1000
        assert [v.element for v in memory.violations] == [8 + s for s in range(1000)]
        assert all(v.op == "store" and v.lanes == 1 for v in memory.violations)
        np.testing.assert_array_equal(buf.live, [1] + [0] * 7)   # the lane inside was written, nothing outside

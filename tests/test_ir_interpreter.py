"""The loop-nest IR means what it prints: every corpus graph is scheduled, lowered, run instruction by instruction by
`limn.codegen.run_ir`, and diffed against the numpy device (exact for ints, 1e-5 for float32/64, the width's rounding
for the half floats). Plus a seeded fuzzer of movement chains, which is where index arithmetic goes wrong, and laned sums held
to the error bound their order implies (codegen.reduction_error) against an exact oracle."""
import numpy as np
import pytest
from graph_corpus import CORPUS, tolerance, reference
from limn import Tensor, realize, use_device
from limn.ops import float32
from limn.schedule import schedule
from limn.codegen import run_ir, lower_schedule, Load, Const, Accum, Acc


def numpy_results(tensors):
    with use_device("numpy"):
        realize(tensors)
        return [t.numpy() for t in tensors]


def assert_same(got, want, dtype, name):
    rtol, atol = tolerance(dtype)
    assert got.shape == want.shape, f"{name}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{name}: dtype {got.dtype} != {want.dtype}"
    if rtol == 0: np.testing.assert_array_equal(got, want, err_msg=name)
    else: np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_corpus_ir_matches_numpy(case):
    want = reference(case)
    got = run_ir([t.node for t in case.build()])
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)): assert_same(g, w, case.dtype, f"{case.name} sink {i}")


def test_corpus_covers_the_acceptance_list():
    names = {c.name.split("[")[0] for c in CORPUS}
    for need in ("add_mul", "unary_math", "neg_cmplt_where", "cast_to_float32", "sum_keepdim", "sum_drop", "matmul",
                 "softmax", "log_softmax", "padded_reduce", "movement_then_reduce", "reduce_then_elementwise",
                 "gather", "scatter"):
        assert need in names, need
    dtypes = {c.dtype.name for c in CORPUS}
    assert dtypes == {"float64", "float32", "float16", "bfloat16", "int32", "int16", "int8"}


def test_corpus_exercises_every_instruction():
    seen = set()
    for case in CORPUS:
        sched = lower_schedule(schedule([t.node for t in case.build()]))
        for k in sched.kernels: seen |= {type(i).__name__ for i in k.instrs}
    assert seen == {"Loop", "EndLoop", "Const", "Load", "Idx", "Arith", "Cast", "Where", "Acc", "Fold", "Store", "Accum"}


def test_masked_loads_and_fill_then_accum_present():
    "The corpus reaches the two code shapes the interpreter must get right: range checks and the memory fold."
    checks = accums = 0
    for case in CORPUS:
        sched = lower_schedule(schedule([t.node for t in case.build()]))
        for k in sched.kernels:
            checks += sum(1 for i in k.instrs if isinstance(i, (Load, Const)) and i.valid)
            accums += sum(1 for i in k.instrs if isinstance(i, Accum))
    assert checks > 5 and accums > 5


MOVES = ("permute", "pad", "shrink", "expand", "reshape", "elementwise")

def random_chain(rng, x):
    "A random stack of movements (some force a VIEW of a VIEW, some a cut) over a small tensor."
    for _ in range(rng.integers(2, 6)):
        move, shape = MOVES[rng.integers(len(MOVES))], x.shape
        if move == "permute": x = x.permute(*rng.permutation(len(shape)).tolist())
        elif move == "pad": x = x.pad(tuple((int(rng.integers(0, 3)), int(rng.integers(0, 2))) for _ in shape))
        elif move == "shrink":
            bounds = []
            for s in shape:
                lo = int(rng.integers(0, max(1, s // 2))); bounds.append((lo, int(rng.integers(lo + 1, s + 1))))
            x = x.shrink(tuple(bounds))
        elif move == "expand":
            x = x.reshape(*shape, 1).expand(*shape, int(rng.integers(1, 4)))
        elif move == "reshape":
            n = int(np.prod(shape))
            divisors = [d for d in range(1, n + 1) if n % d == 0]
            d = divisors[rng.integers(len(divisors))]
            x = x.reshape(d, n // d)
        else: x = x * 2 + 1
        if x.numel() > 400 or x.numel() == 0: break
    return x

@pytest.mark.parametrize("seed", range(150))
def test_movement_fuzz(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 5, rng.integers(1, 4)))
    data = rng.standard_normal(shape).astype(np.float32)
    def build():
        x = random_chain(np.random.default_rng(seed + 1000), Tensor(data.copy()))
        return [x, x.sum(0), x.amax(x.ndim - 1)] if x.ndim else [x]
    want = numpy_results(build())
    got = run_ir([t.node for t in build()])
    for g, w in zip(got, want): np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_spec_matmul_is_one_kernel_in_the_spec_format():
    from limn.codegen import ir
    a, b = Tensor(np.ones((4, 5), np.float32)), Tensor(np.ones((5, 3), np.float32))
    text = ir(a @ b)
    assert text.startswith("k0  SUM  loop[4, 3, 5]\n") and text.count("\nk") == 0
    assert text.endswith("sink 0 = buf2  float32[4, 3]")
    lines = [l.strip() for l in text.splitlines()]
    assert lines.index("LOOP    r2 < 5") < lines.index("LOOP    i1 < 3", lines.index("LOOP    r2 < 5"))   # i1 innermost
    assert "ACCUM   out[i0*3 + i1] = ADD out[i0*3 + i1], v3" in lines


def test_dropping_the_kept_dim_aliases():
    x = Tensor(np.ones((4, 6), np.float32))
    for sink in (x.sum(1), x.amax(0), x.sum(1, keepdim=True).reshape(2, 2)):
        s = schedule([sink.node])
        assert len(s.kernels) == 1 and s.sinks[0].buf is s.kernels[0].output
    s = schedule([x.sum(1).node]); assert s.sinks[0].is_alias


def test_half_width_reduce_accumulates_in_a_float32_register():
    from limn.ops import float16, bfloat16
    for dt in (float16, bfloat16):
        a = Tensor(np.ones((4, 5), np.float32)).cast(dt)
        k = lower_schedule(schedule([(a @ a.transpose()).node])).kernels[-1]
        acc = [i for i in k.instrs if isinstance(i, Acc)]
        assert acc and acc[0].dtype is float32 and not any(isinstance(i, Accum) for i in k.instrs)


EDGE_GRAPHS = {
    "empty_reduce": lambda: [Tensor(np.zeros((0, 3), np.float32)).sum(0), Tensor(np.zeros((0, 3), np.float32)) + 1],
    "zero_dim": lambda: [Tensor(np.float32(3.0)) * 2, Tensor(np.ones(3, np.float32)).max(), Tensor.full((), 5.0)],
    "only_padding": lambda: [Tensor(np.ones((2, 3), np.float32)).pad(((5, 0), (0, 0)))[0:3] + 1],
    "int_max_identity": lambda: [Tensor(np.full((3, 4), -128, np.int8), dtype="int8").amax(0)],
}

@pytest.mark.parametrize("name", list(EDGE_GRAPHS))
def test_edge_shapes(name):
    want = numpy_results(EDGE_GRAPHS[name]())
    got = run_ir([t.node for t in EDGE_GRAPHS[name]()])
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_corpus_exercises_lanes_and_fused_products():
    "The corpus reaches the IR's two reduction rules: a laned accumulator and a fold of a fused product, in both forms."
    from limn.codegen import Fold, definitions, fused_product
    lanes = fused_fold = fused_accum = 0
    for case in CORPUS:
        for k in lower_schedule(schedule([t.node for t in case.build()])).kernels:
            defs = definitions(k.instrs)
            lanes += sum(1 for i in k.instrs if isinstance(i, Acc) and i.lanes > 1)
            fused_fold += sum(1 for i in k.instrs if isinstance(i, Fold) and fused_product(i, defs))
            fused_accum += sum(1 for i in k.instrs if isinstance(i, Accum) and fused_product(i, defs))
    assert lanes > 5 and fused_fold > 3 and fused_accum > 3, (lanes, fused_fold, fused_accum)


@pytest.mark.parametrize("n", [16, 17, 100, 1000, 4099])
def test_laned_sum_within_its_derived_bound(n):
    """A laned sum, and a laned sum of fused products, as the interpreter runs them (lane j folds the terms r = j mod 16 in
    order, lanes combined pairwise), lie within reduction_error's gamma_m * sum|x_i| of the exact value (math.fsum of
    float64 terms, exact for float32 products), m = ceil(n/16) - 1 + log2(16) (+1 for products); the IR prints the split."""
    from limn.codegen import reduction_error, REDUCE_LANES, ir
    import math
    rng = np.random.default_rng(n)
    x, y = (rng.standard_normal(n) * np.exp2(rng.integers(-8, 8, n))).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    sums = [Tensor(x).reshape(1, n).sum(1), (Tensor(x) * Tensor(y)).reshape(1, n).sum(1)]
    text = ir(sums[0])
    assert f"x{REDUCE_LANES} lanes" in text and ("FOLD    v0[r1%16]" in text or (n == 16 and "FOLD    v0[r1]" in text))
    got = run_ir([s.node for s in sums])
    for g, terms, products in zip(got, (x.astype(np.float64), x.astype(np.float64) * y), (False, True)):
        bound = reduction_error(n, float32, REDUCE_LANES, products) * np.abs(terms).sum()
        assert abs(float(g[0]) - math.fsum(terms)) <= bound
    assert reduction_error(n, float32, REDUCE_LANES) <= reduction_error(n, float32) or n < 64    # lanes tighten long sums


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_division_lowers_to_one_div_and_runs_as_numpys(dtype):
    from limn.codegen import ir
    rng = np.random.default_rng(3)
    a = np.concatenate([np.arange(1, 200), [41.0], rng.standard_normal(300) * 1e5]).astype(dtype)
    b = np.concatenate([np.full(199, 10.0), [41.0], rng.standard_normal(300) * 1e-5]).astype(dtype)
    x, y = Tensor(a), Tensor(b)
    text = ir(x / y)
    assert "ARITH   v2 = DIV v0, v1" in text and "RECIP" not in text and "MUL" not in text.split("\n", 1)[1], text
    got, = run_ir(x / y)
    np.testing.assert_array_equal(got.view(np.uint8), (a / b).view(np.uint8))
    own = ir(x * y.reciprocal())                                 # a user's reciprocal is two instructions, two roundings
    assert "RECIP" in own and "MUL" in own and "DIV" not in own, own
    got, = run_ir(x * y.reciprocal())
    np.testing.assert_array_equal(got, a * (dtype(1) / b))

"""TargetedFalsification (chapter 09): generators stay in their domains and hit what they aim at, ddmin is 1-minimal,
the dynamic race search sees what it should, and the whole corpus is swept blind (labels and answer keys erased):
every planted bug is found, no correct kernel is flagged, every counterexample replays and is small."""
import dataclasses, math, statistics
import numpy as np
import pytest
from litmus import corpus, simulate
from litmus.spec import DTYPES, Spec
from litmus.falsify import (GENERATORS, INDEX_GENERATORS, generate, generate_index, ddmin, find_race, max_error, retyped,
                            Target, TargetedFalsification, FalsifyResult)

FLOATS = [n for n, d in DTYPES.items() if d.is_float]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("domain", [(-1000.0, 1000.0), (-5.0, 20.0), (0.0, 1.0), (-3.0, -1.0), (2.0, 2.0), (-1e-3, 1e-3)])
def test_generators_stay_in_their_domain(dtype, domain):
    lo, hi = domain
    fmt = DTYPES[dtype]
    for kind in GENERATORS:
        for variant in range(4):
            x = generate(kind, (3, 17), lo, hi, fmt, np.random.default_rng(variant), variant, allow_nonfinite=False)
            if kind == "nonfinite": assert x is None; continue
            assert x.shape == (3, 17) and np.isfinite(x).all() and (x >= lo).all() and (x <= hi).all(), (kind, variant)


@pytest.mark.parametrize("dtype", FLOATS)
def test_generators_hit_what_they_aim_at(dtype):
    fmt, rng = DTYPES[dtype], np.random.default_rng(1)
    big = 2 * fmt.exp_overflow + 10
    assert (generate("exp_overflow", (4, 9), -big, big, fmt, rng) > fmt.exp_overflow).all()
    assert (generate("all_negative", (4, 9), -3, 3, fmt, rng) < 0).all()
    assert (generate("all_positive", (4, 9), -3, 3, fmt, rng) > 0).all()
    assert (np.abs(generate("subnormal", (4, 9), -1, 1, fmt, rng)) < fmt.smallest_normal).all()
    const = generate("constant", (4, 9), -3, 3, fmt, rng)
    assert (const == const[:, :1]).all()
    s = generate("sorted", (4, 9), -3, 3, fmt, rng)
    assert (np.diff(s, axis=1) >= 0).all()
    assert set(np.unique(generate("saturating", (4, 9), -3, 7, fmt, rng))) <= {-3.0, 7.0}
    tail = generate("tail_extreme", (4, 9), -3, 7, fmt, rng)
    assert (tail[:, -1] == 7).all() and (np.abs(tail[:, :-1]) < 1).all()
    with_nan = generate("nonfinite", (4, 9), -3, 7, fmt, rng, 0, allow_nonfinite=True)
    assert np.isnan(with_nan).sum() == 1


def test_index_generators():
    rng = np.random.default_rng(0)
    assert set(generate_index("boundary", (200,), 0, 63, rng)) == {0.0, 63.0}
    assert len(set(generate_index("duplicate", (200,), 0, 63, rng))) == 1
    u = generate_index("uniform", (200,), 0.5, 9.5, rng)
    assert u.min() >= 1 and u.max() <= 9 and (u == np.round(u)).all()
    with pytest.raises(ValueError, match="holds no integer"): generate_index("uniform", (3,), 0.2, 0.8, rng)
    with pytest.raises(ValueError, match="index generator kind"): generate_index("sideways", (3,), 0, 3, rng)
    with pytest.raises(ValueError, match="generator kind"): generate("sideways", (3,), 0, 3, DTYPES["float32"], rng)
    assert set(INDEX_GENERATORS) == {"duplicate", "boundary", "uniform"}


@pytest.mark.parametrize("seed", range(20))
def test_ddmin_is_one_minimal(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    need = set(rng.choice(n, size=int(rng.integers(1, min(n, 5) + 1)), replace=False).tolist())
    calls = []
    def test(keep): calls.append(1); return need <= set(keep)
    out = ddmin(list(range(n)), test, 10_000)
    assert set(out) == need                      # here the only 1-minimal sets are exactly `need`
    assert all(not test([x for x in out if x != y]) for y in out)


def test_ddmin_respects_its_budget():
    calls = []
    def test(keep): calls.append(1); return 0 in keep and 99 in keep
    ddmin(list(range(100)), test, 7)
    assert len(calls) <= 7


def test_find_race():
    assert find_race([((0,), "load", "x", [0, 1]), ((1,), "load", "x", [0, 1])]) == ""          # shared reads are fine
    assert "both store" in find_race([((0,), "store", "y", [4]), ((2,), "store", "y", [4])])
    assert "loads h[2]" in find_race([((0,), "store", "h", [2]), ((1,), "load", "h", [2])])
    assert "loads h[2]" in find_race([((1,), "load", "h", [2]), ((0,), "store", "h", [2])])
    assert find_race([((0,), "load", "h", [2]), ((0,), "store", "h", [2])]) == ""              # one program's own update
    assert find_race([((0,), "atomic_add", "h", [2, 2]), ((1,), "atomic_add", "h", [2])]) == ""


def test_max_error_counts_nonfinite_disagreement():
    assert max_error([np.nan, 1.0], [0.5, 1.0]) == (math.inf, 0)
    assert max_error([np.inf], [np.inf]) == (0.0, 0)
    assert max_error([-np.inf], [np.inf]) == (math.inf, 0)
    with pytest.raises(ValueError, match="elements"): max_error([1.0, 2.0], [1.0])


def test_target_errors_name_the_problem():
    k = corpus.get("softmax")
    assert Target(k, "softmax(q)", "q in [-1, 1]").names == {"x_ptr": "q"}      # one input each side: matched
    with pytest.raises(ValueError, match="not tensor arguments"): Target(corpus.get("matmul"), "matmul(p, q)", "p in [-1, 1]; q in [-1, 1]")
    with pytest.raises(ValueError, match="no declared domain"): Target(dataclasses.replace(k, domain={}), "softmax(x)")
    with pytest.raises(ValueError, match="budget"): TargetedFalsification("softmax", budget=0)
    with pytest.raises(ValueError, match="generators"): TargetedFalsification("softmax", generators=["nope"])


def test_dtype_classes_only_narrower_and_certified():
    f = TargetedFalsification("softmax")
    classes = {d for _, _, d, _, _ in f.plan() if d is not None}
    assert classes <= {"float16", "bfloat16"} and "float32" not in classes
    for d in classes:                                # every class searched has a certified bound at its format
        tb = f.target.bound(corpus.resolve(retyped(f.kernel, d), f.space.configs()[0].dims))
        assert tb.certified
    only16 = TargetedFalsification("softmax", dtype_classes=["float16"])
    assert {d for _, _, d, _, _ in only16.plan() if d is not None} == {"float16"}
    with pytest.raises(ValueError, match="dtype_classes"): TargetedFalsification("softmax", dtype_classes=["int32"])
    mixed = TargetedFalsification(dataclasses.replace(corpus.get("rowsum"), accumulate="float32"))   # declares its accumulator:
                                                                                                    # searched as declared only
    assert all(d is None for _, _, d, _, _ in mixed.plan())


def test_the_search_walks_every_shape_class():
    f = TargetedFalsification("rowsum")
    labels = {label for label, *_ in f.plan()}
    assert {c.label for c in f.space.configs()} <= labels
    assert {g for _, _, _, g, _ in f.plan()} == set(GENERATORS) - {"nonfinite"}


def _blind(k):
    "The kernel with everything that could give the answer away erased."
    return dataclasses.replace(k, label=None, why="", answer_key=None, sibling=None, doc="",
                               meta={key: v for key, v in k.meta.items() if key not in ("label", "why", "answer_key", "sibling")})


@pytest.fixture(scope="module")
def corpus_sweep():
    "The whole corpus, blind, in this process (corpus files are trusted; the CLI always boxes)."
    out = {}
    for k in corpus.kernels():
        if not k.spec and not k.has_reference: continue
        out[k.name] = (k, TargetedFalsification(_blind(k)).run())
    return out


def test_every_numerically_visible_bug_is_found_and_no_correct_kernel_flagged(corpus_sweep):
    for name, (k, r) in corpus_sweep.items():
        assert not r.failure, (name, r.failure)
        if k.buggy: assert r.found, f"{name} ({k.label}) not found: {r}"
        else: assert not r.found, f"{name} is correct but flagged: {r.counterexample}"


def test_counterexamples_replay_and_are_small(corpus_sweep):
    sizes = []
    for name, (k, r) in corpus_sweep.items():
        if not r.found: continue
        cx = r.counterexample
        sizes.append(cx.elements)
        native = "/".join(dict.fromkeys(a["dtype"] for a in k.args if a["kind"] == "tensor"))
        kernel = k if cx.dtype == native else retyped(k, cx.dtype)
        run = simulate.run_model_here(kernel, cx.dims, cx.inputs, trace=cx.kind == "race")
        if cx.kind == "numeric":
            assert cx.error > cx.threshold and cx.tolerance_kind in ("certified", "heuristic", "tolerance")
            target = Target(k)
            o = target.compare(_case(kernel, cx), run)
            assert o.error > o.threshold, name
        elif cx.kind == "out_of_bounds": assert run.violations, name
        elif cx.kind == "barrier_divergence": assert run.divergent_barrier, name
        elif cx.kind == "race": assert find_race(run.trace), name
    assert statistics.median(sizes) <= 2


def _case(kernel, cx):
    from litmus.falsify import Case
    return Case(kernel, cx.dims, cx.inputs, cx.config, cx.dtype, cx.generator)


def test_result_round_trips_as_data(corpus_sweep):
    import json
    for name, (k, r) in list(corpus_sweep.items())[:6]:
        d = json.loads(json.dumps(r.as_dict()))
        back = FalsifyResult.from_dict(d)
        assert back.found == r.found and back.evaluations == r.evaluations
        if r.found: assert np.array_equal(np.asarray(back.counterexample.inputs[k.inputs[0]]), r.counterexample.inputs[k.inputs[0]])


def test_spsa_climbs_when_the_aimed_generators_miss():
    r = TargetedFalsification("softmax_nomaxsub", generators=["subnormal"], dtypes=False, spsa_steps=30).run()
    assert r.found and r.counterexample.generator.startswith("spsa")
    miss = TargetedFalsification("softmax_nomaxsub", generators=["subnormal"], dtypes=False, spsa_steps=0).run()
    assert not miss.found                         # without the ascent the restricted search misses: SPSA did the work


def test_an_exact_result_past_the_output_range_is_not_held_against_the_kernel():
    # float16 vadd over a domain whose sums pass 65504: the exact result rounds to +-inf there, and so does the kernel
    k = retyped(corpus.get("vadd"), "float16")
    r = TargetedFalsification(k, domain="x in [-6e4, 6e4]; y in [-6e4, 6e4]", dtypes=False).run()
    assert not r.found and not r.failure, r
    bad = dataclasses.replace(corpus.get("vadd_nomask"))                    # the harness still sees real faults
    assert TargetedFalsification(bad, dtypes=False).run().found

"""The GPU-free model against Triton's interpreter (when installed) and against hand-derived oracles."""
import textwrap
from pathlib import Path

import numpy as np
import pytest

from litmus import corpus, simulate
from litmus.corpus import get, load, make_inputs
from litmus.simulate import RACE_NOTE, run_interpreter, run_model, triton_available

needs_triton = pytest.mark.skipif(not triton_available(), reason="triton is not installed (pip install triton==3.9.0)")


def small_dims(k):
    "The default dims shrunk (keeps tails: non-powers of two stay non-powers of two)."
    return {d: (v if d in k.pads else min(v, 37 if v > 37 else v)) for d, v in k.dims.items()}


def corpus_cases():
    cases = []
    for i, k in enumerate(corpus.kernels()):
        dims = small_dims(k)
        cases.append((k, dims, make_inputs(k, dims, {n: {"dist": "normal"} for n in k.inputs}, seed=i)))
        if k.buggy:
            dims, inputs = corpus.answer_key_inputs(k)
            cases.append((k, dims, inputs))
    return cases


@pytest.fixture(scope="module")
def interpreted():
    cases = corpus_cases()
    return cases, run_interpreter(cases)


@needs_triton
def test_model_matches_interpreter_bit_for_bit(interpreted):
    cases, runs = interpreted
    for (k, dims, inputs), r in zip(cases, runs):
        assert not r.failed, (k.name, r.error)
        m = run_model(k, dims, inputs)
        assert [vars(v) for v in r.violations] == [vars(v) for v in m.violations], k.name
        assert r.barriers == m.barriers, k.name
        if k.label == "race" and k.answer_key["observable"] == "numeric":
            continue
        for n in m.outputs:
            assert np.array_equal(r.outputs[n], m.outputs[n], equal_nan=True), (k.name, dims, n)


@needs_triton
def test_races_do_not_show_in_the_interpreter(interpreted):
    cases, runs = interpreted
    raced = [(k, d, x, r) for (k, d, x), r in zip(cases, runs) if k.name in ("sum_race", "rowsum_race") and d == corpus.answer_key_inputs(k)[0]]
    assert len(raced) == 2
    for k, d, x, r in raced:
        assert r.note == RACE_NOTE
        ref = corpus.reference_outputs(k, x)
        assert all(corpus.deviation(r.outputs[n], ref[n], corpus.tolerance(k, d)) <= 1 for n in k.outputs), k.name
        m = run_model(k, d, x)
        assert any(corpus.deviation(m.outputs[n], ref[n], corpus.tolerance(k, d)) > 1 for n in k.outputs), k.name


def write_kernel(tmp_path, name, body, litmus, reference="def reference(*a):\n    return a[0]\n"):
    p = tmp_path / f"{name}.py"
    p.write_text("import numpy as np\nimport triton\nimport triton.language as tl\n\n" + textwrap.dedent(body) +
                 f"\nLITMUS = {litmus!r}\n\n" + reference)
    return load(p)


def test_loads_see_launch_memory_and_own_stores(tmp_path):
    # program p stores p+1 into cell p, reads back its own cell and the cell the previous program wrote
    k = write_kernel(tmp_path, "visibility", """
        @triton.jit
        def visibility(buf_ptr, own_ptr, prev_ptr):
            pid = tl.program_id(0)
            tl.store(buf_ptr + pid, (pid + 1).to(tl.float32))
            tl.store(own_ptr + pid, tl.load(buf_ptr + pid))
            tl.store(prev_ptr + pid, tl.load(buf_ptr + tl.maximum(pid - 1, 0)))
        """, {"label": "correct", "why": "test", "dims": {"G": 4}, "grid": ["G"], "args": [
            {"name": "buf_ptr", "kind": "tensor", "dtype": "float32", "shape": ["G"], "role": "acc"},
            {"name": "own_ptr", "kind": "tensor", "dtype": "float32", "shape": ["G"], "role": "out"},
            {"name": "prev_ptr", "kind": "tensor", "dtype": "float32", "shape": ["G"], "role": "out"}]})
    r = run_model(k)
    assert np.array_equal(r.outputs["buf_ptr"], [1, 2, 3, 4])            # stores commit in program order
    assert np.array_equal(r.outputs["own_ptr"], [1, 2, 3, 4])            # a program sees its own stores
    assert np.array_equal(r.outputs["prev_ptr"], [1, 0, 0, 0])           # ... and launch-time memory for the others'


def test_atomics_never_lose_updates_and_duplicate_lanes_accumulate(tmp_path):
    k = write_kernel(tmp_path, "hist", """
        @triton.jit
        def hist(idx_ptr, out_ptr, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.atomic_add(out_ptr + tl.load(idx_ptr + offs), 1)
        """, {"label": "correct", "why": "test", "dims": {"N": 64}, "grid": ["N // 16"], "args": [
            {"name": "idx_ptr", "kind": "tensor", "dtype": "int32", "shape": ["N"], "role": "in"},
            {"name": "out_ptr", "kind": "tensor", "dtype": "int32", "shape": ["4"], "role": "acc"},
            {"name": "BLOCK", "kind": "constexpr", "value": "16"}]})
    idx = np.random.default_rng(0).integers(0, 4, 64)
    r = run_model(k, None, {"idx_ptr": idx})
    assert np.array_equal(r.outputs["out_ptr"], np.bincount(idx, minlength=4))


def test_out_of_bounds_is_recorded_with_argument_element_and_program():
    r = run_model(get("vadd_nomask"), {"N": 300}, make_inputs(get("vadd_nomask"), {"N": 300}))
    got = [(v.op, v.arg, v.element, v.program, v.lanes) for v in r.violations]
    assert got == [("load", "x_ptr", 300, (2, 0, 0), 84), ("load", "y_ptr", 300, (2, 0, 0), 84), ("store", "out_ptr", 300, (2, 0, 0), 84)]


def test_poison_past_the_end_and_next_row_inside():
    k = get("rowsum_nomask")
    x = np.arange(3 * 40, dtype=np.float64).reshape(3, 40)
    r = run_model(k, {"M": 3, "N": 40}, {"x_ptr": x})
    flat = x.reshape(-1)
    # BLOCK=32: two chunks per row, the second reads 24 elements past the row end
    expected = [flat[40 * i: 40 * i + 64].sum() if i < 2 else flat[80:].sum() + simulate.poison(np.arange(120, 144), np.float32).astype(np.float64).sum()
                for i in range(3)]
    np.testing.assert_allclose(r.outputs["out_ptr"], expected, rtol=1e-6)


def test_fp16_accumulator_matches_a_hand_written_lane_loop():
    "rowsum_fp16acc against an independent transliteration: each lane adds its column values in float16, in order."
    k = get("rowsum_fp16acc")
    dims = {"M": 3, "N": 1000}
    x = make_inputs(k, dims, {"x_ptr": {"dist": "uniform", "low": 0.0, "high": 8.0}}, seed=3)
    r = run_model(k, dims, x)
    block = 32
    for row in range(3):
        acc = np.zeros(block, np.float16)
        for start in range(0, 1000, block):
            chunk = np.zeros(block, np.float32)
            n = min(block, 1000 - start)
            chunk[:n] = x["x_ptr"][row, start:start + n]
            acc = (acc + chunk.astype(np.float16)).astype(np.float16)
        assert r.outputs["out_ptr"][row] == np.sum(acc.astype(np.float32))


def test_triton_promotion_rules():
    b = simulate.as_block
    i32, f16 = b(np.arange(1, 4, dtype=np.int32)), b(np.ones(3, np.float16))
    assert (i32 * 0.5).dtype == np.float32 and (i32 / i32).dtype == np.float32 and (i32 // 2).dtype == np.int32
    assert (f16 + 1.0).dtype == np.float16 and (f16 * np.float32(2)).dtype == np.float32
    assert simulate.TL.where(i32 > 0, i32, 0.0).dtype == np.float32
    assert simulate.TL.sum(b(np.ones(4, np.int8))).dtype == np.int32 and simulate.TL.sum(f16).dtype == np.float16


def test_unknown_tl_call_is_named(tmp_path):
    k = write_kernel(tmp_path, "uses_cumsum", """
        @triton.jit
        def uses_cumsum(x_ptr):
            tl.store(x_ptr + tl.arange(0, 4), tl.cumsum(tl.load(x_ptr + tl.arange(0, 4)), 0))
        """, {"label": "correct", "why": "test", "dims": {}, "grid": ["1"], "args": [
            {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["4"], "role": "acc"}]})
    r = run_model(k)
    assert r.failed and "tl.cumsum" in r.error


def test_bfloat16_kernels_fall_back_to_the_model(tmp_path):
    k = write_kernel(tmp_path, "bf16_scale", """
        @triton.jit
        def bf16_scale(x_ptr, y_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)
        """, {"label": "correct", "why": "test", "dims": {"N": 8}, "grid": ["1"], "args": [
            {"name": "x_ptr", "kind": "tensor", "dtype": "bfloat16", "shape": ["N"], "role": "in"},
            {"name": "y_ptr", "kind": "tensor", "dtype": "bfloat16", "shape": ["N"], "role": "out"},
            {"name": "BLOCK", "kind": "constexpr", "value": "N"}]}, "def reference(x):\n    return 2 * x\n")
    backend, why = simulate.backend_for(k)
    assert backend == "model" and "bfloat16" in why
    x = make_inputs(k, None, {"x_ptr": {"dist": "normal"}})        # rounded to bfloat16, so 2x is exact
    v = corpus.check_many([(k, None, x)], "interpreter")[0]
    assert v.backend == "model" and "bfloat16" in v.note and v.deviation == 0


@needs_triton
def test_interpreter_masks_off_and_reports_a_wild_store(tmp_path):
    k = write_kernel(tmp_path, "wild", """
        @triton.jit
        def wild(x_ptr, y_ptr):
            tl.store(y_ptr + 10_000_000 + tl.arange(0, 4), tl.load(x_ptr + tl.arange(0, 4)))
            tl.store(y_ptr + tl.arange(0, 4), tl.load(x_ptr + tl.arange(0, 4)))
        """, {"label": "correct", "why": "test", "dims": {}, "grid": ["1"], "args": [
            {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["4"], "role": "in"},
            {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["4"], "role": "out"}]})
    (r,) = run_interpreter([(k, None, {"x_ptr": np.arange(4.0)})])
    assert not r.failed and np.array_equal(r.outputs["y_ptr"], np.arange(4.0))
    assert [(v.op, v.arg, v.element, v.lanes) for v in r.violations] == [("store", "y_ptr", 10_000_000, 4)]
    m = run_model(k, None, {"x_ptr": np.arange(4.0)})
    assert [vars(v) for v in m.violations] == [vars(v) for v in r.violations]

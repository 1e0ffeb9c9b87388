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
    "The default dims shrunk (keeps tails: non-powers of two stay non-powers of two); a dim fixed by its range stays."
    fixed = {d for d, (lo, hi) in k.ranges.items() if lo == hi}
    return {d: (v if d in k.pads or d in fixed else min(v, 37 if v > 37 else v)) for d, v in k.dims.items()}


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
            if "tl.dot" in k.source:  # the model rounds per 16-slice of K (a tensor core's order), the interpreter per tile
                rtol = 2 * float(np.finfo(np.float16).eps) if "float16" in k.source else 1e-5
                scale = float(np.nanmax(np.abs(np.nan_to_num(r.outputs[n], posinf=0, neginf=0)), initial=1.0))
                np.testing.assert_allclose(m.outputs[n], r.outputs[n], rtol=rtol, atol=rtol * scale, err_msg=k.name)
                continue
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



def test_the_promotion_shortcut_agrees_with_the_rules():
    "`_unpromoted` (the fast path most kernel operations take) hands numpy exactly what Triton's rules would."
    b = simulate.as_block
    blocks = [b(np.arange(-3, 3).astype(d)) for d in (np.int8, np.int32, np.int64, np.uint32, np.float16, np.float32, np.float64)]
    blocks += [b(np.array([True, False, True, True, False, False])), b(np.ones(6, simulate.np_dtype("bfloat16")))]
    scalars = [3, -2, 0.5, True, np.int32(4), np.float32(1.5)]
    ufuncs = [np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.remainder, np.less, np.maximum,
              np.bitwise_and, np.logical_or, np.left_shift, np.negative]
    shortcut_taken = 0
    for ufunc in ufuncs:
        operands = [(x,) for x in blocks] if ufunc.nin == 1 else (
            [(x, y) for x in blocks for y in blocks] + [(x, s) for x in blocks for s in scalars] + [(s, x) for x in blocks for s in scalars])
        for inputs in operands:
            fast = simulate._unpromoted(ufunc, inputs)
            if fast is None:
                continue
            shortcut_taken += 1
            ruled = simulate._promote_by_rules(ufunc, inputs)
            assert [type(x) for x in fast] == [type(x) for x in ruled], (ufunc, inputs)
            for f, r in zip(fast, ruled):
                if isinstance(r, np.ndarray):
                    assert type(f) is np.ndarray and f.dtype == r.dtype and np.array_equal(f, r, equal_nan=True), (ufunc, inputs)
                else:
                    assert f == r, (ufunc, inputs)
    assert shortcut_taken > 100   # the shortcut is exercised, not bypassed

def test_unknown_tl_call_is_named(tmp_path):
    k = write_kernel(tmp_path, "uses_asm", """
        @triton.jit
        def uses_asm(x_ptr):
            x = tl.load(x_ptr + tl.arange(0, 4))
            tl.store(x_ptr + tl.arange(0, 4), tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1))
        """, {"label": "correct", "why": "test", "dims": {}, "grid": ["1"], "args": [
            {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["4"], "role": "acc"}]})
    r = run_model(k)
    assert r.failed and "tl.inline_asm_elementwise" in r.unsupported and "line 9" in r.unsupported


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
    v = simulate.check_many([(k, None, x)], "interpreter")[0]
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


TUTORIAL_LANGUAGE = """
    @triton.jit
    def add(a, b):
        return a + b

    @triton.jit
    def pick_max(a, ia, b, ib):
        keep = a >= b
        return tl.where(keep, a, b), tl.where(keep, ia, ib)

    @triton.jit
    def language(x_ptr, i_ptr, out_ptr, N: tl.constexpr):
        offs = tl.arange(0, N)
        offs = tl.max_contiguous(tl.multiple_of(offs, N), N)
        x = tl.load(x_ptr + offs)
        i = tl.load(i_ptr + offs)
        row = tl.reshape(x, (2, N // 2))
        col = tl.trans(row)
        out = tl.zeros([16], tl.float32)
        out = tl.where(tl.arange(0, 16) == 0, tl.sum(x, axis=0), out)
        out = tl.where(tl.arange(0, 16) == 1, tl.max(x, axis=0), out)
        out = tl.where(tl.arange(0, 16) == 2, tl.min(x, axis=0), out)
        out = tl.where(tl.arange(0, 16) == 3, tl.argmax(x, axis=0).to(tl.float32), out)
        out = tl.where(tl.arange(0, 16) == 4, tl.sum(tl.exp(x - tl.max(x, axis=0)), axis=0), out)
        out = tl.where(tl.arange(0, 16) == 5, tl.sum(tl.math.exp2(x) + tl.log(tl.abs(x) + 1) + tl.sqrt(tl.abs(x)), axis=0), out)
        out = tl.where(tl.arange(0, 16) == 6, tl.sum(tl.sigmoid(x) + tl.rsqrt(tl.abs(x) + 1), axis=0), out)
        out = tl.where(tl.arange(0, 16) == 7, tl.sum(tl.fma(x, x, x) + tl.maximum(x, 0.0) - tl.minimum(x, 0.0), axis=0), out)
        out = tl.where(tl.arange(0, 16) == 8, tl.sum(tl.cumsum(x, axis=0), axis=0), out)
        out = tl.where(tl.arange(0, 16) == 9, tl.sum(tl.associative_scan(x, 0, add), axis=0), out)
        best, where = tl.reduce((x, i), 0, pick_max)
        out = tl.where(tl.arange(0, 16) == 10, where.to(tl.float32), out)
        out = tl.where(tl.arange(0, 16) == 11, tl.sum(tl.sum(col, axis=0), axis=0), out)
        acc = tl.full([4], 0.0, tl.float32)
        for k in tl.static_range(3):
            acc += tl.broadcast_to(tl.full([1], tl.cdiv(N, 4 + k), tl.float32), (4,))
        for k in tl.range(0, 2):
            acc += 1.0
        out = tl.where(tl.arange(0, 16) == 12, tl.sum(acc, axis=0), out)
        out = tl.where(tl.arange(0, 16) == 13, tl.sum(tl.rand(7, offs), axis=0), out)
        (out_ptr + tl.arange(0, 16)).store(out)
    """


def test_the_tutorial_language_against_numpy(tmp_path):
    "tl functions of Triton's tutorials, scans and a tuple reduce with the kernel's own combine functions, held to numpy."
    k = write_kernel(tmp_path, "language", TUTORIAL_LANGUAGE, {"label": "correct", "why": "test", "dims": {}, "grid": ["1"], "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["16"], "role": "in"},
        {"name": "i_ptr", "kind": "tensor", "dtype": "int32", "shape": ["16"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["16"], "role": "out"},
        {"name": "N", "kind": "constexpr", "value": "16"}]})
    x = np.random.default_rng(0).normal(size=16).astype(np.float32)
    r = run_model(k, None, {"x_ptr": x, "i_ptr": np.arange(16)})
    assert not r.failed, r.error
    o, x64 = r.outputs["out_ptr"], x.astype(np.float64)
    want = [x64.sum(), x64.max(), x64.min(), x64.argmax(), np.exp(x64 - x64.max()).sum(),
            (np.exp2(x64) + np.log(np.abs(x64) + 1) + np.sqrt(np.abs(x64))).sum(), (1 / (1 + np.exp(-x64)) + 1 / np.sqrt(np.abs(x64) + 1)).sum(),
            (x64 * x64 + x64 + np.maximum(x64, 0) - np.minimum(x64, 0)).sum(), np.cumsum(x64).sum(), np.cumsum(x64).sum(), x64.argmax(),
            x64.sum(), 4 * (4 + 4 + 3) + 8]
    np.testing.assert_allclose(o[:13], want, rtol=2e-5, atol=1e-5)
    assert 0 < o[13] < 16


@needs_triton
def test_the_tutorial_language_matches_the_interpreter(tmp_path):
    "The same kernel through Triton's interpreter: the Philox draws of tl.rand agree to the bit, the rest to rounding."
    k = write_kernel(tmp_path, "language", TUTORIAL_LANGUAGE, {"label": "correct", "why": "test", "dims": {}, "grid": ["1"], "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["16"], "role": "in"},
        {"name": "i_ptr", "kind": "tensor", "dtype": "int32", "shape": ["16"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["16"], "role": "out"},
        {"name": "N", "kind": "constexpr", "value": "16"}]})
    x = {"x_ptr": np.random.default_rng(0).normal(size=16).astype(np.float32), "i_ptr": np.arange(16)}
    (r,) = run_interpreter([(k, None, x)])
    m = run_model(k, None, x)
    assert not r.failed and not m.failed, (r.error, m.error)
    np.testing.assert_allclose(m.outputs["out_ptr"], r.outputs["out_ptr"], rtol=1e-5, atol=1e-5)
    assert m.outputs["out_ptr"][13] == r.outputs["out_ptr"][13]


@needs_triton
def test_tutorial_kernels_match_the_interpreter():
    "The dropout (tl.rand) and layernorm tutorials of tests/kernels, model against interpreter."
    kernels_dir = Path(__file__).parent / "kernels"
    cases = []
    for name in ("tutorial_dropout", "tutorial_layernorm", "matmul_grouped", "attention_causal"):
        k = load(kernels_dir / f"{name}.py")
        cases.append((k, None, make_inputs(k, None, {n: {"dist": "normal"} for n in k.inputs}, seed=1)))
    for (k, d, x), r in zip(cases, run_interpreter(cases)):
        m = run_model(k, d, x)
        assert not r.failed and not m.failed, (k.name, r.error, m.error)
        for n in m.outputs:  # a dot rounds per 16-slice of K in the model: an fp16 output may differ in its last bit
            rtol = 2 * float(np.finfo(m.outputs[n].dtype).eps) if "tl.dot" in k.source else 1e-5
            np.testing.assert_allclose(m.outputs[n], r.outputs[n], rtol=max(rtol, 1e-5), atol=1e-6, err_msg=k.name)


def test_a_long_correct_row_finishes_and_timed_out_is_accurate():
    "rowsum at M=1, N=700000 (21875 chunks in one program) is a correct kernel: it finishes; nothing times out."
    r = run_model(get("rowsum"), {"M": 1, "N": 700000}, {"x_ptr": np.ones((1, 700000))})
    assert not r.failed and not r.timed_out and r.outputs["out_ptr"][0] == 700000


def test_scans_in_half_precision_stagnate_like_an_accumulator():
    x = simulate.as_block(np.ones(4096, np.float16))
    c = simulate.TL.cumsum(x, axis=0)
    assert c.dtype == np.float16 and c.max() == 2048 and np.array_equal(c[:2048], np.arange(1, 2049))
    r = simulate.TL.cumsum(simulate.as_block(np.arange(1, 5, dtype=np.int8)), 0, reverse=True)
    assert r.dtype == np.int32 and r.tolist() == [10, 9, 7, 4]
    p = simulate.TL.cumprod(simulate.as_block(np.arange(1, 5, dtype=np.float32)), 0)
    assert p.tolist() == [1, 2, 6, 24]


@needs_triton
def test_every_atomic_agrees_with_the_interpreter(tmp_path):
    "add, max, min, and, or, xor, xchg and cas on live memory, duplicate lanes included, and out of bounds reported alike."
    k = write_kernel(tmp_path, "atomics", """
        @triton.jit
        def atomics(idx_ptr, a_ptr, m_ptr, n_ptr, b_ptr, o_ptr, x_ptr, s_ptr, c_ptr, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            i = tl.load(idx_ptr + offs)
            tl.atomic_add(a_ptr + i, offs)
            tl.atomic_max(m_ptr + i, offs)
            tl.atomic_min(n_ptr + i, offs)
            tl.atomic_and(b_ptr + i, offs + 1)
            tl.atomic_or(o_ptr + i, offs)
            tl.atomic_xor(x_ptr + i, offs)
            old = tl.atomic_xchg(s_ptr + tl.program_id(0), tl.program_id(0) + 1)
            tl.atomic_cas(c_ptr, 0, tl.program_id(0) + 7)
        """, {"label": "correct", "why": "test", "dims": {"N": 32}, "grid": ["N // 8"], "args": [
            {"name": "idx_ptr", "kind": "tensor", "dtype": "int32", "shape": ["N"], "role": "in"}] + [
            {"name": n, "kind": "tensor", "dtype": "int32", "shape": ["5"], "role": "acc"} for n in
            ("a_ptr", "m_ptr", "n_ptr", "b_ptr", "o_ptr", "x_ptr", "s_ptr", "c_ptr")] + [
            {"name": "BLOCK", "kind": "constexpr", "value": "8"}]})
    idx = {"idx_ptr": np.random.default_rng(2).integers(0, 6, 32)}    # 5 is one past the end
    (r,) = run_interpreter([(k, None, idx)])
    m = run_model(k, None, idx)
    assert not r.failed and not m.failed, (r.error, m.error)
    for n in m.outputs: assert np.array_equal(m.outputs[n], r.outputs[n]), n
    assert [vars(v) for v in r.violations] == [vars(v) for v in m.violations] and m.violations


def test_dtype_classes_and_pointer_broadcast():
    """The model's float test is true for every float format, bfloat16 included, and false for ints and bool; an int
    block plus a float32 one is float32; a pointer broadcast to a shape given as one tuple keeps its offsets per lane
    (kills the float test's `or` turned `and` and the tuple argument read from the wrong place)."""
    from litmus.simulate import DType, NP_DTYPES, Ptr, Buffer, as_block
    for name, dt in NP_DTYPES.items():
        assert DType(name, dt).is_floating() == (name.startswith("float") or name == "bfloat16"), name
    total = as_block(np.arange(3, dtype=np.int32)) + as_block(np.ones(3, dtype=np.float32))
    assert total.dtype == np.float32 and list(total) == [1.0, 2.0, 3.0]
    ptr = Ptr(Buffer("x", np.float32, np.zeros(8)), np.arange(3)[:, None])
    for wide in (ptr.broadcast_to((3, 4)), ptr.broadcast_to(3, 4)):
        assert wide.offsets.shape == (3, 4) and (wide.offsets == np.arange(3)[:, None]).all()


def test_block_shapes_over_the_lane_limit_or_negative_are_refused():
    """A block shape is refused when it has more lanes than LIMITS.block, or a negative size, each on its own; one at
    the limit is accepted (kills the two conditions joined by `and`)."""
    from litmus.simulate import LIMITS, _shape
    assert _shape((LIMITS.block,)) == (LIMITS.block,) and _shape([2, 3]) == (2, 3) and _shape(5) == (5,)
    for bad in [(LIMITS.block + 1,), (2, LIMITS.block), (-1,), (3, -2)]:
        with pytest.raises(ValueError, match="lane limit"): _shape(bad)


# ---- the language of issue 26: kernels as people write them, model against Triton's interpreter ----

LANGUAGE_26 = '''
from triton.language.extra import libdevice

LIMIT: tl.constexpr = 3
SHIFT = tl.constexpr(2)

@triton.jit
def prev_multiple_of(a, b):
    return tl.cdiv(a, b) * b - b

@triton.jit
def lang26(x_ptr, w_ptr, out_ptr, acc_ptr, n, scale, ACT: tl.constexpr, FLAG: tl.constexpr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 16)
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = x * n.to(tl.float32) * scale
    if ACT == "leaky_relu":
        y = tl.where(y > 0, y, 0.01 * y)
    elif ACT == "gelu":
        y = 0.5 * y * (1 + tl.erf(y * 0.7071067811865476))
    if FLAG and LIMIT > SHIFT:
        y = y + tl.sigmoid(x) + tl.math.rsqrt(x * x + 1) + tl.math.exp(x) + tl.exp2(x) + tl.log2(x * x + 1)
    if pid == 0 and n > 3:
        y = y + 1
    src = tl.where(offs < n // 2, x_ptr + offs, x_ptr + offs + 1)
    y = y + tl.load(src, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, y, mask=offs < n)
    p = acc_ptr
    total = 0.0
    for i in range(LIMIT, -1, -1):
        total += tl.load(p + i)
    for i in tl.range(pid, 4, tl.num_programs(0)):
        total += tl.load(w_ptr + i)
    k = 0
    while k < n:
        k += BLOCK
    for j in range(0, prev_multiple_of(n, 4), 4):
        total += tl.sum(tl.load(x_ptr + j + tl.arange(0, 4)), axis=0)
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 0 + tl.arange(0, 16)[None, :]).to(tl.float16)
    total += tl.sum(tl.sum(tl.dot(a, tl.trans(a)), axis=1), axis=0) * 0.0 + k
    tl.store(acc_ptr + pid, total)
'''

def lang26_kernel(tmp_path, act="leaky_relu", flag=True):
    return write_kernel(tmp_path, "lang26", LANGUAGE_26, {"label": "correct", "why": "test", "dims": {"N": 37}, "grid": ["1"],
        "args": [{"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["64"], "role": "in"},
                 {"name": "w_ptr", "kind": "tensor", "dtype": "float32", "shape": ["64"], "role": "in"},
                 {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["64"], "role": "out"},
                 {"name": "acc_ptr", "kind": "tensor", "dtype": "float32", "shape": ["4"], "role": "acc"},
                 {"name": "n", "kind": "scalar", "value": "N"}, {"name": "scale", "kind": "scalar", "value": 0.5},
                 {"name": "ACT", "kind": "constexpr", "value": f"\"{act}\""}, {"name": "FLAG", "kind": "constexpr", "value": flag},
                 {"name": "BLOCK", "kind": "constexpr", "value": "64"}]})

@needs_triton
@pytest.mark.parametrize("act, flag", [("leaky_relu", True), ("gelu", False), ("", True)])
def test_issue26_language_matches_the_interpreter(tmp_path, act, flag):
    """String and boolean constexprs, `.to` on a scalar, `and` between scalars, module-level constexprs, libdevice and
    tl.math functions, tl.where over pointers, static_assert, a negative step, a grid-stride tl.range, a while loop,
    a helper bounding a loop and a dot: the model and Triton's interpreter agree."""
    k = lang26_kernel(tmp_path, act, flag)
    rng = np.random.default_rng(3)
    x = {"x_ptr": rng.normal(size=64).astype(np.float32), "w_ptr": rng.normal(size=64).astype(np.float32)}
    (r,) = run_interpreter([(k, None, x)])
    m = run_model(k, None, x)
    assert not r.failed and not m.failed, (r.error, m.error)
    for name in m.outputs:
        np.testing.assert_allclose(m.outputs[name], r.outputs[name], rtol=2e-6, atol=1e-5, err_msg=name)


def test_and_or_between_blocks_is_lane_by_lane(tmp_path):
    """Triton's compiler reads `a and b` on blocks as logical_and (its interpreter, as Python, keeps `b`): the model
    follows the compiler; numpy's logical_and is the oracle. A constexpr operand still short-circuits."""
    k = write_kernel(tmp_path, "andor", """
    @triton.jit
    def andor(x_ptr, out_ptr, n, FLAG: tl.constexpr):
        offs = tl.arange(0, 16)
        x = tl.load(x_ptr + offs)
        keep = (offs < n) and (x > 0) or (offs == 15)
        keep = keep and FLAG
        tl.store(out_ptr + offs, tl.where(keep, 1.0, 0.0))
    """, {"label": "correct", "why": "test", "dims": {}, "grid": ["1"], "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["16"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["16"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "10"}, {"name": "FLAG", "kind": "constexpr", "value": True}]})
    x = np.random.default_rng(0).normal(size=16).astype(np.float32)
    r = run_model(k, None, {"x_ptr": x})
    assert not r.failed, r.error
    want = np.logical_or(np.logical_and(np.arange(16) < 10, x > 0), np.arange(16) == 15)
    assert np.array_equal(r.outputs["out_ptr"], want.astype(np.float32))


def test_block_pointers_against_a_padded_numpy_window(tmp_path):
    """make_block_ptr / advance / load and store with boundary_check and padding_option (Triton 3.9 removed block
    pointers, so its interpreter cannot be the oracle): a tiled copy of a 37 x 21 matrix, every tile read zero-padded
    and written through a checked store, equals the matrix; an unchecked tail is an out-of-bounds read."""
    body = """
    @triton.jit
    def tiles(x_ptr, out_ptr, M, N, CHECK: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
        pm = tl.program_id(0)
        src = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pm * BM, 0), (BM, BN), (1, 0))
        dst = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (pm * BM, 0), (BM, BN), (1, 0))
        for j in range(0, tl.cdiv(N, BN)):
            if CHECK:
                t = tl.load(src, boundary_check=(0, 1), padding_option="zero")
            else:
                t = tl.load(src, boundary_check=(0,), padding_option="zero")
            tl.store(dst, t + 0 * tl.sum(tl.sum(t, axis=1), axis=0), boundary_check=(0, 1))
            src = tl.advance(src, (0, BN))
            dst = tl.advance(dst, (0, BN))
    """
    meta = lambda check: {"label": "correct", "why": "test", "dims": {"M": 37, "N": 21}, "grid": ["cdiv(M, 16)"], "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "M", "kind": "scalar", "value": "M"}, {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "CHECK", "kind": "constexpr", "value": check},
        {"name": "BM", "kind": "constexpr", "value": "16"}, {"name": "BN", "kind": "constexpr", "value": "8"}]}
    x = np.random.default_rng(1).normal(size=(37, 21)).astype(np.float32)
    r = run_model(write_kernel(tmp_path, "tiles", body, meta(True)), None, {"x_ptr": x})
    assert not r.failed and not r.violations, (r.error, r.violations)
    assert np.array_equal(r.outputs["out_ptr"], x)
    r = run_model(write_kernel(tmp_path, "tiles", body, meta(False)), None, {"x_ptr": x})
    assert any(v.op == "load" and v.arg == "x_ptr" for v in r.violations), r.violations


def test_a_tiled_dot_rounds_per_k_slice_within_the_certified_bound():
    """The model's dot (one rounding per 16-slice of K into a float32 accumulator) on fp16 inputs, against the exact
    float64 product: within gamma_K * |A||B|, the bound chapter 02 certifies for a K-long contraction."""
    rng = np.random.default_rng(2)
    for K in (16, 64, 200):
        a = rng.uniform(-1, 1, (8, K)).astype(np.float16)
        b = rng.uniform(-1, 1, (K, 8)).astype(np.float16)
        got = np.asarray(simulate.TL.dot(simulate.as_block(a), simulate.as_block(b))).astype(np.float64)
        exact = a.astype(np.float64) @ b.astype(np.float64)
        gamma = K * 2.0**-24 / (1 - K * 2.0**-24)
        assert np.all(np.abs(got - exact) <= gamma * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))), K


LIBDEVICE = {"tanh": np.tanh, "rsqrt": lambda v: 1 / np.sqrt(v), "exp2": np.exp2, "log2": np.log2, "erf": None,
             "sqrt": np.sqrt, "expm1": np.expm1, "log1p": np.log1p, "atan": np.arctan, "cbrt": np.cbrt, "trunc": np.trunc}

def test_libdevice_functions_against_numpy_in_float64(tmp_path):
    """libdevice spellings (`from triton.language.extra import libdevice`; on a CPU Triton's interpreter cannot run
    them, so float64 numpy and math.erf are the oracle), one and two arguments, rounded once to float32."""
    import math
    calls = "\n".join(f"    tl.store(out_ptr + {i} * 16 + offs, libdevice.{f}(x))" for i, f in enumerate(LIBDEVICE))
    k = write_kernel(tmp_path, "libdev", "from triton.language.extra import libdevice\n\n@triton.jit\n"
                     "def libdev(x_ptr, out_ptr):\n    offs = tl.arange(0, 16)\n    x = tl.load(x_ptr + offs)\n" + calls +
                     f"\n    tl.store(out_ptr + {len(LIBDEVICE)} * 16 + offs, libdevice.pow(x, x * 0 + 1.5))\n",
                     {"label": "correct", "why": "test", "dims": {}, "grid": ["1"], "args": [
                         {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["16"], "role": "in"},
                         {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": [str(16 * (len(LIBDEVICE) + 1))], "role": "out"}]})
    x = np.random.default_rng(4).uniform(0.1, 2, 16).astype(np.float32)
    r = run_model(k, None, {"x_ptr": x})
    assert not r.failed, r.error
    x64 = x.astype(np.float64)
    for i, (f, fn) in enumerate(list(LIBDEVICE.items()) + [("pow", lambda v: v ** 1.5)]):
        want = np.array([math.erf(v) for v in x64]) if fn is None else fn(x64)
        np.testing.assert_allclose(r.outputs["out_ptr"][16 * i: 16 * i + 16], want, rtol=3e-7, atol=1e-7, err_msg=f)


def both_ways(cases, trace=False):
    """In one box per call: each case run program by program (the oracle) and all at once where it can; per case
    whether the two Runs agree bit for bit, and why the run of all programs at once fell back ('' when it did not)."""
    def job(case):
        k, d, x = case
        each = simulate.run_model_here(k, d, x, trace=trace, programs="each")
        auto = simulate.run_model_here(k, d, x, trace=trace)
        try:
            simulate.run_model_here(k, d, x, trace=trace, programs="together")
            fallback = ""
        except Exception as e:
            fallback = f"{type(e).__name__}: {e}"
        return {"same": simulate.same_run(each, auto), "fallback": fallback}
    outcomes = corpus.boxed(job, cases, corpus.Limits(timeout=120.0))
    return [o.value if o.ok else {"same": False, "fallback": o.error} for o in outcomes]


@pytest.mark.parametrize("trace", [False, True])
def test_programs_at_once_give_the_per_program_run_on_the_corpus(trace):
    "Outputs bit for bit, violations in order, barriers and the access trace: every corpus case, answer keys included."
    cases = corpus_cases()
    results = both_ways(cases, trace)
    assert [k.name for (k, _, _), r in zip(cases, results) if not r["same"]] == []
    together = {k.name for (k, _, _), r in zip(cases, results) if not r["fallback"]}
    fell = {k.name: r["fallback"] for (k, _, _), r in zip(cases, results) if r["fallback"]}
    assert {"vadd", "softmax", "layernorm", "matmul"} <= together and len(together) >= 25, fell
    assert "atomic" in fell["histogram"] and "two programs store" in fell["sum_race"], fell  # programs take turns there
    assert "one Python value" in fell["softmax_barrier"], fell                              # a barrier behind an `if`


def test_programs_at_once_on_the_tutorial_and_real_kernels():
    "tests/kernels (tutorials, hostile files) and tests/real_kernels, at small dims on normal inputs, traced."
    here = Path(__file__).parent
    paths = sorted((here / "kernels").glob("*.py")) + sorted(p for p in (here / "real_kernels").glob("*/*.py"))
    cases = []
    for i, path in enumerate(paths):
        try:
            k = load(path)
        except Exception:
            continue                     # a file the loader refuses is not run at all
        dims = small_dims(k)
        cases.append((k, dims, make_inputs(k, dims, {n: {"dist": "normal"} for n in k.inputs}, seed=i)))
    assert len(cases) >= 70
    results = both_ways(cases, trace=True)
    assert [str(k.path) for (k, _, _), r in zip(cases, results) if not r["same"]] == []
    assert sum(not r["fallback"] for r in results) >= len(cases) // 2   # most of them run all programs at once


def test_a_reused_namespace_is_never_one_a_launch_changed(tmp_path):
    "A kernel that writes into a list literal of its file sees the list as the file wrote it in every launch."
    k = write_kernel(tmp_path, "counter", """
        SEEN = [0.0]

        @triton.jit
        def counter(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
            SEEN[0] = SEEN[0] + 1.0
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < N) + SEEN[0], mask=offs < N)
        """, {"label": "correct", "why": "test", "dims": {"N": 8}, "grid": ["1"], "args": [
            {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
            {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
            {"name": "N", "kind": "scalar", "value": "N"},
            {"name": "BLOCK", "kind": "constexpr", "value": "8"}]})
    x = {"x_ptr": np.arange(8, dtype=np.float32)}
    runs = corpus.boxed(lambda _: {"y": [simulate.run_model_here(k, None, x).outputs["y_ptr"] for _ in range(3)]}, [0])[0]
    assert runs.ok, runs.error
    for y in runs.value["y"]:
        assert np.array_equal(y, np.arange(8) + 1.0)

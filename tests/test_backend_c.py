"""The c device against the numpy device over the shared graph corpus (a sink written by a reduction litmus can bound is
held to its certified tolerance, limn.verify.sink_tolerance; the rest to the fixed one), threaded against serial and cut against
uncut (exactly), plus the compile cache, flag fallback, and the errors it must give. Correctness only: timings live in
examples/bench_matmul.py."""
import os, stat, sys, pathlib
import numpy as np
import pytest
import limn
from limn import Tensor, use_device, set_device, realize, register_device
from limn.ops import Ops, float16, bfloat16, float32, float64
from limn.verify import sink_tolerance
import limn.backend_c as backend_c
from limn.backend_c import CDevice, CBackend, CompilerError, CompilerNotFound, render_c, probe_flags, PLAIN, JAM, UNROLL
from limn.schedule import schedule
from limn.codegen import lower

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from graph_corpus import CORPUS, tolerance, C_DTYPES

C_CASES = [c for c in CORPUS if c.dtype in C_DTYPES]

CONFIGS = {"c": None,                                                   # the default device
           "c-threads-everywhere": lambda: CDevice(threads=True, split_masks=True, parallel_work=0),
           "c-serial-uncut": lambda: CDevice(**PLAIN)}
for _name, _factory in CONFIGS.items():
    if _factory is not None: register_device(_name, _factory)

def realize_corpus(device: str) -> dict:
    """Every case's sink values on `device`. All cases go to the device in one realize (one plan, so the c device
    compiles the corpus in one cc run); each case's sinks are realized together, so an ASSIGN commits after its
    case's other sinks are computed, on every device alike."""
    with use_device(device):
        built = [case.build() for case in C_CASES]
        try: realize(*[t for sinks in built for t in sinks])
        except Exception: pass                            # find the culprit case by case below
        out = {}
        for case, sinks in zip(C_CASES, built):
            try:
                realize(*sinks); out[case.name] = [t.numpy() for t in sinks]
            except Exception as e: out[case.name] = e
        return out

@pytest.fixture(scope="module")
def results():
    return {name: realize_corpus(name) for name in ["numpy", *CONFIGS]}

@pytest.fixture(scope="module")
def certified():
    """Per float case, per sink: litmus's certified bound on |c - numpy| when a recognised reduction writes the sink (its
    reduction length, accumulator and the box of its actual inputs), else None. It replaces the fixed 1e-5 there: tighter
    for most sinks; looser only for long float32 sums, because it holds for every input in the box and any summation order."""
    return {c.name: [sink_tolerance(t) for t in c.build()] for c in C_CASES if c.dtype in (float32, float64)}

@pytest.mark.parametrize("case", C_CASES, ids=[c.name for c in C_CASES])
def test_corpus(case, results, certified):
    want = results["numpy"][case.name]
    rtol, atol = tolerance(case.dtype)
    bounds = certified.get(case.name) or [None] * len(want)
    got = {name: results[name][case.name] for name in CONFIGS}
    for name, values in got.items():
        if isinstance(values, Exception): raise AssertionError(f"{case.name} failed on {name}") from values
    assert len(got["c"]) == len(want)
    for g, w, bound in zip(got["c"], want, bounds):
        assert g.shape == w.shape and g.dtype == w.dtype
        if case.dtype.is_int: np.testing.assert_array_equal(g, w)
        elif bound is not None:
            assert bound.certified and np.abs(g.astype(np.float64) - w).max() <= bound.pairwise, (case.name, bound)
        else: np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    for t, s, d in zip(got["c-threads-everywhere"], got["c-serial-uncut"], got["c"]):
        assert t.tobytes() == s.tobytes() and d.tobytes() == s.tobytes()     # threads and cuts change no bit

def test_corpus_is_threaded_and_cut():
    "The exact comparison above means something: most corpus nests really carry pragmas, and some are cut."
    pragmas = cuts = kernels = 0
    for case in C_CASES:
        for k in schedule([t.node for t in case.build()]).kernels:
            src = render_c(k, threads=True, split_masks=True, parallel_work=0)
            kernels += 1; pragmas += "#pragma omp parallel for" in src; cuts += "int64_t c0 = limn_clamp" in src
    assert kernels > 100 and pragmas > kernels // 2 and cuts >= 5, (kernels, pragmas, cuts)

def test_large_nests_threaded_exactly():
    "Nests big enough for the default threshold: a matmul, a padded conv, a keepdim reduce, threaded == serial."
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((96, 80)).astype(np.float32), rng.standard_normal((80, 72)).astype(np.float32)
    x, w = rng.standard_normal((16, 64, 64)).astype(np.float64), rng.standard_normal((3, 3)).astype(np.float64)
    def graphs():
        xp = Tensor(x).pad(((0, 0), (1, 1), (1, 1)))
        conv = sum(xp[:, i:i + 64, j:j + 64] * float(w[i, j]) for i in range(3) for j in range(3))
        return [Tensor(a) @ Tensor(b), conv, Tensor(x).sum(1, keepdim=True), Tensor(a).max(0)]
    default, serial = CDevice(), CDevice(threads=False, split_masks=False, unroll=1)
    got = default.realize([t.node for t in graphs()])
    ref = serial.realize([t.node for t in graphs()])
    with use_device("numpy"): want = [t.numpy() for t in graphs()]
    for g, r, expected in zip(got, ref, want):
        assert g.array.tobytes() == r.array.tobytes()
        np.testing.assert_allclose(g.array, expected, rtol=1e-5, atol=1e-5)
    srcs = [render_c(k) for k in schedule([t.node for t in graphs()]).kernels]
    assert sum("#pragma omp parallel for" in s for s in srcs) >= 3

def _sgd_steps(device, steps: int, seed=1) -> list:
    "A least-squares training loop on `device`; the (plans, compiles, cc runs) counters after each step."
    rng = np.random.default_rng(seed)
    w = Tensor(rng.standard_normal((6, 3)).astype(np.float32))
    counts = []
    for _ in range(steps):
        x = Tensor(rng.standard_normal((16, 6)).astype(np.float32))
        y = Tensor(rng.standard_normal((16, 3)).astype(np.float32))
        w.requires_grad = True
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        g = w.grad; w.requires_grad = False; w.grad = None
        w.assign(w - g * 0.1)
        realize(w, loss)
        counts.append((device.stats["plans"], device.stats["compiles"], device.backend.cc_runs))
    return counts

def test_compiles_on_first_step_only(tmp_path, monkeypatch):
    "A training loop at fixed shapes: plans and programs are built on step 1, never after."
    monkeypatch.setenv("LIMN_CACHE_DIR", str(tmp_path))          # an empty disk cache: step 1 must really run cc
    with use_device("c") as device: counts = _sgd_steps(device, 5)
    assert counts[0][0] > 0 and counts[0][1] > 0 and counts[0][2] >= 1
    assert all(c == counts[0] for c in counts), counts
    # a fresh process (here: a fresh device) over the same disk cache builds its programs without running cc
    with use_device("c") as again: (plans, compiles, cc_runs), = _sgd_steps(again, 1)
    assert compiles == counts[0][1] and cc_runs == 0

def _fake_cc(tmp_path, body: str) -> str:
    "An executable wrapper around the real cc whose behaviour `body` (bash) changes."
    real = backend_c.find_cc()
    path = tmp_path / "fakecc"
    path.write_text(f"#!/bin/bash\nREAL={real}\n{body}\nexec \"$REAL\" \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)

def _kernel():
    return schedule([(Tensor(np.arange(6, dtype=np.float32)) * 3 + 1).node]).kernels[0]

def test_compiler_failure_leaves_no_cache_entry(tmp_path, monkeypatch):
    "cc writes half a library and dies: the error says so, and the cache holds nothing afterwards."
    out = '''for a in "$@"; do case "$a" in *.c) SRC="$a";; esac; done
if grep -q limn_kernel "$SRC" 2>/dev/null; then
  prev=""; for a in "$@"; do if [ "$prev" = "-o" ]; then echo "half a library" > "$a"; fi; prev="$a"; done
  echo "fakecc: killed (out of memory)" >&2; exit 137
fi'''
    monkeypatch.setenv("CC", _fake_cc(tmp_path, out))
    cache = tmp_path / "cache"
    device = CDevice(cache_dir=str(cache))
    with pytest.raises(CompilerError, match="out of memory"):
        device.realize([(Tensor(np.arange(6, dtype=np.float32)) * 3 + 1).node])
    assert not cache.exists() or list(cache.iterdir()) == []

def test_interrupted_compile_leaves_no_cache_entry(tmp_path, monkeypatch):
    "An exception in Python mid-compile (MemoryError, KeyboardInterrupt) also leaves no entry and no temporaries."
    real_run = backend_c.subprocess.run
    def dying_run(cmd, **kw):
        out = cmd[cmd.index("-o") + 1]
        open(out, "w").write("partial")
        raise MemoryError("simulated")
    backend = CBackend(cache_dir=str(tmp_path / "cache"))
    monkeypatch.setattr(backend_c.subprocess, "run", dying_run)
    src = backend.render(_kernel())
    with pytest.raises(MemoryError): backend.compile(src, None)
    monkeypatch.setattr(backend_c.subprocess, "run", real_run)
    assert list((tmp_path / "cache").iterdir()) == []
    program = backend.compile(src, None)                 # and a later compile of the same source succeeds
    assert len(list((tmp_path / "cache").iterdir())) == 1 and program is not None

def test_flag_fallback(tmp_path, monkeypatch):
    "A cc that refuses -march=native and -fopenmp loses those flags only, and the device still gives right answers."
    refuse = 'for a in "$@"; do if [ "$a" = "-march=native" ] || [ "$a" = "-fopenmp" ]; then echo "unsupported: $a" >&2; exit 1; fi; done'
    monkeypatch.setenv("CC", _fake_cc(tmp_path, refuse))
    device = CDevice(cache_dir=str(tmp_path / "cache"), parallel_work=0)
    assert device.backend.flags == ("-O3", "-ffp-contract=off") and not device.backend.threads
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = device.realize([(Tensor(a) @ Tensor(a.T)).node])[0].array
    np.testing.assert_allclose(out, a @ a.T, rtol=1e-6)
    assert "#pragma" not in device.backend.render(_kernel())

def test_flags_probed_on_real_cc():
    assert probe_flags(backend_c.find_cc())[0] == "-O3"

def test_missing_compiler_fails_at_set_device(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/bin/cc")
    with pytest.raises(CompilerNotFound, match="/nonexistent/bin/cc"): set_device("c")
    assert limn.get_device().name != "c"

def test_compiler_that_cannot_build_fails_at_set_device(monkeypatch):
    monkeypatch.setenv("CC", "false")
    with pytest.raises(CompilerNotFound, match="cannot build a shared library"): set_device("c")

@pytest.mark.parametrize("dtype", [float16, bfloat16])
def test_half_widths_declined(dtype):
    with use_device("c"):
        with pytest.raises(TypeError, match=f"does not take {dtype.name}.*float16 and bfloat16"):
            (Tensor(np.ones(3, np.float32)).cast(dtype) + 1).numpy()

def test_gather_out_of_range_commits_nothing():
    with use_device("c"):
        p = Tensor(np.ones(3, np.float32)); p.realize(); buf = p.node.arg
        p.assign(p + 1)
        table, rows = Tensor(np.zeros((2, 3), np.float32)), Tensor(np.array([0, 7], np.int32))
        with pytest.raises(ValueError, match="outside its table"): realize(p, table.gather(rows))
        assert buf.array.tolist() == [1, 1, 1]

def test_assign_transaction_and_realized_buffers_are_loaded():
    with use_device("c") as d:
        p = Tensor(np.ones(4, np.float32)); p.realize(); buf = p.node.arg
        times = p * 10
        p.assign(p + 1)
        realize(times, p)
        assert times.numpy().tolist() == [10] * 4 and buf.array.tolist() == [2] * 4 and p.node.arg is buf
        y = (p * 3).exp().sum()
        y.realize()
        before = d.stats["kernels"]
        np.testing.assert_allclose((y + 1).numpy(), np.exp(6.0) * 4 + 1, rtol=1e-6)
        assert d.stats["kernels"] - before == 1

def test_source_hash_shares_programs():
    "Two plans whose kernels render alike share one compiled program."
    with use_device("c") as d:
        a = Tensor(np.ones((5, 7), np.float32))
        (a + 1).numpy()
        c0, p0 = d.stats["compiles"], d.stats["plans"]
        b = Tensor(np.ones((5, 7), np.float32))
        realize((b + 1), (a * 2))                        # a new plan; its b + 1 kernel is a + 1's source
        assert d.stats["plans"] == p0 + 1 and d.stats["compiles"] == c0 + 1

def _padded_graphs(seed=3):
    "A 3-tap 1D conv and a 3x3 2D conv over zero-padded inputs, plus a padded max: the nests mask cuts apply to."
    rng = np.random.default_rng(seed)
    x1, x2 = rng.standard_normal((6, 50)).astype(np.float32), rng.standard_normal((2, 3, 20, 24)).astype(np.float32)
    w = rng.standard_normal(9).astype(np.float32)
    x1p = Tensor(x1).pad(((0, 0), (1, 1)))
    conv1 = sum(x1p[:, k:k + 50] * float(w[k]) for k in range(3))
    x2p = Tensor(x2).pad(((0, 0), (0, 0), (1, 1), (1, 1)))
    conv2 = sum(x2p[:, :, i:i + 20, j:j + 24] * float(w[3 * i + j]) for i in range(3) for j in range(3))
    return [conv1, conv2, Tensor(x2).pad(((0, 0), (0, 0), (2, 0), (1, 3))).max(-1)]

@pytest.mark.parametrize("sorted_cuts", [True, False])
def test_mask_cuts_bit_identical(sorted_cuts, tmp_path):
    "Both ways of cutting (edges ordered at render time, or at run time) give the unsplit nest's bits."
    cut, plain = CDevice(split_masks=True, sorted_cuts=sorted_cuts, cache_dir=str(tmp_path)), CDevice(split_masks=False, threads=False)
    kernels = schedule([t.node for t in _padded_graphs()]).kernels
    srcs = [cut.backend.render(k) for k in kernels]
    assert sum("int64_t c0 = limn_clamp" in s for s in srcs) >= 2 and sum("if (" in s for s in srcs) >= 1
    assert (srcs == [render_c(k) for k in kernels]) == sorted_cuts      # the option reaches the renderer
    got, ref = cut.realize([t.node for t in _padded_graphs()]), plain.realize([t.node for t in _padded_graphs()])
    with use_device("numpy"): want = [t.numpy() for t in _padded_graphs()]
    for g, r, w in zip(got, ref, want):
        assert g.array.tobytes() == r.array.tobytes()
        np.testing.assert_allclose(g.array, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("m", [97, 98, 99, 100])
def test_threaded_rows_with_a_remainder(m):
    """Row counts leaving every remainder modulo JAM, and a reduce longer than UNROLL with a remainder of its own: the
    jammed and unrolled nest, threaded or not, gives the plain nest's bits and the numpy device's values. The rows after the
    last whole group of JAM run in a serial loop after the parallel one; if that loop started one row early, the row
    would be folded twice."""
    k = 67
    assert k > UNROLL and k % UNROLL
    rng = np.random.default_rng(m)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, 33)).astype(np.float32)
    graph = lambda: [(Tensor(a) @ Tensor(b)).node]
    src = render_c(schedule(graph()).kernels[0])
    assert f"i0_base < {m - m % JAM}; i0_base += {JAM}) limn_nest" in src and "#pragma omp parallel for" in src
    got, plain = CDevice().realize(graph())[0].array, CDevice(**PLAIN).realize(graph())[0].array
    serial = CDevice(threads=False).realize(graph())[0].array           # jammed and unrolled without threads
    assert got.tobytes() == plain.tobytes() and serial.tobytes() == plain.tobytes()
    with use_device("numpy"): want = (Tensor(a) @ Tensor(b)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

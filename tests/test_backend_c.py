"""The c device against the numpy device over the shared graph corpus (held to the corpus's fixed tolerance; the bridge's
tests/test_bridge.py holds the reductions litmus can bound to their certified tolerance), threaded against serial and cut against
uncut (exactly); tiled matmuls in every layout, laned reductions and column-chunked reduces against the plain nest (exactly) and
against their derived error bounds; plus the compile cache, flag fallback, and the errors it must give. Correctness only: timings live in
examples/bench_matmul.py."""
import os, stat, sys, pathlib, math, ctypes
import numpy as np
import pytest
import limn
from limn import Tensor, use_device, set_device, realize, register_device
from limn.ops import Ops, float16, bfloat16, float32, float64
import limn.backend_c as backend_c
from limn.backend_c import (CDevice, CBackend, CompilerError, CompilerNotFound, render_c, probe_flags, PLAIN, JAM, UNROLL,
                             TILE_K, tile_shape, vector_isa)
from limn.schedule import schedule
from limn.codegen import lower, fma, reduction_error, REDUCE_LANES

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from graph_corpus import CORPUS, tolerance, C_DTYPES

C_CASES = [c for c in CORPUS if c.dtype in C_DTYPES]

CONFIGS = {"c": None,                                                   # the default device
           "c-threads-everywhere": lambda: CDevice(threads=True, split_masks=True, parallel_work=0, cut_work=0),
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

@pytest.mark.parametrize("case", C_CASES, ids=[c.name for c in C_CASES])
def test_corpus(case, results):
    want = results["numpy"][case.name]
    rtol, atol = tolerance(case.dtype)
    got = {name: results[name][case.name] for name in CONFIGS}
    for name, values in got.items():
        if isinstance(values, Exception): raise AssertionError(f"{case.name} failed on {name}") from values
    assert len(got["c"]) == len(want)
    for g, w in zip(got["c"], want):
        assert g.shape == w.shape and g.dtype == w.dtype
        if case.dtype.is_int: np.testing.assert_array_equal(g, w)
        else: np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    for t, s, d in zip(got["c-threads-everywhere"], got["c-serial-uncut"], got["c"]):
        assert t.tobytes() == s.tobytes() and d.tobytes() == s.tobytes()     # threads and cuts change no bit

def test_corpus_is_threaded_and_cut():
    "The exact comparison above means something: most corpus nests really carry pragmas, and some are cut."
    pragmas = cuts = kernels = 0
    for case in C_CASES:
        for k in schedule([t.node for t in case.build()]).kernels:
            src = render_c(k, threads=True, split_masks=True, parallel_work=0, cut_work=0)
            kernels += 1; pragmas += "#pragma omp parallel for" in src; cuts += "int64_t c0 = limn_clamp" in src
    assert kernels > 100 and pragmas > kernels // 2 and cuts >= 5, (kernels, pragmas, cuts)

def test_large_nests_threaded_exactly():
    "Nests big enough for the default threshold: a matmul, a padded conv, a keepdim reduce, threaded == serial."
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((130, 120)).astype(np.float32), rng.standard_normal((120, 100)).astype(np.float32)
    x, w = rng.standard_normal((16, 64, 64)).astype(np.float64), rng.standard_normal((3, 3)).astype(np.float64)
    def graphs():
        xp = Tensor(x).pad(((0, 0), (1, 1), (1, 1)))
        conv = sum(xp[:, i:i + 64, j:j + 64] * float(w[i, j]) for i in range(3) for j in range(3))
        return [Tensor(a) @ Tensor(b), conv, Tensor(x).sum(1, keepdim=True), Tensor(a).amax(0)]
    default, serial = CDevice(), CDevice(**PLAIN)
    got = default.realize([t.node for t in graphs()])
    ref = serial.realize([t.node for t in graphs()])
    with use_device("numpy"): want = [t.numpy() for t in graphs()]
    for g, r, expected in zip(got, ref, want):
        assert g.array.tobytes() == r.array.tobytes()
        np.testing.assert_allclose(g.array, expected, rtol=1e-5, atol=1e-5)
    srcs = [render_c(k) for k in schedule([t.node for t in graphs()]).kernels]
    assert sum("#pragma omp parallel" in s for s in srcs) >= 3 and any("limn_micro" in s for s in srcs)

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
    assert device.backend.flags == ("-O2", "-fvect-cost-model=dynamic", "-funswitch-loops", "-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math") and not device.backend.threads
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = device.realize([(Tensor(a) @ Tensor(a.T)).node])[0].array
    np.testing.assert_allclose(out, a @ a.T, rtol=1e-6)
    assert "#pragma" not in device.backend.render(_kernel())

def test_flags_probed_on_real_cc():
    assert probe_flags(backend_c.find_cc())[:3] == ("-O2", "-fvect-cost-model=dynamic", "-funswitch-loops")

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
    return [conv1, conv2, Tensor(x2).pad(((0, 0), (0, 0), (2, 0), (1, 3))).amax(-1)]

@pytest.mark.parametrize("sorted_cuts", [True, False])
def test_mask_cuts_bit_identical(sorted_cuts, tmp_path):
    "Both ways of cutting (edges ordered at render time, or at run time) give the unsplit nest's bits."
    cut = CDevice(split_masks=True, sorted_cuts=sorted_cuts, cache_dir=str(tmp_path), cut_work=0)      # small kernels cut too
    plain = CDevice(split_masks=False, threads=False)
    kernels = schedule([t.node for t in _padded_graphs()]).kernels
    srcs = [cut.backend.render(k) for k in kernels]
    assert sum("int64_t c0 = limn_clamp" in s for s in srcs) >= 2 and sum("if (" in s for s in srcs) >= 1
    assert (srcs == [render_c(k, cut_work=0) for k in kernels]) == sorted_cuts      # the option reaches the renderer
    assert not any("int64_t c0" in render_c(k) for k in kernels)       # by default none of them runs enough to be cut
    got, ref = cut.realize([t.node for t in _padded_graphs()]), plain.realize([t.node for t in _padded_graphs()])
    with use_device("numpy"): want = [t.numpy() for t in _padded_graphs()]
    for g, r, w in zip(got, ref, want):
        assert g.array.tobytes() == r.array.tobytes()
        np.testing.assert_allclose(g.array, w, rtol=1e-5, atol=1e-5)


def realize_together(graphs: dict, devices: dict) -> dict:
    """Every case's graph (`graphs`: case -> a function building its sink nodes) realized on each device of `devices`
    (name -> factory) in ONE realize per device: one plan, whose kernels the c device compiles in one cc run per core
    instead of one per case and device (cc costs about half as much per kernel in a batch as alone). Returns
    {device name: (device, the sources of the plan's programs, {case: the arrays of its sinks})}."""
    runs = {}
    for name, factory in devices.items():
        device = factory()
        built = {case: build() for case, build in graphs.items()}
        nodes = [node for sinks in built.values() for node in sinks]
        sources = {device.backend.render(kernel) for kernel in schedule(nodes).kernels}
        arrays = iter([result.array for result in device.realize(nodes)])
        runs[name] = (device, sources, {case: [next(arrays) for _ in sinks] for case, sinks in built.items()})
    return runs

def case_results(runs: dict, case, build) -> dict:
    """{device name: the arrays of `case`} from realize_together's `runs`, once the case's own kernels are checked to be
    among the programs its device's joint plan ran: the case ran exactly the programs it runs alone."""
    out = {}
    for name, (device, sources, arrays) in runs.items():
        own = {device.backend.render(kernel) for kernel in schedule(build()).kernels}
        assert own <= sources, f"{case}: the joint plan on {name} did not run the case's own kernels"
        out[name] = arrays[case]
    return out


JAM_ROWS = [97, 98, 99, 100]
JAM_K = 67

def _jam_operands(m: int) -> tuple:
    rng = np.random.default_rng(m)
    return rng.standard_normal((m, JAM_K)).astype(np.float32), rng.standard_normal((JAM_K, 33)).astype(np.float32)

def _jam_graph(m: int) -> list:
    a, b = _jam_operands(m)
    return [(Tensor(a) @ Tensor(b)).node]

@pytest.fixture(scope="module")
def jam_runs():
    devices = {"jammed": lambda: CDevice(tile=False), "plain": lambda: CDevice(**PLAIN),
               "serial": lambda: CDevice(threads=False, tile=False)}            # jammed and unrolled without threads
    return realize_together({m: (lambda m=m: _jam_graph(m)) for m in JAM_ROWS}, devices)

@pytest.mark.parametrize("m", JAM_ROWS)
def test_threaded_rows_with_a_remainder(m, jam_runs):
    """Unroll-and-jam (what a reduce through memory gets when it is not tiled): row counts leaving every remainder modulo
    JAM and a reduce longer than UNROLL with a remainder of its own, threaded or not, give the plain nest's bits and the
    numpy device's values. A leftover-row loop starting one row early would fold that row twice."""
    assert JAM_K > UNROLL and JAM_K % UNROLL
    a, b = _jam_operands(m)
    src = render_c(schedule(_jam_graph(m)).kernels[0], tile=False)
    assert f"i0_base < {m - m % JAM}; i0_base += {JAM}) limn_nest" in src and "#pragma omp parallel for" in src
    results = case_results(jam_runs, m, lambda: _jam_graph(m))
    got, plain, serial = results["jammed"][0], results["plain"][0], results["serial"][0]
    assert got.tobytes() == plain.tobytes() and serial.tobytes() == plain.tobytes()
    with use_device("numpy"): want = (Tensor(a) @ Tensor(b)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


LAYOUTS = {"A@B": lambda a, b: a @ b, "A@B^T": lambda a, b: a @ b.transpose(-1, -2),
           "A^T@B": lambda a, b: a.transpose(-1, -2) @ b, "batched": lambda a, b: a @ b}
OPERANDS = {"A@B": ((None, 300), (300, 37)), "A@B^T": ((None, 300), (37, 300)), "A^T@B": ((300, None), (300, 37)),
            "batched": ((3, None, 300), (3, 300, 37))}

TILED_ROWS = [96, 97, 98, 99, 100, 101]
TILED_CASES = [(layout, m) for m in TILED_ROWS for layout in LAYOUTS]

def _tiled_operands(layout: str, m: int) -> tuple:
    rng = np.random.default_rng(m)
    shapes = [tuple(m if s is None else s for s in shape) for shape in OPERANDS[layout]]
    return tuple(rng.standard_normal(s).astype(np.float32) for s in shapes)

def _tiled_graph(layout: str, m: int) -> list:
    a, b = _tiled_operands(layout, m)
    return [LAYOUTS[layout](Tensor(a), Tensor(b)).node]

THREADED_SERIAL_PLAIN = {"threaded": lambda: CDevice(parallel_work=0), "serial": lambda: CDevice(threads=False),
                         "plain": lambda: CDevice(**PLAIN)}

@pytest.fixture(scope="module")
def tiled_runs():
    return realize_together({case: (lambda case=case: _tiled_graph(*case)) for case in TILED_CASES}, THREADED_SERIAL_PLAIN)

@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("m", TILED_ROWS)
def test_tiled_matmul_threaded_bit_identical(layout, m, tiled_runs):
    """Tiled matmuls in every operand layout, with row counts leaving every remainder modulo TILE_ROWS, 37 columns (not
    a multiple of the 16-wide tile) and 300 reduce steps (two packed blocks of TILE_K): threaded with every nest handed
    to the team, or serial, the result has the plain nest's bits, and differs from numpy's by at most the sum of the two
    orders' error bounds, 2 * gamma_K * (|A| @ |B|) (codegen.reduction_error)."""
    a, b = _tiled_operands(layout, m)
    src = render_c(schedule(_tiled_graph(layout, m)).kernels[-1], parallel_work=0)
    assert "limn_micro_float_" in src and "(kc, apack" in src and "#pragma omp for schedule(dynamic)" in src and TILE_K < 300
    results = {name: arrays[0] for name, arrays in case_results(tiled_runs, (layout, m), lambda: _tiled_graph(layout, m)).items()}
    threaded, serial, plain = results["threaded"], results["serial"], results["plain"]
    assert threaded.tobytes() == plain.tobytes() and serial.tobytes() == plain.tobytes()
    with use_device("numpy"): want = LAYOUTS[layout](Tensor(a), Tensor(b)).numpy()
    magnitude = LAYOUTS[layout](Tensor(np.abs(a).astype(np.float64)), Tensor(np.abs(b).astype(np.float64)))
    with use_device("numpy"): magnitude = magnitude.numpy()
    assert np.all(np.abs(threaded.reshape(want.shape).astype(np.float64) - want) <= 2 * reduction_error(300, float32, products=True) * magnitude)


LANED_ROWS, LANED_STEPS = [33, 34, 35], [64, 83, 250]

def _laned_operands(rows: int, k: int) -> tuple:
    rng = np.random.default_rng(rows * k)
    x, y = rng.standard_normal((rows, k)).astype(np.float32), rng.standard_normal((rows, k)).astype(np.float32)
    return x, y, rng.standard_normal((rows, k))

def _laned_graph(rows: int, k: int) -> list:
    x, y, xd = _laned_operands(rows, k)
    return [Tensor(x).sum(1).node, (Tensor(x) * Tensor(y)).sum(1).node, Tensor(x).amax(1).node, (Tensor(xd) * Tensor(xd)).sum(1).node]

@pytest.fixture(scope="module")
def laned_runs():
    cases = [(rows, k) for k in LANED_STEPS for rows in LANED_ROWS]
    return realize_together({case: (lambda case=case: _laned_graph(*case)) for case in cases}, THREADED_SERIAL_PLAIN)

@pytest.mark.parametrize("rows", LANED_ROWS)
@pytest.mark.parametrize("k", LANED_STEPS)
def test_laned_reductions_threaded_bit_identical(rows, k, laned_runs):
    """Reductions over a contiguous axis of k >= 64 steps, laned (REDUCE_LANES partial totals) with a remainder when k is
    not a multiple of 16, on row counts that do not divide among threads: threaded (every nest handed to the team) and
    serial give the plain nest's bits, and each sum lies within reduction_error's bound of the exact value."""
    x, y, xd = _laned_operands(rows, k)
    kernels = schedule(_laned_graph(rows, k)).kernels
    assert all("_lane" in render_c(kr, parallel_work=0) and "#pragma omp parallel for" in render_c(kr, parallel_work=0) for kr in kernels)
    results = case_results(laned_runs, (rows, k), lambda: _laned_graph(rows, k))
    threaded, serial, plain = results["threaded"], results["serial"], results["plain"]
    for t, s, p in zip(threaded, serial, plain): assert t.tobytes() == p.tobytes() and s.tobytes() == p.tobytes()
    terms = [x.astype(np.float64), x.astype(np.float64) * y, None, xd * xd]
    for got, t, dtype, products in zip(threaded, terms, (float32, float32, None, float64), (False, True, None, True)):
        if t is None: np.testing.assert_array_equal(got.reshape(-1), x.max(1)); continue
        exact = np.array([math.fsum(row) for row in t])
        assert np.all(np.abs(got.reshape(-1) - exact) <= reduction_error(k, dtype, REDUCE_LANES, products) * np.abs(t).sum(1))


def test_interpreter_fma_is_c_fma(tmp_path):
    """The IR interpreter's fused multiply-add (codegen.fma) gives C's fmaf/fma bits, on random triples, on cancellations,
    and on a float32 case a float64 intermediate would round twice."""
    cc = backend_c.find_cc()
    src = "#include <math.h>\nfloat f32(float a, float b, float c) { return fmaf(a, b, c); }\ndouble f64(double a, double b, double c) { return fma(a, b, c); }\n"
    lib = ctypes.CDLL(backend_c.build_library(src, cc, probe_flags(cc), str(tmp_path))[0])
    lib.f32.restype, lib.f32.argtypes = ctypes.c_float, [ctypes.c_float] * 3
    lib.f64.restype, lib.f64.argtypes = ctypes.c_double, [ctypes.c_double] * 3
    rng = np.random.default_rng(0)
    cases = [tuple(rng.standard_normal(3) * np.exp2(rng.integers(-40, 40, 3))) for _ in range(3000)]
    cases += [(a, b, -a * b * (1 + rng.standard_normal() * 1e-7)) for a, b in rng.standard_normal((500, 2))]
    cases += [(1 + 2**-23, 2**-24 * (1 - 2**-23), s * (1 + 2**-23)) for s in (1, -1)]      # the exact value is just off a float32 midpoint
    for a, b, c in cases:
        a32, b32, c32 = np.float32(a), np.float32(b), np.float32(c)
        assert fma(a32, b32, c32, float32).tobytes() == np.float32(lib.f32(a32, b32, c32)).tobytes(), (a, b, c)
        assert fma(a, b, c, float64) == lib.f64(a, b, c), (a, b, c)
    a, b, c = np.float32(1 + 2**-23), np.float32(2**-24 * (1 - 2**-23)), np.float32(1 + 2**-23)
    assert np.float32(np.float64(a) * np.float64(b) + np.float64(c)) != fma(a, b, c, float32)     # the case double rounding gets wrong


def test_tiled_matmul_with_two_reduce_axes():
    """A contraction over two reduce axes (3 x 100 = 300 steps, crossing a TILE_K block in the middle of the second axis),
    the shape of a weight gradient summed over batch and position: tiled, k walks both axes in nest order, and the
    threaded result has the plain nest's bits."""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 100, 20)).astype(np.float32), rng.standard_normal((3, 100, 18)).astype(np.float32)
    graph = lambda: [(Tensor(a).reshape(3, 100, 20, 1) * Tensor(b).reshape(3, 100, 1, 18)).sum((0, 1)).node]
    assert "limn_micro" in render_c(schedule(graph()).kernels[-1]) and 3 * 100 > TILE_K
    threaded, plain = CDevice(parallel_work=0).realize(graph())[0].array, CDevice(**PLAIN).realize(graph())[0].array
    assert threaded.tobytes() == plain.tobytes()
    size = np.einsum("nki,nkj->ij", np.abs(a).astype(np.float64), np.abs(b))
    assert np.all(np.abs(threaded.reshape(20, 18) - np.einsum("nki,nkj->ij", a.astype(np.float64), b)) <= 2 * reduction_error(300, float32, products=True) * size)


CHUNK_COLS = [129, 200, 256]

def _chunk_operands(cols: int) -> tuple:
    rng = np.random.default_rng(cols)
    x, y = rng.standard_normal((67, cols)).astype(np.float32), rng.standard_normal((67, cols)).astype(np.float32)
    return x, y, rng.standard_normal((67, cols))

def _chunk_graph(cols: int) -> list:
    x, y, xd = _chunk_operands(cols)
    return [Tensor(x).sum(0).node, Tensor(x).amax(0).node, (Tensor(x) * Tensor(y)).sum(0).node, Tensor(xd).sum(0).node]

@pytest.fixture(scope="module")
def chunk_runs():
    devices = {"plain": lambda: CDevice(**PLAIN), "threaded": lambda: CDevice(parallel_work=0),
               "threaded, not jammed": lambda: CDevice(parallel_work=0, unroll=1)}
    return realize_together({cols: (lambda cols=cols: _chunk_graph(cols)) for cols in CHUNK_COLS}, devices)

@pytest.mark.parametrize("cols", CHUNK_COLS)
def test_column_chunks_threaded_bit_identical(cols, chunk_runs):
    """Nests whose outer loop is a reduce (column sums and maxes over 67 rows, a fused column dot, in float32 and float64)
    are threaded over chunks of their kept inner loop, the last chunk partial: threaded, with unroll-and-jam or plain,
    the result has the serial plain nest's bits and numpy's values."""
    x, y, xd = _chunk_operands(cols)
    kernels = schedule(_chunk_graph(cols)).kernels
    assert all("_chunk += 64) limn_nest" in render_c(k, parallel_work=0) for k in kernels)
    results = case_results(chunk_runs, cols, lambda: _chunk_graph(cols))
    plain = results["plain"]
    for name in ("threaded", "threaded, not jammed"):
        for got, want in zip(results[name], plain): assert got.tobytes() == want.tobytes()
    np.testing.assert_allclose(plain[0], x.sum(0), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(plain[1], x.max(0))


@pytest.mark.parametrize("batch", [(8,), (2, 3)])
def test_tiled_batch_sharing_one_weight(batch):
    """x @ W^T with x of shape batch + (33, 70) and one weight W (37, 70), the shape of a linear layer over a batch of
    sequences: W's panels are packed once and the team shares (outer index, strip) pairs; threaded or serial, the
    result has the plain nest's bits and lies within the derived error bound of the exact product."""
    rng = np.random.default_rng(len(batch))
    x, w = rng.standard_normal(batch + (33, 70)).astype(np.float32), rng.standard_normal((37, 70)).astype(np.float32)
    graph = lambda: [(Tensor(x) @ Tensor(w).transpose()).node]
    src = render_c(schedule(graph()).kernels[-1], parallel_work=0)
    strips = -(-33 // tile_shape(33, 4, vector_isa())[0])      # the rows per strip are chosen for the shape and the host
    assert "limn_micro" in src and f"const int64_t ir = unit % {strips} * " in src
    threaded, serial = CDevice(parallel_work=0).realize(graph())[0].array, CDevice(threads=False).realize(graph())[0].array
    plain = CDevice(**PLAIN).realize(graph())[0].array
    assert threaded.tobytes() == plain.tobytes() and serial.tobytes() == plain.tobytes()
    exact, size = x.astype(np.float64) @ w.T.astype(np.float64), np.abs(x).astype(np.float64) @ np.abs(w.T)
    assert np.all(np.abs(threaded.reshape(exact.shape) - exact) <= 2 * reduction_error(70, float32, products=True) * size)


def _quotients(dtype):
    "Operands whose quotients a reciprocal-then-multiply gets wrong in about one case in five: small ints, 41 / 41, a wide random spread."
    rng = np.random.default_rng(25)
    wide = rng.standard_normal((2, 4000)) * np.exp(rng.uniform(-40, 40, (2, 4000)))
    a = np.concatenate([np.arange(1, 200), [41.0], wide[0]]).astype(dtype)
    b = np.concatenate([np.full(199, 10.0), [41.0], wide[1]]).astype(dtype)
    return a, b


@pytest.mark.parametrize("device", ["numpy", "c"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_division_is_numpys_division_bit_for_bit(device, dtype):
    a, b = _quotients(dtype)
    with use_device(device):
        x, y = Tensor(a), Tensor(b)
        got = [(x / y).numpy(), (x / 10).numpy(), (3 / y).numpy(), (x.reshape(1, -1) / y.reshape(-1, 1)[:7]).numpy()]
        explicit = (x * y.reciprocal()).numpy()
    want = [a / b, a / dtype(10), dtype(3) / b, a.reshape(1, -1) / b.reshape(-1, 1)[:7]]
    for g, w in zip(got, want): np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))
    assert got[0][199] == 1.0                                            # 41 / 41, which was 0.99999994
    np.testing.assert_array_equal(explicit, a * (dtype(1) / b))          # a user's own reciprocal keeps two roundings
    assert (explicit != a / b).any()


@pytest.mark.parametrize("device", ["numpy", "c"])
def test_division_gradients_match_torch(device):
    torch = pytest.importorskip("torch")
    a, b = _quotients(np.float32)
    a, b = a[:300], b[:300] + np.float32(0.5)
    w = np.random.default_rng(1).standard_normal(300).astype(np.float32)  # an upstream gradient other than 1
    with use_device(device):
        x, y = Tensor(a, requires_grad=True), Tensor(b, requires_grad=True)
        ((x / y) * Tensor(w)).sum().backward()
        gx, gy = x.grad.numpy(), y.grad.numpy()
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ((tx / ty) * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(gx, tx.grad.numpy())                   # w / y, rounded once, as torch's grad / other
    np.testing.assert_allclose(gy, ty.grad.numpy(), rtol=3e-7, atol=1e-43)   # two roundings apart; subnormals absolutely


@pytest.mark.parametrize("values_shape, ids", [((1, 3), [2]), ((1, 1, 3), [[1]]), ((2, 1, 3), [[0], [2]])])
def test_scatter_with_size_one_index_dims(values_shape, ids):
    """A scatter whose index has a dim of size 1 (one token's embedding gradient) lowers and runs on the c device:
    its output is filled over loops of its own shape, not the index's, and matches the numpy device."""
    values = np.arange(np.prod(values_shape), dtype=np.float32).reshape(values_shape) + 1
    index = np.array(ids, dtype=np.int32)
    answers = {}
    for device in ("numpy", "c"):
        with use_device(device):
            answers[device] = Tensor(values).scatter_rows(Tensor(index), 3).numpy()
    expected = np.zeros((3, values_shape[-1]), np.float32)
    np.add.at(expected, index.reshape(-1), values.reshape(-1, values_shape[-1]))
    np.testing.assert_array_equal(answers["numpy"], expected)
    np.testing.assert_array_equal(answers["c"], expected)

def test_optimisation_level_changes_no_bits(tmp_path):
    """The probed level (-O2 with the vectoriser's full cost model and unswitching, chapter 08) and -O3 give the same
    bits on kernels where the optimiser has the most room: a tiled matmul, a softmax (laned max and sum, limn_expf), a
    tanh GELU, logs and square roots, and a float64 reduce, threaded. Neither level may contract or reassociate. Small
    kernels of every kind (elementwise with exp and tanh, laned and plain reduces, a gather, a masked shifted read),
    which the device compiles at -O1 (`small_flags`), give the bits of -O2 and -O3 too."""
    fast = CDevice(cache_dir=str(tmp_path / "probed"), parallel_work=0)
    o2 = CDevice(cache_dir=str(tmp_path / "o2"), parallel_work=0)
    o2.backend.small_work = 0                                      # no library is small: all at the probed -O2
    o3 = CDevice(cache_dir=str(tmp_path / "o3"), parallel_work=0)
    o3.backend.flags = tuple("-O3" if f == "-O2" else f for f in o3.backend.flags if f not in ("-fvect-cost-model=dynamic", "-funswitch-loops"))
    o3.backend.small_work = 0
    assert "-O2" in fast.backend.flags and "-O3" in o3.backend.flags and "-O2" not in o3.backend.flags
    assert "-O1" in fast.backend.small_flags and "-O2" not in fast.backend.small_flags
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((45, 130)).astype(np.float32), rng.standard_normal((130, 70)).astype(np.float32)
    d = rng.standard_normal((33, 257))
    s, t = rng.standard_normal((6, 40)).astype(np.float32), rng.standard_normal((7, 5))
    idx, w = rng.integers(0, 7, (9,)).astype(np.int32), rng.standard_normal(3).astype(np.float32)
    def graph():
        x, y = Tensor(a), Tensor(b)
        gelu = 0.5 * x * (1 + ((x + 0.044715 * x * x * x) * 0.7978845608).tanh())
        return [(x @ y).node, x.softmax(-1).node, gelu.node, ((x.abs() + 1).log() * x.abs().sqrt()).node,
                Tensor(d).sum(-1).node, Tensor(d).amax(0).node]
    def small():
        x, xp = Tensor(s), Tensor(s).pad(((0, 0), (1, 1)))
        gelu = 0.5 * x * (1 + ((x + 0.044715 * x * x * x) * 0.7978845608).tanh())
        return [(gelu + x.exp() * (x.abs() + 1).log()).node, x.softmax(-1).node, Tensor(t).sum(0).node,
                Tensor(t).amax(-1).node, Tensor(t).gather(Tensor(idx)).node,
                sum(xp[:, k:k + 40] * Tensor(w)[k] for k in range(3)).node]
    kernels = schedule(small()).kernels
    assert len(kernels) >= 5 and fast.backend.flags_for(kernels) == fast.backend.small_flags
    assert fast.backend.flags_for(schedule(graph()).kernels) == fast.backend.flags
    for build in (graph, small):
        for got, w2, w3 in zip(fast.realize(build()), o2.realize(build()), o3.realize(build())):
            assert got.array.tobytes() == w2.array.tobytes() == w3.array.tobytes()

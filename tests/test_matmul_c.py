"""The c device's tiled matmuls (chapter 08, "Tiled matmuls"): the microkernel spelled in AVX-512 intrinsics, in AVX2
intrinsics and as plain loops gives the plain nest's bits, threaded or serial, in every operand layout and the training
shapes' edge cases; the row count per shape (`tile_shape`) keeps within the registers and pads least; and the product
lies within the bound both summation orders obey against a float64 oracle."""
import numpy as np
import pytest
from limn import Tensor
from limn.ops import float32, float64
from limn.schedule import schedule
from limn.codegen import reduction_error
from limn import backend_c
from limn.backend_c import CDevice, PLAIN, ISAS, TILE_VECTORS, render_c, tile_shape, vector_isa, microkernel

LAYOUTS = {"A@B": lambda a, b: a @ b, "A@B^T": lambda a, b: a @ b.transpose(-1, -2),
           "A^T@B": lambda a, b: a.transpose(-1, -2) @ b}

def operands(layout: str, m: int, k: int, n: int, dtype, rng):
    "The two operands of an (m, k) @ (k, n) product in `layout`'s storage."
    shapes = {"A@B": ((m, k), (k, n)), "A@B^T": ((m, k), (n, k)), "A^T@B": ((k, m), (k, n))}[layout]
    return [rng.standard_normal(s).astype(dtype) for s in shapes]

def device_for(isa: str, **options) -> CDevice:
    "A c device whose renderer spells the microkernel for `isa` whatever the host is (the source says which it compiled)."
    device = CDevice(**options)
    be = device.backend
    be.render = lambda kernel: render_c(kernel, be.threads, be.split_masks, be.parallel_work, be.unroll, be.sorted_cuts,
                                        be.lanes, be.tile, isa)
    return device

def host_compiles(isa: str) -> bool:
    "Whether -march=native here defines `isa`'s guard (an AVX-512 host also compiles the AVX2 spelling)."
    host = vector_isa()
    return isa == "generic" or host == isa or (host == "avx512" and isa == "avx2")


@pytest.mark.parametrize("isa", ["avx512", "avx2", "generic"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("m,k,n", [(33, 300, 37), (64, 256, 256), (97, 64, 70), (29, 513, 33)])
def test_tiles_give_the_plain_bits(isa, layout, m, k, n):
    """Each spelling of the tile, threaded (every nest handed to the team) and serial, gives the plain nest's bits, and
    numpy's values within 2 gamma_K (|A| @ |B|): rows that leave a partial strip, columns that leave a partial panel,
    reduces of one, two and three TILE_K blocks."""
    rng = np.random.default_rng(m * k + n)
    a, b = operands(layout, m, k, n, np.float32, rng)
    graph = lambda: [LAYOUTS[layout](Tensor(a), Tensor(b)).node]
    src = render_c(schedule(graph()).kernels[-1], isa=isa)
    (T, rows, cols, spelled), = set(backend_c.MICRO_CALLED.findall(src))         # the one microkernel it calls
    assert "immintrin" not in src and (("_fmadd_" in backend_c.micro_source(T, int(rows), int(cols), spelled)) == (isa in ISAS))
    threaded = device_for(isa, parallel_work=0).realize(graph())[0].array
    serial = device_for(isa, threads=False).realize(graph())[0].array
    plain = CDevice(**PLAIN).realize(graph())[0].array
    assert threaded.tobytes() == plain.tobytes() and serial.tobytes() == plain.tobytes()
    want = LAYOUTS[layout](a.astype(np.float64), b.astype(np.float64))
    size = LAYOUTS[layout](np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    assert np.all(np.abs(threaded.reshape(want.shape) - want) <= 2 * reduction_error(k, float32, products=True) * size)


@pytest.mark.parametrize("isa", ["avx512", "avx2", "generic"])
def test_float64_tiles_give_the_plain_bits(isa):
    "float64 tiles (half the columns of float32's) in a batch sharing one weight: the plain nest's bits."
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal((3, 45, 130)), rng.standard_normal((19, 130))
    graph = lambda: [(Tensor(x) @ Tensor(w).transpose()).node]
    threaded = device_for(isa, parallel_work=0).realize(graph())[0].array
    plain = CDevice(**PLAIN).realize(graph())[0].array
    assert threaded.tobytes() == plain.tobytes()
    exact, size = x @ w.T, np.abs(x) @ np.abs(w.T)
    assert np.all(np.abs(threaded.reshape(exact.shape) - exact) <= 2 * reduction_error(130, float64, products=True) * size)


def test_training_step_shapes_threaded_bit_identical():
    "The matmuls examples/bench_matmul.py times for a training step, host spelling: threaded == serial == plain, bitwise."
    rng = np.random.default_rng(3)
    shapes = [((256, 64), (256, 64), "A@B^T"), ((256, 64), (256, 256), "A^T@B"), ((512, 128), (384, 128), "A@B^T"),
              ((512, 512), (512, 128), "A^T@B")]
    for sa, sb, layout in shapes:
        a, b = rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32)
        graph = lambda: [LAYOUTS[layout](Tensor(a), Tensor(b)).node]
        threaded = CDevice(parallel_work=0).realize(graph())[0].array
        serial, plain = CDevice(threads=False).realize(graph())[0].array, CDevice(**PLAIN).realize(graph())[0].array
        assert threaded.tobytes() == serial.tobytes() == plain.tobytes(), (sa, sb, layout)


@pytest.mark.parametrize("isa", list(ISAS))
@pytest.mark.parametrize("itemsize", [4, 8])
def test_tile_shape_fits_registers_and_pads_least(isa, itemsize):
    """Across row counts 1..600: the tile's accumulators, two vectors of b and a broadcast fit the ISA's registers; the
    columns are TILE_VECTORS vectors; and no row count the search allowed has a cheaper strip cost (rows padded out to
    whole strips, plus TILE_STRIP_COST per strip)."""
    vector_bytes, registers = ISAS[isa][:2]
    most = (registers - TILE_VECTORS - 2) // TILE_VECTORS
    for rows in range(1, 601):
        mr, nr = tile_shape(rows, itemsize, isa)
        assert nr == TILE_VECTORS * vector_bytes // itemsize and mr * TILE_VECTORS + TILE_VECTORS + 1 <= registers
        cost = lambda r: -(-rows // r) * (r + backend_c.TILE_STRIP_COST)
        assert all(cost(mr) <= cost(r) for r in range(max(1, most // 2), most + 1)), rows
    assert tile_shape(256, 4, "generic") == (5, 16) and tile_shape(256, 8, "generic") == (5, 8)


def test_intrinsic_tile_compiles_where_the_host_targets_it():
    """On this host, the spelling `vector_isa` names is the one compiled (its guard holds under -march=native), so a
    speed claim for the intrinsic tile is about the intrinsic tile; the guard and the fallback are both in the source."""
    isa = vector_isa()
    lines = microkernel("float", "fmaf", 4, 32 if isa == "avx512" else 16, isa)
    if isa in ISAS:
        guard = ISAS[isa][2]
        assert lines.count(f"#if {guard}") == 2 and "#else" in lines and any("_fmadd_ps" in l for l in lines)
        flags = backend_c.probe_flags(backend_c.find_cc())
        if "-march=native" in flags:
            probe = f"#if !({guard})\n#error not targeted\n#endif\nint limn_probe(void) {{ return 1; }}\n"
            backend_c.build_library(probe, backend_c.find_cc(), flags, backend_c.default_cache_dir())
    else:
        assert not any("#if" in l for l in lines)


def test_cc_runs_counts_every_compile_under_threads(tmp_path):
    """The executor compiles batches in threads (chapter 07's compile_new): CBackend.cc_runs counts each cc run once,
    however the threads interleave (one library file per run), and a second round of the same sources, all cache hits,
    adds nothing."""
    from concurrent.futures import ThreadPoolExecutor
    from limn.backend_c import CBackend
    backend = CBackend(cache_dir=str(tmp_path))
    sources = [f"#include <stdint.h>\nint limn_kernel(void **args) {{ return {i}; }}\n" for i in range(12)]
    with ThreadPoolExecutor(6) as pool:
        programs = list(pool.map(lambda s: backend.compile(s, None), sources))
    assert backend.cc_runs == 12 == len(list(tmp_path.glob("limn_*.so")))
    assert [p(None) for p in programs] == list(range(12))
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda s: backend.compile(s, None), sources))
    assert backend.cc_runs == 12


def test_microkernel_is_one_object_linked_into_every_library(tmp_path):
    """Two tiled matmuls with the same register tile, realized apart (two plans, two libraries), link one microkernel
    object: cc runs three times, not four, the kernels' sources hold its prototype and no intrinsics header, and both
    products have the plain nest's bits."""
    device, plain = CDevice(cache_dir=str(tmp_path)), CDevice(**PLAIN)
    rng = np.random.default_rng(5)
    graphs = []
    for k, n in ((300, 37), (100, 50)):
        a, b = rng.standard_normal((64, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
        graphs.append(lambda a=a, b=b: [(Tensor(a) @ Tensor(b)).node])
    sources = [device.backend.render(schedule(g()).kernels[-1]) for g in graphs]
    called = [set(backend_c.MICRO_CALLED.findall(s)) for s in sources]
    assert len(called[0]) == 1 and called[0] == called[1] and not any("immintrin" in s for s in sources)
    for graph in graphs:
        assert device.realize(graph())[0].array.tobytes() == plain.realize(graph())[0].array.tobytes()
    assert device.backend.cc_runs == 3
    assert len(list(tmp_path.glob("limn_*.o"))) == 1 and len(list(tmp_path.glob("limn_*.so"))) == 2

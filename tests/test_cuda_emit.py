"""The CUDA emitter (limn.cuda_emit, chapter 10) without a GPU: every kernel the shared graph corpus emits, and the fused
attention kernels, compile under NVRTC (the `nvidia-cuda-nvrtc` wheel needs no driver); the tiling and grid-stride
decisions cover every output cell exactly once and stage whole slabs."""
import os, pathlib, sys, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import pytest
from limn import Tensor
from limn.ops import Ops, float32, float64, float16, bfloat16
from limn.schedule import schedule
from limn.codegen import lower_schedule, Idx
from limn.cuda_emit import (emit, TILES, TilePlan, tile_cells, cells_covered, choose_tile, attention_source, regions,
                            THREADS, MAX_BLOCKS, grid_for)
from limn.backend_cuda import Nvrtc, CudaUnavailable, pick_target, merged_source
sys.path.insert(0, str(pathlib.Path(__file__).parent))
from graph_corpus import CORPUS, ALL_DTYPES


def nvrtc_or_skip() -> Nvrtc:
    try: return Nvrtc()
    except CudaUnavailable as e: pytest.skip(f"NVRTC is not installed here ({e})")


def large_graphs(dtype):
    "Graphs big enough for the tiled and split shapes (the corpus is sized for an interpreter): matmuls in both nest forms, batched, reduces."
    rng = np.random.default_rng(0)
    data = lambda *shape: Tensor(rng.standard_normal(shape).astype(np.float32)).cast(dtype) if dtype.is_float else \
                          Tensor(rng.integers(-3, 4, shape).astype(np.int32)).cast(dtype)
    a, b, c = data(70, 40), data(40, 50), data(50, 40)
    return {"matmul": [a @ b], "matmul_bt": [a @ c.T], "batched": [data(3, 70, 40) @ b], "sum_all": [data(5000).sum()],
            "column_sums": [data(3000, 4).sum(0)], "rows_max": [data(64, 4096).amax(1)]}

def corpus_kernels():
    "(case name, kernel) for every non-CUSTOM kernel of every corpus case, and of the large graphs at every dtype."
    out, cases = [], [(f"{c.name}[{c.dtype.name}]", c.build()) for c in CORPUS]
    cases += [(f"{name}[{dt.name}]", sinks) for dt in ALL_DTYPES for name, sinks in large_graphs(dt).items()]
    for name, sinks in cases:
        for k in lower_schedule(schedule([t.node for t in sinks])).kernels:
            if k.op is not Ops.CUSTOM: out.append((name, k))
    return out


def test_every_corpus_kernel_compiles_under_nvrtc():
    nvrtc = nvrtc_or_skip()
    arch = max(nvrtc.archs)
    sources, declined, shapes = {}, [], {}
    for name, kernel in corpus_kernels():
        try: emitted = emit(kernel)
        except TypeError as e:                       # the declines the spec names: half/narrow-int scatters
            assert kernel.op is Ops.SCATTER and (kernel.output.dtype.is_half or kernel.output.dtype.name in ("int16", "int8")), (name, e)
            declined.append(name); continue
        sources.setdefault(emitted.source, name)
        for launch in emitted.launches: shapes[launch.shape] = shapes.get(launch.shape, 0) + 1
    start, batch = time.perf_counter(), 32                      # compiled as the backend's compile_many does: many kernels per NVRTC run
    groups = [list(sources)[i:i + batch] for i in range(0, len(sources), batch)]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:          # ctypes releases the GIL around NVRTC
        ptxs = list(pool.map(lambda group: nvrtc.compile(merged_source(group), arch).decode(errors="replace"), groups))
    for ptx, group in zip(ptxs, groups):
        for i, source in enumerate(group): assert f".entry limn_k{i}_region0(" in ptx, sources[source]
    seconds = time.perf_counter() - start
    print(f"\nNVRTC {nvrtc.version} compiled {len(sources)} distinct corpus kernels for compute_{arch} in {seconds:.2f} s "
          f"({len(groups)} NVRTC runs on {os.cpu_count()} threads); launches by shape {shapes}; declined {len(declined)} scatters")
    assert len(sources) >= 50 and set(shapes) == {"cells", "split", "tiled"}


@pytest.mark.parametrize("dtype", [float32, float64, float16, bfloat16], ids=lambda d: d.name)
@pytest.mark.parametrize("d,dv", [(32, 32), (64, 16), (8, 128)])
def test_attention_kernels_compile(dtype, d, dv):
    nvrtc = nvrtc_or_skip()
    ptx = nvrtc.compile(attention_source(dtype, d, dv), max(nvrtc.archs)).decode(errors="replace")
    for name in ("limn_sdpa_fwd", "limn_sdpa_bwd_q", "limn_sdpa_bwd_kv"): assert f".entry {name}(" in ptx


def test_cubin_for_an_exact_architecture():
    nvrtc = nvrtc_or_skip()
    arch = 90 if 90 in nvrtc.archs else max(nvrtc.archs)
    a = Tensor(np.ones((40, 30), np.float32)); b = Tensor(np.ones((30, 20), np.float32))
    kernel = lower_schedule(schedule([(a @ b).node])).kernels[0]
    image = nvrtc.compile(emit(kernel).source, arch, cubin=True)
    assert image[:4] == b"\x7fELF"


def test_nvrtc_refusal_carries_the_log():
    nvrtc = nvrtc_or_skip()
    with pytest.raises(Exception, match="undefined|identifier"):
        nvrtc.compile('extern "C" __global__ void f() { undefined_name(); }', max(nvrtc.archs))


@pytest.mark.parametrize("plan", TILES, ids=str)
def test_tiles_cover_every_cell_once_and_stage_whole_slabs(plan):
    assert plan.whole_passes() and plan.threads <= 1024
    for m in list(range(1, 2 * plan.tm + 3, 7)) + [plan.tm - 1, plan.tm, plan.tm + 1]:
        for n in (1, 3, plan.tn - 1, plan.tn, plan.tn + 1, 3 * plan.tn - 2):
            cells = tile_cells(plan, m, n)
            assert len(cells) == m * n and set(cells) == {(i, j) for i in range(m) for j in range(n)}, (m, n)


def test_a_plan_that_cannot_fill_its_slab_in_whole_passes_is_caught():
    assert not TilePlan(48, 32, 10, 4, 4).whole_passes()       # 96 threads; 48*10 = 480 is not a multiple of 96
    assert not TilePlan(32, 30, 16, 2, 4).whole_passes()       # patches do not tile 30 columns


def test_grid_stride_covers_past_one_launch():
    for cells in (1, THREADS, THREADS + 1, 10_007):
        blocks = grid_for(cells)
        assert set(cells_covered(cells, blocks, THREADS)) == {1}
    assert grid_for(THREADS * MAX_BLOCKS * 3) == MAX_BLOCKS          # more cells than threads: the loop strides
    assert set(cells_covered(5000, 2, 256)) == {1}


@pytest.mark.parametrize("m,n,k", [(16, 16, 8), (70, 50, 40), (64, 64, 64), (65, 130, 17), (200, 16, 300)])
def test_matmuls_are_tiled_and_batched_matmuls_too(m, n, k):
    rng = np.random.default_rng(m * n + k)
    a, b = Tensor(rng.standard_normal((m, k)).astype(np.float32)), Tensor(rng.standard_normal((k, n)).astype(np.float32))
    for expr in (a @ b, a @ b.T.contiguous().T, (a.reshape(1, m, k).expand(3, m, k).contiguous() @ b)):
        kernels = [k_ for k_ in lower_schedule(schedule([expr.node])).kernels if k_.op is Ops.SUM]
        assert any("tiled" in [l.shape for l in emit(k_).launches] for k_ in kernels), [format(k_) for k_ in kernels]
    assert choose_tile(m, n, k) in TILES


def test_regions_split_fill_and_fold():
    x = Tensor(np.ones((3, 5), np.float32))
    (kernel,) = lower_schedule(schedule([(x @ Tensor(np.ones((5, 4), np.float32))).node])).kernels
    assert len(regions(kernel.instrs)) == 2                        # the identity fill, then the fold
    (total,) = lower_schedule(schedule([x.sum().node])).kernels
    assert len(regions(total.instrs)) == 1                         # ACC, loop, STORE: one region


def test_pick_target():
    assert pick_target((75, 80, 90, 100), 89, (13, 0), (13, 0)) == (80, "ptx")
    assert pick_target((75, 80, 90, 100), 90, (13, 5), (12, 6)) == (90, "cubin")
    with pytest.raises(CudaUnavailable, match="older than every architecture"): pick_target((75,), 61, (13, 0), (13, 0))


def test_set_device_cuda_without_a_driver_fails_at_once_in_one_sentence():
    import ctypes
    import limn, limn.backend_cuda
    try: ctypes.CDLL("libcuda.so.1"); pytest.skip("a driver is installed here: examples/gpu_check.py runs the device")
    except OSError: pass
    with pytest.raises(CudaUnavailable) as error: limn.set_device("cuda")
    message = str(error.value)
    assert "\n" not in message and "driver" in message and message.count(". ") == 0, message
    limn.set_device("numpy")


def test_division_is_one_ieee_division_under_nvrtc():
    x, y = Tensor(np.ones(8, np.float32)), Tensor(np.full(8, 3.0, np.float32))
    (kernel,) = lower_schedule(schedule([(x / y).node])).kernels
    source = emit(kernel).source
    assert "(v0 / v1)" in source and "1 / " not in source, source
    (own,) = lower_schedule(schedule([(x * y.reciprocal()).node])).kernels
    assert "1 / " in emit(own).source                              # a user's reciprocal stays a reciprocal
    nvrtc = nvrtc_or_skip()
    ptx = nvrtc.compile(source, max(nvrtc.archs)).decode(errors="replace")
    assert "div.rn.f32" in ptx, "NVRTC did not emit the correctly rounded division"

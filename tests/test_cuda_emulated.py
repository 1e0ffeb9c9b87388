"""The CUDA emitter's one-thread-per-cell kernels run on the CPU: each emitted source is compiled as C++ with the CUDA
built-ins defined on the host (threadIdx thread-local, atomicAdd under a mutex), and the corpus's results are
diffed against the numpy device. In a kernel with a barrier each block's threads are real threads meeting at a real
barrier (`__syncthreads`) over shared `__shared__` arrays (a kernel without one runs its threads in turn), so all three
shapes run: this checks the emitted index arithmetic, the grid-stride coverage,
the tiles' staging and the split reduces' folds without a GPU (examples/gpu_check.py runs the same on one)."""
import ctypes, pathlib, shutil, subprocess, sys, tempfile
import numpy as np
import pytest
from limn.ops import Ops
from limn.schedule import schedule
from limn.codegen import lower_schedule
from limn.cuda_emit import emit, PRELUDE, storage_type

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from graph_corpus import CORPUS, C_DTYPES, Case, tolerance, reference
from test_cuda_emit import large_graphs
from limn.ops import float32, float64, int32

CPU_PRELUDE = r"""#include <cstring>
#include <mutex>
#include <math.h>
#include <stdint.h>
typedef uint16_t limn_half; typedef uint16_t limn_bf16;
#include <thread>
#include <mutex>
#include <barrier>
#include <vector>
#include <type_traits>
struct limn_dim3 { unsigned x, y, z; };
static limn_dim3 blockIdx, blockDim, gridDim;
static thread_local limn_dim3 threadIdx;
static std::barrier<> *limn_barrier;
#define __syncthreads() limn_barrier->arrive_and_wait()
#define __shared__ static
/* one block at a time. A kernel with a barrier runs each of its threads as a real thread, so __syncthreads is a real
   barrier and __shared__ arrays are shared; a kernel without one runs its threads one after another (a schedule CUDA
   may choose too: its threads never wait for each other), which saves starting thousands of threads.
   The body is type-erased (limn_body), so one limn_launch and one std::thread instantiation serve every kernel's
   lambda (instantiated per lambda, the std::thread and std::vector templates took 21 of g++'s 23 CPU seconds). */
struct limn_body {
  void *context; void (*call)(void *);
  template <class F> limn_body(F &&f) : context((void *)&f), call([](void *c) { (*(typename std::remove_reference<F>::type *)c)(); }) {}
  void operator()() const { call(context); }
};
static void limn_launch(bool barrier, unsigned gx, unsigned gy, unsigned gz, unsigned bx, limn_body body) {
  gridDim = {gx, gy, gz}; blockDim = {bx, 1u, 1u};
  for (unsigned z = 0; z < gz; z++) for (unsigned y = 0; y < gy; y++) for (unsigned x = 0; x < gx; x++) {
    blockIdx = {x, y, z};
    if (!barrier) {
      for (unsigned t = 0; t < bx; t++) { threadIdx = {t, 0u, 0u}; body(); }
      continue;
    }
    std::barrier<> bar(bx); limn_barrier = &bar;
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < bx; t++) threads.emplace_back([=] { threadIdx = {t, 0u, 0u}; body(); });
    for (auto &th : threads) th.join();
  }
}
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
static inline double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
static std::mutex limn_atomic;
template <class T> static inline T atomicAdd(T *p, T v) { std::lock_guard<std::mutex> hold(limn_atomic); T old = *p; *p = old + v; return old; }
static inline int64_t limn_floordiv(int64_t a, int64_t b) { int64_t q = a / b; return q - ((a % b != 0) & ((a < 0) != (b < 0))); }
static inline int64_t limn_mod(int64_t a, int64_t m) { int64_t r = a % m; return r < 0 ? r + m : r; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
"""


def driver(i: int, kernel, launches, barrier: bool = True) -> str:
    "C++ that runs kernel i's launches in order, block after block, over the pointers args[0..] (`barrier`: see limn_launch)."
    casts = ", ".join(f"({'' if name == 'out' else 'const '}{storage_type(ref.dtype)} *)args[{j}]" for j, (name, ref) in enumerate(kernel.args))
    lines = [f'extern "C" int limn_run_{i}(void **args) {{', "  int bad = 0;"]
    for l in launches:
        name = l.name.replace("limn_region", f"limn_k{i}_region")
        lines.append(f"  limn_launch({'true' if barrier else 'false'}, {l.grid[0]}u, {l.grid[1]}u, {l.grid[2]}u, {l.block[0]}u, "
                     f"[&] {{ {name}({casts}, &bad); }});")
    return "\n".join(lines + ["  return bad;", "}"])


def test_one_thread_per_cell_kernels_run_on_the_cpu(tmp_path):
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None: pytest.skip("no C++ compiler (g++ or c++) on PATH to emulate the CUDA kernels with")
    parts, runs, n = [CPU_PRELUDE], [], 0
    cases = [c for c in CORPUS if c.dtype in C_DTYPES] + [Case(name, lambda sinks=sinks: sinks, dt) for dt in (float32, float64, int32)
                                                          for name, sinks in large_graphs(dt).items()]
    shapes = set()
    for case in cases:
        sched = lower_schedule(schedule([t.node for t in case.build()]))
        try: emitted = [emit(k) for k in sched.kernels]
        except TypeError: continue                                  # a declined narrow scatter (tests/test_cuda_emit.py)
        if not emitted: continue
        shapes |= {l.shape for e in emitted for l in e.launches}
        for k, e in zip(sched.kernels, emitted):
            parts += [e.source[len(PRELUDE):].replace("limn_region", f"limn_k{n}_region"), driver(n, k, e.launches, "__syncthreads" in e.source)]
            n += 1
        runs.append((case, sched, n - len(emitted)))
    src, lib = tmp_path / "emulated.cpp", tmp_path / "emulated.so"
    src.write_text("\n".join(parts))
    r = subprocess.run([cxx, "-O0", "-std=c++20", "-pthread", "-shared", "-fPIC", str(src), "-o", str(lib)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:3000]
    so, checked = ctypes.CDLL(str(lib)), 0
    for case, sched, first in runs:
        memory = {ref: (ref.buffer.array.reshape(-1).copy() if ref.buffer is not None else np.zeros(ref.numel, ref.dtype.np)) for ref in sched.buffers}
        for offset, k in enumerate(sched.kernels):
            fn = getattr(so, f"limn_run_{first + offset}")
            fn.argtypes, fn.restype = [ctypes.c_void_p], ctypes.c_int
            arrays = [memory[ref] for _, ref in k.args]
            assert fn((ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])) == 0, case.name
        for t, v in sched.assigns: memory[t] = memory[v].copy()
        rtol, atol = tolerance(case.dtype)
        for s, want in zip(sched.sinks, reference(case)):
            got = memory[s.buf].reshape(s.shape)
            loose = 1e-4 if case.dtype is float32 else 1e-6 if case.dtype.is_float else 0        # a split reduce regroups a float sum
            np.testing.assert_allclose(got, want, rtol=max(rtol, loose), atol=max(atol, loose), err_msg=f"{case.name}[{case.dtype.name}]")
            checked += 1
    print(f"\n{len(runs)} corpus cases ({n} kernels) emitted as CUDA, run on the CPU every thread a thread: {checked} sinks agree with the numpy device")
    assert len(runs) >= 50 and shapes == {"cells", "split", "tiled"}, shapes


ATTENTION_DRIVER = r"""
#include <algorithm>
extern "C" void run_fwd(const S *q, const S *k, const S *v, const S *mask, S *o, R *L, int64_t batch, int64_t tq, int64_t tk, int causal, double scale) {
  limn_launch(true, (unsigned)((tq + ATT_ROWS - 1) / ATT_ROWS), (unsigned)batch, 1u, ATT_ROWS, [&] { limn_sdpa_fwd(q, k, v, mask, o, L, tq, tk, causal, scale); });
}
extern "C" void run_bwd(const S *q, const S *k, const S *v, const S *mask, const S *dO, const R *Lrow, const R *Drow, S *dq, S *dk, S *dv_,
                        int64_t batch, int64_t tq, int64_t tk, int causal, double scale) {
  limn_launch(true, (unsigned)((tq + ATT_ROWS - 1) / ATT_ROWS), (unsigned)batch, 1u, ATT_ROWS, [&] { limn_sdpa_bwd_q(q, k, v, mask, dO, Lrow, Drow, dq, tq, tk, causal, scale); });
  limn_launch(true, (unsigned)((tk + ATT_ROWS - 1) / ATT_ROWS), (unsigned)batch, 1u, ATT_ROWS, [&] { limn_sdpa_bwd_kv(q, k, v, mask, dO, Lrow, Drow, dk, dv_, tq, tk, causal, scale); });
}
"""


ATTENTION_D, ATTENTION_DV = 16, 8


@pytest.fixture(scope="module")
def attention_library(tmp_path_factory):
    """The emitted attention kernels (float32, head sizes ATTENTION_D and ATTENTION_DV) compiled as C++ once: every
    shape below runs the same source, so one compile serves them all."""
    from limn.cuda_emit import attention_source
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None: pytest.skip("no C++ compiler (g++ or c++) on PATH to emulate the CUDA kernels with")
    folder = tmp_path_factory.mktemp("attention")
    source = attention_source(float32, ATTENTION_D, ATTENTION_DV).replace(PRELUDE, CPU_PRELUDE + "using std::min;\n") + ATTENTION_DRIVER
    (folder / "att.cpp").write_text(source)
    r = subprocess.run([cxx, "-O0", "-std=c++20", "-pthread", "-shared", "-fPIC", str(folder / "att.cpp"), "-o", str(folder / "att.so")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:3000]
    return ctypes.CDLL(str(folder / "att.so"))


@pytest.mark.parametrize("tq,tk,causal,masked", [(70, 45, True, True), (33, 100, False, True), (64, 64, True, False)])
def test_attention_kernels_run_on_the_cpu(attention_library, tq, tk, causal, masked):
    from limn.attention import sdpa_forward, sdpa_bwd_q, sdpa_bwd_kv
    d, dv, batch, so = ATTENTION_D, ATTENTION_DV, 2, attention_library
    rng = np.random.default_rng(tq + tk)
    q, k, v, do = (rng.standard_normal(s).astype(np.float32) for s in [(batch, tq, d), (batch, tk, d), (batch, tk, dv), (batch, tq, dv)])
    mask = (rng.random((batch, tk)) < 0.7).astype(np.float32) if masked else None
    if masked: mask[:, 0] = 1
    kw = dict(causal=causal, scale=0.25, masked=masked)
    extra = [mask] if masked else []
    want_o, want_L = sdpa_forward(q, k, v, *extra, **kw)
    D = (do * want_o).sum(-1).astype(np.float32)
    want = [want_o, want_L] + sdpa_bwd_q(q, k, v, *extra, do, want_L, D, **kw) + sdpa_bwd_kv(q, k, v, *extra, do, want_L, D, **kw)
    ptr = lambda a: None if a is None else a.ctypes.data
    tail = [ctypes.c_int64(batch), ctypes.c_int64(tq), ctypes.c_int64(tk), ctypes.c_int(causal), ctypes.c_double(0.25)]
    for run in range(2):                                           # twice: the same bits
        o, L = np.zeros_like(want_o), np.zeros_like(want_L)
        dq, dk, dvv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
        so.run_fwd(*[ctypes.c_void_p(ptr(a)) for a in (q, k, v, mask, o, L)], *tail)
        so.run_bwd(*[ctypes.c_void_p(ptr(a)) for a in (q, k, v, mask, do, want_L, D, dq, dk, dvv)], *tail)
        got = [o, L, dq, dk, dvv]
        for name, a, b in zip(("o", "L", "dq", "dk", "dv"), got, want): np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=name)
        if run: assert all(np.array_equal(a, b) for a, b in zip(got, first))
        first = [a.copy() for a in got]

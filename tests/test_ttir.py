"""Cross-check of the symbolic model (litmus.tritonsource) against Triton itself.

Every load, store, atomic and barrier the AST model found must be in the TTIR Triton emits for the kernel, at the same
source line, and vice versa: both the front end's IR (one op per source op) and the 'ttir' stage of the full
`triton.compile`. TTIR is produced on the CPU for a GPU target: no GPU is needed. Skipped only when triton (the optional
extra `triton==3.9.0`) is not importable."""
from pathlib import Path
import pytest
from litmus import corpus
from litmus.tritonsource import build_model, ttir, ttir_memory_ops, model_memory_ops, triton_available

pytestmark = pytest.mark.skipif(not triton_available(), reason="triton is not installed (pip install 'triton==3.9.0'): "
                                "the TTIR cross-check needs Triton's front end")
TEST_KERNELS = Path(__file__).parent / 'kernels'
CHECKED = corpus.kernels() + [corpus.load(TEST_KERNELS / f) for f in ('matmul_masked.py', 'barrier_divergent.py',
                                                                    'early_exit_barrier.py', 'matmul_grouped.py', 'helper_rows.py',
                                                                    'tutorial_layernorm.py', 'tutorial_dropout.py',
                                                                    'attention_causal.py', 'where_clamp.py', 'where_clamp_bad.py')]

def _modelled(model, ops):
    "Triton's ops minus those at a line the model reports unsupported (a data-dependent address): never silently missing."
    unsupported = {l for u in model.unsupported for l in u.lines()}
    return [op for op in ops if op[1] not in unsupported]

@pytest.mark.parametrize('kernel', CHECKED, ids=lambda k: k.name)
def test_model_and_front_end_ttir_agree(kernel):
    model = build_model(kernel)
    ours, theirs = model_memory_ops(model), ttir_memory_ops(ttir(kernel))
    assert theirs, f"no memory operations parsed from the TTIR of {kernel.name}"
    theirs = _modelled(model, theirs)
    assert set(ours) == set(theirs), f"{kernel.name}: model {ours} vs TTIR {theirs}"
    if 'static_range' not in kernel.source:  # without unrolling, one TTIR op per source op
        assert ours == theirs, f"{kernel.name}: model {ours} vs TTIR {theirs}"

@pytest.mark.parametrize('kernel', corpus.kernels(), ids=lambda k: k.name)
def test_model_and_compiled_ttir_agree(kernel):
    "`triton.compile` for GPUTarget('cuda', 90, 32), on this CPU: its 'ttir' stage has exactly the model's operations."
    model = build_model(kernel)
    assert model_memory_ops(model) == _modelled(model, ttir_memory_ops(ttir(kernel, stage='compile')))


SHIPPED = '''import triton
import triton.language as tl
LIMIT = tl.constexpr(3)

@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=4) for b in (64, 128)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def shipped(x_ptr, out_ptr, n, ACT: tl.constexpr, EVEN: tl.constexpr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 16)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if ACT == "leaky_relu" and LIMIT > 2:
        x = tl.where(x > 0, x, 0.01 * x)
    else:
        x = x + tl.load(x_ptr + offs + 1, mask=offs + 1 < n)
    for i in range(LIMIT, -1, -1):
        x = x + tl.load(x_ptr + i)
    tl.store(out_ptr + offs, x, mask=offs < n)

LITMUS = {"dims": {"N": 1000}, "grid": ["cdiv(N, BLOCK)"],
          "args": [{"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
                   {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
                   {"name": "n", "kind": "scalar", "value": "N"},
                   {"name": "ACT", "kind": "constexpr", "value": "ACTIVATION"},
                   {"name": "EVEN", "kind": "constexpr", "value": 0},
                   {"name": "BLOCK", "kind": "constexpr", "value": "128"}]}
'''

@pytest.mark.parametrize('act', ['leaky_relu', 'none'])
def test_shipped_constructs_agree_with_the_front_end(tmp_path, act):
    "Decorators as shipped, a string constexpr, a module-level constexpr and a loop counting down: Triton's ops, ours."
    from litmus.tritonsource import read_kernel
    path = tmp_path / 'shipped.py'
    path.write_text(SHIPPED.replace('"ACTIVATION"', repr(f'"{act}"')))
    kernel = read_kernel(path)
    model = build_model(kernel)
    assert not model.unsupported, model.unsupported
    assert model_memory_ops(model) == ttir_memory_ops(ttir(kernel))
    assert len(model.accesses) == (3 if act == 'leaky_relu' else 4) and len(model.assumptions) == 1

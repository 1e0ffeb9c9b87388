"""Cross-check of the symbolic model (litmus.tritonir) against Triton's own front end.

Every load, store, atomic and barrier the AST model found must be in the TTIR Triton emits for the kernel, at the same
source line, and vice versa. TTIR is produced on the CPU for a GPU target: no GPU is needed. Skipped only when triton
(the optional extra `triton==3.9.0`) is not importable."""
from pathlib import Path
import pytest
from litmus import corpus
from litmus.tritonir import build_model, ttir, ttir_memory_ops, model_memory_ops, triton_available

pytestmark = pytest.mark.skipif(not triton_available(), reason="triton is not installed (pip install 'triton==3.9.0'): "
                                "the TTIR cross-check needs Triton's front end")
TEST_KERNELS = Path(__file__).parent / 'kernels'
CHECKED = corpus.kernels() + [corpus.load(TEST_KERNELS / f) for f in ('matmul_masked.py', 'barrier_divergent.py',
                                                                    'early_exit_barrier.py', 'matmul_grouped.py', 'helper_rows.py')]

@pytest.mark.parametrize('kernel', CHECKED, ids=lambda k: k.name)
def test_model_and_ttir_agree(kernel):
    ours, theirs = model_memory_ops(build_model(kernel)), ttir_memory_ops(ttir(kernel))
    assert theirs, f"no memory operations parsed from the TTIR of {kernel.name}"
    assert set(ours) == set(theirs), f"{kernel.name}: model {ours} vs TTIR {theirs}"
    if 'static_range' not in kernel.source:  # without unrolling, one TTIR op per source op
        assert ours == theirs, f"{kernel.name}: model {ours} vs TTIR {theirs}"

def test_triton_compile_ttir_stage():
    "The full `triton.compile` pipeline for a GPU target, on this CPU: its TTIR (after Triton's passes) keeps the same operations."
    import warnings, triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    import importlib.util
    k = corpus.get('vadd_nomask')
    spec = importlib.util.spec_from_file_location('_ttir_vadd_nomask', k.path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    src = ASTSource(fn=getattr(mod, k.fn_name), signature={'x_ptr': '*fp32', 'y_ptr': '*fp32', 'out_ptr': '*fp32', 'n': 'i32',
                    'BLOCK': 'constexpr'}, constexprs={'BLOCK': 128})
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)
        compiled = triton.compile(src, target=GPUTarget('cuda', 90, 32))
    assert ttir_memory_ops(compiled.asm['ttir']) == model_memory_ops(build_model(k))

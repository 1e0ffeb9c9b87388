"""Copy with a barrier only the even programs reach (planted bug: barrier divergence)."""
import triton
import triton.language as tl

@triton.jit
def barrier_divergent(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if pid % 2 == 0:
        tl.debug_barrier()
    tl.store(y_ptr + offs, x, mask=mask)

LITMUS = {
    "label": "race",
    "why": "the values are right; only the synchronisation is wrong",
    "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "64"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": "x",
    "domain": {},
    "answer_key": {"dims": {"N": 1000}},
}

def reference(x):
    return x

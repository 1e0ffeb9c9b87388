"""A vector copy with a true `tl.assume(offs >= 0)` (correct). Test-only (issue 23: hints are obligations)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def trust_true_assume(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.assume(offs >= 0)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x, mask=mask)


LITMUS = {
    "why": "A vector copy with a true `tl.assume(offs >= 0)` (correct).",
    "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "answer_key": None,
}


def reference(x):
    return x

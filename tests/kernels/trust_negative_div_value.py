"""Gathers x at `(offs - 4) // 4 + 1` (wrong: Triton truncates the negative quotient at offs 1..3, so it reads x[1] where the floor reads x[0]). Test-only (issue 23: litmus matches Triton's semantics)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def trust_negative_div_value(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + ((offs - 4) // 4 + 1), mask=mask), mask=mask)


LITMUS = {
    "why": "(i - 4) // 4 is 0 at i = 1..3 in Triton (truncated), not -1",
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
    return x[np.floor_divide(np.arange(x.shape[0]) - 4, 4) + 1]

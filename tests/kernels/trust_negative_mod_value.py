"""Scales x by a period-4 weight computed with `%` on a negative dividend (wrong: Triton's remainder is negative there). Test-only (issue 23: litmus matches Triton's semantics)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def trust_negative_mod_value(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    w = ((offs - 2) % 4).to(tl.float32)
    tl.store(y_ptr + offs, x * w, mask=mask)


LITMUS = {
    "why": "(i - 2) % 4 is -2, -1 at i = 0, 1 in Triton (truncated), not 2, 3",
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
    return x * np.mod(np.arange(x.shape[0]) - 2, 4)

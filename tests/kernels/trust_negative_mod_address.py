"""Rotates x by 3 with `(offs - 3) % n` (wrong: Triton's remainder is negative for offs < 3, so it reads before x). Test-only (issue 23: litmus matches Triton's semantics)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def trust_negative_mod_address(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    src = (offs - 3) % n
    x = tl.load(x_ptr + src, mask=mask)
    tl.store(y_ptr + offs, x, mask=mask)


LITMUS = {
    "why": "(offs - 3) % n is negative at offs < 3 in Triton: loads x[-3 .. -1]",
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
    return np.roll(x, 3)

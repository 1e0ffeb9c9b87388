"""Vector add: out = x + y over a 1-D tensor, one BLOCK-wide tile per program (correct).

The tail tile is masked on load and store, so any N works, including sizes that are not a multiple of BLOCK."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


LITMUS = {
    "label": "correct",
    "why": "a correct elementwise kernel: the tail tile is masked",
    "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": "x + y",
    "domain": {"x_ptr": [-1000.0, 1000.0], "y_ptr": [-1000.0, 1000.0]},
    "reduce": "1",
    "answer_key": None,
}


def reference(x, y):
    return x + y

"""Row prefix sum (inclusive cumsum), one program per row, the whole row in one BLOCK = next_pow2(N) tile (correct).

Masked lanes load 0, the identity of +, and come after every real element, so they change no prefix that is stored;
the store is masked, so nothing past the row is written. tl.cumsum accumulates in float32, the input's type."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def cumsum(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, tl.cumsum(x, axis=0), mask=mask)


LITMUS = {
    "label": "correct",
    "why": "a correct row scan: masked lanes are 0 and the store is masked",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "cumsum(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "answer_key": None,
}


def reference(x):
    return np.cumsum(x, axis=-1)

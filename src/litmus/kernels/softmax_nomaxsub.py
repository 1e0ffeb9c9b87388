"""Row softmax without the max shift (planted bug: no_max_subtract).

exp(x) is taken of the raw row. Once an entry exceeds about 88.7, exp overflows float32 to inf and the row becomes
inf / inf = NaN; the shift by the row maximum, which makes every exponent <= 0, is what prevents that."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_nomaxsub(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * stride + cols, num / den, mask=mask)


LITMUS = {
    "label": "no_max_subtract",
    "why": "inputs in [0, 1) keep exp(x) below e, nowhere near the float32 overflow at x > 88.7",
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
    "spec": "softmax(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "softmax",
    "answer_key": {"dims": {"M": 4, "N": 100}, "inputs": {"x_ptr": {"dist": "uniform", "low": 100.0, "high": 1000.0}},
                   "seed": 0, "observable": "numeric"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

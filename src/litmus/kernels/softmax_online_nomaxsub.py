"""Chunked row softmax that sums exp(x) without any shift (planted bug: no_max_subtract).

The first pass accumulates exp(x) per lane, the second writes exp(x) / sum. Any entry above about 88.7 overflows
float32 and the row turns into NaN."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_online_nomaxsub(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        s += tl.exp(x)
    den = tl.sum(s, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(y_ptr + row * stride + cols, tl.exp(x) / den, mask=cols < n_cols)


LITMUS = {
    "label": "no_max_subtract",
    "why": "inputs in [0, 1) keep every exp(x) below e; overflow needs entries above 88.7",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "min(128, next_pow2(N))"},
    ],
    "grid": ["M"],
    "spec": "softmax(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "softmax_online",
    "answer_key": {"dims": {"M": 4, "N": 300}, "inputs": {"x_ptr": {"dist": "uniform", "low": 90.0, "high": 1000.0}},
                   "seed": 0, "observable": "numeric"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

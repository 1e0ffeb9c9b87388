"""Online (one-pass statistics) softmax in the style of the Triton tutorials (PLANTED BUG, reduction_init: `m = -float("inf")` -> `m = 0.0`). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One program per row; scalar running max m and rescaled sum l over BLOCK_SIZE tiles, m seeded with -inf, then a second
pass writes exp(x - m) / l."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(x_ptr, y_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * row_stride
    y_row = y_ptr + row * row_stride
    m = 0.0
    l = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        l = l * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(y_row + cols, tl.exp(x - m) / l, mask=cols < n_cols)


def softmax(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    online_softmax_kernel[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK_SIZE=128)
    return y


LITMUS = {
    "label": "reduction_init",
    "why": "the running max starts at 0: harmless for rows with a non-negative entry, 0/0 for an all very negative row",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["M"],
    "spec": "softmax(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "tut_online_softmax",
    "answer_key": {"dims": {"M": 4, "N": 300}, "inputs": {"x_ptr": {"dist": "uniform", "low": -1000.0, "high": -200.0}}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

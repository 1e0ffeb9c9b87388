"""Row-wise inclusive cumsum in the style of the Triton tutorials (PLANTED BUG, mask_leak: `mask = cols < n_cols` -> `mask = cols <= n_cols`). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One program per row; each BLOCK_SIZE tile is scanned with tl.cumsum and offset by the running total of the tiles
before it (a float32 carry)."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def row_cumsum_kernel(x_ptr, y_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    carry = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols <= n_cols
        x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
        y = tl.cumsum(x, axis=0) + carry
        tl.store(y_ptr + row * row_stride + cols, y, mask=mask)
        carry += tl.sum(x, axis=0)


def cumsum(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    row_cumsum_kernel[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK_SIZE=128)
    return y


LITMUS = {
    "label": "mask_leak",
    "why": "off-by-one mask: lane n_cols is live, one element past each row (past the tensor on the last row)",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["M"],
    "spec": "cumsum(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "tut_cumsum",
    "answer_key": {"dims": {"M": 4, "N": 1000}, "seed": 0, "observable": "oob_write"},
}


def reference(x):
    return np.cumsum(x, axis=-1)

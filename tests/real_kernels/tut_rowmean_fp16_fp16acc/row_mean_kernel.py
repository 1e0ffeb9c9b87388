"""Mean over the last dim of a float16 matrix in the style of the Triton tutorials (PLANTED BUG, dtype_promotion: `acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)` -> `acc = tl.zeros([BLOCK_SIZE], dtype=tl.float16)`). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One program per row, a BLOCK_SIZE-wide float32 running sum over the row's tiles, the mean stored in float16."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def row_mean_kernel(x_ptr, out_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float16)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=0.0)
        acc += x.to(acc.dtype)
    mean = tl.sum(acc, axis=0) / n_cols
    tl.store(out_ptr + row, mean.to(tl.float16))


def row_mean(x):
    n_rows, n_cols = x.shape
    out = torch.empty((n_rows,), dtype=x.dtype, device=x.device)
    row_mean_kernel[(n_rows,)](x, out, x.stride(0), n_cols, BLOCK_SIZE=256)
    return out


LITMUS = {
    "label": "dtype_promotion",
    "why": "a float16 running sum: fine for short rows, loses digits once the lane sums reach the hundreds",
    "dims": {"M": 8, "N": 4000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M"], "role": "out"},
        {"name": "row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "256"},
    ],
    "grid": ["M"],
    "spec": "mean(x)",
    "domain": {"x_ptr": [0.0, 100.0]},
    "reduce": "N",
    "accumulate": "float32",
    "sibling": "tut_rowmean_fp16",
    "answer_key": {"dims": {"M": 4, "N": 4000}, "inputs": {"x_ptr": {"dist": "uniform", "low": 50.0, "high": 100.0}}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    return x.mean(axis=-1)

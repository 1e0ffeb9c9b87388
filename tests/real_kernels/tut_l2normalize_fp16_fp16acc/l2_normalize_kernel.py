"""Row L2 normalisation of a float16 matrix in the style of the Triton tutorials (PLANTED BUG, dtype_promotion: `x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)` -> `x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)`). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One program per row, y = x / sqrt(sum(x^2) + eps) with the sum of squares in float32, stored in float16."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def l2_normalize_kernel(x_ptr, y_ptr, row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0)
    ss = tl.sum(x * x, axis=0)
    y = x / tl.sqrt(ss + eps)
    tl.store(y_ptr + row * row_stride + cols, y.to(tl.float16), mask=mask)


def l2_normalize(x, eps=1e-6):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    l2_normalize_kernel[(n_rows,)](x, y, x.stride(0), n_cols, eps, BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return y


LITMUS = {
    "label": "dtype_promotion",
    "why": "the sum of squares is taken in float16: fine for small rows of small values, inf past 65504",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "role": "out"},
        {"name": "row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "eps", "kind": "scalar", "value": 1e-06},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "x / sqrt(sum(x * x) + 1e-06)",
    "domain": {"x_ptr": [-10.0, 10.0]},
    "reduce": "N",
    "accumulate": "float32",
    "sibling": "tut_l2normalize_fp16",
    "answer_key": {"dims": {"M": 4, "N": 1000}, "inputs": {"x_ptr": {"dist": "uniform", "low": 8.0, "high": 10.0}}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    return x / np.sqrt((x * x).sum(axis=-1, keepdims=True) + 1e-06)

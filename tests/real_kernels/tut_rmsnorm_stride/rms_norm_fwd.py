"""RMSNorm forward in the style of the Triton tutorials (PLANTED BUG, stride: `x_ptr + row * x_row_stride + cols` -> `x_ptr + row * n_cols + cols`). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One program per row of a row-padded float16 matrix (row stride N + P), the row in one next_pow2(N) tile, the mean
square in float32, y = x * rsqrt(mean(x^2) + eps) * w."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_fwd(x_ptr, w_ptr, y_ptr, x_row_stride, y_row_stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    rstd = tl.rsqrt(mean_sq + eps)
    y = x * rstd * w
    tl.store(y_ptr + row * y_row_stride + cols, y.to(tl.float16), mask=mask)


def rms_norm(x, w, eps=1e-6):
    n_rows, n_cols = x.shape
    y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    rms_norm_fwd[(n_rows,)](x, w, y, x.stride(0), y.stride(0), n_cols, eps, BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return y


LITMUS = {
    "label": "stride",
    "why": "rows are read n_cols apart instead of at the row stride: right only for an unpadded input",
    "dims": {"M": 8, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "w_ptr", "kind": "tensor", "dtype": "float16", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "role": "out"},
        {"name": "x_row_stride", "kind": "scalar", "value": "N + P"},
        {"name": "y_row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "eps", "kind": "scalar", "value": 1e-06},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "rmsnorm(x, eps=1e-6) * w",
    "domain": {"x_ptr": [-10.0, 10.0], "w_ptr": [-10.0, 10.0]},
    "reduce": "N",
    "accumulate": "float32",
    "sibling": "tut_rmsnorm",
    "answer_key": {"dims": {"M": 4, "N": 1000, "P": 3}, "seed": 0, "observable": "numeric"},
}


def reference(x, w):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-06) * w

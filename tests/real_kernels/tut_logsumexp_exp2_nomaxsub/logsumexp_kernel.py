"""Row logsumexp written with exp2 and log2 in the style of the Triton tutorials (PLANTED BUG, no_max_subtract: `m = tl.max(x, axis=0)` -> `m = 0.0`). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One program per row in one next_pow2(n_cols) tile: m = max(x), lse = m + log2(sum(2^((x - m) log2 e))) ln 2."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def logsumexp_kernel(x_ptr, out_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=-float("inf"))
    m = 0.0
    s = tl.sum(tl.exp2((x - m) * 1.4426950408889634), axis=0)
    tl.store(out_ptr + row, m + tl.log2(s) * 0.6931471805599453)


def logsumexp(x):
    n_rows, n_cols = x.shape
    out = torch.empty((n_rows,), dtype=x.dtype, device=x.device)
    logsumexp_kernel[(n_rows,)](x, out, x.stride(0), n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return out


LITMUS = {
    "label": "no_max_subtract",
    "why": "no max shift: exact for moderate inputs, exp2 overflows to inf for inputs above ~88",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "out"},
        {"name": "row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "logsumexp(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "tut_logsumexp_exp2",
    "answer_key": {"dims": {"M": 4, "N": 300}, "inputs": {"x_ptr": {"dist": "uniform", "low": 100.0, "high": 1000.0}}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    m = x.max(axis=-1)
    return m + np.log(np.exp(x - m[:, None]).sum(axis=-1))

"""Chunked row sum with a float16 accumulator (planted bug: dtype_promotion).

Each lane adds its column values into a float16 accumulator. float16 has 11 significant bits and a largest finite
value of 65504: a lane's running sum stagnates once it passes 2048 (a unit increment is below half an ulp), and
overflows to inf past 65504."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rowsum_fp16acc(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float16)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x.to(tl.float16)
    tl.store(out_ptr + row, tl.sum(acc.to(tl.float32), axis=0))


LITMUS = {
    "label": "dtype_promotion",
    "why": "with N=512 and inputs in [0, 1) each lane adds 16 values below 1, far from where float16 stagnates or overflows, and the relative error stays near 1e-3",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "32"},
    ],
    "grid": ["M"],
    "spec": "sum(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "rowsum",
    "answer_key": {"dims": {"M": 2, "N": 4096}, "inputs": {"x_ptr": {"dist": "uniform", "low": 500.0, "high": 1000.0}},
                   "seed": 0, "observable": "numeric",
                   "note": "each lane sums 128 values near 750: the float16 accumulator overflows to inf"},
}


def reference(x):
    return x.sum(axis=-1)

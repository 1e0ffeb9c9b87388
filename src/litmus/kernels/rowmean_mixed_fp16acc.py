"""Row mean of a float16 tensor accumulated in float16 (planted bug: dtype_promotion).

The spec says float16 in and out with a float32 accumulator; this kernel keeps each lane's running sum in float16.
A lane's sum stagnates once its increments fall below half an ulp (past 2048 for values below 1) and overflows to
inf past 65504, while the mean it should produce stays small and finite."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rowmean_mixed_fp16acc(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float16)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x
    tl.store(out_ptr + row, (tl.sum(acc.to(tl.float32), axis=0) / n_cols).to(tl.float16))


LITMUS = {
    "label": "dtype_promotion",
    "why": "at N=4096 with inputs in [0, 1) each lane adds 128 values below 1: its float16 sum stays near 64, far from stagnation or overflow, and the error hides under the float16 output's rounding",
    "dims": {"M": 8, "N": 4096, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "32"},
    ],
    "grid": ["M"],
    "spec": "mean(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "accumulate": "float32",
    "sibling": "rowmean_mixed",
    "answer_key": {"dims": {"M": 2, "N": 4096}, "inputs": {"x_ptr": {"dist": "uniform", "low": 600.0, "high": 1000.0}},
                   "seed": 0, "observable": "numeric",
                   "note": "each lane adds 128 values near 800: its float16 sum passes 65504 and becomes inf; the mean is about 800"},
}


def reference(x):
    return x.mean(axis=-1)

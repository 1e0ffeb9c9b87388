"""Row mean of a float16 tensor with a float32 accumulator and a float16 result (correct).

Each lane adds its column values, widened to float32, into a float32 accumulator; the row total is divided by the
row length in float32 and only the mean is rounded to float16. The total of a row can pass float16's largest finite
value (65504) while its mean cannot, so the accumulator must be wider than the output."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rowmean_mixed(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x.to(tl.float32)
    tl.store(out_ptr + row, (tl.sum(acc, axis=0) / n_cols).to(tl.float16))


LITMUS = {
    "label": "correct",
    "why": "a correct mixed-precision mean: float16 in and out, float32 inside",
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
    "answer_key": None,
}


def reference(x):
    return x.mean(axis=-1)

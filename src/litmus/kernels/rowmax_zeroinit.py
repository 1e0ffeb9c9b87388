"""Row maximum whose per-lane accumulator starts at 0.0 (planted bug: reduction_init).

0.0 is not the identity of max: the kernel computes max(0, max(x)), which is wrong for every row whose entries are
all negative."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rowmax_zeroinit(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        acc = tl.maximum(acc, x)
    tl.store(out_ptr + row, tl.max(acc, axis=0))


LITMUS = {
    "label": "reduction_init",
    "why": "torch.rand() is non-negative, so max(0, max(x)) == max(x) on every test input",
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
    "spec": "max(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "rowmax",
    "answer_key": {"dims": {"M": 4, "N": 100}, "inputs": {"x_ptr": {"dist": "uniform", "low": -1000.0, "high": -1.0}},
                   "seed": 0, "observable": "numeric"},
}


def reference(x):
    return x.max(axis=-1)

"""Row sum in BLOCK-wide chunks with a per-lane float32 accumulator (correct)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rowsum(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


LITMUS = {
    "label": "correct",
    "why": "a correct chunked row sum: the tail chunk is masked with the identity 0.0",
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
    "answer_key": None,
}


def reference(x):
    return x.sum(axis=-1)

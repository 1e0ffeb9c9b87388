"""Chunked row sum whose loads are not masked (planted bug: mask_leak).

The last chunk of a row reads BLOCK lanes from its start even when fewer columns remain, so the sum picks up the
first entries of the next row (interior rows) or whatever lies past the tensor (the last row)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rowsum_nomask(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        acc += tl.load(x_ptr + row * stride + cols)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


LITMUS = {
    "label": "mask_leak",
    "why": "N=512 is a multiple of BLOCK=32, so the last chunk is always full",
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
    "answer_key": {"dims": {"M": 4, "N": 100}, "inputs": {"x_ptr": {"dist": "normal", "loc": 0.0, "scale": 1.0}},
                   "seed": 0, "observable": "numeric"},
}


def reference(x):
    return x.sum(axis=-1)

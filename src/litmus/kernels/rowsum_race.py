"""Row sum split over a 2-D grid, each program adding its chunk into out[row] with a plain load and store
(planted bug: race).

Programs (row, 0), (row, 1), ... all read out[row], add their partial sum and write it back. Nothing orders them, so
two that overlap both read the old value and one partial sum is lost. The fix is tl.atomic_add."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rowsum_race(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    current = tl.load(out_ptr + row)
    tl.store(out_ptr + row, current + tl.sum(x, axis=0))


LITMUS = {
    "label": "race",
    "why": "on real hardware the lost update is intermittent: a run where the programs of a row happen not to overlap is correct",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "acc"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "32"},
    ],
    "grid": ["M", "cdiv(N, BLOCK)"],
    "spec": "sum(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "rowsum",
    "answer_key": {"dims": {"M": 4, "N": 100}, "inputs": {"x_ptr": {"dist": "uniform", "low": 0.0, "high": 1.0}},
                   "seed": 0, "observable": "numeric",
                   "note": "4 programs per row; under the lost-update model only the last one's partial sum survives"},
}


def reference(x):
    return x.sum(axis=-1)

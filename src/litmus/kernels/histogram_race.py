"""Histogram whose counters are bumped with a plain load and store (planted bug: race).

counts = hist[bin]; hist[bin] = counts + 1 is two memory operations. Lanes of one tile that hit the same bin read the
same old count and store the same new one, and so do programs that run at the same time: all but one increment of
each collision is lost."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def histogram_race(idx_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(idx_ptr + offs, mask=mask, other=0)
    counts = tl.load(hist_ptr + bins, mask=mask, other=0)
    tl.store(hist_ptr + bins, counts + 1, mask=mask)


LITMUS = {
    "label": "race",
    "why": "on real hardware the lost increments depend on which lanes and programs collide and when, so a count can come out right on the run that is checked",
    "dims": {"N": 1000, "B": 64},
    "ranges": {"B": [64, 64]},
    "args": [
        {"name": "idx_ptr", "kind": "tensor", "dtype": "int32", "shape": ["N"], "role": "in"},
        {"name": "hist_ptr", "kind": "tensor", "dtype": "int32", "shape": ["B"], "role": "acc"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": None,
    "domain": {"idx_ptr": [0, "B - 1"]},
    "sibling": "histogram",
    "answer_key": {"dims": {"N": 300}, "inputs": {"idx_ptr": {"dist": "integers", "low": 0, "high": 3}},
                   "seed": 0, "observable": "numeric",
                   "note": "300 indices in 4 bins: every tile has duplicates, and three programs share every bin"},
}


def reference(idx):
    return np.bincount(idx.astype(np.int64), minlength=64).astype(np.float64)

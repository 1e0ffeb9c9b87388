"""Histogram of bin indices: each program counts its tile into hist with tl.atomic_add (correct).

hist must be zero before the launch. Two lanes (or two programs) that hit the same bin both land, because each
atomic read-modify-write of a counter is indivisible; the counts are integers, so the order does not matter at all."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def histogram(idx_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=mask)


LITMUS = {
    "label": "correct",
    "why": "a correct histogram: every increment is an atomic add",
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
    "answer_key": None,
}


def reference(idx):
    return np.bincount(idx.astype(np.int64), minlength=64).astype(np.float64)

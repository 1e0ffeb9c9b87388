"""Row logsumexp computed as log(sum(exp(x))) without the max shift (planted bug: no_max_subtract).

float32 exp overflows to inf for x > 88.72, so any row holding such a value returns inf, though its logsumexp (about
its maximum) is finite; a row of values below -103 underflows every term to 0 and returns -inf."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def logsumexp_nomaxsub(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    s = tl.sum(tl.exp(x), axis=0)
    tl.store(out_ptr + row, tl.log(s))


LITMUS = {
    "label": "no_max_subtract",
    "why": "inputs in [0, 1) keep every exp(x) below e and their sum below 1400 at N=512, nowhere near the float32 overflow at x > 88.7",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "logsumexp(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "logsumexp",
    "answer_key": {"dims": {"M": 4, "N": 100}, "inputs": {"x_ptr": {"dist": "uniform", "low": 90.0, "high": 200.0}},
                   "seed": 0, "observable": "numeric", "note": "every exp overflows to inf; the true logsumexp is about 200"},
}


def reference(x):
    m = x.max(axis=-1)
    return m + np.log(np.exp(x - m[..., None]).sum(axis=-1))

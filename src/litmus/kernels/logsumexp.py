"""Row logsumexp, one program per row, the whole row in one BLOCK = next_pow2(N) tile (correct).

log(sum(exp(x))) computed as m + log(sum(exp(x - m))) with m the row maximum: every exp argument is <= 0, so no finite
input overflows, and the largest term contributes exp(0) = 1, so the log never sees 0. Masked lanes load -inf."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def logsumexp(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    tl.store(out_ptr + row, m + tl.log(s))


LITMUS = {
    "label": "correct",
    "why": "a correct logsumexp: the row maximum is subtracted before exp and added back after the log",
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
    "answer_key": None,
}


def reference(x):
    m = x.max(axis=-1)
    return m + np.log(np.exp(x - m[..., None]).sum(axis=-1))

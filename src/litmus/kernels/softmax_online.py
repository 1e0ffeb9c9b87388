"""Row softmax in BLOCK-wide chunks with a running maximum (the online softmax; correct).

The first pass keeps a per-lane running max m and a per-lane sum s of exp(x - m), rescaling s whenever m grows; the
lanes are then combined with the row maximum. The second pass writes exp(x - max) / sum. The running max starts at
-inf and masked lanes load -inf, so the first chunk sets it."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_online(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m - m_new))
        s = s * alpha + tl.where(x == -float("inf"), 0.0, tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    den = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(y_ptr + row * stride + cols, tl.exp(x - row_max) / den, mask=cols < n_cols)


LITMUS = {
    "label": "correct",
    "why": "a correct online softmax: the running max starts at -inf and every exponent is <= 0",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "min(128, next_pow2(N))"},
    ],
    "grid": ["M"],
    "spec": "softmax(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "answer_key": None,
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

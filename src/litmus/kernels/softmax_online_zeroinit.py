"""Online row softmax whose running maximum starts at 0.0 instead of -inf (planted bug: reduction_init).

With m initialised to 0.0 the "maximum" is really max(0, max(x)). For a row with a non-negative entry that is
harmless (softmax is shift-invariant), but for a row of large negative entries every exp(x - 0) underflows to 0
and the output is 0 / 0 = NaN."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_online_zeroinit(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    m = tl.zeros([BLOCK], tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, x)
        alpha = tl.exp(m - m_new)
        s = s * alpha + tl.where(x == -float("inf"), 0.0, tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    den = tl.sum(s * tl.exp(m - row_max), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        tl.store(y_ptr + row * stride + cols, tl.exp(x - row_max) / den, mask=cols < n_cols)


LITMUS = {
    "label": "reduction_init",
    "why": "torch.rand() is non-negative, so max(0, max(x)) equals max(x) up to a harmless shift",
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
    "sibling": "softmax_online",
    "answer_key": {"dims": {"M": 4, "N": 300}, "inputs": {"x_ptr": {"dist": "uniform", "low": -1000.0, "high": -200.0}},
                   "seed": 0, "observable": "numeric"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

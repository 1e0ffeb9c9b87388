"""Row softmax whose masked lanes load 0.0 instead of -inf (planted bug: reduction_init).

The padding value of a masked reduction must be the reduction's identity. 0.0 is the identity of sum, not of max:
every lane past the row end contributes exp(0 - max) to the denominator, and for an all-negative row it also becomes
the maximum."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_zero_other(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * stride + cols, num / den, mask=mask)


LITMUS = {
    "label": "reduction_init",
    "why": "N=512 is a power of two, so no lane is masked and the padding value is never used",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "softmax(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "softmax",
    "answer_key": {"dims": {"M": 4, "N": 100}, "inputs": {"x_ptr": {"dist": "normal", "loc": 0.0, "scale": 1.0}},
                   "seed": 0, "observable": "numeric"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

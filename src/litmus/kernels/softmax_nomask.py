"""Row softmax that loads the whole BLOCK without a mask (planted bug: mask_leak).

BLOCK = next_pow2(N) lanes are loaded from each row start. When N is not a power of two the lanes past the row end
read the next row (for interior rows) or whatever lies past the tensor (for the last row), and those values enter the
max and the denominator. The store is masked, so nothing is written out of bounds."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_nomask(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols)
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * stride + cols, num / den, mask=mask)


LITMUS = {
    "label": "mask_leak",
    "why": "N=512 is a power of two, so BLOCK == N and no lane lies past the row end",
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

"""Row RMS norm, one program per row: y = x / sqrt(mean(x^2) + eps) * w (correct)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rmsnorm(x_ptr, w_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, x * rstd * w, mask=mask)


LITMUS = {
    "label": "correct",
    "why": "a correct rms-norm: masked lanes add 0 to the sum of squares",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "w_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "eps", "kind": "scalar", "value": 1e-05},
        {"name": "BLOCK", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "rmsnorm(x, w, eps=1e-5)",
    "domain": {"x_ptr": [-1000.0, 1000.0], "w_ptr": [-10.0, 10.0]},
    "reduce": "N",
    "answer_key": None,
}


def reference(x, w):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-05) * w

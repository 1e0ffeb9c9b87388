"""Row layernorm, one program per row, the whole row in one tile (correct).

mean and variance are taken over the n_cols live lanes (masked lanes load 0.0 and are zeroed again after the mean is
subtracted), then y = (x - mean) / sqrt(var + eps) * w + b. The variance is the centred second moment, never
E[x^2] - mean^2."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, diff * rstd * w + b, mask=mask)


LITMUS = {
    "label": "correct",
    "why": "a correct layernorm with a centred variance and masked tail",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "w_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "b_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "eps", "kind": "scalar", "value": 1e-05},
        {"name": "BLOCK", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "layernorm(x, w, b, eps=1e-5)",
    "domain": {"x_ptr": [-10.0, 10.0], "w_ptr": [-10.0, 10.0], "b_ptr": [-10.0, 10.0]},
    "reduce": "N",
    "answer_key": None,
}


def reference(x, w, b):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-05) * w + b

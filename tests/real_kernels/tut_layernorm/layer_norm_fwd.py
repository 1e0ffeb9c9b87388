"""Layer norm forward in the style of Triton's tutorial 05 (correct). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One program per row, the row walked in BLOCK_SIZE chunks three times (mean, centred variance, normalise), statistics
in float32 for float16 inputs; the tail lanes are masked out of the variance with tl.where."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd(X, Y, W, B, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        b = tl.load(B + cols, mask=mask).to(tl.float32)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


def layer_norm(x, weight, bias, eps=1e-5):
    M, N = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE = min(256, triton.next_power_of_2(N))
    layer_norm_fwd[(M,)](x, y, weight, bias, x.stride(0), N, eps, BLOCK_SIZE=BLOCK_SIZE)
    return y


LITMUS = {
    "label": "correct",
    "why": "the tutorial-style chunked layer norm, float16 in and out, float32 statistics",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "X", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "role": "in"},
        {"name": "Y", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "role": "out"},
        {"name": "W", "kind": "tensor", "dtype": "float16", "shape": ["N"], "role": "in"},
        {"name": "B", "kind": "tensor", "dtype": "float16", "shape": ["N"], "role": "in"},
        {"name": "stride", "kind": "scalar", "value": "N"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "eps", "kind": "scalar", "value": 1e-05},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "min(256, next_pow2(N))"},
    ],
    "grid": ["M"],
    "spec": "layernorm(X, W, B, eps=1e-5)",
    "domain": {"X": [-10.0, 10.0], "W": [-10.0, 10.0], "B": [-10.0, 10.0]},
    "reduce": "N",
    "accumulate": "float32",
    "answer_key": None,
}


def reference(x, w, b):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-05) * w + b

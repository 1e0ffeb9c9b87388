"""The layer-norm forward of the Triton tutorials (correct): row pointers moved with `X += row * stride`, three loops
over column tiles, per-row statistics stored. Test-only."""
import triton
import triton.language as tl

@triton.jit
def tutorial_layernorm(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)

LITMUS = {
    "label": "correct", "why": "tutorial", "dims": {"M": 8, "N": 300},
    "args": [
        {"name": "X", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "Y", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "W", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "B", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "Mean", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "out"},
        {"name": "Rstd", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "out"},
        {"name": "stride", "kind": "scalar", "value": "N"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "eps", "kind": "scalar", "value": 1e-5},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "64"},
    ],
    "grid": ["M"], "spec": None, "domain": {}, "answer_key": None,
}

def reference(x):
    return x

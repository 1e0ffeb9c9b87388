"""A 1-D three-point stencil (discrete Laplacian) in the style of the Triton tutorials (correct). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

y[j] = x[j-1] - 2 x[j] + x[j+1] with zeros outside [0, n): the shifted reads are masked with (offs >= 1) & (offs < n)
and offs + 1 < n."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def stencil_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    left = tl.load(x_ptr + offs - 1, mask=(offs >= 1) & (offs < n), other=0.0)
    mid = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    right = tl.load(x_ptr + offs + 1, mask=offs + 1 < n, other=0.0)
    tl.store(y_ptr + offs, left - 2.0 * mid + right, mask=offs < n)


def laplacian(x):
    y = torch.empty_like(x)
    n = x.numel()
    stencil_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
    return y


LITMUS = {
    "label": "correct",
    "why": "a tutorial-style three-point stencil with masked shifted reads",
    "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "256"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": "shift(x, 1) - 2.0 * x + shift(x, -1)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "1",
    "answer_key": None,
}


def reference(x):
    padded = np.concatenate([[0.0], x, [0.0]])
    return padded[:-2] - 2.0 * padded[1:-1] + padded[2:]

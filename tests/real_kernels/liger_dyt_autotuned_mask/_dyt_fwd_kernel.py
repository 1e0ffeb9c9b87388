"""Liger-Kernel 0.8.5, liger_kernel/ops/dyt.py: `_dyt_fwd_kernel` and its launcher `liger_dyt_fwd` (PLANTED BUG, mask_leak: `mask = col < N` -> `mask = col <= N`).

Dynamic tanh, y = tanh(alpha * x) * gamma + beta, a 2-D grid of (column tile, row). BSD-2-Clause, Copyright 2024
LinkedIn Corporation (see LICENSE.liger-kernel). Kept with its @triton.autotune decorator as shipped; the
literal launches its first config, BLOCK_N = 1024. Edits: see README.md."""
import numpy as np
import torch
import triton
import triton.language as tl
from triton.language.extra.libdevice import tanh


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_N": bn}, num_stages=ns, num_warps=nw)
        for bn in [1024, 2048, 4096]
        for ns in [1, 2]
        for nw in [4, 8, 16]
    ],
    key=["N"],
)
@triton.jit
def _dyt_fwd_kernel(X, Y, Alpha, Gamma, Beta, HAVE_BETA: tl.constexpr, N: tl.constexpr, BLOCK_N: tl.constexpr):
    col = tl.cast(tl.program_id(0), tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = col <= N
    row_id = tl.cast(tl.program_id(1), tl.int64)

    X += row_id * N
    Y += row_id * N
    alpha = tl.load(Alpha).to(tl.float32)

    gamma = tl.load(Gamma + col, mask=mask, other=0.0).to(tl.float32)

    x = tl.load(X + col, mask=mask, other=0.0).to(tl.float32)

    tanh_x = tanh(alpha * x)
    y = tanh_x * gamma
    if HAVE_BETA:
        beta = tl.load(Beta + col, mask=mask, other=0.0).to(tl.float32)
        y += beta
    tl.store(Y + col, y, mask=mask)


def liger_dyt_fwd(x, alpha, gamma, beta):
    assert x.is_contiguous()
    HAVE_BETA = True if beta is not None else False
    input_shape = x.shape
    x = x.view(-1, input_shape[-1])
    M, N = x.shape

    y = torch.empty_like(x)

    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]), M)
    _dyt_fwd_kernel[grid](
        x,
        y,
        alpha,
        gamma,
        beta,
        HAVE_BETA,
        N,
    )
    return y.view(input_shape)


LITMUS = {
    "label": "mask_leak",
    "why": "off-by-one mask: column N is live, one element past each row (past the tensor on the last row)",
    "dims": {"M": 4, "N": 3000},
    "args": [
        {"name": "X", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "Y", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "Alpha", "kind": "tensor", "dtype": "float32", "shape": ["1"], "role": "in"},
        {"name": "Gamma", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "Beta", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "HAVE_BETA", "kind": "constexpr", "value": 1},
        {"name": "N", "kind": "constexpr", "value": "N"},
        {"name": "BLOCK_N", "kind": "constexpr", "value": "1024"},
    ],
    "grid": ["cdiv(N, BLOCK_N)", "M"],
    "spec": "tanh(Alpha * X) * Gamma + Beta",
    "domain": {"X": [-10.0, 10.0], "Alpha": [-2.0, 2.0], "Gamma": [-10.0, 10.0], "Beta": [-10.0, 10.0]},
    "reduce": "1",
    "sibling": "liger_dyt_autotuned",
    "answer_key": {"dims": {"M": 4, "N": 3000}, "seed": 0, "observable": "oob_write"},
}


def reference(x, alpha, gamma, beta):
    return np.tanh(alpha[0] * x) * gamma + beta

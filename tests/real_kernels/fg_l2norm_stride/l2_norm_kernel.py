"""FlagGems 5.0.2 (Apache-2.0, see LICENSE.flaggems; Copyright the FlagGems authors). flag_gems/ops/vector_norm.py: `l2_norm_kernel` and the dim branch of its launcher `vector_norm` (PLANTED BUG, stride: `X = X + pid * N` -> `X = X + pid * BLOCK_N`).

L2 norm of each row: BLOCK_M rows per program, a [BLOCK_M, BLOCK_N] float32 running sum of squares, then sqrt.
Edits: see README.md (the @triton.autotune decorator is removed; its config BLOCK_M = 4, BLOCK_N = 1024 is the launch
below, at BLOCK_N = 128 so the column loop runs)."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def program_id(
    axis: int,
) -> tl.tensor:
    return tl.program_id(axis).to(tl.int64)


@triton.jit
def l2_norm_kernel(X, Out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    X = X + pid * BLOCK_N
    Out = Out + pid
    row_mask = pid < M

    _sum = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)[None, :]
        col_mask = cols < N
        mask = row_mask and col_mask

        a = tl.load(X + cols, mask, other=0.0).to(tl.float32)
        _sum += a * a
    sum = tl.sum(_sum, axis=1)

    out = tl.sqrt(sum)[:, None]
    tl.store(Out, out, row_mask)


def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        dtype = torch.dtype(dtype)
    else:
        dtype = x.dtype
    shape = list(x.shape)
    dim = [d % x.ndim for d in dim]
    N = 1
    for i in dim:
        N *= shape[i]
        shape[i] = 1
    M = x.numel() // N
    out = torch.empty(shape, dtype=dtype, device=x.device)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]),)
    l2_norm_kernel[grid](x, out, M, N)
    if not keepdim:
        out = out.squeeze(dim=dim)
    return out


LITMUS = {
    "label": "stride",
    "why": "rows are BLOCK_N apart, not N: right only when N == BLOCK_N",
    "dims": {"M": 10, "N": 1000},
    "args": [
        {"name": "X", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "Out", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "out"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_M", "kind": "constexpr", "value": "4"},
        {"name": "BLOCK_N", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["cdiv(M, BLOCK_M)"],
    "spec": "sqrt(sum(X * X))",
    "domain": {"X": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "fg_l2norm",
    "answer_key": {"dims": {"M": 10, "N": 1000}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    return np.sqrt((x * x).sum(axis=-1))

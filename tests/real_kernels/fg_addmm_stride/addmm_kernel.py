"""FlagGems 5.0.2 (Apache-2.0, see LICENSE.flaggems; Copyright the FlagGems authors). flag_gems/ops/addmm.py: `addmm_kernel` and its launcher `addmm` (PLANTED BUG, stride: `c_ptrs = c_ptr + stride_cm * offs_cm[:, None]` -> `c_ptrs = c_ptr + stride_am * offs_cm[:, None]`).

out = alpha * (A @ B) + beta * bias: BLOCK_SIZE_M x BLOCK_SIZE_N tiles, a float32 tl.dot accumulator over K in
BLOCK_SIZE_K steps with masked loads, pointers advanced in the loop, the bias epilogue loaded under the output mask.
Edits: see README.md (`@libentry()` and `@libtuner(...)` removed; the launch below is the tuned config
BLOCK_SIZE_M = 32, BLOCK_SIZE_N = 64, BLOCK_SIZE_K = 32)."""
from typing import Tuple

import numpy as np
import torch
import triton
import triton.language as tl

Shape = Tuple[int]


def broadcastable_to(s1: Shape, s2: Shape) -> bool:
    r1 = len(s1)
    if r1 == 0:
        return True
    r2 = len(s2)
    if r2 == 0:  # r1 > 0
        return False

    if r1 > r2:
        return False

    d = r2 - r1
    for i in range(r1):
        if s1[i] == 1 or s1[i] == s2[d + i]:
            continue
        return False
    return True


@triton.jit
def program_id(
    axis: int,
) -> tl.tensor:
    return tl.program_id(axis).to(tl.int64)


@triton.jit(do_not_specialize=["alpha", "beta"])
def addmm_kernel(
    a_ptr,
    b_ptr,
    i_ptr,
    c_ptr,
    alpha,
    beta,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_im,
    stride_in,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
):
    pid_m = program_id(0)
    pid_n = program_id(1)

    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(
            a_ptrs,
            mask=(offs_am[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_SIZE_K),
            other=0.0,
        )
        b = tl.load(
            b_ptrs,
            mask=(offs_k[:, None] < K - k * BLOCK_SIZE_K) & (offs_bn[None, :] < N),
            other=0.0,
        )
        accumulator += tl.dot(a, b, allow_tf32=False)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_am * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    i_ptrs = i_ptr + stride_im * offs_cm[:, None] + stride_in * offs_cn[None, :]
    bias = tl.load(i_ptrs, mask=c_mask, other=0.0)

    accumulator = accumulator * alpha + bias * beta
    c = accumulator.to(bias.dtype)
    tl.store(c_ptrs, c, mask=c_mask)


def addmm(bias, mat1, mat2, *, beta=1, alpha=1):
    assert mat1.shape[1] == mat2.shape[0], "Incompatible dimensions"
    assert broadcastable_to(
        bias.shape, (mat1.shape[0], mat2.shape[1])
    ), "Incompatible input shape"
    M, K = mat1.shape
    _, N = mat2.shape

    mat1 = mat1.contiguous()
    # mat2 = mat2.contiguous()
    out = torch.empty((M, N), device=mat1.device, dtype=mat1.dtype)
    bias = bias.broadcast_to(out.shape)

    grid = lambda META: (
        triton.cdiv(M, META["BLOCK_SIZE_M"]),
        triton.cdiv(N, META["BLOCK_SIZE_N"]),
    )
    addmm_kernel[grid](
        mat1,
        mat2,
        bias,
        out,
        alpha,
        beta,
        M,
        N,
        K,
        mat1.stride(0),
        mat1.stride(1),
        mat2.stride(0),
        mat2.stride(1),
        bias.stride(0),
        bias.stride(1),
        out.stride(0),
        out.stride(1),
    )
    return out


LITMUS = {
    "label": "stride",
    "why": "output rows are written at A's row stride (K) instead of C's (N): right only when K == N",
    "dims": {"M": 72, "N": 100, "K": 80},
    "args": [
        {"name": "a_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "K"], "role": "in"},
        {"name": "b_ptr", "kind": "tensor", "dtype": "float32", "shape": ["K", "N"], "role": "in"},
        {"name": "i_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "c_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "alpha", "kind": "scalar", "value": 1.0},
        {"name": "beta", "kind": "scalar", "value": 1.0},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "K", "kind": "scalar", "value": "K"},
        {"name": "stride_am", "kind": "scalar", "value": "K"},
        {"name": "stride_ak", "kind": "scalar", "value": "1"},
        {"name": "stride_bk", "kind": "scalar", "value": "N"},
        {"name": "stride_bn", "kind": "scalar", "value": "1"},
        {"name": "stride_im", "kind": "scalar", "value": "N"},
        {"name": "stride_in", "kind": "scalar", "value": "1"},
        {"name": "stride_cm", "kind": "scalar", "value": "N"},
        {"name": "stride_cn", "kind": "scalar", "value": "1"},
        {"name": "BLOCK_SIZE_M", "kind": "constexpr", "value": "32"},
        {"name": "BLOCK_SIZE_N", "kind": "constexpr", "value": "64"},
        {"name": "BLOCK_SIZE_K", "kind": "constexpr", "value": "32"},
    ],
    "grid": ["cdiv(M, BLOCK_SIZE_M)", "cdiv(N, BLOCK_SIZE_N)"],
    "spec": "matmul(a, b) + i",
    "domain": {"a_ptr": [-100.0, 100.0], "b_ptr": [-100.0, 100.0], "i_ptr": [-100.0, 100.0]},
    "reduce": "K",
    "sibling": "fg_addmm",
    "answer_key": {"dims": {"M": 72, "N": 100, "K": 80}, "seed": 0, "observable": "numeric"},
}


def reference(a, b, i):
    return a @ b + i

"""Split-K matmul in the style of the Triton tutorials (correct). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

A 2-D grid of (output tile, K slice): each program multiplies its BLOCK_K-step slice of K and adds the partial tile
into C with tl.atomic_add, so C (float32, zeroed by the launcher) holds the sum over the SPLIT_K slices."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def splitk_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * stride_bk + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    c_mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=c_mask)


def splitk_matmul(a, b, split_k=4):
    M, K = a.shape
    K, N = b.shape
    c = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 16) * triton.cdiv(N, 16), split_k)
    splitk_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                               BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, SPLIT_K=split_k)
    return c


LITMUS = {
    "label": "correct",
    "why": "a tutorial-style split-K matmul reducing the K slices with atomics",
    "dims": {"M": 40, "N": 24, "K": 200},
    "args": [
        {"name": "a_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "K"], "role": "in"},
        {"name": "b_ptr", "kind": "tensor", "dtype": "float32", "shape": ["K", "N"], "role": "in"},
        {"name": "c_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "acc"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "K", "kind": "scalar", "value": "K"},
        {"name": "stride_am", "kind": "scalar", "value": "K"},
        {"name": "stride_bk", "kind": "scalar", "value": "N"},
        {"name": "stride_cm", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_M", "kind": "constexpr", "value": "16"},
        {"name": "BLOCK_N", "kind": "constexpr", "value": "16"},
        {"name": "BLOCK_K", "kind": "constexpr", "value": "16"},
        {"name": "SPLIT_K", "kind": "constexpr", "value": "4"},
    ],
    "grid": ["cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", "SPLIT_K"],
    "spec": "matmul(a, b)",
    "domain": {"a_ptr": [-100.0, 100.0], "b_ptr": [-100.0, 100.0]},
    "reduce": "K",
    "answer_key": None,
}


def reference(a, b):
    return a @ b

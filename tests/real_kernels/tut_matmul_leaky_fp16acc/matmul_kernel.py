"""Matmul with a leaky-ReLU epilogue in the style of Triton's tutorial 03 (PLANTED BUG, dtype_promotion: `accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)` -> `accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)`). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

C = leaky_relu(A @ B) in float16 with a float32 accumulator: grouped program ordering for L2 reuse, K walked in
BLOCK_SIZE_K steps with masked loads, the activation chosen by a string constexpr and applied in float32."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(a, b, activation="leaky_relu"):
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=4, ACTIVATION=activation)
    return c


LITMUS = {
    "label": "dtype_promotion",
    "why": "a float16 accumulator: fine for short K and small values, loses digits as the partial sums grow",
    "dims": {"M": 72, "N": 40, "K": 100},
    "args": [
        {"name": "a_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M", "K"], "role": "in"},
        {"name": "b_ptr", "kind": "tensor", "dtype": "float16", "shape": ["K", "N"], "role": "in"},
        {"name": "c_ptr", "kind": "tensor", "dtype": "float16", "shape": ["M", "N"], "role": "out"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "K", "kind": "scalar", "value": "K"},
        {"name": "stride_am", "kind": "scalar", "value": "K"},
        {"name": "stride_ak", "kind": "scalar", "value": "1"},
        {"name": "stride_bk", "kind": "scalar", "value": "N"},
        {"name": "stride_bn", "kind": "scalar", "value": "1"},
        {"name": "stride_cm", "kind": "scalar", "value": "N"},
        {"name": "stride_cn", "kind": "scalar", "value": "1"},
        {"name": "BLOCK_SIZE_M", "kind": "constexpr", "value": "32"},
        {"name": "BLOCK_SIZE_N", "kind": "constexpr", "value": "32"},
        {"name": "BLOCK_SIZE_K", "kind": "constexpr", "value": "32"},
        {"name": "GROUP_SIZE_M", "kind": "constexpr", "value": "4"},
        {"name": "ACTIVATION", "kind": "constexpr", "value": "\"leaky_relu\""},
    ],
    "grid": ["cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"],
    "spec": "max(matmul(a, b), 0.01 * matmul(a, b))",
    "domain": {"a_ptr": [-4.0, 4.0], "b_ptr": [-4.0, 4.0]},
    "reduce": "K",
    "accumulate": "float32",
    "sibling": "tut_matmul_leaky",
    "answer_key": {"dims": {"M": 32, "N": 32, "K": 4000}, "inputs": {"a_ptr": {"dist": "uniform", "low": 0.0, "high": 4.0}, "b_ptr": {"dist": "uniform", "low": 0.0, "high": 4.0}}, "seed": 0, "observable": "numeric"},
}


def reference(a, b):
    c = a @ b
    return np.where(c >= 0, c, 0.01 * c)

"""Masked tiled matmul C = A @ B (correct), pointers advanced along K, grouped 1-D launch."""
import triton
import triton.language as tl

@triton.jit
def matmul_masked(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BN)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BK) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

LITMUS = {
    "label": "correct",
    "why": "a correct masked matmul",
    "dims": {"M": 96, "N": 80, "K": 72},
    "args": [
        {"name": "a_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "K"], "role": "in"},
        {"name": "b_ptr", "kind": "tensor", "dtype": "float32", "shape": ["K", "N"], "role": "in"},
        {"name": "c_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "K", "kind": "scalar", "value": "K"},
        {"name": "stride_am", "kind": "scalar", "value": "K"},
        {"name": "stride_ak", "kind": "scalar", "value": "1"},
        {"name": "stride_bk", "kind": "scalar", "value": "N"},
        {"name": "stride_bn", "kind": "scalar", "value": "1"},
        {"name": "stride_cm", "kind": "scalar", "value": "N"},
        {"name": "stride_cn", "kind": "scalar", "value": "1"},
        {"name": "BM", "kind": "constexpr", "value": "32"},
        {"name": "BN", "kind": "constexpr", "value": "32"},
        {"name": "BK", "kind": "constexpr", "value": "32"},
    ],
    "grid": ["cdiv(M, BM) * cdiv(N, BN)"],
    "spec": "matmul(a, b)",
    "domain": {},
    "answer_key": None,
}

def reference(a, b):
    return a @ b

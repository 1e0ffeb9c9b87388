"""Tiled matmul with a float16 accumulator (planted bug: dtype_promotion).

Each K step rounds the tile product to float16 and adds it into a float16 accumulator: 11 significant bits, and inf
beyond 65504. Long or large contractions lose their low bits or overflow; the float32 result is cast from it."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def matmul_fp16acc(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee").to(tl.float16)
    c_mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(tl.float32), mask=c_mask)


LITMUS = {
    "label": "dtype_promotion",
    "why": "with K=64 and inputs in [0, 1) the dot products stay near 16, where float16's relative error of about 1e-3 passes rtol=1e-2",
    "dims": {"M": 48, "N": 40, "K": 72, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "a_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "K"], "strides": ["K + P", "1"], "role": "in"},
        {"name": "b_ptr", "kind": "tensor", "dtype": "float32", "shape": ["K", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "c_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "K", "kind": "scalar", "value": "K"},
        {"name": "stride_am", "kind": "scalar", "value": "K + P"},
        {"name": "stride_bk", "kind": "scalar", "value": "N + P"},
        {"name": "stride_cm", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK_M", "kind": "constexpr", "value": "16"},
        {"name": "BLOCK_N", "kind": "constexpr", "value": "16"},
        {"name": "BLOCK_K", "kind": "constexpr", "value": "16"},
    ],
    "grid": ["cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)"],
    "spec": "matmul(a, b)",
    "domain": {"a_ptr": [-100.0, 100.0], "b_ptr": [-100.0, 100.0]},
    "reduce": "K",
    "sibling": "matmul",
    "answer_key": {"dims": {"M": 16, "N": 16, "K": 64}, "inputs": {"a_ptr": {"dist": "uniform", "low": 50.0, "high": 100.0},
                   "b_ptr": {"dist": "uniform", "low": 50.0, "high": 100.0}}, "seed": 0, "observable": "numeric",
                   "note": "one 16-long K step already sums to about 90000 > 65504: the float16 accumulator is inf"},
}


def reference(a, b):
    return a @ b

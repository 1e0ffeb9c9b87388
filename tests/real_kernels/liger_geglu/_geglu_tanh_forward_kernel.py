"""Liger-Kernel 0.8.5, liger_kernel/ops/geglu.py: `_geglu_tanh_forward_kernel` and its launcher `geglu_forward` (correct).

c = gelu_tanh(a) * b row by row, one program per row, the row in one BLOCK_SIZE = next_pow2(n_cols) tile. BSD-2-Clause,
Copyright 2024 LinkedIn Corporation (see LICENSE.liger-kernel). Edits: see README.md."""
import numpy as np
import torch
import triton
import triton.language as tl
from triton.language.extra.libdevice import tanh


def calculate_settings(n):
    # reference: https://github.com/unslothai/unsloth/blob/fd753fed99ed5f10ef8a9b7139588d9de9ddecfb/unsloth/kernels/utils.py#L43

    MAX_FUSED_SIZE = 65536
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds the recommended Triton blocksize = {MAX_FUSED_SIZE}."
        )

    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _geglu_tanh_forward_kernel(a, b, c, stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)

    # locate start index
    a += program_id * stride
    b += program_id * stride
    c += program_id * stride

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    a_row = tl.load(a + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b + col_offsets, mask=mask, other=0)

    # tanh approximation form of GELU is computed with:
    # 0.5 * a * (1 + tanh(sqrt(2 / pi) * (a + 0.044715 * a^3)))
    sqrt_2_over_pi = 0.7978845608028654  # sqrt(2 / pi)
    a_cubed = a_row * a_row * a_row
    tanh_arg = sqrt_2_over_pi * (a_row + 0.044715 * a_cubed)
    tanh_result = tanh(tanh_arg)
    geglu_a = 0.5 * a_row * (1 + tanh_result)
    c_row = geglu_a.cast(b_row.dtype) * b_row
    tl.store(c + col_offsets, c_row, mask=mask)


def geglu_forward(a, b):
    ori_shape = a.shape

    n_cols = ori_shape[-1]
    a = a.view(-1, n_cols)
    b = b.view(-1, n_cols)
    c = torch.empty_like(a)
    n_rows = a.shape[0]

    BLOCK_SIZE, num_warps = calculate_settings(n_cols)

    _geglu_tanh_forward_kernel[(n_rows,)](
        a,
        b,
        c,
        c.stride(-2),
        n_cols=n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return a, b, c.view(*ori_shape)


LITMUS = {
    "label": "correct",
    "why": "Liger's GeGLU (tanh) forward as shipped",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "a", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "b", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "c", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "constexpr", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "0.5 * a * (1 + tanh(0.7978845608028654 * (a + 0.044715 * a * a * a))) * b",
    "domain": {"a": [-10.0, 10.0], "b": [-10.0, 10.0]},
    "reduce": "1",
    "answer_key": None,
}


def reference(a, b):
    return 0.5 * a * (1 + np.tanh(0.7978845608028654 * (a + 0.044715 * a ** 3))) * b

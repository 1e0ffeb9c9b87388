"""Liger-Kernel 0.8.5, liger_kernel/ops/swiglu.py: `_swiglu_forward_kernel` and its launcher `swiglu_forward` (PLANTED BUG, mask_leak: `mask = col_offsets < n_cols` -> `mask = col_offsets <= n_cols`).

c = silu(a) * b row by row, one program per row, the row in one BLOCK_SIZE = next_pow2(n_cols) tile. BSD-2-Clause,
Copyright 2024 LinkedIn Corporation (see LICENSE.liger-kernel). Edits: see README.md."""
import numpy as np
import torch
import triton
import triton.language as tl


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
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_forward_kernel(
    a_ptr, b_ptr, c_ptr, stride, gate_multiplier, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr
):
    program_id = tl.program_id(0).to(tl.int64)

    # locate start index
    a_ptr += program_id * stride
    b_ptr += program_id * stride
    c_ptr += program_id * stride

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets <= n_cols

    # sigmoid requires type float32
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32) * gate_multiplier.to(tl.float32)
    b_row = tl.load(b_ptr + col_offsets, mask=mask, other=0)
    c_row = silu(a_row).cast(b_row.dtype) * b_row
    tl.store(c_ptr + col_offsets, c_row, mask=mask)


def swiglu_forward(a, b, gate_multiplier: float = 1.0):
    ori_shape = a.shape

    n_cols = ori_shape[-1]
    a = a.view(-1, n_cols)
    b = b.view(-1, n_cols)
    c = torch.empty_like(a)
    n_rows = a.shape[0]

    BLOCK_SIZE, num_warps = calculate_settings(n_cols)

    _swiglu_forward_kernel[(n_rows,)](
        a,
        b,
        c,
        c.stride(-2),
        float(gate_multiplier),
        n_cols=n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return a, b, c.view(*ori_shape)


LITMUS = {
    "label": "mask_leak",
    "why": "off-by-one mask: lane n_cols is live, so the last row reads and writes one element past the tensor",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "a_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "b_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "c_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "stride", "kind": "scalar", "value": "N"},
        {"name": "gate_multiplier", "kind": "scalar", "value": 1.0},
        {"name": "n_cols", "kind": "constexpr", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "a * sigmoid(a) * b",
    "domain": {"a_ptr": [-20.0, 20.0], "b_ptr": [-20.0, 20.0]},
    "reduce": "1",
    "sibling": "liger_swiglu",
    "answer_key": {"dims": {"M": 4, "N": 1000}, "seed": 0, "observable": "oob_write"},
}


def reference(a, b):
    return a / (1.0 + np.exp(-a)) * b

"""Liger-Kernel 0.8.5, liger_kernel/ops/softmax.py: `_softmax_multi_block_forward_kernel` (PLANTED BUG, reduction_init: `m = tl.float32(-float("inf"))` -> `m = tl.float32(0.0)`).

Online row softmax: one program per row walks the row in BLOCK_SIZE tiles keeping a running max and a rescaled running
sum, then writes exp(x - m) / d in a second pass. BSD-2-Clause, Copyright 2024 LinkedIn Corporation (see
LICENSE.liger-kernel). Edits: see README.md (the shipped launcher picks this kernel only when n_cols > BLOCK_SIZE,
which calculate_settings never produces; the launch below uses BLOCK_SIZE = 128 < n_cols so the loop runs)."""
from typing import Tuple

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
def _softmax_multi_block_forward_kernel(
    Y_ptr,
    Y_row_stride,
    X_ptr,
    X_row_stride,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    row_id = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)

    m = tl.float32(0.0)
    d = tl.float32(0.0)
    for start in tl.range(0, n_cols, BLOCK_SIZE):
        idx = start + offs
        mask = idx < n_cols
        xblk = tl.load(X_ptr + row_id * X_row_stride + idx, mask=mask, other=-float("inf"), cache_modifier=".ca")
        blk_max = tl.max(xblk, axis=0)
        new_m = tl.max(m, blk_max)
        d = d * tl.exp(m - new_m) + tl.sum(tl.exp(xblk - new_m), axis=0)
        m = new_m

    for start in tl.range(0, n_cols, BLOCK_SIZE):
        idx = start + offs
        mask = idx < n_cols
        xblk = tl.load(X_ptr + row_id * X_row_stride + idx, mask=mask, other=-float("inf"), cache_modifier=".ca")
        yblk = tl.exp(xblk - m) / d
        tl.store(Y_ptr + row_id * Y_row_stride + idx, yblk, mask=mask, cache_modifier=".cs")


def _softmax_forward(x: torch.Tensor) -> Tuple[torch.Tensor, int, int, bool]:
    *batch, n_cols = x.shape
    x2d = x.contiguous().view(-1, n_cols)
    n_rows = x2d.shape[0]

    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    y2d = torch.empty_like(x2d)

    _softmax_multi_block_forward_kernel[(n_rows,)](
        y2d, y2d.stride(0), x2d, x2d.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps
    )
    multi_block_launch = True

    return y2d.view(*batch, n_cols), BLOCK_SIZE, num_warps, multi_block_launch


LITMUS = {
    "label": "reduction_init",
    "why": "the running max starts at 0: harmless for rows with a non-negative entry, 0/0 for an all very negative row",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "Y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "Y_row_stride", "kind": "scalar", "value": "N"},
        {"name": "X_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "X_row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["M"],
    "spec": "softmax(X)",
    "domain": {"X_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "liger_softmax_multi",
    "answer_key": {"dims": {"M": 4, "N": 300}, "inputs": {"X_ptr": {"dist": "uniform", "low": -1000.0, "high": -200.0}}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

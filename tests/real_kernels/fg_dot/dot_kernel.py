"""FlagGems 5.0.2 (Apache-2.0, see LICENSE.flaggems; Copyright the FlagGems authors). flag_gems/ops/dot.py: `dot_kernel` and the single-kernel branch of its launcher `dot` (correct).

Dot product of two vectors of N < 4096 elements in one program and one next_pow2(N) tile, in float32. Edits: see
README.md."""
import math

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
def dot_kernel(x_ptr, y_ptr, out_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = program_id(0)
    block_start = pid * BLOCK_SIZE

    offsets = block_start + tl.arange(0, BLOCK_SIZE)

    mask = offsets < N
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0).to(tl.float32)

    sum = tl.sum(x * y)
    tl.store(out_ptr, sum)


def dot(x, y):
    assert x.shape == y.shape, "Input vectors must have the same shape"
    assert x.dim() == 1, "Input must be 1D tensors"

    N = x.shape[0]

    block_size = triton.next_power_of_2(N)

    grid = (1, 1, 1)

    out = torch.empty([], dtype=torch.float32, device=x.device)

    dot_kernel[grid](x, y, out, N, block_size)
    out = out.to(x.dtype)

    return out


LITMUS = {
    "label": "correct",
    "why": "FlagGems' single-program dot product as shipped",
    "dims": {"N": 3000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["1"], "role": "out"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["1", "1", "1"],
    "spec": "sum(x * y)",
    "domain": {"x_ptr": [-100.0, 100.0], "y_ptr": [-100.0, 100.0]},
    "reduce": "N",
    "answer_key": None,
}


def reference(x, y):
    return np.array([(x * y).sum()])

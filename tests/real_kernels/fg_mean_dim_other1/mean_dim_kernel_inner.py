"""FlagGems 5.0.2 (Apache-2.0, see LICENSE.flaggems; Copyright the FlagGems authors). flag_gems/ops/mean.py: `mean_dim_kernel_inner` and its launcher `mean_dim_comm` (PLANTED BUG, reduction_init: `tl.load(input_ptr + inp_offsets, mask=mask, other=0)` -> `tl.load(input_ptr + inp_offsets, mask=mask, other=1)`).

Mean over the last dim, one program per row; on the multi-tile path (ONE_TILE_PER_CTA = 0) a TILE_N-wide running
sum in the compute dtype (float32 for half inputs). Edits: see README.md."""
from functools import reduce

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
def mean_dim_kernel_inner(
    output_ptr,
    input_ptr,
    M,
    N,
    TILE_N: tl.constexpr,
    ONE_TILE_PER_CTA: tl.constexpr,
):
    if tl.constexpr(input_ptr.dtype.element_ty == tl.float16) or tl.constexpr(
        input_ptr.dtype.element_ty == tl.bfloat16
    ):
        cdtype = tl.float32
    else:
        cdtype = input_ptr.dtype.element_ty

    pid_m = program_id(0)
    if ONE_TILE_PER_CTA:
        n_offsets = tl.arange(0, TILE_N)
        inp_offset = pid_m * N + n_offsets
        input_ptrs = input_ptr + inp_offset
        mask = n_offsets < N
        inp = tl.load(input_ptrs, mask=mask, other=0).to(cdtype)
        summed = tl.sum(inp, axis=0)
        out = summed / N
        out_offset = pid_m
        output_ptrs = output_ptr + out_offset
        tl.store(output_ptrs, out)
    else:
        sum_vec = tl.zeros(
            [
                TILE_N,
            ],
            dtype=cdtype,
        )
        for start_n in range(0, N, TILE_N):
            n_offsets = start_n + tl.arange(0, TILE_N)
            inp_offsets = pid_m * N + n_offsets
            mask = n_offsets < N
            inp = tl.load(input_ptr + inp_offsets, mask=mask, other=1).to(cdtype)
            sum_vec += inp
        summed = tl.sum(sum_vec, axis=0)
        out = summed / N
        out_offset = pid_m
        output_ptrs = output_ptr + out_offset
        tl.store(output_ptrs, out)


def mean_dim_comm(inp, dim=None, keepdim=False, *, dtype=None, out=None):
    if dtype is None:
        dtype = inp.dtype

    shape = list(inp.shape)
    dim = [dim]
    dim = [d % inp.ndim for d in dim]

    dim0 = dim[0]
    N = inp.shape[dim0]  # reduction length
    # product of dims before dim0; use initializer 1 for empty slice
    M = reduce(lambda x, y: x * y, shape[:dim0], 1)
    inp = inp.contiguous()
    K = inp.numel() // M // N
    shape[dim0] = 1
    if out is None:
        out = torch.empty(shape, dtype=dtype, device=inp.device)

    grid = (M, 1, 1)
    mean_dim_kernel_inner[grid](
        out,
        inp,
        M,
        N,
    )
    if not keepdim:
        out = out.squeeze(dim=dim0)
    return out


LITMUS = {
    "label": "reduction_init",
    "why": "masked lanes load 1, not the identity of the sum: each padded lane adds 1/N; invisible when TILE_N divides N",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "output_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M"], "role": "out"},
        {"name": "input_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "TILE_N", "kind": "constexpr", "value": "128"},
        {"name": "ONE_TILE_PER_CTA", "kind": "constexpr", "value": 0},
    ],
    "grid": ["M", "1", "1"],
    "spec": "mean(input)",
    "domain": {"input_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "fg_mean_dim",
    "answer_key": {"dims": {"M": 4, "N": 1000}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    return x.mean(axis=-1)

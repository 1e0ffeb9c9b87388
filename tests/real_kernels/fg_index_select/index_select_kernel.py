"""FlagGems 5.0.2 (Apache-2.0, see LICENSE.flaggems; Copyright the FlagGems authors). flag_gems/ops/index_select.py: `index_select_kernel` and its launcher `index_select` (correct).

A gather along the last dim: out[m, j] = inp[m, index[j]], with lanes whose index is outside [0, N) masked off.
Edits: see README.md (the @triton.heuristics decorator is removed; its BLOCK_M and BLOCK_N formulas, written in
litmus's size language, are the launch below)."""
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
def index_select_kernel(
    inp, out, M, N, index, index_len, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    pid_x = program_id(axis=0)
    pid_y = program_id(axis=1)
    rows_offsets = pid_x * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    rows_mask = rows_offsets < M
    cols_offsets = pid_y * BLOCK_N + tl.arange(0, BLOCK_N)

    out_mask = rows_mask and (cols_offsets < index_len)

    indices = tl.load(index + cols_offsets, mask=(cols_offsets < index_len), other=0)
    valid_lower_bound = indices >= 0
    valid_upper_bound = indices < N
    index_valid_mask = valid_lower_bound & valid_upper_bound

    inp_off = rows_offsets * N + indices[None, :]
    out_off = rows_offsets * index_len + cols_offsets[None, :]

    final_mask = out_mask & index_valid_mask
    selected = tl.load(inp + inp_off, mask=final_mask, other=0.0)
    tl.store(out + out_off, selected, mask=final_mask)


def index_select(inp, dim, index):
    assert dim >= -inp.ndim and dim < inp.ndim, "Invalid dim"
    assert index.ndim <= 1, "Index should have dimension 1 or 0"

    if index.ndim == 0:
        index = index.unsqueeze(0)
    dim = dim % inp.ndim
    inp_shape = list(inp.shape)
    index_len = index.numel()

    N = inp_shape[dim]
    M = inp.numel() // N
    out_shape = list(inp.shape)
    out_shape[inp.ndim - 1] = index_len
    out = torch.empty(out_shape, dtype=inp.dtype, device=inp.device)

    grid = lambda meta: (
        triton.cdiv(M, meta["BLOCK_M"]),
        triton.cdiv(index_len, meta["BLOCK_N"]),
    )
    index_select_kernel[grid](inp, out, M, N, index, index_len)
    return out


LITMUS = {
    "label": "correct",
    "why": "FlagGems' index_select along the last dim as shipped",
    "dims": {"M": 6, "N": 300, "L": 100},
    "args": [
        {"name": "inp", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "out", "kind": "tensor", "dtype": "float32", "shape": ["M", "L"], "role": "out"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "index", "kind": "tensor", "dtype": "int64", "shape": ["L"], "role": "in"},
        {"name": "index_len", "kind": "scalar", "value": "L"},
        {"name": "BLOCK_M", "kind": "constexpr", "value": "min(4, next_pow2(cdiv(256, N)))"},
        {"name": "BLOCK_N", "kind": "constexpr", "value": "max(min(next_pow2(cdiv(N, 16)), 512), 16)"},
    ],
    "grid": ["cdiv(M, BLOCK_M)", "cdiv(L, BLOCK_N)"],
    "spec": "gather(inp, index)",
    "domain": {"inp": [-1000.0, 1000.0], "index": [0, "N - 1"]},
    "reduce": "1",
    "answer_key": None,
}


def reference(inp, index):
    return inp[:, index.astype(np.int64)]

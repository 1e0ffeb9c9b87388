"""FlagGems 5.0.2 (Apache-2.0, see LICENSE.flaggems; Copyright the FlagGems authors). flag_gems/ops/t_copy.py (generated upstream by KernelGen): `t_copy_2d_kernel` and the 2-D branch of its
launcher `_launch_t_copy_kernel` (PLANTED BUG, mask_leak: `mask = (i64 < N) & (j64 < M)` -> `mask = (i64 < N) & (j64 < N)`).

A transpose out[i, j] = in[j, i] through explicit strides, BLOCK_M x BLOCK_N tiles, both ends masked. Pure data
movement: the exact answer is the input. Edits: see README.md."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def t_copy_2d_kernel(
    in_ptr,
    out_ptr,
    in_stride_0,
    in_stride_1,
    out_stride_0,
    out_stride_1,
    M,  # input dim0
    N,  # input dim1
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)

    i = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # corresponds to out rows [0..N)
    j = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # corresponds to out cols [0..M)

    i64 = i.to(tl.int64)[None, :]  # shape [1, BM]
    j64 = j.to(tl.int64)[:, None]  # shape [BN, 1]

    # out shape = (N, M)
    mask = (i64 < N) & (j64 < N)

    # in index = (j, i) -> in_offset = j*in_stride_0 + i*in_stride_1
    in_offsets = j64 * in_stride_0 + i64 * in_stride_1
    # out index = (i, j) -> out_offset = i*out_stride_0 + j*out_stride_1
    out_offsets = i64 * out_stride_0 + j64 * out_stride_1

    x = tl.load(in_ptr + in_offsets, mask=mask)
    tl.store(out_ptr + out_offsets, x, mask=mask)


def _launch_t_copy_kernel(inp: torch.Tensor, out: torch.Tensor):
    assert inp.is_cuda and out.is_cuda, "t_copy kernels require CUDA tensors"
    assert inp.dtype == out.dtype, "dtype mismatch between input and output"

    M, N = inp.shape  # input dims
    # out should be (N, M)
    assert (
        out.dim() == 2 and out.shape[0] == N and out.shape[1] == M
    ), "Output shape must be (input.size(1), input.size(0)) for t_copy"
    in_s0, in_s1 = inp.stride()
    out_s0, out_s1 = out.stride()
    grid = lambda meta: (
        triton.cdiv(N, meta["BLOCK_M"]),
        triton.cdiv(M, meta["BLOCK_N"]),
    )
    t_copy_2d_kernel[grid](
        inp,
        out,
        in_s0,
        in_s1,
        out_s0,
        out_s1,
        M,
        N,
        BLOCK_M=32,
        BLOCK_N=32,
    )


def t_copy(input: torch.Tensor, memory_format: torch.memory_format | None = None):
    M, N = input.shape
    out = torch.empty(
        (N, M),
        dtype=input.dtype,
        device=input.device,
        memory_format=torch.contiguous_format,
    )
    _launch_t_copy_kernel(input, out)
    return out


LITMUS = {
    "label": "mask_leak",
    "why": "the column bound uses the wrong dim: right for square inputs only",
    "dims": {"M": 70, "N": 45},
    "args": [
        {"name": "in_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N", "M"], "role": "out"},
        {"name": "in_stride_0", "kind": "scalar", "value": "N"},
        {"name": "in_stride_1", "kind": "scalar", "value": "1"},
        {"name": "out_stride_0", "kind": "scalar", "value": "M"},
        {"name": "out_stride_1", "kind": "scalar", "value": "1"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_M", "kind": "constexpr", "value": "32"},
        {"name": "BLOCK_N", "kind": "constexpr", "value": "32"},
    ],
    "grid": ["cdiv(N, BLOCK_M)", "cdiv(M, BLOCK_N)"],
    "spec": "transpose(in_ptr)",
    "domain": {"in_ptr": [-1000.0, 1000.0]},
    "reduce": "1",
    "sibling": "fg_transpose",
    "answer_key": {"dims": {"M": 70, "N": 45}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    return x.T.copy()

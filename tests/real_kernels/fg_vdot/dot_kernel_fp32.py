"""FlagGems 5.0.2 (Apache-2.0, see LICENSE.flaggems; Copyright the FlagGems authors). flag_gems/ops/vdot.py: `dot_kernel_fp32` and the float32 branch of its launcher `vdot` (correct).

Dot product of two vectors: each program reduces its tile of x * y and adds it into out[0] with tl.atomic_add; the
launcher zeroes the output first. Edits: see README.md (the @triton.heuristics decorator is removed; its BLOCK_SIZE
for n_elements >= 1024 and < 8192, 256, is the launch below)."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit()
def dot_kernel_fp32(
    inp_ptr,
    other_ptr,
    out_ptr,
    n_elements,
    inp_stride: tl.constexpr,
    other_stride: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(0)
    offset = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offset < n_elements

    inp = tl.load(inp_ptr + inp_stride * offset, mask=mask)
    other = tl.load(other_ptr + other_stride * offset, mask=mask)

    out = tl.sum(inp * other)
    tl.atomic_add(out_ptr, out)


def vdot(input, other):
    assert (
        input.dtype == other.dtype
    ), f"Input tensors must have the same dtype. Got {input.dtype} and {other.dtype}."
    assert (
        input.ndim == 1 and other.ndim == 1
    ), f"Input tensors must be 1D. Got {input.ndim}D and {other.ndim}D."
    assert (
        input.size() == other.size()
    ), f"Input tensors must have the same size. Got {input.size()} and {other.size()}."

    inp = input
    inp_stride = inp.stride()[0]
    other_stride = other.stride()[0]

    output = torch.zeros([], dtype=torch.float32, device=inp.device)
    n_elements = inp.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    dot_kernel_fp32[grid](
        inp,
        other,
        output,
        n_elements=n_elements,
        inp_stride=inp_stride,
        other_stride=other_stride,
    )
    return output


LITMUS = {
    "label": "correct",
    "why": "FlagGems' float32 vdot as shipped: per-program partial sums added atomically",
    "dims": {"N": 3000},
    "args": [
        {"name": "inp_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "other_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["1"], "role": "acc"},
        {"name": "n_elements", "kind": "scalar", "value": "N"},
        {"name": "inp_stride", "kind": "constexpr", "value": "1"},
        {"name": "other_stride", "kind": "constexpr", "value": "1"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "256"},
    ],
    "grid": ["cdiv(N, BLOCK_SIZE)"],
    "spec": "sum(inp * other)",
    "domain": {"inp_ptr": [-100.0, 100.0], "other_ptr": [-100.0, 100.0]},
    "reduce": "N",
    "answer_key": None,
}


def reference(x, y):
    return np.array([(x * y).sum()])

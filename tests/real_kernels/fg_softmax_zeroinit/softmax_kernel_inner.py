"""FlagGems 5.0.2 (Apache-2.0, see LICENSE.flaggems; Copyright the FlagGems authors). flag_gems/ops/softmax.py: `softmax_kernel_inner` and its launcher `softmax` (PLANTED BUG, reduction_init: `m = tl.full([TILE_N], value=float("-inf"), dtype=tl.float32)` -> `m = tl.full([TILE_N], value=0.0, dtype=tl.float32)`).

Row softmax over the last dim. With ONE_TILE_PER_CTA = 0 (the path the shipped heuristic takes for rows longer than
32768) it is an online softmax: full tiles unmasked up to prev_multiple_of(N, TILE_N), the last tile masked, then a
second pass that writes the tiles from the last one down. Edits: see README.md."""
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
def prev_multiple_of(a, b):
    # the largest x<a that x%b ==0
    return tl.cdiv(a, b) * b - b


@triton.jit
def softmax_kernel_inner(
    output_ptr,
    input_ptr,
    M,
    N,
    TILE_N: tl.constexpr,
    ONE_TILE_PER_CTA: tl.constexpr,
):
    pid_m = program_id(0)
    if ONE_TILE_PER_CTA:
        n_offsets = tl.arange(0, TILE_N)
        offset = pid_m * N + n_offsets
        input_ptrs = input_ptr + offset
        mask = n_offsets < N
        inp = tl.load(input_ptrs, mask=mask, other=-float("inf")).to(
            output_ptr.dtype.element_ty
        )
        m = tl.max(inp, 0)
        e = tl.exp(inp - m)
        z = tl.sum(e, 0)
        out = e / z
        output_ptrs = output_ptr + offset
        tl.store(output_ptrs, out, mask=mask)
    else:
        m = tl.full([TILE_N], value=0.0, dtype=tl.float32)
        z = tl.full([TILE_N], value=0.0, dtype=tl.float32)
        input_ptr += pid_m * N
        output_ptr += pid_m * N

        previous_multiple = prev_multiple_of(N, TILE_N)
        for start_n in range(0, previous_multiple, TILE_N):
            n_offsets = start_n + tl.arange(0, TILE_N)
            inp = tl.load(input_ptr + n_offsets)
            m_new = tl.maximum(m, inp)
            # it is possible that there are -inf's in the input
            all_neg_inf = m_new == float("-inf")
            z = tl.where(all_neg_inf, z, z * tl.exp(m - m_new) + tl.exp(inp - m_new))
            m = m_new
        # specialize the last iteration
        for start_n in range(previous_multiple, N, TILE_N):
            n_offsets = start_n + tl.arange(0, TILE_N)
            mask = n_offsets < N
            inp = tl.load(input_ptr + n_offsets, mask=mask, other=-float("inf"))
            m_new = tl.maximum(m, inp)
            all_neg_inf = m_new == float("-inf")
            z = tl.where(all_neg_inf, z, z * tl.exp(m - m_new) + tl.exp(inp - m_new))
            m = m_new

        m_reduced = tl.max(m, 0)
        z = tl.sum(z * tl.exp(m - m_reduced), 0)
        m = m_reduced

        previous_multiple = prev_multiple_of(N, TILE_N)
        # specialize the first iteration
        for start_n in range(0, TILE_N, TILE_N):
            n_offsets = (previous_multiple - start_n) + tl.arange(0, TILE_N)
            mask = n_offsets < N
            inp = tl.load(
                input_ptr + n_offsets,
                mask=mask,
                other=-float("inf"),
                eviction_policy="evict_first",
            )
            o = tl.exp(inp - m) / z
            tl.store(output_ptr + n_offsets, o, mask=mask)
        for start_n in range(TILE_N, N, TILE_N):
            n_offsets = (previous_multiple - start_n) + tl.arange(0, TILE_N)
            inp = tl.load(input_ptr + n_offsets, eviction_policy="evict_first")
            o = tl.exp(inp - m) / z
            tl.store(output_ptr + n_offsets, o)


def softmax(self, dim, half_to_float=False):
    assert dim >= -self.ndim and dim < self.ndim, "Invalid dim"

    dim = dim % self.ndim
    M = 1
    N = self.shape[dim]
    for i in range(dim):
        M *= self.shape[i]  # pre_dim
    self = self.contiguous()
    if half_to_float:
        dtype = torch.float32
    else:
        dtype = self.dtype
    out = torch.empty_like(self, dtype=dtype)
    K = self.numel() // M // N  # post_dim

    grid = (M, 1, 1)
    softmax_kernel_inner[grid](
        out,
        self,
        M,
        N,
    )
    return out


LITMUS = {
    "label": "reduction_init",
    "why": "the running max starts at 0: harmless for rows with a non-negative entry, 0/0 for an all very negative row",
    "dims": {"M": 8, "N": 1000},
    "args": [
        {"name": "output_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "input_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "M", "kind": "scalar", "value": "M"},
        {"name": "N", "kind": "scalar", "value": "N"},
        {"name": "TILE_N", "kind": "constexpr", "value": "128"},
        {"name": "ONE_TILE_PER_CTA", "kind": "constexpr", "value": 0},
    ],
    "grid": ["M", "1", "1"],
    "spec": "softmax(input)",
    "domain": {"input_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "fg_softmax",
    "answer_key": {"dims": {"M": 4, "N": 300}, "inputs": {"input_ptr": {"dist": "uniform", "low": -1000.0, "high": -200.0}}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

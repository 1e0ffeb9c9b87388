"""Fused softmax in the style of Triton's tutorial 02 (PLANTED BUG, no_max_subtract: `numerator = tl.exp(row_minus_max)` -> `numerator = tl.exp(row)`). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

A persistent kernel: a fixed number of programs walk the rows with a grid-stride tl.range loop; each row sits in one
BLOCK_SIZE = next_pow2(n_cols) tile, masked lanes load -inf and the row max is subtracted before exp."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr,
                   num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    y = torch.empty_like(x)
    num_programs = min(n_rows, 4)
    softmax_kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE, num_stages=2)
    return y


LITMUS = {
    "label": "no_max_subtract",
    "why": "torch.rand() inputs never overflow exp; inputs above ~88 do",
    "dims": {"M": 10, "N": 1000},
    "args": [
        {"name": "output_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "out"},
        {"name": "input_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "role": "in"},
        {"name": "input_row_stride", "kind": "scalar", "value": "N"},
        {"name": "output_row_stride", "kind": "scalar", "value": "N"},
        {"name": "n_rows", "kind": "scalar", "value": "M"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "next_pow2(N)"},
        {"name": "num_stages", "kind": "constexpr", "value": "2"},
    ],
    "grid": ["min(M, 4)", "1", "1"],
    "spec": "softmax(input)",
    "domain": {"input_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "tut_softmax",
    "answer_key": {"dims": {"M": 4, "N": 300}, "inputs": {"input_ptr": {"dist": "uniform", "low": 100.0, "high": 1000.0}}, "seed": 0, "observable": "numeric"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

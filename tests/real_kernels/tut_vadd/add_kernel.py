"""Vector add in the style of Triton's tutorial 01 (correct). Written for this suite in the style of the Triton tutorials (MIT licence, triton-lang.org); no upstream code.

One BLOCK_SIZE tile per program, the tail masked on load and store; the launcher sizes the grid with a meta lambda."""
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


LITMUS = {
    "label": "correct",
    "why": "the tutorial's vector add",
    "dims": {"N": 3000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "output_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n_elements", "kind": "scalar", "value": "N"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "1024"},
    ],
    "grid": ["cdiv(N, BLOCK_SIZE)"],
    "spec": "x + y",
    "domain": {"x_ptr": [-1000.0, 1000.0], "y_ptr": [-1000.0, 1000.0]},
    "reduce": "1",
    "answer_key": None,
}


def reference(x, y):
    return x + y

"""The seeded dropout of the Triton tutorials (correct): `tl.rand` is data, the addresses are a masked 1-D tile.
Test-only."""
import triton
import triton.language as tl

@triton.jit
def tutorial_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)

LITMUS = {
    "label": "correct", "why": "tutorial", "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "output_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n_elements", "kind": "scalar", "value": "N"},
        {"name": "p", "kind": "scalar", "value": 0.5},
        {"name": "seed", "kind": "scalar", "value": "123"},
        {"name": "BLOCK_SIZE", "kind": "constexpr", "value": "1024"},
    ],
    "grid": ["cdiv(N, BLOCK_SIZE)"], "spec": None, "domain": {}, "answer_key": None,
}

def reference(x):
    return x

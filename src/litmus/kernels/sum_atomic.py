"""Sum of a vector: each program reduces its tile and adds it into out[0] with tl.atomic_add (correct).

out must be zero before the launch. The atomic makes every read-modify-write of out[0] indivisible, so no partial
sum is lost; the order of the additions still varies from run to run, which changes only the rounding."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def sum_atomic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


LITMUS = {
    "label": "correct",
    "why": "a correct atomic accumulate",
    "dims": {"N": 3000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["1"], "role": "acc"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "256"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": "sum(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "answer_key": None,
}


def reference(x):
    return np.array([x.sum()])

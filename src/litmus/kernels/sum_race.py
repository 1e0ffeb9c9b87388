"""Sum of a vector where each program adds its tile into out[0] with a plain load and store (planted bug: race).

The read of out[0] and the write back are two separate memory operations. Programs that run at the same time read
the same old value, and all but the last write are lost."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def sum_race(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    current = tl.load(out_ptr)
    tl.store(out_ptr, current + tl.sum(x, axis=0))


LITMUS = {
    "label": "race",
    "why": "on real hardware the lost update is intermittent, and with few programs it can go unobserved for many runs",
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
    "sibling": "sum_atomic",
    "answer_key": {"dims": {"N": 1000}, "inputs": {"x_ptr": {"dist": "uniform", "low": 0.0, "high": 1.0}},
                   "seed": 0, "observable": "numeric",
                   "note": "4 programs; under the lost-update model only the last program's partial sum survives"},
}


def reference(x):
    return np.array([x.sum()])

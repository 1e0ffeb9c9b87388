"""Row softmax with a barrier that only even rows reach (planted bug: race, a divergent barrier).

tl.debug_barrier() sits under a branch on the program id. A barrier is a promise that every participant arrives;
here half of the programs skip it, so anything that relied on it to order memory would be ordering nothing, and on
hardware where the barrier spans the participants that skip it, the ones that arrive wait for ever. The arithmetic is
the correct softmax, so the outputs match the reference at every shape: only a check of the control flow sees it."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_barrier(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    if row % 2 == 0:
        tl.debug_barrier()
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * stride + cols, num / den, mask=mask)


LITMUS = {
    "label": "race",
    "why": "the barrier changes no value, so every output comparison passes; the defect is in the control flow",
    "dims": {"M": 16, "N": 1000, "P": 0},
    "pads": ["P"],
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"], "strides": ["N + P", "1"], "role": "out"},
        {"name": "n_cols", "kind": "scalar", "value": "N"},
        {"name": "stride", "kind": "scalar", "value": "N + P"},
        {"name": "BLOCK", "kind": "constexpr", "value": "next_pow2(N)"},
    ],
    "grid": ["M"],
    "spec": "softmax(x)",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "reduce": "N",
    "sibling": "softmax",
    "answer_key": {"dims": {"M": 4, "N": 100}, "inputs": {}, "seed": 0, "observable": "divergent_barrier",
                   "note": "programs 0 and 2 reach tl.debug_barrier, programs 1 and 3 do not"},
}


def reference(x):
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)

"""Vector add with the tail tile unmasked (planted bug: mask_leak, an out-of-bounds write past the tensor).

The last program reads and writes BLOCK lanes even when only N % BLOCK of them exist. The lanes past the end
read garbage and store it past the end of `out`, into memory the kernel does not own. Every element of `out`
that exists is still correct, so no comparison of outputs can see the bug at any shape: only a bounds check does."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def vadd_nomask(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x + y)


LITMUS = {
    "label": "mask_leak",
    "why": "N=512 is a multiple of BLOCK, so no tail exists; and even with a tail the damage lands outside `out`, where no output comparison looks",
    "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "out_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": "x + y",
    "domain": {"x_ptr": [-1000.0, 1000.0], "y_ptr": [-1000.0, 1000.0]},
    "reduce": "1",
    "sibling": "vadd",
    "answer_key": {"dims": {"N": 1000}, "inputs": {}, "seed": 0, "observable": "oob_write",
                   "note": "N % BLOCK = 104: lanes 1000..1023 of the last program store past the 1000-element allocation of out_ptr"},
}


def reference(x, y):
    return x + y

"""The same copy clamped to n instead of 0 (planted bug: mask_leak): lanes past the end read one past the tensor.
The chosen address is modelled as two cases, each with its own guard. Test-only."""
import triton
import triton.language as tl


@triton.jit
def where_clamp_bad(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    safe = tl.where(mask, offs, n)
    x = tl.load(x_ptr + safe)
    if pid % 2 == 0:
        dst = y_ptr + offs
    else:
        dst = y_ptr + (pid * BLOCK + tl.arange(0, BLOCK))
    tl.store(dst, x, mask=mask)


LITMUS = {
    "label": "mask_leak",
    "why": "test-only: tl.where on an index and a pointer chosen by an if",
    "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": "x",
    "domain": {},
    "answer_key": {"dims": {"N": 1000}},
}


def reference(x):
    return x

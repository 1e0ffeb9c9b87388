"""A vector add that is wrong only when the size passes 5000. Test-only (issue 23: the search has no blind spots)."""
import triton
import triton.language as tl


@triton.jit
def trust_size_threshold(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    out = x + y
    if n > 5000:
        out = x + y + 1.0
    tl.store(out_ptr + offs, out, mask=mask)


LITMUS = {
    "why": "adds 1 once n > 5000: every power-of-two test and every block class misses it",
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
    "answer_key": None,
}


def reference(x, y):
    return x + y

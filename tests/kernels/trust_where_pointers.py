"""A vector copy that picks its source pointer with tl.where (correct): even programs read x, odd ones read x too, through a pointer chosen per lane. Test-only."""
import triton
import triton.language as tl


@triton.jit
def trust_where_pointers(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    last = tl.maximum(n - 1, 0)
    src = tl.where(mask, x_ptr + offs, x_ptr + last)
    x = tl.load(src)
    tl.store(y_ptr + offs, x, mask=mask)


LITMUS = {
    "why": "tl.where between two pointers into one tensor; lanes past the end read the last element",
    "dims": {"N": 1000},
    "args": [
        {"name": "x_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "in"},
        {"name": "y_ptr", "kind": "tensor", "dtype": "float32", "shape": ["N"], "role": "out"},
        {"name": "n", "kind": "scalar", "value": "N"},
        {"name": "BLOCK", "kind": "constexpr", "value": "128"},
    ],
    "grid": ["cdiv(N, BLOCK)"],
    "spec": "x",
    "domain": {"x_ptr": [-1000.0, 1000.0]},
    "answer_key": None,
}


def reference(x):
    return x
